"""Solving in parallel: local worker processes or a Dask cluster.

The tree is split at a shallow ply: every position ``split_ply`` moves below
the root that is not over yet is a *subproblem*, and positions that are the
same under the game's symmetries (equal ``canonical_key``) are solved once.
Each subproblem gets its exact depth-aware score from the ``solver`` or
``alphabeta`` algorithm in a worker; the scores are then combined over the
few plies above with the same negamax rule the search uses, so the root's
value, score and the value of every root move equal a single-process solve.

Workers keep one transposition table per process (per thread on Dask) from
one subproblem to the next, so work shared between subproblems
(transpositions) is mostly done once per worker.

The principal variation above the split follows the first best move in the
game's order; below it, a subproblem's own line, carried over to the actual
position when the solved one was a symmetric image (move by move, choosing
the successor with the same canonical key).

>>> from gametree import load, play_text, solver
>>> game = load().game("tictactoe").create(size=3)
>>> state = play_text(game, "B2")
>>> result = solve_parallel(game, state, workers=1)
>>> single = solver(game, state)
>>> (result.value, result.score) == (single.value, single.score)
True
>>> [(m.move, m.score) for m in result.move_values] == [(m.move, m.score) for m in single.move_values]
True
"""

from __future__ import annotations

import contextlib
import functools
import logging
import multiprocessing
import os
import queue
import signal
import threading
import time
import uuid
from collections.abc import Callable, Hashable, Iterator, Sequence
from concurrent.futures import FIRST_EXCEPTION, CancelledError, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ..game import Game, GameError, State, capabilities, win_score
from .compiled import EngineChoice, use_compiled
from .contract import SearchTimeout
from .engine import Engine
from .results import MoveValue, SearchResult, SearchStats, assemble, build_result, freeze, start, stats_of, timed

T = TypeVar("T")

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

__all__ = [
    "EXACT_ALGORITHMS",
    "Halter",
    "ParallelError",
    "Split",
    "WorkerWatch",
    "dask_client",
    "dask_lost",
    "max_workers",
    "new_stop_name",
    "on_dask_stoppable",
    "process_pool",
    "run_stoppable",
    "solve_parallel",
    "split",
    "stop_dask_tasks",
    "watched",
    "workers_limit_message",
]

#: The exact algorithms a subproblem can be solved with.
EXACT_ALGORITHMS = ("solver", "alphabeta")
#: Aim for about this many subproblems per worker (more balances the load, fewer repeat less work).
TASKS_PER_WORKER = 6
#: Never enumerate more positions than this when looking for the split ply.
MAX_SPLIT_NODES = 200_000
#: Default transposition-table size of each worker, in entries.
WORKER_TABLE_ENTRIES = 1_000_000
#: At most this many worker processes per CPU, and never a maximum under MIN_MAX_WORKERS: more
#: only adds memory and start-up time, and a typo of a few zeros must not fork a million processes.
WORKERS_PER_CPU = 4
MIN_MAX_WORKERS = 8


def max_workers() -> int:
    """The most worker processes a parallel solve or ``learn`` starts on this machine."""
    return max(MIN_MAX_WORKERS, WORKERS_PER_CPU * (os.cpu_count() or 1))


def workers_limit_message(workers: int) -> str | None:
    """What ``workers`` processes must be, when they are too few or too many here; else None."""
    if workers < 1:
        return f"at least 1, not {workers}"
    limit = max_workers()
    if workers <= limit:
        return None
    return f"at most {limit} processes on this machine ({WORKERS_PER_CPU} per CPU, at least {MIN_MAX_WORKERS}), not {workers:,}"


class ParallelError(GameError):
    """A parallel solve cannot run (bad options, Dask missing or unreachable)."""


# -- worker processes ------------------------------------------------------------------
def _ignore_sigint() -> None:
    # Ctrl-C reaches the whole process group; only the parent reacts (it terminates the pool).
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _context() -> Any:
    # Not fork: the parent may run threads (a progress bar, Dask), and forking them is unsafe.
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["gametree.search.parallel", "gametree.search.algorithms", "gametree.learn"])
        return ctx
    return multiprocessing.get_context("spawn")


