"""Othello's compiled rules (numba), for the compiled engine: see :class:`gametree.RuleSet`.

The bitboards of :mod:`othello`: bit ``row * size + column``; a position is ``(a, b)``,
the discs of the side to move and of its opponent; a move is a square, or :data:`PASS`
(which :meth:`othello.Othello.compiled_rules` translates from the game's own).  Moves are
found with shifts in the eight directions, each masked so that no step comes round from
one edge to the other.  Moves come in the Python game's order (while more than
``fastest_first`` squares are empty, by a sort key: the opponent's replies, those on corners
weighed more, X- and C-square penalties, parity; else the moves into quadrants with an odd
number of empty squares first; ties in the static order), so both engines search alike.
The game is a margin game: :func:`score` gives the final margin
(the empty squares to the winner), and the engine bounds scores by ``size * size``.

A key is ``(a, b)``, or, with at most ``symmetric_discs`` discs on the board, the least
of the eight symmetric images' pairs (``perms`` maps each square under the seven other
symmetries).  ``g`` holds the board's constants by name (:class:`othello.OthelloBoard`).
All arithmetic on bitboards stays in ``uint64``: numba turns a mix of signed and unsigned
integers into floats.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numba import njit

from gametree import RuleSet

__all__ = ["PASS", "RULES", "Board", "ends", "key", "moves", "play", "score"]

#: A pass, as the compiled rules write it (no square has this number).
PASS = 64

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


class Board(Protocol):
    """The board's constants as these functions get them (:class:`othello.OthelloBoard`)."""

    size: np.uint64
    cells: np.uint64
    full: np.uint64
    runs: np.uint64
    fastest_first: np.uint64
    symmetric_discs: np.uint64
    corners: np.uint64
    weights: np.ndarray
    shifts: np.ndarray
    left: np.ndarray
    right: np.ndarray
    order: np.ndarray
    penalty: np.ndarray
    regions: np.ndarray
    perms: np.ndarray


@njit(inline="always")
def _count(x: np.uint64) -> int:
    n = 0
    while x:
        x &= x - _ONE
        n += 1
    return n


@njit(inline="always")
def _moves_mask(g: Board, mine: np.uint64, theirs: np.uint64) -> np.uint64:
    """The squares where ``mine`` may place a disc."""
    empty = g.full & ~(mine | theirs)
    found = _ZERO
    for x in range(4):
        s, lm, rm = g.shifts[x], g.left[x], g.right[x]
        t = (mine << s) & lm & theirs
        u = (mine >> s) & rm & theirs
        for _ in range(int(g.runs)):
            t |= (t << s) & lm & theirs
            u |= (u >> s) & rm & theirs
        found |= ((t << s) & lm & empty) | ((u >> s) & rm & empty)
    return found


@njit(inline="always")
def _flips(g: Board, mine: np.uint64, theirs: np.uint64, square: int) -> np.uint64:
    """The opponent's discs a disc of ``mine`` on ``square`` turns over."""
    bit = _ONE << np.uint64(square)
    flipped = _ZERO
    for x in range(4):
        s, lm, rm = g.shifts[x], g.left[x], g.right[x]
        line = _ZERO
        y = (bit << s) & lm
        while y & theirs:
            line |= y
            y = (y << s) & lm
        if y & mine:
            flipped |= line
        line = _ZERO
        y = (bit >> s) & rm
        while y & theirs:
            line |= y
            y = (y >> s) & rm
        if y & mine:
            flipped |= line
    return flipped


@njit(inline="always")
def _odd_regions(g: Board, empty: np.uint64) -> np.uint64:
    """The empty squares of the board's regions (its quadrants) that hold an odd number of them."""
    odd = _ZERO
    for r in range(4):
        inside = empty & g.regions[r]
        if _count(inside) & 1:
            odd |= inside
    return odd


@njit(inline="always")
def _insertion_sort(out: np.ndarray, n: int) -> None:
    for i in range(1, n):
        v = out[i]
        j = i - 1
        while j >= 0 and out[j] > v:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = v


