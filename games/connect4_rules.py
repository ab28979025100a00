"""Connect Four's compiled rules (numba), for the compiled engine: see :class:`gametree.RuleSet`.

The bitboard of :mod:`connect4`: column ``c`` holds bits ``c * (height + 1)``
up, with an empty sentinel bit on top.  A position is ``(current, mask)``: the
stones of the side to move and all stones, as in Pascal Pons's solver; its key
``current + mask`` is unique and implies the ply.  Boards whose bitboard fits
in 64 bits (``width * (height + 1) <= 64``: 7x6, 8x7, 6x6, ...) have compiled
rules; larger ones are searched by the Python engine.

``g`` holds the board's constants by name (:class:`Board`).  All arithmetic on
bitboards stays in ``uint64``: numba turns a mix of signed and unsigned
integers into floats.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numba import njit

from gametree import RuleSet

__all__ = ["RULES", "Board", "ends", "key", "moves", "play", "safe_moves", "win_now"]


class Board(Protocol):
    """The board's constants as these functions get them: :class:`connect4.C4Board` (the fields
    are documented there), each int a ``np.uint64`` and each tuple a ``uint64`` array."""

    width: np.uint64
    height: np.uint64
    h1: np.uint64
    bottom: np.uint64
    board: np.uint64
    k: np.uint64
    symmetric_plies: np.uint64
    lines: np.uint64
    directions: np.ndarray
    top_row: np.uint64
    order_until: np.uint64
    order_late: np.uint64
    prepare_until: np.uint64
    order: np.ndarray


_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@njit(inline="always")
def _geometry(g: Board) -> tuple[np.uint64, int, int, np.uint64, np.uint64, np.uint64, np.uint64]:
    """What :func:`_winning_cells` needs, read from ``g`` once per call of a rule (then kept in
    registers: read from the array inside its loops, the values would be read again after every
    store the caller makes)."""
    return g.board, int(g.k), int(g.lines), g.directions[0], g.directions[1], g.directions[2], g.directions[3]


@njit(inline="always")
def _line_cells(stones: np.uint64, d: np.uint64, k: int) -> np.uint64:
    """The cells where one more stone makes ``k`` in a row with ``stones`` along direction ``d``
    (empty or not)."""
    if k == 4:  # the usual game, unrolled as Pons does: 3 stones around the cell, 4 ways
        if d == _ONE:  # upwards: an empty cell has no stones above it
            return (stones << _ONE) & (stones << np.uint64(2)) & (stones << np.uint64(3))
        d2 = d + d
        pair = (stones << d) & (stones << d2)
        found = pair & ((stones << (d2 + d)) | (stones >> d))
        pair = (stones >> d) & (stones >> d2)
        return found | (pair & ((stones << d) | (stones >> (d2 + d))))
    found = _ZERO
    for left in range(k):  # ``left`` of the k - 1 stones before the cell along d, the rest after it
        run = ~_ZERO
        for i in range(1, left + 1):
            run &= stones << (np.uint64(i) * d)
        for i in range(1, k - left):
            run &= stones >> (np.uint64(i) * d)
        found |= run
    return found


@njit(inline="always")
def _winning_cells(
    geometry: tuple[np.uint64, int, int, np.uint64, np.uint64, np.uint64, np.uint64], stones: np.uint64, mask: np.uint64
) -> np.uint64:
    """The empty cells where one more stone completes a line of ``k`` with ``stones``."""
    board, k, lines, d0, d1, d2, d3 = geometry
    found = _ZERO
    if lines > 0:
        found |= _line_cells(stones, d0, k)
    if lines > 1:
        found |= _line_cells(stones, d1, k)
    if lines > 2:
        found |= _line_cells(stones, d2, k)
    if lines > 3:
        found |= _line_cells(stones, d3, k)
    return found & (board ^ mask)


@njit(inline="always")
def _possible(g: Board, mask: np.uint64) -> np.uint64:
    return (mask + g.bottom) & g.board


@njit(inline="always")
def _column(g: Board, c: int) -> np.uint64:
    return ((_ONE << g.height) - _ONE) << (np.uint64(c) * g.h1)


@njit(cache=True, inline="always")
def moves(g: Board, a: np.uint64, b: np.uint64, out: np.ndarray) -> int:
    """The columns that are not full, centre first."""
    possible = _possible(g, b)
    n = 0
    for x in range(int(g.width)):
        c = int(g.order[x])
        if possible & _column(g, c):
            out[n] = c
            n += 1
    return n


@njit(cache=True, inline="always")
def play(g: Board, a: np.uint64, b: np.uint64, m: int) -> tuple[np.uint64, np.uint64]:
    """Drop a stone in column ``m``: the opponent's stones, and all stones."""
    return a ^ b, b | (b + (_ONE << (np.uint64(m) * g.h1)))