@contextlib.contextmanager
def process_pool(workers: int) -> Iterator[Pool]:
    """A ``multiprocessing`` pool whose workers ignore Ctrl-C; on any error or
    interruption in the ``with`` block the workers are terminated at once."""
    pool = _context().Pool(workers, initializer=_ignore_sigint)
    try:
        yield pool
    except BaseException:
        pool.terminate()
        pool.join()
        raise
    pool.close()
    pool.join()


class WorkerWatch:
    """The worker processes of a pool just started, watched for one that dies.

    A worker that dies (the system's out-of-memory killer is the usual cause) takes its task
    with it: ``multiprocessing`` starts a new worker but never answers the lost task, so the
    parent would wait forever.  :meth:`check`, called while waiting, raises
    :class:`ParallelError` instead.  The workers are this process's children named as
    ``multiprocessing`` names pool workers.
    """

    def __init__(self) -> None:
        self.pids = self._workers()

    @staticmethod
    def _workers() -> set[int]:
        return {p.pid for p in multiprocessing.active_children() if "PoolWorker" in p.name and p.pid is not None}

    def check(self) -> None:
        lost = self.pids - self._workers()
        if lost:
            raise ParallelError(
                f"worker process {min(lost)} died before finishing its work (the system may have stopped it "
                "for lack of memory): try fewer --workers or a smaller --cache-size"
            )


def watched(results: Any, watch: WorkerWatch) -> Iterator[Any]:
    """The results of ``pool.imap_unordered`` (or ``imap``) as they come, checking ``watch`` while waiting."""
    while True:
        try:
            yield results.next(timeout=0.2)
        except StopIteration:
            return
        except multiprocessing.TimeoutError:
            watch.check()


# -- splitting ---------------------------------------------------------------------------
def _keyf(game: Game[Any, Any]) -> Callable[[Any], Hashable]:
    symmetric = capabilities(game).symmetric
    return symmetric.canonical_key if symmetric is not None else game.key


@dataclass
class Split:
    """The subproblems at ``ply`` moves below the root: canonical key -> a representative position."""

    ply: int
    subproblems: dict[Hashable, Any]
    #: Positions enumerated above and at the split (for the statistics).
    nodes: int


def _frontier(game: Game[Any, Any], root: Any, ply: int, keyf: Callable[[Any], Hashable], limit: int) -> tuple[dict[Hashable, Any], int] | None:
    found: dict[Hashable, Any] = {}
    count = 0
    stack = [(root, 0)]
    while stack:
        state, depth = stack.pop()
        count += 1
        if count > limit:
            return None
        if game.outcome(state) is not None:
            continue
        if depth == ply:
            found.setdefault(keyf(state), state)
            continue
        for move in reversed(game.legal_moves(state)):
            stack.append((game.play(state, move), depth + 1))
    return found, count


def split(game: Game[Any, Any], state: State, *, target: int, ply: int | None = None) -> Split:
    """The shallowest split with at least ``target`` distinct subproblems (or the given ``ply``)."""
    keyf = _keyf(game)
    if ply is not None:
        if ply < 1:
            raise ParallelError(f"the split ply must be at least 1, not {ply}")
        got = _frontier(game, state, ply, keyf, MAX_SPLIT_NODES * 10)
        if got is None:
            raise ParallelError(f"splitting at ply {ply} enumerates too many positions; choose a smaller split ply")
        return Split(ply, got[0], got[1])
    best = None
    for depth in range(1, game.info.max_plies + 1):
        got = _frontier(game, state, depth, keyf, MAX_SPLIT_NODES)
        if got is None:
            break
        best = Split(depth, got[0], got[1])
        if len(got[0]) >= target or not got[0]:
            break
    if best is None:  # pragma: no cover - ply 1 has at most the root's moves
        raise ParallelError("cannot split this position")
    return best


# -- solving one subproblem ---------------------------------------------------------------
_local = threading.local()


