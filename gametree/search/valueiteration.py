"""Value iteration: two-player zero-sum games with chance nodes whose positions repeat (Pig).

A depth-first search of a game whose positions come back need not end, and a
dice game's value is an expectation, so the searches of
:mod:`gametree.search.chance` refuse such a game (``GameInfo.repeats``).  Value
iteration solves it as Neller and Presser solve Pig ("Optimal Play of the Dice
Game Pig", The UMAP Journal 25(1), 2004): every position gets a value, and each
value is set again from its children's (the best child for the player to
move, the probability-weighted mean at a chance node) until no value changes
by more than the **tolerance** (default 1e-9) in a whole sweep.

1. **Enumerate** the positions into arrays (numpy, one entry a position): by the
   game's perfect hash when it has one (:class:`gametree.game.Ranked`: Pig's two
   million positions to 100 without a dictionary of states), their moves from the
   game's arrays when it gives them (:class:`gametree.game.RankedMoves`: no rules
   called position by position), else breadth-first from the searched position,
   each new key numbered in turn.  At most
   ``max_positions`` (default 30 million): a larger game is refused in one line.
2. **Iterate**: Gauss-Seidel sweeps (each value set from its children's newest
   values, the positions taken from the last to the first) in compiled code
   (:mod:`gametree.search.sweep_kernel`) until the largest change in a sweep is at
   most the tolerance.  The values start at 0 (a draw).

**Values** are the first player's expected payoff (+1 a win, -1 a loss, 0 a
draw), as expectiminimax's are; a result gives them for the side to move (the
first player at a chance node), so a search's ``score`` is ``2p - 1`` for the
side to move's probability ``p`` of winning (a game without draws), comparable
with the other chance searches' scores.  :meth:`ValueTable.win_probability`
gives ``p`` itself.  They are floats, close to the fixed point within about the
tolerance (not exact fractions: ``exact`` is None); a move is ``best`` if its
value is within the tolerance of the best one.

>>> from gametree import load
>>> game = load().game("pig").create(goal=2)
>>> table = solve_values(game)
>>> round(table.win_probability(game.initial_state()), 6)
0.857143
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # (numpy is imported where values are computed: not on gametree's import path)
    import numpy as np

from ..game import (
    CHANCE,
    FINISHED,
    Game,
    GameKind,
    M,
    Probability,
    Ranked,
    RankedMoves,
    S,
    Stochastic,
    UnsupportedGameError,
    capabilities,
    payoffs,
)
from .progress import SolveProgress
from .results import MoveValue, SearchResult, Value, check_game, position, start, stats_of

__all__ = [
    "DEFAULT_MAX_POSITIONS",
    "DEFAULT_TOLERANCE",
    "SUPPORTS",
    "ValueTable",
    "progress_text",
    "solve_values",
    "value_iteration",
]

#: The kinds of game value iteration supports beyond the plain one.
SUPPORTS: Final = frozenset({GameKind.CHANCE, GameKind.REPEATS})
#: Sweeps stop once no value changes by more than this.
DEFAULT_TOLERANCE: Final = 1e-9
#: The most positions enumerated (30 million: about 0.5 GB of arrays for a game of three children a position).
DEFAULT_MAX_POSITIONS: Final = 30_000_000
#: The most sweeps before giving up (a game whose values do not settle).
MAX_SWEEPS: Final = 100_000


class _Numbering:
    """Positions numbered: by the game's perfect hash, or in the order first met (a dictionary of keys)."""

    def __init__(self, game: Game[Any, Any], root: Hashable, limit: int) -> None:
        self.game = game
        self.ranked: Ranked[Any] | None = game if isinstance(game, Ranked) else None
        self.limit = limit
        if self.ranked is not None:
            count = self.ranked.position_count()
            if count > limit:
                raise UnsupportedGameError(f"value iteration: {count:,} positions, more than the {limit:,} allowed")
            self.count = count
            self.states: list[Any] = []
            self.keys: dict[Hashable, int] = {}
        else:
            self.count = 1
            self.states = [root]
            self.keys = {game.key(root): 0}

    def number(self, state: Any) -> int:
        if self.ranked is not None:
            return self.ranked.rank(state)
        key = self.game.key(state)
        found = self.keys.get(key)
        if found is not None:
            return found
        if self.count >= self.limit:
            raise UnsupportedGameError(f"value iteration: more than the {self.limit:,} positions allowed")
        self.keys[key] = self.count
        self.states.append(state)
        self.count += 1
        return self.count - 1

    def state(self, index: int) -> Any:
        return self.ranked.unrank(index) if self.ranked is not None else self.states[index]


