"""m,n,k tic-tac-toe's compiled rules (numba), for the compiled engine: see :class:`gametree.RuleSet`.

The bitboard of :mod:`tictactoe`: bit ``r * width + c`` is the cell in row
``r`` and column ``c``; a move is a cell index.  A position is ``(a, b)``: the
marks of the side to move and the opponent's.  Boards of at most 64 cells
have compiled rules; larger ones are searched by the Python engine.

Lines are found with shifts along the (up to four) directions whose lines of
``k`` fit on the board; a step that would come round from one row into the
next is masked off (each direction has a mask of the cells a step forward may
land on, and one for a step back).  Moves come in the Python game's orders
(its ``legal_moves`` and ``safe_moves``), so that both engines search alike.

A position's key is the least of its images under the board's symmetries (the
8 of a square, the 4 of a rectangle) at every ply: on 5x5 and 6x4 with k = 4
that solves faster than keeping the symmetry to the first half of the game,
fewer nodes for a dearer key.  On a board of at most 32 cells both sides' marks
are packed in one word (``a | b << cells``) and only that word is reflected;
otherwise the key is the least ``(a, b)`` pair.  Either way it implies the ply
(the number of marks).

``g`` holds the board's constants by name (:class:`Board`).  All arithmetic on
bitboards stays in ``uint64``: numba turns a mix of signed and unsigned integers into floats.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numba import njit

from gametree import RuleSet

__all__ = ["RULES", "Board", "ends", "key", "moves", "play", "safe_moves", "win_now"]


class Board(Protocol):
    """The board's constants as these functions get them: :class:`tictactoe.TTTBoard` (the fields
    are documented there), each int a ``np.uint64`` and each tuple a ``uint64`` array."""

    width: np.uint64
    height: np.uint64
    k: np.uint64
    board: np.uint64
    order_until: np.uint64
    symmetric_plies: np.uint64
    row: np.uint64
    column: np.uint64
    diagonal: np.uint64
    packed: np.uint64
    lines: np.uint64
    directions: np.ndarray
    forward: np.ndarray
    backward: np.ndarray
    order: np.ndarray


_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_ALL = ~np.uint64(0)


@njit(inline="always")
def _in_order(g: Board, cells: np.uint64, out: np.ndarray, n: int) -> int:
    """Write the ``cells`` into ``out`` from slot ``n`` on, in the game's order; the new count."""
    order = g.order
    for x in range(len(order)):
        if not cells:
            return n
        c = order[x]
        if (cells >> c) & _ONE:
            out[n] = int(c)
            n += 1
            cells ^= _ONE << c
    return n


@njit(inline="always")
def _winning_cells(g: Board, stones: np.uint64, empty: np.uint64) -> np.uint64:
    """The cells of ``empty`` where one more mark completes a line of ``k`` with ``stones``.

    Along each direction ``d``: ``f1`` holds the cells with a mark one step before them
    (``stones << d``, less what came round from another row), ``f2`` those with marks one and
    two steps before, and so on; ``b1``, ``b2``, ... the same behind them."""
    k = int(g.k)
    found = _ZERO
    for x in range(int(g.lines)):
        d = g.directions[x]
        fwd = g.forward[x]  # where a step forward (<< d) may land without coming round a row
        back = g.backward[x]  # where a step back (>> d) may
        f1 = (stones << d) & fwd
        b1 = (stones >> d) & back
        if k == 3:
            found |= (((f1 & stones) << d) & fwd) | (f1 & b1) | (((b1 & stones) >> d) & back)
            continue
        if k == 4:
            f2 = ((f1 & stones) << d) & fwd
            b2 = ((b1 & stones) >> d) & back
            found |= (((f2 & stones) << d) & fwd) | (f2 & b1) | (f1 & b2) | (((b2 & stones) >> d) & back)
            continue
        # Any k: ``left`` marks before the cell, ``k - 1 - left`` after it.
        for left in range(k):
            before = _ALL
            for _ in range(left):
                before = ((before & stones) << d) & fwd
            after = _ALL
            for _ in range(k - 1 - left):
                after = ((after & stones) >> d) & back
            found |= before & after
    return found & empty


