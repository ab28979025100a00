"""The negamax engine: the one search every algorithm of :mod:`gametree.search` runs.

Scores are from the side to move: positive wins, 0 draws, negative loses.  A
win with the game-ending move played after ``n`` moves scores
``(C + 1 - n) // 2`` where ``C = game.info.max_plies`` (Pascal Pons's Connect
Four convention, generalised; see :func:`gametree.win_score`); a loss the
negation.  So a faster win and a slower loss score higher.  Heuristic values at
a depth limit lie strictly between -1 and 1, so they never outrank a proven
result.

One node function does the work of plain minimax, alpha-beta and the exact
solver.  What differs between them is chosen once, when the engine is built:

- ``prune``: alpha-beta (windows, score bounds from the moves left, cutoffs,
  the transposition table) or plain minimax (every node, no cache);
- the **move strategy**: the game's legal moves, or, for a game that is
  :class:`gametree.game.ThreatAware` (and a search to the end), the
  *threat-aware* strategy of Pons's solver: a position is entered only by a
  move that leaves the opponent no immediate win, so it is never over and its
  side to move cannot win at once; the node asks the game for its safe moves
  (forced blocks first), and settles a child from its parent, without entering
  it, when the window says only whether the child has a safe move matters;
- an optional :class:`SearchObserver`, told of every node (tree capture, node
  limits, statistics); the ``if observer is not None`` tests are all an
  unobserved search pays for it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Literal, NamedTuple, Protocol

from ..game import Game, capabilities, win_score
from .table import UNLIMITED_DEPTH, TranspositionTable

__all__ = [
    "INF",
    "BoundKind",
    "Counters",
    "Engine",
    "Exit",
    "NodeKind",
    "SearchObserver",
    "SearchTimeout",
    "bound_of",
    "clamp",
]

INF = float("inf")
NEG_INF = -INF
#: Heuristic values are clamped into this range, inside (-1, 1).
HEURISTIC_MAX = 0.999

#: How a node was settled: searched (its moves tried), a game end, a heuristic leaf at the
#: depth limit, a table hit, or a score bound alone (including, in the threat-aware strategy,
#: "has it a safe move?").
NodeKind = Literal["searched", "terminal", "heuristic", "cache", "bound"]
#: What a fail-soft value says about the true one, given the window on entry.
BoundKind = Literal["exact", "lower", "upper"]
#: What the transposition table did at a node: nothing stored, stored for too shallow a
#: search, stored but only narrowing the window, or answered it.
CacheUse = Literal["miss", "shallow", "partial", "hit"]


class Exit(NamedTuple):
    """How a node was left: its fail-soft ``value`` and how it was settled.

    ``bound`` says what the value tells of the true one given the window on
    entry; ``window`` is the window the node searched with (after the score
    bounds and the table narrowed it; None for plain minimax); ``cache`` what
    the table did; ``winner`` the winner at a game end (None: a draw).
    """

    value: float
    kind: NodeKind
    bound: BoundKind = "exact"
    window: tuple[float, float] | None = None
    cache: CacheUse | None = None
    winner: int | None = None


class SearchObserver(Protocol):
    """What an observed search reports, in order, for every node it visits.

    ``enter`` a node; for each move tried ``child(move)`` then the child's
    whole report; if a cutoff leaves moves untried, ``prune(moves, reason)``;
    finally ``leave``.  ``alpha``/``beta`` are None for plain minimax.  An
    observer may raise to stop the search (a node limit does).
    """

    def enter(self, state: Any, height: int, alpha: float | None, beta: float | None) -> None: ...

    def child(self, move: Any) -> None: ...

    def prune(self, moves: Sequence[Any], reason: str) -> None: ...

    def leave(self, exit: Exit) -> None: ...


class SearchTimeout(Exception):
    """A time-limited search ran out of time (caught by iterative deepening)."""


class Counters:
    """What one search counted: nodes by height, game ends, heuristic leaves, cutoffs."""

    __slots__ = ("terminals", "heuristic", "cutoffs", "per_depth")

    def __init__(self) -> None:
        self.terminals = self.heuristic = self.cutoffs = 0
        self.per_depth = [0] * 64

    @property
    def nodes(self) -> int:
        return sum(self.per_depth)

    def reset(self) -> None:
        """All counts back to 0, in place (an engine's node function holds on to ``per_depth``)."""
        self.terminals = self.heuristic = self.cutoffs = 0
        self.per_depth[:] = [0] * len(self.per_depth)

    def grow(self, height: int) -> None:
        """Make room to count nodes at ``height`` (and 64 more)."""
        if height >= len(self.per_depth):
            self.per_depth.extend([0] * (height + 1 - len(self.per_depth) + 64))


def clamp(value: float) -> float:
    """A heuristic value kept strictly inside (-1, 1)."""
    return HEURISTIC_MAX if value > HEURISTIC_MAX else -HEURISTIC_MAX if value < -HEURISTIC_MAX else float(value)


def bound_of(value: float, alpha: float, beta: float) -> BoundKind:
    """What a fail-soft result tells about the true value, given the window on entry.

    Inside the window it is exact.  (The engine may have narrowed the window
    with the score bound or a cached bound; a result on the narrowed edge is
    still exact, because those bounds hold for the true value.)
    """
    return "upper" if value <= alpha else "lower" if value >= beta else "exact"


def number(value: float) -> str:
    """A score as people write it: ``3``, ``-0.25``, ``inf``."""
    if value == INF:
        return "inf"
    if value == NEG_INF:
        return "-inf"
    if value == int(value):
        return str(int(value))
    return f"{value:.3g}"


@functools.lru_cache(maxsize=16)
def threat_bounds(C: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """By ply, in a game of at most ``C`` plies, for a position entered by a safe move: the best
    score (we cannot win now: at best with our next move but one) and the worst (neither can the
    opponent)."""
    return tuple(win_score(C, p + 2) for p in range(C + 2)), tuple(-win_score(C, p + 3) if p < C - 2 else 0 for p in range(C + 2))


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


def _no_evaluation(state: Any) -> float:
    return 0.0


class Engine:
    """One game's search, set up once: the game's functions bound, a table, counters.

    ``search(state, alpha, beta, height)`` is a fail-soft negamax from any
    position: its value ``v`` satisfies ``v <= alpha -> value <= v``,
    ``v >= beta -> value >= v``, else ``value == v``.

    - ``depth``: search this many plies below height 0, then evaluate
      (None: to the end of the game);
    - ``table``: a transposition table of bounds (None: none);
    - ``symmetry``: key the table by the game's ``canonical_key``;
    - ``prune``: False for plain minimax (no window, no table, no cutoffs);
    - ``threats``: use the threat-aware strategy when the game offers it (and
      ``depth`` is None);
    - ``observer``: told of every node;
    - ``deadline``: a :func:`time.perf_counter` time at which a depth-limited
      search stops with :class:`SearchTimeout`.
    """

    def __init__(
        self,
        game: Game[Any, Any],
        *,
        depth: int | None = None,
        table: TranspositionTable | None = None,
        symmetry: bool = True,
        prune: bool = True,
        threats: bool = False,
        observer: SearchObserver | None = None,
        deadline: float | None = None,
        counters: Counters | None = None,
    ) -> None:
        caps = capabilities(game)
        self.game = game
        self.depth = depth
        self.symmetry = symmetry
        self.limit = UNLIMITED_DEPTH if depth is None else depth
        self.table = table if prune else None
        self.counters = counters if counters is not None else Counters()
        self.observer = observer
        self.prune = prune
        self.C = game.info.max_plies
        self.keyf: Callable[[Any], Hashable] = caps.symmetric.canonical_key if (symmetry and caps.symmetric is not None) else game.key
        evaluate = caps.heuristic.evaluate if caps.heuristic is not None else _no_evaluation
        self.evaluate = _with_deadline(evaluate, deadline) if deadline is not None else evaluate
        #: The threat-aware strategy's questions, when it is used.
        self.threats = caps.threats if (threats and prune and depth is None) else None
        self.fast_threats = caps.fast_threats
        #: ``[move, improved]`` of the last node completed at height 0: the best move found,
        #: and whether it scored above the window's low end (then it scores at least the value).
        self.root: list[Any] = [None, False]
        self.search = self._build()

    @property
    def root_move(self) -> Any:
        """The best move of the last search's root node (None if the root was settled without trying moves)."""
        return self.root[0]

    def exact(self, state: Any, height: int = 0) -> float:
        """The value of ``state`` with the whole window."""
        return self.search(state, NEG_INF, INF, height)

    def floor(self, p: int) -> int:
        """The lowest score of a position at ply ``p`` whose side to move cannot win now."""
        # With threats, a game ends with its winner's move: the worst is losing to the
        # opponent's next move.  Without them (misere games!) one can lose by one's own move.
        return -win_score(self.C, p + 1) if self.threats is not None else -win_score(self.C, p)

    def wins_now(self, state: Any) -> bool:
        """Whether the threat-aware strategy settles ``state`` at once: the side to move wins next move."""
        return self.threats is not None and self.threats.immediate_win(state)

    def _build(self) -> Callable[[Any, float, float, int], float]:
        """The node function and its entry, as closures over everything they use."""
        game = self.game
        counters = self.counters
        per_depth = counters.per_depth
        outcome, ply, legal, play, to_move = game.outcome, game.ply, game.legal_moves, game.play, game.to_move
        C = self.C
        limit = self.limit
        table = self.table
        keyf = self.keyf
        half = table.generation_size if table is not None else 0
        evaluate = self.evaluate
        obs = self.observer
        prune = self.prune
        root = self.root
        store_depth = UNLIMITED_DEPTH if limit >= UNLIMITED_DEPTH else None
        # The best score at ply p: winning with the next move.
        tops = tuple(win_score(C, p) for p in range(C + 2))

        threats = self.threats
        if threats is not None:
            win_now, safe, has_safe = threats.immediate_win, threats.safe_moves, threats.has_safe_move
            fast = self.fast_threats
            if fast is not None:
                reply, unordered = fast.has_safe_reply, fast.safe_moves_unordered
            else:
                unordered = safe

                def reply(state: Any, move: Any) -> bool:
                    return has_safe(play(state, move))

            uppers, lowers = threat_bounds(C)
        base = 0  # the ply at height 0, set by each search from outside
        # The table's dictionaries are used directly (its get/put would cost a call per node);
        # the counts are added to the table's own after each search from outside.
        probes = hits = stores = 0

        def terminal(state: Any, winner: int | None, p: int) -> int:
            counters.terminals += 1
            if winner is None:
                return 0
            magnitude = win_score(C, p - 1)  # the game-ending move was the p-th
            return magnitude if winner == to_move(state) else -magnitude

        def cache_use(entry: tuple[float, float, Any, int] | None, height: int) -> CacheUse | None:
            """What the table did at a node that went on after its probe (for observers)."""
            if table is None:
                return None
            if entry is None:
                return "miss"
            return "partial" if entry[3] >= limit - height else "shallow"

        def stuck(state: Any, p: int) -> float:
            """The score of a position at ply ``p`` where the side to move has no safe move."""
            out = outcome(state)  # a full board (or another end) leaves no moves either
            if out is not None:
                return terminal(state, out.winner, p)
            return -win_score(C, p + 1)  # whatever we play, the opponent wins next move

        def node(state: Any, alpha: float, beta: float, height: int) -> float:
            nonlocal per_depth, probes, hits, stores
            try:
                per_depth[height] += 1
            except IndexError:
                counters.grow(height)
                per_depth = counters.per_depth
                per_depth[height] += 1
            if obs is not None:
                obs.enter(state, height, alpha if prune else None, beta if prune else None)
                a_in, b_in = alpha, beta
            p = base + height
            if threats is None:
                out = outcome(state)
                if out is not None:
                    score = terminal(state, out.winner, p)
                    if obs is not None:
                        obs.leave(Exit(score, "terminal", winner=out.winner))
                    return score
                if height >= limit:
                    counters.heuristic += 1
                    value = clamp(evaluate(state))
                    if obs is not None:
                        obs.leave(Exit(value, "heuristic"))
                    return value
                if prune:
                    # No score can beat winning with the very next move.
                    # Nor be worse than losing to the opponent's.
                    top = tops[p]
                    if beta > top:
                        beta = top
                    if alpha < -top:
                        alpha = -top
                    if alpha >= beta:
                        value = beta if beta == top else alpha
                        if obs is not None:
                            obs.leave(Exit(value, "bound", bound_of(value, a_in, b_in), window=(alpha, beta)))
                        return value
            else:
                # We cannot win now: at best we win with our next move but one.
                upper = uppers[p]
                if beta > upper:
                    beta = upper
                    if alpha >= beta:
                        if obs is not None:
                            obs.leave(Exit(beta, "bound", bound_of(beta, a_in, b_in), window=(alpha, beta)))
                        return beta
                # With a safe move, the opponent cannot win with its next move either.  When that
                # bound settles the node, only whether we have one matters: cheaper to ask than
                # ordering the moves, or than a table probe.
                lower = lowers[p]
                if lower >= beta:  # (then alpha < lower, as alpha < beta)
                    value = lower if has_safe(state) else stuck(state, p)
                    if obs is not None:
                        obs.leave(Exit(value, "bound", bound_of(value, a_in, b_in), window=(alpha, beta)))
                    return value

            hash_move = None
            entry = None
            if table is not None:  # before generating (and ordering) moves: a hit often ends the node
                key = keyf(state)
                probes += 1
                entry = table.current.get(key)
                if entry is None and table.old:
                    entry = table.old.get(key)
                if entry is not None:
                    hits += 1
                    lo, hi, hash_move, depth = entry
                    if depth >= limit - height:
                        if lo >= beta:
                            if obs is not None:
                                obs.leave(Exit(lo, "cache", bound_of(lo, a_in, b_in), window=(alpha, beta), cache="hit"))
                            return lo
                        if hi <= alpha:
                            if obs is not None:
                                obs.leave(Exit(hi, "cache", bound_of(hi, a_in, b_in), window=(alpha, beta), cache="hit"))
                            return hi
                        if lo == hi:
                            if obs is not None:
                                obs.leave(Exit(lo, "cache", "exact", window=(alpha, beta), cache="hit"))
                            return lo
                        if lo > alpha:
                            alpha = lo
                        if hi < beta:
                            beta = hi

            moves: Sequence[Any]
            if threats is None:
                moves = legal(state)
                settle = INF  # no child is settled from here
            else:
                # While alpha >= settle, a child's window lies at or below the lowest score it can
                # have with a safe move: it is settled by whether it has one, asked here without
                # entering it (still counted as a node).  When that holds from the start, it holds
                # for every child: their order matters little then.
                settle = -lowers[p + 1]
                moves = safe(state) if alpha < settle else unordered(state)
                if not moves:
                    value = stuck(state, p)
                    if obs is not None:
                        obs.leave(Exit(value, "bound", bound_of(value, a_in, b_in), window=(alpha, beta), cache=cache_use(entry, height)))
                    return value
                if alpha < lower:
                    alpha = lower
                    if alpha >= beta:
                        if obs is not None:
                            obs.leave(Exit(alpha, "bound", bound_of(alpha, a_in, b_in), window=(alpha, beta), cache=cache_use(entry, height)))
                        return alpha
            if hash_move is not None and len(moves) > 1 and hash_move != moves[0] and hash_move in moves:
                moves = [hash_move, *(m for m in moves if m != hash_move)]

            alpha0 = alpha
            best = NEG_INF
            best_move = None
            deeper = height + 1
            if deeper == len(per_depth):  # room to count the children settled here
                counters.grow(deeper)
                per_depth = counters.per_depth
            for move in moves:
                if obs is not None:
                    obs.child(move)
                if alpha >= settle:
                    per_depth[deeper] += 1
                    if obs is not None:
                        obs.enter(play(state, move), deeper, -beta, -alpha)
                    if reply(state, move):
                        value = settle
                    else:
                        value = -stuck(play(state, move), p + 1)
                    if obs is not None:
                        obs.leave(Exit(-value, "bound", bound_of(-value, -beta, -alpha), window=(-beta, -alpha)))
                else:
                    value = -node(play(state, move), -beta, -alpha, deeper)
                if value > best:
                    best = value
                    best_move = move
                    if prune and value > alpha:
                        alpha = value
                        if alpha >= beta:
                            if move is not moves[-1]:
                                counters.cutoffs += 1  # moves were left untried
                                if obs is not None:
                                    obs.prune(moves[list(moves).index(move) + 1 :], f"beta cutoff: {number(value)} >= {number(beta)}")
                            break

            if height == 0:
                root[0] = best_move
                root[1] = best > alpha0
            if table is not None:  # as TranspositionTable.put
                stores += 1
                current = table.current
                if len(current) >= half and key not in current:
                    table.old = current
                    table.current = current = {}
                stored = limit - height if store_depth is None else store_depth
                if best <= alpha0:
                    current[key] = (NEG_INF, best, best_move, stored)
                elif best >= beta:
                    current[key] = (best, INF, best_move, stored)
                else:
                    current[key] = (best, best, best_move, stored)
            if obs is not None:
                if prune:
                    obs.leave(Exit(best, "searched", bound_of(best, a_in, b_in), window=(alpha0, beta), cache=cache_use(entry, height)))
                else:
                    obs.leave(Exit(best, "searched"))
            return best

        def search(state: Any, alpha: float, beta: float, height: int = 0) -> float:
            """Fail-soft negamax from any position (see :class:`Engine`)."""
            nonlocal base, probes, hits, stores
            p = ply(state)
            if threats is not None:
                # Inside the search every position is entered by a safe move (never over, no
                # win now); one from outside is asked both questions here.
                out = outcome(state)
                if out is not None or win_now(state):
                    counters.grow(height)
                    counters.per_depth[height] += 1
                    score = terminal(state, out.winner, p) if out is not None else tops[p]
                    if obs is not None:
                        obs.enter(state, height, alpha, beta)
                        obs.leave(Exit(score, "terminal" if out is not None else "bound", winner=out.winner if out is not None else None))
                    return score
            base = p - height
            try:
                return node(state, alpha, beta, height)
            finally:
                if table is not None:
                    table.probes += probes
                    table.hits += hits
                    table.stores += stores
                    probes = hits = stores = 0

        return search