@dataclass(frozen=True, slots=True, eq=False)
class _Graph:
    """The positions as arrays: kind (see :mod:`gametree.search.sweep_kernel`), children in
    compressed rows with their probabilities, and the fixed values of the finished games."""

    kind: np.ndarray
    start: np.ndarray
    child: np.ndarray
    prob: np.ndarray
    fixed: np.ndarray


def _enumerate(game: Game[Any, Any], numbering: _Numbering, progress: SolveProgress | None) -> _Graph:
    """Every position of ``numbering`` (growing as new ones are met) with its children."""
    import numpy as np

    from .sweep_kernel import AVERAGE, FIXED, MAX, MIN

    stochastic: Stochastic[Any, Any] | None = capabilities(game).stochastic
    kind, fixed = array("b"), array("d")
    start, child, prob = array("q", [0]), array("q"), array("d")
    number, play = numbering.number, game.play
    floats: dict[int, tuple[Probability, float]] = {}  # by the probability object's id, kept alive here
    i = 0
    while i < numbering.count:
        state = numbering.state(i)
        out = game.outcome(state)
        if out is not None:
            kind.append(FIXED)
            fixed.append(float(payoffs(game, out)[0]))
        else:
            fixed.append(0.0)
            mover = game.to_move(state)
            if mover == CHANCE:
                if stochastic is None:
                    raise UnsupportedGameError("value iteration: a chance node, and no chance_outcomes()")
                kind.append(AVERAGE)
                for move, p in stochastic.chance_outcomes(state):
                    child.append(number(play(state, move)))
                    seen = floats.get(id(p))  # (a Fraction's float is slow: each probability converted once)
                    if seen is None or seen[0] is not p:
                        seen = floats[id(p)] = (p, float(p))
                    prob.append(seen[1])
            else:
                kind.append(MAX if mover == 0 else MIN)
                for move in game.legal_moves(state):
                    child.append(number(play(state, move)))
                    prob.append(1.0)
        start.append(len(child))
        i += 1
        if progress is not None and not i & 0xFFF:
            progress.engine = f"value iteration: {i:,} of {numbering.count:,} positions enumerated"
            progress.count = _counter(i)
    return _Graph(
        np.frombuffer(kind, dtype=np.int8),
        np.frombuffer(start, dtype=np.int64),
        np.frombuffer(child, dtype=np.int64),
        np.frombuffer(prob, dtype=np.float64),
        np.frombuffer(fixed, dtype=np.float64),
    )


def _from_arrays(game: RankedMoves) -> _Graph:
    """The graph of a game that gives every rank's moves as arrays (:class:`gametree.game.RankedMoves`)."""
    import numpy as np

    from .sweep_kernel import AVERAGE, FIXED, MAX, MIN

    mover, payoff, start, child, prob = game.ranked_moves()
    kind = np.select([mover == 0, mover == 1, mover == CHANCE, mover == FINISHED], [MAX, MIN, AVERAGE, FIXED], -1)
    if np.any(kind < 0):
        raise UnsupportedGameError("value iteration: ranked_moves() gave a mover that is not 0, 1, CHANCE or FINISHED")
    fixed = np.where(kind == FIXED, np.asarray(payoff, dtype=np.float64), 0.0)
    return _Graph(
        kind.astype(np.int8),
        np.asarray(start, dtype=np.int64),
        np.asarray(child, dtype=np.int64),
        np.asarray(prob, dtype=np.float64),
        fixed,
    )


