"""Game-agnostic search: plain minimax and alpha-beta (negamax) with depth-aware scores.

Scores are from the side to move: positive wins, 0 draws, negative loses.  A
win with the game-ending move played after ``n`` moves scores
``(C + 1 - n) // 2`` where ``C = game.info.max_plies`` (Pascal Pons's Connect
Four convention, generalised); a loss the negation.  So a faster win and a
slower loss score higher.  Heuristic values at a depth limit lie strictly
between -1 and 1, so they never outrank a proven result.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, NamedTuple

from .table import UNLIMITED_DEPTH, TranspositionTable, table_of
from ..game import Game, GameOverError, UnsupportedGameError

__all__ = [
    "ALGORITHMS",
    "SearchResult",
    "SearchStats",
    "MoveValue",
    "alphabeta",
    "iterative_deepening",
    "minimax",
    "Scored",
    "prepare",
    "prepare_scores",
    "run",
]

INF = float("inf")
#: Half-width of the window used to confirm a principal-variation move's value.
_EPS = 1e-9
#: Heuristic values are clamped into this range, inside (-1, 1).
_H_MAX = 0.999


@dataclass(frozen=True, slots=True)
class SearchStats:
    """What one search did.  Counters cover the search proper, not PV extraction.

    ``cutoffs`` counts beta cutoffs that left at least one move untried.
    """

    nodes: int
    terminals: int
    heuristic_leaves: int
    cutoffs: int
    cache_probes: int
    cache_hits: int
    cache_stores: int
    max_depth: int
    seconds: float
    nodes_per_second: float
    nodes_per_depth: tuple[int, ...]
    #: Playouts run (Monte Carlo searches only).
    iterations: int | None = None


@dataclass(frozen=True, slots=True)
class MoveValue:
    """The value of one root move, from the point of view of the side that plays it.

    Monte Carlo searches also give the move's ``visits`` and ``mean`` playout
    reward in [-1, 1]; other algorithms leave them None.
    """

    move: str
    score: float
    plies_to_end: int | None
    best: bool
    visits: int | None = None
    mean: float | None = None


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The answer of a search.

    ``value`` is ``"win"``, ``"loss"`` or ``"draw"`` for the side to move when
    proven, else ``"unknown"`` (a heuristic value at a depth limit: ``score`` is
    then a float in (-1, 1)).  ``winner`` is the player (0, 1) who wins under
    perfect play, or None (draw or unknown).  Moves are in the game's notation.
    ``weak`` results (``solver(..., weak=True)``) prove only the value: scores
    are +1, 0 or -1, not how fast, and there is no line to the end.
    """

    algorithm: str
    to_move: int
    value: str
    winner: int | None
    score: float
    proven: bool
    plies_to_end: int | None
    best_moves: tuple[str, ...]
    move_values: tuple[MoveValue, ...]
    pv: tuple[str, ...]
    depth: int | None
    stats: SearchStats
    weak: bool = False


class Scored(NamedTuple):
    """A position's score alone and what its search cost: what ``gametree solve --batch`` prints.

    ``weak``: the score is only the sign (+1, 0, -1) of the exact score.  See
    :func:`prepare_scores`.
    """

    score: float
    weak: bool
    nodes: int
    seconds: float


class _Counters:
    __slots__ = ("nodes", "terminals", "heuristic", "cutoffs", "per_depth")

    def __init__(self) -> None:
        self.nodes = self.terminals = self.heuristic = self.cutoffs = 0
        self.per_depth = [0] * 64

    def reset(self) -> None:
        """All counts back to 0, in place (an engine's node function holds on to ``per_depth``)."""
        self.nodes = self.terminals = self.heuristic = self.cutoffs = 0
        self.per_depth[:] = [0] * len(self.per_depth)

    def grow(self, height: int) -> None:
        """Make room to count nodes at ``height`` (and 64 more)."""
        if height >= len(self.per_depth):
            self.per_depth.extend([0] * (height + 1 - len(self.per_depth) + 64))


