"""The compiled engine's negamax: built by numba from one game's compiled rules.

:func:`build` takes a module of compiled rules (:class:`gametree.game.CompiledRules`
names it) and returns a compiled fail-soft negamax over its positions, with the
same scores, windows and bounds as :class:`gametree.search.engine.Engine` (the
reference): depth-aware win scores, score bounds from the moves left, a bounds
table.  For rules with ``win_now`` and ``safe_moves`` it searches as Pascal
Pons's solver does (a position is entered only by a move that leaves the
opponent no immediate win); otherwise every legal move, with game-ending moves
scored from the parent.

This module imports numba; :mod:`gametree.search.compiled` imports it only when
a compiled engine is built.  Compiled code is cached on disk (numba's cache, in
the folder :func:`gametree.search.compiled.cache_folder` names), keyed by this
file and by the rules' code, so a second process loads it instead of compiling.

The table is a fixed array of buckets of one cache line, two entries each: 64-bit
keys ``k1, k2`` and one word packing the lower and upper bound, the best move and
the work (log2 of the nodes the search under it took).  A bucket's first entry
keeps the costlier search, the second takes whatever comes (Breuker's two-level
replacement); a lookup checks both.
"""

from __future__ import annotations

import mmap
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit
from numba.core.dispatcher import Dispatcher

__all__ = ["CONTROL_SIZE", "CUTOFFS", "HITS", "NODES", "PROBES", "ROOT_IMPROVED", "ROOT_MOVE", "STOP", "STORES", "TERMINALS", "SCORE_LIMIT", "BUCKET_WORDS", "build", "rehash", "table_words"]

#: The control array shared by Python and a running search (int64): a request to stop (set
#: from outside, looked at every node), the counts, and what the root found.
STOP, NODES, PROBES, HITS, STORES, CUTOFFS, TERMINALS, ROOT_MOVE, ROOT_IMPROVED = range(9)
CONTROL_SIZE = 9

#: A bucket of the table: two entries of three words (two key words, one of data) in one cache
#: line of 64 bytes (the last two words unused), so that a probe costs one miss.
BUCKET_WORDS = 8

#: Windows and stored bounds are whole numbers within +-SCORE_LIMIT (16 bits a bound in the table).
SCORE_LIMIT = 30000
_OFFSET = 32768
_USED = np.uint64(1) << np.uint64(63)


def table_words(buckets: int) -> np.ndarray:
    """An empty table of ``buckets`` buckets (a power of two): :data:`BUCKET_WORDS` words each.

    In anonymous memory of the system's (zeroed) small pages, mapped as the search first
    touches them: numpy would ask for huge pages, whose compaction on Linux cost 0.6 s for a
    search of 7,000 nodes in a 200 MB table (docs/performance-log.md).
    """
    memory = mmap.mmap(-1, 8 * BUCKET_WORDS * buckets)
    return np.frombuffer(memory, dtype=np.uint64)


@njit(inline="always")
def _win_score(C: int, n: int) -> int:
    return (C + 1 - n) // 2


@njit(inline="always")
def _bucket(k1: np.uint64, k2: np.uint64, mask: int) -> int:
    """The first word of the key's bucket."""
    h = k1 * np.uint64(0x9E3779B97F4A7C15) ^ k2 * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(29)
    return int(h & np.uint64(mask)) * BUCKET_WORDS


@njit(inline="always")
def _find(table: np.ndarray, k1: np.uint64, k2: np.uint64, i: int) -> int:
    """The first word of the entry of bucket ``i`` holding the key, or -1."""
    if table[i] == k1 and table[i + 1] == k2 and table[i + 2] != 0:
        return i
    if table[i + 3] == k1 and table[i + 4] == k2 and table[i + 5] != 0:
        return i + 3
    return -1


@njit(inline="always")
def _pack(lo: int, hi: int, move: int, work: int) -> np.uint64:
    return (
        _USED
        | np.uint64(lo + _OFFSET)
        | (np.uint64(hi + _OFFSET) << np.uint64(16))
        | (np.uint64(move + 1) << np.uint64(32))
        | (np.uint64(work) << np.uint64(48))
    )


@njit(inline="always")
def _log2(n: int) -> int:
    w = 0
    while n > 1 and w < 255:
        n >>= 1
        w += 1
    return w


@njit(inline="always")
def _place(table: np.ndarray, i: int, k1: np.uint64, k2: np.uint64, packed: np.uint64) -> None:
    """Store in bucket ``i``: over the key's own entry; else in the first entry if this search cost at
    least as much as the one there, or the second."""
    j = _find(table, k1, k2, i)
    if j < 0:
        j = i if (table[i + 2] >> np.uint64(48)) & np.uint64(0xFF) <= (packed >> np.uint64(48)) & np.uint64(0xFF) else i + 3
    table[j] = k1
    table[j + 1] = k2
    table[j + 2] = packed


