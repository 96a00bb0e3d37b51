"""``egoworld world synth KIND …``: synthesise world sets with progress and resumption (the kinds are the
``egoworld.world_kinds`` entry points, `egoworld.sim.kinds`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import console, exit_on_user_error


@exit_on_user_error
def synth_cmd(
    kind: Annotated[
        str, typer.Argument(help="World kind: kitchen, walk or actions (or one a package registers).")
    ],
    out: Annotated[Path, typer.Option("--out", help="World folder to write (one folder per episode).")],
    episodes: Annotated[int, typer.Option("--episodes", min=1, help="Number of episodes.")] = 1,
    minutes: Annotated[
        float | None,
        typer.Option(
            "--minutes", help="Episode length in minutes (kitchen 2–40, default 3; walk default 10)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of every random choice.")] = 0,
    fps: Annotated[
        float | None, typer.Option("--fps", help="Video frame rate (kitchen default 2, walk 1).")
    ] = None,
    camera: Annotated[
        str, typer.Option("--camera", help="Kitchen camera: fisheye (Aria-like) or pinhole.")
    ] = "fisheye",
    size: Annotated[
        int | None,
        typer.Option("--size", help="Kitchen image size (fisheye side, pinhole width); walk panorama width."),
    ] = None,
    view_size: Annotated[int, typer.Option("--view-size", help="Walk: side of each perspective view.")] = 384,
    actions: Annotated[
        int | None,
        typer.Option("--actions", help="Actions: number of actions (11–700; default drawn per partition)."),
    ] = None,
    abnormal_rate: Annotated[
        float, typer.Option("--abnormal-rate", help="Actions: share of abnormal episodes.")
    ] = 0.2,
    render: Annotated[
        bool,
        typer.Option(
            "--render/--no-render",
            help="Kitchen: render the video, exact visibility and simulated detections; --no-render writes "
            "the ground truth only (enough for a text-only build beyond3d --detections none).",
        ),
    ] = True,
    jobs: Annotated[int, typer.Option("--jobs", min=1, help="Episodes made in parallel (processes).")] = 1,
    executor: Annotated[
        str, typer.Option("--executor", help="local (--jobs processes) or ray (one Ray task per episode).")
    ] = "local",
    address: Annotated[
        str | None, typer.Option("--address", help="Ray cluster address (auto = the running cluster).")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Remake episodes made with other parameters.")
    ] = False,
) -> None:
    """Synthesise episodes with exact ground truth; episodes already complete are skipped.

    Example: egoworld world synth kitchen --episodes 4 --minutes 5 --out worlds/kitchens --jobs 2
    """
    from egoworld.core.process.progress import progress_bar
    from egoworld.sim.kinds import world_kind
    from egoworld.sim.worldset import Job, plan_jobs, synth_world_set

    wk = world_kind(kind)
    options = {
        "minutes": minutes,
        "fps": fps,
        "camera": camera,
        "size": size,
        "view_size": view_size,
        "actions": actions,
        "abnormal_rate": abnormal_rate,
        "render": render,
    }
    cfg = wk.config(options)
    todo, done = plan_jobs(kind, out, episodes, seed, cfg, force=force)
    with progress_bar(True) as progress:
        ep_task = progress.add_task(f"{kind} episodes", total=episodes, completed=0)
        frame_task = progress.add_task("frames", total=None, visible=jobs == 1 and wk.frames)

        def on_episode(job: Job, path: Path) -> None:
            progress.advance(ep_task)

        def on_frames(i: int, n: int) -> None:
            progress.update(frame_task, completed=i, total=n)

        synth_world_set(
            kind,
            out,
            episodes,
            seed,
            cfg,
            jobs=jobs,
            force=force,
            on_episode=on_episode,
            on_frames=on_frames,
            executor=executor,
            address=address,
        )
    console.print(
        f"{episodes} {kind} episodes in {out} ({len(done)} already there, {len(todo)} made)",
        highlight=False,
        soft_wrap=True,
    )


@exit_on_user_error
def paper_sets_cmd(
    sets: Annotated[
        list[str] | None, typer.Argument(help="Sets to make: walks, kitchens (default both).")
    ] = None,
    out: Annotated[Path, typer.Option("--out", help="Folder of the sets (one sub-folder per set).")] = Path(
        "worlds/paper"
    ),
    scale: Annotated[
        float,
        typer.Option("--scale", help="Proportional smaller sets: walks this × as long, this × the kitchens."),
    ] = 1.0,
    kitchens: Annotated[
        int | None,
        typer.Option("--kitchens", min=1, help="Beyond3D kitchens (default: as many as 1,000 anchors need)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of every random choice.")] = 0,
    jobs: Annotated[int, typer.Option("--jobs", min=1, help="Episodes made in parallel (processes).")] = 2,
    executor: Annotated[
        str, typer.Option("--executor", help="local (--jobs processes) or ray (one Ray task per episode).")
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option("--address", help="Ray cluster address (default: start Ray here with --jobs workers)."),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Remake episodes made with other parameters.")
    ] = False,
) -> None:
    """Make the paper-size world sets (VSI-Super-Wild's walks of 8 … 125 min, Beyond3D's kitchens);
    episodes already complete are skipped, so a killed run resumes. Ends with one JSON line per set.

    Example: egoworld world paper-sets walks kitchens --out worlds/paper --jobs 2
    """
    import json

    from egoworld.sim.paper_set_run import make_paper_set
    from egoworld.sim.paper_sets import SETS

    names = sets or list(SETS)
    for name in names:
        figures = make_paper_set(
            name,
            out / name,
            seed=seed,
            scale=scale,
            kitchens=kitchens,
            workers=jobs,
            executor=executor,
            address=address,
            force=force,
            say=lambda msg: console.print(msg, highlight=False, soft_wrap=True),
        )
        print(json.dumps(figures, sort_keys=True))
