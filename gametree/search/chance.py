"""Expectiminimax, Star1 and Star2: two-player zero-sum games with chance nodes.

A game with dice (``GameInfo.deterministic`` False) has three kinds of node:
the first player's (MAX), the second player's (MIN) and chance's
(:data:`gametree.game.CHANCE` to move), whose outcomes come with their
probabilities (:class:`gametree.game.Stochastic`).  **Expectiminimax** values
a chance node at the probability-weighted mean of its children, and visits
every node.  **Star1** and **Star2** (Ballard, "The *-minimax search procedure
for trees containing chance nodes", Artificial Intelligence 21, 1983; Hauk,
Buro and Schaeffer, "Rediscovering *-Minimax Search", Computers and Games
2004) give exactly the same value with fewer nodes, pruning at chance nodes
too: knowing that every payoff lies in ``[L, U]`` (``GameInfo.payoff_bounds``;
``[-1, 1]`` for a win/draw/loss game), a chance node whose children searched
so far already force its mean below alpha (or above beta), whatever the rest
turn out to be, needs no more children.  Star2 first *probes* each child (the
child's first move only: a bound on the child), which can cut a chance node
off before any child is searched fully.  See docs/expectiminimax.md.

**Values** of a game with chance are payoffs, not depth-aware scores: +1, 0
and -1 for a win, a draw and a loss (the expected payoff is what a dice game's
value means; a faster win scores no higher), the final margin in a margin
game.  A game without chance keeps the core's scores (depth-aware for a
win/draw/loss game, the margin for a margin game), so the three agree with
minimax there.  They are exact
:class:`~fractions.Fraction` values when the game's probabilities and payoffs
are exact; the result's ``score`` is the value as an ``int`` when whole, else
as a ``float``, and ``exact`` (of the result and of each move) keeps the
fraction.  Scores are for the side to move (the negamax convention of the
rest of the core), except at a chance node, where they are the first
player's (``to_move`` is then :data:`~gametree.game.CHANCE` and the moves are
chance's outcomes).  ``value`` and ``winner`` name the side the expected
payoff favours.  The principal variation follows the best moves and stops at
the first chance node: what comes after depends on the dice.

``depth`` counts the players' moves only (chance's are free); at the limit the
game's ``evaluate`` scores the position.

>>> from gametree import load
>>> game = load().game("dice").create(target=6, sides=3)
>>> result = star2(game)
>>> result.exact, result.best_moves
(Fraction(-14392, 177147), ('roll',))
"""

from __future__ import annotations

import random
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final, Literal

from ..game import (
    CHANCE,
    Game,
    GameKind,
    Heuristic,
    M,
    Payoff,
    S,
    State,
    Stochastic,
    UnsupportedGameError,
    capabilities,
    end_score,
    game_name,
    payoffs,
    win_score,
)
from .contract import SearchTimeout
from .engine import Exit, NodeKind, SearchObserver
from .results import MoveValue, SearchResult, SearchStats, Value, check_game, position, start, stats_of
from .table import TranspositionTable
from .trace import Trace

__all__ = [
    "CHANCE_KINDS",
    "ChanceMethod",
    "bounds_of",
    "chance_search",
    "depth_aware",
    "expectiminimax",
    "roll",
    "star1",
    "star2",
]

#: Which of the three searches: plain, with chance-node cutoffs, with probing too.
ChanceMethod = Literal["expectiminimax", "star1", "star2"]

#: The kinds of game the three searches support beyond the plain one.
CHANCE_KINDS: Final = frozenset({GameKind.CHANCE, GameKind.MARGIN})

#: Depth "to the end of the game".
_UNLIMITED: Final = 1 << 30
#: Depths left from here on are all "to the end" (for the keys of remembered values).
_HORIZON: Final = 1 << 29
#: Positions remembered by a search with ``cache=True``.
DEFAULT_MEMO: Final = 2_000_000


def depth_aware(game: Game[Any, Any]) -> bool:
    """Whether the searches value ``game``'s ends by the core's depth-aware scores (a win/draw/loss
    game without chance: so they agree with minimax) rather than by payoffs."""
    info = game.info
    return info.deterministic and not info.margin and info.players == 2


def bounds_of(game: Game[Any, Any]) -> tuple[Payoff, Payoff] | None:
    """The lowest and highest value of a finished ``game``: the depth-aware scores' bounds for a
    win/draw/loss game without chance, else its ``payoff_bounds``, else -1 and 1 for a
    win/draw/loss game of two players, else None (unknown)."""
    info = game.info
    if depth_aware(game):
        top = win_score(info.max_plies, 0)
        return (-top, top)
    if info.payoff_bounds is not None:
        return info.payoff_bounds
    if not info.margin and info.players == 2:
        return (-1, 1)
    return None


