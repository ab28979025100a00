"""The web application of ``gametree serve``: a Starlette app with a JSON API and the page.

Routes (all answers JSON but the page, its assets and the explorer):

==========================  ===============================================================
``GET /``                   the page (``gametree/serve/static``; no network, no CDN)
``GET /health``             ``{"status": "ok", ...}`` at once, whatever the searches do
``GET /api/games``          the installed games with their options, and the computer players
``GET /api/position``       ``?game=&options=&moves=``: board (SVG) or text, legal moves, turn, outcome
``POST /api/analyse``       ``{game, options, moves, budget}``: every legal move's value
``POST /api/move``          ``{game, options, moves, player, budget, seed}``: a computer's move
``GET /api/tree``           ``?game=&options=&moves=``: the search-tree explorer of the position
==========================  ===============================================================

A bad request is a 4xx with ``{"error": "one line"}``; an unexpected error a 500 with one line,
never a traceback.  Searches run in worker processes (:mod:`gametree.serve.pool`) within the
request's ``budget``; a request whose page went away stops its search.  A position of a game and
board a tier directory was given for (``WorkerSetup.tiers``, :mod:`gametree.serve.tiers`) is
analysed by the server from the arrays at once, without a worker.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import functools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from anyio import to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from ..plugin.manager import load
from ..store.tiers import TierFileError
from .pool import Busy, SearchPool, WorkerGone
from .positions import Catalogue, error_of
from .requests import BadRequest, PositionRequest, one_line, parse_analyse, parse_move, parse_position
from .tiers import TierShelf
from .work import (
    AnalyseJob,
    Analysis,
    Answer,
    ComputerMove,
    Failure,
    Job,
    MoveJob,
    MoveReport,
    Source,
    TreeJob,
    TreePage,
    WorkerSetup,
    add_books,
    stored_analysis,
    tier_analysis,
)

if TYPE_CHECKING:
    from ..store import SolutionStore

__all__ = ["GRACE", "MAX_BODY", "SafeJSON", "TREE_SECONDS", "make_app"]

#: Seconds past its budget a worker has to answer before it is killed.
GRACE = 0.6
#: The time a search keeps for building its answer and sending it (taken off the budget).
MARGIN = 0.15
#: Seconds a tree page may take.
TREE_SECONDS = 10.0
#: The largest request body accepted, in bytes.
MAX_BODY = 64 * 1024
#: The page's content security policy: its own scripts and styles only (no inline script runs).
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
#: The explorer's policy: it is one self-contained page (inline d3, script and styles), reaching nothing.
TREE_POLICY = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"


class SafeJSON(JSONResponse):
    """JSON with ``<``, ``>`` and ``&`` written as ``\\u003c``...: a game's name or a move carrying HTML
    stays inert even where a browser would sniff the answer as HTML."""

    def render(self, content: object) -> bytes:
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode("utf-8")


_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


def _error(message: str, status: int) -> JSONResponse:
    return SafeJSON({"error": one_line(message)}, status_code=status, headers=_HEADERS)


def _json(data: object) -> JSONResponse:
    return SafeJSON(data, headers=_HEADERS)


async def _body(request: Request) -> Mapping[str, object]:
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise BadRequest(f"the request body is over {MAX_BODY // 1024} KB", 413)
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise BadRequest(f"the request body is over {MAX_BODY // 1024} KB", 413)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # (RecursionError: nested too deep)
        raise BadRequest("the body is not JSON (or nested too deep)") from None
    if not isinstance(data, dict):
        raise BadRequest("the body is not a JSON object")
    return data


async def _until_disconnected(request: Request) -> None:
    while not await request.is_disconnected():
        await asyncio.sleep(0.1)


class _StoreReader:
    """The server's own reads of the store, in one thread of their own (a SQLite connection is used
    by the thread that opened it): positions whose every move is proven are answered at once."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="gametree-store")
        self.opened: SolutionStore | None = None

    def _read(self, catalogue: Catalogue, position: PositionRequest) -> Analysis | None:
        from ..game import Configurable
        from ..store import SolutionStore

        made = catalogue.make(position)
        if self.path is None or not isinstance(made.game, Configurable):
            return None
        if self.opened is None:
            self.opened = SolutionStore(self.path)
        found = stored_analysis(made, self.opened.entries_of(made.spec.name, dict(made.game.options())))
        return None if found is None else dataclasses.replace(found, algorithm="store")

    async def lookup(self, catalogue: Catalogue, position: PositionRequest) -> Analysis | None:
        if self.path is None:
            return None
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.thread, self._read, catalogue, position)
        except Exception:  # noqa: BLE001 (a store that cannot be read now: the workers search)
            return None

    def close(self) -> None:
        def close() -> None:
            if self.opened is not None:
                self.opened.close()

        self.thread.submit(close)
        self.thread.shutdown(wait=True)


