"""Beyond3D's official inputs (``--option protocol=official``): what the official lmms-eval task
(``Beyond3D-bench/vlm-evaluation``, ``lmms_eval/tasks/oos_videoqa/utils.py``: ``oos_doc_to_visual``,
``oos_doc_to_text``) sends.

* text setting (the official ``without_video``): the prompt alone, as under the egoworld protocol;
* frames setting (``with_video``): the video from 0 to the query time as one video part (the official
  ``ffmpeg`` prefix, at the video's own frame rate), the anchor object's marker on its last frame for the
  marked questions in the official style (an 8 px red square at 95 % opacity, ``drawbox``), then the prompt; no separate query-frame image;
* last-frame: the official task has no such setting (only a step-1 debugging switch), so it is refused.
"""

from __future__ import annotations

from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.input_protocol import Inputs, MediaSource
from egoworld.core.schema import Sample


def official_inputs(bench: Benchmark, sample: Sample, text: str, setting: str, media: MediaSource) -> Inputs:
    """The plug-in hook: a sample's official media parts and text."""
    if setting == "text":
        return Inputs((), text)
    if setting != "frames":
        raise ValueError(f"the official Beyond3D harness has no {setting!r} setting: use text or frames")
    markers = [f.marker for f in sample.media.frames if f.marker is not None]
    marker = markers[-1] if markers else None
    return Inputs((media.clip_video(bench, sample, marker, "square"),), text)
