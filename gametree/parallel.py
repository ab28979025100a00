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
import multiprocessing
import signal
import sys
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .game import Game, GameError
from .search import MoveValue, SearchResult, SearchStats, _start

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

__all__ = ["ALGORITHMS", "ParallelError", "Split", "process_pool", "solve_parallel", "split"]

#: The exact algorithms a subproblem can be solved with.
ALGORITHMS = ("solver", "alphabeta")
#: Aim for about this many subproblems per worker (more balances the load, fewer repeat less work).
TASKS_PER_WORKER = 6
#: Never enumerate more positions than this when looking for the split ply.
MAX_SPLIT_NODES = 200_000
#: Default transposition-table size of each worker, in entries.
WORKER_TABLE_ENTRIES = 1_000_000


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
        ctx.set_forkserver_preload(["gametree.parallel", "gametree.exact", "gametree.learn"])
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


# -- splitting ---------------------------------------------------------------------------
def _keyf(game: Game[Any, Any]) -> Callable[[Any], Hashable]:
    canonical = getattr(game, "canonical_key", None)
    return canonical if callable(canonical) else game.key


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


def split(game: Game[Any, Any], state: Any, *, target: int, ply: int | None = None) -> Split:
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


def _table(game: Game[Any, Any], algorithm: str, entries: int) -> Any:
    """This worker's (thread's) table for the game, kept between subproblems."""
    from .cache import TranspositionTable

    tables: dict[tuple[str, str, int], Any] = getattr(_local, "tables", None) or {}
    _local.tables = tables
    key = (repr(game), algorithm, entries)
    table = tables.get(key)
    if table is None:
        if len(tables) > 4:
            tables.clear()
        table = tables[key] = TranspositionTable(entries)
    return table


@dataclass(frozen=True, slots=True)
class _Task:
    index: int
    game: Any
    state: Any
    algorithm: str
    entries: int


@dataclass(frozen=True, slots=True)
class _Answer:
    index: int
    score: int
    pv: tuple[str, ...]
    stats: SearchStats


def _solve_task(task: _Task) -> _Answer:
    from .search import ALGORITHMS as FUNCTIONS

    table = _table(task.game, task.algorithm, task.entries)
    result = FUNCTIONS[task.algorithm](task.game, task.state, cache=table, all_moves=False, pv=True)
    return _Answer(task.index, result.score, result.pv, result.stats)


# -- running the subproblems --------------------------------------------------------------
def _run_local(tasks: Sequence[_Task], workers: int) -> Iterator[_Answer]:
    if workers == 1:
        for task in tasks:
            yield _solve_task(task)
        return
    with process_pool(min(workers, len(tasks))) as pool:
        yield from pool.imap_unordered(_solve_task, tasks)


def _dask_client(scheduler: Any) -> tuple[Any, bool]:
    try:
        from dask.distributed import Client
    except ImportError:
        raise ParallelError("--scheduler needs Dask: pip install 'gametree[dask]' (or pip install distributed)") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    try:
        return Client(scheduler, timeout="10s"), True
    except (OSError, TimeoutError, ValueError) as exc:
        raise ParallelError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None


def _dask_threads(client: Any) -> int:
    return max(1, sum(client.nthreads().values()))


def _run_dask(tasks: Sequence[_Task], client: Any) -> Iterator[_Answer]:
    from dask.distributed import as_completed

    futures = client.map(_solve_task, tasks, pure=False)
    try:
        for future in as_completed(futures):
            yield future.result()
    except BaseException:
        client.cancel(futures)
        raise


