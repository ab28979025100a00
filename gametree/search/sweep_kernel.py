"""The compiled inner loop of value iteration (:mod:`gametree.search.valueiteration`): one sweep.

Imported only when value iteration runs (it imports numba).  The positions form a graph in
compressed rows: position ``i``'s children are ``child[start[i]:start[i + 1]]``, each with its
probability ``prob`` (1 at a player's node).  ``kind`` says what a position is: :data:`MAX` (the
first player moves), :data:`MIN` (the second), :data:`AVERAGE` (chance) or :data:`FIXED` (the game
is over: its value stays).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Final

import numpy as np

from . import numba_support
from .compile_state import cache_folder

__all__ = ["AVERAGE", "FIXED", "MAX", "MIN", "compiled_sweep"]

MAX: Final = 0
MIN: Final = 1
AVERAGE: Final = 2
FIXED: Final = 3


@functools.cache
def compiled_sweep() -> Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], float]:
    """:func:`sweep` compiled (loaded from numba's cache in gametree's folder, once a process).

    numba is imported and the function compiled here, when value iteration first runs, not when
    this module is imported: importing it (as pytest's doctest collection does in every process)
    must leave numba's state alone: with the dispatcher made at import, the compiled tic-tac-toe
    search later gave wrong values in the same pytest process (seen, not yet understood)."""
    numba_support.use_cache_folder(cache_folder())
    from numba import njit

    compiled: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], float] = njit(cache=True)(sweep)
    return compiled


def sweep(
    kind: np.ndarray, start: np.ndarray, child: np.ndarray, prob: np.ndarray, value: np.ndarray
) -> float:  # pragma: no cover - compiled (its results are tested through value iteration)
    """One Gauss-Seidel sweep over the positions, from the last to the first, each given the
    value its children have now; the largest change of a value (compiled: :func:`compiled_sweep`)."""
    worst = 0.0
    for i in range(kind.shape[0] - 1, -1, -1):
        k = kind[i]
        if k == FIXED:
            continue
        lo, hi = start[i], start[i + 1]
        if k == AVERAGE:
            v = 0.0
            for e in range(lo, hi):
                v += prob[e] * value[child[e]]
        elif k == MAX:
            v = value[child[lo]]
            for e in range(lo + 1, hi):
                v = max(v, value[child[e]])
        else:
            v = value[child[lo]]
            for e in range(lo + 1, hi):
                v = min(v, value[child[e]])
        d = abs(v - value[i])
        if d > worst:
            worst = d
        value[i] = v
    return worst