def _kept(kind: str, key: Hashable, make: Callable[[], Any]) -> Any:
    """This worker's (thread's) object of ``kind`` for ``key``, made on first use and kept between
    subproblems (at most five of a kind: a worker rarely sees more games)."""
    kept: dict[Hashable, Any] | None = getattr(_local, kind, None)
    if kept is None:
        kept = {}
        setattr(_local, kind, kept)
    found = kept.get(key)
    if found is None:
        if len(kept) > 4:
            kept.clear()
        found = kept[key] = make()
    return found


def _table(game: Game[Any, Any], algorithm: str, entries: int) -> Any:
    """This worker's (thread's) table for the game, kept between subproblems."""
    from .table import TranspositionTable

    return _kept("tables", (repr(game), algorithm, entries), lambda: TranspositionTable(entries))


@dataclass(frozen=True, slots=True)
class _Task:
    """Solve ``state`` exactly (``window`` None), or search it with the null window ``window``."""

    game: Any
    state: State
    algorithm: str
    entries: int
    window: tuple[int, int] | None = None
    engine: EngineChoice = "auto"


@dataclass(frozen=True, slots=True)
class _Answer:
    """An exact score and its line, or (for a window) a fail-soft bound; and what it cost."""

    score: int
    pv: tuple[str, ...]
    stats: SearchStats


def _worker_solver(game: Game[Any, Any], entries: int, engine: EngineChoice) -> Any:
    """This worker's (thread's) exact solver for the game, kept between subproblems with its
    tables (the compiled engine's among them)."""
    from .solver import Solver

    return _kept("solvers", (repr(game), entries, engine), lambda: Solver(game, cache=_table(game, "solver", entries), engine=engine))


class Halter:
    """The engines a subproblem searches with, halted on request from another thread.

    :meth:`attach` each engine as the task takes it up (one asked to stop already is halted at
    once); :meth:`stop` halts them all, again at each call (the solver resumes its engine between
    its stages); :meth:`finish`, when the task has ended, resumes those it halted, so that the
    worker's kept solver and tables serve its next subproblem, and makes later stops do nothing.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.engines: list[Any] = []
        self.stopped = False
        self.finished = False

    def attach(self, engine: Any) -> None:
        with self.lock:
            if self.finished:
                return
            self.engines.append(engine)
            if self.stopped:
                engine.halt()

    def stop(self) -> None:
        with self.lock:
            if self.finished:
                return
            self.stopped = True
            for engine in self.engines:
                engine.halt()

    def finish(self) -> None:
        with self.lock:
            self.finished = True
            if self.stopped:
                for engine in self.engines:
                    engine.resume()


def _solve_task(task: _Task, halter: Halter | None = None) -> _Answer:
    """Solve one subproblem; each engine it searches with is attached to ``halter``, if given."""
    from .solver import search_stats

    attach = halter.attach if halter is not None else lambda engine: None
    if task.algorithm == "solver":
        solver = _worker_solver(task.game, task.entries, task.engine)
        engine = solver.engine_for(task.state)  # (the engine solve() searches with)
        attach(engine)
        if task.window is None:
            result = solver.solve(task.state, all_moves=False, pv=True)
            return _Answer(int(result.score), result.pv, result.stats)
        engine.counters.reset()
        base = engine.table_counts()
        started = time.perf_counter()
        value = engine.search(task.state, task.window[0], task.window[1], 0)
        return _Answer(int(value), (), search_stats(engine, time.perf_counter() - started, base))
    table = _table(task.game, task.algorithm, task.entries)
    python = Engine(task.game, table=table, symmetry=True)
    attach(python)
    base = (table.probes, table.hits, table.stores)
    started = time.perf_counter()
    if task.window is None:
        # alphabeta(game, state, cache=table, all_moves=False), with an engine of our own to halt.
        from .classic import root_search

        root = root_search(python, task.state)
        stats = freeze(python.counters, table, time.perf_counter() - started, base)
        lines = Engine(task.game, table=table, symmetry=True)
        result = timed(build_result("alphabeta", task.game, task.state, root, lines, None, stats, heuristic=python.counters.heuristic > 0), started)
        return _Answer(int(result.score), result.pv, result.stats)
    value = python.search(task.state, task.window[0], task.window[1], 0)
    return _Answer(int(value), (), freeze(python.counters, table, time.perf_counter() - started, base))


#: Seconds between a Dask task's looks at its solve's stop event (each look is a short call to the scheduler).
STOP_POLL = 0.2


def _solve_on_dask(task: _Task, stop: str) -> _Answer:
    """:func:`_solve_task` on a Dask worker, halted within about :data:`STOP_POLL` seconds of the
    client's setting the ``distributed.Event`` named ``stop`` (:meth:`_Dask.cancel`)."""
    return on_dask_stoppable(functools.partial(_solve_task, task), stop)