def roll(game: Game[S, M], state: S, rng: random.Random) -> M:
    """Chance's move at a chance node of ``game``: an outcome drawn by its probability with ``rng``.

    What a computer player answers if it is asked to move where chance moves."""
    stochastic = capabilities(game).stochastic
    if stochastic is None:
        raise UnsupportedGameError(f"{game_name(game)} has a chance node but no chance_outcomes()")
    outcomes = stochastic.chance_outcomes(state)
    pick = rng.random()
    for move, p in outcomes:
        pick -= float(p)
        if pick < 0:
            return move
    return outcomes[-1][0]  # (rounding: the probabilities' floats may sum just under 1)


def _text(value: Payoff) -> str:
    """A value in a cutoff's reason: ``7/3``, ``-2``, ``0.5``."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _exact(value: Payoff) -> Fraction | None:
    """``value`` as a fraction when it is exact (an int or a Fraction), else None."""
    if isinstance(value, float):
        return None
    return Fraction(value)


def _plain(value: Payoff) -> int | float:
    """``value`` as a result's score: an int when whole, else a float."""
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    fraction = Fraction(value)
    return int(fraction) if fraction.denominator == 1 else float(fraction)


class _Search:
    """One search's settings, counters and trace; :meth:`value` is the recursion.

    Values are the first player's payoff (MAX maximises, MIN minimises): Star1's bounds
    read most plainly so.  :meth:`value` keeps the fail-soft contract of
    :mod:`gametree.search.contract` for its window ``(alpha, beta)``, ``alpha < beta``
    (expectiminimax ignores the window and is always exact).
    """

    def __init__(
        self,
        game: Game[Any, Any],
        method: ChanceMethod,
        bounds: tuple[Payoff, Payoff],
        *,
        deadline: float | None = None,
        trace: Trace[Any] | None = None,
        memo_size: int = 0,
        observer: SearchObserver | None = None,
    ) -> None:
        caps = capabilities(game)
        #: Told of every node (docs/trees.md): values in the first player's payoff (``Exit.player`` 0).
        self.observer = observer
        if observer is None:  # (unobserved, the recursion calls the node function itself: no cost)
            self.value = self._value  # type: ignore[method-assign]
        self.game = game
        self.stochastic: Stochastic[Any, Any] | None = caps.stochastic
        self.heuristic: Heuristic[Any] | None = caps.heuristic
        self.depth_aware = depth_aware(game)
        self.prune = method != "expectiminimax"
        self.probe = method == "star2"
        self.low, self.high = bounds
        self.deadline = deadline
        self.trace = trace
        self.per_depth = [0] * 64
        self.nodes = self.terminals = self.estimates = self.cutoffs = 0
        #: What is known of the positions searched, by key and depth left: bounds ``(lo, hi)`` on the value.
        self.memo: dict[tuple[Hashable, int], tuple[Payoff, Payoff]] | None = {} if memo_size else None
        self.memo_size = memo_size
        self.probes = self.hits = self.stores = 0

    def stats(self, seconds: float) -> SearchStats:
        return stats_of(
            self.per_depth,
            seconds,
            terminals=self.terminals,
            heuristic=self.estimates,
            cutoffs=self.cutoffs,
            table=(self.probes, self.hits, self.stores),
        )

    def enter(self, state: State, height: int, path: tuple[str, ...] | None) -> None:
        """Count a node entered at ``height`` (and note it in the trace)."""
        self.nodes += 1
        if height >= len(self.per_depth):
            self.per_depth.extend([0] * 64)
        self.per_depth[height] += 1
        if self.trace is not None and path is not None:
            self.trace.enter(state, path)
        if self.deadline is not None and not self.nodes & 1023 and time.perf_counter() > self.deadline:
            raise SearchTimeout

    def step(self, state: State, move: Any, path: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """The trace's path to the child of ``state`` by ``move`` (None: no trace)."""
        return None if path is None else (*path, self.game.format_move(state, move))

    def outcomes(self, state: State) -> Sequence[tuple[Any, Payoff]]:
        if self.stochastic is None:
            raise UnsupportedGameError(f"{game_name(self.game)} has a chance node but no chance_outcomes()")
        return self.stochastic.chance_outcomes(state)

    def _value(
        self,
        state: State,
        alpha: Payoff,
        beta: Payoff,
        left: int,
        height: int,
        path: tuple[str, ...] | None,
        probed: _Probe | None = None,
    ) -> Payoff:
        """The first player's payoff at ``state`` (fail-soft for the window), ``left`` moves of the
        players still to search."""
        self.enter(state, height, path)
        game = self.game
        out = game.outcome(state)
        if out is not None:
            self.terminals += 1
            if self.depth_aware:
                score = end_score(game, state)
                assert score is not None
                return score if game.to_move(state) == 0 else -score
            return payoffs(game, out)[0]
        mover = game.to_move(state)
        if left <= 0 and mover != CHANCE:
            return self.estimate(state, mover)
        memo = self.memo
        if memo is None:
            if mover == CHANCE:
                return self.chance(state, alpha, beta, left, height, path)
            return self.decide(state, mover, alpha, beta, left, height, path, probed)
        key = (game.key(state), min(left, _HORIZON))
        self.probes += 1
        known = memo.get(key)
        if known is not None:
            self.hits += 1
            lo, hi = known
            if lo == hi or (self.prune and lo >= beta):
                return lo
            if self.prune and hi <= alpha:
                return hi
        if mover == CHANCE:
            v = self.chance(state, alpha, beta, left, height, path)
        else:
            v = self.decide(state, mover, alpha, beta, left, height, path, probed)
        self.remember(key, known, v, alpha, beta)
        return v

    def value(
        self,
        state: State,
        alpha: Payoff,
        beta: Payoff,
        left: int,
        height: int,
        path: tuple[str, ...] | None,
        probed: _Probe | None = None,
    ) -> Payoff:
        """The first player's payoff at ``state`` (fail-soft for the window), ``left`` moves of the
        players still to search; the observer, if any, is told of the node."""
        obs = self.observer
        if obs is None:
            return self._value(state, alpha, beta, left, height, path, probed)
        obs.enter(state, height, float(alpha) if self.prune else None, float(beta) if self.prune else None)
        v = self._value(state, alpha, beta, left, height, path, probed)
        out = self.game.outcome(state)
        estimated = out is None and left <= 0 and self.game.to_move(state) != CHANCE
        kind: NodeKind = "terminal" if out is not None else "heuristic" if estimated else "searched"
        obs.leave(Exit(float(v), kind, winner=None if out is None else out.winner, payoffs=(v, -v), player=0))
        return v

    def tell(self, move: Any) -> None:
        """Tell the observer, if any, of the move (or outcome) about to be searched."""
        if self.observer is not None:
            self.observer.child(move)

    def cut(self, moves: Sequence[Any], reason: str) -> None:
        """Tell the observer, if any, of the moves (or outcomes) a cutoff leaves untried, and why."""
        if self.observer is not None and moves:
            self.observer.prune(moves, reason)

    def remember(
        self, key: tuple[Hashable, int], known: tuple[Payoff, Payoff] | None, v: Payoff, alpha: Payoff, beta: Payoff
    ) -> None:
        """Keep what the fail-soft value ``v`` for the window ``(alpha, beta)`` says (with what was known)."""
        memo = self.memo
        assert memo is not None
        if not self.prune or alpha < v < beta:
            lo, hi = v, v
        elif v <= alpha:
            lo, hi = self.low, v
        else:
            lo, hi = v, self.high
        if known is not None:
            lo, hi = max(lo, known[0]), min(hi, known[1])
        elif len(memo) >= self.memo_size:
            return  # (full: what is there stays)
        memo[key] = (lo, hi)
        self.stores += 1

    def estimate(self, state: State, mover: int) -> float:
        """The game's heuristic at the depth limit, for the first player, inside the payoff bounds."""
        if self.heuristic is None:  # pragma: no cover - refused before the search
            raise UnsupportedGameError(f"a depth limit needs {game_name(self.game)}'s evaluate() heuristic")
        self.estimates += 1
        guess = float(self.heuristic.evaluate(state))
        guess = guess if mover == 0 else -guess
        return min(max(guess, float(self.low)), float(self.high))

    def decide(
        self,
        state: State,
        mover: int,
        alpha: Payoff,
        beta: Payoff,
        left: int,
        height: int,
        path: tuple[str, ...] | None,
        probed: _Probe | None = None,
    ) -> Payoff:
        """A player's node: the best child for the mover (alpha-beta unless plain expectiminimax).
        ``probed``: what Star2's probe of this node found for its first move (not searched again
        when that answers the window)."""
        game = self.game
        maximize = mover == 0
        moves = game.legal_moves(state)
        best: Payoff | None = None
        for i, move in enumerate(moves):
            a, b = alpha, beta
            if self.prune and best is not None:
                if maximize:
                    a = max(alpha, best)
                else:
                    b = min(beta, best)
            if i == 0 and probed is not None and probed.answers(a, b):
                v = probed.value
            else:
                self.tell(move)
                v = self.value(game.play(state, move), a, b, left - 1, height + 1, self.step(state, move, path))
            if best is None or (v > best if maximize else v < best):
                best = v
            if self.prune and (best >= beta if maximize else best <= alpha):
                if i < len(moves) - 1:
                    self.cutoffs += 1
                    reason = (
                        f"beta cutoff: {_text(best)} >= {_text(beta)}"
                        if maximize
                        else (f"alpha cutoff: {_text(best)} <= {_text(alpha)}")
                    )
                    self.cut(moves[i + 1 :], reason)
                break
        assert best is not None, "a position that is not over has a move"
        return best

    def chance(
        self, state: State, alpha: Payoff, beta: Payoff, left: int, height: int, path: tuple[str, ...] | None
    ) -> Payoff:
        """A chance node: the mean of its children, or (Star1, Star2) a bound outside the window
        as soon as the children searched so far force one."""
        game = self.game
        outcomes = self.outcomes(state)
        if not self.prune:
            total: Payoff = 0
            for move, p in outcomes:
                self.tell(move)
                total += p * self.value(
                    game.play(state, move), alpha, beta, left, height + 1, self.step(state, move, path)
                )
            return total
        node = _ChanceNode(
            [p for _, p in outcomes],
            [game.play(state, move) for move, _ in outcomes],
            [self.step(state, move, path) for move, _ in outcomes],
            self.low,
            self.high,
            moves=[move for move, _ in outcomes],
        )
        if self.probe:
            settled = self.probe_children(node, alpha, beta, left, height)
            if settled is not None:
                return settled
        return self.star1(node, alpha, beta, left, height)

    def star1(self, node: _ChanceNode, alpha: Payoff, beta: Payoff, left: int, height: int) -> Payoff:
        """Search the children not yet settled, each with the window that would cut the node off."""
        lo, hi, probs = node.lo, node.hi, node.probs
        lower, upper = node.lower(), node.upper()
        for i, child in enumerate(node.children):
            if lo[i] == hi[i]:  # (settled by a probe: a leaf)
                continue
            p = probs[i]
            rest_lower, rest_upper = lower - p * lo[i], upper - p * hi[i]
            # The child's value that would put the node's upper bound at alpha, its lower at beta:
            a = max((alpha - rest_upper) / p, lo[i])
            b = min((beta - rest_lower) / p, hi[i])
            self.tell(node.moves[i])
            v = self.value(child, a, b, left, height + 1, node.paths[i], node.probes[i])
            if v <= a:
                hi[i] = v
                if a == lo[i]:
                    lo[i] = v
            elif v >= b:
                lo[i] = v
                if b == hi[i]:
                    hi[i] = v
            else:
                lo[i] = hi[i] = v
            lower, upper = rest_lower + p * lo[i], rest_upper + p * hi[i]
            if upper <= alpha or lower >= beta:
                if any(lo[j] != hi[j] for j in range(i + 1, len(lo))):
                    self.cutoffs += 1
                    self.cut(
                        [node.moves[j] for j in range(i + 1, len(lo)) if lo[j] != hi[j]],
                        f"star1: the mean is at most {_text(upper)} <= alpha = {_text(alpha)}"
                        if upper <= alpha
                        else f"star1: the mean is at least {_text(lower)} >= beta = {_text(beta)}",
                    )
                return upper if upper <= alpha else lower
        return lower

    def probe_children(self, node: _ChanceNode, alpha: Payoff, beta: Payoff, left: int, height: int) -> Payoff | None:
        """Star2's probing: each child's first move only, a bound on the child (a lower bound for
        MAX's node, an upper one for MIN's); leaves are valued outright.  Returns the node's bound
        when the probes alone cut it off, else None (the bounds stay in ``node``)."""
        game = self.game
        lo, hi, probs = node.lo, node.hi, node.probs
        for i, child in enumerate(node.children):
            mover = game.to_move(child)
            over = game.outcome(child) is not None
            if mover == CHANCE and not over:
                continue  # (chance after chance: nothing cheap to probe)
            if over or left <= 0:
                self.tell(node.moves[i])
                lo[i] = hi[i] = self.value(child, self.low, self.high, left, height + 1, node.paths[i])
            else:
                p = probs[i]
                # Star1's window for the child: below it, the node fails low, above it high.
                a = max((alpha - (node.upper() - p * hi[i])) / p, lo[i])
                b = min((beta - (node.lower() - p * lo[i])) / p, hi[i])
                obs = self.observer
                if obs is not None:
                    obs.child(node.moves[i])
                    obs.enter(child, height + 1, float(a), float(b))
                self.enter(child, height + 1, node.paths[i])
                first = game.legal_moves(child)[0]
                after = game.play(child, first)
                deeper = self.step(child, first, node.paths[i])
                self.tell(first)
                v = self.value(after, a, b, left - 1, height + 2, deeper)
                if obs is not None:  # (a probe: the child's first move only, a bound on the child)
                    obs.leave(Exit(float(v), "probe", window=(float(a), float(b)), payoffs=(v, -v), player=0))
                node.probes[i] = _Probe(a, b, v)
                if mover == 0 and v > a:  # a lower bound on MAX's node (at or below a: none)
                    lo[i] = max(lo[i], v)
                elif mover == 1 and v < b:  # an upper bound on MIN's node
                    hi[i] = min(hi[i], v)
            lower, upper = node.lower(), node.upper()
            if lower >= beta or upper <= alpha:
                self.cutoffs += 1
                self.cut(
                    node.moves[i + 1 :],
                    f"star2 probe bound: the mean is at least {_text(lower)} >= beta = {_text(beta)}"
                    if lower >= beta
                    else f"star2 probe bound: the mean is at most {_text(upper)} <= alpha = {_text(alpha)}",
                )
                return lower if lower >= beta else upper
        return None


@dataclass(frozen=True, slots=True)
class _Probe:
    """A probe's search of a child's first move: the window ``(alpha, beta)`` and the fail-soft value."""

    alpha: Payoff
    beta: Payoff
    value: Payoff

    def answers(self, alpha: Payoff, beta: Payoff) -> bool:
        """Whether the value is also a fail-soft answer for the window ``(alpha, beta)``: exact, or a bound
        on the side of the window the new one fails on too."""
        v = self.value
        return self.alpha < v < self.beta or (v >= self.beta and v >= beta) or (v <= self.alpha and v <= alpha)


@dataclass(slots=True)
class _ChanceNode:
    """A chance node's children and what is known of them: each child's value lies in ``[lo, hi]``."""

    probs: list[Payoff]
    children: list[State]
    paths: list[tuple[str, ...] | None]
    low: Payoff
    high: Payoff
    lo: list[Payoff] = field(init=False)
    hi: list[Payoff] = field(init=False)
    #: What Star2's probe of each child found for the child's first move.
    probes: list[_Probe | None] = field(init=False)
    #: The outcomes (chance's moves), for the observer.
    moves: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lo = [self.low] * len(self.probs)
        self.hi = [self.high] * len(self.probs)
        self.probes = [None] * len(self.probs)

    def lower(self) -> Payoff:
        """The node's lower bound: each child at its lowest."""
        return sum((p * v for p, v in zip(self.probs, self.lo)), start=0)

    def upper(self) -> Payoff:
        """The node's upper bound: each child at its highest."""
        return sum((p * v for p, v in zip(self.probs, self.hi)), start=0)


# -- the drivers: the root's moves, time and depth limits, the result ----------------------------
@dataclass(slots=True)
class _Root:
    """What a search of the root found: each root move (or chance outcome) scored, with its value
    for the first player, the best move of a search of the root alone, and the searcher."""

    search: _Search
    rows: list[tuple[Any, Payoff]]
    best: Any = None


def _search_root(root: _Root, state: State, left: int, all_moves: bool) -> None:
    """Score the root's moves into ``root.rows`` (each with the whole window), or (not
    ``all_moves``) search the root as a node, pruning there too, and keep its best move; the
    observer, if any, is told of the root too."""
    search = root.search
    obs = search.observer
    if obs is None:
        return _root_moves_searched(root, state, left, all_moves)
    prune = search.prune
    obs.enter(state, 0, float(search.low) if prune else None, float(search.high) if prune else None)
    _root_moves_searched(root, state, left, all_moves)
    values = [v for _, v in root.rows]
    mover = search.game.to_move(state)
    if mover == CHANCE:
        value: Payoff = sum((p * v for (_, p), v in zip(search.outcomes(state), values)), start=0)
    else:
        value = max(values) if mover == 0 else min(values)
    window = (float(search.low), float(search.high)) if prune else None
    obs.leave(Exit(float(value), "searched", window=window, payoffs=(value, -value), player=0, exact=True))
    return None


def _root_moves_searched(root: _Root, state: State, left: int, all_moves: bool) -> None:
    """:func:`_search_root`'s search."""
    search = root.search
    game = search.game
    path: tuple[str, ...] | None = () if search.trace is not None else None
    search.enter(state, 0, path)
    mover = game.to_move(state)
    low, high = search.low, search.high
    if mover == CHANCE:
        for move, _ in search.outcomes(state):
            search.tell(move)
            v = search.value(game.play(state, move), low, high, left, 1, search.step(state, move, path))
            root.rows.append((move, v))
        return
    if all_moves:
        for move in game.legal_moves(state):
            search.tell(move)
            v = search.value(game.play(state, move), low, high, left - 1, 1, search.step(state, move, path))
            root.rows.append((move, v))
        return
    maximize = mover == 0
    best: Payoff | None = None
    moves = game.legal_moves(state)
    for i, move in enumerate(moves):
        a, b = (low, high) if best is None or not search.prune else ((best, high) if maximize else (low, best))
        if search.prune and best is not None and a >= b:  # (a bound reached: no move can do better)
            search.cut(moves[i:], f"the payoff bound: {_text(best)} is the best {'MAX' if maximize else 'MIN'} can get")
            break
        search.tell(move)
        v = search.value(game.play(state, move), a, b, left - 1, 1, search.step(state, move, path))
        if best is None or (v > best if maximize else v < best):
            best, root.best = v, move
    assert best is not None and root.best is not None, "a position that is not over has a move"
    root.rows.append((root.best, best))


def _best_line(
    game: Game[Any, Any], state: State, method: ChanceMethod, bounds: tuple[Payoff, Payoff], left: int
) -> list[Any]:
    """The best moves on from ``state`` (the first in the game's order among equals), up to the
    first chance node, the end of the game or the depth limit (searches not counted)."""
    line: list[Any] = []
    while left > 0 and game.outcome(state) is None and game.to_move(state) != CHANCE:
        quiet = _Search(game, method, bounds, memo_size=DEFAULT_MEMO)
        root = _Root(quiet, [])
        _search_root(root, state, left, True)
        values = [v for _, v in root.rows]
        best = max(values) if game.to_move(state) == 0 else min(values)
        move = root.rows[values.index(best)][0]
        line.append(move)
        state, left = game.play(state, move), left - 1
    return line


def _result(
    method: ChanceMethod,
    game: Game[Any, Any],
    state: State,
    root: _Root,
    depth: int | None,
    stats: SearchStats,
    *,
    line: list[Any],
    unscored: tuple[str, ...] = (),
) -> SearchResult:
    """The :class:`SearchResult` of a search of ``state`` whose root moves got ``root.rows``."""
    fmt = game.format_move
    mover = game.to_move(state)
    sign = -1 if mover == 1 else 1  # values for the side to move (the first player at a chance node)
    rows = [(move, sign * v) for move, v in root.rows]
    if mover == CHANCE:
        probs = [p for _, p in root.search.outcomes(state)]
        value: Payoff | None = sum((p * v for p, (_, v) in zip(probs, rows)), start=0) if not unscored else None
        top: Payoff | None = None
    else:
        top = value = max(v for _, v in rows) if rows else None
    proven = value is not None and stats.heuristic_leaves == 0 and not unscored
    moves = tuple(
        MoveValue(fmt(state, move), _plain(v), None, v == top, game_move=move, exact=_exact(v) if proven else None)
        for move, v in rows
    )
    pv, s = [], state
    for move in line:
        pv.append(fmt(s, move))
        s = game.play(s, move)
    score = _plain(value) if value is not None else 0
    player = 0 if mover == CHANCE else mover
    verdict: Value = "unknown" if not proven else "win" if score > 0 else "loss" if score < 0 else "draw"
    winner = None if verdict in ("unknown", "draw") else player if score > 0 else 1 - player
    return SearchResult(
        method,
        mover,
        verdict,
        winner,
        score,
        proven,
        None,
        tuple(mv.move for mv in moves if mv.best),
        moves,
        tuple(pv),
        depth,
        stats,
        unscored=unscored,
        cut_short="time" if unscored else None,
        exact=_exact(value) if proven and value is not None else None,
        margin=int(score) if proven and game.info.margin and game.info.deterministic and score == int(score) else None,
        expanded=root.search.trace.expanded() if root.search.trace is not None else None,
    )


def _checked(
    game: Game[S, M], method: ChanceMethod, depth: int | None, time_limit: float | None
) -> tuple[tuple[Payoff, Payoff], int]:
    """Refuse what ``method`` cannot search, in one line; the payoff bounds and the depth to search."""
    check_game(game, method, CHANCE_KINDS)
    bounds = bounds_of(game)
    if bounds is None:
        if method != "expectiminimax":
            raise UnsupportedGameError(
                f"{method} needs payoff bounds, and {game_name(game)} gives none (GameInfo.payoff_bounds); "
                "use expectiminimax"
            )
        bounds = (float("-inf"), float("inf"))
    if depth is not None:
        if depth < 1:
            raise ValueError(f"the depth must be at least 1, not {depth}")
        if capabilities(game).heuristic is None:
            raise UnsupportedGameError(
                f"a depth limit needs a heuristic, and {game_name(game)} has no evaluate(): search to the end"
            )
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"the time limit must be positive, not {time_limit}")
    return bounds, _UNLIMITED if depth is None else depth