@njit(inline="always")
def _store(table: np.ndarray, i: int, k1: np.uint64, k2: np.uint64, lo: int, hi: int, move: int, work: int) -> None:
    _place(table, i, k1, k2, _pack(lo, hi, move, work))


@njit(inline="always")
def _probe(table: np.ndarray, mask: int, k1: np.uint64, k2: np.uint64, control: np.ndarray) -> tuple[int, int, int, int]:
    """Look the key up: its bucket (-1: no table), the bounds stored (the widest if none) and the
    best move stored (-1 if none)."""
    if mask < 0:
        return -1, -SCORE_LIMIT, SCORE_LIMIT, -1
    i = _bucket(k1, k2, mask)
    control[PROBES] += 1
    j = _find(table, k1, k2, i)
    if j < 0:
        return i, -SCORE_LIMIT, SCORE_LIMIT, -1
    control[HITS] += 1
    d = table[j + 2]
    lo = int(d & np.uint64(0xFFFF)) - _OFFSET
    hi = int((d >> np.uint64(16)) & np.uint64(0xFFFF)) - _OFFSET
    return i, lo, hi, int((d >> np.uint64(32)) & np.uint64(0xFFFF)) - 1


@njit(inline="always")
def _first(row: np.ndarray, n: int, move: int) -> None:
    """Move ``move`` to the front of the ``n`` moves of ``row``, if it is among them."""
    if move >= 0 and row[0] != move:
        for x in range(1, n):
            if row[x] == move:
                for y in range(x, 0, -1):
                    row[y] = row[y - 1]
                row[0] = move
                return


@njit(inline="always")
def _record(
    table: np.ndarray, i: int, k1: np.uint64, k2: np.uint64, best: int, best_move: int, alpha: int, beta: int, height: int, before: int, control: np.ndarray
) -> None:
    """What a node found: the root's move, and the table's bound (``i``: the key's bucket, -1 for
    no table; ``alpha, beta``: the window searched; ``before``: the node count on entering)."""
    if height == 0:
        control[ROOT_MOVE] = best_move
        control[ROOT_IMPROVED] = 1 if best > alpha else 0
    if i >= 0:
        control[STORES] += 1
        work = _log2(control[NODES] - before)
        if best <= alpha:
            _store(table, i, k1, k2, -SCORE_LIMIT, best, best_move, work)
        elif best >= beta:
            _store(table, i, k1, k2, best, SCORE_LIMIT, best_move, work)
        else:
            _store(table, i, k1, k2, best, best, best_move, work)


@njit(cache=True, nogil=True)
def rehash(table: np.ndarray, larger: np.ndarray) -> None:
    """Move every entry of a table into a larger one (empty)."""
    mask = len(larger) // BUCKET_WORDS - 1
    for b in range(0, len(table), BUCKET_WORDS):
        for i in (b, b + 3):
            if table[i + 2] != 0:
                _place(larger, _bucket(table[i], table[i + 1], mask), table[i], table[i + 1], table[i + 2])


def _stable(dispatcher: Any, name: str) -> None:
    """Give a numba dispatcher a fixed identity, so that the compiled code of a closure over it is
    found again in numba's on-disk cache by the next process.

    numba keys a cached closure by its variables, pickled; a dispatcher pickles with its
    function's code (so a change of the rules is a new key) and with an identity numba draws at
    random in each process unless one is set first.  The identity is set through numba's
    ``_set_uuid`` (not public): without it, or if it was set already, everything still works,
    only the cache misses.
    """
    try:
        dispatcher._set_uuid(f"gametree:{name}")
    except (AttributeError, AssertionError):
        pass


def _stabilise(module: types.ModuleType) -> None:
    """:func:`_stable` for every dispatcher among the globals of ``module`` (a closure's variables
    pickle with the globals their functions use)."""
    for name, value in vars(module).items():
        if isinstance(value, Dispatcher):
            _stable(value, f"{module.__name__}.{name}")


@njit(cache=True)
def _no_safe_moves(g: np.ndarray, a: np.uint64, b: np.uint64, out: np.ndarray, ordered: bool) -> int:
    """Stands in for the rules' ``safe_moves`` where they have none (never called then)."""
    return 0