def _check_game(game: Game[Any, Any]) -> None:
    info = game.info
    for prop, ok in (
        ("players", info.players == 2),
        ("zero_sum", info.zero_sum),
        ("deterministic", info.deterministic),
        ("perfect_information", info.perfect_information),
    ):
        if not ok:
            raise UnsupportedGameError(f"minimax search needs a two-player, zero-sum, deterministic, perfect-information game ({prop} fails)")


def _clamp(value: float) -> float:
    return _H_MAX if value > _H_MAX else -_H_MAX if value < -_H_MAX else float(value)


class SearchTimeout(Exception):
    """A time-limited search ran out of time (caught by iterative deepening)."""


def _with_deadline(evaluate: Callable[[Any], float], deadline: float) -> Callable[[Any], float]:
    """``evaluate`` that raises :class:`SearchTimeout` once past ``deadline``.

    A time-limited search is a depth-limited one, so the clock is read at its
    heuristic leaves (every 64th), and searches without a time limit pay nothing.
    """
    calls = 0
    clock = time.perf_counter

    def timed(state: Any) -> float:
        nonlocal calls
        calls += 1
        if not calls & 63 and clock() > deadline:
            raise SearchTimeout
        return evaluate(state)

    return timed


class _Engine:
    """One search's worth of state: the game's functions bound once, counters, table."""

    def __init__(
        self,
        game: Game[Any, Any],
        *,
        limit: int | None,
        table: TranspositionTable | None,
        symmetry: bool,
        counters: _Counters,
        deadline: float | None = None,
    ) -> None:
        self.game = game
        self.limit = UNLIMITED_DEPTH if limit is None else limit
        self.table = table
        self.c = counters
        self.C = game.info.max_plies
        canonical = getattr(game, "canonical_key", None)
        self.keyf: Callable[[Any], Hashable] = canonical if (symmetry and canonical is not None) else game.key
        evaluate = getattr(game, "evaluate", None)
        self.evaluate: Callable[[Any], float] = evaluate if evaluate is not None else (lambda s: 0.0)
        if deadline is not None:
            self.evaluate = _with_deadline(self.evaluate, deadline)
        #: Best move found by the last alpha-beta call at height 0.
        self.root_move: Any = None

    # -- leaves ---------------------------------------------------------------
    def terminal_score(self, state: Any, winner: int | None) -> int:
        if winner is None:
            return 0
        magnitude = (self.C + 2 - self.game.ply(state)) // 2
        return magnitude if winner == self.game.to_move(state) else -magnitude

    # -- plain minimax (teaching baseline: no pruning, no cache) ---------------
    def minimax(self, state: Any, height: int) -> float:
        c = self.c
        c.nodes += 1
        if height >= len(c.per_depth):
            c.grow(height)
        c.per_depth[height] += 1
        game = self.game
        out = game.outcome(state)
        if out is not None:
            c.terminals += 1
            return self.terminal_score(state, out.winner)
        if height >= self.limit:
            c.heuristic += 1
            return _clamp(self.evaluate(state))
        best = -INF
        play = game.play
        for move in game.legal_moves(state):
            value = -self.minimax(play(state, move), height + 1)
            if value > best:
                best = value
        return best

    # -- alpha-beta negamax with bounds table --------------------------------
    def alphabeta(self, state: Any, alpha: float, beta: float, height: int) -> float:
        """Fail-soft negamax: the result ``v`` satisfies
        ``v <= alpha -> value <= v``, ``v >= beta -> value >= v``, else ``value == v``."""
        c = self.c
        c.nodes += 1
        if height >= len(c.per_depth):
            c.grow(height)
        c.per_depth[height] += 1
        game = self.game
        out = game.outcome(state)
        if out is not None:
            c.terminals += 1
            return self.terminal_score(state, out.winner)
        remaining = self.limit - height
        if remaining <= 0:
            c.heuristic += 1
            return _clamp(self.evaluate(state))

        # No score can beat winning with the very next move.
        bound = (self.C + 1 - game.ply(state)) // 2
        if beta > bound:
            beta = bound
            if alpha >= beta:
                return beta
        if alpha < -bound:
            alpha = -bound
            if alpha >= beta:
                return alpha

        table = self.table
        hash_move = None
        if table is not None:
            key = self.keyf(state)
            entry = table.get(key)
            if entry is not None:
                lower, upper, hash_move, depth = entry
                if depth >= remaining:
                    if lower >= beta:
                        return lower
                    if upper <= alpha:
                        return upper
                    if lower == upper:
                        return lower
                    if lower > alpha:
                        alpha = lower
                    if upper < beta:
                        beta = upper

        moves = game.legal_moves(state)
        if hash_move is not None and hash_move in moves:
            moves = [hash_move, *(m for m in moves if m != hash_move)]
        play = game.play
        alpha0 = alpha
        best = -INF
        best_move = None
        for move in moves:
            value = -self.alphabeta(play(state, move), -beta, -alpha, height + 1)
            if value > best:
                best = value
                best_move = move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        if move is not moves[-1]:
                            c.cutoffs += 1  # moves were left untried
                        break

        if height == 0:
            self.root_move = best_move
        if table is not None:
            if best <= alpha0:
                table.put(key, -INF, best, best_move, remaining)
            elif best >= beta:
                table.put(key, best, INF, best_move, remaining)
            else:
                table.put(key, best, best, best_move, remaining)
        return best

    def exact(self, state: Any, height: int) -> float:
        return self.alphabeta(state, -INF, INF, height)


