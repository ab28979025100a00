"""Searches for games of any number of players: max^n and paranoid.

**max^n** (Luckhardt and Irani, AAAI 1986) gives every position a vector of
payoffs, one per player: a game's end its payoffs, and a position where player
``i`` moves the vector of the child best for ``i``.  Among children equally good
for ``i`` the *first* in the game's move order is taken (``legal_moves``): the
other players' payoffs, so the value of the whole tree, depend on that rule, and
a search with another rule (say, "the worst for the others") can give another
vector.  With two players max^n is minimax.

**Shallow pruning** (Korf, Artificial Intelligence 1991; Sturtevant and Korf,
"On pruning techniques for multi-player games", AAAI 2000) needs an upper bound
on the sum of the payoffs (*maxsum*: ``GameInfo.payoff_sum``) and a lower bound
on each player's payoff (``GameInfo.payoff_bounds``).  Where player ``i`` has
been offered ``b`` by an earlier child and, in the next child, player ``j``
already has ``v``, that child can leave ``i`` at most ``maxsum - v - (n - 2) *
low``; when that is ``b`` or less the child's other moves are cut (``i``,
taking only a strictly better child, will not take it).  A player who already
has the highest payoff there is stops looking too (*immediate pruning*).  Both
keep max^n's value exactly.  A game that declares no bounds is searched without
pruning: every node of the tree (deep pruning is not sound for max^n and is not
done).  Two-player zero-sum games need nothing: their sum is 0 and their scores
are bounded.

**Paranoid** (Sturtevant and Korf 2000) assumes all other players have formed a
coalition against the player to move at the root: the search is alpha-beta on the
root player's payoff, maximised where the root player moves and minimised
elsewhere.  Its value is a guarantee for the root player whatever the others do.

Two-player games keep their scores: a win/draw/loss game's leaves are its
depth-aware scores (``(s, -s)``), so max^n and paranoid give minimax's score.
At a depth limit a game's :class:`gametree.game.PayoffHeuristic` estimates every
player's payoff; a two-player game may use its ``evaluate``; without either the
estimate is 0 for every player.  Where pruning has bounds, an estimate outside them
is clamped into them (the pruning would not be sound otherwise).  Both searches keep a table of the positions
they have valued (by ``game.key`` and the depth left, never shared between
symmetric positions, whose move order, so tie-breaking, can differ); with
``trace=True`` they keep none, so that every node entered is listed.

>>> from gametree import load
>>> game = load().game("trio").create(width=3, height=3)
>>> result = maxn(game, moves="A1 B2 C3")
>>> result.payoffs, result.best_moves
((1, 0, 0), ('B1',))
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, Literal

from ..game import (
    Game,
    GameKind,
    M,
    Payoff,
    S,
    capabilities,
    end_score,
    payoffs,
    win_score,
)
from .contract import SearchTimeout
from .engine import Exit, NodeKind, SearchObserver
from .results import MoveValue, SearchResult, SearchStats, Value, check_game, position, start, stats_of, whole
from .trace import Trace

__all__ = ["SUPPORTS", "TABLE_ENTRIES", "Bounds", "Vector", "maxn", "paranoid", "payoff_of_leaf", "pruning_bounds"]

#: A payoff for each player, by player number.
Vector = tuple[Payoff, ...]

#: The kinds of game max^n and paranoid search (no chance nodes, hidden information or repeats).
SUPPORTS = frozenset({GameKind.PLAYERS, GameKind.GENERAL_SUM, GameKind.MARGIN})

#: The most positions a search's table holds; it starts afresh when full.
TABLE_ENTRIES = 1_000_000

#: The search checks its clock every this many nodes.
_CLOCK_EVERY = 1024


@dataclass(frozen=True, slots=True)
class Bounds:
    """What shallow pruning needs: each player's lowest and highest payoff, and the highest sum."""

    low: Payoff
    high: Payoff
    total: Payoff


