"""What a running solve has proven so far, for a live display.

The solver fills a :class:`SolveProgress` as it goes (between searches: the
window proven on the root's score, the root's value and best move once
proven, each move's score as it is proven); another thread reads it, and the
node count of the search under way (:meth:`SolveProgress.nodes`), to show
live progress.  Printing it is the caller's job (``gametree solve`` shows it
on a terminal with rich).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Phase", "SolveProgress"]

#: What a search is doing: proving the root's value, scoring each move, following lines of play,
#: a best guess by the heuristic, Monte Carlo playouts.
Phase = Literal["starting", "root", "moves", "lines", "heuristic", "playouts", "done"]


def _no_nodes() -> int:
    return 0


@dataclass(eq=False)
class SolveProgress:
    """A running solve's progress: written by the solver, read from any thread.

    ``on_root`` (if set) is called, in the solver's thread, as soon as the
    root's value and a best move are proven, before the moves are scored;
    ``on_move`` each time a move's score is proven.
    """

    #: :func:`time.perf_counter` when the solve started.
    started: float = field(default_factory=time.perf_counter)
    phase: Phase = "starting"
    #: The engine searching: "python" or "compiled".
    engine: str = ""
    #: The root's score lies in [low, high] (both ends proven; equal once the value is proven).
    low: float = -math.inf
    high: float = math.inf
    #: The root's proven score and a best move (notation), once known.
    score: float | None = None
    best: str | None = None
    #: Moves to score, and those scored so far (notation, score) in the order they were proven.
    total: int = 0
    scored: list[tuple[str, float]] = field(default_factory=list)
    #: The move being scored now.
    current: str | None = None
    on_root: Callable[[SolveProgress], None] | None = None
    on_move: Callable[[SolveProgress, str, float], None] | None = None
    #: Nodes searched so far, counted live (set by the solver).
    count: Callable[[], int] = _no_nodes
    #: The transposition table's memory now, in bytes (set by the solver).
    table_bytes: Callable[[], int] = _no_nodes

    def nodes(self) -> int:
        """Nodes searched so far (including the search under way)."""
        return self.count()

    def elapsed(self) -> float:
        """Seconds since the solve started."""
        return time.perf_counter() - self.started

    def narrowed(self, low: float, high: float) -> None:
        """The root's score is proven to lie in [low, high]."""
        self.low, self.high = low, high

    def proven(self, score: float, best: str) -> None:
        """The root's value is proven: ``score``, with the best move ``best``."""
        self.low = self.high = self.score = score
        self.best = best
        if self.on_root is not None:
            self.on_root(self)

    def moved(self, move: str, score: float) -> None:
        """``move``'s score is proven."""
        self.scored.append((move, score))
        self.current = None
        if self.on_move is not None:
            self.on_move(self, move, score)
