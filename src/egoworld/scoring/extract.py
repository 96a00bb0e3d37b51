"""The answer extractor: turn a model's free-text reply into a choice index or a number.

Pre-processing: reasoning blocks (``<think>``, ``<thinking>``, ``<reasoning>``; also an unterminated
block and a lone closing tag) are split off; markdown emphasis, backticks and header marks are removed;
"->", "=>", "⟶" become "→"; a dash between spaces becomes " — "; curly quotes become straight.
Rules are applied in order; the first that fires wins and names itself in ``Extraction.rule``.
A rule may also stop the search as ambiguous: the reply is then unparsed. There is never a guess.

Choice rules (letters are only those of the presented choices, e.g. A-D for four):
 1. letter_whole     the whole reply is a letter: "B", "(b)", "B.", "[B]", "Option B"
 2. letter_option    the whole reply is a letter and that letter's text: "B. forward";
                     a letter with another option's text is ambiguous
 3. letter_final /   the last "final answer: X" or \\boxed{X} (X a letter / an option text)
    option_final
 4. last_line        a multi-line reply whose last line is a bare letter, "letter. text" or an option
                     text (skipped when several lines carry different letter labels: echoed options)
 5. letter_explicit / "answer is X", "answer: X", "correct option is X", "I choose X", "it is X",
    option_explicit  "X is correct"; different answers: the one on the last line, else ambiguous
 6. refusal          "I cannot determine ...", "I'm sorry ..." -> unparsed
 7. letter_leading   the reply starts with a labelled letter ("B) The camera turns ...") or its first
                     line is a bare letter / "letter. text"
 8. yes_no           yes/no choices only: the reply starts with "Yes," / "No." / "No, the ..."
 9. option_text      exactly one option text occurs (whole phrase, longest first); several ->
                     ambiguous; not used for yes/no choices (prose is full of "no")
Number rules: number_whole / integer_word (the whole reply is a number in digits / in words),
number_final, number_explicit ("answer is N", "total ... is N", "count: N", "N in total", "so N"),
refusal, number_stated ("there are N", "I count N"; only if all such statements agree), number_last
(the last number, i.e. the last one of the last line that has one). A number that is one end of a hedge
or range ("2 or 3", "7-9", "5 to 6") is unparsed, as a hedged letter is. With integer=True a non-integral
or negative result is unparsed (no rounding); "4.0" is 4. With integer=False the value is a float.
Both: when nothing parses outside the reasoning blocks, reasoning_answer takes the last explicit
answer statement ("answer is X", "final answer: X", \\boxed{X}, "total is N") inside them.
"""

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple


@dataclass(frozen=True)
class Extraction:
    """An extracted answer: a 0-based choice index or a number, and the rule that produced it."""

    value: int | float | None
    parsed: bool
    rule: str | None


_UNPARSED = Extraction(None, False, None)
_AMBIGUOUS = -1  # a rule result that stops the search: unparsed

_TAGS = "think|thinking|reasoning"
_BLOCK = re.compile(rf"<({_TAGS})>(.*?)</\1>", re.S | re.I)
_LONE_CLOSE = re.compile(rf"\A(.*)</(?:{_TAGS})>", re.S | re.I)
_UNCLOSED = re.compile(rf"<(?:{_TAGS})>(.*)\Z", re.S | re.I)
_MARKDOWN = re.compile(r"\*+|`+|(?<!\w)_{1,2}|_{1,2}(?!\w)|^[ \t]*#{1,6}[ \t]+", re.M)
_ARROW = re.compile(r"\s*(?:-+>|=+>|[→⟶➔➜⇒])\s*")
_DASH = re.compile(r"[ \t]+(?:-{1,2}|[–—])[ \t]+")
_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})