@njit(inline="always")
def _line_builders(g: Board, a: np.uint64, b: np.uint64, empty: np.uint64) -> np.uint64:
    """The empty cells of the lines free of the opponent's marks and two marks short of ``k``
    (the game's "moves that create a threat").  A line is known by its first cell: ``free``
    holds the first cells of lines free of ``b``, ``two`` those with exactly two empty cells."""
    k = int(g.k)
    mine_or_empty = g.board & ~b
    found = _ZERO
    for x in range(int(g.lines)):
        d = g.directions[x]
        back = g.backward[x]
        free = _ALL
        for _ in range(k - 1):
            free = ((free & mine_or_empty) >> d) & back
        free &= mine_or_empty
        if not free:
            continue
        one = _ZERO  # first cells of lines with at least one empty cell (so far)
        two = _ZERO  # at least two
        more = _ZERO  # at least three
        for i in range(k):
            e = empty >> (np.uint64(i) * d)
            more |= two & e
            two |= one & e
            one |= e
        two &= free & ~more
        for i in range(k):
            found |= two << (np.uint64(i) * d)
    return found & empty


@njit(cache=True)
def moves(g: Board, a: np.uint64, b: np.uint64, out: np.ndarray) -> int:
    """The empty cells, those on the most lines first, then nearest the centre (the game's order)."""
    return _in_order(g, g.board & ~(a | b), out, 0)


@njit(cache=True)
def play(g: Board, a: np.uint64, b: np.uint64, m: int) -> tuple[np.uint64, np.uint64]:
    """Mark cell ``m``: the opponent's marks, and the mover's with the new one."""
    return b, a | (_ONE << np.uint64(m))


@njit(cache=True)
def ends(g: Board, a: np.uint64, b: np.uint64, m: int) -> int:
    """1 if a mark on cell ``m`` completes a line of ``k``: the marks in a row through it, counted
    both ways along each direction."""
    k = int(g.k)
    bit = _ONE << np.uint64(m)
    stones = a | bit
    for x in range(int(g.lines)):
        d = g.directions[x]
        fwd = g.forward[x]
        back = g.backward[x]
        run = 1
        t = bit
        while run < k:
            t = (t << d) & fwd & stones
            if not t:
                break
            run += 1
        t = bit
        while run < k:
            t = (t >> d) & back & stones
            if not t:
                break
            run += 1
        if run >= k:
            return 1
    return 0


@njit(inline="always")
def _mirror_columns(g: Board, x: np.uint64) -> np.uint64:
    """``x`` reflected left to right."""
    w = int(g.width)
    column = g.column
    out = _ZERO
    for c in range(w):
        out |= ((x >> np.uint64(c)) & column) << np.uint64(w - 1 - c)
    return out


@njit(inline="always")
def _mirror_rows(g: Board, x: np.uint64) -> np.uint64:
    """``x`` reflected top to bottom."""
    w = int(g.width)
    h = int(g.height)
    row = g.row
    out = _ZERO
    for r in range(h):
        out |= ((x >> np.uint64(r * w)) & row) << np.uint64((h - 1 - r) * w)
    return out


@njit(inline="always")
def _transpose(g: Board, x: np.uint64) -> np.uint64:
    """``x`` reflected in the main diagonal (a square board): the cells of the diagonal
    ``c - r = d`` move ``d * (w - 1)`` bits (that diagonal is the main one shifted by ``d``,
    less the cells that came round from another row)."""
    w = int(g.width)
    diagonal = g.diagonal
    column = g.column
    out = x & diagonal
    first = _ZERO  # the first d columns
    last = _ZERO  # the last d columns
    for d in range(1, w):
        first |= column << np.uint64(d - 1)
        last |= column << np.uint64(w - d)
        s = np.uint64(d * (w - 1))
        out |= (x & (diagonal << np.uint64(d)) & ~first) << s
        out |= (x & (diagonal >> np.uint64(d)) & ~last) >> s
    return out