@njit(inline="always")
def _sort_keys(g: Board, a: np.uint64, b: np.uint64, out: np.ndarray, n: int, odd: np.uint64) -> None:
    """Each move's sort key (``out[i]`` holds its place in the static order): the opponent's replies
    (those on corners weighed more), the square's penalty, odd regions first; times 64, plus its place."""
    order, w = g.order, g.weights
    for i in range(n):
        square = int(order[out[i]])
        bit = _ONE << np.uint64(square)
        f = _flips(g, a, b, square)
        replies = _moves_mask(g, b & ~f, a | f | bit)
        k = int(w[0]) * _count(replies) + int(w[1]) * _count(replies & g.corners) + int(g.penalty[square])
        if not odd & bit:
            k += int(w[2])
        out[i] = k * 64 + out[i]


@njit(cache=True)
def moves(g: Board, a: np.uint64, b: np.uint64, out: np.ndarray) -> int:
    """The squares that take a disc, in the game's order; a pass alone if only the opponent can
    move; 0 when neither can (the game is over)."""
    found = _moves_mask(g, a, b)
    if not found:
        if _moves_mask(g, b, a):
            out[0] = PASS
            return 1
        return 0
    order = g.order
    n = 0
    for x in range(int(g.cells)):
        if (found >> order[x]) & _ONE:
            out[n] = x  # (its place in the order, for now)
            n += 1
    if n > 1:
        empty = g.full & ~(a | b)
        odd = _odd_regions(g, empty)
        if _count(empty) > int(g.fastest_first):
            _sort_keys(g, a, b, out, n, odd)
        else:
            # Few empty squares: the moves into regions with an odd number of them first ("parity").
            for i in range(n):
                if not (odd >> order[out[i]]) & _ONE:
                    out[i] += 64
        _insertion_sort(out, n)
    for i in range(n):
        out[i] = int(order[out[i] & 63])
    return n


@njit(cache=True)
def play(g: Board, a: np.uint64, b: np.uint64, m: int) -> tuple[np.uint64, np.uint64]:
    """The position after ``m``, seen from the opponent."""
    if m == PASS:
        return b, a
    f = _flips(g, a, b, m)
    return b & ~f, a | f | (_ONE << np.uint64(m))


@njit(cache=True)
def ends(g: Board, a: np.uint64, b: np.uint64, m: int) -> int:
    """Never asked for a margin game's rules (the engine scores ends with :func:`score`)."""
    return 0


@njit(cache=True)
def score(g: Board, a: np.uint64, b: np.uint64) -> int:
    """The final margin for the side to move: discs, the empty squares counted for the winner."""
    mine, theirs = _count(a), _count(b)
    empty = int(g.cells) - mine - theirs
    margin = mine - theirs
    if margin > 0:
        return margin + empty
    if margin < 0:
        return margin - empty
    return 0


@njit(inline="always")
def _image(g: Board, board: np.uint64, t: int) -> np.uint64:
    out = _ZERO
    base = t * 64
    for sq in range(int(g.cells)):
        if (board >> np.uint64(sq)) & _ONE:
            out |= _ONE << g.perms[base + sq]
    return out


@njit(cache=True)
def key(g: Board, a: np.uint64, b: np.uint64, p: int, symmetric: bool) -> tuple[np.uint64, np.uint64]:
    """``(a, b)``, or early in the game (``symmetric``) the least pair of its eight symmetric images."""
    if not symmetric or _count(a | b) > int(g.symmetric_discs):
        return a, b
    ka, kb = a, b
    for t in range(7):
        ta, tb = _image(g, a, t), _image(g, b, t)
        if ta < ka or (ta == ka and tb < kb):
            ka, kb = ta, tb
    return ka, kb


#: The rules, as the compiled engine takes them.
RULES = RuleSet(moves=moves, play=play, ends=ends, key=key, score=score)