# Letters.
_LETTER_AT = re.compile(r"[\(\[]?([A-Za-z])[\)\]]?(?![\w'-])")
_STRICT_FOLLOW = re.compile(r"[ \t]*(?:\n|$|[.,;:!?)\]—(]|(?i:because|since|as|which|with|given|based)\b)")
_OR_LETTER = re.compile(r"\s*(?:or|/|,|and|&)\s*[\(\[]?[A-Z][\)\]]?(?:\s*$|\s*[.,;)]|\s+(?:or|and)\b)")
_WHOLE_LETTER = re.compile(r"(?:(?i:option|choice)\s*)?[\(\[]?([A-Za-z])[\)\]]?[.:!]?")
_LABELLED = re.compile(
    r"(?:(?i:option|choice)\s*)?[\(\[]?([A-Za-z])(?:[\)\]]\s*[.:—]?|\s*[.:—)])\s*(.+?)[.!]?"
)
_LEADING = re.compile(r"[\(\[]?([A-Z])(?:[\)\]]|\s*[.:)—])(?=\s|$)")
_LINE_LABEL = re.compile(r"^[\(\[]?([A-Z])(?:[\)\]]|[.:])\s", re.M)
_ANSWER_LEAD = re.compile(
    r"\b(?P<final>final\s+)?(?P<mod>(?:(?:correct|right|best|my|most\s+likely)\s+)*)(?P<noun>answer|option|choice)\b"
    r"(?:\s+(?P<verb>is|would\s+be|should\s+be|will\s+be|must\s+be|seems\s+to\s+be|appears\s+to\s+be)\b\s*:?"
    r"|\s*[:=])\s*(?:(?:therefore|thus|clearly|likely|probably|definitely)\s+)?(?:(?:option|choice)\s*)?",
    re.I,
)
_CHOOSE = re.compile(
    r"(?i:\bI(?:\s+would|'d|\s+will|'ll|\s+am\s+going\s+to|'m\s+going\s+to)?\s+(?:choose|select|pick|go\s+with|say|opt\s+for)"
    r"|\b(?:it|this|that)(?:\s+is|'s|\s+must\s+be|\s+should\s+be|\s+would\s+be|\s+has\s+to\s+be))"
    r"\s+(?:(?i:option|choice)\s*)?[\(\[]?(?P<letter>[A-Z])[\)\]]?(?![\w'-])"
)
_LETTER_CORRECT = re.compile(
    r"(?<![\w'])(?:(?i:option|choice)\s*)?[\(\[]?(?P<letter>[A-Z])[\)\]]?\s+(?i:is|seems|appears)\s+"
    r"(?i:to\s+be\s+)?(?i:the\s+)?(?i:correct|right|best|most\s+likely|answer)\b"
)
_BOXED = re.compile(r"\\boxed\{\s*(?:\\text\{\s*)?([^{}]+?)\s*\}")
_YES_NO = re.compile(
    r"(yes|no)\b(?=\s*(?:[,.!;:—)]|$)|\s+(?:it|there|the|i|this|that|they|he|she|we)\b)", re.I
)
_REFUSAL = re.compile(
    r"\b(?:cannot|can't|can\s+not|unable\s+to|not\s+able\s+to|impossible\s+to)\s+(?:\w+\s+){0,2}?"
    r"(?:determine|tell|answer|see\s+the\s+video|view|watch|access|identify|know|say|count|be\s+determined)\b"
    r"|\bI(?:'m|\s+am)\s+sorry\b|\bas\s+an\s+AI\b",
    re.I,
)