@dataclasses.dataclass
class _Shared:
    """A job under way and how many requests wait for it."""

    task: asyncio.Future[Answer]
    waiters: int = 0


class _Server:
    """The routes' shared state: the catalogue of games and the pool of search workers."""

    def __init__(self, setup: WorkerSetup, workers: int) -> None:
        self.catalogue = Catalogue(load(extra=setup.plugins))
        #: The tier directories, checked here (a wrong one: a TierFileError before the app is made).
        self.tiers = TierShelf(self.catalogue.registry, setup.tiers)
        self.pool = SearchPool(setup, workers)
        self.store = _StoreReader(setup.store)
        #: Jobs under way that requests with the same key share.
        self.shared: dict[object, _Shared] = {}

    async def _in_worker(
        self, request: Request, make_job: Callable[[float], Job], deadline: float, key: object = None
    ) -> Answer | None:
        """The answer of a job (None: the page went away, and the search was stopped if nobody else
        waits for it).  Requests with the same ``key`` (not None) at the same time share one job: a
        class opening the same position gets one whole search rather than thirty slivers."""
        shared = self.shared.get(key) if key is not None else None
        if shared is None:
            shared = _Shared(asyncio.ensure_future(self.pool.run(make_job, deadline, GRACE)))
            if key is not None:
                self.shared[key] = shared
                shared.task.add_done_callback(lambda _: self._forget(key, shared))
        shared.waiters += 1
        watch = asyncio.ensure_future(_until_disconnected(request))
        waited: set[asyncio.Future[Any]] = {shared.task, watch}
        try:
            done, _ = await asyncio.wait(waited, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            done = set()
            raise
        finally:
            shared.waiters -= 1
            watch.cancel()
            if shared.task not in done and shared.waiters == 0:
                shared.task.cancel()  # (nobody waits for it any more: its worker is ended)
        if shared.task not in done:
            with contextlib.suppress(BaseException):
                await shared.task
            return None
        return shared.task.result()

    def _forget(self, key: object, shared: _Shared) -> None:
        if self.shared.get(key) is shared:
            del self.shared[key]

    def _unsearched(self, position: PositionRequest, source: Source, text: str) -> Analysis:
        made = self.catalogue.make(position)
        game, state = made.game, made.state
        moves = tuple(
            MoveReport(game.format_move(state, m), "unknown", "?", text, False) for m in game.legal_moves(state)
        )
        return Analysis(moves, "unknown", text, False, source, "", 0.0, game.to_move(state))

    async def analyse(self, request: Request) -> Response:
        loop = asyncio.get_running_loop()
        started = loop.time()
        parsed = parse_analyse(await _body(request))
        # A bad position is a 4xx at once (in a thread: a huge one, a million legal moves, takes a while).
        made = await to_thread.run_sync(self.catalogue.checked, parsed.position)
        if self.tiers.books:  # (read from the arrays, in a thread: a tier's first use checks its file)
            try:
                from_tiers = await to_thread.run_sync(tier_analysis, self.tiers, made)
            except TierFileError as exc:  # (a tier file damaged since the start)
                return _error(str(exc), 500)
            if from_tiers is not None:
                return self._answer(from_tiers)
        stored = await self.store.lookup(self.catalogue, parsed.position)
        if stored is not None:  # (proven before: at once, without waiting for a worker)
            return self._answer(stored)
        deadline = started + parsed.budget - MARGIN
        try:
            job = functools.partial(AnalyseJob, parsed)
            answer = await self._in_worker(request, job, deadline, key=("analyse", parsed))
        except Busy:
            answer = self._unsearched(parsed.position, "busy", "not searched: every search worker was busy")
        except TimeoutError:
            answer = self._unsearched(parsed.position, "timeout", f"not proven in {parsed.budget:g} s")
        except WorkerGone as exc:
            return _error(str(exc), 503)
        return self._answer(answer)

    async def move(self, request: Request) -> Response:
        loop = asyncio.get_running_loop()
        started = loop.time()
        parsed = parse_move(await _body(request))
        await to_thread.run_sync(self.catalogue.checked, parsed.position)
        try:
            answer = await self._in_worker(request, lambda s: MoveJob(parsed, s), started + parsed.budget)
        except Busy:
            return _error("every search worker is busy: try again", 503)
        except TimeoutError:
            return _error(f"player {parsed.player} did not move within {parsed.budget + GRACE:g} s", 503)
        except WorkerGone as exc:
            return _error(str(exc), 503)
        return self._answer(answer)

    async def tree(self, request: Request) -> Response:
        loop = asyncio.get_running_loop()
        position = parse_position(dict(request.query_params))
        await to_thread.run_sync(self.catalogue.checked, position)
        try:
            answer = await self._in_worker(request, lambda s: TreeJob(position, s), loop.time() + TREE_SECONDS)
        except Busy:
            return _error("every search worker is busy: try again", 503)
        except TimeoutError:
            return _error(f"the tree took longer than {TREE_SECONDS:g} s", 503)
        except WorkerGone as exc:
            return _error(str(exc), 503)
        if isinstance(answer, TreePage):
            return HTMLResponse(answer.html, headers={"Content-Security-Policy": TREE_POLICY})
        return self._answer(answer)

    @staticmethod
    def _answer(answer: Answer | None) -> Response:
        if answer is None:
            return Response(status_code=499)  # (the page is gone: nobody reads this)
        if isinstance(answer, Failure):
            return _error(answer.message, answer.status)
        if isinstance(answer, Analysis | ComputerMove):
            return _json(dataclasses.asdict(answer))
        return _error("unexpected answer", 500)

    async def position(self, request: Request) -> Response:
        parsed = parse_position(dict(request.query_params))
        return _json(await to_thread.run_sync(self.catalogue.report, parsed))

    async def games(self, request: Request) -> Response:
        return _json({"games": self.catalogue.games(), "players": self.catalogue.players()})

    async def health(self, request: Request) -> Response:
        pool = self.pool
        return _json({"status": "ok", "workers": len(pool.workers), "busy": pool.busy, "queued": pool.queued})


def _page_file(name: str) -> Callable[[Request], Awaitable[Response]]:
    from importlib import resources

    async def page(request: Request) -> Response:
        text = resources.files("gametree.serve").joinpath("static", name).read_text(encoding="utf-8")
        return HTMLResponse(text, headers={"Content-Security-Policy": PAGE_POLICY, "Cache-Control": "no-cache"})

    return page


async def _no_icon(request: Request) -> Response:
    return Response(status_code=204)


async def _bad_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, BadRequest)
    return _error(exc.message, exc.status)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _error(str(exc.detail), exc.status_code)


