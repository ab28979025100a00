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
Closed over, they would make numba compile the search again for each board (14
to 20 s for a Connect Four board), for a search at most 9% faster
(docs/performance-log.md).  What else one search works with goes in one
:class:`Workspace`.

This module imports numba; :mod:`gametree.search.compiled` imports it only when
a compiled engine is built.  Compiled code is cached on disk (numba's cache, in
the folder :func:`gametree.search.compiled.cache_folder` names), keyed by this
file and by the rules' code, so a second process loads it instead of compiling
(:mod:`gametree.search.numba_support` gives the closures fixed identities for that).

The table is a fixed array of buckets of one cache line, two entries each: 64-bit
keys ``k1, k2`` and one word packing the lower and upper bound, the best move and
the work (log2 of the nodes the search under it took).  A bucket's first entry
keeps the costlier search, the second takes whatever comes (Breuker's two-level
replacement); a lookup checks both.
"""

from __future__ import annotations

import mmap
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ..game import BoardConstants, RuleSet
from . import numba_support
from .compile_state import cache_folder

# numba's cache goes to gametree's folder before numba is first imported here: this module's own
# compiled functions (rehash, the probe) would otherwise be cached in the package's __pycache__,
# which every process shares, where two processes adding different signatures at once can number
# their files alike (a pytest run imports this module for its doctests, in every worker).
numba_support.use_cache_folder(cache_folder())

from numba import njit  # noqa: E402  (after the cache folder is set)

__all__ = [
    "ARRAY_WORDS",
    "BUCKET_WORDS",
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
    "WorkTuple",
    "Workspace",
    "board_constants",
    "build",
    "rehash",
    "table_words",
]

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
    table: np.ndarray,
    i: int,
    k1: np.uint64,
    k2: np.uint64,
    best: int,
    best_move: int,
    alpha: int,
    beta: int,
    height: int,
    before: int,
    control: np.ndarray,
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


class Workspace(NamedTuple):
    """What one compiled search works with besides its position and window: the game's length
    (``C``, in plies) and the score of a position without moves, a margin game's largest margin
    (0 for a win/draw/loss game), whether keys are made symmetric,
    the table (``mask + 1`` buckets; ``mask`` -1: no table), the control array, the node counts
    by height, and the rows of moves (``max_plies + 2`` rows of ``max_moves`` slots, one a ply)."""

    max_plies: int
    no_moves: int
    margin: int
    symmetric: bool
    mask: int
    table: np.ndarray
    control: np.ndarray
    per_height: np.ndarray
    moves: np.ndarray


#: A :class:`Workspace` as a plain tuple, as :class:`Kernel` ``search`` takes it.
WorkTuple = tuple[int, int, int, bool, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]

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


class Kernel(NamedTuple):
    """The compiled search of one rule set, as Python calls it: ``search(board, work, a, b, p,
    height, alpha, beta)`` (see :func:`build`) and, for threat-aware rules, ``win_now(board, a, b)``.

    Both take the board's constants as :func:`board_constants` makes them (an array of one
    record) and ``search`` its :class:`Workspace` as a plain tuple in that order: numba types
    those at each call from Python several times faster than a record or a NamedTuple
    (docs/performance-log.md); they pass the record and the Workspace on to the rules and the
    nodes."""

    search: Callable[..., int]
    win_now: Callable[..., bool] | None


def build(rules: RuleSet) -> Kernel:
    """The compiled negamax over the positions of ``rules``.

    ``search(board, work, a, b, p, height, alpha, beta)``: the fail-soft value of the position
    ``(a, b)`` at ply ``p``, with the board's constants ``board`` (:func:`board_constants`) and
    the :class:`Workspace` ``work``, for the window ``(alpha, beta)`` (whole numbers), counting
    nodes by ``height`` (the root's is given).  The position must not be over, and with
    threat-aware rules its side to move must not be able to win at once.  When
    ``control[STOP]`` is set the search returns at once with a meaningless value and stores
    nothing more.

    One node function for both kinds of rules, as :class:`gametree.search.engine.Engine` has one
    for both move strategies: ``threat_aware`` is a constant of its closure, so numba compiles
    each kind with only its own branches.  Threat-aware (rules with ``win_now`` and
    ``safe_moves``): a position is entered only by a move that leaves the opponent no immediate
    win, so it is never over and its side to move cannot win at once; the node searches the safe
    moves, and settles itself by "is there one?" when the window asks no more.  Plain: every
    legal move, a game-ending move scored by the parent.  Margin rules (with ``score``): plain, every
    end scored by its final margin, scores bounded by the largest margin (the Workspace's ``margin``).
    """
    kind = "threats" if rules.threat_aware else "margin" if rules.score is not None else "plain"
    name = f"{rules.moves.__module__}:{kind}"
    functions = (rules.moves, rules.play, rules.ends, rules.key, rules.win_now, rules.safe_moves, rules.score)
    for function in (*functions, _probe):
        numba_support.stabilise(function)  # (_probe: this module's own functions)
    node = _negamax(rules)
    numba_support.stable_id(node, f"kernel:{name}:node")

    @njit(cache=True, nogil=True)
    def search(
        board: np.ndarray, work: WorkTuple, a: np.uint64, b: np.uint64, p: int, height: int, alpha: int, beta: int
    ) -> int:
        return node(board[0], Workspace(*work), a, b, p, height, alpha, beta)

    numba_support.stable_id(search, f"kernel:{name}")
    win_now = rules.win_now
    if win_now is None:
        return Kernel(search, None)

    @njit(cache=True, nogil=True)
    def wins(board: np.ndarray, a: np.uint64, b: np.uint64) -> bool:
        return win_now(board[0], a, b)

    numba_support.stable_id(wins, f"kernel:{name}:win_now")
    return Kernel(search, wins)


def _negamax(rules: RuleSet) -> Callable[..., int]:
    """The node function of :func:`build`, closed over the rules' functions: one function (split
    into inlined steps that return tuples, it ran slower: docs/performance-log.md)."""
    moves_of, play, ends, key = rules.moves, rules.play, rules.ends, rules.key
    threat_aware = rules.threat_aware
    safe_moves = rules.safe_moves if rules.safe_moves is not None else moves_of  # (plain: never called)
    scored = rules.score is not None
    score = rules.score if rules.score is not None else moves_of  # (not a margin game: never called)

    @njit(cache=True, nogil=True)
    def node(g: np.void, s: Workspace, a: np.uint64, b: np.uint64, p: int, height: int, alpha: int, beta: int) -> int:
        # Fail-soft: a value <= alpha bounds the position's from above, one >= beta from below, one
        # between them is exact.  The window is open (alpha < beta), the position is not over, and
        # with threat-aware rules its side to move cannot win at once.
        control, C, row, n = s.control, s.max_plies, s.moves[p], 0
        control[NODES] += 1
        s.per_height[height] += 1
        if control[STOP] != 0:
            return 0
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
                    return s.no_moves * _win_score(C, p - 1)
                return -_win_score(C, p + 1)
        else:
            n = moves_of(g, a, b, row)
            if n == 0:
                control[TERMINALS] += 1
                if scored:
                    return score(g, a, b)  # the final margin
                return s.no_moves * _win_score(C, p - 1)
            # No score beats winning with this move, nor is worse than losing with it (a margin
            # game: no margin beats the largest).
            upper = s.margin if scored else _win_score(C, p)
            lower = -upper
            alpha, beta = max(alpha, lower), min(beta, upper)
            if alpha >= beta:
                return beta if beta == upper else alpha
        k1, k2 = key(g, a, b, p, s.symmetric)
        i, lo, hi, hash_move = _probe(s.table, s.mask, k1, k2, control)
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
                    return s.no_moves * _win_score(C, p - 1)
                return -_win_score(C, p + 1)  # whatever we play, the opponent wins next move
            if alpha < lower:
                alpha = lower
                if alpha >= beta:
                    return alpha
        _first(row, n, hash_move)
        alpha0, best, best_move, before = alpha, -SCORE_LIMIT - 1, -1, control[NODES]
        for x in range(n):
            m = row[x]
            end = 0 if threat_aware or scored else ends(g, a, b, m)
            if end != 0:  # the game ends with this move: a node, scored here
                control[NODES] += 1
                control[TERMINALS] += 1
                s.per_height[height + 1] += 1
                value = end * upper
            else:
                a2, b2 = play(g, a, b, m)
                value = -node(g, s, a2, b2, p + 1, height + 1, -beta, -alpha)
                if control[STOP] != 0:
                    return 0
            if value > best:
                best, best_move = value, m
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        if x < n - 1:
                            control[CUTOFFS] += 1
                        break
        _record(s.table, i, k1, k2, best, best_move, alpha0, beta, height, before, control)
        return best

    return node