def chance_search(
    game: Game[S, M],
    state: S | None = None,
    *,
    method: ChanceMethod,
    moves: str | None = None,
    depth: int | None = None,
    time_limit: float | None = None,
    cache: TranspositionTable | bool | None = True,
    all_moves: bool = True,
    pv: bool = True,
    trace: bool = False,
    observer: SearchObserver | None = None,
) -> SearchResult:
    """Search ``state`` by ``method`` (see the module): :func:`expectiminimax`, :func:`star1`, :func:`star2`.

    With ``time_limit``, a game with a heuristic is searched by iterative deepening (depth 1,
    2, ...; the deepest search completed is the answer, exact as soon as one reaches every end);
    a game without one is searched to the end until the time is up, and the root moves not
    scored by then are listed in ``unscored`` (``cut_short`` "time").  With ``trace``, the search
    is the textbook's: one search of the root with the whole window and no memo, whose nodes, in
    order, are ``expanded`` (the other root moves' values are found afterwards, not counted).
    """
    bounds, left = _checked(game, method, depth, time_limit)
    memo = cache.max_entries if isinstance(cache, TranspositionTable) else DEFAULT_MEMO if cache else 0
    if observer is not None:  # (every node searched is told, none answered from memory; no time limit)
        memo, time_limit = 0, None
    start_state: S = start(game, position(game, state, moves), checked=True)
    if trace:
        if time_limit is not None:
            raise ValueError(f"a traced {method} is one search: it takes no time_limit")
        return _traced(game, start_state, method, bounds, left, depth, all_moves, pv)
    started = time.perf_counter()
    deadline = None if time_limit is None else started + time_limit
    if deadline is not None and capabilities(game).heuristic is not None:
        return _deepening(game, start_state, method, bounds, left, deadline, all_moves, pv, memo)
    root = _Root(_Search(game, method, bounds, deadline=deadline, memo_size=memo, observer=observer), [])
    try:
        _search_root(root, start_state, left, all_moves)
    except SearchTimeout:
        rest = _root_moves(game, start_state)
        unscored = tuple(game.format_move(start_state, m) for m in rest if all(m != done for done, _ in root.rows))
        stats = root.search.stats(time.perf_counter() - started)
        return _result(method, game, start_state, root, depth, stats, line=[], unscored=unscored)
    stats = root.search.stats(time.perf_counter() - started)
    line = _line_from(game, start_state, root, method, bounds, left, pv)
    return _result(method, game, start_state, root, depth, stats, line=line)