# -- combining ------------------------------------------------------------------------------
class _Combiner:
    """Negamax over the plies above the split, with the subproblems' exact scores."""

    def __init__(self, game: Game[Any, Any], root_ply: int, cut: int, scores: dict[Hashable, int], lines: dict[Hashable, tuple[Any, tuple[str, ...]]]):
        self.game = game
        self.C = game.info.max_plies
        self.cut = root_ply + cut
        self.keyf = _keyf(game)
        self.scores = scores
        self.lines = lines
        self.root_ply = root_ply
        #: Positions above the split evaluated here, by depth below the root.
        self.per_depth = [0] * (cut + 1)
        self.memo: dict[Hashable, int] = {}

    def value(self, state: Any) -> int:
        game = self.game
        out = game.outcome(state)
        if out is not None:
            self.per_depth[game.ply(state) - self.root_ply] += 1
            if out.winner is None:
                return 0
            magnitude = (self.C + 2 - game.ply(state)) // 2
            return magnitude if out.winner == game.to_move(state) else -magnitude
        key = self.keyf(state)
        if game.ply(state) == self.cut:
            return self.scores[key]
        known = self.memo.get(key)
        if known is not None:
            return known
        self.per_depth[game.ply(state) - self.root_ply] += 1
        best = max(-self.value(game.play(state, m)) for m in game.legal_moves(state))
        self.memo[key] = best
        return best

    def line(self, state: Any) -> list[str]:
        """An optimal line from ``state`` to the end of the game, as move texts."""
        game = self.game
        out: list[str] = []
        while game.outcome(state) is None:
            if game.ply(state) == self.cut:
                return out + self._carried(state)
            value = self.value(state)
            for move in game.legal_moves(state):
                child = game.play(state, move)
                if -self.value(child) == value:
                    out.append(game.format_move(state, move))
                    state = child
                    break
            else:  # pragma: no cover - the values are consistent
                raise AssertionError("no move keeps the value")
        return out

    def _carried(self, state: Any) -> list[str]:
        """The solved subproblem's line, carried over from its representative to ``state``."""
        game, keyf = self.game, self.keyf
        rep, pv = self.lines[keyf(state)]
        if game.key(rep) == game.key(state):
            return list(pv)
        out = []
        for text in pv:
            rep = game.play(rep, game.parse_move(rep, text))
            target = keyf(rep)
            for move in game.legal_moves(state):
                child = game.play(state, move)
                if keyf(child) == target:
                    out.append(game.format_move(state, move))
                    state = child
                    break
            else:  # pragma: no cover - symmetric positions have symmetric moves
                break
        return out


def _plies(game: Game[Any, Any], start: Any, line: Sequence[str]) -> int | None:
    state = start
    for text in line:
        state = game.play(state, game.parse_move(state, text))
    return len(line) if game.outcome(state) is not None else None


def solve_parallel(
    game: Game[Any, Any],
    state: Any = None,
    *,
    workers: int = 2,
    algorithm: str = "solver",
    scheduler: Any = None,
    split_ply: int | None = None,
    table_entries: int = WORKER_TABLE_ENTRIES,
    progress: Callable[[int, int], None] | None = None,
) -> SearchResult:
    """Solve ``state`` exactly with subproblems run in ``workers`` processes, or on
    a Dask cluster when ``scheduler`` is given (an address like
    ``tcp://host:8786`` or a ``dask.distributed.Client``).

    ``progress(done, total)`` is called before the first and after each
    subproblem.  The result equals the single-process ``algorithm`` in value,
    score, best moves and every root move's score.
    """
    if algorithm not in ALGORITHMS:
        raise ParallelError(f"parallel solving needs an exact algorithm ({' or '.join(ALGORITHMS)}), not {algorithm!r}")
    if workers < 1:
        raise ParallelError(f"the number of workers must be at least 1, not {workers}")
    state = _start(game, state)
    start = time.perf_counter()
    client, own_client = (None, False) if scheduler is None else _dask_client(scheduler)
    try:
        slots = _dask_threads(client) if client is not None else workers
        cut = split(game, state, target=TASKS_PER_WORKER * slots if slots > 1 else 1, ply=split_ply)
        keys = list(cut.subproblems)
        tasks = [_Task(i, game, cut.subproblems[k], algorithm, table_entries) for i, k in enumerate(keys)]
        total = len(tasks)
        if progress is not None:
            progress(0, total)
        answers: list[_Answer | None] = [None] * total
        stream = _run_dask(tasks, client) if client is not None else _run_local(tasks, workers)
        for done, answer in enumerate(stream, start=1):
            answers[answer.index] = answer
            if progress is not None:
                progress(done, total)
    finally:
        if own_client:
            client.close()
    scores = {k: a.score for k, a in zip(keys, answers) if a is not None}
    lines = {k: (cut.subproblems[k], a.pv) for k, a in zip(keys, answers) if a is not None}
    return _result(game, state, algorithm, cut, scores, lines, [a for a in answers if a is not None], time.perf_counter() - start)


