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
(transpositions) is mostly done once per worker.  The workers themselves (this
process, worker processes or Dask), their watch and the stopping of running
subproblems are :mod:`gametree.runtime`'s: this module only says what a
subproblem is (:func:`_solve_task`) and how the answers combine.

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
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..game import Game, M, S, State, capabilities, end_score
from ..runtime.errors import ParallelError
from ..runtime.processes import workers_limit_message
from ..runtime.runners import Pending, Runner, make_runner
from ..runtime.stops import Halter
from .compiled import EngineChoice, shared_table_bytes, use_compiled
from .engine import Engine
from .margins import ENGINE_KINDS
from .results import (
    MoveValue,
    SearchResult,
    SearchStats,
    assemble,
    build_result,
    check_game,
    freeze,
    start,
    stats_of,
    timed,
    whole,
)
from .shared_table import SharedTable, shared_memory

if TYPE_CHECKING:
    import distributed

    from .solver import Solver
    from .table import TranspositionTable

__all__ = [
    "EXACT_ALGORITHMS",
    "MAX_SPLIT_NODES",
    "TASKS_PER_SHARING_WORKER",
    "TASKS_PER_WORKER",
    "WORKER_PRELOAD",
    "WORKER_TABLE_ENTRIES",
    "Split",
    "solve_parallel",
    "split",
]

T = TypeVar("T")

#: The exact algorithms a subproblem can be solved with.
EXACT_ALGORITHMS = ("solver", "alphabeta")
#: Aim for about this many subproblems per worker (more balances the load, fewer repeat less work).
TASKS_PER_WORKER = 6
#: The same for workers that share one compiled table: they repeat little of each other's work,
#: and a subproblem solved whole searches less than its parts solved apart.  7x6 Connect Four's
#: every column, 2 workers on 2 cores: split at ply 1 (4 subproblems) 2.22 G nodes in 229 s, at
#: ply 2 (the split for 6 a worker) 2.42 G nodes in 265 s (docs/performance-log.md).
TASKS_PER_SHARING_WORKER = 2
#: Never enumerate more positions than this when looking for the split ply.
MAX_SPLIT_NODES = 200_000
#: Default transposition-table size of each worker, in entries.
WORKER_TABLE_ENTRIES = 1_000_000
#: The modules a worker process imports before its first subproblem (see gametree.runtime.processes.worker_context).
WORKER_PRELOAD = (__name__, "gametree.search.algorithms")


# -- splitting ---------------------------------------------------------------------------
def _keyf(game: Game[S, M]) -> Callable[[S], Hashable]:
    symmetric = capabilities(game).symmetric
    return symmetric.canonical_key if symmetric is not None else game.key


@dataclass
class Split(Generic[S]):
    """The subproblems at ``ply`` moves below the root: canonical key -> a representative position."""

    ply: int
    subproblems: dict[Hashable, S]
    #: Positions enumerated above and at the split (for the statistics).
    nodes: int


def _frontier(
    game: Game[S, M], root: S, ply: int, keyf: Callable[[S], Hashable], limit: int
) -> tuple[dict[Hashable, S], int] | None:
    found: dict[Hashable, S] = {}
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


def split(game: Game[S, M], state: S, *, target: int, ply: int | None = None) -> Split[S]:
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
class _PerThread(Generic[T]):
    """Objects made on first use and kept between subproblems by the thread that made them (a worker
    process's, or each thread of a Dask worker), by key; at most five: a worker rarely sees more games."""

    def __init__(self) -> None:
        self.local = threading.local()

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        kept: dict[Hashable, T] | None = getattr(self.local, "kept", None)
        if kept is None:
            kept = self.local.kept = {}
        found = kept.get(key)
        if found is None:
            if len(kept) > 4:
                kept.clear()
            found = kept[key] = make()
        return found


_tables: _PerThread[TranspositionTable] = _PerThread()
_solvers: _PerThread[Solver] = _PerThread()


