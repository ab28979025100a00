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
from typing import Generic

from ..game import Game, M, S, capabilities

__all__ = ["Trace"]


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
