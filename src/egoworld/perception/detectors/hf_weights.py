"""A Hugging Face zero-shot detector from a local weights folder (no download, ever): the folder checked
when the detector is made, the model loaded at first use, frames run through it in one batch, and its boxes
clipped to the image and reduced per label (`nms`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from egoworld.core.folders.files import InputFileError, read_json_object
from egoworld.perception.detectors.detector import Detection, Frame, clip_box
from egoworld.perception.detectors.nms import per_label_nms
from egoworld.perception.provenance import Provenance

WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)


def check_weights_folder(folder: str | Path, model_type: str, example: str) -> Path:
    """``folder`` when it holds a ``config.json`` of ``model_type`` and weights; else an `InputFileError`
    naming the folder and how to fill it (``example``: a hub id to download on a machine with internet)."""

    folder = Path(folder)
    fix = (
        f"download the weights into it on a machine with internet, e.g. "
        f"`hf download {example} --local-dir {folder}`, and copy the folder here"
    )
    if not folder.is_dir():
        raise InputFileError(f"{folder}: no such weights folder; {fix}")
    config = folder / "config.json"
    if not config.exists():
        raise InputFileError(f"{folder}: no config.json in the weights folder; {fix}")
    if not any((folder / name).is_file() for name in WEIGHT_FILES):
        raise InputFileError(f"{folder}: no weights ({' or '.join(WEIGHT_FILES[::2])}) in the folder; {fix}")
    found = read_json_object(config, " (the model's config.json)").get("model_type")
    if found != model_type:
        raise InputFileError(f"{config}: model_type is {found!r}, this backend reads {model_type!r}; {fix}")
    return folder


def load_detector(folder: Path, device: str | None) -> tuple[Any, Any, str]:
    """(processor, model in eval mode, device) from a checked folder; device ``None`` = CUDA when present."""
    import torch
    from transformers import AutoModelForZeroShotObjectDetection, AutoProcessor

    dev = device or ("cuda" if torch.cuda.is_available() else "cpu")
    processor = AutoProcessor.from_pretrained(folder, local_files_only=True)
    model = AutoModelForZeroShotObjectDetection.from_pretrained(folder, local_files_only=True)
    return processor, model.to(dev).eval(), dev


@dataclass
class HFDetector(ABC):
    """The part OWLv2 and Grounding DINO share; a backend names its config ``MODEL_TYPE``, a hub id to
    download (``EXAMPLE``), its ``settings()`` (provenance) and how it turns frames into detections."""

    MODEL_TYPE: ClassVar[str]
    EXAMPLE: ClassVar[str]

    folder: Path
    _: KW_ONLY
    nms_iou: float = 0.5
    device: str | None = None
    name: str = ""
    _loaded: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.folder = check_weights_folder(self.folder, self.MODEL_TYPE, self.EXAMPLE)

    @abstractmethod
    def settings(self) -> dict[str, Any]:
        """The detector's settings, as its provenance records them."""

    def provenance(self) -> Provenance:
        return Provenance(self.name, "transformers", self.settings(), weights=self.folder.name)

    def loaded(self) -> tuple[Any, Any, str]:
        """(processor, model, device), loaded once."""
        if self._loaded is None:
            self._loaded = load_detector(self.folder, self.device)
        return self._loaded

    def forward(self, frames: Sequence[Frame], text: Any) -> Any:
        """The model's outputs for ``frames``, each with the text query ``text``."""
        import torch
        from PIL import Image

        processor, model, dev = self.loaded()
        images = [Image.fromarray(f.image) for f in frames]
        inputs = processor(images=images, text=[text] * len(images), return_tensors="pt").to(dev)
        with torch.no_grad():
            return model(**inputs)

    def kept(self, boxes: Iterable[tuple[Sequence[float], str, float]], frame: Frame) -> list[Detection]:
        """``(box, label, score)`` clipped to the frame (empty boxes dropped), then per-label NMS."""
        h, w = frame.image.shape[:2]
        dets = []
        for box, label, score in boxes:
            clipped = clip_box(box, w, h)
            if clipped is not None:
                dets.append(Detection(label, clipped, score))
        return per_label_nms(dets, self.nms_iou)