def _solve_stoppable(task: _Task, stopped: Callable[[], bool]) -> _Answer:
    """:func:`_solve_task`, halted within about :data:`STOP_POLL` seconds of ``stopped()`` turning true."""
    return run_stoppable(functools.partial(_solve_task, task), stopped)


def on_dask_stoppable(work: Callable[[Halter], T], stop: str) -> T:
    """``work(halter)`` in a Dask task, halted within about :data:`STOP_POLL` seconds of the client's
    setting the ``distributed.Event`` named ``stop`` (:func:`stop_dask_tasks`): Dask cannot interrupt
    a running task (see :func:`run_stoppable`)."""
    from distributed import Event, get_client

    event = Event(stop, client=get_client())  # type: ignore[no-untyped-call]  # (made in the task's thread: get_client() finds the worker here)
    return run_stoppable(work, event.is_set)


def new_stop_name() -> str:
    """A fresh name for the ``distributed.Event`` that stops one piece of work's Dask tasks."""
    return f"gametree-stop-{uuid.uuid4().hex}"


def stop_dask_tasks(client: Any, stop: str) -> None:
    """Set the event ``stop``: the running tasks of :func:`on_dask_stoppable` with that name halt
    (cancelling their futures does not stop them).  The event stays set on the scheduler (a few
    bytes), so that a task that looks late still sees it.  A lost scheduler is not an error here."""
    from distributed import Event

    with contextlib.suppress(Exception):  # (a lost scheduler: the error of the wait is the one to report)
        Event(stop, client=client).set()  # type: ignore[no-untyped-call]


def run_stoppable(work: Callable[[Halter], T], stopped: Callable[[], bool]) -> T:
    """``work(halter)``, halted within about :data:`STOP_POLL` seconds of ``stopped()`` turning true:
    a thread of the task's own asks it every :data:`STOP_POLL` seconds and halts the search engines
    ``work`` attaches to ``halter``.  A halted task raises :class:`SearchTimeout` (whatever the
    halted search made of the halt; its result is not wanted), and its engines are resumed, so that
    the worker's kept solver serves its next task.  (An engine still being built, numba compiling
    on a cold cache, is halted once it is built.)"""
    halter = Halter()
    done = threading.Event()
    threading.Thread(target=_watch_stop, args=(stopped, halter, done), name="gametree-stop-watch", daemon=True).start()
    try:
        return work(halter)
    except Exception:
        if halter.stopped:
            raise SearchTimeout("the work was cancelled") from None
        raise
    finally:
        done.set()
        halter.finish()


def _watch_stop(stopped: Callable[[], bool], halter: Halter, done: threading.Event) -> None:
    """Until ``done``: every :data:`STOP_POLL` seconds, ask ``stopped()`` (for Dask, a short call to
    the scheduler: ``Event.is_set``, not a ``wait`` that would still be open on the scheduler when the
    task ends); once it is true, halt ``halter``'s engines, and again at each look after (the
    solver resumes its engine between its stages)."""
    stopping = False
    while not done.wait(STOP_POLL):
        if not stopping:
            try:
                stopping = bool(stopped())
            except Exception:  # the scheduler is gone: no stop can come (and the task's result has nowhere to go)
                return
        if stopping:
            halter.stop()


# -- running subproblems: in this process, in worker processes, on Dask --------------------
class _Cancelled(Exception):
    pass