def pruning_bounds(game: Game[S, M]) -> Bounds | None:
    """The bounds shallow pruning uses for ``game``, or None where the game does not declare them.

    A two-player win/draw/loss game: its depth-aware scores' bounds, sum 0; a two-player margin or
    zero-sum game: its ``payoff_bounds``, sum 0; any other: its ``payoff_bounds`` and ``payoff_sum``.
    """
    info = game.info
    if _two_player_scores(game):  # (whatever payoff_bounds says: the leaves are these scores)
        top = win_score(info.max_plies, 0)
        return Bounds(-top, top, 0)
    if info.payoff_bounds is None:
        return None
    total = info.payoff_sum
    if total is None and info.players == 2 and info.zero_sum:
        total = 0
    if total is None:
        return None
    return Bounds(info.payoff_bounds[0], info.payoff_bounds[1], total)


def _two_player_scores(game: Game[S, M]) -> bool:
    """Whether ``game``'s leaves are depth-aware scores (a two-player win/draw/loss game)."""
    info = game.info
    return info.players == 2 and info.zero_sum and not info.margin


def payoff_of_leaf(game: Game[S, M], state: S) -> Vector:
    """Each player's payoff at a finished position: a two-player win/draw/loss game's depth-aware
    score (:func:`gametree.game.end_score`) for the first player and its negation for the second;
    any other game's :func:`gametree.game.payoffs`."""
    out = game.outcome(state)
    if out is None:
        raise ValueError("payoff_of_leaf: the game is not over")
    if _two_player_scores(game):
        score = end_score(game, state)
        assert score is not None
        return (score, -score) if game.to_move(state) == 0 else (-score, score)
    return tuple(payoffs(game, out))


class _Leaves(Generic[S, M]):
    """The estimates of a game's payoffs at a depth limit, each kept within the pruning bounds (if any)."""

    def __init__(self, game: Game[S, M]) -> None:
        self.game = game
        caps = capabilities(game)
        self.vector = caps.payoff_heuristic
        self.single = caps.heuristic if game.info.players == 2 else None
        self.zeros: Vector = (0,) * game.info.players
        self.bounds = pruning_bounds(game)

    def estimate(self, state: S) -> Vector:
        if self.vector is not None:
            vector = tuple(self.vector.evaluate_all(state))
        elif self.single is not None:
            value = self.single.evaluate(state)
            vector = (value, -value) if self.game.to_move(state) == 0 else (-value, value)
        else:
            return self.zeros
        bounds = self.bounds
        if bounds is not None and not all(bounds.low <= v <= bounds.high for v in vector):
            vector = tuple(min(max(v, bounds.low), bounds.high) for v in vector)
        return vector


class _Walk(Generic[S, M]):
    """What both searches share: counters, the clock, the trace, leaves."""

    def __init__(self, game: Game[S, M], depth: int | None, deadline: float | None, trace: bool) -> None:
        self.game = game
        self.players = game.info.players
        self.limit = depth if depth is not None else 1 << 30
        #: Table keys carry the plies left to the depth limit (0 without one).
        self.limited = depth is not None
        self.deadline = deadline
        self.per_depth: list[int] = []
        self.nodes = self.terminals = self.heuristic = self.cutoffs = 0
        self.probes = self.hits = self.stores = 0
        self.trace: Trace[S] | None = Trace(game) if trace else None
        self.path: list[str] = []
        self.leaves = _Leaves(game)
        #: Told of every node (docs/trees.md), with each node's vector (``Exit.payoffs``).
        self.observer: SearchObserver | None = None

    def watch(self, observer: SearchObserver) -> None:
        """Tell ``observer`` of every node from now on (the caller drops the table: every node is searched)."""
        self.observer = observer
        vars(self).pop("node", None)  # (the class's node, which tells the observer, in place of the plain search)

    def kind(self, state: S, height: int) -> NodeKind:
        """What the observer is told a node was: a game's end, an estimate at the depth limit, or searched."""
        return (
            "terminal" if self.game.outcome(state) is not None else "heuristic" if height >= self.limit else "searched"
        )

    def pruned(self, moves: Sequence[M], reason: str) -> None:
        """Tell the observer, if any, of the moves a cutoff leaves untried, and why."""
        if self.observer is not None and moves:
            self.observer.prune(moves, reason)

    def enter(self, state: S, height: int) -> None:
        """Count (and trace) a node entered at ``height``; past the deadline, stop the search."""
        if height >= len(self.per_depth):
            self.per_depth.append(0)
        self.per_depth[height] += 1
        self.nodes += 1
        if self.trace is not None:
            self.trace.enter(state, self.path)
        if self.deadline is not None and self.nodes % _CLOCK_EVERY == 0 and time.perf_counter() > self.deadline:
            raise SearchTimeout

    def leaf(self, state: S, height: int) -> Vector | None:
        """The vector of a game's end or of a position at the depth limit; None for any other node."""
        if self.game.outcome(state) is not None:
            self.terminals += 1
            return payoff_of_leaf(self.game, state)
        if height >= self.limit:
            self.heuristic += 1
            return self.leaves.estimate(state)
        return None

    def child(self, state: S, move: M) -> S:
        if self.observer is not None:
            self.observer.child(move)
        if self.trace is not None:
            self.path.append(self.game.format_move(state, move))
        return self.game.play(state, move)

    def back(self) -> None:
        if self.trace is not None:
            self.path.pop()

    def add(self, other: _Walk[S, M]) -> None:
        """Count ``other``'s nodes, leaves, cutoffs and table use as well as this search's."""
        for height, count in enumerate(other.per_depth):
            if height >= len(self.per_depth):
                self.per_depth.append(0)
            self.per_depth[height] += count
        self.nodes += other.nodes
        self.terminals += other.terminals
        self.heuristic += other.heuristic
        self.cutoffs += other.cutoffs
        self.probes += other.probes
        self.hits += other.hits
        self.stores += other.stores

    def stats(self, seconds: float) -> SearchStats:
        return stats_of(
            self.per_depth,
            seconds,
            nodes=self.nodes,
            terminals=self.terminals,
            heuristic=self.heuristic,
            cutoffs=self.cutoffs,
            table=(self.probes, self.hits, self.stores),
        )


