"""An interactive explorer of search trees: one self-contained HTML page.

:func:`explorer_html` writes a page that needs nothing but a browser: the
tree's data, d3 (vendored in ``gametree/tree/assets`` with its licence) and
the explorer's own script and styles are all inlined, so it works offline from
disk.  The page zooms and pans, collapses subtrees, draws each position's board,
shows a node's details on hover or click, replays the search node by node
(``#step=N`` opens it at step N) and switches between negamax scores, MAX/MIN
values and win/draw/loss.  Chance nodes are ellipses with their expected value
and their outcomes' probabilities, games of more players show each node's
payoff vector (the mover's highlighted), margins are signed ("+4"), and the
replay names each cutoff's reason (alpha-beta's, Star1/Star2's, max^n's).
Given a second tree (``compare=``), it shows both side by side under one
replay control: minimax beside alpha-beta shows the pruning as the difference.

``gametree tree ... -o tree.html`` uses it through the ``html`` exporter,
and a :class:`gametree.tree.SearchTree` displays itself with it in Jupyter
(:func:`notebook_html`, inside an ``iframe``).

>>> from gametree import load, play_text
>>> from gametree.tree import capture
>>> game = load().game("tictactoe").create(size=3)
>>> tree = capture(game, play_text(game, "A1 B2 A2 C3 B3"), algorithm="minimax")
>>> data = tree_data(tree)
>>> len(data["parent"]) == tree.graph.number_of_nodes(), data["parent"][:3]
(True, [-1, 0, 1])
>>> page = explorer_html(tree)
>>> page.startswith("<!DOCTYPE html>") and "http://" not in page.split("<script")[0]
True
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .captured import CapturedTree

__all__ = ["MAX_DICTIONARY", "explorer_html", "export", "notebook_html", "tree_data"]

#: A text attribute with at most this many distinct values is written as codes into a list of them.
MAX_DICTIONARY = 64

#: Node attributes written for the page, as (name in the page, graph attribute); see docs/trees.md.
_ATTRIBUTES = (
    ("move", "move"),
    ("depth", "depth"),
    ("toMove", "to_move"),
    ("pruned", "pruned"),
    ("value", "value"),
    ("bound", "bound"),
    ("kind", "kind"),
    ("alpha", "alpha"),
    ("beta", "beta"),
    ("searchAlpha", "search_alpha"),
    ("searchBeta", "search_beta"),
    ("cache", "cache"),
    ("cutoff", "cutoff"),
    ("reason", "reason"),
    ("pv", "pv"),
    ("winner", "winner"),
    ("outcome", "outcome"),
    ("cells", "cells"),
    ("highlight", "highlight"),
    ("last", "last"),
    ("visits", "visits"),
    ("viewer", "viewer"),
    ("chance", "chance"),
    ("probability", "probability"),
    ("probabilityText", "probability_text"),
    ("payoffs", "payoffs"),
    ("payoffsText", "payoffs_text"),
    ("valueText", "value_text"),
)


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


def _plain(value: Any) -> Any:
    """JSON has no infinities (windows are often infinite): they become the strings "inf" and "-inf"."""
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if math.isnan(value):
            return None
        return int(value) if value.is_integer() and abs(value) < 2**53 else value
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, (tuple, list)):  # (a payoff vector)
        return [_plain(v) for v in value]
    return str(value)


def _column(values: list[Any]) -> Any:
    """A list of values, or for repetitive text ``{"dict": [...], "codes": [...]}`` (smaller and faster to read)."""
    if any(isinstance(v, str) for v in values):
        distinct: dict[Any, int] = {}
        for v in values:
            if v not in distinct:
                distinct[v] = len(distinct)
                if len(distinct) > MAX_DICTIONARY:
                    return values
        return {"dict": list(distinct), "codes": [distinct[v] for v in values]}
    return values


def tree_data(tree: CapturedTree, *, title: str | None = None, board: bool = True) -> dict[str, Any]:
    """The page's data for one tree: the graph's attributes and one list per node attribute, in node order.

    ``parent`` gives each node's parent (-1 for the root) and ``order`` its place
    among its siblings (the order the search tried the moves in).  Boards are left
    out with ``board=False``; ``position`` (the game's text rendering) is kept for
    games without a board view.
    """
    graph = tree.graph
    nodes = sorted(graph.nodes)
    index = {node: i for i, node in enumerate(nodes)}
    parent = [-1] * len(nodes)
    order = [0] * len(nodes)
    for u, v, data in graph.edges(data=True):
        parent[index[v]] = index[u]
        order[index[v]] = int(data.get("order") or 0)
    rows = [graph.nodes[n] for n in nodes]
    columns: dict[str, Any] = {}
    skip = () if board else ("cells", "highlight", "last")
    for name, key in _ATTRIBUTES:
        if key in skip or not any(key in d for d in rows):
            continue
        columns[name] = _column([_plain(d.get(key)) for d in rows])
    if "cells" not in columns and any("position" in d for d in rows):
        columns["position"] = [d.get("position") for d in rows]
    meta = {
        k: _plain(v) if not isinstance(v, (tuple, list)) else [_plain(x) for x in v] for k, v in graph.graph.items()
    }
    result = tree.result
    meta.update(algorithm=result.algorithm, value=result.value, score=_plain(result.score), pv=list(result.pv))
    if title:
        meta["title"] = title
    return {"meta": meta, "root": index.get(tree.root, 0), "parent": parent, "order": order, "nodes": columns}


def _script_json(data: Any) -> str:
    """JSON to sit inside a ``<script>`` element: no "<" (only strings can hold one), so nothing ends it early."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c")


