"""The negamax engine: the one search every algorithm of :mod:`gametree.search` runs.

Scores are from the side to move: positive wins, 0 draws, negative loses.  A
win with the game-ending move played after ``n`` moves scores
``(C + 1 - n) // 2`` where ``C = game.info.max_plies`` (Pascal Pons's Connect
Four convention, generalised; see :func:`gametree.win_score`); a loss the
negation.  So a faster win and a slower loss score higher.  Heuristic values at
a depth limit lie strictly between -1 and 1, so they never outrank a proven
result.

A margin game (``GameInfo.margin``) scores a finished game by its final margin
for the side to move instead, whatever the ply; its scores lie in the game's
``payoff_bounds`` (:mod:`gametree.search.margins`), its heuristic estimates
strictly inside them, and the threat-aware strategy (which assumes a game ends
with its winner's move) is not used.

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

:class:`Engine` satisfies :class:`gametree.search.contract.SearchEngine`.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Generic, Literal, NamedTuple, NoReturn, ParamSpec, Protocol, TypeVar

from ..game import Game, M, Move, Outcome, Payoff, S, State, ThreatAware, capabilities, payoffs, win_score
from ..runtime.signals import watch
from .contract import Counters, EngineName, RootReport, SearchTimeout, StopFlag, TableFill
from .frames import SPACIOUS_PLIES, spacious, too_deep
from .margins import estimate_range, margin_bound
from .table import BYTES_PER_ENTRY, UNLIMITED_DEPTH, Bound, TranspositionTable

__all__ = [
    "INF",
    "Engine",
    "Exit",
    "NodeKind",
    "SearchObserver",
    "bound_of",
    "clamp",
    "number",
]

P = ParamSpec("P")
T = TypeVar("T")

INF = float("inf")
NEG_INF = -INF
#: Heuristic values are clamped into this range, inside (-1, 1).
HEURISTIC_MAX = 0.999

#: How a node was settled: searched (its moves tried), a game end, a heuristic leaf at the
#: depth limit, a table hit, or a score bound alone (including, in the threat-aware strategy,
#: "has it a safe move?"); a probe (Star2's look at a child's first move only, a bound on it).
NodeKind = Literal["searched", "terminal", "heuristic", "cache", "bound", "probe"]
#: What the transposition table did at a node: nothing stored, stored for too shallow a
#: search, stored but only narrowing the window, or answered it.
CacheUse = Literal["miss", "shallow", "partial", "hit"]
#: A table entry as the node reads it: lower and upper bound, best move, horizon.
TableEntry = tuple[float, float, Move, int]


class Exit(NamedTuple):
    """How a node was left: its fail-soft ``value`` and how it was settled.

    ``window`` is the window the node searched with (after the score bounds
    and the table narrowed it; None for plain minimax); ``cache`` what the
    table did; ``winner`` the winner at a game end (None: a draw); ``exact``:
    the value is exact whatever the window on entry.  What the value tells
    of the true one follows from the window on entry: :meth:`bound`.

    Searches other than the engine (expectiminimax, Star1/Star2, max^n, paranoid) may
    also give ``payoffs``, each player's (expected) payoff at the node, and ``player``,
    the player whose payoff ``value`` and the window are (None: the side to move, as
    the engine's negamax values are; see docs/trees.md).
    """

    value: float
    kind: NodeKind
    window: tuple[float, float] | None = None
    cache: CacheUse | None = None
    winner: int | None = None
    exact: bool = False
    payoffs: tuple[Payoff, ...] | None = None
    player: int | None = None

    def bound(self, alpha: float | None, beta: float | None) -> Bound:
        """What the value says of the true one, given the window the node was entered with."""
        if self.exact or alpha is None or beta is None or self.kind in ("terminal", "heuristic"):
            return Bound.EXACT
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

    def prune(self, moves: Sequence[Move], reason: str) -> None: ...

    def leave(self, exit: Exit) -> None: ...


class NodeFunction(Protocol):
    """The node function: the fail-soft value of ``state`` at ``height`` below the search's root."""

    def __call__(self, state: State, alpha: float, beta: float, height: int) -> float: ...


def clamp(value: float) -> float:
    """A heuristic value kept strictly inside (-1, 1)."""
    return max(-HEURISTIC_MAX, min(HEURISTIC_MAX, float(value)))


def bound_of(value: float, alpha: float, beta: float) -> Bound:
    """What a fail-soft result tells about the true value, given the window on entry.

    Inside the window it is exact.  (The engine may have narrowed the window
    with the score bound or a cached bound; a result on the narrowed edge is
    still exact, because those bounds hold for the true value.)
    """
    return Bound.UPPER if value <= alpha else Bound.LOWER if value >= beta else Bound.EXACT


def number(value: float) -> str:
    """A score as people write it: ``3``, ``-0.25``, ``inf``."""
    if value in (INF, NEG_INF):
        return "inf" if value > 0 else "-inf"
    if value == int(value):
        return str(int(value))
    return f"{value:.3g}"


@functools.lru_cache(maxsize=16)
def threat_bounds(C: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """By ply, in a game of at most ``C`` plies, for a position entered by a safe move: the best
    score (we cannot win now: at best with our next move but one) and the worst (neither can the
    opponent)."""
    best = tuple(win_score(C, p + 2) for p in range(C + 2))
    return best, tuple(-win_score(C, p + 3) if p < C - 2 else 0 for p in range(C + 2))


def _with_deadline(evaluate: Callable[[State], float], deadline: float) -> Callable[[State], float]:
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
NOT_PROBED: Any = object()

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


class Margins(Sequence[int]):
    """A margin game's best score by ply: its largest margin, whatever the ply."""

    def __init__(self, max_plies: int, margin: int) -> None:
        self.C, self.margin = max_plies, margin

    def __len__(self) -> int:
        return self.C + 2

    def __getitem__(self, p: int) -> int:  # type: ignore[override]
        return self.margin


class Unbounded(Sequence[float]):
    """No score bound at any ply (an engine built with ``bounds=False``)."""

    def __init__(self, max_plies: int) -> None:
        self.C = max_plies

    def __len__(self) -> int:
        return self.C + 2

    def __getitem__(self, p: int) -> float:  # type: ignore[override]
        return INF


class Reach:
    """Where a search stands in the game: the ply at its height 0 (``base``) and the ply down to which
    it looks (``horizon``, :data:`UNLIMITED_DEPTH`: to the end), which a table entry records so that
    it serves any later search that looks no deeper.  Set by each search, read by every node."""

    __slots__ = ("base", "horizon")

    def __init__(self) -> None:
        self.base, self.horizon = 0, UNLIMITED_DEPTH


class ThreatMoves(NamedTuple, Generic[S, M]):
    """The threat-aware strategy's questions, bound once: does the side to move win now, its safe
    moves (ordered, and unordered for a node whose children are all settled from it), has it a safe
    move, and has the position after a move one (asked from its parent)."""

    win_now: Callable[[S], bool]
    safe: Callable[[S], Sequence[M]]
    unordered: Callable[[S], Sequence[M]]
    has_safe: Callable[[S], bool]
    reply: Callable[[S, M], bool]


def threat_moves(game: Game[S, M], threats: ThreatAware[S, M]) -> ThreatMoves[S, M]:
    """The threat-aware questions of ``game``, from its fast versions where it has them."""
    fast = capabilities(game).fast_threats
    has_safe, play = threats.has_safe_move, game.play
    if fast is not None:
        reply, unordered = fast.has_safe_reply, fast.safe_moves_unordered
    else:
        unordered = threats.safe_moves

        def reply(state: S, move: M) -> bool:
            return has_safe(play(state, move))

    return ThreatMoves(threats.immediate_win, threats.safe_moves, unordered, has_safe, reply)


def _no_threat_moves(*args: object) -> NoReturn:
    raise AssertionError("the threat-aware strategy is not in use")  # pragma: no cover


#: What the node binds when the threat-aware strategy is not in use (never called then).
NO_THREATS = ThreatMoves(_no_threat_moves, _no_threat_moves, _no_threat_moves, _no_threat_moves, _no_threat_moves)


class Engine:
    """One game's search, set up once: the game's functions bound, a table, counters.

    ``search(state, alpha, beta, height)`` is a fail-soft negamax from any
    position (the contract of :class:`gametree.search.contract.SearchEngine`).

    - ``depth``: search this many plies below height 0, then evaluate
      (None: to the end of the game);
    - ``table``: a transposition table of bounds (None: none);
    - ``symmetry``: key the table by the game's ``canonical_key``;
    - ``prune``: False for plain minimax (no window, no table, no cutoffs);
    - ``threats``: use the threat-aware strategy when the game offers it (and
      ``depth`` is None; never for a margin game);
    - ``bounds``: narrow each node's window to the scores possible there (no
      score beats winning with the next move, nor a margin game's largest
      margin); False: the textbook's alpha-beta, whose only cutoffs come from
      the values seen (:func:`gametree.search.classic.textbook`);
    - ``observer``: told of every node;
    - ``deadline``: a :func:`time.perf_counter` time at which a depth-limited
      search stops with :class:`SearchTimeout`;
    - ``stop``: the flag every node reads (default: a new
      :class:`~gametree.search.contract.StopFlag`; ``auto``'s probe gives a
      :class:`gametree.search.probe.NodeBudget`).
    """

    name: EngineName = "python"

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
        bounds: bool = True,
        stop: StopFlag | None = None,
    ) -> None:
        caps = capabilities(game)
        self.bounds = bounds
        self.game = game
        self.depth = depth
        self.symmetry = symmetry
        self.limit = UNLIMITED_DEPTH if depth is None else depth
        self.table = table if prune else None
        self.counters = counters if counters is not None else Counters()
        self.observer = observer
        self.prune = prune
        self.max_plies = game.info.max_plies
        #: A margin game's largest margin (its scores lie in [-margin, margin]); None for win/draw/loss.
        self.margin = margin_bound(game.info) if game.info.margin else None
        self.keyf: Callable[[State], Hashable] = (
            caps.symmetric.canonical_key if (symmetry and caps.symmetric is not None) else game.key
        )
        evaluate = caps.heuristic.evaluate if caps.heuristic is not None else _no_evaluation
        self.evaluate = _with_deadline(evaluate, deadline) if deadline is not None else evaluate
        #: The threat-aware strategy's questions, when it is used.
        self.threats = (
            threat_moves(game, caps.threats)
            if (threats and bounds and prune and depth is None and caps.threats and self.margin is None)
            else None
        )
        #: Set by :meth:`halt` (from any thread) or a stop signal; every node looks at it.
        self.stop = stop if stop is not None else StopFlag()
        self._halted = False
        self.root = RootReport()
        #: The ply at height 0 and the ply down to which the search looks (what a table entry
        #: records, so that it serves any later search that looks no deeper), set by each search.
        self._in_room = False
        self._reach = Reach()
        self._node = self._node_function()

    def halt(self) -> None:
        """Make the search running now, and every later one, stop with :class:`SearchTimeout`
        at its next node (until :meth:`resume`); safe to call from another thread."""
        self._halted = self.stop.set = True

    def resume(self) -> None:
        """Let searches run again after :meth:`halt`."""
        self._halted = self.stop.set = self.stop.signalled = False

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

    def table_fill(self) -> TableFill:
        """How full the table is: its entries against its bound, at about BYTES_PER_ENTRY each."""
        table = self.table
        return TableFill(len(table), table.max_entries, BYTES_PER_ENTRY) if table is not None else TableFill(0, 0, 0)

    def exact(self, state: State, height: int = 0) -> float:
        """The value of ``state`` with the whole window."""
        return self.search(state, NEG_INF, INF, height)

    def floor(self, p: int) -> int:
        """The lowest score of a position at ply ``p`` whose side to move cannot win now."""
        # With threats, a game ends with its winner's move: the worst is losing to the
        # opponent's next move.  Without them (misere games!) one can lose by one's own move.
        if self.margin is not None:
            return -self.margin  # a margin game: the worst margin there is
        return -win_score(self.max_plies, p + 1) if self.threats is not None else -win_score(self.max_plies, p)

    def wins_now(self, state: State) -> bool:
        """Whether the threat-aware strategy settles ``state`` at once: the side to move wins next move."""
        return self.threats is not None and self.threats.win_now(state)

    def with_room(self, plies: int, function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args)``, through :func:`gametree.search.frames.spacious` if it may search more
        than :data:`~gametree.search.frames.SPACIOUS_PLIES` plies deep (once: the searches it makes
        run in its room)."""
        if self._in_room or plies <= SPACIOUS_PLIES:
            return function(*args, **kwargs)
        self._in_room = True
        try:
            return spacious(function, *args, **kwargs)
        finally:
            self._in_room = False

    def search(self, state: State, alpha: float, beta: float, height: int = 0) -> float:
        """Fail-soft negamax from any position (see :class:`Engine`)."""
        game, threats = self.game, self.threats
        p = game.ply(state)
        if threats is not None:
            # Inside the search every position is entered by a safe move (never over, no win
            # now); one from outside is asked both questions here.
            out = game.outcome(state)
            if out is not None or threats.win_now(state):
                return self._settle_root(
                    state, height, alpha, beta, out.winner if out is not None else None, out is None
                )
        plies = self._aim(p - height, height)  # the recursion's depth at most: one node frame per ply
        stop = self.stop
        if stop.signalled:  # a signal that came after the last search ended is not this one's
            stop.signalled, stop.set = False, self._halted
        signals = watch()
        # Ctrl-C stops a search of the main thread even when Python drops its KeyboardInterrupt
        # (see StopFlag); a search in another thread is halted by whoever runs it.
        on_signal = threading.current_thread() is threading.main_thread() and signals.start()
        try:
            with signals.stopping(stop.signal) if on_signal else contextlib.nullcontext():
                if plies > SPACIOUS_PLIES:
                    return self.with_room(plies, self._node, state, alpha, beta, height)
                return self._node(state, alpha, beta, height)
        except RecursionError:
            # One frame per ply: a line of play longer than Python allows.  Searched until it
            # happens, as most long games are decided far above their longest line.
            raise too_deep(plies, None if self.limit >= UNLIMITED_DEPTH else self.limit) from None

    def _settle_root(
        self, state: State, height: int, alpha: float, beta: float, winner: int | None, wins_now: bool
    ) -> float:
        """The value of a position given from outside that is over, or whose side to move wins at once."""
        C, p, counters = self.max_plies, self.game.ply(state), self.counters
        counters.grow(height)
        counters.per_depth[height] += 1
        if wins_now:
            value = win_score(C, p)
        else:
            counters.terminals += 1
            magnitude = 0 if winner is None else win_score(C, p - 1)
            value = magnitude if winner == self.game.to_move(state) else -magnitude
        if self.observer is not None:
            self.observer.enter(state, height, alpha, beta)
            self.observer.leave(Exit(value, "bound" if wins_now else "terminal", winner=winner, exact=True))
        return value

    def _leaves(
        self,
    ) -> tuple[Callable[[State, Outcome, int], float], Callable[[State], float], Callable[[State, int], float]]:
        """The scores of leaves: ``ended(state, outcome, p)`` of a game over at ply ``p``;
        ``estimate(state)``, the heuristic's at the depth limit; ``stuck(state, p)`` of a position at
        ply ``p`` whose side to move has no safe move.  Each counts the leaf and tells the observer."""
        game, counters, C, obs, evaluate = self.game, self.counters, self.max_plies, self.observer, self.evaluate
        to_move, outcome = game.to_move, game.outcome

        def ended(state: State, out: Outcome, p: int) -> float:
            counters.terminals += 1
            value = 0
            winner = out.winner
            if winner is not None:
                value = win_score(C, p - 1)  # the game-ending move was the p-th
                value = value if winner == to_move(state) else -value
            if obs is not None:
                obs.leave(Exit(value, "terminal", winner=winner))
            return value

        def ended_by(state: State, out: Outcome, p: int) -> float:  # a margin game: the final margin
            counters.terminals += 1
            margin = payoffs(game, out)[to_move(state)]
            # (a whole margin as an int; a textbook tree's leaf of 7/3 as the float nearest it, not 2)
            value: float = int(margin) if margin == int(margin) else float(margin)
            if obs is not None:
                obs.leave(Exit(value, "terminal", winner=out.winner))
            return value

        top = HEURISTIC_MAX if self.margin is None else estimate_range(game.info)

        def estimate(state: State) -> float:
            counters.heuristic += 1
            value = evaluate(state)
            value = top if value > top else -top if value < -top else float(value)
            if obs is not None:
                obs.leave(Exit(value, "heuristic"))
            return value

        def stuck(state: State, p: int) -> float:
            out = outcome(state)  # a full board (or another end) leaves no moves either
            if out is not None:
                counters.terminals += 1
                magnitude = 0 if out.winner is None else win_score(C, p - 1)
                return magnitude if out.winner == to_move(state) else -magnitude
            return -win_score(C, p + 1)  # whatever we play, the opponent wins next move

        return (ended if self.margin is None else ended_by), estimate, stuck

    def _reporters(
        self,
    ) -> tuple[Callable[..., float], Callable[[Exit], float], Callable[..., None], Callable[..., None]]:
        """The observer's helpers, kept out of the node's frame: ``report(value, kind, alpha, beta,
        entry)`` and ``leave(exit)`` tell it how a node was left (and return the value);
        ``cutoff(moves, move, value, beta)`` that moves were left untried; ``settled(state, move,
        height, alpha, beta, value)`` of a child settled from its parent (threat-aware)."""
        obs, table, prune, play, counters = self.observer, self.table, self.prune, self.game.play, self.counters

        def report(value: float, kind: NodeKind, alpha: float, beta: float, entry: Any = NOT_PROBED) -> float:
            assert obs is not None
            cache: CacheUse | None = None
            if kind == "cache":
                cache = "hit"
            elif table is not None and entry is not NOT_PROBED:
                horizon = self._reach.horizon
                cache = "miss" if entry is None else "partial" if entry[3] >= horizon else "shallow"
            # A table's exact value inside the window is exact, whatever the window on entry.
            exact = kind == "cache" and entry[0] == entry[1] and alpha < value < beta
            obs.leave(Exit(value, kind, (alpha, beta) if prune else None, cache, exact=exact))
            return value

        def leave(exit: Exit) -> float:
            assert obs is not None
            obs.leave(exit)
            return exit.value

        def cutoff(moves: Sequence[Move], move: Move, value: float, beta: float) -> None:
            counters.cutoffs += 1
            if obs is not None:
                obs.prune(moves[list(moves).index(move) + 1 :], f"beta cutoff: {number(value)} >= {number(beta)}")

        def settled(state: State, move: Move, height: int, alpha: float, beta: float, value: float) -> None:
            assert obs is not None
            obs.enter(play(state, move), height + 1, -beta, -alpha)
            report(-value, "bound", -beta, -alpha)

        return report, leave, cutoff, settled

    def _aim(self, ply_at_root: int, height: int) -> int:
        """Set the search's reach for a search of a position at ply ``ply_at_root + height`` from
        ``height``, make room to count its nodes, and return how deep it may recurse."""
        reach, C = self._reach, self.max_plies
        reach.base = ply_at_root
        reach.horizon = UNLIMITED_DEPTH if self.limit >= UNLIMITED_DEPTH else ply_at_root + self.limit
        plies = min(C, reach.horizon) - ply_at_root - height
        # One node frame per ply, so none deeper than Python's recursion limit (+1: the children a
        # node settles without entering them).
        self.counters.grow(height + min(plies, sys.getrecursionlimit()) + 1)
        return plies

    def _node_function(self) -> NodeFunction:
        """The node function (see :meth:`_make_node`) with its score bounds by ply."""
        C = self.max_plies
        # The best score at ply p: winning with the next move (in the threat-aware strategy, with
        # the next move but one); the worst, in that strategy, with a safe move: losing after it.
        uppers: Sequence[int] = tuple(win_score(C, p) for p in range(C + 2)) if C <= TABLED_PLIES else WinScores(C)
        if self.margin is not None:  # the same bound at every ply
            uppers = (self.margin,) * (C + 2) if C <= TABLED_PLIES else Margins(C, self.margin)
        lowers = uppers
        if self.threats is not None:
            uppers, lowers = threat_bounds(C)
        if not self.bounds:  # (and no threat-aware strategy, which relies on the bounds)
            return self._make_node(Unbounded(C), Unbounded(C))
        return self._make_node(uppers, lowers)

    def _make_node(self, uppers: Sequence[float], lowers: Sequence[float]) -> NodeFunction:
        """THE node function: fail-soft negamax over a small frame (:mod:`.frames`), reading the table itself."""
        counters, table, keyf, obs, prune = self.counters, self.table, self.keyf, self.observer, self.prune
        root, stop, reach, threats, game = self.root, self.stop, self._reach, self.threats, self.game
        outcome, legal, play, per_depth = game.outcome, game.legal_moves, game.play, counters.per_depth
        _, safe, unordered, has_safe, reply = threats if threats is not None else NO_THREATS
        (ended, estimate, stuck), (report, leave, cutoff, settled) = self._leaves(), self._reporters()
        keep = self._keeper()

        def node(state: State, alpha: float, beta: float, height: int) -> float:
            per_depth[height] += 1
            if stop.set:
                raise stop.stopped()
            if obs is not None:
                obs.enter(state, height, alpha if prune else None, beta if prune else None)
            p = reach.base + height
            if threats is None:
                out = outcome(state)
                if out is not None:
                    return ended(state, out, p)
                if p >= reach.horizon:
                    return estimate(state)
                if prune:  # no score beats winning with the next move, nor is worse than losing to the opponent's
                    upper = uppers[p]
                    if beta > upper:
                        beta = upper
                    if alpha < -upper:
                        alpha = -upper
                    if alpha >= beta:
                        value = beta if beta == upper else alpha
                        return value if obs is None else report(value, "bound", alpha, beta)
            else:
                if beta > uppers[p]:  # we cannot win now: at best with our next move but one
                    beta = uppers[p]
                    if alpha >= beta:
                        return beta if obs is None else report(beta, "bound", alpha, beta)
                if lowers[p] >= beta:  # settled by whether we have a safe move (nor can the opponent win next)
                    value = lowers[p] if has_safe(state) else stuck(state, p)
                    return value if obs is None else report(value, "bound", alpha, beta)
            hash_move = entry = key = None
            if table is not None:  # before ordering moves (a hit often ends the node); no method call: it costs more
                key = keyf(state)
                table.probes += 1
                entry = table.current.get(key)
                if entry is None and table.old:
                    entry = table.old.get(key)
                if entry is not None:
                    table.hits += 1
                    lo, hi, hash_move, _ = entry
                    if entry[3] >= reach.horizon:
                        if lo >= beta or hi <= alpha or lo == hi:
                            value = lo if lo >= beta else hi if hi <= alpha else lo
                            return value if obs is None else report(value, "cache", alpha, beta, entry)
                        if lo > alpha:
                            alpha = lo
                        if hi < beta:
                            beta = hi
            if threats is None:
                moves, settle = legal(state), INF  # no child is settled from here
            else:
                # While alpha >= settle a child is settled by "has it a safe move?", asked from here.
                settle = -lowers[p + 1]
                moves = safe(state) if alpha < settle else unordered(state)
                if not moves:
                    value = stuck(state, p)
                    return value if obs is None else report(value, "bound", alpha, beta, entry)
                if alpha < lowers[p]:
                    alpha = lowers[p]
                    if alpha >= beta:
                        return alpha if obs is None else report(alpha, "bound", alpha, beta, entry)
            if hash_move is not None and len(moves) > 1 and hash_move != moves[0] and hash_move in moves:
                moves = [hash_move, *(m for m in moves if m != hash_move)]
            alpha0, best, best_move = alpha, NEG_INF, None
            for move in moves:
                if obs is not None:
                    obs.child(move)
                if alpha >= settle:
                    per_depth[height + 1] += 1
                    value = settle if reply(state, move) else -stuck(play(state, move), p + 1)
                    if obs is not None:
                        settled(state, move, height, alpha, beta, value)
                else:
                    value = -node(play(state, move), -beta, -alpha, height + 1)
                if value > best:
                    best, best_move = value, move
                    if prune and value > alpha:
                        alpha = value
                        if alpha >= beta:
                            if move is not moves[-1]:  # moves were left untried
                                cutoff(moves, move, value, beta)
                            break
            if height == 0:
                root.move, root.improved = best_move, best > alpha0
            if table is not None:
                keep(table, key, best, best_move, alpha0, beta, reach.horizon)
            if obs is not None:
                report(best, "searched", alpha0, beta, entry) if prune else leave(Exit(best, "searched"))
            return best

        return node

    @staticmethod
    def _keeper() -> Callable[[TranspositionTable, Hashable, float, Move, float, float, int], None]:
        """``keep(table, key, best, move, alpha, beta, horizon)``: store a searched node's fail-soft
        result for the window it searched, as :meth:`TranspositionTable.put` does."""

        def keep(
            table: TranspositionTable, key: Hashable, best: float, move: Move, alpha: float, beta: float, horizon: int
        ) -> None:
            table.stores += 1
            if len(table.current) >= table.generation_size and key not in table.current:
                table.old, table.current = table.current, {}
            if best <= alpha:
                table.current[key] = (NEG_INF, best, move, horizon)
            elif best >= beta:
                table.current[key] = (best, INF, move, horizon)
            else:
                table.current[key] = (best, best, move, horizon)

        return keep