@dataclass(frozen=True, slots=True, eq=False)
class ValueTable:
    """Every position's value found by value iteration, and how: ``sweeps`` made, the last sweep's
    largest change (``change``, at most ``tolerance``), ``seconds`` to enumerate and to iterate."""

    game: Game[Any, Any]
    values: np.ndarray
    tolerance: float
    sweeps: int
    change: float
    seconds: tuple[float, float]
    _numbering: _Numbering
    _graph: _Graph

    @property
    def positions(self) -> int:
        return int(self.values.shape[0])

    def index(self, state: Any) -> int:
        """The position's place in :attr:`values`; :class:`KeyError` for a position not enumerated."""
        numbering = self._numbering
        if numbering.ranked is not None:
            return numbering.ranked.rank(state)
        return numbering.keys[self.game.key(state)]

    def covers(self, state: Any) -> bool:
        """Whether ``state``'s position was enumerated (every position is, for a game with a perfect hash)."""
        try:
            self.index(state)
        except KeyError:
            return False
        return True

    def payoff(self, state: Any) -> float:
        """The expected payoff for the side to move (the first player at a chance node)."""
        v = float(self.values[self.index(state)])
        return -v if self.game.to_move(state) == 1 else v

    def win_probability(self, state: Any) -> float:
        """The probability that the side to move (the first player at a chance node) wins, in a game
        without draws; with draws, half a draw's probability added."""
        return (self.payoff(state) + 1.0) / 2.0

    def move_values(self, state: Any) -> list[tuple[Any, float]]:
        """Each move of ``state`` (each outcome at a chance node) with the expected payoff after it
        for the side to move at ``state`` (the first player at a chance node)."""
        game = self.game
        flip = game.to_move(state) == 1
        rows = []
        for move in _moves(game, state):
            v = float(self.values[self.index(game.play(state, move))])
            rows.append((move, -v if flip else v))
        return rows

    def best_moves(self, state: Any) -> list[Any]:
        """The moves whose value is within the tolerance of the best (none at a chance node)."""
        if self.game.to_move(state) == CHANCE:
            return []
        rows = self.move_values(state)
        top = max(v for _, v in rows)
        return [move for move, v in rows if v >= top - self.tolerance]


def _moves(game: Game[Any, Any], state: Any) -> Sequence[Any]:
    if game.to_move(state) == CHANCE:
        stochastic = capabilities(game).stochastic
        assert stochastic is not None
        return [move for move, _ in stochastic.chance_outcomes(state)]
    return game.legal_moves(state)


def _counter(count: int) -> Callable[[], int]:
    """What a progress display calls for the work done: positions enumerated, or values set."""
    return lambda: count


def _iterate(graph: _Graph, tolerance: float, progress: SolveProgress | None) -> tuple[np.ndarray, int, float]:
    """Sweep until the largest change is at most ``tolerance``: the values, the sweeps, the last change."""
    from .sweep_kernel import compiled_sweep

    sweep = compiled_sweep()
    values = graph.fixed.copy()
    for sweeps in range(1, MAX_SWEEPS + 1):
        change = float(sweep(graph.kind, graph.start, graph.child, graph.prob, values))
        if progress is not None:
            progress.engine = f"value iteration: sweep {sweeps}, largest change {change:.1e} (to {tolerance:g})"
            progress.count = _counter(sweeps * values.shape[0])
        if change <= tolerance:
            return values, sweeps, change
    raise UnsupportedGameError(f"value iteration: the values did not settle in {MAX_SWEEPS:,} sweeps")