async def _unexpected(request: Request, exc: Exception) -> Response:
    return _error(f"unexpected {error_of(exc)}", 500)


class _Static(StaticFiles):
    """The page's assets, with the headers the page's own have."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Cache-Control"] = "no-cache"
        return response


def make_app(setup: WorkerSetup, *, workers: int = 2) -> Starlette:
    """The application: ``setup`` for the worker processes (plugins, store, tier directories), at most
    ``workers`` of them; a tier directory that cannot be used is a
    :class:`gametree.store.tiers.TierFileError` here, before any worker starts."""
    server = _Server(setup, workers)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await to_thread.run_sync(add_books, setup.store, server.catalogue.registry)
        warming = asyncio.ensure_future(server.pool.warm(workers))
        try:
            yield
        finally:
            warming.cancel()
            server.pool.close()
            server.store.close()

    routes = [
        Route("/", _page_file("index.html")),
        Route("/health", server.health),
        Route("/favicon.ico", _no_icon),
        Route("/api/games", server.games),
        Route("/api/position", server.position),
        Route("/api/analyse", server.analyse, methods=["POST"]),
        Route("/api/move", server.move, methods=["POST"]),
        Route("/api/tree", server.tree),
        Mount("/static", _Static(packages=[("gametree.serve", "static")]), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={BadRequest: _bad_request, HTTPException: _http_error, Exception: _unexpected},
    )
    app.state.server = server
    return app
