"""Loading a Hugging Face zero-shot detector from a local weights folder (no download, ever)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from egoworld.core.files import InputFileError, read_json_object

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
