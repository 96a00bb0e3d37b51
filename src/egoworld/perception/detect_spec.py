"""A detector from its spec string (``--detector``): ``vlm`` (boxes asked from the VLM), ``owlv2:DIR``,
``grounding-dino:DIR`` (local weights folders) or ``file:PATH`` (a detections JSONL of another tool; for
``scene annotate`` a row's ``time_s`` is the image's position among the images, 0 for the first)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from egoworld.perception.detector_spec import HF_KINDS, hf_detector

SPECS = "vlm | grounding-dino:DIR | owlv2:DIR | file:PATH"


def create_detector(spec: str) -> Any:
    """The `Detector` of ``spec`` (``"vlm"`` is returned as is: the caller pairs it with its VLM)."""
    kind, _, arg = spec.strip().partition(":")
    if kind == "vlm" and not arg:
        return "vlm"
    if not arg:
        raise ValueError(f"--detector {spec!r}: expected {SPECS}")
    if kind in HF_KINDS:
        return hf_detector(kind, arg)
    if kind == "file":
        from egoworld.perception.detect_file import FileDetector

        return FileDetector(Path(arg))
    raise ValueError(f"--detector {spec!r}: unknown kind {kind!r}; expected {SPECS}")