def build(rules: types.ModuleType) -> Callable[..., int]:
    """The compiled negamax over the positions of ``rules`` (a module of compiled rules).

    ``search(g, a, b, p, height, alpha, beta, C, no_moves, table, mask, symmetric, control,
    per_height, moves)``: the fail-soft value of the position ``(a, b)`` at ply ``p`` of a game
    of at most ``C`` plies, for the window ``(alpha, beta)`` (whole numbers), counting nodes by
    ``height`` (the root's is given); ``table`` has ``mask + 1`` buckets (``mask`` -1: no
    table).  The position must not be over, and with threat-aware rules its side to move must
    not be able to win at once.  ``moves`` is an ``int64`` array of ``C + 2`` rows of
    ``max_moves`` slots.  When ``control[STOP]`` is set the search returns at once with a
    meaningless value and stores nothing more.

    One node function for both kinds of rules, as :class:`gametree.search.engine.Engine` has one
    for both move strategies: ``threat_aware`` is a constant of its closure, so numba compiles
    each kind with only its own branches.  Threat-aware (rules with ``win_now`` and
    ``safe_moves``): a position is entered only by a move that leaves the opponent no immediate
    win, so it is never over and its side to move cannot win at once; the node searches the safe
    moves, and settles itself by "is there one?" when the window asks no more.  Plain: every
    legal move, a game-ending move scored by the parent.
    """
    name = rules.__name__
    moves_of, play, ends, key = rules.moves, rules.play, rules.ends, rules.key
    threat_aware = hasattr(rules, "safe_moves") and hasattr(rules, "win_now")
    safe_moves = rules.safe_moves if threat_aware else _no_safe_moves
    _stabilise(rules)
    _stabilise(sys.modules[__name__])

    @njit(cache=True, nogil=True)
    def node(g, a, b, p, height, alpha, beta, C, no_moves, table, mask, symmetric, control, per_height, moves):  # type: ignore[no-untyped-def]
        control[NODES] += 1
        per_height[height] += 1
        if control[STOP] != 0:
            return 0
        row = moves[p]
        n = 0
        if threat_aware:
            # We cannot win now: at best we win with our next move but one.
            upper = _win_score(C, p + 2)
            if beta > upper:
                beta = upper
                if alpha >= beta:
                    return beta
            # With a safe move the opponent cannot win with its next move either.
            lower = -_win_score(C, p + 3) if p < C - 2 else 0
            if lower >= beta:  # only whether we have a safe move matters
                if safe_moves(g, a, b, row, False) > 0:
                    return lower
                if moves_of(g, a, b, row) == 0:
                    return no_moves * _win_score(C, p - 1)
                return -_win_score(C, p + 1)
        else:
            n = moves_of(g, a, b, row)
            if n == 0:
                control[TERMINALS] += 1
                return no_moves * _win_score(C, p - 1)
            # No score beats winning with this move, nor is worse than losing with it.
            upper = _win_score(C, p)
            lower = -upper
            if beta > upper:
                beta = upper
            if alpha < lower:
                alpha = lower
            if alpha >= beta:
                return beta if beta == upper else alpha
        k1, k2 = key(g, a, b, p, symmetric)
        i, lo, hi, hash_move = _probe(table, mask, k1, k2, control)
        if lo >= beta:
            return lo
        if hi <= alpha or lo == hi:
            return hi
        alpha, beta = max(alpha, lo), min(beta, hi)
        if threat_aware:
            # While alpha is at least ``settle``, every child is settled by whether it has a safe
            # move (its lowest score with one is at least its beta): the order matters little then.
            settle = _win_score(C, p + 4) if p + 1 < C - 2 else 0
            n = safe_moves(g, a, b, row, alpha < settle)
            if n == 0:
                if moves_of(g, a, b, row) == 0:
                    control[TERMINALS] += 1
                    return no_moves * _win_score(C, p - 1)
                return -_win_score(C, p + 1)  # whatever we play, the opponent wins next move
            if alpha < lower:
                alpha = lower
                if alpha >= beta:
                    return alpha
        _first(row, n, hash_move)
        alpha0 = alpha
        best = -SCORE_LIMIT - 1
        best_move = -1
        before = control[NODES]
        for x in range(n):
            m = row[x]
            end = 0 if threat_aware else ends(g, a, b, m)
            if end != 0:  # the game ends with this move: a node, scored here
                control[NODES] += 1
                control[TERMINALS] += 1
                per_height[height + 1] += 1
                value = end * upper
            else:
                a2, b2 = play(g, a, b, m)
                value = -node(g, a2, b2, p + 1, height + 1, -beta, -alpha, C, no_moves, table, mask, symmetric, control, per_height, moves)
                if control[STOP] != 0:
                    return 0
            if value > best:
                best = value
                best_move = m
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        if x < n - 1:
                            control[CUTOFFS] += 1
                        break
        _record(table, i, k1, k2, best, best_move, alpha0, beta, height, before, control)
        return best

    _stable(node, f"kernel:{name}:{'threats' if threat_aware else 'plain'}")
    return node