class _Runner:
    """Submits subproblems and waits for answers; ``cancel()`` stops every wait."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()

    def submit(self, task: _Task) -> Any:
        raise NotImplementedError

    def result(self, handle: Any) -> _Answer:
        raise NotImplementedError

    def slots(self) -> int:
        return 1

    def cancel(self) -> None:
        self.cancelled.set()

    def close(self) -> None:
        pass


class _InProcess(_Runner):
    """No workers: each subproblem is solved when its answer is first needed."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()  # one search at a time: the tables are per thread, the CPU is one

    def submit(self, task: _Task) -> Any:
        return [task, None]

    def result(self, handle: Any) -> _Answer:
        with self.lock:
            if handle[1] is None:
                if self.cancelled.is_set():
                    raise _Cancelled
                handle[1] = _solve_task(handle[0])
            return handle[1]  # type: ignore[no-any-return]


class _Processes(_Runner):
    def __init__(self, workers: int) -> None:
        super().__init__()
        self.workers = workers
        self.pool = _context().Pool(workers, initializer=_ignore_sigint)
        self.watch = WorkerWatch()

    def slots(self) -> int:
        return self.workers

    def submit(self, task: _Task) -> Any:
        return self.pool.apply_async(_solve_task, (task,))

    def result(self, handle: Any) -> _Answer:
        while True:
            if self.cancelled.is_set():
                raise _Cancelled
            try:
                return handle.get(timeout=0.1)  # type: ignore[no-any-return]
            except multiprocessing.TimeoutError:
                self.watch.check()

    def cancel(self) -> None:
        super().cancel()
        self.pool.terminate()

    def close(self) -> None:
        if self.cancelled.is_set():
            self.pool.join()
            return
        self.pool.close()
        self.pool.join()


def _silence(prefix: str) -> dict[str, int]:
    """Raise every logger named ``prefix`` or ``prefix.*`` above CRITICAL; their levels before."""
    names = [prefix, *(n for n in logging.root.manager.loggerDict if n.startswith(prefix + "."))]
    levels = {name: logging.getLogger(name).level for name in names}
    for name in names:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    return levels


def _restore(levels: dict[str, int]) -> None:
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


#: Seconds to wait for a Dask scheduler to answer.
SCHEDULER_TIMEOUT = 10.0


def _connect(client_class: Any, scheduler: str) -> Any:
    """A Dask client of ``scheduler``, or :class:`ParallelError` within :data:`SCHEDULER_TIMEOUT`.

    ``Client(timeout=...)`` bounds the connection, not the handshake after it: a port that
    accepts connections and never answers (a web server, a silent socket) kept it waiting for
    minutes.  So the client is made in a thread of its own, and waited for with a deadline.
    """
    made: queue.SimpleQueue[tuple[Any, BaseException | None]] = queue.SimpleQueue()

    def connect() -> None:
        try:
            made.put((client_class(scheduler, timeout=f"{SCHEDULER_TIMEOUT:g}s"), None))
        except BaseException as exc:  # handed to the waiting thread
            made.put((None, exc))

    threading.Thread(target=connect, name="gametree-dask-connect", daemon=True).start()
    try:
        client, error = made.get(timeout=SCHEDULER_TIMEOUT + 2)
    except queue.Empty:
        raise ParallelError(f"no Dask scheduler answered at {scheduler} within {SCHEDULER_TIMEOUT:g} s") from None
    if error is not None:
        if isinstance(error, (OSError, TimeoutError, ValueError, TypeError)):
            raise ParallelError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
        raise error
    return client


