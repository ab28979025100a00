"""What drawing (:mod:`.draw`) and the explorer (:mod:`.explorer`) read of a captured tree.

A :class:`gametree.tree.SearchTree` is one; it draws itself through those two modules
(``tree.render()``, ``tree._repr_html_()``), so they name this small protocol rather than
the class, and no import runs in a circle between them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import networkx as nx

    from ..search.results import SearchResult

__all__ = ["CapturedTree"]


class CapturedTree(Protocol):
    """A search result and the ``networkx`` graph of the nodes its search visited (node attributes
    as in ``docs/trees.md``)."""

    @property
    def result(self) -> SearchResult:
        """The search's result."""
        ...

    @property
    def graph(self) -> nx.DiGraph[int]:
        """The tree: one node a visit, one edge a move tried; pruned moves are placeholder nodes."""
        ...

    @property
    def root(self) -> int:
        """The root's node."""
        ...

    @property
    def visited(self) -> int:
        """Nodes the search visited (the placeholders of pruned moves left out)."""
        ...

    def pv_nodes(self) -> list[int]:
        """The root and the nodes along the principal variation, as far as the tree goes."""
        ...
