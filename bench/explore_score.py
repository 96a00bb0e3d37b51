"""Speed of the EXPLORE scorer on 2 cores: spaCy and SBERT sentences/s, judge calls/s against a local
OpenAI-compatible test server, and the wall time of scoring 200 instances with the lexical judge.

Instances and predictions are generated here (seeded; sizes like the paper's: 6–14 annotated objects with
1–2 relations, ~20-sentence predictions). Run: ``.venv/bin/python bench/explore_score.py [--scenes N]``. The
last line is one JSON object with every figure.

``baselines``: simulated action scenes (``--scenes`` per partition, seed 7), built into an EXPLORE set and run
with ``oracle``, ``copy-initial`` and ``replay``; per partition their S_uni (lexical judge) and the ratios
copy-initial / oracle and replay / oracle — a synthetic set has headroom when copy-initial stays ≤ 0.6 of the
oracle and replay reaches ≥ 0.95 (the final scene follows from the inputs).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
CORES = 2
if hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) > CORES:
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:CORES])

import torch  # noqa: E402

torch.set_num_threads(CORES)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from egoworld.benchmarks.explore.build.builder import save_instances  # noqa: E402
from egoworld.benchmarks.explore.instances import Instance, Scene, SceneObject  # noqa: E402
from egoworld.benchmarks.explore.judges import JudgeItem, OpenAIJudge  # noqa: E402
from egoworld.benchmarks.explore.nlp import Embedder, TextAnalyzer, split_sentences  # noqa: E402
from egoworld.benchmarks.explore.score_run import score_prediction_file  # noqa: E402
from egoworld.core.folders.hashing import seeded_rng  # noqa: E402
from openai_test_server import FakeOpenAIServer  # noqa: E402

N_INSTANCES = 200
NOUNS = [
    "cup",
    "mug",
    "plate",
    "bowl",
    "knife",
    "fork",
    "spoon",
    "pan",
    "pot",
    "kettle",
    "toaster",
    "bread",
    "loaf",
    "butter",
    "cheese",
    "apple",
    "banana",
    "orange",
    "onion",
    "tomato",
    "carrot",
    "potato",
    "egg",
    "milk",
    "bottle",
    "jar",
    "lid",
    "towel",
    "sponge",
    "sink",
    "tap",
    "stove",
    "oven",
    "fridge",
    "drawer",
    "cupboard",
    "shelf",
    "counter",
    "table",
    "chair",
    "board",
    "tray",
    "napkin",
    "glass",
    "teapot",
    "colander",
    "grater",
    "peeler",
    "scissors",
    "bag",
    "box",
]
ADJ = [
    "red",
    "blue",
    "white",
    "black",
    "wooden",
    "steel",
    "ceramic",
    "glass",
    "small",
    "large",
    "empty",
    "full",
    "clean",
    "dirty",
    "open",
    "closed",
    "sliced",
]
PLACES = [
    "on the counter",
    "in the sink",
    "on the table",
    "inside the cupboard",
    "on the stove",
    "in the fridge",
]
FILLER = [
    "Soft daylight falls across the room",
    "The floor tiles are grey and slightly worn",
    "A window above the sink shows a cloudy sky",
    "The walls are painted a pale cream colour",
]


def make_instances(seed: int = 0) -> tuple[list[Instance], dict[str, str]]:
    instances, preds = [], {}
    lengths = (
        [11 + i % 89 for i in range(104)]
        + [100 + i % 100 for i in range(74)]
        + [200 + 20 * i for i in range(22)]
    )
    for i, n_actions in enumerate(lengths[:N_INSTANCES]):
        rng = seeded_rng(seed, "explore-bench", i)
        cats = rng.sample(NOUNS, rng.randint(6, 14))
        objs = []
        for c in cats:
            rels = [rng.choice(PLACES)] + ([f"next to the {rng.choice(cats)}"] if rng.random() < 0.5 else [])
            objs.append(SceneObject(c, f"a {rng.choice(ADJ)} {rng.choice(ADJ)} {c}", tuple(rels)))
        sentences = []
        for o in objs:
            if rng.random() < 0.75:  # mentioned, sometimes with the wrong attribute or place
                adj = o.description.split()[1] if rng.random() < 0.7 else rng.choice(ADJ)
                sentences.append(
                    f"A {adj} {o.category} sits {o.relations[0] if rng.random() < 0.6 else rng.choice(PLACES)}"
                )
        sentences += [f"A {rng.choice(ADJ)} {rng.choice(NOUNS)} is {rng.choice(PLACES)}" for _ in range(6)]
        sentences += rng.sample(FILLER, 3)
        rng.shuffle(sentences)
        sid = f"bench{i:03d}.jpg"
        instances.append(
            Instance(sid, "|".join(f"C moves item {k}" for k in range(n_actions)), Scene(tuple(objs)))
        )
        preds[sid] = ". ".join(sentences) + "."
    return instances, preds


def baselines(folder: Path, per_partition: int) -> dict[str, object]:
    """S_uni per partition of oracle, copy-initial and replay on simulated action scenes, and the ratios."""
    from egoworld.benchmarks.explore.build.from_world import build_from_world
    from egoworld.core.run_config import RunConfig
    from egoworld.runner.run import run_benchmark
    from egoworld.scoring.score import score_run
    from egoworld.sim.actions.synth import ActionConfig, synth_action_scene

    parts = ("short", "medium", "long")
    for part in parts:
        for i in range(per_partition):
            cfg = ActionConfig(partition=part, image_width=160)
            synth_action_scene(folder / "worlds" / f"{part}_{i}", f"{part}_{i}", 7, cfg)
    build_from_world([folder / "worlds"], folder / "bench", seed=0, tiny_size=per_partition)
    s_uni: dict[str, dict[str, float]] = {}
    for name in ("oracle", "copy-initial", "replay"):
        out = folder / name
        run_benchmark(RunConfig(bench=folder / "bench", model=name, out=out, setting="image", progress=False))
        scored = score_run(out, options={"judge": "lexical"})["explore"]["partitions"]
        s_uni[name] = {p: round(scored[p]["s_uni"], 2) for p in (*parts, "full")}
    ratios = {
        f"{name}_over_oracle": {p: round(s_uni[name][p] / s_uni["oracle"][p], 3) for p in s_uni["oracle"]}
        for name in ("copy-initial", "replay")
    }
    return {"scenes_per_partition": per_partition, "judge": "lexical", "s_uni": s_uni, **ratios}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scenes", type=int, default=6, help="simulated action scenes per partition (0: skip)")
    args = ap.parse_args()
    instances, preds = make_instances()
    sentences = list(dict.fromkeys(s for p in preds.values() for s in split_sentences(p)))
    t = time.perf_counter()
    analyzer = TextAnalyzer()
    embedder = Embedder()
    load_s = time.perf_counter() - t

    analyzer.nlp("Warm up the pipeline.")
    embedder.model.encode(["warm up the encoder"] * 8)
    t = time.perf_counter()
    analyzer.prepare(sentences)
    spacy_rate = len(sentences) / (time.perf_counter() - t)
    t = time.perf_counter()
    embedder.encode(sentences)
    sbert_rate = len(sentences) / (time.perf_counter() - t)

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        save_instances(tmp / "bench", instances, builder={"bench": "explore_score"})
        (tmp / "preds.json").write_text(json.dumps(preds))
        t = time.perf_counter()
        summary = score_prediction_file(
            tmp / "bench", tmp / "preds.json", tmp / "out", options={"judge": "lexical"}
        )
        score_s = time.perf_counter() - t
        stats = summary["explore"]["judge_stats"]

        # judge calls/s against a local OpenAI-compatible server (no cache, concurrency 16)
        sample = next(
            iter(
                __import__("egoworld.core.folders.bench_folder", fromlist=["x"])
                .load_benchmark(tmp / "bench")
                .samples
            )
        )
        items = [
            JudgeItem("attribute", f"a red cup number {k}", (f"A red cup {k} is here",), sample)
            for k in range(1000)
        ]
        with FakeOpenAIServer(reply=lambda prompt: "4") as srv:
            judge = OpenAIJudge("bench-judge", base_url=srv.base_url, cache_path=None, concurrency=16)

            async def go() -> float:
                start = time.perf_counter()
                res = await judge.score(items)
                assert all(r.score == 4.0 for r in res)
                await judge.aclose()
                return time.perf_counter() - start

            judge_s = asyncio.run(go())
        t = time.perf_counter()
        base = baselines(tmp / "baselines", args.scenes) if args.scenes > 0 else None
        baselines_s = time.perf_counter() - t
    figures = {
        "cores": CORES,
        "load_average_1m": round(os.getloadavg()[0], 2),
        "torch_threads": torch.get_num_threads(),
        "load_models_s": round(load_s, 2),
        "unique_sentences": len(sentences),
        "spacy_sentences_per_s": round(spacy_rate, 1),
        "sbert_sentences_per_s": round(sbert_rate, 1),
        "instances": N_INSTANCES,
        "lexical_score_200_s": round(score_s, 2),
        "lexical_judge_items": stats["items"],
        "lexical_items_per_s": round(stats["items"] / score_s, 1),
        "under_2_minutes": score_s < 120,
        "s_uni_full": round(summary["explore"]["partitions"]["full"]["s_uni"], 3),
        "judge_calls": len(items),
        "judge_calls_per_s": round(len(items) / judge_s, 1),
        "baselines": base,
        "baselines_s": round(baselines_s, 1),
    }
    print(
        f"spaCy {figures['spacy_sentences_per_s']} sentences/s · SBERT {figures['sbert_sentences_per_s']} sentences/s · "
        f"200 instances scored with the lexical judge in {figures['lexical_score_200_s']} s · judge "
        f"{figures['judge_calls_per_s']} calls/s (local server)",
        file=sys.stderr,
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
