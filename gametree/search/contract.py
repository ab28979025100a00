"""The contract between search engines and what drives them.

Every engine (:class:`gametree.search.engine.Engine`, the Python reference;
:class:`gametree.search.compiled.CompiledEngine`; the decorator
:class:`gametree.search.known.Remembering`, which answers from known values;
and any test double) satisfies :class:`SearchEngine`, and the drivers (the
exact solver's null-window probes, best moves and principal variations, the
parallel solve, the perfect player) are typed against it, never against one
engine.  OpenSpiel's ``Evaluator`` in ``open_spiel/python/algorithms/mcts.py``
is the model: one explicit plug-in point.

The fail-soft contract of :meth:`SearchEngine.search`, for a window
``(alpha, beta)`` with ``alpha < beta``, of a position's true score ``s``::

    v <= alpha  ->  s <= v        (an upper bound)
    v >= beta   ->  s >= v        (a lower bound)
    otherwise       s == v        (exact)

Scores are from the side to move (see :func:`gametree.win_score`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, Protocol, TypeVar

from ..game import State

if TYPE_CHECKING:
    from ..game import Game

__all__ = ["EngineName", "Counters", "RootReport", "SearchEngine", "SearchTimeout", "StopFlag", "TableFill"]

P = ParamSpec("P")
T = TypeVar("T")

#: The engines there are: the Python reference and the compiled one.
EngineName = Literal["python", "compiled"]


@dataclass(frozen=True, slots=True)
class TableFill:
    """How full an engine's transposition table is: ``used`` of its room for ``entries``, at
    ``entry_bytes`` each (the Python table's: an estimate, see
    :data:`gametree.search.table.BYTES_PER_ENTRY`)."""

    used: int
    entries: int
    entry_bytes: int

    @property
    def fill(self) -> float:
        """The share of the room in use, from 0 to 1 (0 for no table)."""
        return self.used / self.entries if self.entries else 0.0

    def __str__(self) -> str:
        if not self.entries:
            return "no table"
        return (
            f"{self.used:,} of {self.entries:,} entries ({100 * self.fill:.1f}% full), "
            f"{self.entry_bytes} bytes each, {self.entries * self.entry_bytes / 2**20:,.1f} MiB"
        )


class SearchTimeout(Exception):
    """A search was halted: its time was up, or it was asked to stop (:meth:`SearchEngine.halt`)."""


class Counters:
    """What one search counted: nodes by height, game ends, heuristic leaves, cutoffs."""

    __slots__ = ("cutoffs", "heuristic", "per_depth", "terminals")

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


class RootReport:
    """What the last search learnt at its root (height 0): the best move it found, and whether that
    move scored above the window's low end (then the position scores at least the search's value).
    ``move`` is None when the root was settled without trying a move."""

    __slots__ = ("improved", "move")

    def __init__(self) -> None:
        self.move: object | None = None
        self.improved = False

    def clear(self) -> None:
        self.move, self.improved = None, False


class StopFlag:
    """Set from any thread to stop a search at its next node: it raises :class:`SearchTimeout`, or
    ``KeyboardInterrupt`` when a stop signal (Ctrl-C) set it (``signalled``).

    Python raises ``KeyboardInterrupt`` itself on Ctrl-C, but drops it when it lands in a callback
    (a garbage collector's, a weak reference's): the flag, set by the runtime's signal watch, stops
    the search then too."""

    __slots__ = ("set", "signalled")

    def __init__(self) -> None:
        self.set = False
        self.signalled = False

    def signal(self) -> None:
        """A stop signal came (called from the signal watch's thread)."""
        self.signalled = True
        self.set = True

    def stopped(self) -> BaseException:
        """What the search raises at a node once the flag is set."""
        return KeyboardInterrupt() if self.signalled else SearchTimeout()


class SearchEngine(Protocol):
    """One game's search, set up once: what every engine offers its drivers."""

    @property
    def name(self) -> EngineName:
        """Which engine searches (the live display shows it)."""
        ...

    @property
    def game(self) -> Game[Any, Any]: ...

    @property
    def max_plies(self) -> int:
        """The game's longest play (``game.info.max_plies``): the scale of its scores."""
        ...

    @property
    def limit(self) -> int:
        """The depth limit (:data:`gametree.search.table.UNLIMITED_DEPTH`: to the end)."""
        ...

    @property
    def counters(self) -> Counters:
        """What the searches counted since the counters were last reset."""
        ...

    @property
    def root(self) -> RootReport:
        """What the last search learnt at height 0."""
        ...

    def search(self, state: State, alpha: float, beta: float, height: int = 0) -> float:
        """The fail-soft value of ``state`` for the window ``(alpha, beta)`` (see the module);
        ``height``: how far below the driver's root ``state`` lies (for counts by depth)."""
        ...

    def exact(self, state: State, height: int = 0) -> float:
        """The value of ``state`` with the whole window."""
        ...

    def floor(self, p: int) -> int:
        """The lowest score of a position at ply ``p`` whose side to move cannot win at once."""
        ...

    def wins_now(self, state: State) -> bool:
        """Whether the engine settles ``state`` at once because its side to move wins next move."""
        ...

    def with_room(self, plies: int, function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args, **kwargs)`` with room for searches ``plies`` deep (see
        :mod:`gametree.search.frames`); drivers that search one position many times call through it once."""
        ...

    def halt(self) -> None:
        """Stop the search running now, and every later one, with :class:`SearchTimeout` (until
        :meth:`resume`); safe from any thread."""
        ...

    def resume(self) -> None:
        """Let searches run again after :meth:`halt`."""
        ...

    def nodes_now(self) -> int:
        """Nodes counted so far, while a search runs too (for a live display in another thread)."""
        ...

    def table_bytes(self) -> int:
        """The memory the engine's table takes now."""
        ...

    def table_counts(self) -> tuple[int, int, int]:
        """The table's probes, hits and stores so far."""
        ...

    def table_fill(self) -> TableFill:
        """How full the table is now (the compiled table: counted over all of it, a few ms for 64 MB)."""
        ...