class _Dask(_Runner):
    def __init__(self, scheduler: Any) -> None:
        super().__init__()
        try:
            from dask.distributed import Client
        except ImportError:
            raise ParallelError("--scheduler needs Dask: pip install 'gametree[dask]' (or pip install distributed)") from None
        self.own = not isinstance(scheduler, Client)
        self.client: Any
        self.address = scheduler if self.own else getattr(getattr(scheduler, "scheduler", None), "address", "the client's scheduler")
        if self.own:
            # A client of our own reports its failures through us, in one line: distributed's own
            # log (tracebacks of lost connections on standard error) is silenced while it runs.
            self.levels = _silence("distributed")
            try:
                self.client = _connect(Client, scheduler)
            except BaseException:
                _restore(self.levels)
                raise
        else:
            self.client = scheduler
        self.futures: list[Any] = []
        self.lock = threading.Lock()
        #: The name of this solve's ``distributed.Event``, set by :meth:`cancel`: its running tasks halt.
        self.stop = new_stop_name()

    def slots(self) -> int:
        threads: int = sum(self.client.nthreads().values())
        return max(1, threads)

    def submit(self, task: _Task) -> Any:
        future = self.client.submit(_solve_on_dask, task, self.stop, pure=False)
        with self.lock:
            self.futures.append(future)
        return future

    def result(self, handle: Any) -> _Answer:
        # Block without a timeout (polling with one can lose the result in distributed);
        # cancel() cancels the futures, which ends the wait.
        if self.cancelled.is_set():
            raise _Cancelled
        try:
            return handle.result()  # type: ignore[no-any-return]
        except BaseException as exc:
            if self.cancelled.is_set():
                raise _Cancelled from None
            lost = dask_lost(exc, self.address)
            if lost is not None:
                raise lost from None
            raise

    def cancel(self) -> None:
        super().cancel()
        with self.lock:
            futures = list(self.futures)
        if futures:
            stop_dask_tasks(self.client, self.stop)  # first the tasks running now
        self.client.cancel(futures)

    def close(self) -> None:
        if self.own:
            try:
                self.client.close()
            finally:
                _restore(self.levels)