def _traced(
    game: Game[Any, Any],
    state: State,
    method: ChanceMethod,
    bounds: tuple[Payoff, Payoff],
    left: int,
    depth: int | None,
    all_moves: bool,
    pv: bool,
) -> SearchResult:
    """A traced search, as the textbook searches (and as a traced alpha-beta does): one search of the
    root with the whole window, no memo; its nodes, in order, are ``expanded`` and its counts the
    statistics.  With ``all_moves``, the other root moves' values (which that search only bounds)
    come from a search afterwards, not counted, as the principal variation does."""
    started = time.perf_counter()
    root = _Root(_Search(game, method, bounds, trace=Trace(game)), [])
    _search_root(root, state, left, False)
    stats = root.search.stats(time.perf_counter() - started)
    if all_moves and game.to_move(state) != CHANCE:
        quiet = _Root(_Search(game, method, bounds, memo_size=DEFAULT_MEMO), [])
        _search_root(quiet, state, left, True)
        root.rows = quiet.rows
    line = _line_from(game, state, root, method, bounds, left, pv)
    return _result(method, game, state, root, depth, stats, line=line)


def _root_moves(game: Game[Any, Any], state: State) -> list[Any]:
    if game.to_move(state) == CHANCE:
        stochastic = capabilities(game).stochastic
        assert stochastic is not None
        return [move for move, _ in stochastic.chance_outcomes(state)]
    return list(game.legal_moves(state))


