"""Hexapawn's compiled rules: the numba functions the compiled engine searches with.

``RULES`` holds them (a ``gametree.RuleSet``); ``Hexapawn.compiled_rules`` hands
gametree a function that imports this module and returns it, so numba is imported
only when gametree builds the compiled engine, never when it merely loads the plugin.

A position is two 64-bit words, ``a`` the pawns of the side to move and ``b``
the opponent's, on a board turned so that the side to move always moves up
(towards row 0, as White does): after each move the board is turned over
(rows reversed) and the words swapped.  A move is ``from * 64 + to`` on that
board.  ``g`` holds the board's constants by name (``Hexapawn.compiled_rules``
fills a ``HexBoard``; here each is a ``np.uint64``).  Bitboard arithmetic stays
in ``uint64`` (numba makes floats of mixed signed and unsigned integers).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numba import njit

from gametree import RuleSet


class Board(Protocol):
    """The board's constants as these functions get them (``HexBoard``, each int a ``np.uint64``)."""

    cells: np.uint64
    width: np.uint64
    height: np.uint64
    board: np.uint64
    row: np.uint64
    first_column: np.uint64
    last_column: np.uint64


_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@njit(inline="always")
def _turn(g: Board, x: np.uint64) -> np.uint64:
    """The board ``x`` turned over: row r becomes row height - 1 - r."""
    w, h = int(g.width), int(g.height)
    out = _ZERO
    for r in range(h):
        out |= ((x >> np.uint64(r * w)) & g.row) << np.uint64((h - 1 - r) * w)
    return out


@njit(inline="always")
def _add(g: Board, out: np.ndarray, n: int, targets: np.uint64, step: int) -> int:
    """Write the moves to each cell of ``targets`` from ``step`` cells further on; the new count."""
    for to in range(int(g.cells)):
        if not targets:
            break
        if (targets >> np.uint64(to)) & _ONE:
            out[n] = (to + step) * 64 + to
            n += 1
            targets ^= _ONE << np.uint64(to)
    return n


@njit(cache=True)
def moves(g: Board, a: np.uint64, b: np.uint64, out: np.ndarray) -> int:
    """The legal moves, captures first, then advances; 0 when the side to move is stuck."""
    w = g.width
    left = ((a & ~g.first_column) >> (w + _ONE)) & b  # up and to the left, onto an enemy pawn
    right = ((a & ~g.last_column) >> (w - _ONE)) & b  # up and to the right
    ahead = (a >> w) & g.board & ~(a | b)  # straight up, to an empty cell
    width = int(w)
    n = _add(g, out, 0, left, width + 1)
    n = _add(g, out, n, right, width - 1)
    return _add(g, out, n, ahead, width)


@njit(cache=True)
def play(g: Board, a: np.uint64, b: np.uint64, m: int) -> tuple[np.uint64, np.uint64]:
    """Move a pawn, take what stands on its target; turn the board over for the opponent."""
    lift, land = _ONE << np.uint64(m >> 6), _ONE << np.uint64(m & 63)
    return _turn(g, b & ~land), _turn(g, (a & ~lift) | land)


@njit(cache=True)
def ends(g: Board, a: np.uint64, b: np.uint64, m: int) -> int:
    """1 if the move reaches the far row (row 0).  Taking the last pawn, or leaving the opponent
    no move, wins too: the engine scores that as the opponent's position without moves."""
    return 1 if (m & 63) < int(g.width) else 0


@njit(cache=True)
def key(g: Board, a: np.uint64, b: np.uint64, p: int, symmetric: bool) -> tuple[np.uint64, np.uint64]:
    """The pawns and the ply (the same pawns can stand in the same places at different plies),
    or the smaller of that and the left-right mirror image's."""
    ply = np.uint64(p) << g.cells
    if not symmetric:
        return a, b | ply
    w = int(g.width)
    ma, mb = _ZERO, _ZERO
    for c in range(w):
        ma |= ((a >> np.uint64(c)) & g.first_column) << np.uint64(w - 1 - c)
        mb |= ((b >> np.uint64(c)) & g.first_column) << np.uint64(w - 1 - c)
    if ma < a or (ma == a and mb < b):
        return ma, mb | ply
    return a, b | ply


#: The rules, as gametree's compiled engine takes them (no ``win_now``/``safe_moves``: every move is searched).
RULES = RuleSet(moves=moves, play=play, ends=ends, key=key)
