"""The one ``--detector SPEC`` grammar: a `Detector` for one video (and view) of `egoworld world perceive`
(`make_detector`), or for the images of `egoworld scene annotate` (`create_detector`).

* ``file:PATH`` — detections JSONL made by any other tool (`detect_file`). PATH is the file itself, or a
  folder searched for ``<episode>/detections_<view>.jsonl``, ``<episode>/detections.jsonl``,
  ``<episode>_<view>.jsonl``, ``<episode>.jsonl`` (a synthetic world folder is such a folder: its episodes
  carry the simulated detector's files, seeded misses, false positives and box jitter);
* ``owlv2:DIR``, ``grounding-dino:DIR`` — Hugging Face weights in a local folder (``--vocabulary`` needed);
* ``vlm:MODEL@BASE_URL`` — an OpenAI-compatible server asked for JSON boxes (``--vocabulary`` needed);
  ``scene annotate`` takes a bare ``vlm`` instead (boxes asked from its own VLM), and for it a ``file:``
  row's ``time_s`` is the image's position among the images, 0 for the first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from egoworld.core.folders.files import InputFileError
from egoworld.perception.detectors.detector import Detector

KINDS = ("file", "owlv2", "grounding-dino", "vlm")
HF_KINDS = ("owlv2", "grounding-dino")
HELP = "file:PATH (detections JSONL or a folder of them), owlv2:DIR, grounding-dino:DIR, vlm:MODEL@BASE_URL"


@dataclass(frozen=True)
class DetectorSpec:
    kind: str
    target: str

    @property
    def needs_pixels(self) -> bool:
        """Whether the backend looks at the frames (a detections file does not)."""
        return self.kind != "file"


def parse_detector(spec: str) -> DetectorSpec:
    """``KIND:TARGET`` checked (an unknown kind or an empty target is refused with the accepted forms)."""
    kind, sep, target = spec.partition(":")
    if sep and target and kind not in KINDS:
        raise ValueError(f"--detector {spec!r}: unknown kind {kind!r}; expected one of {HELP}")
    if not sep or kind not in KINDS or not target:
        raise ValueError(f"--detector {spec!r}: expected one of {HELP}")
    if kind == "vlm" and "@" not in target:
        raise ValueError(f"--detector {spec!r}: a VLM detector is vlm:MODEL@BASE_URL, e.g. "
                         "vlm:Qwen/Qwen2.5-VL-7B-Instruct@http://127.0.0.1:8000/v1")  # fmt: skip
    return DetectorSpec(kind, target)


def detections_file(target: str | Path, episode: str, view: str | None) -> Path:
    """The detections JSONL of ``episode`` (and ``view``) under a ``file:`` target (see the module docstring)."""
    root = Path(target)
    if root.is_file():
        return root
    if not root.is_dir():
        raise InputFileError(f"{root}: no such detections file or folder; give --detector file:PATH")
    names = [f"{episode}/detections.jsonl", f"{episode}.jsonl"]
    if view:
        names = [f"{episode}/detections_{view}.jsonl", names[0], f"{episode}_{view}.jsonl", names[1]]
    for name in names:
        if (root / name).is_file():
            return root / name
    raise InputFileError(f"{root}: no detections for episode {episode!r}"
                         f"{f' view {view!r}' if view else ''} (looked for {', '.join(names)}); "
                         "write one JSONL per video (and view) there")  # fmt: skip


def hf_detector(kind: str, folder: str | Path) -> Detector:
    """The Hugging Face detector ``kind`` (one of `HF_KINDS`) of a local weights folder."""
    if kind == "owlv2":
        from egoworld.perception.detectors.owlv2 import Owlv2Detector

        return Owlv2Detector(Path(folder))
    from egoworld.perception.detectors.grounding_dino import GroundingDinoDetector

    return GroundingDinoDetector(Path(folder))


def make_detector(spec: DetectorSpec, episode: str, view: str | None, fps: float) -> Detector:
    """The backend of ``spec`` for one video (``fps``: its frame rate, for frame-only rows)."""
    if spec.kind == "file":
        from egoworld.perception.detectors.from_file import FileDetector

        return FileDetector(detections_file(spec.target, episode, view), fps=fps)
    if spec.kind in HF_KINDS:
        return hf_detector(spec.kind, spec.target)
    from egoworld.models.openai_compat import OpenAICompatModel
    from egoworld.perception.detectors.vlm_boxes import VlmDetector

    model, _, url = spec.target.rpartition("@")
    return VlmDetector(OpenAICompatModel(model, base_url=url))


def create_detector(spec: str) -> Detector | str:
    """The `Detector` of ``spec`` for ``scene annotate`` (a bare ``"vlm"`` is returned as is: the caller pairs
    it with its VLM; a ``file:`` target is the detections file itself)."""
    if spec.strip() == "vlm":
        return "vlm"
    parsed = parse_detector(spec.strip())
    if parsed.kind == "vlm":
        raise ValueError(f"--detector {spec!r}: scene annotate asks its own VLM for boxes; give a bare 'vlm'")
    if parsed.kind == "file":
        from egoworld.perception.detectors.from_file import FileDetector

        return FileDetector(Path(parsed.target))
    return hf_detector(parsed.kind, parsed.target)
