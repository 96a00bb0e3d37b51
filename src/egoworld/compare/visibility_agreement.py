"""Beyond3D visibility agreement: how often the perceived world's visibility tracks (objects × 1 Hz samples)
hold the state, and the paper's binary visibility, of the truth's."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def visibility_agreement(perceived: NDArray[np.int_], truth: NDArray[np.int_]) -> dict[str, float]:
    """``states``: share of equal states; ``visible``: share of equal binary visibility (detected visible
    or in motion); both over the truth's ``(objects, times)`` grid (shapes must match)."""
    from egoworld.benchmarks.beyond3d.build.visibility_tracks import DETECTED_VISIBLE, IN_MOTION

    if perceived.shape != truth.shape:
        raise ValueError(
            f"visibility tracks of shape {perceived.shape} and {truth.shape}: not the same objects and times"
        )
    seen = [np.isin(s, (DETECTED_VISIBLE, IN_MOTION)) for s in (perceived, truth)]
    return {
        "states": round(float((perceived == truth).mean()), 4),
        "visible": round(float((seen[0] == seen[1]).mean()), 4),
    }
