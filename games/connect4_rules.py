"""Connect Four's compiled rules (numba), for the compiled engine: see :class:`gametree.CompiledRules`.

The bitboard of :mod:`connect4`: column ``c`` holds bits ``c * (height + 1)``
up, with an empty sentinel bit on top.  A position is ``(current, mask)``: the
stones of the side to move and all stones, as in Pascal Pons's solver; its key
``current + mask`` is unique and implies the ply.  Boards whose bitboard fits
in 64 bits (``width * (height + 1) <= 64``: 7x6, 8x7, 6x6, ...) have compiled
rules; larger ones are searched by the Python engine.

``g`` holds the board's constants (see :func:`connect4.compiled_params`).  All arithmetic on
bitboards stays in ``uint64``: numba turns a mix of signed and unsigned
integers into floats.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .connect4 import P_BOARD as _BOARD
from .connect4 import P_BOTTOM as _BOTTOM
from .connect4 import P_DIRECTIONS as _DIRS
from .connect4 import P_H1 as _H1
from .connect4 import P_HEIGHT as _H
from .connect4 import P_K as _K
from .connect4 import P_LINES as _NDIRS
from .connect4 import P_ORDER as _ORDER
from .connect4 import P_SYMMETRIC_PLIES as _SYMMETRIC_PLIES
from .connect4 import P_WIDTH as _W

__all__ = ["ends", "key", "moves", "play", "safe_moves", "win_now"]

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@njit(inline="always")
def _winning_cells(g: np.ndarray, stones: np.uint64, mask: np.uint64) -> np.uint64:
    """The empty cells where one more stone completes a line of ``k`` with ``stones``."""
    k = int(g[_K])
    found = _ZERO
    for x in range(int(g[_NDIRS])):
        d = g[_DIRS + x]
        if k == 4:  # the usual game, unrolled (as Pons does): 3 stones around the cell, 4 ways
            d2 = d + d
            pair = (stones << d) & (stones << d2)
            found |= pair & (stones << (d2 + d))
            found |= pair & (stones >> d)
            pair = (stones >> d) & (stones >> d2)
            found |= pair & (stones << d)
            found |= pair & (stones >> (d2 + d))
            continue
        # ``left`` of the k - 1 stones before the cell along d, the rest after it.
        for left in range(k):
            run = ~_ZERO
            for i in range(1, left + 1):
                run &= stones << (np.uint64(i) * d)
            for i in range(1, k - left):
                run &= stones >> (np.uint64(i) * d)
            found |= run
    return found & (g[_BOARD] ^ mask)


@njit(inline="always")
def _possible(g: np.ndarray, mask: np.uint64) -> np.uint64:
    return (mask + g[_BOTTOM]) & g[_BOARD]


@njit(inline="always")
def _column(g: np.ndarray, c: int) -> np.uint64:
    return ((_ONE << g[_H]) - _ONE) << (np.uint64(c) * g[_H1])


@njit(cache=True, inline="always")
def moves(g: np.ndarray, a: np.uint64, b: np.uint64, out: np.ndarray) -> int:
    """The columns that are not full, centre first."""
    possible = _possible(g, b)
    n = 0
    for x in range(int(g[_W])):
        c = int(g[_ORDER + x])
        if possible & _column(g, c):
            out[n] = c
            n += 1
    return n


@njit(cache=True, inline="always")
def play(g: np.ndarray, a: np.uint64, b: np.uint64, m: int) -> tuple[np.uint64, np.uint64]:
    """Drop a stone in column ``m``: the opponent's stones, and all stones."""
    return a ^ b, b | (b + (_ONE << (np.uint64(m) * g[_H1])))


@njit(cache=True, inline="always")
def ends(g: np.ndarray, a: np.uint64, b: np.uint64, m: int) -> int:
    """1 if the stone dropped in column ``m`` completes a line."""
    cell = _possible(g, b) & _column(g, m)
    return 1 if _winning_cells(g, a, b) & cell else 0


@njit(cache=True, inline="always")
def key(g: np.ndarray, a: np.uint64, b: np.uint64, p: int, symmetric: bool) -> tuple[np.uint64, np.uint64]:
    """``current + mask``, or the smaller of it and its mirror image (in the first half of the game,
    where mirror images meet often enough to pay for mirroring)."""
    k = a + b
    if not symmetric or p >= int(g[_SYMMETRIC_PLIES]):
        return k, _ZERO
    w = int(g[_W])
    h1 = g[_H1]
    column = (_ONE << h1) - _ONE
    mirrored = _ZERO
    for c in range(w):
        mirrored |= ((k >> (np.uint64(c) * h1)) & column) << (np.uint64(w - 1 - c) * h1)
    return (k if k <= mirrored else mirrored), _ZERO


@njit(cache=True, inline="always")
def win_now(g: np.ndarray, a: np.uint64, b: np.uint64) -> bool:
    """Whether the side to move completes a line with its next stone."""
    return (_winning_cells(g, a, b) & _possible(g, b)) != _ZERO


@njit(cache=True, inline="always")
def safe_moves(g: np.ndarray, a: np.uint64, b: np.uint64, out: np.ndarray) -> int:
    """The columns after which the opponent cannot win at once, those creating the most threats
    (cells where one more stone wins) first, then centre first (Pons's order).  ``out`` has room for twice the width: the scores are sorted in its second half."""
    possible = _possible(g, b)
    theirs = _winning_cells(g, a ^ b, b)
    forced = possible & theirs
    if forced:
        if forced & (forced - _ONE):
            return 0  # two threats: one can be blocked, not both
        possible = forced
    possible &= ~(theirs >> _ONE)  # never play just below one of their winning cells
    n = 0
    w = int(g[_W])
    for x in range(w):
        c = int(g[_ORDER + x])
        cell = possible & _column(g, c)
        if cell:
            score = 0
            threats = _winning_cells(g, a | cell, b)
            while threats:
                threats &= threats - _ONE
                score += 1
            y = n
            while y > 0 and out[w + y - 1] < score:  # the scores are kept after the moves
                out[w + y] = out[w + y - 1]
                out[y] = out[y - 1]
                y -= 1
            out[w + y] = score
            out[y] = c
            n += 1
    return n
