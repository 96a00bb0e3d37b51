"""A `Board` (`egoworld.scoring.leaderboard`) as Markdown, CSV, LaTeX (booktabs) and HTML: one decimal, as
the papers print; best in bold, second underlined, ties sharing the mark."""

from __future__ import annotations

import csv
import io
from html import escape

from egoworld.scoring.leaderboard import Board, Cell

FORMATS = ("md", "csv", "latex")
SUFFIX = {"md": "md", "csv": "csv", "latex": "tex"}


def header(board: Board) -> list[str]:
    """Column titles, a group's name in front (``Short S_obj``)."""
    return ["Model", "Setting", *(f"{c.group} {c.title}".strip() for c in board.columns)]


def number(cell: Cell) -> str:
    if cell.value is None:
        return "—"
    return f"{cell.value:.1f}" + (f" ± {cell.sem:.1f}" if cell.sem is not None else "")


def legend(board: Board) -> str:
    return (
        f"Over the {board.shared} questions every run answered; one decimal. Bold: best, underlined: second "
        f"best within a setting; a run whose difference is not significant (paired cluster bootstrap over "
        f"{board.clusters}, 95 % interval, seed {board.seed}) shares the mark (a tie)."
    )


def _chance_row(board: Board) -> list[str] | None:
    if all(c is None for c in board.chance):
        return None
    return ["Chance", "", *("—" if c is None else f"{c:.1f}" for c in board.chance)]


def markdown(board: Board) -> str:
    head = header(board)
    lines = []
    if board.warning():
        lines.append(f"> **{board.warning()}**\n")
    lines += ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * len(board.columns)]
    for entry, cells in board.rows:
        out = []
        for c in cells:
            text = number(c)
            out.append(
                f"**{text}**" if c.mark == "best" else f"<u>{text}</u>" if c.mark == "second" else text
            )
        lines.append(f"| {entry.model} | {entry.setting} | " + " | ".join(out) + " |")
    chance = _chance_row(board)
    if chance:
        lines.append("| " + " | ".join(chance) + " |")
    return "\n".join(lines) + "\n\n" + legend(board) + "\n"


def to_csv(board: Board) -> str:
    """Plain numbers (no marks), a ``best`` / ``second`` column per value column, the run folder last."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    cols = header(board)[2:]
    w.writerow(["Model", "Setting", *cols, *(f"{c} mark" for c in cols), "Run"])
    for entry, cells in board.rows:
        nums = ["" if c.value is None else f"{c.value:.1f}" for c in cells]
        w.writerow([entry.model, entry.setting, *nums, *(c.mark for c in cells), entry.name])
    chance = _chance_row(board)
    if chance:
        w.writerow([*chance, *([""] * len(cols)), ""])
    if board.warning():
        w.writerow([board.warning()])  # the last row, as the other formats say it beside the table
    return buf.getvalue()


def _tex(text: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"), ("#", r"\#")):
        text = text.replace(a, b)
    return text.replace("±", r"$\pm$").replace("–", "--").replace("—", "---")


def _groups(board: Board) -> list[tuple[str, int]]:
    """Runs of columns under one group name: (name, how many)."""
    groups: list[tuple[str, int]] = []
    for c in board.columns:
        if groups and groups[-1][0] == c.group:
            groups[-1] = (c.group, groups[-1][1] + 1)
        else:
            groups.append((c.group, 1))
    return groups


def latex(board: Board) -> str:
    n = len(board.columns)
    lines = [r"\begin{tabular}{ll" + "r" * n + "}", r"\toprule"]
    groups = _groups(board)
    if any(g for g, _ in groups):
        cells, rules, at = ["", ""], [], 3
        for g, k in groups:
            cells.append(rf"\multicolumn{{{k}}}{{c}}{{{_tex(g)}}}" if g else " & ".join([""] * k).strip())
            if g:
                rules.append(rf"\cmidrule(lr){{{at}-{at + k - 1}}}")
            at += k
        lines += [" & ".join(cells) + r" \\", " ".join(rules)]
    lines += ["Model & Setting & " + " & ".join(_tex(c.title) for c in board.columns) + r" \\", r"\midrule"]
    for k, (entry, cells) in enumerate(board.rows):
        if k and entry.setting != board.rows[k - 1][0].setting:
            lines.append(r"\midrule")  # one block of rows per setting
        out = []
        for c in cells:
            text = _tex(number(c))
            out.append(
                rf"\textbf{{{text}}}"
                if c.mark == "best"
                else rf"\underline{{{text}}}"
                if c.mark == "second"
                else text
            )
        lines.append(f"{_tex(entry.model)} & {_tex(entry.setting)} & " + " & ".join(out) + r" \\")
    chance = _chance_row(board)
    if chance:
        lines += [r"\midrule", " & ".join(_tex(x) for x in chance) + r" \\"]
    if board.warning():
        lines += [
            r"\midrule",
            rf"\multicolumn{{{n + 2}}}{{p{{0.9\linewidth}}}}{{\footnotesize {_tex(board.warning())}}} \\",
        ]
    return "\n".join([*lines, r"\bottomrule", r"\end{tabular}"]) + "\n"


def html(board: Board) -> str:
    """The table in a sideways-scrolling box, the warning above it and the legend below."""
    parts = [f"<p class=warn>{escape(board.warning())}</p>"] if board.warning() else []
    parts.append('<div class="scroll"><table class="leaderboard"><thead>')
    if any(c.group for c in board.columns):
        parts.append("<tr><th></th><th></th>")
        parts += [f'<th colspan="{k}">{escape(g)}</th>' for g, k in _groups(board)]
        parts.append("</tr>")
    parts.append("<tr><th>Model</th><th>Setting</th>")
    parts += [f"<th>{escape(c.title)}</th>" for c in board.columns]
    parts.append("</tr></thead><tbody>")
    for entry, cells in board.rows:
        tds = []
        for c in cells:
            text = escape(number(c))
            text = f"<b>{text}</b>" if c.mark == "best" else f"<u>{text}</u>" if c.mark == "second" else text
            tds.append(f'<td class="num" data-mark="{c.mark}">{text}</td>')
        parts.append(f"<tr><td>{escape(entry.model)}</td><td>{escape(entry.setting)}</td>{''.join(tds)}</tr>")
    chance = _chance_row(board)
    if chance:
        parts.append("<tr class=muted>" + "".join(f"<td>{escape(x)}</td>" for x in chance) + "</tr>")
    parts.append(f"</tbody></table></div><p class=muted>{escape(legend(board))}</p>")
    return "".join(parts)


def render(board: Board, fmt: str) -> str:
    return {"md": markdown, "csv": to_csv, "latex": latex}[fmt](board)
