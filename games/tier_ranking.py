"""Perfect hashes of board positions by tier (the number of stones), in plain Python.

The games' compiled tier functions (:mod:`connect4_tiers`, :mod:`tictactoe_tiers`) compute the
same indices in numba, from the tables made here (passed to them among the tiers' constants).

Two building blocks:

- **a subset of cells** ``p_1 < p_2 < ... < p_k`` of ``0 .. n - 1`` is ranked in the combinatorial
  number system (colexicographic order): ``C(p_1, 1) + C(p_2, 2) + ... + C(p_k, k)``, from 0 to
  ``C(n, k) - 1``;
- **column heights** ``h_0 .. h_{w-1}`` (each at most ``height``) of a given sum ``s`` are ranked
  in lexicographic order, with ``ways[c][s]``: the ways columns ``c ..`` can hold ``s`` stones.

The side to move at ply ``n`` has placed ``n // 2`` stones (the first player ``(n + 1) // 2``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

__all__ = [
    "BINOMIAL_SIDE",
    "binomial",
    "binomial_table",
    "column_ways",
    "heights_rank",
    "heights_unrank",
    "subset_rank",
    "subset_unrank",
]

#: The binomial table covers ``C(n, k)`` for ``n, k < BINOMIAL_SIDE`` (boards of at most 64 cells).
BINOMIAL_SIDE = 65


@cache
def binomial_table() -> tuple[int, ...]:
    """``C(n, k)`` at ``n * BINOMIAL_SIDE + k``, for ``n, k < BINOMIAL_SIDE`` (0 for ``k > n``)."""
    rows = [[0] * BINOMIAL_SIDE for _ in range(BINOMIAL_SIDE)]
    for n in range(BINOMIAL_SIDE):
        rows[n][0] = 1
        for k in range(1, n + 1):
            rows[n][k] = rows[n - 1][k - 1] + rows[n - 1][k]
    return tuple(v for row in rows for v in row)


def binomial(n: int, k: int) -> int:
    """``C(n, k)`` from the table (0 outside ``0 <= k <= n``)."""
    if k < 0 or k > n:
        return 0
    return binomial_table()[n * BINOMIAL_SIDE + k]


def subset_rank(chosen: Iterable[int]) -> int:
    """The colexicographic rank of the increasing positions ``chosen``."""
    return sum(binomial(p, i) for i, p in enumerate(chosen, start=1))


def subset_unrank(rank: int, n: int, k: int) -> list[int]:
    """The ``k`` increasing positions of ``0 .. n - 1`` of colexicographic rank ``rank``."""
    chosen: list[int] = []
    for p in range(n - 1, -1, -1):
        if k > 0 and binomial(p, k) <= rank:
            rank -= binomial(p, k)
            chosen.append(p)
            k -= 1
    return chosen[::-1]


def column_ways(width: int, height: int) -> tuple[int, ...]:
    """``ways[c][s]`` at ``c * (width * height + 1) + s``: the ways columns ``c .. width - 1`` hold
    ``s`` stones in all, each at most ``height`` (``c`` from 0 to ``width``)."""
    cells = width * height
    ways = [[0] * (cells + 1) for _ in range(width + 1)]
    ways[width][0] = 1
    for c in range(width - 1, -1, -1):
        for s in range(cells + 1):
            ways[c][s] = sum(ways[c + 1][s - v] for v in range(min(height, s) + 1))
    return tuple(v for row in ways for v in row)


def heights_rank(heights: Iterable[int], ways: tuple[int, ...], cells: int) -> int:
    """The lexicographic rank of the column heights ``heights`` among those of the same sum."""
    hs = list(heights)
    s = sum(hs)
    rank = 0
    for c, h in enumerate(hs):
        rank += sum(ways[(c + 1) * (cells + 1) + s - v] for v in range(h))
        s -= h
    return rank


def heights_unrank(rank: int, total: int, width: int, ways: tuple[int, ...], cells: int) -> list[int]:
    """The column heights of sum ``total`` of lexicographic rank ``rank``."""
    heights = []
    s = total
    for c in range(width):
        v = 0
        while ways[(c + 1) * (cells + 1) + s - v] <= rank:
            rank -= ways[(c + 1) * (cells + 1) + s - v]
            v += 1
        heights.append(v)
        s -= v
    return heights