class _Root(NamedTuple):
    """Exact values of all root moves (internal; a named tuple: cheaper to define and build than a frozen dataclass)."""

    moves: list[Any]
    values: list[float]


def _deepest(per_depth: tuple[int, ...]) -> int:
    """The deepest height with a node (0 if none), without looking at every height."""
    zeros = per_depth.count(0)
    size = len(per_depth)
    if zeros == size:
        return 0
    first = 0 if per_depth[0] else next(i for i, n in enumerate(per_depth) if n)
    # The heights searched are one run from the first: a node's parent is counted one higher up.
    end = per_depth.index(0, first) if zeros > first else size
    if zeros != first + size - end:  # not one run after all (a caller counting its own way)
        return max(i for i, n in enumerate(per_depth) if n)
    return end - 1


def _freeze(counters: _Counters, table: TranspositionTable | None, seconds: float, base: tuple[int, int, int]) -> SearchStats:
    per_depth = tuple(counters.per_depth)
    last = _deepest(per_depth)
    nodes = sum(per_depth)  # every engine counts each node at its depth (the solver only there)
    probes = hits = stores = 0
    if table is not None:
        probes, hits, stores = table.probes - base[0], table.hits - base[1], table.stores - base[2]
    # nodes, terminals, heuristic_leaves, cutoffs, cache_probes, cache_hits, cache_stores, max_depth, seconds,
    # nodes_per_second, nodes_per_depth (positional: keywords cost a microsecond more per search)
    return SearchStats(
        nodes, counters.terminals, counters.heuristic, counters.cutoffs, probes, hits, stores, last, seconds,
        nodes / seconds if seconds > 0 else 0.0, per_depth[: last + 1],
    )


def _best_move(engine: _Engine, state: Any, value: float, height: int = 0) -> Any:
    """A move from ``state`` that keeps its ``value``: the child's value, confirmed
    with a narrow window around ``-value``, is exactly ``-value``."""
    game = engine.game
    target = -value
    lo, hi = target - _EPS, target + _EPS
    moves = game.legal_moves(state)
    entry = engine.table.get(engine.keyf(state)) if engine.table is not None else None
    if entry is not None and entry[2] in moves and entry[2] != moves[0]:
        # The table's best move (maybe of a symmetric image: still confirmed) first.
        moves = [entry[2], *(m for m in moves if m != entry[2])]
    for move in moves:
        got = engine.alphabeta(game.play(state, move), lo, hi, height + 1)
        if lo < got < hi:
            return move
    raise AssertionError("no move keeps the value: the search is inconsistent")  # pragma: no cover


def _principal_variation(engine: _Engine, state: Any, first: Any, value: float) -> tuple[list[Any], bool]:
    """Follow moves that keep ``value`` from ``state`` (whose best move is ``first``).

    Returns the moves and whether the line reaches the end of the game.  Each
    step confirms a child's value with a narrow window around it, so every
    move on the line is really optimal under the depth-aware scores.
    """
    game = engine.game
    line = [first]
    state = game.play(state, first)
    value = -value
    height = 1
    while True:
        if game.outcome(state) is not None:
            return line, True
        if height >= engine.limit:
            return line, False
        move = _best_move(engine, state, value, height)
        line.append(move)
        state, value, height = game.play(state, move), -value, height + 1