class _MaxN(_Walk[S, M]):
    """max^n with shallow and immediate pruning (when the game declares bounds) and a table of exact vectors."""

    def __init__(self, game: Game[S, M], depth: int | None, deadline: float | None, trace: bool) -> None:
        super().__init__(game, depth, deadline, trace)
        self.node = self.search  # type: ignore[method-assign]  # (unobserved: the plain search, no cost; see watch)
        self.bounds = pruning_bounds(game)
        self.table: dict[tuple[Hashable, int], tuple[Vector, tuple[M, ...]]] | None = None if trace else {}

    def node(self, state: S, height: int, parent: int, offered: Payoff | None) -> tuple[Vector, tuple[M, ...], bool]:
        """:meth:`search`, the observer (if any) told of the node: the mover's payoff, and the vector."""
        obs = self.observer
        if obs is None:
            return self.search(state, height, parent, offered)
        obs.enter(state, height, None, None)
        found = self.search(state, height, parent, offered)
        me = self.game.to_move(state)
        out = self.game.outcome(state)
        winner = None if out is None else out.winner
        obs.leave(Exit(float(found[0][me]), self.kind(state, height), winner=winner, payoffs=found[0], player=me))
        return found

    def search(self, state: S, height: int, parent: int, offered: Payoff | None) -> tuple[Vector, tuple[M, ...], bool]:
        """The max^n vector of ``state`` and its line, and whether they are exact: a node that cut
        its moves (its ``parent``'s player having been ``offered`` more elsewhere) gives a vector
        the parent will not take."""
        self.enter(state, height)
        leaf = self.leaf(state, height)
        if leaf is not None:
            return leaf, (), True
        game, table = self.game, self.table
        key = (game.key(state), self.limit - height if self.limited else 0)
        if table is not None:
            self.probes += 1
            known = table.get(key)
            if known is not None:
                self.hits += 1
                return known[0], known[1], True
        me = game.to_move(state)
        cap: Payoff | None = None
        top: Payoff | None = None
        if self.bounds is not None:
            top = self.bounds.high
            if offered is not None and parent != me:
                cap = self.bounds.total - (self.players - 2) * self.bounds.low - offered
        best: Vector | None = None
        line: tuple[M, ...] = ()
        moves = game.legal_moves(state)
        cut = False
        for index, move in enumerate(moves):
            value, rest, _ = self.node(self.child(state, move), height + 1, me, None if best is None else best[me])
            self.back()
            if best is None or value[me] > best[me]:
                best, line = value, (move, *rest)
                if index + 1 < len(moves) and (
                    (cap is not None and best[me] >= cap) or (top is not None and best[me] >= top)
                ):
                    self.cutoffs += 1
                    cut = cap is not None and best[me] >= cap
                    self.pruned(
                        moves[index + 1 :],
                        f"shallow pruning: {_text(best[me])} >= {_text(cap)}"
                        if cut and cap is not None
                        else f"immediate pruning: {_text(best[me])} is the most a player can get",
                    )
                    break
        assert best is not None, "a position that is not over has a legal move"
        if table is not None and not cut:
            self.stores += 1
            if len(table) >= TABLE_ENTRIES:
                table.clear()
            if len(table) >= TABLE_ENTRIES:  # (bounded: a search too large to finish must not fill the memory)
                table.clear()
            table[key] = (best, line)
        return best, line, not cut


