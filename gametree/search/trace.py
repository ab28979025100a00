"""The nodes a search entered, in order: what ``trace=True`` gives as ``SearchResult.expanded``.

A student's search is checked the way the Berkeley CS188 autograder checks it:
by the move it chose and by the list of nodes it expanded.  Every algorithm
that takes ``trace`` tells a :class:`Trace` each node it enters (leaves
included; what pruning skips never appears), and the trace names the node by
the game's :class:`gametree.game.NodeNames` if it has it (a textbook tree's
letters), else by the moves that lead there from the searched position.

>>> from gametree import load
>>> game = load().game("tictactoe").create(size=3)
>>> trace = Trace(game)
>>> start = game.initial_state()
>>> trace.enter(start, ())
>>> trace.enter(game.play(start, game.parse_move(start, "B2")), ("B2",))
>>> trace.expanded()
('', 'B2')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic

from ..game import Game, M, Move, S, State, capabilities
from .engine import Exit

__all__ = ["Trace", "TraceObserver"]


class Trace(Generic[S]):
    """Collects the names of the nodes a search enters, in order."""

    def __init__(self, game: Game[S, M]) -> None:
        self._names = capabilities(game).node_names
        self._entered: list[str] = []

    def enter(self, state: S, moves: Sequence[str]) -> None:
        """Note that the search entered ``state``, reached by the move texts ``moves`` from the searched position."""
        names = self._names
        self._entered.append(names.node_name(state) if names is not None else " ".join(moves))

    def expanded(self) -> tuple[str, ...]:
        """The nodes entered so far, in order (``SearchResult.expanded``)."""
        return tuple(self._entered)

    def __len__(self) -> int:
        return len(self._entered)


class TraceObserver:
    """The engine's observer (:class:`gametree.search.engine.SearchObserver`) that tells a :class:`Trace`
    every node the search enters, with the moves that lead there (their text, asked of the game only
    when it has no :class:`gametree.game.NodeNames`)."""

    def __init__(self, game: Game[Any, Any], trace: Trace[Any]) -> None:
        # (Any: the engine sees positions as State, whatever the game's own type, as Engine does)
        self.game = game
        self.trace = trace
        self._texts = capabilities(game).node_names is None
        self._stack: list[tuple[State, tuple[str, ...]]] = []  # (node, moves from the searched position)
        self._move: Move = None

    def enter(self, state: State, height: int, alpha: float | None, beta: float | None) -> None:
        path: tuple[str, ...] = ()
        if self._stack and self._texts:
            parent, moves = self._stack[-1]
            path = (*moves, self.game.format_move(parent, self._move))
        self._stack.append((state, path))
        self.trace.enter(state, path)

    def child(self, move: Move) -> None:
        self._move = move

    def prune(self, moves: Sequence[Move], reason: str) -> None:
        pass

    def leave(self, exit: Exit) -> None:
        self._stack.pop()