# -- the parallel search above the split ------------------------------------------------------
class _Memo:
    """A value computed once per canonical key, however many threads ask."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.slots: dict[Hashable, Future[Any]] = {}

    def claim(self, key: Hashable) -> tuple[Future[Any], bool]:
        with self.lock:
            slot = self.slots.get(key)
            if slot is not None:
                return slot, False
            slot = self.slots[key] = Future()
            return slot, True


class _Search:
    """Exact values above the split ply, young-brothers-wait style.

    A node's first move (the game's best-first order) is solved exactly; then
    all its other moves are tested at once with a null window against that
    value, and only those that prove better are solved exactly.  Positions at
    the split ply are solved exactly by a worker.  Symmetric positions
    (equal canonical keys) are solved once and their lines carried over.
    """

    def __init__(self, game: Game[Any, Any], runner: _Runner, algorithm: str, entries: int, cut: int, engine: EngineChoice = "auto") -> None:
        self.game = game
        self.engine = engine
        self.runner = runner
        self.algorithm = algorithm
        self.entries = entries
        self.cut = cut
        self.C = game.info.max_plies
        self.keyf = _keyf(game)
        self.memo = _Memo()
        self.lock = threading.Lock()
        self.submitted = 0
        self.finished = 0
        self.answers: list[_Answer] = []
        self.on_change: Callable[[], None] = lambda: None

    # -- subproblems ---------------------------------------------------------------
    def _ask(self, state: State, window: tuple[int, int] | None) -> Any:
        with self.lock:
            self.submitted += 1
        self.on_change()
        return self.runner.submit(_Task(self.game, state, self.algorithm, self.entries, window, self.engine))

    def _wait(self, handle: Any) -> _Answer:
        answer = self.runner.result(handle)
        with self.lock:
            self.finished += 1
            self.answers.append(answer)
        self.on_change()
        return answer

    # -- values ----------------------------------------------------------------------
    def _terminal(self, state: State) -> int | None:
        out = self.game.outcome(state)
        if out is None:
            return None
        if out.winner is None:
            return 0
        magnitude = win_score(self.C, self.game.ply(state) - 1)  # the game-ending move was the last
        return magnitude if out.winner == self.game.to_move(state) else -magnitude

    def exact(self, state: State, handle: Any = None) -> tuple[int, list[str]]:
        """The exact score of ``state`` and an optimal line from it to the end (move texts)."""
        end = self._terminal(state)
        if end is not None:
            return end, []
        slot, mine = self.memo.claim(self.keyf(state))
        if mine:
            try:
                value, line = self._exact(state, handle)
            except BaseException as exc:
                slot.set_exception(exc)
                raise
            slot.set_result((state, value, line))
        rep, value, line = slot.result()
        return value, _carry(self.game, self.keyf, rep, line, state)

    def _exact(self, state: State, handle: Any) -> tuple[int, list[str]]:
        game = self.game
        if game.ply(state) >= self.cut:
            answer = self._wait(handle if handle is not None else self._ask(state, None))
            return answer.score, list(answer.pv)
        moves = list(game.legal_moves(state))
        children = [game.play(state, m) for m in moves]
        value, line = self.exact(children[0])
        best, best_index, best_line = -value, 0, line
        # Test every other move at once: can it beat ``best``?  (Is its value below -best?)
        tests = []
        for i in range(1, len(moves)):
            end = self._terminal(children[i])
            if end is not None:
                if -end > best:
                    best, best_index, best_line = -end, i, []
                continue
            threshold = -best
            tests.append((i, threshold, self._ask(children[i], (threshold - 1, threshold))))
        better = []
        for i, threshold, h in tests:
            if self._wait(h).score <= threshold - 1:  # fail low: the child is worse for its mover
                better.append(i)
        # Solve the moves that proved better exactly, all submitted before any is awaited.
        early = {i: self._ask(children[i], None) for i in better if game.ply(children[i]) >= self.cut}
        for i in better:
            value, line = self.exact(children[i], early.get(i))
            if -value > best:
                best, best_index, best_line = -value, i, line
        return best, [game.format_move(state, moves[best_index]), *best_line]


def _carry(game: Game[Any, Any], keyf: Callable[[Any], Hashable], rep: State, line: Sequence[str], state: State) -> list[str]:
    """A line played from ``rep``, carried over to the symmetric position ``state``
    (move by move: the successor with the same canonical key)."""
    if game.key(rep) == game.key(state):
        return list(line)
    images = capabilities(game).images
    symmetries = images.symmetries if images is not None else None

    def same(a: Any, b: Any) -> bool:
        # A game may key deep positions as they are (canonical keys only near the root):
        # compare with the images themselves when the game can list them.
        if symmetries is None:
            return bool(keyf(a) == keyf(b))
        key = game.key(a)
        return any(game.key(image) == key for image in symmetries(b))

    out = []
    for text in line:
        rep = game.play(rep, game.parse_move(rep, text))
        for move in game.legal_moves(state):
            child = game.play(state, move)
            if same(rep, child):
                out.append(game.format_move(state, move))
                state = child
                break
        else:  # pragma: no cover - symmetric positions have symmetric moves
            break
    return out


def _plies(game: Game[Any, Any], start: State, line: Sequence[str]) -> int | None:
    state = start
    for text in line:
        state = game.play(state, game.parse_move(state, text))
    return len(line) if game.outcome(state) is not None else None


@contextlib.contextmanager
def dask_client(scheduler: Any) -> Iterator[Any]:
    """A client of the Dask scheduler at ``scheduler`` (an address; a ``Client`` is used as it
    is), with the one-line errors of ``--scheduler``: Dask missing, a scheduler that does not
    answer within :data:`SCHEDULER_TIMEOUT`, an address that is no scheduler (a
    :class:`ParallelError`); distributed's own log is silenced while it is open."""
    runner = _Dask(scheduler)
    try:
        yield runner.client
    finally:
        runner.close()


def dask_lost(error: BaseException, scheduler: Any, work: str = "the solve") -> ParallelError | None:
    """The one-line error for ``error`` raised while waiting on a Dask result: the scheduler or
    the connection was lost during ``work`` (None: another error, to raise as it is)."""
    if isinstance(error, (CancelledError, OSError)):  # (distributed's FutureCancelledError, CommClosedError)
        reason = "the connection was lost" if isinstance(error, CancelledError) else " ".join(str(error).split())
        return ParallelError(f"lost the Dask scheduler at {scheduler} during {work}: {reason}")
    return None


def _runner(workers: int, scheduler: Any) -> _Runner:
    if scheduler is not None:
        return _Dask(scheduler)
    return _InProcess() if workers == 1 else _Processes(workers)


