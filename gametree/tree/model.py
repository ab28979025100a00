"""The tree a search explored: a search result and a ``networkx`` graph of its nodes.

Node attributes are plain data (numbers, strings, booleans, None), listed in
``docs/trees.md``.  ``networkx`` and ``graphviz`` are imported only when a
tree is captured or drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..search.results import SearchResult

if TYPE_CHECKING:
    import graphviz
    import networkx as nx

__all__ = ["KINDS", "SearchTree", "TreeTooLargeError", "mark_pv"]

#: Beside the explorer, a notebook also gets the static SVG diagram of trees up to this many nodes.
SVG_NODES = 400

#: What a node's ``kind`` attribute can be.
KINDS = ("searched", "terminal", "heuristic", "cache", "bound")


class TreeTooLargeError(ValueError):
    """The search visits more nodes than the caller allowed."""

    def __init__(self, reached: int, limit: int, exact: bool = False) -> None:
        self.reached, self.limit, self.exact = reached, limit, exact
        count = f"{reached:,} nodes" if exact else f"more than {limit:,} nodes (stopped at node {reached:,})"
        super().__init__(
            f"the search tree has {count}, over the limit of {limit:,}: start from a later position (--moves) "
            "or limit the depth (--depth), or allow more nodes (--max-nodes)"
        )


@dataclass(frozen=True, eq=False)
class SearchTree:
    """A search result and the tree the search explored.

    ``graph`` is a ``networkx.DiGraph`` (node 0 is the root).  In Jupyter the
    tree displays itself as the interactive explorer (:mod:`gametree.tree.explorer`),
    with the static SVG diagram beside it for small trees and instead of it when
    the explorer cannot be built.
    """

    result: SearchResult
    graph: nx.DiGraph[int]
    root: int = 0
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def visited(self) -> int:
        """Nodes the search visited (the search's ``stats.nodes``)."""
        return sum(1 for _, pruned in self.graph.nodes(data="pruned") if not pruned)

    def pruned_edges(self) -> list[tuple[int, int]]:
        """Edges to the moves a cutoff left untried."""
        return [(u, v) for u, v, pruned in self.graph.edges(data="pruned") if pruned]

    def pv_nodes(self) -> list[int]:
        """The root and the nodes along the principal variation, as far as the tree goes."""
        nodes = [self.root]
        while True:
            nxt = [v for _, v, pv in self.graph.out_edges(nodes[-1], data="pv") if pv]
            if not nxt:
                return nodes
            nodes.append(nxt[0])

    def pv_moves(self) -> list[str]:
        """The moves of the principal variation marked on the graph."""
        nodes = self.pv_nodes()
        return [self.graph.edges[u, v]["move"] for u, v in zip(nodes, nodes[1:])]

    def to_graphviz(self, **options: Any) -> graphviz.Digraph:
        """The diagram as a ``graphviz.Digraph`` (see :func:`gametree.tree.draw.to_graphviz`)."""
        from .draw import to_graphviz

        return to_graphviz(self, **options)

    def to_dot(self, **options: Any) -> str:
        """Graphviz source text; needs no Graphviz program."""
        return str(self.to_graphviz(**options).source)

    def render(self, format: str = "svg", **options: Any) -> bytes:
        """The diagram drawn by a ``dot`` program (see :func:`gametree.tree.draw.render`)."""
        from .draw import render

        return render(self.to_dot(**options), format)

    def _repr_html_(self) -> str | None:
        """The interactive explorer (:mod:`gametree.tree.explorer`) for Jupyter; None if it cannot be built."""
        from .explorer import notebook_html

        try:
            return notebook_html(self)
        except (OSError, ValueError, TypeError):  # (a missing asset file, data it cannot write)
            return None

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        from .draw import GraphvizMissingError

        text = f"<SearchTree: {self.result.algorithm}, {self.visited} nodes, value {self.result.value}>"
        bundle: dict[str, Any] = {"text/plain": text}
        page = self._repr_html_()
        if page is not None:
            bundle["text/html"] = page
            if self.graph.number_of_nodes() > SVG_NODES:  # dot would take minutes; the explorer is there
                return bundle
        try:
            bundle["image/svg+xml"] = self.render("svg").decode("utf-8")
        except GraphvizMissingError as exc:
            bundle["text/plain"] = f"{text}\n{exc}"
        return bundle

    def __repr__(self) -> str:
        r = self.result
        return (
            f"SearchTree(algorithm={r.algorithm!r}, nodes={self.visited}, value={r.value!r}, score={r.score!r}, "
            f"pv={' '.join(r.pv)!r})"
        )


def mark_pv(graph: nx.DiGraph[int], root: int, pv: Sequence[str]) -> int:
    """Flag the nodes and edges of the principal variation; return how many moves were marked."""
    graph.nodes[root]["pv"] = True
    node = root
    for count, move in enumerate(pv):
        nxt = [v for _, v, d in graph.out_edges(node, data=True) if d["move"] == move and not d["pruned"]]
        if not nxt:
            return count
        graph.edges[node, nxt[0]]["pv"] = True
        graph.nodes[nxt[0]]["pv"] = True
        node = nxt[0]
    return len(pv)
