"""The `egoworld view` web app (Starlette + Jinja2): overview, sample list, sample page, compare, human
review and human answers. Every string from a file or a model goes through Jinja2's autoescaping."""

from __future__ import annotations

import contextlib
import secrets
import tempfile
import time
from collections.abc import AsyncIterator
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from egoworld.core.letters import letters_for
from egoworld.view import detail as details
from egoworld.view import page_stats as stats
from egoworld.view.causes import cause_choices
from egoworld.view.human import HumanRun
from egoworld.view.human_routes import HumanRoutes, NotFound
from egoworld.view.media import MediaSource, video_file
from egoworld.view.queries import SampleFilter, list_samples
from egoworld.view.review import DECISIONS, ReviewLog
from egoworld.view.scene_routes import SceneRoutes
from egoworld.view.workspace import VERDICTS, BenchView, RunView, Workspace

STATIC = Path(__file__).parent / "static"


_NotFound = NotFound


def _env() -> Environment:
    env = Environment(
        loader=PackageLoader("egoworld.view", "templates"), autoescape=select_autoescape(["html"])
    )
    env.filters["pct"] = lambda v, d=1: "—" if v is None else f"{float(v):.{d}f}"
    env.filters["clock"] = lambda v: "" if v is None else time.strftime("%H:%M:%S", time.gmtime(float(v)))
    env.globals["letters_for"] = letters_for
    env.globals["urlencode"] = urlencode
    return env


class _Token(BaseHTTPMiddleware):
    """With ``--host`` open beyond this machine: every request carries ``?token=`` or the cookie it sets."""

    def __init__(self, app: Any, token: str):
        super().__init__(app)
        self.token = token

    async def dispatch(self, request: Request, call_next: Any) -> Response:
        given = request.query_params.get("token") or request.cookies.get("egoworld_token")
        if not given or not secrets.compare_digest(given, self.token):
            return HTMLResponse("forbidden: open the URL with ?token=… that `egoworld view` printed", 403)
        response = await call_next(request)
        if request.query_params.get("token"):
            response.set_cookie("egoworld_token", self.token, httponly=True, samesite="strict")
        return response


def default_baseline(runs: list[RunView], named: list[Path]) -> RunView | None:
    """The compare page's baseline when none is asked for: the first run named on the command line; runs
    found by scanning a folder (in name order) give the first that is not an ``oracle``, whose every
    difference would be negative."""
    given = {Path(p).resolve() for p in named}
    first_named = next((r for r in runs if Path(r.dir).resolve() in given), None)
    if first_named is not None:
        return first_named
    plain = next((r for r in runs if r.manifest.get("model_spec") != "oracle"), None)
    return plain or (runs[0] if runs else None)