class _Paranoid(_Walk[S, M]):
    """Alpha-beta on the root player's payoff: the root player maximises it, every other player minimises it."""

    def __init__(self, game: Game[S, M], depth: int | None, deadline: float | None, trace: bool, root: int) -> None:
        super().__init__(game, depth, deadline, trace)
        self.node = self.search  # type: ignore[method-assign]  # (unobserved: the plain search, no cost; see watch)
        self.root = root
        # Per key: the value, whether it is exact (0), a lower (1) or an upper bound (-1), the leaf's vector, the line.
        self.table: dict[tuple[Hashable, int], tuple[Payoff, int, Vector, tuple[M, ...]]] | None = None if trace else {}

    def node(self, state: S, height: int, alpha: float, beta: float) -> tuple[Payoff, Vector, tuple[M, ...]]:
        """:meth:`search`, the observer (if any) told of the node: the root player's payoff and window."""
        obs = self.observer
        if obs is None:
            return self.search(state, height, alpha, beta)
        obs.enter(state, height, alpha, beta)
        found = self.search(state, height, alpha, beta)
        out = self.game.outcome(state)
        winner = None if out is None else out.winner
        kind = self.kind(state, height)
        obs.leave(Exit(float(found[0]), kind, window=(alpha, beta), winner=winner, payoffs=found[1], player=self.root))
        return found

    def search(self, state: S, height: int, alpha: float, beta: float) -> tuple[Payoff, Vector, tuple[M, ...]]:
        """Fail-soft alpha-beta: the root player's payoff in ``state`` if it lies in (alpha, beta),
        else a bound beyond the window; with the vector of the leaf it comes from, and the line there."""
        self.enter(state, height)
        leaf = self.leaf(state, height)
        if leaf is not None:
            return leaf[self.root], leaf, ()
        game, table = self.game, self.table
        key = (game.key(state), self.limit - height if self.limited else 0)
        if table is not None:
            self.probes += 1
            known = table.get(key)
            if known is not None:
                value, bound, vector, known_line = known
                if bound == 0 or (bound > 0 and value >= beta) or (bound < 0 and value <= alpha):
                    self.hits += 1
                    return value, vector, known_line
        maximising = game.to_move(state) == self.root
        low, high = alpha, beta
        best: Payoff | None = None
        best_vector: Vector = ()
        line: tuple[M, ...] = ()
        moves = game.legal_moves(state)
        for index, move in enumerate(moves):
            value, vector, rest = self.node(self.child(state, move), height + 1, low, high)
            self.back()
            if best is None or (value > best if maximising else value < best):
                best, best_vector, line = value, vector, (move, *rest)
                if maximising:
                    low = max(low, float(value))
                else:
                    high = min(high, float(value))
                if low >= high:
                    self.cutoffs += index + 1 < len(moves)
                    self.pruned(
                        moves[index + 1 :],
                        f"beta cutoff: {_text(value)} >= {_text(beta)}"
                        if maximising
                        else f"alpha cutoff: {_text(value)} <= {_text(alpha)}",
                    )
                    break
        assert best is not None, "a position that is not over has a legal move"
        if table is not None:
            self.stores += 1
            bound = -1 if best <= alpha else 1 if best >= beta else 0
            table[key] = (best, bound, best_vector, line)
        return best, best_vector, line


Algorithm = Literal["maxn", "paranoid"]