def _result(
    game: Game[Any, Any],
    state: Any,
    algorithm: str,
    cut: Split,
    scores: dict[Hashable, int],
    lines: dict[Hashable, tuple[Any, tuple[str, ...]]],
    answers: list[_Answer],
    seconds: float,
) -> SearchResult:
    combine = _Combiner(game, game.ply(state), cut.ply, scores, lines)
    fmt = game.format_move
    moves = list(game.legal_moves(state))
    children = [game.play(state, m) for m in moves]
    values = [-combine.value(child) for child in children]
    best = max(values)
    best_index = values.index(best)
    move_lines = [[fmt(state, m), *combine.line(child)] for m, child in zip(moves, children)]
    pv = move_lines[best_index]
    plies = _plies(game, state, pv)
    move_values = tuple(
        MoveValue(move=fmt(state, m), score=v, plies_to_end=_plies(game, state, line) if plies is not None else None, best=v == best)
        for m, v, line in zip(moves, values, move_lines)
    )
    me = game.to_move(state)
    value, winner = ("win", me) if best > 0 else ("loss", 1 - me) if best < 0 else ("draw", None)
    per_depth = list(combine.per_depth)
    per_depth[0] = 1
    for a in answers:
        shifted = a.stats.nodes_per_depth
        if len(per_depth) < cut.ply + len(shifted):
            per_depth.extend([0] * (cut.ply + len(shifted) - len(per_depth)))
        for i, n in enumerate(shifted):
            per_depth[cut.ply + i] += n
    nodes = sum(per_depth)
    stats = SearchStats(
        nodes=nodes,
        terminals=sum(a.stats.terminals for a in answers),
        heuristic_leaves=0,
        cutoffs=sum(a.stats.cutoffs for a in answers),
        cache_probes=sum(a.stats.cache_probes for a in answers),
        cache_hits=sum(a.stats.cache_hits for a in answers),
        cache_stores=sum(a.stats.cache_stores for a in answers),
        max_depth=len(per_depth) - 1,
        seconds=seconds,
        nodes_per_second=nodes / seconds if seconds > 0 else 0.0,
        nodes_per_depth=tuple(per_depth),
    )
    return SearchResult(
        algorithm=algorithm,
        to_move=me,
        value=value,
        winner=winner,
        score=best,
        proven=True,
        plies_to_end=plies,
        best_moves=tuple(fmt(state, m) for m, v in zip(moves, values) if v == best),
        move_values=move_values,
        pv=tuple(pv),
        depth=None,
        stats=stats,
    )


# -- the command line ----------------------------------------------------------------------
@contextlib.contextmanager
def progress_bar(what: str) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar on standard error (when it is a terminal) with the time left;
    yields the ``progress(done, total)`` callback."""
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def solve_command(game: Game[Any, Any], state: Any, algorithm: str, options: dict[str, Any], params: dict[str, Any]) -> SearchResult:
    """``gametree solve --workers N`` / ``--scheduler ADDRESS``: one-line errors for the CLI."""
    import click

    if params.get("batch") is not None:
        raise click.UsageError("--workers and --scheduler solve one position; they do not work with --batch")
    if options.get("depth") is not None or options.get("time_limit") is not None:
        raise click.UsageError("--workers and --scheduler compute exact values: drop --depth and --time-limit")
    if algorithm not in ALGORITHMS:
        raise click.BadParameter(f"parallel solving needs an exact algorithm ({' or '.join(ALGORITHMS)}), not {algorithm!r}", param_hint="--algorithm")
    table = options.get("cache")
    entries = getattr(table, "max_entries", WORKER_TABLE_ENTRIES)
    workers = params.get("workers") or 1
    where = f"on {params['scheduler']}" if params.get("scheduler") else f"in {workers} process{'es' if workers != 1 else ''}"
    try:
        with progress_bar(f"solving subproblems {where}") as progress:
            return solve_parallel(
                game,
                state,
                workers=workers,
                algorithm=algorithm,
                scheduler=params.get("scheduler"),
                split_ply=params.get("split_ply"),
                table_entries=entries,
                progress=progress,
            )
    except GameError as exc:
        raise click.ClickException(str(exc)) from None
