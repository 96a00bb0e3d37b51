"""Routes of the human steps in `egoworld view`: review decisions, blind human answers and Beyond3D
visibility marks. Mixed into `ViewApp`, which provides ``render`` and the sessions."""

from __future__ import annotations

import time
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from egoworld.view import detail as details
from egoworld.view.causes import picked_causes
from egoworld.view.review import DECISIONS


class NotFound(Exception):
    """Answered with a 404 page that says what was not found."""


class HumanRoutes:
    review: Any
    review_bench: str | None
    human: Any
    audit: Any

    def render(self, name: str, **ctx: Any) -> Response: ...  # provided by ViewApp

    def _bench(self, request: Request) -> Any: ...

    def _sample(self, bv: Any, request: Request) -> Any: ...

    # -- human review -------------------------------------------------------------------------------------
    async def review_post(self, request: Request) -> Response:
        bv = self._bench(request)
        s = self._sample(bv, request)
        if self.review is None or bv.id != self.review_bench:
            return JSONResponse({"error": "not reviewing this benchmark (start with --review NAME)"}, 400)
        body = await request.json()
        action = str(body.get("decision", ""))
        if action == "undo":
            self.review.undo(s.id)
        elif action in DECISIONS:
            try:
                causes = picked_causes(s, body.get("causes")) if action == "reject" else []
            except ValueError as exc:
                return JSONResponse({"error": str(exc)}, 400)
            self.review.decide(s.id, action, str(body.get("reason", ""))[:2000], causes)
        else:
            return JSONResponse({"error": f"unknown decision {action!r}"}, 400)
        return JSONResponse({"state": self.review.current().get(s.id)})

    # -- human answers ------------------------------------------------------------------------------------
    async def answer_page(self, request: Request) -> Response:
        if self.human is None:
            raise NotFound("start with --answer NAME to answer questions")
        s = self.human.next_sample()
        done, total = self.human.progress()
        if s is None:
            return self.render("answer.html", s=None, done=done, total=total, out=self.human.out)
        return self.render(
            "answer.html",
            s=s,
            done=done,
            total=total,
            out=self.human.out,
            query_time=details.query_time(s),
            listed=details.listed_descr(s),
            started=time.time(),
        )

    async def answer_post(self, request: Request) -> Response:
        if self.human is None:
            raise NotFound("not in answer mode")
        body = await request.json()
        try:
            took = time.time() - float(body.get("started") or time.time())
            self.human.answer(str(body.get("sample", "")), str(body.get("answer", "")), max(0.0, took))
        except (KeyError, ValueError) as exc:
            return JSONResponse({"error": str(exc)}, 400)
        done, total = self.human.progress()
        return JSONResponse({"done": done, "total": total})

    # -- Beyond3D audit marks -----------------------------------------------------------------------------
    async def audit_page(self, request: Request) -> Response:
        if self.audit is None:
            raise NotFound("start with --audit NAME to mark visibility")
        nxt = self.audit.next_item()
        done, total = self.audit.progress()
        return self.render(
            "audit.html",
            item=nxt[1] if nxt else None,
            index=nxt[0] if nxt else None,
            done=done,
            total=total,
            marks=self.audit.marks,
        )

    async def audit_post(self, request: Request) -> Response:
        if self.audit is None:
            raise NotFound("not in audit mode")
        body = await request.json()
        try:
            index = int(body["index"])
            if not 0 <= index < len(self.audit.items):
                raise ValueError(f"no item {index}")
            self.audit.mark(index, bool(body["visible"]))
        except (KeyError, TypeError, ValueError) as exc:
            return JSONResponse({"error": str(exc)}, 400)
        done, total = self.audit.progress()
        return JSONResponse({"done": done, "total": total})

    def audit_frame(self, request: Request) -> Response:
        if self.audit is None or not 0 <= request.path_params["index"] < len(self.audit.items):
            raise NotFound("no such audit item")
        data, mime = self.audit.frame(request.path_params["index"])
        return Response(data, media_type=mime)
