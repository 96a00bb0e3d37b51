"""`egoworld view --scene DIR --review NAME`: correct an annotated scene object by object (the image with
its boxes, each object's fields and relations: accept / edit / delete / add, undo). Mixed into `ViewApp`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from egoworld.core.folders.hashing import sha256_file
from egoworld.view.human_routes import NotFound
from egoworld.view.scene_review import OPS, SceneLog, default_scene_log, next_id, replay
from egoworld.world.scene_file import SCENE_FILE, load_scene


class SceneSession:
    """One scene folder under review by one reviewer."""

    def __init__(self, folder: str | Path, reviewer: str, log_file: str | Path | None = None):
        self.folder = Path(folder)
        self.base = load_scene(self.folder / SCENE_FILE)
        self.log = SceneLog(
            log_file or default_scene_log(self.folder, reviewer),
            reviewer=reviewer,
            scene_hash=sha256_file(self.folder / SCENE_FILE),
        )

    def current(self) -> tuple[Any, dict[str, str]]:
        return replay(self.base, self.log.live())

    def image(self, k: int) -> Path:
        if not 0 <= k < len(self.base.images):
            raise NotFound(f"no image {k}")
        return self.folder / self.base.images[k]

    def edit(self, body: dict[str, Any]) -> None:
        op = str(body.get("op", ""))
        if op == "undo":
            self.log.undo()
            return
        if op not in OPS:
            raise ValueError(f"unknown edit {op!r}")
        value = body.get("value") or {}
        if not isinstance(value, dict):
            raise ValueError("'value' must be an object")
        oid = str(body.get("object", ""))
        if op == "add":
            scene, _ = self.current()
            oid = next_id(scene, str(value.get("category", "")))
        replay(
            self.current()[0], [{"id": 0, "object": oid, "op": op, "value": value}]
        )  # refuse what cannot apply
        self.log.add(oid, op, value)

    def close(self) -> None:
        self.log.close()


class SceneRoutes:
    scene: Any

    def render(self, name: str, **ctx: Any) -> Response: ...  # provided by ViewApp

    async def scene_page(self, request: Request) -> Response:
        if self.scene is None:
            raise NotFound("start with --scene DIR --review NAME to correct a scene")
        scene, state = self.scene.current()
        deleted = [o for o in self.scene.base.objects if state.get(o["id"]) == "deleted"]
        return self.render(
            "scene.html",
            scene=scene,
            state=state,
            deleted=deleted,
            folder=self.scene.folder,
            log=self.scene.log.path,
            edits=len(self.scene.log.live()),
        )

    async def scene_post(self, request: Request) -> Response:
        if self.scene is None:
            raise NotFound("not correcting a scene")
        body = await request.json()
        try:
            self.scene.edit(body if isinstance(body, dict) else {})
        except (ValueError, KeyError) as exc:
            return JSONResponse({"error": str(exc)}, 400)
        return JSONResponse({"edits": len(self.scene.log.live())})

    async def scene_image(self, request: Request) -> Response:
        if self.scene is None:
            raise NotFound("not correcting a scene")
        return FileResponse(self.scene.image(int(request.path_params["k"])))
