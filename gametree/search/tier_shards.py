"""A tier split over workers: each worker does one shard (a range of indices) of one tier, in files.

The arrays never pass through the client: a shard job names the files (``.npy``, memory-mapped
by the worker) and a range of indices, and its answer is a count.  The client prepares the output
file (zeros for reach marks; a copy of the tier's marks for values), hands the shards to a
:class:`gametree.runtime.runners.Runner` (worker processes, or Dask workers that share the
folder), then has the store adopt the finished file (its checksum, its name, the header).

- forward (``solve`` False): the positions of ``src`` in the range mark their children in ``dst``
  (the next tier's file, shared by all the shards: several workers may mark the same child, always
  with the same mark);
- backward (``solve`` True): the positions of ``dst`` in the range (reach marks, overwritten with
  their values) are solved from ``src``, the next tier's solved file; shards do not overlap.

:func:`work_shard` is the runner's work function (importable by name, as runners need).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..game import CompiledRules, CompiledTiers, RuleSet, TierFunctions
from . import tier_kernel

if TYPE_CHECKING:
    from ..runtime.stops import Halter
    from .tier_kernel import TierKernel

__all__ = ["ShardJob", "work_shard"]


@dataclass(frozen=True, slots=True)
class ShardJob:
    """One shard of one tier's pass (see the module)."""

    rules: CompiledRules
    tiers: CompiledTiers
    tier: int
    lo: int
    hi: int
    src: Path
    dst: Path
    solve: bool
    shift: int


@functools.cache
def _kernel(rules: RuleSet, tiers: TierFunctions) -> TierKernel:
    return tier_kernel.build(rules, tiers)


def _board(job: ShardJob) -> tuple[np.ndarray, np.ndarray]:
    from .kernel import board_constants

    return board_constants(job.rules.board), board_constants(job.tiers.board)


def work_shard(job: ShardJob, halter: Halter | None = None) -> int:
    """Do one shard: the positions expanded (forward), or the children found unsolved (backward: 0)."""
    kernel = _kernel(job.rules.functions(), job.tiers.functions())
    board, tboard = _board(job)
    out = np.zeros(max(64, job.rules.max_moves), dtype=np.int64)
    src = np.asarray(np.load(job.src, mmap_mode="r"))
    mapped = np.load(job.dst, mmap_mode="r+")
    dst = np.asarray(mapped)
    try:
        if job.solve:
            return int(
                kernel.solve(board, tboard, job.tier, job.lo, job.hi, dst, src, out, job.shift, job.rules.no_moves)
            )
        return int(kernel.reach(board, tboard, job.tier, job.lo, job.hi, src, dst, out))
    finally:
        mapped.flush()
        del dst, mapped