class ViewApp(HumanRoutes, SceneRoutes):
    """Routes over one `Workspace`; optional review log (``--review``) or human run (``--answer``)."""

    def __init__(
        self,
        workspace: Workspace | None,
        *,
        review: ReviewLog | None = None,
        review_bench: str | None = None,
        human: HumanRun | None = None,
        audit: Any = None,
        scene: Any = None,
        token: str | None = None,
        baseline: Path | None = None,
    ):
        self.ws = workspace
        self.baseline = Path(baseline).resolve() if baseline is not None else None
        self.review = review
        self.review_bench = review_bench
        self.human = human
        self.audit = audit
        self.scene = scene
        self.media = MediaSource()
        self.env = _env()
        self._plots: dict[tuple[str, bool], bytes] = {}
        self._sections: dict[str, list[Any]] = {}
        self._stores: dict[str, details.OpenStore] = {}  # run id → its store, opened by the first sample page
        self._plot_dir = tempfile.TemporaryDirectory(prefix="egoworld-view-")
        (Path(self._plot_dir.name) / "plots").mkdir()
        routes = [
            Route("/", self.overview),
            Route("/plot/{bench}.png", self.plot),
            Route("/b/{bench}/samples", self.samples),
            Route("/b/{bench}/s/{sample:path}", self.sample),
            Route("/b/{bench}/compare", self.compare),
            Route("/b/{bench}/analyses", self.analyses),
            Route("/b/{bench}/leaderboard", self.leaderboard),
            Route("/b/{bench}/video/{sample:path}", self.video),
            Route("/b/{bench}/listed/{k:int}/{sample:path}", self.listed),
            Route("/r/{run}/part/{sha}/{sample:path}", self.sent_part),
            Route("/review/{bench}/{sample:path}", self.review_post, methods=["POST"]),
            Route("/answer", self.answer_page),
            Route("/answer", self.answer_post, methods=["POST"]),
            Route("/audit", self.audit_page),
            Route("/audit", self.audit_post, methods=["POST"]),
            Route("/audit/frame/{index:int}", self.audit_frame),
            Route("/scene", self.scene_page),
            Route("/scene", self.scene_post, methods=["POST"]),
            Route("/scene/image/{k:int}", self.scene_image),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
            Mount("/plots", StaticFiles(directory=Path(self._plot_dir.name) / "plots"), name="plots"),
        ]
        middleware = [Middleware(_Token, token=token)] if token else []

        @contextlib.asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            yield
            self.close()

        self.app = Starlette(
            routes=routes,
            middleware=middleware,
            lifespan=lifespan,
            exception_handlers={_NotFound: _not_found, HTTPException: _http_error},
        )

    def close(self) -> None:
        self.media.close()
        for store in self._stores.values():
            store.close()
        self._stores.clear()
        self._plot_dir.cleanup()
        if self.review:
            self.review.close()
        if self.human:
            self.human.close()
        if self.audit:
            self.audit.close()
        if self.scene:
            self.scene.close()

    # -- helpers ------------------------------------------------------------------------------------------
    def render(self, name: str, **ctx: Any) -> HTMLResponse:
        ctx.setdefault("ws", self.ws)
        ctx.setdefault("review_mode", self.review is not None)
        ctx.setdefault("answer_mode", self.human is not None)
        return HTMLResponse(self.env.get_template(name).render(**ctx))

    def _bench(self, request: Request) -> BenchView:
        if self.ws is None:
            raise _NotFound("no benchmarks in answer mode")
        try:
            return self.ws.bench(request.path_params["bench"])
        except KeyError as exc:
            raise _NotFound(f"no benchmark {request.path_params['bench']!r}") from exc

    def _sample(self, bv: BenchView, request: Request):
        sid = request.path_params["sample"]
        try:
            return bv.bench.sample(sid)
        except KeyError as exc:
            raise _NotFound(f"no sample {sid!r} in {bv.bench.name}") from exc

    def _store(self, run: Any) -> details.OpenStore:
        if run.id not in self._stores:
            self._stores[run.id] = details.OpenStore(run)
        return self._stores[run.id]

    def palette(self) -> contextlib.AbstractContextManager[dict[str, str]]:
        """One colour per model in every plot the viewer draws (the runs' order across benchmarks)."""
        from egoworld.render.palette import model_of, report_palette

        return report_palette(model_of(r.summary) for r in (self.ws.runs.values() if self.ws else ()))

    def _reviews(self, bv: BenchView) -> dict[str, dict[str, Any]] | None:
        if self.review is None or bv.id != self.review_bench:
            return None
        return self.review.current()

    # -- pages --------------------------------------------------------------------------------------------
    async def overview(self, request: Request) -> Response:
        if self.ws is None:
            return RedirectResponse("/audit" if self.audit else "/scene" if self.scene else "/answer", 303)
        common = request.query_params.get("common") == "1"
        blocks = []
        for bv in self.ws.benches.values():
            differ = stats.question_sets_differ(bv)
            blocks.append(
                {
                    "bv": bv,
                    "differ": differ,
                    "table": stats.overview(bv, common and differ) if bv.runs else None,
                    "sets": [(r, len(stats.answered_ids(r))) for r in bv.runs],
                }
            )
        return self.render("overview.html", blocks=blocks, common=common)

    def sections(self, bv: BenchView) -> list[Any]:
        """The report's tables for this benchmark: Shuffle24 diagnostics and the plug-in's analyses."""
        if bv.id not in self._sections:
            from egoworld.core.plugin import ReportSection, plugin_for
            from egoworld.render import html, tables

            out: list[Any] = []
            if bv.runs:
                sums = [r.summary for r in bv.runs]
                labels = [r.label for r in bv.runs]
                shuffle = tables.shuffle_table(sums, labels)
                if len(shuffle) > 1:
                    out.append(
                        ReportSection("Shuffle24 (all 24 option orders)", "", html.table_html(shuffle))
                    )
                hook = plugin_for(bv.bench.name).report_sections
                if hook is not None:
                    try:
                        with self.palette():
                            out += hook(sums, [r.dir for r in bv.runs], labels, Path(self._plot_dir.name))
                    except Exception as exc:  # an analysis that cannot run on these runs: say why
                        out.append(ReportSection("Analyses", "", f"<p class=warn>{escape(str(exc))}</p>"))
            # plug-ins link their plots relative to a report folder; here they are served under /plots/
            self._sections[bv.id] = [
                ReportSection(x.title, x.markdown, x.html.replace('src="plots/', 'src="/plots/')) for x in out
            ]
        return self._sections[bv.id]

    def analyses(self, request: Request) -> Response:
        bv = self._bench(request)
        return self.render("analyses.html", bv=bv, sections=self.sections(bv))

    def leaderboard(self, request: Request) -> Response:
        """The paper's table over this benchmark's runs (`egoworld leaderboard`); ``?allow=1`` compares runs
        that answered different questions on the shared ones, ``?seed=N`` seeds the tie bootstrap."""
        from egoworld.core.folders.files import InputFileError
        from egoworld.render.board_formats import html as board_html
        from egoworld.scoring.leaderboard import build_board, entry

        bv = self._bench(request)
        allow = request.query_params.get("allow") == "1"
        seed = int(request.query_params.get("seed", "0") or 0)
        table = error = None
        try:
            runs = [r.dir for r in bv.runs if (r.dir / "scores.jsonl").is_file()]
            table = board_html(build_board([entry(r) for r in runs], allow_different=allow, seed=seed))
        except (InputFileError, ValueError) as exc:
            error = str(exc)
        return self.render("leaderboard.html", bv=bv, table=table, error=error, allow=allow)

    async def plot(self, request: Request) -> Response:
        bv = self._bench(request)
        common = request.query_params.get("common") == "1" and stats.question_sets_differ(bv)
        key = (bv.id, common)
        if key not in self._plots:
            with self.palette():
                self._plots[key] = _overview_plot(bv, stats.overview(bv, common))
        return Response(self._plots[key], media_type="image/png")

    async def samples(self, request: Request) -> Response:
        bv = self._bench(request)
        reviews = self._reviews(bv)
        by_doubt = reviews is not None and bv.bench.has_doubt()  # a review offers the most doubtful first
        f = SampleFilter.from_query(request.query_params, "doubt" if by_doubt else "file")
        page = list_samples(
            bv, f, {k: v["decision"] for k, v in reviews.items()} if reviews is not None else None
        )
        return self.render(
            "samples.html",
            bv=bv,
            f=f,
            page=page,
            verdicts=VERDICTS,
            groups=bv.groups(),
            videos=bv.bench.videos(),
            reviewing=reviews is not None,
        )

    async def sample(self, request: Request) -> Response:
        bv = self._bench(request)
        s = self._sample(bv, request)
        runs = [details.run_detail(r, s, self._store(r)) for r in bv.runs]
        text_only = bool(runs) and all(
            (d.run.manifest.get("inputs") or {}).get("setting", "text") == "text" for d in runs
        )
        missing = details.missing_media(bv.bench, s)
        listed = [] if missing else details.listed_descr(s)
        reviews = self._reviews(bv)
        prev_id, next_id = bv.bench.neighbours(s.id, by_doubt=reviews is not None and bv.bench.has_doubt())
        return self.render(
            "sample.html",
            bv=bv,
            s=s,
            runs=runs,
            text_only=text_only,
            gold=details.gold_text(s),
            query_time=details.query_time(s),
            listed=listed,
            missing=missing,
            trajectory=details.trajectory(bv, s),
            panels=details.viewer_panels(s),
            review=(reviews or {}).get(s.id) if reviews is not None else None,
            reviewing=reviews is not None,
            history=self.review.history(s.id) if reviews is not None and self.review else [],
            causes=cause_choices(s) if reviews is not None else [],
            decisions=DECISIONS,
            prev_id=prev_id,
            next_id=next_id,
        )

    async def compare(self, request: Request) -> Response:
        bv = self._bench(request)
        chosen = request.query_params.getlist("runs") or [r.id for r in bv.runs]
        runs = [r for r in bv.runs if r.id in chosen]
        given = request.query_params.get("baseline")
        base = next((r for r in bv.runs if r.id == given), None) if given else None
        if base is None and self.baseline is not None:  # `egoworld view --baseline RUN`
            base = next((r for r in bv.runs if Path(r.dir).resolve() == self.baseline), None)
        if base is None and request.query_params.getlist("runs"):  # the first run ?runs= names
            by_id = {r.id: r for r in bv.runs}
            base = next((by_id[c] for c in chosen if c in by_id), None)
        if base is None:
            base = default_baseline(runs, self.ws.paths if self.ws else [])
        if base is not None and base not in runs:
            runs = [base, *runs]
        return self.render(
            "compare.html",
            bv=bv,
            runs=runs,
            chosen=set(chosen),
            baseline=base,
            paired=stats.paired(bv, runs, base),
            confusions=stats.confusions(bv, runs),
            orders=stats.order_accuracy(runs),
            videos=stats.per_video(bv, runs),
            differ=len({frozenset(stats.answered_ids(r)) for r in runs}) > 1,
        )

    # -- media --------------------------------------------------------------------------------------------
    def _bench_any(self, request: Request):
        if self.ws is not None:
            bv = self._bench(request)
            return bv.bench, self._sample(bv, request)
        assert self.human is not None
        if request.path_params["bench"] != "answer":
            raise _NotFound("unknown benchmark")
        try:
            return self.human.bench, self.human.sample(request.path_params["sample"])
        except KeyError as exc:
            raise _NotFound("unknown sample") from exc

    async def video(self, request: Request) -> Response:
        bench, s = self._bench_any(request)
        path = video_file(bench, s)
        if path is None:
            raise _NotFound("this sample has no video file")
        return FileResponse(path, media_type="video/mp4")

    def listed(self, request: Request) -> Response:
        bench, s = self._bench_any(request)
        try:
            parts = self.media.listed(bench, s)
        except Exception as exc:  # a missing or unreadable video: say so in place of the image
            raise _NotFound(f"could not decode the frames of {s.id}: {exc}") from exc
        k = request.path_params["k"]
        if not 0 <= k < len(parts):
            raise _NotFound("no such frame")
        return Response(parts[k].load(), media_type=parts[k].mime)

    def sent_part(self, request: Request) -> Response:
        if self.ws is None or request.path_params["run"] not in self.ws.runs:
            raise _NotFound("unknown run")
        run = self.ws.runs[request.path_params["run"]]
        bv = self.ws.bench_of(run)
        s = self._sample(bv, request)
        try:
            got = self.media.sent_part(
                bv.bench, s, run.manifest.get("inputs") or {}, request.path_params["sha"]
            )
        except Exception as exc:  # a missing or unreadable video: say so in place of the image
            raise _NotFound(f"could not rebuild the inputs of {s.id}: {exc}") from exc
        if got is None:
            raise _NotFound("that part could not be rebuilt (media or settings changed since the run)")
        return Response(got[0], media_type=got[1])


