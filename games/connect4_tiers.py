"""Connect Four's tiers as compiled functions (numba): see :class:`gametree.game.TierFunctions`.

Tier ``n`` holds the positions of ``n`` stones.  A position's index is
``heights * C(n, n // 2) + stones``: ``heights`` the lexicographic rank of its column heights
among those of sum ``n``, ``stones`` the colexicographic rank of the side to move's stones among
the ``n`` occupied cells taken column by column, bottom up (:mod:`tier_ranking`, whose tables
``t.binom`` and ``t.ways`` these functions read).  A position is ``(current, mask)`` as in
:mod:`connect4_rules`.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numba import njit

from gametree.game import TierFunctions

__all__ = ["TIERS", "Tiers", "rank", "unrank"]


class Tiers(Protocol):
    """The tiers' constants as these functions get them (:class:`connect4.C4Tiers`)."""

    width: np.uint64
    height: np.uint64
    h1: np.uint64
    cells: np.uint64
    binom: np.ndarray
    ways: np.ndarray


_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_SIDE = 65  # tier_ranking.BINOMIAL_SIDE


@njit(cache=True, inline="always")
def rank(t: Tiers, tier: int, a: np.uint64, b: np.uint64) -> int:
    """The index of ``(current, mask)`` in tier ``tier``."""
    w = int(t.width)
    h1 = int(t.h1)
    cells1 = int(t.cells) + 1
    s = tier
    heights = 0
    stones = 0
    j = 0
    i = 0
    for c in range(w):
        column = b >> np.uint64(c * h1)
        h = 0
        while column & _ONE:
            column >>= _ONE
            h += 1
        base = (c + 1) * cells1 + s
        for v in range(h):
            heights += int(t.ways[base - v])
        s -= h
        mine = a >> np.uint64(c * h1)
        for _ in range(h):
            if mine & _ONE:
                i += 1
                stones += int(t.binom[j * _SIDE + i])
            mine >>= _ONE
            j += 1
    return heights * int(t.binom[tier * _SIDE + tier // 2]) + stones


@njit(cache=True, inline="always")
def unrank(t: Tiers, tier: int, index: int) -> tuple[np.uint64, np.uint64]:
    """The position ``(current, mask)`` of ``index`` in tier ``tier``."""
    w = int(t.width)
    h1 = int(t.h1)
    cells1 = int(t.cells) + 1
    per = int(t.binom[tier * _SIDE + tier // 2])
    heights = index // per
    stones = index - heights * per
    mask = _ZERO
    s = tier
    for c in range(w):
        v = 0
        while int(t.ways[(c + 1) * cells1 + s - v]) <= heights:
            heights -= int(t.ways[(c + 1) * cells1 + s - v])
            v += 1
        mask |= ((_ONE << np.uint64(v)) - _ONE) << np.uint64(c * h1)
        s -= v
    # The stones of the side to move: the k-subset of the occupied cells (in column order) of rank ``stones``.
    k = tier // 2
    current = _ZERO
    p = tier - 1
    c = w - 1
    row = int(_height(mask, c, h1)) - 1
    while k > 0:
        while row < 0:
            c -= 1
            row = int(_height(mask, c, h1)) - 1
        choose = int(t.binom[p * _SIDE + k])
        if choose <= stones:
            stones -= choose
            current |= _ONE << np.uint64(c * h1 + row)
            k -= 1
        p -= 1
        row -= 1
    return current, mask


@njit(inline="always")
def _height(mask: np.uint64, c: int, h1: int) -> int:
    column = mask >> np.uint64(c * h1)
    h = 0
    while column & _ONE:
        column >>= _ONE
        h += 1
    return h


#: The tier functions, as the tier solver takes them.
TIERS = TierFunctions(rank=rank, unrank=unrank)
