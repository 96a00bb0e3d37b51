"""The one error type of the media engine: it names the file, the frame and the fix."""

from __future__ import annotations

from pathlib import Path

from egoworld.core.folders.files import InputFileError


class MediaError(InputFileError):
    """A video or image that cannot be read as asked.

    The message names the file, the frame (when one is concerned) and what to do about it. It is an
    `InputFileError`, so the runner records the sample as an error row and goes on with the others.
    """

    def __init__(self, path: str | Path, reason: str, *, frame: int | None = None, fix: str | None = None):
        self.path = str(path)
        self.frame = frame
        where = f"{self.path}" + (f", frame {frame}" if frame is not None else "")
        fix = (
            fix
            or "re-encode the file (e.g. `ffmpeg -i IN -c:v libx264 -pix_fmt yuv420p OUT.mp4`) or replace it"
        )
        super().__init__(f"{where}: {reason}; fix: {fix}")
        self.reason = reason