def maxn(
    game: Game[S, M],
    state: S | None = None,
    *,
    moves: str | None = None,
    depth: int | None = None,
    time_limit: float | None = None,
    all_moves: bool = True,
    pv: bool = True,
    trace: bool = False,
    observer: SearchObserver | None = None,
) -> SearchResult:
    """max^n with shallow pruning: each player maximises its own payoff (first-best among ties).

    Args:
        game: A game of any number of players (no chance nodes).
        state: The position to search (default: the start).
        moves: Instead of ``state``, the moves from the start, such as ``"B2 A1"``.
        depth: Search this many plies deep and estimate the payoffs there (the game's
            ``evaluate_all``; see the module).  Default: to the end of the game.
        time_limit: Seconds: search depth 1, 2, ... (up to ``depth``) and give the deepest
            search finished in time (``cut_short="time"`` if one was cut).
        all_moves: Value every root move exactly (each without the root's pruning); else
            only the best.
        pv: Give the whole line of play (else its first move).
        trace: List every node entered in ``SearchResult.expanded`` (no table then).
        observer: Told of every node (:class:`gametree.search.engine.SearchObserver`; no table and
            no time limit then): ``gametree tree`` draws the search so (docs/trees.md).

    ``SearchResult.payoffs`` is the root's vector, ``score`` the payoff of the player to
    move, and each ``MoveValue.payoffs`` the vector after that move.
    """
    return _search("maxn", game, state, moves, depth, time_limit, all_moves, pv, trace, observer)


def paranoid(
    game: Game[S, M],
    state: S | None = None,
    *,
    moves: str | None = None,
    depth: int | None = None,
    time_limit: float | None = None,
    all_moves: bool = True,
    pv: bool = True,
    trace: bool = False,
    observer: SearchObserver | None = None,
) -> SearchResult:
    """Paranoid search: alpha-beta on the payoff of the player to move, every other player against it.

    The arguments are :func:`maxn`'s.  ``score`` is the payoff the player to move is sure
    of, ``payoffs`` the vector of the game's end (or estimate) the paranoid line leads to,
    and each ``MoveValue.payoffs`` that of the move's own line.
    """
    return _search("paranoid", game, state, moves, depth, time_limit, all_moves, pv, trace, observer)


def _search(
    name: Algorithm,
    game: Game[S, M],
    state: S | None,
    moves: str | None,
    depth: int | None,
    time_limit: float | None,
    all_moves: bool,
    pv: bool,
    trace: bool,
    observer: SearchObserver | None = None,
) -> SearchResult:
    check_game(game, name, SUPPORTS)
    root = start(game, position(game, state, moves), checked=True)
    started = time.perf_counter()
    if time_limit is None or observer is not None:
        walk = _walk(name, game, root, depth, None, trace)
        if observer is not None:
            walk.watch(observer)
            walk.table = None
        values = _iteration(walk, root, all_moves)
        return _result(name, game, root, walk, values, depth, pv, time.perf_counter() - started, None)
    # Depth 1, 2, ...: the deepest search finished in time answers; the statistics count every search run.
    deadline = started + time_limit
    last = depth if depth is not None else game.info.max_plies - game.ply(root)
    done: tuple[_MaxN[S, M] | _Paranoid[S, M], list[tuple[M, Vector, tuple[M, ...]]], int] | None = None
    runs: list[_Walk[S, M]] = []
    for level in range(1, max(last, 1) + 1):
        walk = _walk(name, game, root, level, None if done is None else deadline, trace)
        runs.append(walk)
        try:
            values = _iteration(walk, root, all_moves)
        except SearchTimeout:
            break
        done = (walk, values, level)
        if walk.heuristic == 0 or time.perf_counter() > deadline:
            break
    assert done is not None  # the first iteration runs without a deadline
    walk, values, level = done
    finished = level == last or walk.heuristic == 0
    counted = _Walk(game, level, None, False)
    for run in runs:
        counted.add(run)
    return _result(
        name, game, root, walk, values, level, pv, time.perf_counter() - started, None if finished else "time", counted
    )


def _walk(
    name: Algorithm, game: Game[S, M], root: S, depth: int | None, deadline: float | None, trace: bool
) -> _MaxN[S, M] | _Paranoid[S, M]:
    """A fresh search of ``root`` by ``name``."""
    if name == "maxn":
        return _MaxN(game, depth, deadline, trace)
    return _Paranoid(game, depth, deadline, trace, game.to_move(root))