@njit(cache=True, inline="always")
def ends(g: Board, a: np.uint64, b: np.uint64, m: int) -> int:
    """1 if the stone dropped in column ``m`` completes a line."""
    cell = _possible(g, b) & _column(g, m)
    return 1 if _winning_cells(_geometry(g), a, b) & cell else 0


@njit(cache=True, inline="always")
def key(g: Board, a: np.uint64, b: np.uint64, p: int, symmetric: bool) -> tuple[np.uint64, np.uint64]:
    """``current + mask``, or the smaller of it and its mirror image (in the first half of the game,
    where mirror images meet often enough to pay for mirroring)."""
    k = a + b
    if not symmetric or p >= int(g.symmetric_plies):
        return k, _ZERO
    w = int(g.width)
    h1 = g.h1
    column = (_ONE << h1) - _ONE
    mirrored = _ZERO
    for c in range(w):
        mirrored |= ((k >> (np.uint64(c) * h1)) & column) << (np.uint64(w - 1 - c) * h1)
    return (k if k <= mirrored else mirrored), _ZERO


@njit(cache=True, inline="always")
def win_now(g: Board, a: np.uint64, b: np.uint64) -> bool:
    """Whether the side to move completes a line with its next stone."""
    return bool((_winning_cells(_geometry(g), a, b) & _possible(g, b)) != _ZERO)


@njit(inline="always")
def _count(x: np.uint64) -> int:
    """The number of bits set (few, where it is used)."""
    n = 0
    while x:
        x &= x - _ONE
        n += 1
    return n


@njit(inline="always")
def _columns(g: Board, cells: np.uint64, out: np.ndarray, n: int) -> int:
    """Write the columns of ``cells`` (at most one cell a column) centre first, after the ``n``
    moves already in ``out``; the new count."""
    h1 = g.h1
    column = (_ONE << g.height) - _ONE
    for x in range(int(g.width)):
        c = int(g.order[x])
        if cells & (column << (np.uint64(c) * h1)):
            out[n] = c
            n += 1
    return n


@njit(cache=True, inline="always")
def safe_moves(g: Board, a: np.uint64, b: np.uint64, out: np.ndarray, ordered: bool, p: int) -> int:
    """The columns after which the opponent cannot win at once; ``ordered``: in the order of
    :meth:`connect4.ConnectFour.safe_moves` (the most threats created first, ties centre first;
    late in the game the columns a move fills first), else centre first.  ``out`` has room for
    twice the width: the scores are sorted in its second half.  ``p``: the ply (the stones on the
    board), which the search carries rather than counting it here."""
    geometry = _geometry(g)
    possible = _possible(g, b)
    theirs = _winning_cells(geometry, a ^ b, b)
    forced = possible & theirs
    if forced:
        if forced & (forced - _ONE):
            return 0  # two threats: one can be blocked, not both
        possible = forced
    safe = possible & ~(theirs >> _ONE)  # never play just below one of their winning cells
    if not ordered or not safe & (safe - _ONE):
        return _columns(g, safe, out, 0)
    ply = p
    if ply >= int(g.order_until) and (ply >= int(g.order_late) or _count(safe) < 4):
        top = safe & g.top_row  # late: the moves that fill a column first
        return _columns(g, safe ^ top, out, _columns(g, top, out, 0))
    # A move scores the winning cells it creates, and one more if it lands two cells below one of
    # the mover's while more than 14 cells are empty (the column is then the mover's to close).
    mine = _winning_cells(geometry, a, b)
    below = (mine & ~g.bottom) >> np.uint64(2) if ply < int(g.prepare_until) else _ZERO
    n = 0
    w = int(g.width)
    h1 = g.h1
    column = (_ONE << g.height) - _ONE
    for x in range(w):
        c = int(g.order[x])
        cell = safe & (column << (np.uint64(c) * h1))
        if cell:
            score = _count(_winning_cells(geometry, a | cell, b) & ~mine) + (1 if cell & below else 0)
            y = n
            while y > 0 and out[w + y - 1] < score:  # the scores are kept after the moves
                out[w + y] = out[w + y - 1]
                out[y] = out[y - 1]
                y -= 1
            out[w + y] = score
            out[y] = c
            n += 1
    return n


#: The rules, as the compiled engine takes them.
RULES = RuleSet(moves=moves, play=play, ends=ends, key=key, win_now=win_now, safe_moves=safe_moves)
