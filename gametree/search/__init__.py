"""Search algorithms: one negamax engine and what is built on it.

- :mod:`.engine`: the engine (alpha-beta and plain minimax through one
  negamax, observed by tree capture and statistics);
- :mod:`.core`: minimax, alpha-beta, iterative deepening, results;
- :mod:`.solver`: the exact solver (null-window driver, threat-aware node);
- :mod:`.mcts`: Monte Carlo tree search;
- :mod:`.parallel`: solving over processes or a Dask cluster;
- :mod:`.table`: the bounded transposition table.
"""

from __future__ import annotations

from .core import (
    ALGORITHMS,
    MoveValue,
    Scored,
    SearchResult,
    SearchStats,
    alphabeta,
    iterative_deepening,
    mcts,
    minimax,
    prepare,
    prepare_scores,
    run,
    solver,
)
from .table import Bound, Entry, TranspositionTable

__all__ = [
    "ALGORITHMS",
    "Bound",
    "Entry",
    "MoveValue",
    "Scored",
    "SearchResult",
    "SearchStats",
    "TranspositionTable",
    "alphabeta",
    "iterative_deepening",
    "mcts",
    "minimax",
    "prepare",
    "prepare_scores",
    "run",
    "solver",
]