def _table(game: Game[S, M], algorithm: str, entries: int) -> TranspositionTable:
    """This worker's (thread's) table for the game, kept between subproblems."""
    from .table import TranspositionTable

    return _tables.get((repr(game), algorithm, entries), lambda: TranspositionTable(entries))


@dataclass(frozen=True, slots=True)
class _Task:
    """Solve ``state`` exactly (``window`` None), or search it with the null window ``window``."""

    game: Game[Any, Any]
    state: State
    algorithm: str
    entries: int
    window: tuple[int, int] | None = None
    engine: EngineChoice = "auto"
    #: The compiled table the workers share (None: each keeps its own).
    shared: SharedTable | None = None


@dataclass(frozen=True, slots=True)
class _Answer:
    """An exact score and its line, or (for a window) a fail-soft bound; and what it cost."""

    score: int
    pv: tuple[str, ...]
    stats: SearchStats


def _worker_solver(game: Game[S, M], entries: int, engine: EngineChoice, shared: SharedTable | None = None) -> Solver:
    """This worker's (thread's) exact solver for the game, kept between subproblems with its
    tables (the compiled engine's among them, or the one ``shared`` by the workers)."""
    from .solver import Solver

    def make() -> Solver:
        return Solver(game, cache=_table(game, "solver", entries), engine=engine, shared=shared)

    return _solvers.get((repr(game), entries, engine, shared), make)


def _solve_task(task: _Task, halter: Halter | None = None) -> _Answer:
    """Solve one subproblem; each engine it searches with is attached to ``halter``, if given."""
    from .solver import search_stats

    attach = halter.attach if halter is not None else lambda engine: None
    if task.algorithm == "solver":
        solver = _worker_solver(task.game, task.entries, task.engine, task.shared)
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
        heuristic = python.counters.heuristic > 0
        built = build_result("alphabeta", task.game, task.state, root, lines, None, stats, heuristic=heuristic)
        result = timed(built, started)
        return _Answer(int(result.score), result.pv, result.stats)
    value = python.search(task.state, task.window[0], task.window[1], 0)
    return _Answer(int(value), (), freeze(python.counters, table, time.perf_counter() - started, base))


# -- the parallel search above the split ------------------------------------------------------
#: A solved position: the one solved (of its symmetric images), its score and its line.
_Solved = tuple[State, int, list[str]]


