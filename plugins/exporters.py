"""Built-in search-tree exporters: svg, png, dot, graphml, json and html.

They register through ``gametree_register_exporters`` like any third-party
format would::

    from gametree import Exporter, hookimpl

    @hookimpl
    def gametree_register_exporters(registry):
        registry.add_exporter("csv", Exporter("csv", to_csv, suffixes=(".csv",)))

An exporter's ``export(tree, options)`` returns the file's bytes; ``options``
holds the drawing options of ``gametree tree`` (``board``, ``legend``,
``title``, ``view``, ``order``) for the formats that draw, and for ``html`` ``compare``, a second
tree shown beside the first (``gametree tree --compare``).
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from gametree import Exporter, hookimpl

if TYPE_CHECKING:
    import networkx as nx

    from gametree import Registry
    from gametree.tree import SearchTree

__all__ = ["plain_graph", "EXPORTERS"]


def _draw_options(options: dict[str, Any]) -> dict[str, Any]:
    keys = ("board", "legend", "title", "node_style", "edge_style", "view", "order")
    return {k: options[k] for k in keys if options.get(k) is not None}


def _svg(tree: SearchTree, options: dict[str, Any]) -> bytes:
    return tree.render("svg", **_draw_options(options))


def _png(tree: SearchTree, options: dict[str, Any]) -> bytes:
    return tree.render("png", **_draw_options(options))


def _dot(tree: SearchTree, options: dict[str, Any]) -> bytes:
    return tree.to_dot(**_draw_options(options)).encode("utf-8")


def _plain(value: Any, *, json_safe: bool) -> Any:
    """A value every format can hold: infinities as "inf"/"-inf" (JSON has none), sequences as text for GraphML."""
    if isinstance(value, float) and math.isinf(value) and json_safe:
        return "inf" if value > 0 else "-inf"
    if isinstance(value, (tuple, list)):
        return list(value) if json_safe else ", ".join(str(v) for v in value)
    return value


def plain_graph(graph: nx.DiGraph[int], *, json_safe: bool) -> nx.DiGraph[int]:
    """A copy of a tree graph fit for GraphML (no None values, no sequences) or JSON (no infinities)."""
    copy = graph.__class__()
    copy.graph.update({k: _plain(v, json_safe=json_safe) for k, v in graph.graph.items() if json_safe or v is not None})
    for node, data in graph.nodes(data=True):
        copy.add_node(
            node, **{k: _plain(v, json_safe=json_safe) for k, v in data.items() if json_safe or v is not None}
        )
    for u, v, data in graph.edges(data=True):
        copy.add_edge(
            u, v, **{k: _plain(x, json_safe=json_safe) for k, x in data.items() if json_safe or x is not None}
        )
    return copy


def _graphml(tree: SearchTree, options: dict[str, Any]) -> bytes:
    import networkx as nx

    # Scores are ints (proven) or floats (heuristic): write the key as a double, not as the first value's type.
    writer = nx.GraphMLWriter(encoding="utf-8", prettyprint=True, infer_numeric_types=True)
    writer.add_graph_element(plain_graph(tree.graph, json_safe=False))
    return (str(writer).rstrip("\n") + "\n").encode("utf-8")


def _json(tree: SearchTree, options: dict[str, Any]) -> bytes:
    import networkx as nx

    graph = plain_graph(tree.graph, json_safe=True)
    try:
        data = nx.node_link_data(graph, edges="edges")
    except TypeError:  # networkx < 3.4 has no edges= and calls them "links"
        data = nx.node_link_data(graph)
    return (json.dumps(data, allow_nan=False, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def _html(tree: SearchTree, options: dict[str, Any]) -> bytes:
    from gametree.tree.explorer import export  # (the page's builder, used by Jupyter too, lives in the core)

    return export(tree, options)


EXPORTERS = (
    Exporter(
        "svg", _svg, (".svg",), summary="SVG drawing (needs a dot program: Graphviz or graphviz-pure)", needs_dot=True
    ),
    Exporter(
        "png",
        _png,
        (".png",),
        binary=True,
        summary="PNG drawing (needs a dot program: Graphviz or graphviz-pure)",
        needs_dot=True,
    ),
    Exporter("dot", _dot, (".dot", ".gv"), summary="Graphviz source of the drawing"),
    Exporter("graphml", _graphml, (".graphml",), summary="GraphML with every node and edge attribute"),
    Exporter("json", _json, (".json",), summary="networkx node-link JSON with every attribute"),
    Exporter(
        "html",
        _html,
        (".html", ".htm"),
        summary="interactive explorer: one self-contained page (zoom, replay, compare)",
    ),
)


@hookimpl
def gametree_register_exporters(registry: Registry) -> None:
    for exporter in EXPORTERS:
        registry.add_exporter(exporter.name, exporter)