def _plies_to_end_of(engine: _Engine, state: Any, move: Any, value: float) -> int | None:
    line, ended = _principal_variation(engine, state, move, value)
    return len(line) if ended else None


def _result(
    algorithm: str,
    game: Game[Any, Any],
    state: Any,
    root: _Root,
    engine_for_pv: _Engine,
    depth: int | None,
    stats: SearchStats,
    heuristic: bool,
    want_pv: bool,
    weak: bool = False,
) -> SearchResult:
    fmt = game.format_move
    if len(root.moves) == 1 and not want_pv:  # one root move and no line to follow (a --batch solve): the short way
        move, score = root.moves[0], root.values[0]
        text = fmt(state, move)
        me = game.to_move(state)
        proven = not heuristic or abs(score) >= 1
        value, winner = _value_and_winner(score, me, proven)
        # Positional arguments, in field order: keywords cost a microsecond more per result.
        return SearchResult(algorithm, me, value, winner, score, proven, None, (text,), (MoveValue(text, score, None, True),), (text,), depth, stats, weak)
    best_value = max(root.values)
    texts = [fmt(state, m) for m in root.moves]
    best = root.values.index(best_value)
    if want_pv:
        pv_raw, ended = _principal_variation(engine_for_pv, state, root.moves[best], best_value)
    else:
        pv_raw, ended = [root.moves[best]], False
    proven = not heuristic or abs(best_value) >= 1
    plies = len(pv_raw) if ended else None
    move_values = tuple(
        MoveValue(
            move=text,
            score=v,
            plies_to_end=(plies if i == best else _plies_to_end_of(engine_for_pv, state, m, v)) if ended else None,
            best=v == best_value,
        )
        for i, (m, v, text) in enumerate(zip(root.moves, root.values, texts))
    )
    pv_text = [texts[best]]
    s = state
    for previous, m in zip(pv_raw, pv_raw[1:]):
        s = game.play(s, previous)
        pv_text.append(fmt(s, m))
    me = game.to_move(state)
    value, winner = _value_and_winner(best_value, me, proven)
    return SearchResult(
        algorithm=algorithm,
        to_move=me,
        value=value,
        winner=winner,
        score=best_value,
        proven=proven,
        plies_to_end=plies,
        best_moves=tuple(text for text, v in zip(texts, root.values) if v == best_value),
        move_values=move_values,
        pv=tuple(pv_text),
        depth=depth,
        stats=stats,
        weak=weak,
    )


def _value_and_winner(score: float, me: int, proven: bool) -> tuple[str, int | None]:
    """``"win"``, ``"loss"``, ``"draw"`` or ``"unknown"``, and the winner, of a root score for player ``me``."""
    if not proven:
        return "unknown", None
    if score > 0:
        return "win", me
    if score < 0:
        return "loss", 1 - me
    return "draw", None


def _start(game: Game[Any, Any], state: Any, *, checked: bool = False) -> Any:
    """The state to search (the start if None), refused if the game is over; ``checked``: the game was checked before."""
    if not checked:
        _check_game(game)
    state = game.initial_state() if state is None else state
    if game.outcome(state) is not None:
        raise GameOverError("the game is over: there is nothing to search")
    return state


def minimax(
    game: Game[Any, Any], state: Any = None, *, depth: int | None = None, all_moves: bool = True, pv: bool = True
) -> SearchResult:
    """Plain minimax: every node of the tree, no pruning, no cache.

    The teaching baseline; on empty 3x3 tic-tac-toe it visits 549,946 nodes.
    The principal variation is extracted afterwards by a separate alpha-beta
    pass that is not counted in the statistics.
    """
    state = _start(game, state)
    counters = _Counters()
    engine = _Engine(game, limit=depth, table=None, symmetry=False, counters=counters)
    start = time.perf_counter()
    counters.nodes += 1
    counters.per_depth[0] += 1
    moves = list(game.legal_moves(state))
    values = [-engine.minimax(game.play(state, m), 1) for m in moves]
    stats = _freeze(counters, None, time.perf_counter() - start, (0, 0, 0))
    pv_engine = _Engine(game, limit=depth, table=TranspositionTable(), symmetry=True, counters=_Counters())
    return _result("minimax", game, state, _Root(moves, values), pv_engine, depth, stats, counters.heuristic > 0, pv)


