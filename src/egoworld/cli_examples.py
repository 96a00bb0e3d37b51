"""One example per command, appended to the end of its ``--help`` (a test walks every command and checks it).

A new command adds its line here; the example must start with the command's own words. A benchmark folder
is always ``--bench DIR``, a run folder ``--run DIR``, what a command writes ``--out DIR``.
"""

from __future__ import annotations

import typer

EXAMPLES: dict[str, str] = {
    "models": "egoworld models",
    "sweep run": "egoworld sweep run sweep.yaml --out campaigns/c1",
    "sweep status": "egoworld sweep status campaigns/c1",
    "leaderboard": "egoworld leaderboard campaigns/c1 --format all --out campaigns/c1/leaderboard",
    "doctor": "egoworld doctor --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-VL-7B-Instruct",
    "run": "egoworld run --bench bench/vsi_wild --model openai:Qwen/Qwen2.5-VL-7B-Instruct "
    "--base-url http://127.0.0.1:8000/v1 --setting frames --frames 128 --out runs/qwen7b",
    "score": "egoworld score --run runs/qwen7b",
    "report": "egoworld report --run runs/qwen7b --run runs/random --out report/ --pages auto",
    "demo": "egoworld demo --out demo-out",
    "cache stats": "egoworld cache stats --cache ~/.cache/egoworld-responses",
    "cache prune": "egoworld cache prune --cache ~/.cache/egoworld-responses --older-than 30",
    "import vsi-wild-qa": "egoworld import vsi-wild-qa vsi_super_wild_qa.jsonl --out bench/vsi_wild --videos videos/",
    "import vsi-wild-durations": "egoworld import vsi-wild-durations --bench bench/vsi_wild --videos videos/",
    "import explore-anno": "egoworld import explore-anno anno.json --out bench/explore --images images/",
    "import beyond3d-qa": "egoworld import beyond3d-qa vqa_baseline.jsonl --videos BEYOND3D/videos --out bench/b3d",
    "import lmms-eval": "egoworld import lmms-eval logs/M/samples_oos_videoqa.jsonl --out imported/M",
    "import hf": "egoworld import hf hf/beyond3d --out bench/beyond3d-copy",
    "import inspect": "egoworld import inspect logs/qwen.eval --bench bench/vsi_wild --out imported/qwen-inspect",
    "export lmms-eval": "egoworld export lmms-eval --bench bench/beyond3d --out lmms_tasks/beyond3d --setting last-frame",
    "export inspect": "egoworld export inspect --run runs/qwen7b --out logs/qwen7b.eval",
    "export hf": "egoworld export hf --bench bench/beyond3d --out hf/beyond3d --license cc-by-4.0",
    "export parquet": "egoworld export parquet --run runs/qwen7b --out qwen7b.parquet",
    "bench filter": "egoworld bench filter --bench bench/b3d --review bench/b3d/reviews/ana.sqlite --out bench/b3d-reviewed",
    "view": "egoworld view demo-out --port 8765",
    "bench check": "egoworld bench check --bench bench/vsi_wild",
    "bench rehash": "egoworld bench rehash --bench bench/vsi_wild",
    "world show": "egoworld world show worlds/kitchens/kitchen_000",
    "world fix": "egoworld world fix worlds/walks --review bench/vsi/reviews/ana.sqlite --out worlds/walks-fixed",
    "world synth": "egoworld world synth kitchen --episodes 4 --minutes 5 --seed 0 --out worlds/kitchens",
    "world paper-sets": "egoworld world paper-sets walks kitchens --out worlds/paper --jobs 2",
    "world compare": "egoworld world compare worlds/perceived worlds/walks --out compare.json",
    "world import hd-epic": "egoworld world import hd-epic hd-epic/ --out worlds/hd-epic --videos hd-epic-videos/",
    "world perceive": "egoworld world perceive walk.mp4 --kind walk --trajectory odometry "
    "--detector owlv2:weights/owlv2 --vocabulary chair,tree,person --out worlds/mine",
    "world annotations": "egoworld world annotations --movements movements.csv --fixtures fixtures.csv "
    "--camera-fov 90 --video kitchen.mp4 --out ann",
    "world import epic-kitchens": "egoworld world import epic-kitchens epic-kitchens-100/ --out worlds/epic",
    "media probe": "egoworld media probe videos/abc_front.mp4",
    "media cache": "egoworld media cache",
    "beyond3d audit": "egoworld beyond3d audit --world worlds/kitchens --truth",
    "beyond3d cues": "egoworld beyond3d cues --bench bench/beyond3d --out bench/beyond3d-cues",
    "beyond3d demo": "egoworld beyond3d demo --out demo-beyond3d",
    "vsi-wild views": "egoworld vsi-wild views walk.mp4 --out views/",
    "vsi-wild demo": "egoworld vsi-wild demo --out demo-vsi-wild --questions-per-task 120",
    "explore score": "egoworld explore score --bench bench/explore --predictions preds.json --out scored/ "
    "--judge openai:Qwen/Qwen3-8B,base_url=http://127.0.0.1:8001/v1",
    "explore agreement": "egoworld explore agreement --run runs/explore-m --run runs/explore-m-judge2",
    "explore report": "egoworld explore report --run runs/explore-m --out report-explore/",
    "build beyond3d": "egoworld build beyond3d --world worlds/kitchens --out bench/beyond3d --anchors 1000",
    "build vsi-wild": "egoworld build vsi-wild --world worlds/walks --out bench/vsi_wild_synth "
    "--questions-per-task 500",
    "build explore": "egoworld build explore --world worlds/actions --out bench/explore",
    "scene annotate": "egoworld scene annotate final.png --initial initial.png --actions actions.txt "
    "--vlm openai:Qwen/Qwen3-VL-8B-Instruct,base_url=http://127.0.0.1:8000/v1 --detector vlm --out scenes/s1",
    "scene compare": "egoworld scene compare --scene scenes/s1 --world worlds/actions/actions_000",
    "scene render": "egoworld scene render --world worlds/actions/actions_000 --out final.png",
    "scene apply": "egoworld scene apply scenes/s1/reviews/ana.sqlite",
}


def add_examples(app: typer.Typer, prefix: str = "") -> None:
    """End the help of every command of ``app`` (recursively) with ``Example:`` and its example."""
    for info in app.registered_commands:
        name = info.name or (info.callback.__name__.replace("_", "-") if info.callback else "")
        example = EXAMPLES.get(f"{prefix}{name}")
        if example is not None and not info.epilog:
            info.epilog = f"\b\nExample:\n  {example}"  # \b: printed as written, after the options
    for group in app.registered_groups:
        if group.typer_instance is not None:
            add_examples(group.typer_instance, f"{prefix}{group.name} ")
