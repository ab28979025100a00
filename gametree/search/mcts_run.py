"""What a run of Monte Carlo tree search hands back, for both searches: :mod:`.montecarlo`
(win/draw/loss with proven bounds) and :mod:`.mcts_vector` (a payoff for each player).

:class:`TreeRun` is the tree a run grew (its root) and what it counted, :meth:`TreeRun.stats`
those counts as :class:`~gametree.search.results.SearchStats`; :func:`child_for` finds the child a
root move leads to, and :func:`line_text` writes a line of nodes as moves: the pieces both
searches build their :class:`~gametree.search.results.SearchResult` from.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from ..game import Game, Move, State
from .results import SearchStats, stats_of

__all__ = ["GrownNode", "TreeRun", "child_for", "line_text"]


class GrownNode(Protocol):
    """A node of a grown tree: its position and the move that led there."""

    @property
    def state(self) -> State: ...

    @property
    def move(self) -> Move: ...


N = TypeVar("N", bound=GrownNode)


@dataclass
class TreeRun(Generic[N]):
    """The tree one search grew and what it counted."""

    root: N
    iterations: int
    nodes: int
    terminals: int
    heuristic: int
    seconds: float
    per_depth: list[int]

    def stats(self) -> SearchStats:
        """The run's counts as search statistics."""
        return stats_of(
            self.per_depth,
            self.seconds,
            nodes=self.nodes,
            terminals=self.terminals,
            heuristic=self.heuristic,
            iterations=self.iterations,
        )


def child_for(children: Sequence[N], move: Move) -> N | None:
    """The child that ``move`` leads to, or None (a move never expanded)."""
    return next((child for child in children if child.move == move), None)


def line_text(game: Game[Any, Any], state: State, nodes: Iterable[GrownNode]) -> tuple[str, ...]:
    """The moves to ``nodes`` (each a child of the one before, the first a child of ``state``'s), as text."""
    texts = []
    for node in nodes:
        texts.append(game.format_move(state, node.move))
        state = node.state
    return tuple(texts)
