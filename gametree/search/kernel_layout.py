"""The compiled engine's shared layout, without numba: the work array's indices, the tables' shapes,
the board's constants as a record, and what a built kernel offers (:class:`Kernel`).

:mod:`gametree.search.kernel` (numba's search) and :mod:`gametree.search.native` (the same search
loaded as machine code without numba) both follow it, and :mod:`gametree.search.compiled` drives
either through it; this module imports numpy only, so a process that loads the native code never
imports numba (docs/compiled-kernel.md, "Native code without numba").
"""

from __future__ import annotations

import hashlib
import mmap
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ..game import BoardConstants

__all__ = [
    "ARRAY_WORDS",
    "BUCKET_WORDS",
    "COMPACT_BUCKET_WORDS",
    "COMPACT_FIELD_BITS",
    "CONTROL_SIZE",
    "CSHIFT",
    "CUTOFFS",
    "FULL_WINDOW_RANGE",
    "HEIGHTS",
    "HITS",
    "KEY_BITS",
    "Kernel",
    "MARGIN",
    "MASK",
    "MAX_PLIES",
    "MOVES_AT",
    "NODES",
    "NO_MOVES",
    "PROBES",
    "ROOT_IMPROVED",
    "ROOT_MOVE",
    "ROW",
    "SCORE_LIMIT",
    "SHIFT",
    "STOP",
    "STORES",
    "SYMMETRIC",
    "TERMINALS",
    "VBITS",
    "VMAX",
    "board_constants",
    "board_digest",
    "table_words",
]

#: The work array shared by Python and a running search (int64), one array so that a node passes
#: few arguments to its children (numba passes an array as seven words).  Its control part: a
#: request to stop (set from outside, looked at every node), the counts, and what the root found.
#: NODES is written once a search, when it ends (a node returns the nodes of its search with its
#: value); the nodes by height (from HEIGHTS) as the search goes.
STOP, NODES, PROBES, HITS, STORES, CUTOFFS, TERMINALS, ROOT_MOVE, ROOT_IMPROVED = range(9)
CONTROL_SIZE = 9
#: Its parameters (set by Python before a search): the game's length in plies, the score of a
#: position without moves (0, -1 or 1), a margin game's largest margin (0: not one), whether
#: keys are made symmetric (1) or not (0), the table's bucket mask (-1: no table), where the
#: rows of moves start and their length; for the compact table the key's bits (at most 64), the
#: table's bucket bits, where an entry's check bits start, the bits of a bound, the largest score.
MAX_PLIES, NO_MOVES, MARGIN, SYMMETRIC, MASK, MOVES_AT, ROW = range(9, 16)
KEY_BITS, SHIFT, CSHIFT, VBITS, VMAX = range(16, 21)
#: Then the nodes counted by height (from HEIGHTS up), and the rows of moves (one a ply, from
#: ``MOVES_AT``, ``ROW`` slots each).
HEIGHTS = 32

#: A bucket of the table: two entries of three words (two key words, one of data) in one cache
#: line of 64 bytes (the last two words unused), so that a probe costs one miss.
BUCKET_WORDS = 8

#: Windows and stored bounds are whole numbers within +-SCORE_LIMIT (16 bits a bound in the table).
SCORE_LIMIT = 30000

#: A bucket of the compact table: two entries of one word each (16 bytes, four buckets a cache line).
COMPACT_BUCKET_WORDS = 2

#: An entry of the compact table, from its lowest bit: the work (5 bits: log2 of the nodes under it,
#: at most 31), the best move + 1 (7 bits; 0: none), the lower and the upper bound (``vbits`` each,
#: offset by the largest score ``vmax``), and the key's check bits (the rest, from ``cshift`` up).
COMPACT_FIELD_BITS = 12

#: The kernel's narrowing searches the whole range at once when it is this narrow at most (as
#: :data:`gametree.search.exact.FULL_WINDOW_RANGE`).
FULL_WINDOW_RANGE = 16


def table_words(buckets: int, words: int = BUCKET_WORDS, *, populate: bool = False) -> np.ndarray:
    """An empty table of ``buckets`` buckets (a power of two) of ``words`` words each
    (:data:`BUCKET_WORDS`, or :data:`COMPACT_BUCKET_WORDS` for the compact table).

    In anonymous memory of the system's (zeroed) small pages, mapped as the search first
    touches them: numpy would ask for huge pages, whose compaction on Linux cost 0.6 s for a
    search of 7,000 nodes in a 200 MB table (docs/performance-log.md).  ``populate``: every page
    mapped now, in one call (Linux's ``MAP_POPULATE``), for a table the work ahead will fill
    (a batch's): 14 ms for 32 MB here against 25 ms page by page; elsewhere as without.
    """
    size = 8 * words * buckets
    flags = getattr(mmap, "MAP_POPULATE", 0) if populate else 0
    if flags:
        memory = mmap.mmap(-1, size, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS | flags)
    else:
        memory = mmap.mmap(-1, size)
    return np.frombuffer(memory, dtype=np.uint64)


#: A tuple among a board's constants becomes an array of a multiple of this many words.
ARRAY_WORDS = 64


def _padded(n: int) -> int:
    """The words of the array that holds a tuple of ``n`` constants."""
    return -(-max(1, n) // ARRAY_WORDS) * ARRAY_WORDS


def board_constants(board: BoardConstants) -> np.ndarray:
    """A board's constants as the compiled rules get them: a numpy record (in an array of one)
    with the NamedTuple's fields by name, each int a ``uint64`` and each tuple of ints a
    ``uint64`` array of a multiple of :data:`ARRAY_WORDS` words (padded with zeros).

    numba passes a record by reference, and compiles one search for every board whose record
    has the same fields (all of a game's, up to 64 entries a tuple).  A NamedTuple would pass
    by value, and its class would go into numba's cache index, which every game's search
    shares: a game that is no longer installed would break the others' cache.
    """
    names: tuple[str, ...] | None = getattr(board, "_fields", None)
    if names is None:
        raise TypeError("a board's constants must be a NamedTuple: the compiled rules read them by name")
    layout: list[tuple[str, type] | tuple[str, type, tuple[int]]] = [
        (name, np.uint64) if isinstance(value, int) else (name, np.uint64, (_padded(len(value)),))
        for name, value in zip(names, board)
    ]
    record = np.zeros(1, dtype=np.dtype(layout, align=True))
    for name, value in zip(names, board):
        if isinstance(value, int):
            record[name] = value
        else:
            record[name][0, : len(value)] = value
    return record


def board_digest(board: np.ndarray) -> str:
    """A short digest of a board's constants (:func:`board_constants`: their layout and values),
    which names a search specialised to them."""
    return hashlib.sha256(repr(board.dtype.descr).encode() + board.tobytes()).hexdigest()[:12]


class Kernel(NamedTuple):
    """The compiled search of one rule set, as Python calls it (numba's functions, or
    :mod:`gametree.search.native`'s calls of the same machine code): ``search(board, table, work, a, b,
    p, height, lo, hi, mode)`` (see :func:`build`) and, for threat-aware rules, ``win_now(board, a, b)``.

    Both take the board's constants as :func:`board_constants` makes them (an array of one
    record): numba types an array at each call from Python several times faster than a record
    (docs/performance-log.md); they pass the record on to the rules and the nodes."""

    search: Callable[..., int]
    win_now: Callable[..., bool] | None
    #: ``rehash(table, larger)``: every entry of a table of two-word keys moved into a larger one (empty).
    rehash: Callable[..., None]
    #: ``rehash_compact(table, larger, bits, cshift)``: the same for the compact table.
    rehash_compact: Callable[..., None]
