"""World fields a question depends on (its provenance) and the fixes a review names for them.

A builder stores ``metadata["provenance"]``: a list of `FieldRef` rows, one per world field the gold answer
was derived from — ``{kind, episode, id, field, value}`` (+ ``view`` for per-view annotations). A reviewer who
rejects a question can name one of them as the cause, with the corrected value when they know it; `Fix`
is that pair, and `egoworld.world.fix` applies it to the world.

Kinds and where they live in an episode folder:

* ``appearance``: a row of ``media.extra["appearances"]`` (``id`` = object, ``view``); field ``intervals``
  (``[[start_s, end_s], …]``; ``[]`` = the object is not seen in that view).
* ``count``: the number of unique instances of category ``id`` in ``view`` — derived, so a new value needs
  a human to name which appearances are wrong.
* ``place_visit``: the rows of ``media.extra["place_visits"]`` of place ``id``; field ``visits``.
* ``pose``: the camera poses over ``span`` (seconds) around time ``id``; field ``flagged`` (``true`` =
  unreliable: stored in ``meta["pose_flags"]``, and builders skip questions whose span meets a flagged one).
* ``fixture`` / ``object`` / ``scene_object``: a row of ``fixtures.jsonl`` / ``objects.jsonl`` (``id``), or
  object ``id`` of the scene graph ``view``; ``field`` is a dotted path into the row (``box.center``,
  ``movements.0.end_s``, ``category``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Kind = Literal["appearance", "count", "place_visit", "pose", "fixture", "object", "scene_object"]
KINDS: tuple[str, ...] = Kind.__args__  # type: ignore[attr-defined]
#: kinds whose corrected value `egoworld world fix` can write without a human deciding more
FIXABLE = ("appearance", "place_visit", "pose", "fixture", "object", "scene_object")


class FieldRef(BaseModel):
    """One world field a question's gold depends on, with the value the builder read."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Kind
    episode: str = Field(min_length=1)
    id: str = Field(min_length=1)
    field: str = Field(min_length=1)
    value: Any = None
    view: str | None = None
    span: tuple[float, float] | None = Field(default=None, description="pose: the times the answer used")

    def key(self) -> tuple[str, str, str, str, str]:
        """What identifies the field (not its value)."""
        return (self.kind, self.episode, self.view or "", self.id, self.field)

    def where(self) -> str:
        """``kind id [in view]``: the row the field belongs to."""
        return f"{self.kind} {self.id}" + (f" in {self.view}" if self.view else "")

    def label(self, value: Any = None, *, new: bool = False) -> str:
        """``kind id [in view]: field = value`` (the reviewed value, or ``value`` when ``new``)."""
        return f"{self.where()}: {self.field} = {_short(value if new else self.value)}"


class Fix(BaseModel):
    """A review's cause: the field, and the corrected value (absent: a human must decide it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ref: FieldRef
    value: Any = None
    has_value: bool = False
    entry: str = Field(default="", description="where the cause was written (review file, entry)")
    note: str = ""


def ref(
    kind: str, episode: str, id: str, field: str, value: Any, view: str | None = None, **extra: Any
) -> dict[str, Any]:
    """A provenance row as builders store it (plain JSON, no defaults)."""
    row = FieldRef(kind=kind, episode=episode, id=id, field=field, value=value, view=view, **extra)  # type: ignore[arg-type]
    return row.model_dump(mode="json", exclude_none=True)


def provenance_of(metadata: dict[str, Any]) -> list[FieldRef]:
    """The `FieldRef` rows of a sample's metadata (none when the builder recorded none)."""
    return [FieldRef.model_validate(r) for r in metadata.get("provenance") or []]


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 80 else text[:77] + "…"