def _line_from(
    game: Game[Any, Any],
    state: State,
    root: _Root,
    method: ChanceMethod,
    bounds: tuple[Payoff, Payoff],
    left: int,
    pv: bool,
) -> list[Any]:
    """The principal variation: the best root move, then (``pv``) the best moves on to the first chance node."""
    mover = game.to_move(state)
    if mover == CHANCE or not root.rows:
        return []
    values = [v for _, v in root.rows]
    first = root.rows[values.index(max(values) if mover == 0 else min(values))][0]
    if not pv:
        return [first]
    return [first, *_best_line(game, game.play(state, first), method, bounds, left - 1)]


def _deepening(
    game: Game[Any, Any],
    state: State,
    method: ChanceMethod,
    bounds: tuple[Payoff, Payoff],
    most: int,
    deadline: float,
    all_moves: bool,
    pv: bool,
    memo: int,
) -> SearchResult:
    """Iterative deepening to ``most`` moves until ``deadline``: the deepest search completed (the
    first always completes), stopping early at a search that met no depth limit (it is exact)."""
    started = time.perf_counter()
    best: SearchResult | None = None
    depth = 1
    while depth <= most:
        search = _Search(
            game,
            method,
            bounds,
            deadline=None if best is None else deadline,
            memo_size=memo,
        )
        root = _Root(search, [])
        try:
            _search_root(root, state, depth, all_moves)
        except SearchTimeout:
            break
        stats = search.stats(time.perf_counter() - started)
        best = _result(
            method, game, state, root, depth, stats, line=_line_from(game, state, root, method, bounds, depth, pv)
        )
        if search.estimates == 0 or time.perf_counter() > deadline:
            break
        depth += 1
    assert best is not None
    return best