def _overview_plot(bv: BenchView, table: dict[str, Any]) -> bytes:
    from egoworld.render.plots import task_bars

    sums, labels = [], []
    for row in table["rows"]:
        tasks = {}
        for t in table["tasks"]:
            c = row["cells"].get(t)
            if c:
                tasks[t] = {
                    "metric": "v",
                    "v": c["value"],
                    "ci95": [c["lo"], c["hi"]],
                    "chance": table["chance"].get(t),
                }
        o = row["cells"].get("Overall") or {}
        sums.append(
            {
                "benchmark": bv.bench.name,
                "model_spec": row["run"].summary.get("model_spec"),
                "task_order": table["tasks"],
                "tasks": tasks,
                "overall": o.get("value"),
                "overall_ci95": [o.get("lo"), o.get("hi")],
            }
        )
        labels.append(row["run"].label)
    with tempfile.TemporaryDirectory() as tmp:
        path = task_bars(sums, labels, Path(tmp) / "bars.png")
        return path.read_bytes()


def create_app(view: ViewApp) -> Starlette:
    return view.app


async def _not_found(request: Request, exc: Exception) -> Response:
    return HTMLResponse(f"<h1>not found</h1><p>{escape(str(exc))}</p>", 404)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return HTMLResponse(escape(str(exc.detail)), exc.status_code)