class _Memo:
    """A value computed once per canonical key, however many threads ask."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.slots: dict[Hashable, Future[_Solved]] = {}

    def claim(self, key: Hashable) -> tuple[Future[_Solved], bool]:
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

    def __init__(
        self,
        game: Game[Any, Any],
        runner: Runner[_Task, _Answer],
        algorithm: str,
        entries: int,
        cut: int,
        engine: EngineChoice = "auto",
        shared: SharedTable | None = None,
    ) -> None:
        self.game = game
        self.engine = engine
        self.shared = shared
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
    def _ask(self, state: State, window: tuple[int, int] | None) -> Pending[_Answer]:
        with self.lock:
            self.submitted += 1
        self.on_change()
        task = _Task(self.game, state, self.algorithm, self.entries, window, self.engine, self.shared)
        return self.runner.submit(task)

    def _wait(self, handle: Pending[_Answer]) -> _Answer:
        answer = handle.result()
        with self.lock:
            self.finished += 1
            self.answers.append(answer)
        self.on_change()
        return answer

    # -- values ----------------------------------------------------------------------
    def _terminal(self, state: State) -> int | None:
        return end_score(self.game, state)  # (depth-aware, or a margin game's final margin)

    def exact(self, state: State, handle: Pending[_Answer] | None = None) -> tuple[int, list[str]]:
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

    def _exact(self, state: State, handle: Pending[_Answer] | None) -> tuple[int, list[str]]:
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


def _carry(game: Game[S, M], keyf: Callable[[S], Hashable], rep: S, line: Sequence[str], state: S) -> list[str]:
    """A line played from ``rep``, carried over to the symmetric position ``state``
    (move by move: the successor with the same canonical key)."""
    if game.key(rep) == game.key(state):
        return list(line)
    images = capabilities(game).images
    symmetries = images.symmetries if images is not None else None

    def same(a: S, b: S) -> bool:
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


def _plies(game: Game[S, M], start: S, line: Sequence[str]) -> int | None:
    state = start
    for text in line:
        state = game.play(state, game.parse_move(state, text))
    return len(line) if game.outcome(state) is not None else None


def solve_parallel(
    game: Game[S, M],
    state: S | None = None,
    *,
    workers: int = 2,
    algorithm: str = "solver",
    scheduler: str | distributed.Client | None = None,
    split_ply: int | None = None,
    table_entries: int = WORKER_TABLE_ENTRIES,
    progress: Callable[[int, int], None] | None = None,
    engine: EngineChoice = "auto",
    share_table: bool = True,
) -> SearchResult:
    """Solve ``state`` exactly with subproblems run in ``workers`` processes, or on
    a Dask cluster when ``scheduler`` is given (an address like
    ``tcp://host:8786`` or a ``dask.distributed.Client``).

    ``progress(done, total)`` is called as subproblems are submitted and
    finish (the total grows while the search above the split goes on).  The
    result equals the single-process ``algorithm`` in value, score, best moves
    and every root move's score.  Ctrl-C (``KeyboardInterrupt``) stops the
    workers before it propagates.  ``engine`` is the workers' (the solver's; see
    :func:`gametree.search.solver`).  Worker processes on this machine search in one compiled
    table (:mod:`gametree.search.shared_table`) unless ``share_table`` is false.
    """
    if algorithm not in EXACT_ALGORITHMS:
        raise ParallelError(
            f"parallel solving needs an exact algorithm ({' or '.join(EXACT_ALGORITHMS)}), not {algorithm!r}"
        )
    problem = workers_limit_message(workers)
    if problem is not None:
        raise ParallelError(f"the number of workers must be {problem}")
    check_game(game, algorithm, ENGINE_KINDS)
    state = start(game, state, checked=True)
    started = time.perf_counter()
    runner = make_runner(_solve_task, workers=workers, scheduler=scheduler, preload=WORKER_PRELOAD)
    held = contextlib.ExitStack()
    try:
        slots = runner.slots()
        if algorithm == "solver":
            use_compiled(game, engine, game.info.max_plies)  # "compiled" that cannot be: say so before any work
        shared = None
        if share_table and algorithm == "solver" and scheduler is None and workers > 1:
            if use_compiled(game, engine, game.info.max_plies - game.ply(state)):  # (processes of this machine)
                shared = held.enter_context(shared_memory(shared_table_bytes(table_entries, slots)))
        per_worker = TASKS_PER_WORKER if shared is None else TASKS_PER_SHARING_WORKER
        ply = split_ply if split_ply is not None else split(game, state, target=per_worker * slots).ply
        if ply < 1:
            raise ParallelError(f"the split ply must be at least 1, not {ply}")
        search = _Search(game, runner, algorithm, table_entries, game.ply(state) + ply, engine, shared)
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
                        error = job.exception() if job.done() else None
                        if error is not None:
                            raise error
            except BaseException:
                runner.cancel()
                for job in jobs:
                    job.cancel()
                raise
            answers = [job.result() for job in jobs]
    finally:
        runner.close()
        held.close()
    return _result(game, state, algorithm, moves, answers, search, ply, time.perf_counter() - started)


def _result(
    game: Game[S, M],
    state: S,
    algorithm: str,
    moves: list[M],
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
        MoveValue(
            move=fmt(state, m),
            score=whole(v, True),
            plies_to_end=_plies(game, state, line) if plies is not None else None,
            best=v == best,
            game_move=m,
        )
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
        table=(
            sum(a.stats.cache_probes for a in done),
            sum(a.stats.cache_hits for a in done),
            sum(a.stats.cache_stores for a in done),
        ),
    )
    best_moves = tuple(fmt(state, m) for m, v in zip(moves, values) if v == best)
    return assemble(algorithm, game, state, best, True, plies, best_moves, move_values, tuple(pv), None, stats)
