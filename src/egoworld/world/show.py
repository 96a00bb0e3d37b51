"""Inspect an episode: a text summary and a PNG (a contact sheet of video frames when the video is
available, otherwise a top-down plot of fixtures, camera path and object positions plus a timeline of
movements and actions)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from egoworld.core.folders.files import atomic_open, check_input_file, input_error
from egoworld.world.episode import Episode


def _hms(t: float) -> str:
    t = max(0.0, t)
    return f"{int(t // 3600):02d}:{int(t % 3600 // 60):02d}:{t % 60:06.3f}"


def summarize(ep: Episode) -> str:
    """A few lines describing the episode."""
    lines = [f"episode {ep.id}: {ep.duration_s:.2f} s ({_hms(ep.duration_s)}) at {ep.fps:g} fps"]
    if ep.camera is not None:
        lines.append(f"  camera   {ep.camera.kind} {ep.camera.width}×{ep.camera.height}")
    if ep.poses is not None:
        p = ep.poses
        lines.append(f"  poses    {len(p)} from {p.times_s[0]:.2f} s to {p.times_s[-1]:.2f} s")
    if ep.fixtures:
        types = Counter(f.type for f in ep.fixtures)
        shown = ", ".join(f"{t} {n}" for t, n in sorted(types.items()))
        lines.append(
            f"  fixtures {len(ep.fixtures)} ({sum(f.openable for f in ep.fixtures)} openable): {shown}"
        )
    if ep.objects:
        moves = sum(len(o.movements) for o in ep.objects)
        cats = Counter(o.category for o in ep.objects).most_common(6)
        lines.append(
            f"  objects  {len(ep.objects)} with {moves} movements; top categories: "
            + ", ".join(f"{c} {n}" for c, n in cats)
        )
    if ep.actions:
        first = "; ".join(f"{a.start_s:.1f}s {a.text}" for a in ep.actions[:3])
        lines.append(f"  actions  {len(ep.actions)} (first: {first})")
    if ep.scene_graphs:
        graphs = ", ".join(f"{g.label or '?'} ({len(g.objects)} objects)" for g in ep.scene_graphs)
        lines.append(f"  scenes   {graphs}")
    media = {k: v for k, v in ep.media.model_dump(exclude_defaults=True).items() if v}
    if media:
        lines.append(f"  media    {media}")
    if ep.source:
        lines.append(f"  source   {ep.source.get('loader', '?')}")
    return "\n".join(lines)


def resolve_media(folder: Path, path: str | None) -> Path | None:
    """A media path of the episode, resolved against its folder; None when absent or missing."""
    if not path:
        return None
    p = Path(path)
    p = p if p.is_absolute() else folder / p
    return p if p.exists() else None


def contact_sheet(video: Path, out: Path, *, frames: int = 12, columns: int = 4, width: int = 320) -> Path:
    """Evenly spaced frames of ``video`` in a grid, each labelled with its time."""
    import av
    from PIL import Image, ImageDraw

    tiles = []
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        duration = (
            float(stream.duration * stream.time_base)
            if stream.duration
            else float(container.duration or 0) / 1e6
        )
        for t in np.linspace(0, max(duration - 1e-3, 0), frames):
            container.seek(int(t / stream.time_base), stream=stream, backward=True)
            chosen = None
            for frame in container.decode(stream):
                chosen = frame  # the first frame at or after t, else the last one before the end
                if frame.time is None or frame.time >= t - 1e-6:
                    break
            if chosen is not None:
                img = chosen.to_image()
                img = img.resize((width, max(1, round(img.height * width / img.width))))
                ImageDraw.Draw(img).text((6, 6), _hms(float(chosen.time or t)), fill=(255, 255, 0))
                tiles.append(img)
    if not tiles:
        raise ValueError(f"{video}: no frames could be decoded")
    rows = -(-len(tiles) // columns)
    sheet = Image.new("RGB", (columns * width, rows * tiles[0].height))
    for i, tile in enumerate(tiles):
        sheet.paste(tile, ((i % columns) * width, (i // columns) * tiles[0].height))
    with atomic_open(out, "wb") as fh:
        sheet.save(fh, format="PNG")
    return out


def _hull(points: np.ndarray) -> np.ndarray:
    """Convex hull of 2D points, counter-clockwise (monotone chain)."""
    pts = sorted({(round(float(x), 9), round(float(y), 9)) for x, y in points})
    if len(pts) < 3:
        return np.asarray(pts)

    def half(seq: list) -> list:
        out: list = []
        for p in seq:
            while (
                len(out) >= 2
                and (out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])
                <= 0
            ):
                out.pop()
            out.append(p)
        return out[:-1]

    return np.asarray(half(pts) + half(pts[::-1]))


def overview_plot(ep: Episode, out: Path) -> Path:
    """Top-down plot (fixtures, camera path, object positions) and a timeline (movements, actions)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Polygon

    spatial = bool(ep.fixtures or ep.poses is not None or any(o.initial_position for o in ep.objects))
    timeline = bool(ep.actions or any(o.movements for o in ep.objects))
    panels = int(spatial) + int(timeline) or 1
    fig, axes = plt.subplots(1, panels, figsize=(7 * panels, 6), squeeze=False)
    ax_iter = iter(axes[0])
    if spatial:
        ax = next(ax_iter)
        for f in ep.fixtures:
            corners = _hull(f.box.corners()[:, :2])  # footprint seen from above
            ax.add_patch(
                Polygon(
                    corners,
                    closed=True,
                    fill=f.openable,
                    alpha=0.25 if f.openable else 0.8,
                    edgecolor="tab:blue",
                    facecolor="tab:blue" if f.openable else "none",
                )
            )
            cx, cy = np.asarray(f.box.center[:2])
            ax.text(cx, cy, f.label, fontsize=6, ha="center", va="center")
        if ep.poses is not None:
            p = ep.poses.positions
            ax.plot(p[:, 0], p[:, 1], "-", color="tab:red", lw=1, label="camera")
            ax.plot(p[0, 0], p[0, 1], "o", color="tab:red", ms=4)
        pts = [m.end_position for o in ep.objects for m in o.movements if m.end_position is not None]
        pts += [o.initial_position for o in ep.objects if o.initial_position is not None]
        if pts:
            arr = np.asarray(pts)
            ax.scatter(arr[:, 0], arr[:, 1], s=8, color="tab:green", label="object positions")
        ax.set_aspect("equal")
        ax.autoscale()
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        ax.set_title(f"{ep.id}: top-down")
        if ep.poses is not None or pts:
            ax.legend(loc="best", fontsize=7)
    if timeline:
        ax = next(ax_iter)
        movers = [o for o in ep.objects if o.movements][:40]
        for row, o in enumerate(movers):
            ax.broken_barh(
                [(m.start_s, max(m.end_s - m.start_s, 0.2)) for m in o.movements],
                (row - 0.4, 0.8),
                color="tab:orange",
            )
        if ep.actions:
            base = len(movers) + 1
            ax.broken_barh(
                [(a.start_s, max(a.end_s - a.start_s, 0.2)) for a in ep.actions],
                (base - 0.4, 0.8),
                color="tab:purple",
            )
        labels = [o.name for o in movers] + ([""] + ["actions"] if ep.actions else [])
        ax.set_yticks(range(len(labels)), labels, fontsize=6)
        ax.set_xlim(0, ep.duration_s)
        ax.set_xlabel("time (s)")
        ax.set_title("movements" + (" and actions" if ep.actions else ""))
    if not spatial and not timeline:
        axes[0][0].text(0.5, 0.5, summarize(ep), ha="center", va="center", fontsize=8, wrap=True)
        axes[0][0].axis("off")
    fig.tight_layout()
    with atomic_open(out, "wb") as fh:
        fig.savefig(fh, format="png", dpi=120)
    plt.close(fig)
    return out


def render_png(ep: Episode, folder: Path, out: Path) -> tuple[Path, str]:
    """A contact sheet when the episode's video is available, else the overview plot; returns (path, kind)."""
    video = resolve_media(folder, ep.media.video)
    if video is not None:
        check_input_file(video, "video file (episode.json media.video)")
        if video.stat().st_size == 0:
            raise input_error(
                video, "is empty (0 bytes), expected a video", fix="replace it with the recording"
            )
        return contact_sheet(video, out), "contact sheet"
    if ep.media.video:
        return overview_plot(ep, out), f"overview plot — its video {ep.media.video} was not found"
    return overview_plot(ep, out), "overview plot"
