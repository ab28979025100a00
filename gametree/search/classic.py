"""Plain minimax and alpha-beta, with depth and time limits: the engine's classic uses.

The teaching pair: :func:`minimax` visits every node (549,946 on the empty
3x3 board), :func:`alphabeta` the same negamax with windows, score bounds and
a transposition table.  Both run :class:`gametree.search.engine.Engine`.
"""

from __future__ import annotations

import dataclasses
import time

from ..game import Game, M, Move, S, State
from .contract import SearchTimeout
from .engine import INF, Engine, Exit
from .margins import ENGINE_KINDS
from .progress import Phase, SolveProgress
from .results import (
    Root,
    SearchResult,
    SearchStats,
    best_move,
    build_result,
    check_game,
    freeze,
    position,
    start,
    timed,
)
from .table import TranspositionTable, table_of
from .trace import Trace, TraceObserver

__all__ = ["alphabeta", "iterative_deepening", "minimax", "observed_root", "root_search", "root_values", "textbook"]


def minimax(
    game: Game[S, M],
    state: S | None = None,
    *,
    moves: str | None = None,
    depth: int | None = None,
    all_moves: bool = True,
    pv: bool = True,
    progress: SolveProgress | None = None,
    trace: bool = False,
) -> SearchResult:
    """Plain minimax: every node of the tree, no pruning, no cache.

    The teaching baseline; on empty 3x3 tic-tac-toe it visits 549,946 nodes.
    The principal variation is extracted afterwards by a separate alpha-beta
    pass that is not counted in the statistics.

    Args:
        game: The game.
        state: The position to search (default: the start).
        moves: Instead of ``state``, the moves from the start, such as ``"B2 A1"``.
        depth: Search this many plies deep and score the positions there with
            the game's ``evaluate`` (default: to the end of the game).
        all_moves: Accepted for symmetry with the other algorithms: minimax
            always scores every move.
        pv: Follow the principal variation (else only its first move).
        progress: Filled as the search goes, for a live display (nodes, the
            move being scored: :class:`gametree.search.progress.SolveProgress`).
        trace: List the nodes entered, in order, in ``SearchResult.expanded``
            (every node of the tree, the root first, depth-first and left to right).

    Raises:
        TypeError: ``game``, ``state`` or ``moves`` is of the wrong type.
    """
    state = position(game, state, moves)
    check_game(game, "minimax", ENGINE_KINDS)
    state = start(game, state, checked=True)
    traced = Trace(game) if trace else None
    engine = Engine(
        game, depth=depth, prune=False, observer=TraceObserver(game, traced) if traced is not None else None
    )
    started = time.perf_counter()
    if traced is not None:
        root = observed_root(engine, state, True)
    else:
        root = root_values(engine, state, _watched(engine, progress))
    stats = freeze(engine.counters, None, time.perf_counter() - started, (0, 0, 0))
    lines = Engine(game, depth=depth, table=TranspositionTable()) if pv else None
    result = _finish("minimax", engine, state, root, lines, stats, started, progress)
    return dataclasses.replace(result, expanded=traced.expanded()) if traced is not None else result


def observed_root(engine: Engine, state: State, all_moves: bool) -> Root[Move]:
    """The root of :func:`minimax` / :func:`alphabeta` searched by an observed ``engine``, the root node
    reported to its observer too: every move with the whole window (``all_moves``, and plain minimax),
    else one alpha-beta search from the root (:func:`root_search`, the textbook's)."""
    obs = engine.observer
    if not engine.prune or all_moves:
        assert obs is not None
        game = engine.game
        engine.counters.per_depth[0] += 1
        obs.enter(state, 0, -INF if engine.prune else None, INF if engine.prune else None)
        moves = list(game.legal_moves(state))
        values = []
        for m in moves:
            obs.child(m)
            values.append(-engine.exact(game.play(state, m), 1))
        obs.leave(Exit(max(values), "searched", window=(-INF, INF) if engine.prune else None))
        return Root(moves, values)
    return root_search(engine, state)


def root_values(engine: Engine, state: State, progress: SolveProgress | None = None) -> Root[Move]:
    """Every root move's exact value (each with the whole window), the root counted as a node;
    ``progress`` is told of each move as it is scored."""
    game = engine.game
    engine.counters.per_depth[0] += 1
    moves = list(game.legal_moves(state))
    if progress is None:
        return Root(moves, [-engine.exact(game.play(state, m), 1) for m in moves])
    progress.phase, progress.total = "moves", len(moves)
    values = []
    for m in moves:
        progress.current = text = game.format_move(state, m)
        values.append(-engine.exact(game.play(state, m), 1))
        progress.moved(text, values[-1])
    return Root(moves, values)