@njit(inline="always")
def _less(a1: np.uint64, b1: np.uint64, a2: np.uint64, b2: np.uint64) -> bool:
    return bool(a1 < a2 or (a1 == a2 and b1 < b2))


@njit(cache=True)
def key(g: Board, a: np.uint64, b: np.uint64, p: int, symmetric: bool) -> tuple[np.uint64, np.uint64]:
    """``(a, b)``, or the least of its images under the board's symmetries (up to ply
    ``g.symmetric_plies``: all of them).  On a board of at most 32 cells both sides' marks are
    packed in one word (with symmetry or without), and only that word is reflected."""
    packed = g.packed
    if packed:
        code = a | (b << packed)
        if not symmetric or p >= int(g.symmetric_plies):
            return code, _ZERO
        h = _mirror_columns(g, code)
        v = _mirror_rows(g, code)
        r = _mirror_rows(g, h)  # turned half a turn
        least = min(code, h, v, r)
        if g.width == g.height:  # a square: the same four reflected in the diagonal
            least = min(least, _transpose(g, code), _transpose(g, h), _transpose(g, v), _transpose(g, r))
        return least, _ZERO
    if not symmetric or p >= int(g.symmetric_plies):
        return a, b
    ka, kb = a, b
    ha, hb = _mirror_columns(g, a), _mirror_columns(g, b)
    va, vb = _mirror_rows(g, a), _mirror_rows(g, b)
    ra, rb = _mirror_rows(g, ha), _mirror_rows(g, hb)
    if _less(ha, hb, ka, kb):
        ka, kb = ha, hb
    if _less(va, vb, ka, kb):
        ka, kb = va, vb
    if _less(ra, rb, ka, kb):
        ka, kb = ra, rb
    if g.width == g.height:
        ta, tb = _transpose(g, a), _transpose(g, b)
        if _less(ta, tb, ka, kb):
            ka, kb = ta, tb
        ta, tb = _transpose(g, ha), _transpose(g, hb)
        if _less(ta, tb, ka, kb):
            ka, kb = ta, tb
        ta, tb = _transpose(g, va), _transpose(g, vb)
        if _less(ta, tb, ka, kb):
            ka, kb = ta, tb
        ta, tb = _transpose(g, ra), _transpose(g, rb)
        if _less(ta, tb, ka, kb):
            ka, kb = ta, tb
    return ka, kb


@njit(cache=True)
def win_now(g: Board, a: np.uint64, b: np.uint64) -> bool:
    """Whether the side to move completes a line with its next mark."""
    return bool(_winning_cells(g, a, g.board & ~(a | b)) != _ZERO)


@njit(cache=True)
def safe_moves(g: Board, a: np.uint64, b: np.uint64, out: np.ndarray, ordered: bool, p: int) -> int:
    """The cells after which the opponent cannot win at once, in the game's order (as its
    ``safe_moves``): the one cell where the opponent would win, if there is one (none if two or
    more); else every empty cell, in the first plies (when ``ordered``) those that build a line first
    (``p``: the ply, the marks on the board)."""
    empty = g.board & ~(a | b)
    forced = _winning_cells(g, b, empty)
    if forced:
        if forced & (forced - _ONE):
            return 0  # two threats: one can be blocked, not both
        return _in_order(g, forced, out, 0)
    if ordered and p < int(g.order_until):
        first = _line_builders(g, a, b, empty)
        if first:
            return _in_order(g, empty & ~first, out, _in_order(g, first, out, 0))
    return _in_order(g, empty, out, 0)


#: The rules, as the compiled engine takes them.
RULES = RuleSet(moves=moves, play=play, ends=ends, key=key, win_now=win_now, safe_moves=safe_moves)
