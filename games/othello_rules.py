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

Near the end the engine's node costs more than the search under it needs: :func:`finish`
solves a position with at most ``finish_empties`` empty squares itself (one function a count
of empty squares, each trying the empty squares in turn, odd quadrants first, the last square
scored by its flips alone), without move list or table; :func:`table_use` keeps the table out
of searches with at most ``table_empties`` empty squares and has the engine look up each child
first from ``etc_empties`` on.  Both engines give the same values; the compiled engine's node
counts differ from the Python engine's (a finished position is one node).

A key is ``(a, b)``, or, with at most ``symmetric_discs`` discs on the board, the least
of the eight symmetric images' pairs (``perms`` maps each square under the seven other
symmetries).  ``g`` holds the board's constants by name (:class:`othello.OthelloBoard`).
All arithmetic on bitboards stays in ``uint64``: numba turns a mix of signed and unsigned
integers into floats.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, cast

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros

from gametree import RuleSet

__all__ = ["MAX_FINISH", "PASS", "RULES", "Board", "ends", "finish", "key", "moves", "play", "score", "table_use"]

#: A pass, as the compiled rules write it (no square has this number).
PASS = 64

_ONE = np.uint64(1)
_ZERO = np.uint64(0)

#: The number of the lowest set bit (LLVM's ``cttz``: one instruction).
_tz = cast("Callable[[np.uint64], np.uint64]", _trailing_zeros)


class Board(Protocol):
    """The board's constants as these functions get them (:class:`othello.OthelloBoard`)."""

    size: np.uint64
    cells: np.uint64
    full: np.uint64
    runs: np.uint64
    fastest_first: np.uint64
    finish_empties: np.uint64
    table_empties: np.uint64
    etc_empties: np.uint64
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
def _margin(mine: int, theirs: int, empty: int) -> int:
    """The final margin of ``mine`` discs against ``theirs``, the ``empty`` squares to the winner."""
    margin = mine - theirs
    return margin + empty if margin > 0 else margin - empty if margin < 0 else 0


@njit(inline="always")
def _last(g: Board, a: np.uint64, b: np.uint64, square: int) -> int:
    """The final margin for the side to move with one empty square, ``square``, left: it plays
    there, or else its opponent does, or else the game ends with it empty."""
    d = _count(a) - _count(b)
    f = _flips(g, a, b, square)
    if f:
        return d + 2 * _count(f) + 1
    f = _flips(g, b, a, square)
    if f:
        return d - 2 * _count(f) - 1
    return _margin(d, 0, 1)


#: What a search of the moves of one side returns when it has none (no margin is this low).
_NO_MOVE = -1000


def _solver(n: int, child: Callable[..., int]) -> Callable[..., int]:
    """The search of positions with ``n`` (at least 2) empty squares, ``child`` searching those with
    ``n - 1`` (numba compiles no recursion into cached code: one function a count of empty squares).

    ``solve(g, a, b, alpha, beta, empty)``: the fail-soft value of the position, whose empty squares
    are ``empty``, searched without table or move list: each empty square in turn, those in
    quadrants with an odd number of empty squares first; a pass when the side has no move."""

    def solve(g: Board, a: np.uint64, b: np.uint64, alpha: int, beta: int, empty: np.uint64) -> int:
        odd = _odd_regions(g, empty)
        sign = 1
        for _ in range(2):  # the side to move, then (it has no move: a pass) its opponent
            best = _NO_MOVE
            for part in range(2):
                x = empty & odd if part == 0 else empty & ~odd
                while x:
                    square = int(_tz(x))
                    x &= x - _ONE
                    f = _flips(g, a, b, square)
                    if not f:
                        continue
                    bit = _ONE << np.uint64(square)
                    v = -child(g, b & ~f, a | f | bit, -beta, -alpha, empty & ~bit)
                    if v > best:
                        best = v
                        if v > alpha:
                            alpha = v
                            if alpha >= beta:
                                return sign * best
            if best != _NO_MOVE:
                return sign * best
            a, b, alpha, beta, sign = b, a, -beta, -alpha, -sign
        return _margin(_count(a), _count(b), n)  # neither side can move: the game is over

    solve.__qualname__ = solve.__name__ = f"_solve{n}"
    return cast("Callable[..., int]", njit(solve))


@njit(inline="always")
def _solve1(g: Board, a: np.uint64, b: np.uint64, alpha: int, beta: int, empty: np.uint64) -> int:
    return _last(g, a, b, int(_tz(empty)))


#: The most empty squares :func:`finish` solves (``finish_empties`` at most this).
MAX_FINISH = 6

_solve2 = _solver(2, _solve1)
_solve3 = _solver(3, _solve2)
_solve4 = _solver(4, _solve3)
_solve5 = _solver(5, _solve4)
_solve6 = _solver(6, _solve5)


@njit(cache=True)
def finish(g: Board, a: np.uint64, b: np.uint64, alpha: int, beta: int) -> tuple[bool, int]:
    """With at most ``finish_empties`` empty squares: ``(True, v)``, ``v`` the position's fail-soft
    value for the window ``(alpha, beta)``, searched here square by square; else ``(False, 0)``."""
    empty = g.full & ~(a | b)
    n = _count(empty)
    if n > int(g.finish_empties):
        return False, 0
    if n <= 4:
        if n == 1:
            return True, _last(g, a, b, int(_tz(empty)))
        if n == 2:
            return True, _solve2(g, a, b, alpha, beta, empty)
        if n == 3:
            return True, _solve3(g, a, b, alpha, beta, empty)
        if n == 4:
            return True, _solve4(g, a, b, alpha, beta, empty)
        return True, _margin(_count(a), _count(b), 0)
    if n == 5:
        return True, _solve5(g, a, b, alpha, beta, empty)
    return True, _solve6(g, a, b, alpha, beta, empty)


@njit(cache=True)
def table_use(g: Board, a: np.uint64, b: np.uint64) -> int:
    """What the engine's table does for the position: nothing with at most ``table_empties`` empty
    squares (a probe costs more than it saves), child probes first (the enhanced transposition cutoff)
    with at least ``etc_empties``, else the usual."""
    n = _count(g.full & ~(a | b))
    return 0 if n <= int(g.table_empties) else 2 if n >= int(g.etc_empties) else 1


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
RULES = RuleSet(moves=moves, play=play, ends=ends, key=key, score=score, finish=finish, table_use=table_use)