def _finish(
    name: str,
    engine: Engine,
    state: State,
    root: Root[Move],
    lines: Engine | None,
    stats: SearchStats,
    started: float,
    progress: SolveProgress | None,
) -> SearchResult:
    """The result of a search by ``engine`` whose root moves got ``root``, its lines followed by ``lines``,
    timed from ``started`` (the lines included)."""
    _phase(progress, "lines")
    heuristic = engine.counters.heuristic > 0
    result = build_result(name, engine.game, state, root, lines, engine.depth, stats, heuristic=heuristic)
    _phase(progress, "done")
    return timed(result, started)


def _phase(progress: SolveProgress | None, phase: Phase) -> None:
    if progress is not None:
        progress.phase = phase


def _watched(engine: Engine, progress: SolveProgress | None) -> SolveProgress | None:
    """``progress``, set to count ``engine``'s nodes and table."""
    if progress is not None:
        progress.engine, progress.phase = "python", "root"
        progress.count, progress.table_bytes = engine.nodes_now, engine.table_bytes
    return progress


def root_search(engine: Engine, state: State) -> Root[Move]:
    """The root's value and one best move, from one search of the root."""
    engine.root.move = None
    value = engine.exact(state, 0)
    move = engine.root.move
    if move is None:  # answered from the cache at the root: find the move without counting it
        quiet = Engine(engine.game, depth=engine.depth, table=engine.table, symmetry=engine.symmetry)
        move = best_move(quiet, state, value)
        if move is None:  # (a table of deeper searches: the best move at this depth, by full windows)
            moves = list(engine.game.legal_moves(state))
            scores = [-quiet.search(engine.game.play(state, m), -INF, INF, 1) for m in moves]
            move = moves[scores.index(max(scores))]
    return Root([move], [value])


def alphabeta(
    game: Game[S, M],
    state: S | None = None,
    *,
    moves: str | None = None,
    depth: int | None = None,
    cache: TranspositionTable | bool | None = True,
    symmetry: bool = True,
    all_moves: bool = True,
    pv: bool = True,
    time_limit: float | None = None,
    progress: SolveProgress | None = None,
    trace: bool = False,
) -> SearchResult:
    """Alpha-beta negamax with a bounds transposition table and depth-aware scores.

    Every root move gets its exact value (so the result lists all of them and
    all equally best moves), unless ``all_moves`` is false.

    Args:
        game: The game.
        state: The position to search (default: the start).
        moves: Instead of ``state``, the moves from the start, such as ``"B2 A1"``.
        depth: Search this many plies deep and score the positions there with
            the game's ``evaluate`` (default: to the end of the game).
        cache: A :class:`TranspositionTable`, ``True`` for a fresh default-sized
            one, or ``False``/``None`` for none.
        symmetry: Key the cache by the game's ``canonical_key`` when it has one.
        all_moves: Score every root move; false: only the root's score, one
            best move and the principal variation (faster; for batches and players).
        pv: Follow the principal variation (else only its first move).
        time_limit: Seconds: search by iterative deepening and return the
            deepest completed search (see :func:`iterative_deepening`).
        progress: Filled as the search goes, for a live display (nodes, the
            move being scored: :class:`gametree.search.progress.SolveProgress`).
        trace: Search as the textbook does (:func:`textbook`: no table, the moves in
            the game's order, one search from the root with the whole window) and list
            the nodes it entered, in order, in ``SearchResult.expanded``; ``cache``,
            ``symmetry`` and ``progress`` then do not apply.

    Raises:
        TypeError: ``game``, ``state`` or ``moves`` is of the wrong type.
        ValueError: ``trace`` with ``time_limit`` (a traced search is one search).
    """
    state = position(game, state, moves)
    check_game(game, "alphabeta", ENGINE_KINDS)
    state = start(game, state, checked=True)
    if trace:
        if time_limit is not None:
            raise ValueError("a traced alpha-beta is one search: it takes no time_limit")
        return textbook(game, state, depth=depth, all_moves=all_moves, pv=pv)
    if time_limit is not None:
        return iterative_deepening(
            game, state, time_limit=time_limit, depth=depth, cache=cache, symmetry=symmetry, all_moves=all_moves, pv=pv
        )
    return _alphabeta(
        game,
        state,
        depth=depth,
        cache=cache,
        symmetry=symmetry,
        all_moves=all_moves,
        pv=pv,
        deadline=None,
        progress=progress,
    )


