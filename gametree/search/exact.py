"""A fast exact solver: alpha-beta tuned for proving game values.

The same negamax and depth-aware scores as :func:`gametree.search.alphabeta`,
with the techniques of Pascal Pons's Connect Four solver, kept game-agnostic:

- **null-window narrowing**: the exact score comes from a sequence of
  null-window searches that bisect the range of possible scores (biased
  towards 0, where most positions are decided);
- **score bounds from the moves left**: no score can beat winning with the
  next move, nor be worse than losing to the opponent's next move;
- **immediate wins and forced blocks**, when the game provides the optional
  helpers ``immediate_win(state) -> bool`` (can the side to move win with its
  next move?) and ``safe_moves(state) -> Sequence`` (the moves, best first, that
  leave the opponent no immediate win; empty when every move loses at once).
  With them the solver never searches a position one move from the end, and
  never plays a move the opponent punishes at once.  A game that provides
  them must end only by its winner's own move (not misere).  A third,
  ``has_safe_move(state) -> bool`` (is ``safe_moves`` not empty?), lets the
  solver settle a position without ordering its moves when the bound
  "the opponent cannot win next move" alone decides it, and a fourth,
  ``has_safe_reply(state, move) -> bool`` (``has_safe_move(play(state,
  move))``, without building the state), lets it settle such a position
  from its parent, child by child, without entering it; a fifth,
  ``safe_moves_unordered(state)`` (the moves of ``safe_moves`` in any order),
  spares the ordering where every child will be settled so;
- a bounds transposition table keyed by the canonical (symmetric) key.

Without the helpers it still works on any game, with the bounds and narrowing.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from .table import UNLIMITED_DEPTH, TranspositionTable, table_of
from ..game import Game
from .core import (
    INF,
    Scored,
    SearchResult,
    _best_move,
    _check_game,
    _Counters,
    _Engine,
    _freeze,
    _result,
    _Root,
    _scores_of,
    _start,
    alphabeta,
)

__all__ = ["Solver", "prepare", "prepare_scores", "solver"]

#: An exact solve of a position whose score range is at most this wide (about as many moves
#: left) is one search with the whole range as its window: near the end of a game that costs
#: fewer nodes than the null-window probes that would narrow the range (Pons's end-game set:
#: 51.4 -> 45.6 nodes per position; middle-game 466.0 -> 459.0; 20 wide: middle-game worse).
FULL_WINDOW_RANGE = 16

#: A weak solve of a position whose score range is at most this wide gets the draw questions
#: at once ("better than a draw?", "at least a draw?"); a wider range first gets the two
#: probes half-way to each end (the top first): fast wins and losses are the cheap ones to prove.  Weak
#: solves of the middle-game set: 328 nodes per position, against 333 with the wide probes
#: always and 562 with the draw questions always.
DIRECT_RANGE = 16
NEG_INF = -INF


def _half(x: float) -> float:
    """x / 2 rounded towards zero (as in C), to bias narrowing towards 0 (scores are whole numbers)."""
    return -(-x // 2) if x < 0 else x // 2


@functools.lru_cache(maxsize=16)
def _threat_bounds(C: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """By ply, in a game of at most ``C`` plies, for a position entered by a safe move: the best
    score (we cannot win now: at best with our next move but one) and the worst (neither can the
    opponent)."""
    return tuple((C - 1 - p) // 2 for p in range(C + 1)), tuple(-((C - 2 - p) // 2) if p < C - 2 else 0 for p in range(C + 1))


def _reply_by_playing(play: Callable[[Any, Any], Any], has_safe: Callable[[Any], bool]) -> Callable[[Any, Any], bool]:
    """``has_safe_reply`` for a game without one: play the move, ask ``has_safe_move``."""

    def has_safe_reply(state: Any, move: Any) -> bool:
        return has_safe(play(state, move))

    return has_safe_reply


class _SolverEngine(_Engine):
    """An engine whose ``alphabeta`` uses the game's solver helpers when present.

    The node function is a closure over the game's bound methods and the
    table, so the inner loop does no attribute look-ups.
    """

    def __init__(self, game: Game[Any, Any], *, table: TranspositionTable | None, symmetry: bool, counters: _Counters) -> None:
        super().__init__(game, limit=None, table=table, symmetry=symmetry, counters=counters)
        self.win_now = getattr(game, "immediate_win", None)
        self.safe = getattr(game, "safe_moves", None)
        self.has_safe = getattr(game, "has_safe_move", None)
        #: ``[move]``: the root's best move when the last search at height 0 proved one.
        self._found: list[Any] = [None]
        self.alphabeta = self._node_function()  # type: ignore[method-assign,assignment]

    def _node_function(self) -> Callable[[Any, float, float, int], float]:
        if self.win_now is not None and self.safe is not None:
            return self._threat_node_function()
        c = self.c
        per_depth = c.per_depth
        outcome, ply, legal, play = self.game.outcome, self.game.ply, self.game.legal_moves, self.game.play
        terminal_score = self.terminal_score
        C = self.C
        table = self.table
        keyf = self.keyf
        get = table.get if table is not None else None
        put = table.put if table is not None else None
        found = self._found

        def alphabeta(state: Any, alpha: float, beta: float, height: int) -> float:
            """Fail-soft negamax, as :meth:`gametree.search._Engine.alphabeta`."""
            nonlocal per_depth
            try:
                per_depth[height] += 1
            except IndexError:
                c.grow(height)
                per_depth = c.per_depth
                per_depth[height] += 1
            out = outcome(state)
            if out is not None:
                c.terminals += 1
                return terminal_score(state, out.winner)
            bound = (C + 1 - ply(state)) // 2
            if beta > bound:
                beta = bound
                if alpha >= beta:
                    return beta
            if alpha < -bound:
                alpha = -bound
                if alpha >= beta:
                    return alpha
            hash_move = None
            if get is not None:
                key = keyf(state)
                entry = get(key)
                if entry is not None:
                    lo, hi, hash_move, _ = entry
                    if lo >= beta:
                        return lo
                    if hi <= alpha:
                        return hi
                    if lo == hi:
                        return lo
                    if lo > alpha:
                        alpha = lo
                    if hi < beta:
                        beta = hi
            moves = legal(state)
            if hash_move is not None and len(moves) > 1 and hash_move != moves[0] and hash_move in moves:
                moves = [hash_move, *(m for m in moves if m != hash_move)]
            alpha0 = alpha
            best = -INF
            best_move = None
            for move in moves:
                value = -alphabeta(play(state, move), -beta, -alpha, height + 1)
                if value > best:
                    best = value
                    best_move = move
                    if value > alpha:
                        alpha = value
                        if alpha >= beta:
                            if move is not moves[-1]:
                                c.cutoffs += 1
                            break
            if height == 0 and best > alpha0:
                found[0] = best_move  # it scores at least ``best``
            if put is not None:
                if best <= alpha0:
                    put(key, -INF, best, best_move, UNLIMITED_DEPTH)
                elif best >= beta:
                    put(key, best, INF, best_move, UNLIMITED_DEPTH)
                else:
                    put(key, best, best, best_move, UNLIMITED_DEPTH)
            return best

        return alphabeta

    def _threat_node_function(self) -> Callable[[Any, float, float, int], float]:
        """The node function for games with ``immediate_win`` and ``safe_moves``.

        Inside the search every position is entered through a *safe* move, so
        the side to move cannot win at once and the game is not over: the
        inner ``node`` skips both questions, and reads the ply from the height
        (``base + height``).  Positions from outside (the root, or any move
        the caller likes) enter through ``alphabeta``, which asks them.
        """
        c = self.c
        per_depth = c.per_depth
        outcome, ply, play = self.game.outcome, self.game.ply, self.game.play
        terminal_score = self.terminal_score
        win_now, safe, has_safe = self.win_now, self.safe, self.has_safe
        assert win_now is not None and safe is not None  # as _node_function checked
        reply = getattr(self.game, "has_safe_reply", None)
        if reply is None and has_safe is not None:
            reply = _reply_by_playing(play, has_safe)
        # Where every child will be settled by ``reply``, the safe moves in any order will do.
        unordered: Callable[[Any], Any] = safe
        if reply is not None:
            unordered = getattr(self.game, "safe_moves_unordered", None) or safe
        C = self.C
        table = self.table
        keyf = self.keyf
        half = table.generation_size if table is not None else 0
        found = self._found
        base = 0  # the ply at height 0, set by each call from outside
        uppers, lowers = _threat_bounds(C)
        # The table's dictionaries are used directly (its get/put would cost a call per node); the
        # counts are added to the table's own after each search from outside.
        probes = hits = stores = 0

        def stuck(state: Any, p: int) -> float:
            """The score of a position at ply ``p`` where the side to move has no safe move."""
            out = outcome(state)  # a full board (or another end) leaves no moves either
            if out is not None:
                c.terminals += 1
                return terminal_score(state, out.winner)
            return -((C - p) // 2)  # whatever we play, the opponent wins next move

        def node(state: Any, alpha: float, beta: float, height: int) -> float:
            nonlocal per_depth, probes, hits, stores
            try:
                per_depth[height] += 1
            except IndexError:
                c.grow(height)
                per_depth = c.per_depth
                per_depth[height] += 1
            p = base + height
            # We cannot win now: at best we win with our next move but one.
            upper = uppers[p]
            if beta > upper:
                beta = upper
                if alpha >= beta:
                    return beta

            # With a safe move, the opponent cannot win with its next move either.  When that
            # bound settles the node, only whether we have one matters: cheaper to ask than
            # ordering the moves, or than a table probe.
            lower = lowers[p]
            if lower >= beta and has_safe is not None:  # (then alpha < lower, as alpha < beta)
                return lower if has_safe(state) else stuck(state, p)

            hash_move = None
            if table is not None:  # before generating (and ordering) moves: a hit often ends the node
                key = keyf(state)
                probes += 1
                entry = table.current.get(key)
                if entry is None and table.old:
                    entry = table.old.get(key)
                if entry is not None:
                    hits += 1
                    lo, hi, hash_move, _ = entry
                    if lo >= beta:
                        return lo
                    if hi <= alpha:
                        return hi
                    if lo == hi:
                        return lo
                    if lo > alpha:
                        alpha = lo
                    if hi < beta:
                        beta = hi

            # While alpha >= settle, a child's window lies at or below the lowest score it can have
            # with a safe move: it is settled by whether it has one, asked here without entering it
            # (still counted as a node; a third of the middle-game set's nodes).  When that holds
            # from the start, it holds for every child: their order matters little then.
            settle = -lowers[p + 1]
            moves = safe(state) if alpha < settle else unordered(state)
            if not moves:
                return stuck(state, p)
            if alpha < lower:
                alpha = lower
                if alpha >= beta:
                    return alpha
            if hash_move is not None and len(moves) > 1 and hash_move != moves[0] and hash_move in moves:
                moves = [hash_move, *(m for m in moves if m != hash_move)]

            alpha0 = alpha
            best = NEG_INF
            best_move = None
            deeper = height + 1
            value: float
            if deeper == len(per_depth):  # room to count those children here
                c.grow(deeper)
                per_depth = c.per_depth
            for move in moves:
                if alpha >= settle and reply is not None:
                    per_depth[deeper] += 1
                    if reply(state, move):
                        value = settle
                    else:
                        value = -stuck(play(state, move), p + 1)
                else:
                    value = -node(play(state, move), -beta, -alpha, deeper)
                if value > best:
                    best = value
                    best_move = move
                    if value > alpha:
                        alpha = value
                        if alpha >= beta:
                            if move is not moves[-1]:
                                c.cutoffs += 1
                            break

            if height == 0 and best > alpha0:
                found[0] = best_move  # it scores at least ``best``
            if table is not None:  # as TranspositionTable.put
                stores += 1
                current = table.current
                if len(current) >= half and key not in current:
                    table.old = current
                    table.current = current = {}
                if best <= alpha0:
                    current[key] = (NEG_INF, best, best_move, UNLIMITED_DEPTH)
                elif best >= beta:
                    current[key] = (best, INF, best_move, UNLIMITED_DEPTH)
                else:
                    current[key] = (best, best, best_move, UNLIMITED_DEPTH)
            return best

        def alphabeta(state: Any, alpha: float, beta: float, height: int) -> float:
            """Fail-soft negamax from any position, as :meth:`gametree.search._Engine.alphabeta`."""
            nonlocal base, probes, hits, stores
            out = outcome(state)
            if out is not None:
                c.grow(height)
                c.per_depth[height] += 1
                c.terminals += 1
                return terminal_score(state, out.winner)
            p = ply(state)
            if win_now(state):
                c.grow(height)
                c.per_depth[height] += 1
                return (C + 1 - p) // 2
            base = p - height
            try:
                return node(state, alpha, beta, height)
            finally:
                if table is not None:
                    table.probes += probes
                    table.hits += hits
                    table.stores += stores
                    probes = hits = stores = 0

        return alphabeta

    def floor(self, p: int) -> int:
        """The lowest score of a position at ply ``p`` (whose side to move cannot win now)."""
        # With the helpers, a game ends with its winner's move: the worst is losing to the
        # opponent's next move.  Without them (misere games!) one can lose by one's own move.
        return -((self.C - p) // 2) if self.win_now is not None else -((self.C + 1 - p) // 2)

    def exact(self, state: Any, height: int, at_least: float | None = None, weak: bool = False) -> float:
        """The exact score by null-window searches.

        Pascal Pons's bisection biased towards 0 for the first two probes
        (half-way to each end: cheap, and they settle fast wins and losses;
        the top end first, where Pons takes the bottom: a fast win proved
        settles the bottom half at once, and the side to move wins more often
        than it loses), then straight against a draw (above 0? at least 0?), where most
        positions of drawish games are decided, then bisection again.  Near
        the end of a game (a score range of at most ``FULL_WINDOW_RANGE``)
        one search with the whole range as its window replaces them.
        ``at_least`` is a known lower bound; the first probe then asks
        whether the score is above it.

        ``weak``: only the sign matters (win, draw or loss): the narrowing
        stops as soon as the bounds settle it, and the result has the right
        sign but is only a bound on the score.  Stopping early beats cutting
        the range to [-1, 1]: a fast win is proved with far fewer nodes than
        just any win (6x5 k=4 tic-tac-toe: 6,868 nodes against 1,646,952).
        """
        game = self.game
        self.root_move = None
        if game.outcome(state) is not None or (self.win_now is not None and self.win_now(state)):
            return self.alphabeta(state, -INF, INF, height)
        p = game.ply(state)
        # Bounds on the score (whole numbers; floats by type, as the searches return them).
        hi: float = (self.C + 1 - p) // 2
        lo: float = self.floor(p)
        probes = 0
        if hi - lo <= DIRECT_RANGE:
            probes = 2  # straight to "better than a draw?" and "at least a draw?"
        if at_least is not None and at_least > lo:
            lo = at_least
            probes = 2  # the known bound replaces the two wide probes
            if weak and lo > 0:
                return lo
            if lo < hi:
                r = self.alphabeta(state, lo, lo + 1, height)
                if r <= lo:
                    return lo
                lo = r
        if not weak and 0 < hi - lo <= FULL_WINDOW_RANGE:
            self._found[0] = None
            r = self.alphabeta(state, lo, hi, height)
            if r > lo:
                self.root_move = self._found[0]
            # Fail-soft: inside the window, the score; at or past an edge, that edge (a true bound).
            return lo if r <= lo else hi if r >= hi else r
        med: float
        while lo < hi:
            probes += 1
            if probes > 2 and lo <= 0 < hi:
                med = 0  # better than a draw?
            elif probes > 2 and lo <= -1 < hi:
                med = -1  # at least a draw?
            else:
                med = lo + (hi - lo) // 2
                # Half-way to the top before the bottom: Pons's middle-game set 3.1% fewer nodes
                # (weak 4.4%), 6x5 k=4 tic-tac-toe 10% (weak 40%), 5x5 k=4 7.7%, none more.
                if med >= 0 and _half(hi) > med:
                    med = _half(hi)
                elif med <= 0 and _half(lo) < med:
                    med = _half(lo)
            self._found[0] = None
            r = self.alphabeta(state, med, med + 1, height)
            if r <= med:
                hi = r
            else:
                lo = r
                self.root_move = self._found[0]
            if weak and (lo > 0 or hi < 0):
                return lo if lo > 0 else hi
        return lo


class Solver:
    """The exact solver bound to one game and one transposition table.

    ``Solver(game, cache=table).solve(state)`` is ``solver(game, state, cache=table)``.
    Built once, it solves many positions in a row (``gametree solve --batch``, a
    player's moves) without setting its search up again for each one; they all
    share the table.  Not for two threads at once.
    """

    def __init__(self, game: Game[Any, Any], *, cache: TranspositionTable | bool | None = True, symmetry: bool = True) -> None:
        _check_game(game)
        self.game = game
        self.table = table_of(cache)
        self.symmetry = symmetry
        self._engine = _SolverEngine(game, table=self.table, symmetry=symmetry, counters=_Counters())
        #: Follows lines to the end for principal variations, without counting (built on first use).
        self._lines: _SolverEngine | None = None

    def solve(self, state: Any = None, *, all_moves: bool = True, pv: bool = True, weak: bool = False) -> SearchResult:
        """Solve ``state`` (default: the start): see :func:`solver`."""
        game, engine, table = self.game, self._engine, self.table
        state = _start(game, state, checked=True)  # checked when the solver was built
        counters = engine.c
        counters.reset()
        base = (table.probes, table.hits, table.stores) if table is not None else (0, 0, 0)
        start = time.perf_counter()
        if weak:
            root = self._weak_root(state, all_moves)
        elif all_moves:
            # The root's score first; then each move's score, knowing none beats it.
            best = engine.exact(state, 0)
            moves = list(game.legal_moves(state))
            root = _Root(moves, [-engine.exact(game.play(state, m), 1, at_least=-best) for m in moves])
        else:
            value = engine.exact(state, 0)
            move = engine.root_move  # proved by the last probe that raised the score to ``value``
            if move is None:
                if value <= engine.floor(game.ply(state)):  # the lowest score there is: every move has it
                    move = next(iter(game.legal_moves(state)))
                else:
                    move = _best_move(engine, state, value)
            root = _Root([move], [value])
        stats = _freeze(counters, table, time.perf_counter() - start, base)
        if weak:
            return _result("solver", game, state, root, engine, None, stats, False, False, weak=True)
        return _result("solver", game, state, root, self._line_engine() if pv or all_moves else engine, None, stats, False, pv)

    def score(self, state: Any = None, *, weak: bool = False) -> Scored:
        """The score of ``state`` (default: the start) alone, and what proving it cost.

        The score :meth:`solve` gives, proved by the same searches, but without a
        best move or statistics by depth: for many positions whose values alone
        matter (``gametree solve --batch``), the cheapest answer.  ``weak``: the
        score's sign, as ``solve(state, weak=True)``.
        """
        engine = self._engine
        state = _start(self.game, state, checked=True)  # checked when the solver was built
        counters = engine.c
        counters.reset()
        start = time.perf_counter()
        value = engine.exact(state, 0, weak=weak)
        seconds = time.perf_counter() - start
        return Scored(_sign(value) if weak else value, weak, sum(counters.per_depth), seconds)

    def _weak_root(self, state: Any, all_moves: bool) -> _Root:
        """The root's value +1, 0 or -1 (win, draw or loss) and a best move, or every move's value."""
        game, engine = self.game, self._engine
        value = _sign(engine.exact(state, 0, weak=True))
        found = engine.root_move  # it made the last probe fail high: it scores at least the bound proved
        # A move's value is at least minus the root's when the root's is exact (a draw) or an
        # upper bound (a loss: every move scores >= 1 for the opponent, nothing to search).
        at_least = -value if value <= 0 else None
        if all_moves:
            moves = list(game.legal_moves(state))
            return _Root(moves, [-_sign(engine.exact(game.play(state, m), 1, at_least=at_least, weak=True)) for m in moves])
        if found is None:  # any move keeping the value; in a lost position every move loses
            for found in game.legal_moves(state):
                if value < 0 or -_sign(engine.exact(game.play(state, found), 1, at_least=at_least, weak=True)) == value:
                    break
        return _Root([found], [value])

    def _line_engine(self) -> _SolverEngine:
        if self._lines is None:
            table = self.table if self.table is not None else TranspositionTable()
            self._lines = _SolverEngine(self.game, table=table, symmetry=self.symmetry, counters=_Counters())
        return self._lines


def solver(
    game: Game[Any, Any],
    state: Any = None,
    *,
    depth: int | None = None,
    cache: TranspositionTable | bool | None = True,
    symmetry: bool = True,
    all_moves: bool = True,
    pv: bool = True,
    time_limit: float | None = None,
    weak: bool = False,
) -> SearchResult:
    """Exact depth-aware values, fast: null-window narrowing, threat pruning, bounds table.

    Same options and result as :func:`gametree.search.alphabeta`.  With a
    ``depth`` or ``time_limit`` it is a heuristic search, and runs as
    alpha-beta (iterative deepening for a time limit).

    ``weak=True`` proves only who wins (win, draw or loss), not how fast:
    much faster on won and lost positions.  Scores are then +1, 0 or -1,
    the result says ``weak=True`` and has no line to the end (its PV is the
    best move alone).

    For many positions in a row, :class:`Solver` sets the search up once.
    """
    if depth is not None or time_limit is not None:
        if weak:
            raise ValueError("weak solving proves the value; it does not combine with a depth or time limit")
        return alphabeta(game, state, depth=depth, cache=cache, symmetry=symmetry, all_moves=all_moves, pv=pv, time_limit=time_limit)
    return Solver(game, cache=cache, symmetry=symmetry).solve(state, all_moves=all_moves, pv=pv, weak=weak)


def prepare(
    game: Game[Any, Any],
    *,
    depth: int | None = None,
    time_limit: float | None = None,
    cache: TranspositionTable | bool | None = True,
    symmetry: bool = True,
    **options: Any,
) -> Callable[[Any], SearchResult]:
    """:func:`solver` bound to ``game`` and ``options``: a :class:`Solver`'s ``solve``, set up once."""
    if depth is not None or time_limit is not None:
        return functools.partial(solver, game, depth=depth, time_limit=time_limit, cache=cache, symmetry=symmetry, **options)
    return functools.partial(Solver(game, cache=cache, symmetry=symmetry).solve, **options)


def prepare_scores(
    game: Game[Any, Any],
    *,
    depth: int | None = None,
    time_limit: float | None = None,
    cache: TranspositionTable | bool | None = True,
    symmetry: bool = True,
    weak: bool = False,
    all_moves: bool = True,
    pv: bool = True,
) -> Callable[[Any], Scored]:
    """:func:`prepare` for the scores alone: a :class:`Solver`'s ``score``, set up once
    (see :func:`gametree.search.prepare_scores`).  ``all_moves`` and ``pv`` do not
    apply to a score; with a ``depth`` or ``time_limit`` it is the heuristic search's."""
    if depth is not None or time_limit is not None:
        return _scores_of(prepare(game, depth=depth, time_limit=time_limit, cache=cache, symmetry=symmetry, weak=weak, all_moves=False, pv=False))
    return functools.partial(Solver(game, cache=cache, symmetry=symmetry).score, weak=weak)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)
