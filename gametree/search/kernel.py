"""The compiled engine's negamax: built by numba from one game's compiled rules.

:func:`build` takes a :class:`gametree.game.RuleSet` (the rules as numba
functions) and returns a compiled fail-soft negamax that closes over them, as
pynndescent's ``search_closure`` closes over the distance it is given: numba
compiles one search for each rule set, calling the rules as compiled code.  It
has the same scores, windows and bounds as :class:`gametree.search.engine.Engine`
(the reference): depth-aware win scores, score bounds from the moves left, a
bounds table.  For rules with ``win_now`` and ``safe_moves`` it searches as
Pascal Pons's solver does (a position is entered only by a move that leaves the
opponent no immediate win); otherwise every legal move, with game-ending moves
scored from the parent.

The board's constants (:class:`gametree.game.CompiledRules` ``board``, a numpy
record made by :func:`board_constants`) are an argument of the search, not
constants of its closure: one compiled search serves every board of a game.
Closed over, they make numba compile the search again for each board (14 to 23
s for a Connect Four board), for a search 12 to 15% faster a node now that the
table stays in the cache (docs/performance-log.md): so only for the boards whose
rules ask for it (``CompiledRules.specialise``: 7x6 Connect Four), through
``build``'s ``board``.  What else one search works with goes in one
int64 work array (control, parameters, counts, rows of moves).

This module imports numba; :mod:`gametree.search.compiled` imports it only when
a compiled engine is built.  Compiled code is cached on disk (numba's cache, in
the folder :func:`gametree.search.compiled.cache_folder` names), keyed by this
file and by the rules' code, so a second process loads it instead of compiling
(:func:`gametree.search.numba_support.compiled_as` gives the closures keys of their own for that).

The table is a fixed array of buckets of two entries.  For keys of one word
(``CompiledRules.key_bits`` at most 64) the compact table: 8-byte entries (the
key's check bits, both bounds, the best move and the work in one word, the key
mixed one to one so that bucket and check bits name it exactly), 16-byte buckets.
Otherwise buckets of one cache line: 64-bit keys ``k1, k2`` and one word packing
the lower and upper bound, the best move and the work (log2 of the nodes the
search under it took).  A bucket's first entry keeps the costlier search, the
second takes whatever comes (Breuker's two-level replacement); a lookup checks
both (docs/compiled-kernel.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, TypeAlias

import numpy as np

from ..game import RuleSet
from . import numba_support
from .compile_state import cache_folder
from .kernel_layout import (
    ARRAY_WORDS,
    BUCKET_WORDS,
    COMPACT_BUCKET_WORDS,
    COMPACT_FIELD_BITS,
    CONTROL_SIZE,
    CSHIFT,
    CUTOFFS,
    FULL_WINDOW_RANGE,
    HEIGHTS,
    HITS,
    KEY_BITS,
    MARGIN,
    MASK,
    MAX_PLIES,
    MOVES_AT,
    NO_MOVES,
    NODES,
    PROBES,
    ROOT_IMPROVED,
    ROOT_MOVE,
    ROW,
    SCORE_LIMIT,
    SHIFT,
    STOP,
    STORES,
    SYMMETRIC,
    TERMINALS,
    VBITS,
    VMAX,
    Kernel,
    board_constants,
    board_digest,
    table_words,
)

# numba's cache goes to gametree's folder before numba is first imported here: this module's own
# compiled functions (rehash, the probe) would otherwise be cached in the package's __pycache__,
# which every process shares, where two processes adding different signatures at once can number
# their files alike (a pytest run imports this module for its doctests, in every worker).
numba_support.use_cache_folder(cache_folder())

from numba import njit  # noqa: E402  (after the cache folder is set)

__all__ = [
    "ARRAY_WORDS",
    "BUCKET_WORDS",
    "COMPACT_BUCKET_WORDS",
    "COMPACT_FIELD_BITS",
    "CONTROL_SIZE",
    "CUTOFFS",
    "HITS",
    "Kernel",
    "NODES",
    "PROBES",
    "ROOT_IMPROVED",
    "ROOT_MOVE",
    "SCORE_LIMIT",
    "STOP",
    "STORES",
    "TERMINALS",
    "CSHIFT",
    "HEIGHTS",
    "KEY_BITS",
    "MARGIN",
    "MASK",
    "MAX_PLIES",
    "MOVES_AT",
    "NO_MOVES",
    "ROW",
    "SHIFT",
    "SYMMETRIC",
    "VBITS",
    "VMAX",
    "board_constants",
    "board_digest",
    "build",
    "rehash",
    "rehash_compact",
    "FULL_WINDOW_RANGE",
    "table_words",
]

#: The table and the work array, as the kernel's functions take them.
Words: TypeAlias = np.ndarray

_OFFSET = 32768
_USED = np.uint64(1) << np.uint64(63)


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
        work_there = (table[i + 2] >> np.uint64(48)) & np.uint64(0xFF)
        j = i if work_there <= (packed >> np.uint64(48)) & np.uint64(0xFF) else i + 3
    table[j] = k1
    table[j + 1] = k2
    table[j + 2] = packed


@njit(inline="always")
def _store(table: np.ndarray, i: int, k1: np.uint64, k2: np.uint64, lo: int, hi: int, move: int, work: int) -> None:
    _place(table, i, k1, k2, _pack(lo, hi, move, work))


@njit(inline="always")
def _probe(
    table: np.ndarray, mask: int, k1: np.uint64, k2: np.uint64, control: np.ndarray
) -> tuple[int, int, int, int]:
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
    table: Words,
    w: Words,
    i: int,
    k1: np.uint64,
    k2: np.uint64,
    best: int,
    best_move: int,
    alpha: int,
    beta: int,
    height: int,
    below: int,
    compact: bool,
) -> None:
    """What a node found: the root's move, and the table's bound (``i``: the key's bucket, -1 for
    no table; ``k1``: the key's first word, mixed for the ``compact`` table; ``alpha, beta``: the
    window searched; ``below``: the nodes searched under it)."""
    if height == 0:
        w[ROOT_MOVE] = best_move
        w[ROOT_IMPROVED] = 1 if best > alpha else 0
    if i >= 0:
        w[STORES] += 1
        work = _log2(below)
        lo, hi = (-SCORE_LIMIT, best) if best <= alpha else (best, SCORE_LIMIT) if best >= beta else (best, best)
        if compact:
            _cstore(table, w, i, k1, lo, hi, best_move, work)
        else:
            _store(table, i, k1, k2, lo, hi, best_move, work)


@njit(inline="always")
def _packed(value: int, nodes: int) -> int:
    """What a node returns: its value and the nodes of its search (itself and those under it) in one word."""
    return (nodes << 16) | (value + _OFFSET)


@njit(inline="always")
def _value(packed: int) -> int:
    return (packed & 0xFFFF) - _OFFSET


@njit(inline="always")
def _row(w: Words, p: int) -> Words:
    """The row of moves of ply ``p`` in the work array."""
    at = w[MOVES_AT] + p * w[ROW]
    return w[at : at + w[ROW]]


@njit(inline="always")
def _half(x: int) -> int:
    """x / 2 rounded towards zero."""
    return -(-x // 2) if x < 0 else x // 2


@njit(inline="always")
def _middle(lo: int, hi: int) -> int:
    """Where a bisection of ``[lo, hi]`` probes: half-way, or half-way to the top (bottom) end from 0
    when that is further from the middle (as :func:`gametree.search.exact.exact_score`)."""
    med = lo + (hi - lo) // 2
    if med >= 0 and _half(hi) > med:
        return _half(hi)
    if med <= 0 and _half(lo) < med:
        return _half(lo)
    return med


@njit(cache=True, nogil=True)
def rehash(table: np.ndarray, larger: np.ndarray) -> None:
    """Move every entry of a table into a larger one (empty)."""
    mask = len(larger) // BUCKET_WORDS - 1
    for b in range(0, len(table), BUCKET_WORDS):
        for i in (b, b + 3):
            if table[i + 2] != 0:
                _place(larger, _bucket(table[i], table[i + 1], mask), table[i], table[i + 1], table[i + 2])


# -- the compact table: 8-byte entries, for keys of one word ----------------------------------
_WORK_MASK = np.uint64(0x1F)
_MOVE_MASK = np.uint64(0x7F)
_MOVE_SHIFT = np.uint64(5)
_VALUE_SHIFT = np.uint64(COMPACT_FIELD_BITS)


@njit(inline="always")
def _mix(k: np.uint64, key_bits: int) -> np.uint64:
    """A one-to-one mix of a key's bits (those of ``key_mask``, the lowest ones): its lowest bits
    pick the bucket, the others are the entry's check bits, so an entry names one key exactly
    (``key_bits``: from 1 to 64)."""
    key_mask = ~np.uint64(0) >> np.uint64(64 - key_bits)
    h = (k * np.uint64(0x9E3779B97F4A7C15)) & key_mask  # (a product's high bits depend on all of k's)
    h ^= h >> np.uint64((key_bits + 1) // 2)  # the high half folded onto the low (shifts within the key's bits)
    h = (h * np.uint64(0xBF58476D1CE4E5B9)) & key_mask
    return h ^ (h >> np.uint64((key_bits + 2) // 3))


@njit(inline="always")
def _cfind(table: np.ndarray, check: np.uint64, i: int, cshift: np.uint64) -> tuple[int, np.uint64]:
    """The entry of bucket ``i`` whose check bits are ``check`` (its word's index, -1 if none) and
    that word, as read once: another process sharing the table may write the entry meanwhile
    (:mod:`gametree.search.shared_table`), and a word read whole is one entry, its own key's."""
    e = table[i]
    if e != 0 and e >> cshift == check:
        return i, e
    e = table[i + 1]
    if e != 0 and e >> cshift == check:
        return i + 1, e
    return -1, e


@njit(inline="always")
def _cplace(table: np.ndarray, i: int, check: np.uint64, cshift: np.uint64, packed: np.uint64) -> None:
    """Store in bucket ``i``: over the key's own entry; else in the first if this search cost at least
    as much as the one there, or in the second."""
    j = _cfind(table, check, i, cshift)[0]
    if j < 0:
        j = i if table[i] & _WORK_MASK <= packed & _WORK_MASK else i + 1
    table[j] = packed


@njit(inline="always")
def _cprobe(table: np.ndarray, w: np.ndarray, h: np.uint64, mask: int) -> tuple[int, int, int, int]:
    """:func:`_probe` in the compact table, for the mixed key ``h`` (``w``: the work array; ``mask``: its
    bucket mask, -1 for no table)."""
    if mask < 0:
        return -1, -SCORE_LIMIT, SCORE_LIMIT, -1
    i = int(h & np.uint64(mask)) * COMPACT_BUCKET_WORDS
    w[PROBES] += 1
    j, e = _cfind(table, h >> np.uint64(w[SHIFT]), i, np.uint64(w[CSHIFT]))
    if j < 0:
        return i, -SCORE_LIMIT, SCORE_LIMIT, -1
    w[HITS] += 1
    vbits, v = w[VBITS], w[VMAX]
    vmask = (np.uint64(1) << np.uint64(vbits)) - np.uint64(1)
    lo = int((e >> _VALUE_SHIFT) & vmask) - v
    hi = int((e >> (_VALUE_SHIFT + np.uint64(vbits))) & vmask) - v
    return i, lo, hi, int((e >> _MOVE_SHIFT) & _MOVE_MASK) - 1


@njit(inline="always")
def _cstore(table: np.ndarray, w: np.ndarray, i: int, h: np.uint64, lo: int, hi: int, move: int, work: int) -> None:
    """Store bounds in the compact table (bounds beyond the largest score are no bounds)."""
    v = w[VMAX]
    lo = max(lo, -v)
    hi = min(hi, v)
    cshift = np.uint64(w[CSHIFT])
    check = h >> np.uint64(w[SHIFT])
    packed = (
        (check << cshift)
        | (np.uint64(hi + v) << (_VALUE_SHIFT + np.uint64(w[VBITS])))
        | (np.uint64(lo + v) << _VALUE_SHIFT)
        | (np.uint64(move + 1) << _MOVE_SHIFT)
        | np.uint64(min(work, 31))
    )
    _cplace(table, i, check, cshift, packed)


@njit(cache=True, nogil=True)
def rehash_compact(table: np.ndarray, larger: np.ndarray, bits: int, cshift: int) -> None:
    """Move every entry of a compact table of ``2 ** bits`` buckets into a larger one (empty): an
    entry's mixed key is its check bits above its bucket's number."""
    new_bits = 0
    while (1 << new_bits) < len(larger) // COMPACT_BUCKET_WORDS:
        new_bits += 1
    mask = np.uint64((1 << new_bits) - 1)
    low = (np.uint64(1) << np.uint64(cshift)) - np.uint64(1)
    for j in range(len(table)):
        e = table[j]
        if e != 0:
            h = ((e >> np.uint64(cshift)) << np.uint64(bits)) | np.uint64(j // COMPACT_BUCKET_WORDS)
            check = h >> np.uint64(new_bits)
            i = int(h & mask) * COMPACT_BUCKET_WORDS
            _cplace(larger, i, check, np.uint64(cshift), (check << np.uint64(cshift)) | (e & low))


def build(rules: RuleSet, compact: bool = False, board: np.ndarray | None = None) -> Kernel:
    """The compiled negamax over the positions of ``rules``.

    ``search(board, table, work, a, b, p, height, lo, hi, 0)``: the fail-soft value of the
    position ``(a, b)`` at ply ``p``, with the board's constants ``board``
    (:func:`board_constants`), the table (:func:`table_words`) and the work array (int64: its
    control part, its parameters, the counts by height and the rows of moves, at the indices
    this module names: :data:`STOP` ...), for the window ``(lo, hi)`` (whole numbers), counting
    nodes by ``height`` (the root's is given).  Mode 1 or 2: the exact score, known to lie in
    ``[lo, hi]``, by the null-window searches of :func:`gametree.search.exact.exact_score` (mode
    2: its first probes straight against a draw), the root at height 0, and ``work[ROOT_MOVE]``
    a move proved to score at least it (-1: none).  The position must not be over, and with threat-aware rules its
    side to move must not be able to win at once.  When ``work[STOP]`` is set the search returns
    at once with a meaningless value and stores nothing more.

    One node function for both kinds of rules, as :class:`gametree.search.engine.Engine` has one
    for both move strategies: ``threat_aware`` is a constant of its closure, so numba compiles
    each kind with only its own branches.  Threat-aware (rules with ``win_now`` and
    ``safe_moves``): a position is entered only by a move that leaves the opponent no immediate
    win, so it is never over and its side to move cannot win at once; the node searches the safe
    moves, and settles itself by "is there one?" when the window asks no more.  Plain: every
    legal move, a game-ending move scored by the parent.  Margin rules (with ``score``): plain, every
    end scored by its final margin, scores bounded by the largest margin (``work[MARGIN]``).

    ``compact``: the table is the compact one (8-byte entries; the rules' keys must be one word,
    the second always 0, and the work array must describe the table: :data:`KEY_BITS` ...), else
    the one of two-word keys (32 bytes an entry).  Each is a search of its own, compiled apart.

    ``board``: one board's constants (:func:`board_constants`) to fold into the code, for a search
    of that board alone (:attr:`gametree.game.CompiledRules.specialise`): numba freezes the array,
    so the rules' reads of its fields become constants of the machine code, and the functions'
    ``board`` argument is not read.  Its name (and so its symbols and numba's cache) carries a
    digest of the constants.
    """
    kind = "threats" if rules.threat_aware else "margin" if rules.score is not None else "plain"
    name = f"{rules.moves.__module__}:{kind}{':compact' if compact else ''}"
    if board is not None:
        name += f":board_{board_digest(board)}"
    constants = _constants_of(board)
    node = _negamax(rules, compact, name, constants)

    @numba_support.compiled_as(name)
    def search(
        board: np.ndarray,
        table: Words,
        w: Words,
        a: np.uint64,
        b: np.uint64,
        p: int,
        height: int,
        lo: int,
        hi: int,
        mode: int,
    ) -> int:
        # mode 0: the search of the window (lo, hi).  Else the exact score of a position (root at
        # height 0) whose score lies in [lo, hi], by the null-window searches of
        # gametree.search.exact.exact_score (its strong score, no bound known), the first probes
        # straight against a draw in mode 2; then w[ROOT_MOVE] is a move proved to score at least
        # it (-1: none).  (An int returned: returning a tuple, the search loaded from numba's cache
        # crashed the process.)
        g, found = constants(board[0]), -1
        if mode == 0:
            r = node(g, table, w, a, b, p, height, lo, hi)
            w[NODES] += r >> 16
            return _value(r)
        if 0 < hi - lo <= FULL_WINDOW_RANGE:
            w[ROOT_MOVE], w[ROOT_IMPROVED] = -1, 0
            r = node(g, table, w, a, b, p, height, lo, hi)
            w[NODES] += r >> 16
            v = _value(r)
            w[ROOT_MOVE] = w[ROOT_MOVE] if v > lo and w[ROOT_IMPROVED] != 0 else -1
            return lo if v <= lo else hi if v >= hi else v
        probes = 2 if mode == 2 else 0
        while lo < hi and w[STOP] == 0:
            probes += 1
            med = 0 if probes > 2 and lo <= 0 < hi else -1 if probes > 2 and lo <= -1 < hi else _middle(lo, hi)
            w[ROOT_MOVE], w[ROOT_IMPROVED] = -1, 0
            r = node(g, table, w, a, b, p, height, med, med + 1)
            w[NODES] += r >> 16
            v = _value(r)
            if v > med and w[ROOT_IMPROVED] != 0:
                found = w[ROOT_MOVE]
            if v <= med:
                hi = v
            else:
                lo = v
        w[ROOT_MOVE] = found
        return lo

    win_now = rules.win_now
    if win_now is None:
        return Kernel(search, None, rehash, rehash_compact)

    @numba_support.compiled_as(name)
    def wins(board: np.ndarray, a: np.uint64, b: np.uint64) -> bool:
        return win_now(constants(board[0]), a, b)

    return Kernel(search, wins, rehash, rehash_compact)


def _constants_of(board: np.ndarray | None) -> Callable[..., np.void]:
    """The board's constants as a node reads them, from the record it is given: that record, or for
    a search specialised to ``board`` its frozen copy's (the same record type), whose fields numba
    then folds into the code."""
    if board is None:

        @njit(inline="always")
        def given(g: np.void) -> np.void:
            return g

        return given
    frozen = board.copy()

    @njit(inline="always")
    def fixed(g: np.void) -> np.void:
        constants: np.void = frozen[0]
        return constants

    return fixed


@njit(inline="always")
def _no_finish(g: np.void, a: np.uint64, b: np.uint64, alpha: int, beta: int) -> tuple[bool, int]:
    """For rules without ``finish``."""
    return False, 0


@njit(inline="always")
def _table_always(g: np.void, a: np.uint64, b: np.uint64) -> int:
    """For rules without ``table_use`` (never called: a constant of the closure turns it off)."""
    return 1


class _NodeFunctions(NamedTuple):
    """What the node of :func:`_negamax` calls (see :func:`_functions`)."""

    moves: Callable[..., int]
    play: Callable[..., tuple[np.uint64, np.uint64]]
    ends: Callable[..., int]
    key: Callable[..., tuple[np.uint64, np.uint64]]
    safe_moves: Callable[..., int]
    start: Callable[..., int]
    table_use: Callable[..., int]
    children: Callable[..., int]


def _functions(rules: RuleSet, compact: bool) -> _NodeFunctions:
    """What :func:`_negamax`'s node calls, closed over the rules: ``moves, play, ends, key,
    safe_moves, start, table_use, children``; a function the rules do not give stands in for one
    never called (a constant of the closure turns its branch off).

    ``start(g, a, b, row, alpha, beta, height)``: the moves (``moves``); for margin rules, with none
    (0), the position's value in ``row[0]``: its final margin, or the fail-soft value the rules'
    ``finish`` gave (a finished position is a terminal in the counts; never the root: its move is the
    search's).  ``children(g, table, w, a, b, p, row, n, beta, lo)``: the lower bound ``lo`` raised by
    the children's stored upper bounds (the ``n`` moves of ``row``) until it reaches ``beta`` (the
    enhanced transposition cutoff, where ``table_use`` says 2; never at the root, whose cutoff must
    come with the move that makes it)."""
    moves_of, play, key = rules.moves, rules.play, rules.key
    safe_moves = rules.safe_moves if rules.safe_moves is not None else moves_of  # (plain: never called)
    score = rules.score if rules.score is not None else moves_of  # (not a margin game: never called)
    finish = rules.finish if rules.finish is not None else _no_finish
    scored, finishing = rules.score is not None, rules.finish is not None

    @njit(inline="always")
    def start(g: np.void, a: np.uint64, b: np.uint64, row: Words, alpha: int, beta: int, height: int) -> int:
        if finishing and height > 0:
            done, v = finish(g, a, b, alpha, beta)
            if done:
                row[0] = v
                return 0
        n = moves_of(g, a, b, row)
        if scored and n == 0:
            row[0] = score(g, a, b)
        return n

    @njit(inline="always")
    def children(
        g: np.void, table: Words, w: Words, a: np.uint64, b: np.uint64, p: int, row: Words, n: int, beta: int, lo: int
    ) -> int:
        for x in range(n):
            if lo >= beta:
                break
            a2, b2 = play(g, a, b, row[x])
            c1, c2 = key(g, a2, b2, p + 1, w[SYMMETRIC] != 0)
            c1 = _mix(c1, w[KEY_BITS]) if compact else c1
            lo = max(lo, -(_cprobe(table, w, c1, w[MASK]) if compact else _probe(table, w[MASK], c1, c2, w))[2])
        return lo

    table_use = rules.table_use if rules.table_use is not None else _table_always
    return _NodeFunctions(moves_of, play, rules.ends, key, safe_moves, start, table_use, children)


def _negamax(rules: RuleSet, compact: bool, name: str, constants: Callable[..., np.void]) -> Callable[..., int]:
    """The node function of :func:`build`, closed over the rules' functions, ``compact`` and where
    the board's constants come from (:func:`_constants_of`): one function (split into inlined
    steps that return tuples, it ran slower: docs/performance-log.md)."""
    moves_of, play, ends, key, safe_moves, start, table_use, children = _functions(rules, compact)
    threat_aware, scored, using = rules.threat_aware, rules.score is not None, rules.table_use is not None

    @numba_support.compiled_as(name)
    def node(
        g: np.void, table: Words, w: Words, a: np.uint64, b: np.uint64, p: int, height: int, alpha: int, beta: int
    ) -> int:
        # Fail-soft: a value <= alpha bounds the position's from above, one >= beta from below, one
        # between them is exact.  The window is open (alpha < beta), the position is not over, and
        # with threat-aware rules its side to move cannot win at once.  Returned _packed with its nodes.
        g = constants(g)  # (a specialised search: the frozen constants, folded into the code)
        C, n, row = w[MAX_PLIES], 0, _row(w, p)
        w[HEIGHTS + height] += 1
        if w[STOP] != 0:
            return _packed(0, 0)
        if threat_aware:
            # We cannot win now: at best we win with our next move but one.
            upper = _win_score(C, p + 2)
            if beta > upper:
                beta = upper
                if alpha >= beta:
                    return _packed(beta, 1)
            # With a safe move the opponent cannot win with its next move either.
            lower = -_win_score(C, p + 3) if p < C - 2 else 0
            if lower >= beta:  # only whether we have a safe move matters
                if safe_moves(g, a, b, row, False, p) > 0:
                    return _packed(lower, 1)
                if moves_of(g, a, b, row) == 0:
                    return _packed(int(w[NO_MOVES]) * _win_score(C, p - 1), 1)
                return _packed(-_win_score(C, p + 1), 1)
        else:
            n = start(g, a, b, row, alpha, beta, height)  # (margin rules: with none, the value in row[0])
            if n == 0:
                w[TERMINALS] += 1
                if scored:
                    return _packed(int(row[0]), 1)  # the final margin, or the value the rules' finish gave
                return _packed(int(w[NO_MOVES]) * _win_score(C, p - 1), 1)
            # No score beats winning with this move, nor is worse than losing with it (a margin
            # game: no margin beats the largest).
            upper = int(w[MARGIN]) if scored else _win_score(C, p)
            lower = -upper
            alpha, beta = max(alpha, lower), min(beta, upper)
            if alpha >= beta:
                return _packed(beta if beta == upper else alpha, 1)
        use = min(table_use(g, a, b), 2 if height else 1) if using else 1  # (0: no table; 2: children first)
        k1, k2 = key(g, a, b, p, w[SYMMETRIC] != 0)
        k1 = _mix(k1, w[KEY_BITS]) if compact else k1  # compact: one word, mixed (its bucket, its check bits)
        mask = w[MASK] if use else -1
        i, lo, hi, hash_move = _cprobe(table, w, k1, mask) if compact else _probe(table, mask, k1, k2, w)
        lo = lo if use < 2 else children(g, table, w, a, b, p, row, n, beta, lo)
        if lo >= beta:
            return _packed(lo, 1)
        if hi <= alpha or lo == hi:
            return _packed(hi, 1)
        alpha, beta = max(alpha, lo), min(beta, hi)
        if threat_aware:
            # While alpha is at least ``settle``, every child is settled by whether it has a safe
            # move (its lowest score with one is at least its beta): the order matters little then.
            settle = _win_score(C, p + 4) if p + 1 < C - 2 else 0
            n = safe_moves(g, a, b, row, alpha < settle, p)
            if n == 0:
                if moves_of(g, a, b, row) == 0:
                    w[TERMINALS] += 1
                    return _packed(int(w[NO_MOVES]) * _win_score(C, p - 1), 1)
                return _packed(-_win_score(C, p + 1), 1)  # whatever we play, the opponent wins next move
            if alpha < lower:
                alpha = lower
                if alpha >= beta:
                    return _packed(alpha, 1)
        _first(row, n, hash_move)
        alpha0, best, best_move, count = alpha, -SCORE_LIMIT - 1, -1, 1
        for x in range(n):
            m = row[x]
            end = 0 if threat_aware or scored else ends(g, a, b, m)
            if end != 0:  # the game ends with this move: a node, scored here
                count += 1
                w[TERMINALS] += 1
                w[HEIGHTS + height + 1] += 1
                value = end * upper
            else:
                a2, b2 = play(g, a, b, m)
                r = node(g, table, w, a2, b2, p + 1, height + 1, -beta, -alpha)
                if w[STOP] != 0:
                    return _packed(0, 0)
                value = -_value(r)
                count += r >> 16
            if value > best:
                best, best_move = value, m
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        if x < n - 1:
                            w[CUTOFFS] += 1
                        break
        _record(table, w, i, k1, k2, best, best_move, alpha0, beta, height, count - 1, compact)
        return _packed(best, count)

    return node
