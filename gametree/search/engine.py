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
import sys
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Literal, NamedTuple, Protocol

from ..game import Game, Move, State, UnsupportedGameError, capabilities, win_score
from .table import BYTES_PER_ENTRY, UNLIMITED_DEPTH, TranspositionTable

__all__ = [
    "INF",
    "RECURSION_MARGIN",
    "BoundKind",
    "Counters",
    "Engine",
    "Exit",
    "NodeKind",
    "SearchObserver",
    "SearchTimeout",
    "Searcher",
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

    ``window`` is the window the node searched with (after the score bounds
    and the table narrowed it; None for plain minimax); ``cache`` what the
    table did; ``winner`` the winner at a game end (None: a draw); ``exact``:
    the value is exact whatever the window on entry.  What the value tells
    of the true one follows from the window on entry: :meth:`bound`.
    """

    value: float
    kind: NodeKind
    window: tuple[float, float] | None = None
    cache: CacheUse | None = None
    winner: int | None = None
    exact: bool = False

    def bound(self, alpha: float | None, beta: float | None) -> BoundKind:
        """What the value says of the true one, given the window the node was entered with."""
        if self.exact or alpha is None or beta is None or self.kind in ("terminal", "heuristic"):
            return "exact"
        return bound_of(self.value, alpha, beta)


class SearchObserver(Protocol):
    """What an observed search reports, in order, for every node it visits.

    ``enter`` a node; for each move tried ``child(move)`` then the child's
    whole report; if a cutoff leaves moves untried, ``prune(moves, reason)``;
    finally ``leave``.  ``alpha``/``beta`` are None for plain minimax.  An
    observer may raise to stop the search (a node limit does).
    """

    def enter(self, state: State, height: int, alpha: float | None, beta: float | None) -> None: ...

    def child(self, move: Move) -> None: ...

    def prune(self, moves: Sequence[Any], reason: str) -> None: ...

    def leave(self, exit: Exit) -> None: ...


class Searcher(Protocol):
    """What follows a line of play with an engine: the game, the depth limit, and a fail-soft
    ``search`` (:class:`Engine`, or the compiled engine of :mod:`gametree.search.compiled`)."""

    @property
    def game(self) -> Game[Any, Any]: ...

    @property
    def limit(self) -> int: ...

    @property
    def search(self) -> Callable[[Any, float, float, int], float]: ...


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

    def timed(state: State) -> float:
        nonlocal calls
        calls += 1
        if not calls & 63 and clock() > deadline:
            raise SearchTimeout
        return evaluate(state)

    return timed


def _no_evaluation(state: State) -> float:
    return 0.0


#: What an observer's report gets for a node left before the table was asked.
NOT_PROBED = object()

#: Games at most this long get their scores by ply as tables; longer ones compute them.
TABLED_PLIES = 1 << 16


class WinScores(Sequence[int]):
    """``win_score(C, p)`` by ply ``p``, computed when asked: for games too long to table (a Nim
    of millions of objects)."""

    def __init__(self, max_plies: int) -> None:
        self.C = max_plies

    def __len__(self) -> int:
        return self.C + 2

    def __getitem__(self, p: int) -> int:  # type: ignore[override]
        return win_score(self.C, p)


#: Frame slots (8 bytes each) of :func:`spacious`'s frame: 40 KiB, which no ordinary chunk of
#: CPython's frame stack (16 KiB) can hold, so that it starts a 64 KiB chunk of its own.
SPACIOUS_SLOTS = 5000
#: Searches with more plies left than this run through :func:`spacious`.
SPACIOUS_PLIES = 16
#: Frames of Python's recursion limit kept for what is not one node per ply: the callers below
#: a search (the command line, a driver, a test runner, :func:`spacious`) and the calls a node
#: makes into the game and an observer (only for the message of :func:`too_deep`).
RECURSION_MARGIN = 200


def max_search_plies() -> int:
    """How many plies deep a search may recurse here (one frame per ply): Python's recursion
    limit less :data:`RECURSION_MARGIN`."""
    return sys.getrecursionlimit() - RECURSION_MARGIN


def too_deep(plies: int, depth: int | None) -> UnsupportedGameError:
    """The one-line error for a search that recursed deeper than Python allows (one frame per ply);
    ``plies``: how deep it could go; ``depth``: its depth limit (None: to the end of the game)."""
    budget = max_search_plies()
    if depth is not None:
        return UnsupportedGameError(f"depth {depth} is too deep: Python's recursion limit allows a search about {budget:,} plies deep")
    return UnsupportedGameError(
        f"this game is too large for a search to the end: it can last {plies:,} more plies, and Python's recursion "
        f"limit allows a search about {budget:,} plies deep; search it with a depth limit (gametree solve -a alphabeta --depth N)"
    )


@functools.cache
def _make_spacious() -> Callable[..., Any]:
    """A function ``(function, *args) -> function(*args)`` whose frame starts a chunk of CPython's
    frame stack, with room after it for about 45 nested node frames.

    CPython keeps Python frames in chunks of 16 KiB and frees a chunk as soon as the frame at
    its base returns.  A deep recursion that crosses from one chunk into the next at a busy
    depth allocates and frees a chunk on every call there: a search of 6x5 Connect Four ran
    twice as long when it happened to start a few frames deeper (docs/performance-log.md).
    Where that boundary falls depends on everything below the search, so it is moved out of
    the way: this frame is too large for any ordinary chunk, so CPython gives it a 64 KiB
    chunk of its own, kept while the search recurses in the 24 KiB after it.  The frame's size
    comes from its local variables, which is why the function is written by code.
    """
    if sys.implementation.name != "cpython":
        return lambda function, *args: function(*args)
    names = " = ".join(f"_{i}" for i in range(SPACIOUS_SLOTS))
    namespace: dict[str, Any] = {}
    exec(f"def spacious(function, *args):\n    if function is None:\n        {names} = None\n    return function(*args)\n", namespace)
    spacious: Callable[..., Any] = namespace["spacious"]
    return spacious


def spacious(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` with room on CPython's frame stack: see :func:`_make_spacious`
    (made on first use: compiling it costs more than a short search)."""
    return _make_spacious()(function, *args)


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
        #: ``[halted]``: set by :meth:`halt` (from any thread); every node checks it.
        self.halted = [False]
        #: ``[move, improved]`` of the last node completed at height 0: the best move found,
        #: and whether it scored above the window's low end (then it scores at least the value).
        self.root: list[Any] = [None, False]
        #: ``with_room(plies, function, *args)``: ``function(*args)`` with room on CPython's frame
        #: stack for a search ``plies`` deep (see :func:`spacious`); drivers that search one
        #: position several times (the solver's probes) call through it once.
        self.with_room: Callable[..., Any]
        self.search = self._build()

    @property
    def root_move(self) -> Any:
        """The best move of the last search's root node (None if the root was settled without trying moves)."""
        return self.root[0]

    def halt(self) -> None:
        """Make the search running now, and every later one, stop with :class:`SearchTimeout`
        at its next node (until :meth:`resume`); safe to call from another thread."""
        self.halted[0] = True

    def resume(self) -> None:
        """Let searches run again after :meth:`halt`."""
        self.halted[0] = False

    def nodes_now(self) -> int:
        """Nodes counted so far, while a search runs too (for a live display in another thread)."""
        return self.counters.nodes

    def table_bytes(self) -> int:
        """The memory the table's entries take now (about :data:`gametree.search.table.BYTES_PER_ENTRY` each)."""
        return len(self.table) * BYTES_PER_ENTRY if self.table is not None else 0

    def table_counts(self) -> tuple[int, int, int]:
        """The table's probes, hits and stores so far (zeros without a table)."""
        table = self.table
        return (table.probes, table.hits, table.stores) if table is not None else (0, 0, 0)

    def exact(self, state: State, height: int = 0) -> float:
        """The value of ``state`` with the whole window."""
        return self.search(state, NEG_INF, INF, height)

    def floor(self, p: int) -> int:
        """The lowest score of a position at ply ``p`` whose side to move cannot win now."""
        # With threats, a game ends with its winner's move: the worst is losing to the
        # opponent's next move.  Without them (misere games!) one can lose by one's own move.
        return -win_score(self.C, p + 1) if self.threats is not None else -win_score(self.C, p)

    def wins_now(self, state: State) -> bool:
        """Whether the threat-aware strategy settles ``state`` at once: the side to move wins next move."""
        return self.threats is not None and self.threats.immediate_win(state)

    def _build(self) -> Callable[[Any, float, float, int], float]:
        """The node function and its entry, as closures over everything they use.

        The node's frame is kept small (few locals, observer reports through
        helpers): a deep recursion of large frames crosses CPython's data-stack
        chunks, and a chunk crossed at a busy depth is allocated and freed on
        every call there (docs/performance-log.md, 24 November).
        """
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
        halted = self.halted
        unlimited = limit >= UNLIMITED_DEPTH
        # The best score at ply p: winning with the next move (in the threat-aware strategy, with
        # the next move but one); the worst, in that strategy, with a safe move: losing after it.
        uppers: Sequence[int] = tuple(win_score(C, p) for p in range(C + 2)) if C <= TABLED_PLIES else WinScores(C)
        lowers = uppers

        threats = self.threats
        if threats is not None:
            win_now, safe, has_safe = threats.immediate_win, threats.safe_moves, threats.has_safe_move
            fast = self.fast_threats
            if fast is not None:
                reply, unordered = fast.has_safe_reply, fast.safe_moves_unordered
            else:
                unordered = safe

                def reply(state: State, move: Move) -> bool:
                    return has_safe(play(state, move))

            uppers, lowers = threat_bounds(C)
        base = 0  # the ply at height 0, set by each search from outside
        in_room = False  # running through spacious()
        # The ply down to which this search looks: what a table entry records, so that an entry
        # serves any later search that looks no deeper (UNLIMITED_DEPTH: to the end of the game).
        horizon = UNLIMITED_DEPTH
        # The table's dictionaries are used directly (its get/put would cost a call per node);
        # the counts are added to the table's own after each search from outside.
        probes = hits = stores = 0

        def terminal(state: State, winner: int | None, p: int) -> int:
            counters.terminals += 1
            if winner is None:
                return 0
            magnitude = win_score(C, p - 1)  # the game-ending move was the p-th
            return magnitude if winner == to_move(state) else -magnitude

        def stuck(state: State, p: int) -> float:
            """The score of a position at ply ``p`` where the side to move has no safe move."""
            out = outcome(state)  # a full board (or another end) leaves no moves either
            if out is not None:
                return terminal(state, out.winner, p)
            return -win_score(C, p + 1)  # whatever we play, the opponent wins next move

        def report(value: float, kind: NodeKind, alpha: float, beta: float, entry: Any = NOT_PROBED) -> None:
            """Tell the observer how a node was left; ``entry``: what the table held, if it was probed."""
            assert obs is not None
            cache: CacheUse | None = None
            if kind == "cache":
                cache = "hit"
            elif table is not None and entry is not NOT_PROBED:
                cache = "miss" if entry is None else "partial" if entry[3] >= horizon else "shallow"
            # A table's exact value inside the window is exact, whatever the window on entry.
            exact = kind == "cache" and entry[0] == entry[1] and alpha < value < beta
            obs.leave(Exit(value, kind, (alpha, beta) if prune else None, cache, exact=exact))

        def cutoff(moves: Sequence[Any], move: Move, value: float, beta: float) -> None:
            assert obs is not None
            obs.prune(moves[list(moves).index(move) + 1 :], f"beta cutoff: {number(value)} >= {number(beta)}")

        def node(state: State, alpha: float, beta: float, height: int) -> float:
            nonlocal per_depth, probes, hits, stores
            value: float
            try:
                per_depth[height] += 1
            except IndexError:
                counters.grow(height)
                per_depth = counters.per_depth
                per_depth[height] += 1
            if halted[0]:
                raise SearchTimeout
            if obs is not None:
                obs.enter(state, height, alpha if prune else None, beta if prune else None)
            p = base + height
            if threats is None:
                out = outcome(state)
                if out is not None:
                    value = terminal(state, out.winner, p)
                    if obs is not None:
                        obs.leave(Exit(value, "terminal", winner=out.winner))
                    return value
                if p >= horizon:
                    counters.heuristic += 1
                    value = clamp(evaluate(state))
                    if obs is not None:
                        obs.leave(Exit(value, "heuristic"))
                    return value
                if prune:
                    # No score can beat winning with the very next move, nor be worse than losing
                    # to the opponent's.
                    upper = uppers[p]
                    if beta > upper:
                        beta = upper
                    if alpha < -upper:
                        alpha = -upper
                    if alpha >= beta:
                        value = beta if beta == upper else alpha
                        if obs is not None:
                            report(value, "bound", alpha, beta)
                        return value
            else:
                # We cannot win now: at best we win with our next move but one.
                upper = uppers[p]
                if beta > upper:
                    beta = upper
                    if alpha >= beta:
                        if obs is not None:
                            report(beta, "bound", alpha, beta)
                        return beta
                # With a safe move, the opponent cannot win with its next move either.  When that
                # bound settles the node, only whether we have one matters: cheaper to ask than
                # ordering the moves, or than a table probe.
                if lowers[p] >= beta:  # (then alpha < lowers[p], as alpha < beta)
                    value = lowers[p] if has_safe(state) else stuck(state, p)
                    if obs is not None:
                        report(value, "bound", alpha, beta)
                    return value

            hash_move = entry = None
            if table is not None:  # before generating (and ordering) moves: a hit often ends the node
                key = keyf(state)
                probes += 1
                entry = table.current.get(key)
                if entry is None and table.old:
                    entry = table.old.get(key)
                if entry is not None:
                    hits += 1
                    lo, hi, hash_move, _ = entry
                    if entry[3] >= horizon:
                        if lo >= beta or hi <= alpha or lo == hi:
                            value = lo if lo >= beta else hi if hi <= alpha else lo
                            if obs is not None:
                                report(value, "cache", alpha, beta, entry)
                            return value
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
                        report(value, "bound", alpha, beta, entry)
                    return value
                if alpha < lowers[p]:
                    alpha = lowers[p]
                    if alpha >= beta:
                        if obs is not None:
                            report(alpha, "bound", alpha, beta, entry)
                        return alpha
            if hash_move is not None and len(moves) > 1 and hash_move != moves[0] and hash_move in moves:
                moves = [hash_move, *(m for m in moves if m != hash_move)]

            alpha0 = alpha
            best = NEG_INF
            best_move = None
            if height + 1 == len(per_depth):  # room to count the children settled here
                counters.grow(height + 1)
                per_depth = counters.per_depth
            for move in moves:
                if obs is not None:
                    obs.child(move)
                if alpha >= settle:
                    per_depth[height + 1] += 1
                    value = settle if reply(state, move) else -stuck(play(state, move), p + 1)
                    if obs is not None:
                        obs.enter(play(state, move), height + 1, -beta, -alpha)
                        report(-value, "bound", -beta, -alpha)
                else:
                    value = -node(play(state, move), -beta, -alpha, height + 1)
                if value > best:
                    best = value
                    best_move = move
                    if prune and value > alpha:
                        alpha = value
                        if alpha >= beta:
                            if move is not moves[-1]:
                                counters.cutoffs += 1  # moves were left untried
                                if obs is not None:
                                    cutoff(moves, move, value, beta)
                            break

            if height == 0:
                root[0] = best_move
                root[1] = best > alpha0
            if table is not None:  # as TranspositionTable.put
                stores += 1
                if len(table.current) >= half and key not in table.current:
                    table.old = table.current
                    table.current = {}
                if best <= alpha0:
                    table.current[key] = (NEG_INF, best, best_move, horizon)
                elif best >= beta:
                    table.current[key] = (best, INF, best_move, horizon)
                else:
                    table.current[key] = (best, best, best_move, horizon)
            if obs is not None:
                if prune:
                    report(best, "searched", alpha0, beta, entry)
                else:
                    obs.leave(Exit(best, "searched"))
            return best

        def with_room(plies: int, function: Callable[..., Any], *args: Any) -> Any:
            """``function(*args)``, through :func:`spacious` if it may search more than
            :data:`SPACIOUS_PLIES` plies deep (once: the searches it makes run in its room)."""
            nonlocal in_room
            if in_room or plies <= SPACIOUS_PLIES:
                return function(*args)
            in_room = True
            try:
                return spacious(function, *args)
            finally:
                in_room = False

        self.with_room = with_room

        def search(state: State, alpha: float, beta: float, height: int = 0) -> float:
            """Fail-soft negamax from any position (see :class:`Engine`)."""
            nonlocal base, horizon, probes, hits, stores
            p = ply(state)
            if threats is not None:
                # Inside the search every position is entered by a safe move (never over, no
                # win now); one from outside is asked both questions here.
                out = outcome(state)
                if out is not None or win_now(state):
                    counters.grow(height)
                    counters.per_depth[height] += 1
                    value = terminal(state, out.winner, p) if out is not None else win_score(C, p)
                    if obs is not None:
                        obs.enter(state, height, alpha, beta)
                        obs.leave(Exit(value, "terminal" if out is not None else "bound", winner=out.winner if out is not None else None, exact=True))
                    return value
            base = p - height
            horizon = UNLIMITED_DEPTH if unlimited else base + limit
            plies = min(C, horizon) - p  # the recursion's depth at most: one node frame per ply
            try:
                if not in_room and plies > SPACIOUS_PLIES:
                    return with_room(plies, node, state, alpha, beta, height)  # type: ignore[no-any-return]
                return node(state, alpha, beta, height)
            except RecursionError:
                # One frame per ply: a line of play longer than Python allows.  Searched until it
                # happens, as most long games are decided far above their longest line.
                raise too_deep(plies, None if unlimited else limit) from None
            finally:
                if table is not None:
                    table.probes += probes
                    table.hits += hits
                    table.stores += stores
                    probes = hits = stores = 0

        return search