def alphabeta(
    game: Game[Any, Any],
    state: Any = None,
    *,
    depth: int | None = None,
    cache: TranspositionTable | bool | None = True,
    symmetry: bool = True,
    all_moves: bool = True,
    pv: bool = True,
    time_limit: float | None = None,
    _deadline: float | None = None,
) -> SearchResult:
    """Alpha-beta negamax with a bounds transposition table and depth-aware scores.

    Every root move gets its exact value (so the result lists all of them and
    all equally best moves).  ``cache`` is a :class:`TranspositionTable`,
    ``True`` for a fresh default-sized one, or ``False``/``None`` for none.
    ``symmetry`` keys the cache by the game's ``canonical_key`` when it has one.
    With ``all_moves=False`` only the root's score, one best move and the
    principal variation are computed (faster; for batches and players);
    ``pv=False`` also skips extracting the principal variation.
    ``time_limit`` (seconds) searches by iterative deepening and returns the
    deepest completed search (see :func:`iterative_deepening`).
    """
    if time_limit is not None:
        return iterative_deepening(
            alphabeta, game, state, time_limit=time_limit, depth=depth, cache=cache, symmetry=symmetry, all_moves=all_moves, pv=pv
        )
    state = _start(game, state)
    table = table_of(cache)
    base = (table.probes, table.hits, table.stores) if table is not None else (0, 0, 0)
    counters = _Counters()
    engine = _Engine(game, limit=depth, table=table, symmetry=symmetry, counters=counters, deadline=_deadline)
    start = time.perf_counter()
    if all_moves:
        counters.nodes += 1
        counters.per_depth[0] += 1
        moves = list(game.legal_moves(state))
        values = [-engine.exact(game.play(state, m), 1) for m in moves]
    else:
        engine.root_move = None
        value = engine.exact(state, 0)
        move = engine.root_move
        if move is None:  # answered from the cache at the root: find the move without counting it
            quiet = _Engine(game, limit=depth, table=table, symmetry=symmetry, counters=_Counters())
            move = _best_move(quiet, state, value)
        moves, values = [move], [value]
    stats = _freeze(counters, table, time.perf_counter() - start, base)
    pv_table = table if table is not None else TranspositionTable()
    pv_engine = _Engine(game, limit=depth, table=pv_table, symmetry=symmetry, counters=_Counters())
    return _result("alphabeta", game, state, _Root(moves, values), pv_engine, depth, stats, counters.heuristic > 0, pv)


def iterative_deepening(
    function: Callable[..., SearchResult],
    game: Game[Any, Any],
    state: Any = None,
    *,
    time_limit: float,
    depth: int | None = None,
    cache: TranspositionTable | bool | None = True,
    **options: Any,
) -> SearchResult:
    """Anytime search: depth 1, 2, ... until ``time_limit`` seconds have passed.

    Each iteration is a depth-limited ``function`` search sharing one cache
    (whose best moves order the next iteration).  Returns the deepest
    completed iteration, or the exact answer as soon as an iteration proves
    it.  A result cut short is marked ``proven=False``; ``depth`` is the
    depth it reached and ``stats.seconds`` the total time.
    Depth 1 always completes, however short the limit.
    """
    state = _start(game, state)
    start = time.perf_counter()
    deadline = start + time_limit
    table = table_of(cache)
    most = game.info.max_plies - game.ply(state)
    if depth is not None:
        most = min(most, depth)
    best: SearchResult | None = None
    for d in range(1, most + 1):
        try:
            result = function(game, state, depth=d, cache=table, _deadline=None if best is None else deadline, **options)
        except SearchTimeout:
            break
        best = result
        if result.proven or time.perf_counter() > deadline:
            break  # proven: a win or loss within the horizon, or no heuristic leaf at all
    assert best is not None
    stats = dataclasses.replace(best.stats, seconds=time.perf_counter() - start)
    return dataclasses.replace(best, stats=stats)