# Numbers (number words are spelled out as digits first).
_NUM = r"(?:(?<![\w.,-])-|(?<![\w.,]))(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\w)(?![.,]\d)"
_QUAL = r"(?:(?:approximately|about|around|roughly|exactly|only|just|nearly|~)\s*)?"
_N = rf"{_QUAL}(?P<num>{_NUM})"
_NUM_RE = re.compile(_NUM)
_WHOLE_NUM = re.compile(rf"{_N}\s*[.!]?", re.I)
_NUM_FINAL = (
    re.compile(rf"\bfinal\s+(?:answer|count|total|number)\s*(?:is|:|=)?\s*:?\s*{_N}", re.I),
    re.compile(rf"\\boxed\{{\s*(?P<num>{_NUM})\s*\}}"),
)
_NUM_EXPLICIT = tuple(
    re.compile(p, re.I)
    for p in (
        rf"\banswer\s*(?:is|would\s+be|should\s+be|:|=)\s*:?\s*{_N}",
        rf"\b(?:total|count|number|tally)(?:\s+(?:count|number))?(?:\s+of\s+[^\n.:;,]{{1,40}}?)?"
        rf"\s*(?:is|are|was|were|:|=|of|comes\s+to)\s*{_N}",
        rf"\b(?:in\s+)?total\s*[:=]?\s*{_N}",
        rf"(?P<num>{_NUM})\s+(?:[a-z]+\s+){{0,3}}?(?:in\s+total|total|altogether|overall)\b",
        rf"\b(?:so|thus|therefore|hence|making|giving|for\s+a\s+total\s+of)\s+(?:there\s+are\s+)?{_N}",
    )
)
_NUM_STATED = tuple(
    re.compile(p, re.I)
    for p in (
        rf"\bthere\s+(?:are|is|were|was)\s+(?:a\s+total\s+of\s+)?{_N}",
        rf"\b(?:I|we)\s+(?:can\s+)?(?:count|counted|see|saw|find|found|observe|observed|spot|spotted)\s+{_N}",
    )
)
_UNITS = "one|two|three|four|five|six|seven|eight|nine"
_TEENS = "ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_WORD_VALUE = {w: i for i, w in enumerate(f"zero|{_UNITS}|{_TEENS}".split("|"))}
_WORD_VALUE |= {w: 10 * i for i, w in enumerate(_TENS.split("|"), 2)}
_SMALL = rf"(?:(?:{_TENS})(?:[-\s](?:{_UNITS}))?|{_TEENS}|{_UNITS})"
_HUNDREDS = rf"(?:{_SMALL}\s+hundred(?:\s+(?:and\s+)?{_SMALL})?|{_SMALL})"
_WORDNUM = re.compile(
    rf"(?<![\w-])(?:a\s+dozen|zero|{_HUNDREDS}(?:\s+thousand(?:,?\s+(?:and\s+)?{_HUNDREDS})?)?)(?![\w-])",
    re.I,
)
_ONE_BEFORE = re.compile(r"\b(?:the|this|that|each|every|any|which|another|no|a)\s+$", re.I)
_ONE_AFTER = re.compile(r"\s+(?:of\s+(?:which|whom)|another|by)\b", re.I)


class _Stmt(NamedTuple):
    pos: int
    idx: int
    final: bool
    strong: bool  # an "answer is" / "final answer" / boxed statement (usable inside reasoning)
    kind: str  # "letter" or "option"


@dataclass(frozen=True)
class _Ctx:
    text: str
    choices: tuple[str, ...]
    stmts: tuple[_Stmt, ...]


def _split_reasoning(text: str) -> tuple[str, str]:
    """Return (the text outside reasoning blocks, the text inside them)."""
    thoughts = [m.group(2) for m in _BLOCK.finditer(text)]
    body = _BLOCK.sub("\n", text)
    if m := _LONE_CLOSE.search(body):  # the opening tag was in the prompt
        thoughts.insert(0, m.group(1))
        body = body[m.end() :]
    if m := _UNCLOSED.search(body):  # truncated output
        thoughts.append(m.group(1))
        body = body[: m.start()]
    return body.strip(), "\n".join(thoughts)


def strip_reasoning(text: str) -> str:
    """Remove <think>/<thinking>/<reasoning> blocks, closed or not, and text before a lone closing tag."""
    return _split_reasoning(text)[0]


def _clean(text: str) -> str:
    """Drop markdown, normalise arrows, dashes, quotes and spaces; remove empty lines."""
    text = _DASH.sub(" — ", _ARROW.sub(" → ", _MARKDOWN.sub("", text.translate(_QUOTES))))
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)


@lru_cache(maxsize=512)
def _option_patterns(choices: tuple[str, ...]) -> tuple[tuple[int, re.Pattern[str]], ...]:
    """Whole-phrase patterns per option, longest first; parts around " — " that are unique also count."""
    texts = [_clean(c) for c in choices]
    parts = [p for t in texts for p in t.split(" — ")]
    phrases = [(i, t) for i, t in enumerate(texts) if t]
    phrases += [
        (i, p) for i, t in enumerate(texts) if " — " in t for p in t.split(" — ") if parts.count(p) == 1
    ]
    phrases.sort(key=lambda item: -len(item[1]))
    body = (r"\s*".join(re.escape(w).replace(r"\-", r"[-\s]") for w in p.split()) for _, p in phrases)
    pats = (re.compile(rf"(?<![\w-])(?<!\d\.){b}(?![\w-])(?!\.\d)", re.I) for b in body)
    return tuple((i, pat) for (i, _), pat in zip(phrases, pats, strict=True))


