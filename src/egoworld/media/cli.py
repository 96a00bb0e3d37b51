"""``egoworld media …``: inspect a video's frame table and sampling, and manage the decoded-frame cache.
Heavy imports stay inside the command functions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from egoworld.core.errors import exit_on_user_error

GROUP_HELP = "Inspect videos and frame sampling; manage the frame cache."


@exit_on_user_error
def probe_cmd(
    video: Annotated[Path, typer.Argument(help="A video file.")],
    policy: Annotated[str, typer.Option(help="Also show the frames this policy picks (e.g. uniform).")] = "",
    frames: Annotated[int, typer.Option(help="Frame count for --policy.")] = 128,
    start: Annotated[float | None, typer.Option(help="Clip start (s).")] = None,
    end: Annotated[float | None, typer.Option(help="Clip end (s), e.g. the query time.")] = None,
) -> None:
    """Frame count, rate, keyframes and size of a video (demuxed, not decoded)."""
    from egoworld.media.index import probe
    from egoworld.media.policies import Clip, parse_policy

    index = probe(video)
    gaps = [b - a for a, b in zip(index.keyframes, index.keyframes[1:], strict=False)]
    print(
        f"{video}: {index.count} frames, {index.duration_s:.3f} s, ~{index.avg_fps:.3f} fps, "
        f"{index.width}x{index.height} {index.codec}, {len(index.keyframes)} keyframes"
        + (f" (every {min(gaps)}–{max(gaps)} frames)" if gaps else "")
    )
    if policy:
        sel = parse_policy(policy).select(index, Clip.of(index, start, end), frames)
        print(f"{sel.policy}: {len(sel.indices)} frames")
        print("  indices:", " ".join(map(str, sel.indices)))
        print("  times:  ", " ".join(f"{t:.3f}" for t in sel.times))


@exit_on_user_error
def cache_cmd(
    clear: Annotated[
        bool, typer.Option(help="Delete every cached image (video hashes and tables stay).")
    ] = False,
) -> None:
    """Where the frame cache is and what it holds ($EGOWORLD_CACHE, cap $EGOWORLD_MEDIA_CACHE_GB)."""
    from egoworld.media.cache import FrameCache

    cache = FrameCache()
    if clear:
        cache.clear()
    u = cache.usage()
    print(
        f"{cache.path}: {u['entries']} entries, {u['bytes'] / 1e6:.1f} MB of {u['max_bytes'] / 1024**3:.1f} GiB"
    )
    cache.close()
