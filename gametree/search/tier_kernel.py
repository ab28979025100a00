"""The tier solver's compiled loops (numba), built over one game's rules and tier functions.

:func:`build` closes two loops over a :class:`gametree.game.RuleSet` and a
:class:`gametree.game.TierFunctions`, as :mod:`gametree.search.kernel` closes its negamax over
the rules; both run over a range of indices of one tier, so that the caller can report progress,
stop between ranges, or hand ranges to workers.

- ``reach(g, t, tier, lo, hi, src, dst, out)``: the forward pass.  Every position of ``tier``
  marked :data:`OPEN` in ``src`` (reachable and not over) marks its children in ``dst`` (the next
  tier): :data:`OPEN`, or :data:`ENDED_WON` / :data:`ENDED_LOST` where the move ended the game with
  a win (a loss) for the side that played it.
- ``solve(g, t, tier, lo, hi, marks, cur, nxt, out, shift, no_moves)``: the backward pass.  Every
  position marked in ``marks`` gets its value in ``cur`` from its children in ``nxt`` (solved
  already) and the moves that end the game; returns how many children were found unsolved (0
  unless something is wrong).  ``marks`` and ``cur`` may be one array (in memory, solved in place);
  a worker's shard reads the tier's marks file and writes another, so that a shard done again
  (its worker lost half-way) reads the same input and writes the same bytes.

A value is ``outcome << shift | remoteness``: the outcome for the side to move (:data:`LOSS`,
:data:`DRAW`, :data:`WIN`) and the moves left under perfect play: the fastest win, the slowest
loss, the fastest draw.  ``shift`` is 6 for one byte a position (remoteness up to 63), 14 for two.
Marks are below ``1 << shift``, values at or above it, 0 an index no reachable position has.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NamedTuple

import numpy as np

from ..game import RuleSet, TierFunctions
from . import numba_support
from .compile_state import cache_folder

__all__ = ["DRAW", "ENDED_LOST", "ENDED_WON", "LOSS", "OPEN", "TierKernel", "WIN", "build"]

#: Reach marks (forward pass).
OPEN: Final = 1
ENDED_WON: Final = 2
ENDED_LOST: Final = 3
#: Outcomes for the side to move (the top bits of a value).
LOSS: Final = 1
DRAW: Final = 2
WIN: Final = 3

_NONE: Final = 1 << 30


class TierKernel(NamedTuple):
    """The two compiled loops (see the module docstring)."""

    reach: Callable[..., int]
    solve: Callable[..., int]


def build(rules: RuleSet, tiers: TierFunctions) -> TierKernel:
    """The compiled forward and backward passes over ``rules`` and ``tiers``."""
    numba_support.use_cache_folder(cache_folder())

    moves, play, ends, rank, unrank = rules.moves, rules.play, rules.ends, tiers.rank, tiers.unrank
    name = f"{rules.moves.__module__}:{tiers.rank.__module__}"

    @numba_support.compiled_as(f"tiers_{name}")
    def reach(
        board: np.ndarray, tboard: np.ndarray, tier: int, lo: int, hi: int, src: np.ndarray, dst: np.ndarray,
        out: np.ndarray,
    ) -> int:  # fmt: skip
        g = board[0]
        t = tboard[0]
        expanded = 0
        for i in range(lo, hi):
            if src[i] != OPEN:
                continue
            expanded += 1
            a, b = unrank(t, tier, i)
            n = moves(g, a, b, out)
            for j in range(n):
                m = out[j]
                e = ends(g, a, b, m)
                ca, cb = play(g, a, b, m)
                r = rank(t, tier + 1, ca, cb)
                dst[r] = OPEN if e == 0 else (ENDED_WON if e > 0 else ENDED_LOST)
        return expanded

    @numba_support.compiled_as(f"tiers_{name}")
    def solve(
        board: np.ndarray, tboard: np.ndarray, tier: int, lo: int, hi: int, marks: np.ndarray, cur: np.ndarray,
        nxt: np.ndarray, out: np.ndarray, shift: int, no_moves: int,
    ) -> int:  # fmt: skip
        g = board[0]
        t = tboard[0]
        low = (1 << shift) - 1
        missing = 0
        for i in range(lo, hi):
            mark = marks[i]
            if mark == 0:
                continue
            if mark == ENDED_WON:
                cur[i] = LOSS << shift
                continue
            if mark == ENDED_LOST:
                cur[i] = WIN << shift
                continue
            a, b = unrank(t, tier, i)
            n = moves(g, a, b, out)
            if n == 0:
                cur[i] = (no_moves + 2) << shift
                continue
            win = _NONE
            draw = _NONE
            loss = -1
            for j in range(n):
                m = out[j]
                e = ends(g, a, b, m)
                if e > 0:
                    win = 1
                    break
                if e < 0:
                    loss = max(loss, 1)
                    continue
                ca, cb = play(g, a, b, m)
                code = int(nxt[rank(t, tier + 1, ca, cb)])
                outcome = code >> shift
                moves_left = (code & low) + 1
                if outcome == LOSS:
                    win = min(win, moves_left)
                elif outcome == DRAW:
                    draw = min(draw, moves_left)
                elif outcome == WIN:
                    loss = max(loss, moves_left)
                else:
                    missing += 1
            if win != _NONE:
                cur[i] = (WIN << shift) | win
            elif draw != _NONE:
                cur[i] = (DRAW << shift) | draw
            else:
                cur[i] = (LOSS << shift) | max(loss, 0)
        return missing

    return TierKernel(reach, solve)