def solve_values(
    game: Game[S, M],
    state: S | None = None,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    max_positions: int = DEFAULT_MAX_POSITIONS,
    progress: SolveProgress | None = None,
) -> ValueTable:
    """Value iteration over every position of ``game`` (its perfect hash's), or every position
    reachable from ``state`` (default: the start); see the module.

    Raises:
        UnsupportedGameError: A game of a kind value iteration cannot solve (more players, a
            margin...), more than ``max_positions`` positions, or values that do not settle.
        ValueError: A tolerance that is not positive.
    """
    check_game(game, "value-iteration", SUPPORTS)
    if not tolerance > 0:
        raise ValueError(f"the tolerance must be positive, not {tolerance}")
    root = game.initial_state() if state is None else state
    began = time.perf_counter()
    if progress is not None:
        progress.phase, progress.engine = "root", "value iteration: enumerating the positions"
    numbering = _Numbering(game, root, max_positions)
    if isinstance(game, RankedMoves) and numbering.ranked is not None:
        graph = _from_arrays(game)
    else:
        graph = _enumerate(game, numbering, progress)
    counted = time.perf_counter()
    values, sweeps, change = _iterate(graph, tolerance, progress)
    seconds = (counted - began, time.perf_counter() - counted)
    return ValueTable(game, values, tolerance, sweeps, change, seconds, numbering, graph)


def value_iteration(
    game: Game[S, M],
    state: S | None = None,
    *,
    moves: str | None = None,
    tolerance: float | None = None,
    all_moves: bool = True,
    pv: bool = True,
    progress: SolveProgress | None = None,
    table: ValueTable | None = None,
) -> SearchResult:
    """The value of ``state`` (default: the start) and of each of its moves by value iteration
    (see the module): ``score`` is the side to move's expected payoff, ``2p - 1`` for its winning
    probability ``p``; the principal variation follows the best moves to the first chance node.

    Args:
        tolerance: Sweep until no value changes by more than this (default 1e-9).
        all_moves: Kept for the common interface: every move is valued anyway.
        table: Values found before (:func:`solve_values`) that cover ``state``: no new iteration.
    """
    check_game(game, "value-iteration", SUPPORTS)
    searched: S = start(game, position(game, state, moves), checked=True)
    began = time.perf_counter()
    if table is None or not table.covers(searched):
        table = solve_values(game, searched, tolerance=tolerance or DEFAULT_TOLERANCE, progress=progress)
    return _result(table, searched, pv, time.perf_counter() - began)


def _result(table: ValueTable, state: Any, pv: bool, seconds: float) -> SearchResult:
    game = table.game
    fmt = game.format_move
    mover = game.to_move(state)
    rows = table.move_values(state)
    score = table.payoff(state)
    top = None if mover == CHANCE else max(v for _, v in rows)
    moves = tuple(
        MoveValue(fmt(state, m), v, None, top is not None and v >= top - table.tolerance, game_move=m) for m, v in rows
    )
    line: list[str] = []
    s = state
    while game.outcome(s) is None and game.to_move(s) != CHANCE and (pv or not line):
        best = table.best_moves(s)[0]
        line.append(fmt(s, best))
        s = game.play(s, best)
    near = table.tolerance * 2
    verdict: Value = "win" if score > near else "loss" if score < -near else "draw"
    player = 0 if mover == CHANCE else mover
    winner = None if verdict == "draw" else player if verdict == "win" else 1 - player
    import numpy as np

    from .sweep_kernel import FIXED  # (numba is imported by now: the values were swept)

    finished = int(np.count_nonzero(table._graph.kind == FIXED))
    # (nodes: the values set, positions times sweeps; terminals: the finished games among the positions)
    stats = stats_of([table.positions], seconds, nodes=table.positions * table.sweeps, terminals=finished)
    return SearchResult(
        "value-iteration",
        mover,
        verdict,
        winner,
        score,
        True,
        None,
        tuple(mv.move for mv in moves if mv.best),
        moves,
        tuple(line),
        None,
        stats,
    )


def progress_text(table: ValueTable) -> str:
    """How the values were found, in one line: positions, sweeps, seconds."""
    enumerate_s, iterate_s = table.seconds
    return (
        f"{table.positions:,} positions enumerated in {enumerate_s:.1f} s, {table.sweeps} sweeps in "
        f"{iterate_s:.1f} s (largest last change {table.change:.1e})"
    )
