"""A tier split over workers: each worker does one shard (a range of indices) of one tier, in files.

The arrays never pass through the client: a shard job names the files (``.npy``, memory-mapped
by the worker) and a range of indices, and its answer is a count.  The client prepares the output
file (zeros for reach marks; a copy of the tier's marks for values), hands the shards to a
:class:`gametree.runtime.runners.Runner` (worker processes, or Dask workers that share the
folder), then has the store adopt the finished file (its checksum, its name, the header).

- forward (``solve`` False): the positions of ``src`` in the range mark their children in ``dst``
  (the next tier's file, shared by all the shards: several workers may mark the same child, always
  with the same mark);
- backward (``solve`` True): the positions marked in ``marks`` (the tier's reach marks, only read)
  in the range get their values in ``dst`` (a file of zeros at first) from ``src``, the next
  tier's solved file; shards do not overlap.

A shard reads only files no shard writes and writes only bytes that its input decides, so a shard
done twice (its worker lost half-way and the shard given to another, as Dask does by itself)
writes the same bytes, whatever the first attempt left.

Test hook: ``GAMETREE_TIERS_SHARD_KILL=FOLDER`` makes a worker that starts a shard of the forward
(backward) pass, of more than one index, take one file named ``reach-*`` (``solve-*``) out of
FOLDER, if one is left, do the first half of its range and kill itself (SIGKILL): a worker lost mid-way, once per file
(``tests/test_tier_files.py``).

:func:`work_shard` is the runner's work function (importable by name, as runners need).
"""

from __future__ import annotations

import functools
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..game import CompiledRules, CompiledTiers, RuleSet, TierFunctions
from . import tier_kernel

if TYPE_CHECKING:
    from ..runtime.stops import Halter
    from .tier_kernel import TierKernel

__all__ = ["KILL_SHARD_VARIABLE", "ShardJob", "work_shard"]

#: The test hook (see the module).
KILL_SHARD_VARIABLE = "GAMETREE_TIERS_SHARD_KILL"


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
    #: The tier's reach marks (backward shards).
    marks: Path | None = None


@functools.cache
def _kernel(rules: RuleSet, tiers: TierFunctions) -> TierKernel:
    return tier_kernel.build(rules, tiers)


def _board(job: ShardJob) -> tuple[np.ndarray, np.ndarray]:
    from .kernel import board_constants

    return board_constants(job.rules.board), board_constants(job.tiers.board)


def _half_if_killed(job: ShardJob) -> int:
    """Where this shard stops: its end, or half-way if the test hook (see the module) asks its
    worker to die there."""
    folder = os.environ.get(KILL_SHARD_VARIABLE)
    if folder and job.hi - job.lo > 1 and os.path.isdir(folder) and _take(folder, "solve-" if job.solve else "reach-"):
        return (job.lo + job.hi) // 2
    return job.hi


def _take(folder: str, prefix: str) -> bool:
    for name in sorted(n for n in os.listdir(folder) if n.startswith(prefix)):
        try:
            os.unlink(os.path.join(folder, name))  # (one worker wins each file)
        except FileNotFoundError:
            continue
        return True
    return False


def work_shard(job: ShardJob, halter: Halter | None = None) -> int:
    """Do one shard: the positions expanded (forward), or the children found unsolved (backward: 0)."""
    kernel = _kernel(job.rules.functions(), job.tiers.functions())
    board, tboard = _board(job)
    out = np.zeros(max(64, job.rules.max_moves), dtype=np.int64)
    src = np.asarray(np.load(job.src, mmap_mode="r"))
    mapped = np.load(job.dst, mmap_mode="r+")
    dst = np.asarray(mapped)
    hi = _half_if_killed(job)
    try:
        if job.solve:
            if job.marks is None:
                raise ValueError("a backward shard needs its tier's marks")
            marks = np.asarray(np.load(job.marks, mmap_mode="r"))
            answer = kernel.solve(
                board, tboard, job.tier, job.lo, hi, marks, dst, src, out, job.shift, job.rules.no_moves
            )
        else:
            answer = kernel.reach(board, tboard, job.tier, job.lo, hi, src, dst, out)
        if hi != job.hi:
            mapped.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        return int(answer)
    finally:
        mapped.flush()
        del dst, mapped