def expectiminimax(
    game: Game[S, M],
    state: S | None = None,
    *,
    moves: str | None = None,
    depth: int | None = None,
    time_limit: float | None = None,
    cache: TranspositionTable | bool | None = True,
    all_moves: bool = True,
    pv: bool = True,
    trace: bool = False,
    observer: SearchObserver | None = None,
) -> SearchResult:
    """Expectiminimax: every node; a chance node is worth the probability-weighted mean of its children.

    Args:
        game: A two-player zero-sum game, with chance nodes or not, won/drawn/lost or with a margin.
        state: The position to search (default: the start).
        moves: Instead of ``state``, the moves from the start.
        depth: Search this many of the players' moves deep (chance's are free) and score the
            positions there with the game's ``evaluate``.
        time_limit: Seconds (see :func:`chance_search`).
        cache: Remember what is known of each position searched (by its key and the depth left),
            so a transposition is searched once: ``True`` (up to a couple of million positions),
            a :class:`~gametree.search.table.TranspositionTable` (only its size is used: its entries
            are depth-aware scores, these are payoffs), or ``False``/``None`` (the plain tree).
        all_moves: Score every root move (else search the root as one node and give its best move).
        pv: Follow the best moves to the first chance node.
        trace: Search as the textbook does (one search of the root with the whole window, no memo)
            and list the nodes it entered, in order, as ``expanded`` (see :func:`chance_search`).

    Raises:
        UnsupportedGameError: A game of another kind (more players, repeated positions...), or a
            depth limit without a heuristic.
    """
    return chance_search(
        game, state, method="expectiminimax", moves=moves, depth=depth, time_limit=time_limit, cache=cache,
        all_moves=all_moves, pv=pv, trace=trace, observer=observer,
    )  # fmt: skip