def _option_hits(text: str, choices: tuple[str, ...]) -> set[int]:
    """Indices of the options whose text occurs; longer matches hide the shorter ones inside them."""
    taken = bytearray(len(text))
    hits: set[int] = set()
    for idx, pat in _option_patterns(choices):
        for m in pat.finditer(text):
            if not any(taken[m.start() : m.end()]):
                taken[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
                hits.add(idx)
    return hits


def _option_at(text: str, pos: int, choices: tuple[str, ...], *, full: bool = False) -> int | None:
    """The option whose text starts at ``pos`` (and runs to the end, if ``full``)."""
    for idx, pat in _option_patterns(choices):
        if (m := pat.match(text, pos)) and (not full or m.end() == len(text)):
            return idx
    return None


def _index(letter: str, choices: tuple[str, ...]) -> int | None:
    """The 0-based index of a letter, if it names one of the choices."""
    idx = ord(letter.upper()) - ord("A")
    return idx if idx < len(choices) else None


def _letter_ok(text: str, end: int, letter: str, choices: tuple[str, ...]) -> bool:
    """A letter ending at ``end`` is an answer unless it may be a word ("A person", "a bit") or one of two."""
    rest = text[end:]
    if _OR_LETTER.match(rest):
        return False
    if letter.isupper() and letter not in "AI":
        return True
    said = _option_at(text, end + len(rest) - len(rest.lstrip()), choices)
    return bool(_STRICT_FOLLOW.match(rest)) or said == ord(letter.upper()) - ord("A")


def _letter_at(text: str, pos: int, choices: tuple[str, ...]) -> int | None:
    """The valid answer letter at ``pos``, if any."""
    m = _LETTER_AT.match(text, pos)
    idx = _index(m.group(1), choices) if m else None
    return idx if m and idx is not None and _letter_ok(text, m.end(), m.group(1), choices) else None


def _bare(line: str, choices: tuple[str, ...]) -> tuple[int, str] | None:
    """A line that is only a letter, or a letter and its option text."""
    if (m := _WHOLE_LETTER.fullmatch(line)) and (idx := _index(m.group(1), choices)) is not None:
        return idx, "letter_whole"
    if (m := _LABELLED.fullmatch(line)) and (idx := _index(m.group(1), choices)) is not None:
        said = _option_at(m.group(2), 0, choices, full=True)
        if said is not None:
            return (idx if said == idx else _AMBIGUOUS), "letter_option"
    return None


def _statements(text: str, choices: tuple[str, ...]) -> tuple[_Stmt, ...]:
    """Explicit answer statements naming a letter or an option text, in text order."""
    out: list[_Stmt] = []
    for m in _ANSWER_LEAD.finditer(text):
        if m["noun"].lower() != "answer" and not (m["verb"] or m["mod"] or m["final"]):
            continue  # "each option: A) ..." lists the options, it does not answer
        final = bool(m["final"])
        if (idx := _letter_at(text, m.end(), choices)) is not None:
            out.append(_Stmt(m.start(), idx, final, True, "letter"))
        elif (idx := _option_at(text, m.end(), choices)) is not None:
            out.append(_Stmt(m.start(), idx, final, True, "option"))
    for m in _BOXED.finditer(text):
        if (hit := _bare(m.group(1), choices)) and hit[0] != _AMBIGUOUS:
            out.append(_Stmt(m.start(), hit[0], True, True, "letter"))
        elif (idx := _option_at(m.group(1), 0, choices, full=True)) is not None:
            out.append(_Stmt(m.start(), idx, True, True, "option"))
    for pat in (_CHOOSE, _LETTER_CORRECT):
        for m in pat.finditer(text):
            if (idx := _index(m["letter"], choices)) is None:
                continue
            if pat is _LETTER_CORRECT or _letter_ok(text, m.end(), m["letter"], choices):
                out.append(_Stmt(m.start(), idx, False, False, "letter"))
    return tuple(sorted(out))


def _is_yes_no(choices: tuple[str, ...]) -> bool:
    return sorted(_clean(c).lower().rstrip(".") for c in choices) == ["no", "yes"]


def _echoed(text: str) -> bool:
    """Several lines carry different letter labels: the reply repeats the options."""
    return len(set(_LINE_LABEL.findall(text))) > 1


def _rule_whole(ctx: _Ctx) -> tuple[int, str] | None:
    """letter_whole / letter_option: the whole reply is a letter (and its option text)."""
    return None if "\n" in ctx.text else _bare(ctx.text, ctx.choices)


def _rule_final(ctx: _Ctx) -> tuple[int, str] | None:
    """letter_final / option_final: the last final-answer statement."""
    finals = [s for s in ctx.stmts if s.final]
    return (finals[-1].idx, f"{finals[-1].kind}_final") if finals else None


def _rule_last_line(ctx: _Ctx) -> tuple[int, str] | None:
    """last_line: the last line of a multi-line reply is a bare letter or option text."""
    if "\n" not in ctx.text or _echoed(ctx.text):
        return None
    line = ctx.text.rsplit("\n", 1)[1]
    if hit := _bare(line, ctx.choices):
        return hit[0], "last_line"
    idx = _option_at(line.rstrip(".!"), 0, ctx.choices, full=True)
    return None if idx is None else (idx, "last_line")


def _rule_explicit(ctx: _Ctx) -> tuple[int, str] | None:
    """letter_explicit / option_explicit: one answer stated (or one stated on the last line)."""
    stmts = [s for s in ctx.stmts if not s.final]
    if len({s.idx for s in stmts}) > 1:
        stmts = [s for s in stmts if s.pos > ctx.text.rfind("\n")]
        if len({s.idx for s in stmts}) != 1:
            return _AMBIGUOUS, "letter_explicit"
    return (stmts[-1].idx, f"{stmts[-1].kind}_explicit") if stmts else None


def _rule_refusal(ctx: _Ctx) -> tuple[int, str] | None:
    """refusal: the model declines; weaker rules must not read its words as an answer."""
    return (_AMBIGUOUS, "refusal") if _REFUSAL.search(ctx.text) else None


def _rule_leading(ctx: _Ctx) -> tuple[int, str] | None:
    """letter_leading: the reply opens with a labelled letter ("B) ...") or its first line is a bare letter."""
    if _echoed(ctx.text):
        return None
    if hit := _bare(ctx.text.split("\n", 1)[0], ctx.choices):
        return hit[0], "letter_leading"
    m = _LEADING.match(ctx.text)
    return None if not m or (idx := _index(m.group(1), ctx.choices)) is None else (idx, "letter_leading")


def _rule_yes_no(ctx: _Ctx) -> tuple[int, str] | None:
    """yes_no: for yes/no choices, the reply opens with "Yes" or "No"."""
    if not _is_yes_no(ctx.choices) or not (m := _YES_NO.match(ctx.text)):
        return None
    return [_clean(c).lower().rstrip(".") for c in ctx.choices].index(m.group(1).lower()), "yes_no"


def _rule_option_text(ctx: _Ctx) -> tuple[int, str] | None:
    """option_text: exactly one option's text occurs in the reply."""
    if _is_yes_no(ctx.choices):
        return None
    hits = _option_hits(ctx.text, ctx.choices)
    return None if not hits else ((hits.pop() if len(hits) == 1 else _AMBIGUOUS), "option_text")


_Rule = Callable[[_Ctx], tuple[int, str] | None]
_CHOICE_RULES: tuple[_Rule, ...] = (_rule_whole, _rule_final, _rule_last_line, _rule_explicit, _rule_refusal)
_CHOICE_RULES += (_rule_leading, _rule_yes_no, _rule_option_text)


def extract_choice(text: str, choices: Sequence[str]) -> Extraction:
    """Index (0-based, as presented) of the choice that ``text`` answers; option texts come without letters."""
    opts = tuple(choices)
    if not 1 <= len(opts) <= 26:
        raise ValueError(f"need 1 to 26 choices, got {len(opts)}")
    body, thoughts = _split_reasoning(text or "")
    clean = _clean(body)
    if clean:
        ctx = _Ctx(clean, opts, _statements(clean, opts))
        for rule in _CHOICE_RULES:
            if hit := rule(ctx):
                return _UNPARSED if hit[0] == _AMBIGUOUS else Extraction(hit[0], True, hit[1])
    inner = [s for s in _statements(_clean(thoughts), opts) if s.strong]
    return Extraction(inner[-1].idx, True, "reasoning_answer") if inner else _UNPARSED


def _spell_out(text: str) -> str:
    """Replace number words ("twenty-one", "one hundred and five", "a dozen") by digits."""

    def digits(m: re.Match[str]) -> str:
        words = m.group().lower()
        if words == "one" and (
            _ONE_BEFORE.search(text[max(0, m.start() - 24) : m.start()]) or _ONE_AFTER.match(text, m.end())
        ):
            return m.group()  # "the one on the left", "one of which"
        if "dozen" in words:
            return "12"
        total = current = 0
        for word in re.findall(r"[a-z]+", words):
            if word == "hundred":
                current *= 100
            elif word == "thousand":
                total, current = total + current * 1000, 0
            else:
                current += _WORD_VALUE.get(word, 0)
        return str(total + current)

    return _WORDNUM.sub(digits, text)


def _last(pats: Sequence[re.Pattern[str]], text: str) -> list[re.Match[str]]:
    """All matches of ``pats`` in text order."""
    return sorted((m for p in pats for m in p.finditer(text)), key=lambda m: m.start("num"))


_HEDGE_AFTER = re.compile(r"\s*(?:-|–|—|to|or)\s*-?\d", re.I)
_HEDGE_BEFORE = re.compile(r"\d\s*(?:-|–|—|to|or)\s*\Z", re.I)


def _hedged(text: str, m: re.Match[str], group: str | int = "num") -> bool:
    """The number is one end of a hedge or a range ("2 or 3", "7-9", "5 to 6"): not one answer."""
    start, end = m.span(group)
    return bool(_HEDGE_AFTER.match(text, end) or _HEDGE_BEFORE.search(text[max(0, start - 12) : start]))


def _number(raw: str, integer: bool, rule: str) -> Extraction:
    value = float(raw.replace(",", ""))
    if not math.isfinite(value):  # "999…" past the float range: not an answer anything can score
        return _UNPARSED
    if not integer:
        return Extraction(value, True, rule)
    return Extraction(int(value), True, rule) if value.is_integer() and value >= 0 else _UNPARSED


def extract_number(text: str, *, integer: bool = True) -> Extraction:
    """The number that ``text`` answers (integer answers such as counts, or real numbers)."""
    body, thoughts = _split_reasoning(text or "")
    clean = _clean(body)
    spelled = _spell_out(clean)
    if m := _WHOLE_NUM.fullmatch(spelled):
        return _number(m["num"], integer, "number_whole" if re.search(r"\d", clean) else "integer_word")
    for rule, pats in (("number_final", _NUM_FINAL), ("number_explicit", _NUM_EXPLICIT)):
        if found := _last(pats, spelled):
            return _UNPARSED if _hedged(spelled, found[-1]) else _number(found[-1]["num"], integer, rule)
    if _REFUSAL.search(spelled):
        return _UNPARSED
    stated = _last(_NUM_STATED, spelled)
    if stated and len({float(m["num"].replace(",", "")) for m in stated}) == 1:
        if _hedged(spelled, stated[-1]):
            return _UNPARSED
        return _number(stated[-1]["num"], integer, "number_stated")
    if found := list(_NUM_RE.finditer(spelled)):
        return (
            _UNPARSED
            if _hedged(spelled, found[-1], 0)
            else _number(found[-1].group(), integer, "number_last")
        )
    inner = _last((*_NUM_FINAL, *_NUM_EXPLICIT), _spell_out(_clean(thoughts)))
    return _number(inner[-1]["num"], integer, "reasoning_answer") if inner else _UNPARSED


#: replies up to this long are remembered with their extraction (short replies repeat: "B", "3")
_MEMO_CHARS = 64


def extract_answer(text: str, answer_type: str, choices: Sequence[str] | None = None) -> Extraction:
    """Dispatch on the answer type: "choice", "integer" or "number"."""
    if text is not None and len(text) <= _MEMO_CHARS:
        return _extract_short(text, answer_type, None if choices is None else tuple(choices))
    return _extract(text, answer_type, choices)


@lru_cache(maxsize=4096)
def _extract_short(text: str, answer_type: str, choices: tuple[str, ...] | None) -> Extraction:
    return _extract(text, answer_type, choices)


def _extract(text: str, answer_type: str, choices: Sequence[str] | None) -> Extraction:
    if answer_type == "choice":
        if choices is None:
            raise ValueError("a choice answer needs the presented choices")
        return extract_choice(text, choices)
    if answer_type in ("integer", "number"):
        return extract_number(text, integer=answer_type == "integer")
    raise ValueError(f"unknown answer type {answer_type!r}")