def _alphabeta(
    game: Game[S, M],
    state: S,
    *,
    depth: int | None,
    cache: TranspositionTable | bool | None,
    symmetry: bool,
    all_moves: bool,
    pv: bool,
    deadline: float | None,
    progress: SolveProgress | None = None,
) -> SearchResult:
    """:func:`alphabeta` of a checked ``state``; ``deadline`` (a :func:`time.perf_counter`
    time) stops a depth-limited search with :class:`gametree.search.contract.SearchTimeout`."""
    table = table_of(cache)
    base = (table.probes, table.hits, table.stores) if table is not None else (0, 0, 0)
    engine = Engine(game, depth=depth, table=table, symmetry=symmetry, deadline=deadline)
    started = time.perf_counter()
    watch = _watched(engine, progress)
    root = root_values(engine, state, watch) if all_moves else root_search(engine, state)
    stats = freeze(engine.counters, table, time.perf_counter() - started, base)
    lines = (
        Engine(game, depth=depth, table=table if table is not None else TranspositionTable(), symmetry=symmetry)
        if pv
        else None
    )
    return _finish("alphabeta", engine, state, root, lines, stats, started, watch)


def textbook(
    game: Game[S, M], state: S, *, depth: int | None = None, all_moves: bool = True, pv: bool = True
) -> SearchResult:
    """Alpha-beta as the textbook has it (AIMA's ALPHA-BETA-SEARCH), traced: one search of ``state``
    with the whole window, the moves in the game's order, no transposition table (so no move is
    reordered by it), no null window and no score bounds (a value at the best score possible
    cuts off nothing the values seen would not); ``SearchResult.expanded`` lists the nodes it entered.

    The statistics and the trace are that search's.  With ``all_moves``, the values of the
    other root moves (which the textbook's search only bounds) are found afterwards by plain
    searches that are not counted, as the principal variation is.
    """
    traced = Trace(game)
    engine = Engine(game, depth=depth, observer=TraceObserver(game, traced), bounds=False)
    started = time.perf_counter()
    root = root_search(engine, state)
    stats = freeze(engine.counters, None, time.perf_counter() - started, (0, 0, 0))
    if all_moves:
        quiet = Engine(game, depth=depth)
        moves = list(game.legal_moves(state))
        root = Root(list[Move](moves), [-quiet.exact(game.play(state, m), 1) for m in moves])
    lines = Engine(game, depth=depth, table=TranspositionTable()) if pv else None
    result = _finish("alphabeta", engine, state, root, lines, stats, started, None)
    return dataclasses.replace(result, expanded=traced.expanded())


def iterative_deepening(
    game: Game[S, M],
    state: S | None = None,
    *,
    time_limit: float,
    moves: str | None = None,
    depth: int | None = None,
    cache: TranspositionTable | bool | None = True,
    symmetry: bool = True,
    all_moves: bool = True,
    pv: bool = True,
) -> SearchResult:
    """Anytime alpha-beta: depth 1, 2, ... until ``time_limit`` seconds have passed.

    Each iteration is a depth-limited :func:`alphabeta` sharing one cache
    (whose best moves order the next iteration).  Returns the deepest
    completed iteration, or the exact answer as soon as an iteration proves
    it.  A result cut short is marked ``proven=False``; ``depth`` is the
    depth it reached and ``stats.seconds`` the total time.
    Depth 1 always completes, however short the limit.

    Args:
        game: The game.
        state: The position to search (default: the start).
        time_limit: Seconds to search for.
        moves: Instead of ``state``, the moves from the start, such as ``"B2 A1"``.
        depth: Go no deeper than this many plies.
        cache: The table the iterations share, as for :func:`alphabeta`.
        symmetry: As for :func:`alphabeta`.
        all_moves: As for :func:`alphabeta`.
        pv: As for :func:`alphabeta`.

    Raises:
        TypeError: ``game``, ``state`` or ``moves`` is of the wrong type.
    """
    state = position(game, state, moves)
    check_game(game, "alphabeta", ENGINE_KINDS)
    state = start(game, state, checked=True)
    started = time.perf_counter()
    deadline = started + time_limit
    table = table_of(cache)
    most = game.info.max_plies - game.ply(state)
    if depth is not None:
        most = min(most, depth)
    best: SearchResult | None = None
    for d in range(1, most + 1):
        try:
            result = _alphabeta(
                game,
                state,
                depth=d,
                cache=table,
                symmetry=symmetry,
                all_moves=all_moves,
                pv=pv,
                deadline=None if best is None else deadline,
            )
        except SearchTimeout:
            break
        best = result
        if result.proven or time.perf_counter() > deadline:
            break  # proven: a win or loss within the horizon, or no heuristic leaf at all
    assert best is not None
    stats = dataclasses.replace(best.stats, seconds=time.perf_counter() - started)
    return dataclasses.replace(best, stats=stats)