def solve_parallel(
    game: Game[Any, Any],
    state: State | None = None,
    *,
    workers: int = 2,
    algorithm: str = "solver",
    scheduler: Any = None,
    split_ply: int | None = None,
    table_entries: int = WORKER_TABLE_ENTRIES,
    progress: Callable[[int, int], None] | None = None,
    engine: EngineChoice = "auto",
) -> SearchResult:
    """Solve ``state`` exactly with subproblems run in ``workers`` processes, or on
    a Dask cluster when ``scheduler`` is given (an address like
    ``tcp://host:8786`` or a ``dask.distributed.Client``).

    ``progress(done, total)`` is called as subproblems are submitted and
    finish (the total grows while the search above the split goes on).  The
    result equals the single-process ``algorithm`` in value, score, best moves
    and every root move's score.  Ctrl-C (``KeyboardInterrupt``) stops the
    workers before it propagates.  ``engine`` is the workers' (the solver's; see
    :func:`gametree.search.solver`).
    """
    if algorithm not in EXACT_ALGORITHMS:
        raise ParallelError(f"parallel solving needs an exact algorithm ({' or '.join(EXACT_ALGORITHMS)}), not {algorithm!r}")
    problem = workers_limit_message(workers)
    if problem is not None:
        raise ParallelError(f"the number of workers must be {problem}")
    state = start(game, state)
    started = time.perf_counter()
    runner = _runner(workers, scheduler)
    try:
        slots = runner.slots()
        ply = split_ply if split_ply is not None else split(game, state, target=TASKS_PER_WORKER * slots).ply
        if ply < 1:
            raise ParallelError(f"the split ply must be at least 1, not {ply}")
        if algorithm == "solver":
            use_compiled(game, engine, game.info.max_plies)  # "compiled" that cannot be: say so before any work
        search = _Search(game, runner, algorithm, table_entries, game.ply(state) + ply, engine)
        if progress is not None:
            report = progress
            search.on_change = lambda: report(search.finished, search.submitted)
        moves = list(game.legal_moves(state))
        children = [game.play(state, m) for m in moves]
        with ThreadPoolExecutor(max_workers=len(children), thread_name_prefix="gametree-split") as threads:
            jobs = [threads.submit(search.exact, child) for child in children]
            try:
                pending = set(jobs)
                while pending:  # the main thread waits in short steps, so Ctrl-C is seen at once
                    _, pending = wait(pending, timeout=0.2, return_when=FIRST_EXCEPTION)
                    for job in jobs:
                        if job.done() and job.exception() is not None:
                            raise job.exception()  # type: ignore[misc]
            except BaseException:
                runner.cancel()
                for job in jobs:
                    job.cancel()
                raise
            answers = [job.result() for job in jobs]
    finally:
        runner.close()
    return _result(game, state, algorithm, moves, answers, search, ply, time.perf_counter() - started)


def _result(
    game: Game[Any, Any],
    state: State,
    algorithm: str,
    moves: list[Any],
    answers: list[tuple[int, list[str]]],
    search: _Search,
    ply: int,
    seconds: float,
) -> SearchResult:
    fmt = game.format_move
    values = [-value for value, _ in answers]
    lines = [[fmt(state, m), *line] for m, (_, line) in zip(moves, answers)]
    best = max(values)
    pv = lines[values.index(best)]
    plies = _plies(game, state, pv)
    move_values = tuple(
        MoveValue(move=fmt(state, m), score=v, plies_to_end=_plies(game, state, line) if plies is not None else None, best=v == best)
        for m, v, line in zip(moves, values, lines)
    )
    done = search.answers
    per_depth: list[int] = [1]
    for answer in done:  # a subproblem's depths, counted from the root (subproblems sit at various plies)
        for i, n in enumerate(answer.stats.nodes_per_depth):
            while len(per_depth) <= ply + i:
                per_depth.append(0)
            per_depth[ply + i] += n
    stats = stats_of(
        per_depth,
        seconds,
        terminals=sum(a.stats.terminals for a in done),
        cutoffs=sum(a.stats.cutoffs for a in done),
        table=(sum(a.stats.cache_probes for a in done), sum(a.stats.cache_hits for a in done), sum(a.stats.cache_stores for a in done)),
    )
    best_moves = tuple(fmt(state, m) for m, v in zip(moves, values) if v == best)
    return assemble(algorithm, game, state, best, True, plies, best_moves, move_values, tuple(pv), None, stats)