def _iteration(walk: _MaxN[S, M] | _Paranoid[S, M], root: S, all_moves: bool) -> list[tuple[M, Vector, tuple[M, ...]]]:
    """Search ``root`` with ``walk``: the root moves searched, each with its vector and line (every
    move when ``all_moves``, else the best alone)."""
    game = walk.game
    me = game.to_move(root)
    values: list[tuple[M, Vector, tuple[M, ...]]] = []
    if not all_moves:
        if isinstance(walk, _MaxN):
            vector, line, _ = walk.node(root, 0, me, None)
        else:
            _, vector, line = walk.node(root, 0, float("-inf"), float("inf"))
        return [(line[0], vector, line[1:])]
    obs = walk.observer
    if obs is not None:
        obs.enter(root, 0, None, None)
    walk.enter(root, 0)
    for move in game.legal_moves(root):
        child = walk.child(root, move)
        if isinstance(walk, _MaxN):
            vector, line, _ = walk.node(child, 1, me, None)
        else:
            _, vector, line = walk.node(child, 1, float("-inf"), float("inf"))
        walk.back()
        values.append((move, vector, line))
    if obs is not None:
        vector = max((v for _, v, _ in values), key=lambda v: v[me])  # (the first best, as the result's)
        obs.leave(Exit(float(vector[me]), "searched", payoffs=vector, player=me, exact=True))
    return values


def _text(value: Payoff) -> str:
    """A payoff in a cutoff's reason: ``7/3``, ``-2``, ``0.5``."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _plain(vector: Sequence[Payoff]) -> tuple[float, ...]:
    """A vector as the result gives it: whole numbers as ints, fractions as floats."""
    return tuple(v if isinstance(v, int) else int(v) if float(v).is_integer() else float(v) for v in vector)


def _number(payoff: Payoff, proven: bool) -> int | float:
    """A payoff as a result's score: whole numbers as ints (when proven), others as floats."""
    return payoff if isinstance(payoff, int) else whole(float(payoff), proven)


def _verdict(vector: Vector, me: int, proven: bool) -> tuple[Value, int | None]:
    """The value for player ``me`` and the winner: the one player with the highest payoff, if any."""
    top = max(vector)
    leaders = [p for p, v in enumerate(vector) if v == top]
    winner = leaders[0] if len(leaders) == 1 else None
    if not proven:
        return "unknown", None
    if winner == me:
        return "win", winner
    return ("loss" if vector[me] < top else "draw"), winner


def _result(
    name: Algorithm,
    game: Game[S, M],
    root: S,
    walk: _Walk[S, M],
    values: list[tuple[M, Vector, tuple[M, ...]]],
    depth: int | None,
    pv: bool,
    seconds: float,
    cut_short: Literal["time"] | None,
    counted: _Walk[S, M] | None = None,
) -> SearchResult:
    """The result of ``walk``'s search (``counted``: the counters of every search run, if not its own)."""
    me = game.to_move(root)
    proven = walk.heuristic == 0
    # max^n: the mover's payoff after each move; paranoid: the payoff it is sure of (its line's leaf's).
    mine = [vector[me] for _, vector, _ in values]
    top = max(mine)
    first = mine.index(top)
    move, vector, rest = values[first]
    line = _texts(game, root, (move, *rest)) if pv else (game.format_move(root, move),)
    move_values = tuple(
        MoveValue(
            game.format_move(root, m),
            _number(v[me], proven),
            len(r) + 1 if proven else None,
            v[me] == top,
            game_move=m,
            payoffs=_plain(v),
        )
        for m, v, r in values
    )
    value, winner = _verdict(vector, me, proven)
    score = vector[me]
    return SearchResult(
        name,
        me,
        value,
        winner,
        _number(score, proven),
        proven,
        len(rest) + 1 if proven else None,
        tuple(mv.move for mv in move_values if mv.best),
        move_values,
        line,
        depth,
        (counted or walk).stats(seconds),
        cut_short=cut_short,
        payoffs=_plain(vector),
        expanded=walk.trace.expanded() if walk.trace is not None else None,
        margin=int(score) if proven and game.info.margin else None,
    )


def _texts(game: Game[S, M], state: S, line: Sequence[M]) -> tuple[str, ...]:
    texts = []
    for move in line:
        texts.append(game.format_move(state, move))
        state = game.play(state, move)
    return tuple(texts)
