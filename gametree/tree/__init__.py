"""Search trees: capture through the engine's observer, the tree model, drawing."""

from __future__ import annotations

from .recorder import SearchObserver, SearchTree, TreeRecorder, TreeTooLargeError, capture, count_nodes

__all__ = ["SearchObserver", "SearchTree", "TreeRecorder", "TreeTooLargeError", "capture", "count_nodes"]
