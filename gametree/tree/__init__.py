"""Search trees: the model, capture through the engine's observer, drawing.

- :mod:`.model`: :class:`SearchTree` (a result and its ``networkx`` graph);
- :mod:`.recorder`: :func:`capture` and :func:`count_nodes` for minimax and alpha-beta;
- :mod:`.montecarlo`: :func:`capture_mcts`, the tree of a Monte Carlo search;
- :mod:`.board`: board pictures on the nodes;
- :mod:`.draw`: Graphviz diagrams.
"""

from __future__ import annotations

from ..search.engine import SearchObserver
from .model import SearchTree, TreeTooLargeError
from .montecarlo import capture_mcts
from .recorder import TreeRecorder, capture, count_nodes

__all__ = [
    "SearchObserver",
    "SearchTree",
    "TreeRecorder",
    "TreeTooLargeError",
    "capture",
    "capture_mcts",
    "count_nodes",
]
