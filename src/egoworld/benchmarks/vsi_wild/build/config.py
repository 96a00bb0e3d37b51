"""Builder parameters (all stored in the manifest's ``builder`` block). The rules they drive are documented in
the task modules: `vmr`, `vpo`, `voo`, `voc`, `seen_rule`, `streaming`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

MomentMode = Literal["frame", "timestamp", "both"]


@dataclass(frozen=True)
class VMRRules:
    """Motion-direction moments (see `egoworld.benchmarks.vsi_wild.build.vmr`)."""

    window_s: float = 2.0  # half-window; at least one pose interval each side
    min_speed_m_s: float = 0.5  # every segment of the window at least this fast
    # a trajectory without metric scale: the threshold is min_speed_m_s × its median moving speed ÷ this
    walking_speed_m_s: float = 1.4
    max_turn_deg: float = 10.0  # segment directions and the camera's yaw stay within this of the answer
    max_off_deg: float = 20.0  # the answer direction lies within this of its class centre
    edge_s: float = 5.0  # moments this close to the start / end of the video are rejected
    min_separation_s: float = 10.0  # two moments of one view video at least this far apart
    moment: MomentMode = "both"  # how the moment is shown: marked frame, explicit timestamp, or both


@dataclass(frozen=True)
class VPORules:
    """Place-order questions (see `egoworld.benchmarks.vsi_wild.build.vpo`)."""

    yaw_offset_deg: tuple[float, float] = (30.0, 60.0)  # rotation from the view's direction
    min_gap_frames: float = 2.0  # query frames apart by this many 128-frame spacings
    edge_s: float = 1.0  # query frames this far inside their visit
    tries: int = 400  # random 4-place draws per view video


@dataclass(frozen=True)
class VOORules:
    """Object-order questions (see `egoworld.benchmarks.vsi_wild.build.voo`)."""

    min_gap_frames: float = 2.0  # consecutive events apart by this many 128-frame spacings
    max_per_video: int = 400  # candidate 4-category sets kept per (view video, first / last)
    equal_kinds: bool = (
        True  # as many last- as first-appearance questions; off keeps every candidate (audits)
    )


@dataclass(frozen=True)
class VisibilityRules:
    """Which instances count as seen, truth and perceived alike (see `egoworld.benchmarks.vsi_wild.build.seen_rule`)."""

    min_visible_px: float = 0.0  # largest visible size, pixels of area at the view video's size (0: any)
    min_visible_s: float = 0.0  # visible this long in all, one frame per interval included (0: any)


#: the careful annotator at benchmark size: 8 × 8 px and 1 s (`world compare`'s rule for both worlds;
#: `build vsi-wild --min-visible-px 64 --min-visible-s 1`)
ANNOTATOR = VisibilityRules(min_visible_px=64.0, min_visible_s=1.0)


@dataclass(frozen=True)
class StreamRules:
    """Streaming VOC (see `egoworld.benchmarks.vsi_wild.streaming`)."""

    fractions: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)  # query times as fractions of the video
    clip: Literal["prefix", "chunk"] = "prefix"


@dataclass(frozen=True)
class BuildConfig:
    """``build vsi-wild`` options; ``frames`` is the evaluation frame count the resolvability rules assume."""

    per_task: int | None = 250
    seed: int = 0
    frames: int = 128
    tasks: tuple[str, ...] = ("VMR", "VPO", "VOO", "VOC")
    streaming: bool = False  # build the streaming-VOC variant instead (one task, VOC per query time)
    media: Literal["copy", "absolute"] = "copy"  # copy (hard-link when possible) the videos into the folder
    vmr: VMRRules = field(default_factory=VMRRules)
    vpo: VPORules = field(default_factory=VPORules)
    voo: VOORules = field(default_factory=VOORules)
    visibility: VisibilityRules = field(default_factory=VisibilityRules)
    stream: StreamRules = field(default_factory=StreamRules)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["tasks"] = list(self.tasks)
        return d
