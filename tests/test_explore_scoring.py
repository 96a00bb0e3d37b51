"""The EXPLORE scorer with real spaCy and SBERT: S_obj by hand, evidence per object and relation, the four
public-scorer defects (each shown next to the public behaviour), S_key / S_abn, multi-scene weights, and the
judges (parsing, lexical, an OpenAI-compatible judge on 127.0.0.1 with retries, failures and caching)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from egoworld.benchmarks.explore.build.builder import save_instances
from egoworld.benchmarks.explore.instances import Instance, Scene, SceneObject
from egoworld.benchmarks.explore.judges import Judge, JudgeItem, JudgeResult, OpenAIJudge, parse_score
from egoworld.benchmarks.explore.matching import match_scene
from egoworld.benchmarks.explore.nlp import Embedder, TextAnalyzer, split_sentences
from egoworld.benchmarks.explore.predictions import Prediction
from egoworld.benchmarks.explore.score_run import score_prediction_file
from egoworld.benchmarks.explore.scorer import Scorer, ScoreSettings
from openai_test_server import FakeOpenAIServer


@pytest.fixture(scope="session")
def analyzer() -> TextAnalyzer:
    return TextAnalyzer()


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return Embedder()


class RecordingJudge(Judge):
    """Records what it is asked (kind, phrase, evidence sentence) and answers a fixed score per kind."""

    spec = "recording"
    label = "recording (test judge)"

    def __init__(self, scores: dict[str, float] | None = None):
        super().__init__()
        self.scores = scores or {}
        self.seen: list[tuple[str, str, str]] = []

    def identity(self) -> dict:
        return {"judge": "recording"}

    async def _score(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        self.seen.extend((it.kind, it.phrase, it.sentence) for it in items)
        return [JudgeResult(self.scores.get(it.kind, 5.0), "ok") for it in items]


def obj(cat: str, desc: str = "", *rels: str, key: str | None = None) -> SceneObject:
    return SceneObject(cat, desc or f"a {cat}", tuple(rels), key)


def sample_of(objects: Sequence[SceneObject], sid: str = "s1", middle: Sequence[Scene] = ()):
    inst = Instance(
        start_frame=sid,
        actions_text="|".join(f"C step {i}" for i in range(12)),
        final=Scene(tuple(objects)),
        middle=tuple(middle),
    )
    return inst.to_sample("explore")


def score_one(analyzer, embedder, objects, text, judge=None, settings=None, middle=(), scenes=None):
    judge = judge or RecordingJudge()
    pred = Prediction("ok", scenes or [text], True, "text", text)
    rows = Scorer(settings or ScoreSettings(), judge, analyzer, embedder).score(
        [(sample_of(objects, middle=middle), 0, pred)]
    )
    return rows[0], judge


def public_relation_pairs(
    objects: Sequence[SceneObject], evidence: list[tuple[int, ...]]
) -> list[tuple[str, tuple[int, ...] | None]]:
    """What the public eval.py (get_accuracy + the judge's zip) pairs each relation with: substring category
    lookup, evidence accumulated across an object's relations, and a '' placeholder (None here) appended for an
    object without relations, which shifts every later relation by one."""
    rels, preds = [], []
    for k, o in enumerate(objects):
        caps = list(evidence[k])
        if o.relations:
            for rel in o.relations:
                for j, other in enumerate(objects):
                    if j != k and other.category in rel:
                        caps = caps + list(evidence[j])
                preds.append(tuple(sorted(set(caps))))
                rels.append(rel)
        else:
            preds.append(None)
    return list(zip(rels, preds, strict=False))


# -- S_obj ---------------------------------------------------------------------------------------------------
def test_s_obj_hand_computation_with_known_vectors() -> None:
    e = np.eye(6)
    vec = {
        "cup": e[0],
        "mug": 0.8 * e[0] + 0.6 * e[1],
        "knife": e[2],
        "table": 0.5 * e[0] + 0.3 * e[3] + np.sqrt(0.66) * e[4],
        "giraffe": e[3],
    }

    def embed(texts):
        return np.stack([vec[t] for t in texts])

    # cup↔mug (0.8) and knife↔knife (1.0) are mutual best; giraffe's best noun (table, 0.3) prefers cup (0.5)
    m = match_scene(["cup", "knife", "giraffe"], ["mug", "knife", "table"], [0, 1, 1], embed)
    assert m.covered.tolist() == [True, True, False]
    assert m.coverage == pytest.approx((0.8 + 1.0) / 3)
    assert m.evidence == {"cup": (0,), "knife": (1,), "giraffe": ()}
    # a duplicated category counts once in the denominator
    dup = match_scene(["cup", "cup", "knife"], ["mug", "knife", "table"], [0, 1, 1], embed)
    assert dup.categories == ["cup", "knife"] and dup.coverage == pytest.approx((0.8 + 1.0) / 2)


def test_s_obj_real_models_two_matched_one_unmatched_and_duplicate(analyzer, embedder) -> None:
    text = "A cup is on the table. A knife lies nearby."
    row, _ = score_one(analyzer, embedder, [obj("cup"), obj("knife"), obj("giraffe")], text)
    cos = embedder.encode(["cup", "knife"]) @ embedder.encode(["cup", "knife"]).T
    assert row["s_obj"] == pytest.approx(100 * (cos[0, 0] + cos[1, 1]) / 3, abs=1e-4)  # ≈ 66.67
    assert [o["covered"] for o in row["objects"]] == [True, True, False]
    row, judge = score_one(
        analyzer, embedder, [obj("cup", "a red cup"), obj("cup", "a blue cup"), obj("knife")], text
    )
    assert row["s_obj"] == pytest.approx(100.0, abs=1e-4)
    asked = {p: s for k, p, s in judge.seen if k == "attribute"}
    assert (
        asked["a red cup"] == asked["a blue cup"] == "A cup is on the table"
    )  # both cups share the evidence


# -- the four defects ------------------------------------------------------------------------------------------
def test_cup_does_not_match_a_cupboard_relation(analyzer, embedder) -> None:
    objects = [obj("knife", "", "inside the cupboard"), obj("cup"), obj("cupboard")]
    text = "A knife lies on the counter. A red cup sits on the shelf. The wooden cupboard is closed."
    row, judge = score_one(analyzer, embedder, objects, text)
    ours = next(s for k, p, s in judge.seen if k == "relation")
    assert ours == "A knife lies on the counter. The wooden cupboard is closed"
    public = dict(public_relation_pairs(objects, [tuple(o["evidence"]) for o in row["objects"]]))
    assert public["inside the cupboard"] == (
        0,
        1,
        2,
    )  # public: "cup" in "inside the cupboard" adds the cup's sentence


def test_object_without_relations_does_not_shift_later_relations(analyzer, embedder) -> None:
    objects = [obj("cup", "", "on the table"), obj("plate"), obj("knife", "", "next to the plate")]
    text = "A cup stands on the table. A plate is empty. A knife is next to the plate."
    row, judge = score_one(analyzer, embedder, objects, text)
    ours = [(p, s) for k, p, s in judge.seen if k == "relation"]
    assert ours == [
        ("on the table", "A cup stands on the table"),
        ("next to the plate", "A plate is empty. A knife is next to the plate"),
    ]
    public = public_relation_pairs(objects, [tuple(o["evidence"]) for o in row["objects"]])
    assert public[1] == (
        "next to the plate",
        None,
    )  # public: paired with the plate's '' placeholder → scored 0
    assert row["s_rel"] == 5.0


def test_relation_evidence_does_not_accumulate(analyzer, embedder) -> None:
    objects = [obj("knife", "", "next to the bread", "left of the bowl"), obj("bread"), obj("bowl")]
    text = "A knife lies on the board. Fresh bread is sliced. A bowl holds soup."
    row, judge = score_one(analyzer, embedder, objects, text)
    ours = [s for k, _, s in judge.seen if k == "relation"]
    assert ours == [
        "A knife lies on the board. Fresh bread is sliced",
        "A knife lies on the board. A bowl holds soup",
    ]
    public = public_relation_pairs(objects, [tuple(o["evidence"]) for o in row["objects"]])
    assert public[1] == (
        "left of the bowl",
        (0, 1, 2),
    )  # public: the bread sentence carried into the bowl relation


def test_judge_reply_without_score_is_retried_excluded_and_counted(
    tmp_path: Path, analyzer, embedder
) -> None:
    def reply(prompt: str) -> str:
        if "Phrase: 'a silver knife'" in prompt:
            return "N/A"
        if "Phrase: 'a red cup'" in prompt:
            reply.cup += 1
            return "N/A" if reply.cup == 1 else "3"  # invalid once, then valid
        return "4"

    reply.cup = 0
    objects = [obj("cup", "a red cup"), obj("knife", "a silver knife"), obj("plate", "a white plate")]
    text = "A red cup is here. A silver knife is there. A white plate is empty."
    with FakeOpenAIServer(reply=reply) as srv:
        judge = OpenAIJudge(
            "judge-a", base_url=srv.base_url, cache_path=tmp_path / "j.sqlite", invalid_retries=2
        )
        row, _ = score_one(analyzer, embedder, objects, text, judge=judge)
        knife_attempts = [n for k, n in srv.attempts.items()]
    statuses = {it["phrase"]: (it["status"], it["score"]) for it in row["items"]}
    assert statuses == {
        "a red cup": ("ok", 3.0),
        "a silver knife": ("failed", None),
        "a white plate": ("ok", 4.0),
    }
    assert sorted(knife_attempts) == [1, 2, 3]  # plate once, cup twice, knife 1 + 2 retries
    assert judge.stats.failed == 1 and judge.stats.invalid_replies == 4 and row["judge_failed"] == 1
    assert row["s_att"] == pytest.approx((3 + 4) / 2)  # ours: excluded
    public_att = (3 + (-1) + 4) / 3  # public: get_first_digit('N/A') = -1 averaged in
    assert public_att == 2.0 and row["s_att"] != public_att
    # the body asks for greedy decoding with thinking switched off
    body = srv.bodies[0]
    assert body["temperature"] == 0.0 and body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["messages"][0]["role"] == "system" and "NLP" in body["messages"][0]["content"]


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ("4", 4.0),
        ("Score: 3/5", 3.0),
        ("**5**", 5.0),
        ("2.5", 2.5),
        ("<think>maybe 5</think>\n1", 1.0),
        ("N/A", None),
        ("10", None),
        ("", None),
        ("-1", None),
    ],
)
def test_parse_score(reply: str, value: float | None) -> None:
    assert parse_score(reply) == value


# -- S_key, S_abn, multi-scene, weights --------------------------------------------------------------------------
def test_s_key_and_s_abn_by_hand(analyzer, embedder) -> None:
    objects = [
        obj("pan", "a black pan", "in the sink", key="dirty"),
        obj("plate", "a white plate", "on the counter"),
    ]
    text = "A black pan is in the sink, dirty with egg. A white plate sits on the counter."
    judge = RecordingJudge({"attribute": 5.0, "relation": 4.0, "key_state": 2.0})
    row, _ = score_one(analyzer, embedder, objects, text, judge=judge)
    assert row["s_obj"] == pytest.approx(100.0, abs=1e-4)
    s_uni = 0.25 * 100 + 0.35 * 20 * 5 + 0.40 * 20 * 4
    assert row["s_uni"] == pytest.approx(s_uni, abs=1e-3) and row["s_key"] == 2.0
    assert row["s_abn"] == pytest.approx(0.1 * s_uni + 0.9 * 20 * 2.0, abs=1e-3)
    row, _ = score_one(
        analyzer,
        embedder,
        objects,
        text,
        judge=RecordingJudge(),
        settings=ScoreSettings(weights=(1.0, 0.0, 0.0), abn_weight=0.5),
    )
    assert row["s_uni"] == pytest.approx(row["s_obj"]) and row["s_abn"] == pytest.approx(
        0.5 * row["s_uni"] + 50
    )


def test_middle_scenes_weighted(analyzer, embedder) -> None:
    middles = (Scene((obj("cup"), obj("giraffe"))), Scene((obj("cup"),)))
    scenes = ["A cup is on the table.", "The cup is in the sink.", "A cup is in the cupboard."]
    row, _ = score_one(
        analyzer,
        embedder,
        [obj("cup")],
        scenes[-1],
        middle=middles,
        scenes=scenes,
        settings=ScoreSettings(scenes="all"),
    )
    assert row["scenes"]["mid_1"]["s_obj"] == pytest.approx(50.0, abs=1e-3)  # giraffe unmatched
    assert row["s_obj"] == pytest.approx(0.2 * 50 + 0.3 * 100 + 0.5 * 100, abs=1e-3)
    final_only, _ = score_one(analyzer, embedder, [obj("cup")], scenes[-1], middle=middles, scenes=scenes)
    assert final_only["s_obj"] == pytest.approx(100.0, abs=1e-4) and "scenes" not in final_only


def test_sentences_split_like_the_paper_but_keep_decimals() -> None:
    assert split_sentences("A 2.5 cm cup.\nA pan</s>A knife. ") == ["A 2.5 cm cup", "A pan", "A knife"]


# -- judges on files: lexical labelled; openai cached, resumed, never shared across judges ------------------------
def _bench_and_predictions(tmp_path: Path) -> tuple[Path, Path]:
    insts = [
        Instance(
            f"img{i}.jpg",
            "|".join(f"C step {j}" for j in range(15 + 90 * i)),
            Scene(
                (obj("cup", "a red cup", "on the table"), obj("knife", "a sharp knife", "next to the cup"))
            ),
        )
        for i in range(3)
    ]
    save_instances(tmp_path / "bench", insts, builder={"test": True})
    preds = {
        f"img{i}.jpg": "A red cup is on the table. A sharp knife lies next to the cup." for i in range(2)
    }
    path = tmp_path / "preds.json"
    path.write_text(json.dumps(preds))
    return tmp_path / "bench", path


def test_lexical_judge_is_deterministic_and_labelled(tmp_path: Path) -> None:
    bench, preds = _bench_and_predictions(tmp_path)
    a = score_prediction_file(bench, preds, tmp_path / "a", options={"judge": "lexical"})
    b = score_prediction_file(bench, preds, tmp_path / "b", options={})
    assert (tmp_path / "a/scores.jsonl").read_bytes() == (tmp_path / "b/scores.jsonl").read_bytes()
    judge = a["explore"]["judge"]
    assert (
        judge["spec"] == "lexical" and not judge["comparable_to_paper"] and "not comparable" in judge["label"]
    )
    assert a["missing"] == 1 and a["tasks"]["scene"]["n"] == 2 and b["overall"] == a["overall"]
    assert set(a["explore"]["partitions"]) >= {"short", "medium", "full"}


def test_openai_judge_cache_resume_and_no_cross_judge_hits(tmp_path: Path) -> None:
    bench, preds = _bench_and_predictions(tmp_path)
    broken = {"on": True}

    def fault(prompt: str) -> str | None:
        return "500" if broken["on"] and "Phrase: 'next to the cup'" in prompt else None

    with FakeOpenAIServer(reply=lambda p: "5", fault=fault) as srv:
        spec = f"openai:judge-a,base_url={srv.base_url},max_retries=1,backoff=0.01,max_backoff=0.02"
        first = score_prediction_file(bench, preds, tmp_path / "o", options={"judge": spec})
        st = first["explore"]["judge_stats"]
        # 2 identical predictions → 4 distinct prompts; one keeps failing (HTTP 500) and is excluded, not 0
        assert (
            st["calls"] == 4 and st["failed"] == 2 and first["explore"]["partitions"]["full"]["s_rel"] == 5.0
        )
        broken["on"] = False
        before = sum(srv.attempts.values())
        again = score_prediction_file(bench, preds, tmp_path / "o", options={})  # previous judge reused
        assert (
            again["explore"]["judge"]["spec"] == spec
            and again["explore"]["judge"]["name"] == "openai:judge-a"
        )
        assert (
            again["explore"]["judge_stats"]["cached"] == 3 and again["explore"]["judge_stats"]["calls"] == 1
        )
        assert sum(srv.attempts.values()) == before + 1 and again["explore"]["judge_stats"]["failed"] == 0
        other = spec.replace("judge-a", "judge-b")
        third = score_prediction_file(bench, preds, tmp_path / "o", options={"judge": other})
        assert (
            third["explore"]["judge_stats"]["cached"] == 0 and third["explore"]["judge_stats"]["calls"] == 4
        )
        models = {b["model"] for b in srv.bodies}
        assert models == {"judge-a", "judge-b"}


def test_openai_judge_replies_are_shared_through_the_cross_run_cache(tmp_path: Path) -> None:
    bench, preds = _bench_and_predictions(tmp_path)
    with FakeOpenAIServer(reply=lambda p: "4") as srv:
        spec = f"openai:judge-a,base_url={srv.base_url},cache={tmp_path / 'shared'}"
        first = score_prediction_file(bench, preds, tmp_path / "o1", options={"judge": spec})
        sent = sum(srv.attempts.values())
        second = score_prediction_file(bench, preds, tmp_path / "o2", options={"judge": spec})  # a new folder
        assert sum(srv.attempts.values()) == sent == 4
    assert second["explore"]["judge_stats"]["cached"] == 4 and second["explore"]["judge_stats"]["calls"] == 0
    assert second["overall"] == first["overall"]