def _inline_script(source: str) -> str:
    return source.replace("</script", "<\\/script")


def explorer_html(
    tree: CapturedTree,
    *,
    compare: CapturedTree | None = None,
    title: str | None = None,
    board: bool = True,
    height: str = "100vh",
    view: str | None = None,
) -> str:
    """The explorer page of ``tree`` (and of ``compare`` beside it, one replay for both).

    With ``compare``, the tree with more nodes drives the replay (minimax, beside
    alpha-beta): the other one's nodes appear when the search of the first one
    reaches the same position.  ``height`` is the CSS height of the explorer; ``view``
    the values it opens with ("negamax", "maxmin" or "wdl"; the reader can switch).
    """
    trees: Iterable[CapturedTree]
    trees = (tree,) if compare is None else (compare, tree) if _is_minimax(compare) else (tree, compare)
    heading = title or _title(tree, compare)
    data: dict[str, Any] = {"title": heading, "trees": [tree_data(t, board=board) for t in trees]}
    if view is not None:
        data["view"] = view
    name = html.escape(heading)
    return f"""<!DOCTYPE html>
<html lang="en" data-gametree-ready="false">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="gametree">
<title>{name}</title>
<style>
:root {{ --gametree-height: {html.escape(height)}; }}
{_asset("explorer.css")}
</style>
</head>
<body>
<div id="gametree" class="gametree"><noscript>This search-tree explorer needs JavaScript.</noscript></div>
<script>
/* d3 7.9.2, https://d3js.org: {_asset("LICENSE-d3.txt").strip()} */
{_inline_script(_asset("d3.min.js"))}
</script>
<script type="application/json" id="gametree-data">{_script_json(data)}</script>
<script>
{_inline_script(_asset("explorer.js"))}
</script>
</body>
</html>
"""


def _is_minimax(tree: CapturedTree) -> bool:
    return tree.result.algorithm == "minimax"


def _title(tree: CapturedTree, compare: CapturedTree | None) -> str:
    game = tree.graph.graph.get("game") or "search tree"
    if compare is not None:
        return f"{game}: {tree.result.algorithm} beside {compare.result.algorithm}"
    return f"{game}: {tree.result.algorithm}, {tree.visited:,} positions"


def notebook_html(tree: CapturedTree, *, height: int = 640) -> str:
    """The explorer for a notebook cell: the page inside an ``iframe`` (its scripts and styles stay its own)."""
    page = explorer_html(tree, height=f"{height - 4}px")
    return (
        f'<iframe srcdoc="{html.escape(page, quote=True)}" title="search-tree explorer" '
        f'style="width:100%;height:{height}px;border:1px solid #ddd" sandbox="allow-scripts"></iframe>'
    )


def export(tree: CapturedTree, options: Mapping[str, Any]) -> bytes:
    """The ``html`` exporter: ``options`` as ``gametree tree`` passes them (``title``, ``board``)
    and ``compare``, a second tree to show beside this one."""
    compare = options.get("compare")
    page = explorer_html(
        tree,
        compare=compare,
        title=options.get("title"),
        board=options.get("board", True) is not False,
        view=options.get("view"),
    )
    return page.encode("utf-8")
