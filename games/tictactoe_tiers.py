"""m,n,k tic-tac-toe's tiers as compiled functions (numba): see :class:`gametree.game.TierFunctions`.

Tier ``n`` holds the positions of ``n`` marks.  A position's index is
``cells * C(n, n // 2) + marks``: ``cells`` the colexicographic rank of the ``n`` occupied cells
among the board's, ``marks`` that of the side to move's marks among the occupied cells, in the
order of their bits (:mod:`tier_ranking`, whose table ``t.binom`` these functions read).  A
position is ``(mover, opponent)`` as in :mod:`tictactoe_rules`.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numba import njit

from gametree.game import TierFunctions

__all__ = ["TIERS", "Tiers", "rank", "unrank"]


class Tiers(Protocol):
    """The tiers' constants as these functions get them (:class:`tictactoe.TTTTiers`)."""

    cells: np.uint64
    binom: np.ndarray


_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_SIDE = 65  # tier_ranking.BINOMIAL_SIDE


@njit(cache=True, inline="always")
def rank(t: Tiers, tier: int, a: np.uint64, b: np.uint64) -> int:
    """The index of ``(mover, opponent)`` in tier ``tier``."""
    occupied = a | b
    cells = 0
    marks = 0
    j = 0
    i = 0
    for cell in range(int(t.cells)):
        if (occupied >> np.uint64(cell)) & _ONE:
            j += 1
            cells += int(t.binom[cell * _SIDE + j])
            if (a >> np.uint64(cell)) & _ONE:
                i += 1
                marks += int(t.binom[(j - 1) * _SIDE + i])
    return cells * int(t.binom[tier * _SIDE + tier // 2]) + marks


@njit(cache=True, inline="always")
def unrank(t: Tiers, tier: int, index: int) -> tuple[np.uint64, np.uint64]:
    """The position ``(mover, opponent)`` of ``index`` in tier ``tier``."""
    per = int(t.binom[tier * _SIDE + tier // 2])
    cells = index // per
    marks = index - cells * per
    occupied = _ZERO
    k = tier
    for cell in range(int(t.cells) - 1, -1, -1):
        if k > 0:
            choose = int(t.binom[cell * _SIDE + k])
            if choose <= cells:
                cells -= choose
                occupied |= _ONE << np.uint64(cell)
                k -= 1
    mover = _ZERO
    k = tier // 2
    p = tier - 1
    for cell in range(int(t.cells) - 1, -1, -1):
        if k > 0 and (occupied >> np.uint64(cell)) & _ONE:
            choose = int(t.binom[p * _SIDE + k])
            if choose <= marks:
                marks -= choose
                mover |= _ONE << np.uint64(cell)
                k -= 1
            p -= 1
    return mover, occupied ^ mover


#: The tier functions, as the tier solver takes them.
TIERS = TierFunctions(rank=rank, unrank=unrank)
