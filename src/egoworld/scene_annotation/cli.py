"""``egoworld scene``: annotate final-scene images as EXPLORE-Bench does (``scene annotate``), render a
synthetic episode's final image (``scene render``) and compare an annotation with its exact graph
(``scene compare``); ``scene apply`` (human corrections) lives in `egoworld.view.scene_apply`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import EXIT_INCOMPLETE, console, exit_on_user_error

GROUP_HELP = (
    "Scenes annotated like EXPLORE-Bench's: tags, filter, boxes, attributes, integration, correction; "
    "human correction in `egoworld view --scene`."
)
VLM_HELP = "openai:<model>[,base_url=URL,max_tokens=N,…] (an OpenAI-compatible VLM server)"


def _vlm(spec: str) -> object:
    from egoworld.models.spec import create_model, split_spec

    head, opts = split_spec(spec)
    opts.setdefault("max_tokens", "1024")
    return create_model(head, opts)


@exit_on_user_error
def annotate_cmd(
    images: Annotated[
        list[Path], typer.Argument(help="Final-scene image(s) to annotate.", show_default=False)
    ],
    actions: Annotated[
        Path, typer.Option("--actions", help="Actions file: one per line, or C …|C … (official).")
    ],
    vlm: Annotated[str, typer.Option("--vlm", help=VLM_HELP)],
    out: Annotated[
        Path, typer.Option("--out", help="Scene folder to write (a rerun reuses cached replies).")
    ],
    detector: Annotated[
        str, typer.Option("--detector", help="vlm | grounding-dino:DIR | owlv2:DIR | file:PATH (boxes).")
    ] = "vlm",
    correct_vlm: Annotated[
        str | None, typer.Option("--correct-vlm", help="Second VLM for the correction pass (default: --vlm).")
    ] = None,
    initial: Annotated[
        Path | None,
        typer.Option("--initial", help="Initial-scene image (kept for `build explore --scenes`)."),
    ] = None,
    truth: Annotated[
        Path | None, typer.Option("--truth", help="Episode folder whose final scene graph is the truth.")
    ] = None,
    spacy: Annotated[str | None, typer.Option(help="spaCy pipeline for the action nouns.")] = None,
    invalid_retries: Annotated[int, typer.Option(help="Asks again after a malformed reply.")] = 2,
) -> None:
    """Annotate final-scene images: tags (spaCy nouns of the actions + the VLM's object list), filter (rules +
    LLM), boxes (detector), attributes and relations (VLM), integration into the official end_frame_info shape,
    correction pass. Every stage's file stays in --out; failed replies are counted in report.json."""
    from egoworld.perception.detectors.spec import create_detector
    from egoworld.scene_annotation.pipeline import annotate_scene

    report = annotate_scene(
        images,
        actions,
        out,
        vlm=_vlm(vlm),
        detector=create_detector(detector),
        correct_vlm=_vlm(correct_vlm) if correct_vlm else None,
        initial=initial,
        spacy=spacy,
        invalid_retries=invalid_retries,
    )
    figures = _compare(out, truth) if truth else None
    console.print(f"wrote {out}: {report['objects']} objects (scene.json, end_frame_info.json, report.json)")
    for note in report["notes"]:
        console.print(f"[yellow]warning:[/] {note}", highlight=False)
    if figures is not None:
        typer.echo(json.dumps(figures, sort_keys=True))
    if report["failed"]:
        failed = ", ".join(f"{s} {n}" for s, n in report["failed"].items())
        console.print(
            f"[bold red]incomplete:[/] VLM replies that failed after retries: {failed} (see report.json)"
        )
        raise typer.Exit(EXIT_INCOMPLETE)


def _compare(scene_dir: Path, world: Path) -> dict[str, object]:
    from egoworld.core.folders.files import write_json
    from egoworld.scene_annotation.graph_agreement import compare_scene, final_graph
    from egoworld.world.scene_file import load_scene

    figures = compare_scene(load_scene(scene_dir).objects, final_graph(world))
    write_json(Path(scene_dir) / "agreement.json", figures)
    return figures


@exit_on_user_error
def compare_cmd(
    scene: Annotated[
        Path, typer.Option("--scene", help="Scene folder (its corrected.json, else scene.json).")
    ],
    world: Annotated[
        Path, typer.Option("--world", help="Episode folder whose final scene graph is the truth.")
    ],
) -> None:
    """Object recall / precision and attribute / relation agreement of an annotated scene against an exact
    scene graph (a synthetic action scene); one JSON line, also written as SCENE/agreement.json."""
    figures = _compare(scene, world)
    typer.echo(json.dumps(figures, sort_keys=True))


@exit_on_user_error
def render_cmd(
    world: Annotated[Path, typer.Option("--world", help="A synthetic action-scene episode folder.")],
    out: Annotated[Path, typer.Option("--out", help="PNG file to write.")],
) -> None:
    """Render the final image of a synthetic action scene (the image its final scene graph describes)."""
    from PIL import Image

    from egoworld.core.folders.files import atomic_open
    from egoworld.scene_annotation.graph_agreement import render_final

    rgb = render_final(world)
    with atomic_open(out, "wb") as fh:
        Image.fromarray(rgb).save(fh, format="PNG", compress_level=6)
    console.print(f"wrote {out}: {rgb.shape[1]}x{rgb.shape[0]}")