def solver(game: Game[Any, Any], state: Any = None, **options: Any) -> SearchResult:
    """The fast exact solver (see :mod:`gametree.search.exact`)."""
    from .exact import solver as _solver

    return _solver(game, state, **options)


def _prepare_solver(game: Game[Any, Any], **options: Any) -> Callable[[Any], SearchResult]:
    from .exact import prepare as _prepare

    return _prepare(game, **options)


def _prepare_solver_scores(game: Game[Any, Any], **options: Any) -> Callable[[Any], Scored]:
    from .exact import prepare_scores as _prepare_scores

    return _prepare_scores(game, **options)


solver.prepare = _prepare_solver  # type: ignore[attr-defined]
solver.prepare_scores = _prepare_solver_scores  # type: ignore[attr-defined]


def prepare(function: Callable[..., SearchResult], game: Game[Any, Any], **options: Any) -> Callable[[Any], SearchResult]:
    """``function`` bound to ``game`` and ``options``, for many positions in a row.

    ``prepare(solver, game, cache=table)(state)`` is ``solver(game, state, cache=table)``.
    An algorithm that can set itself up once for many positions offers its own
    ``function.prepare(game, **options)`` (the solver does); any other is just bound.
    """
    own = getattr(function, "prepare", None)
    if own is not None:
        return own(game, **options)  # type: ignore[no-any-return]
    return functools.partial(function, game, **options)


def prepare_scores(function: Callable[..., SearchResult], game: Game[Any, Any], **options: Any) -> Callable[[Any], Scored]:
    """As :func:`prepare`, for when only each position's score matters: the callable returns :class:`Scored`.

    An algorithm that can prove a score without building a whole
    :class:`SearchResult` (best move, statistics by depth) offers its own
    ``function.prepare_scores(game, **options)`` (the solver does: on Pons's
    end-game set about 15 us less per position, 6% of the instructions of the
    whole ``gametree solve --batch`` run); any other is prepared with
    ``all_moves=False, pv=False`` and its results cut down.
    """
    own = getattr(function, "prepare_scores", None)
    if own is not None:
        return own(game, **options)  # type: ignore[no-any-return]
    return _scores_of(prepare(function, game, **{**options, "all_moves": False, "pv": False}))


def _scores_of(solve: Callable[[Any], SearchResult]) -> Callable[[Any], Scored]:
    """``solve`` with its results cut down to :class:`Scored`."""

    def scored(state: Any) -> Scored:
        result = solve(state)
        return Scored(result.score, result.weak, result.stats.nodes, result.stats.seconds)

    return scored


def mcts(
    game: Game[Any, Any],
    state: Any = None,
    *,
    iterations: int | None = None,
    time_limit: float | None = None,
    exploration: float | None = None,
    seed: int | None = None,
    depth: int | None = None,
    all_moves: bool = True,
    pv: bool = True,
) -> SearchResult:
    """Monte Carlo tree search (UCT) with proven-value bounds (see :mod:`gametree.search.montecarlo`)."""
    from .montecarlo import mcts as _mcts

    return _mcts(
        game, state, iterations=iterations, time_limit=time_limit, exploration=exploration, seed=seed, depth=depth, all_moves=all_moves, pv=pv
    )


#: Algorithms by name.  Plugins can add more through ``gametree_register_algorithms``.
ALGORITHMS: dict[str, Callable[..., SearchResult]] = {"minimax": minimax, "alphabeta": alphabeta, "solver": solver, "mcts": mcts}


def run(game: Game[Any, Any], state: Any = None, *, algorithm: str = "alphabeta", **options: Any) -> SearchResult:
    """Run a search by algorithm name: ``run(game, state, algorithm="solver", weak=True)``."""
    try:
        function = ALGORITHMS[algorithm]
    except KeyError:
        raise ValueError(f"unknown algorithm {algorithm!r} (choose from {', '.join(sorted(ALGORITHMS))})") from None
    return function(game, state, **options)