def star1(
    game: Game[S, M],
    state: S | None = None,
    *,
    moves: str | None = None,
    depth: int | None = None,
    time_limit: float | None = None,
    cache: TranspositionTable | bool | None = True,
    all_moves: bool = True,
    pv: bool = True,
    trace: bool = False,
    observer: SearchObserver | None = None,
) -> SearchResult:
    """Ballard's Star1: expectiminimax's value, with alpha-beta at the players' nodes and cutoffs at
    chance nodes from the payoff bounds; it never enters a node expectiminimax would not.  The
    arguments are :func:`expectiminimax`'s; a game without payoff bounds is refused."""
    return chance_search(
        game, state, method="star1", moves=moves, depth=depth, time_limit=time_limit, cache=cache,
        all_moves=all_moves, pv=pv, trace=trace, observer=observer,
    )  # fmt: skip


def star2(
    game: Game[S, M],
    state: S | None = None,
    *,
    moves: str | None = None,
    depth: int | None = None,
    time_limit: float | None = None,
    cache: TranspositionTable | bool | None = True,
    all_moves: bool = True,
    pv: bool = True,
    trace: bool = False,
    observer: SearchObserver | None = None,
) -> SearchResult:
    """Ballard's Star2: Star1, with a probe of each chance node's children first (each child's first
    move: a bound on it) that can cut the node off before any child is searched in full.  The
    arguments are :func:`expectiminimax`'s; a game without payoff bounds is refused."""
    return chance_search(
        game, state, method="star2", moves=moves, depth=depth, time_limit=time_limit, cache=cache,
        all_moves=all_moves, pv=pv, trace=trace, observer=observer,
    )  # fmt: skip
