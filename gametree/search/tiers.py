"""The tier solver: every reachable position of a tiered game, its value and remoteness, in flat arrays.

A :class:`gametree.game.Tiered` game with compiled rules and compiled tier functions (Connect
Four, m,n,k tic-tac-toe) is solved in two compiled passes (:mod:`gametree.search.tier_kernel`):

1. **forward**, tier 0 to the last: which indices of each tier are reachable from the start
   (marks in a byte array per tier), so that per-ply counts are counts of reachable positions;
2. **backward**, the last tier to the first: each reachable position's value, one byte (or two)
   a position: the outcome for the side to move and its remoteness (the fastest win, the slowest
   loss, the fastest draw), looked up from its children's in the next tier by their index.

Where the arrays go is the caller's :class:`TierStore`: :class:`MemoryTiers` keeps them in
memory, :class:`gametree.store.tiers.TierDirectory` writes each finished tier to disk, so that a
stopped build resumes at the tier where it stopped.  Work goes in ranges of :data:`CHUNK` indices:
between two, ``progress`` is told and ``should_stop`` asked (Ctrl-C stops at once too).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import numpy as np

from ..game import CompiledRules, CompiledTiers, Game, RuleSet, TierFunctions, UnsupportedGameError, game_name
from ..game import capabilities as capabilities_of
from ..runtime.errors import WorkerLost
from . import tier_kernel
from .tier_kernel import DRAW, LOSS, OPEN, WIN

if TYPE_CHECKING:
    import distributed

    from ..runtime.runners import Runner
    from .tier_kernel import TierKernel

__all__ = [
    "CHUNK",
    "MemoryTiers",
    "FileKind",
    "TierCounts",
    "TierProgress",
    "TierSolution",
    "TierFiles",
    "TierStore",
    "TiersStopped",
    "TierValue",
    "count_tier",
    "decode",
    "solve_tiers",
    "tier_rules",
    "value_bytes",
]

#: Indices handed to the compiled passes at once (between two, progress and stops).
CHUNK = 1 << 18
#: Indices of one worker's shard (a tier split over workers).
SHARD = 1 << 21
#: Indices counted at once (:func:`count_tier`).
COUNT_SLICE = 1 << 22


class TiersStopped(Exception):
    """A build stopped on request; the tiers finished before are kept by the store."""

    def __init__(self, finished: tuple[int, ...]) -> None:
        super().__init__(f"stopped; {len(finished)} tiers were finished and kept")
        self.finished = finished


@dataclass(frozen=True, slots=True)
class TierCounts:
    """One tier's reachable positions, by outcome for the side to move."""

    tier: int
    size: int
    positions: int
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True, slots=True)
class TierSolution:
    """A finished tier build: each tier's counts, the value bytes a position, the wall time."""

    game: str
    counts: tuple[TierCounts, ...]
    value_bytes: int
    seconds: float

    @property
    def positions(self) -> int:
        return sum(c.positions for c in self.counts)


@dataclass(frozen=True, slots=True)
class TierValue:
    """A position's value from the arrays: ``outcome`` ``"win"``, ``"draw"`` or ``"loss"`` for the
    side to move, ``remoteness`` the moves to the end under perfect play."""

    outcome: str
    remoteness: int


#: ``progress(stage, done, total)``: ``stage`` says the pass and tier; ``done`` of ``total`` indices (both passes).
TierProgress = Callable[[str, int, int], None]


#: Which of a tier's arrays: its reach marks or its values.
FileKind = Literal["reach", "tier"]


class TierStore(Protocol):
    """Where a tier build keeps its arrays (in memory, or a directory on disk)."""

    def holds(self, kind: FileKind, tier: int) -> bool:
        """Whether ``tier``'s reach marks (``"reach"``) or values (``"tier"``) are kept (asked without reading them)."""
        ...

    def reach(self, tier: int) -> np.ndarray | None:
        """The reach marks of ``tier`` kept before, or None."""
        ...

    def keep_reach(self, tier: int, marks: np.ndarray) -> None:
        """Keep the finished reach marks of ``tier``."""
        ...

    def solved(self, tier: int) -> np.ndarray | None:
        """The finished values of ``tier`` kept before, or None."""
        ...

    def keep_solved(self, tier: int, values: np.ndarray, counts: TierCounts) -> None:
        """Keep the finished values of ``tier`` with its counts."""
        ...

    def counts(self, tier: int) -> TierCounts | None:
        """The counts kept with ``tier``'s values, or None."""
        ...


@runtime_checkable
class TierFiles(TierStore, Protocol):
    """A :class:`TierStore` of ``.npy`` files, which workers can share: a tier split over workers
    (:mod:`gametree.search.tier_shards`) writes a temporary file, which the store then adopts."""

    def path(self, kind: FileKind, tier: int) -> Path:
        """The file of ``tier``'s reach marks or values (it exists once kept)."""
        ...

    def scratch(self, kind: FileKind, tier: int) -> Path:
        """A temporary file for workers to write ``tier``'s reach marks or values into."""
        ...

    def adopt(self, kind: FileKind, tier: int, counts: TierCounts | None) -> None:
        """Keep the finished :meth:`scratch` file of ``tier`` (values: with their ``counts``)."""
        ...


class MemoryTiers:
    """A :class:`TierStore` in memory (tests, small boards)."""

    def __init__(self) -> None:
        self.marks: dict[int, np.ndarray] = {}
        self.values: dict[int, np.ndarray] = {}
        self.tier_counts: dict[int, TierCounts] = {}

    def holds(self, kind: FileKind, tier: int) -> bool:
        return tier in (self.marks if kind == "reach" else self.values)

    def reach(self, tier: int) -> np.ndarray | None:
        return self.marks.get(tier)

    def keep_reach(self, tier: int, marks: np.ndarray) -> None:
        self.marks[tier] = marks

    def solved(self, tier: int) -> np.ndarray | None:
        return self.values.get(tier)

    def keep_solved(self, tier: int, values: np.ndarray, counts: TierCounts) -> None:
        self.values[tier] = values
        self.tier_counts[tier] = counts
        self.marks.pop(tier, None)

    def counts(self, tier: int) -> TierCounts | None:
        return self.tier_counts.get(tier)


def value_bytes(game: Game[Any, Any]) -> int:
    """Bytes a position: 1 while the longest game fits in 6 bits of remoteness, else 2."""
    return 1 if game.info.max_plies < 64 else 2


def decode(code: int, width: int) -> TierValue | None:
    """The value stored as ``code`` in an array of ``width`` bytes a position (None: not reachable)."""
    shift = 6 if width == 1 else 14
    outcome = code >> shift
    if outcome not in (LOSS, DRAW, WIN):
        return None
    return TierValue(("", "loss", "draw", "win")[outcome], code & ((1 << shift) - 1))


def tier_rules(game: Game[Any, Any]) -> tuple[CompiledRules, CompiledTiers]:
    """The game's compiled rules and tiers, or :class:`UnsupportedGameError` saying what it lacks."""
    found = capabilities_of(game)
    name = game_name(game)
    if found.tiered is None:
        raise UnsupportedGameError(f"{name} has no tiers (gametree.game.Tiered): the tier solver cannot build it")
    if not game.info.deterministic or game.info.players != 2 or game.info.margin or game.info.repeats:
        raise UnsupportedGameError(f"the tier solver builds two-player win/draw/loss games without chance: not {name}")
    rules = found.compiled.compiled_rules() if found.compiled is not None else None
    tiers = found.tiered.compiled_tiers()
    if rules is None or tiers is None:
        raise UnsupportedGameError(f"{name} has no compiled rules or tiers for this board: the tier solver needs both")
    return rules, tiers


@functools.cache
def _kernel(rules: RuleSet, tiers: TierFunctions) -> TierKernel:
    return tier_kernel.build(rules, tiers)


@dataclass
class _Run:
    """One build's fixed parts and its progress."""

    kernel: TierKernel
    board: np.ndarray
    tboard: np.ndarray
    sizes: tuple[int, ...]
    dtype: type[np.unsignedinteger[Any]]
    shift: int
    no_moves: int
    out: np.ndarray
    progress: TierProgress | None
    should_stop: Callable[[], bool] | None
    rules: CompiledRules
    tiers: CompiledTiers
    runner: Runner[Any, int] | None = None
    done: int = 0

    @property
    def total(self) -> int:
        return 2 * sum(self.sizes)

    def step(self, stage: str, count: int, finished: tuple[int, ...]) -> None:
        self.done += count
        if self.progress is not None:
            self.progress(stage, self.done, self.total)
        if self.should_stop is not None and self.should_stop():
            raise TiersStopped(finished)


def solve_tiers(
    game: Game[Any, Any],
    store: TierStore | None = None,
    *,
    progress: TierProgress | None = None,
    should_stop: Callable[[], bool] | None = None,
    workers: int = 1,
    scheduler: str | distributed.Client | None = None,
) -> TierSolution:
    """Solve every reachable position of ``game`` tier by tier, keeping the arrays in ``store``
    (default: in memory).  Tiers the store holds already are not done again (a resumed build).

    ``workers`` > 1 splits each tier over that many worker processes, ``scheduler`` over a Dask
    cluster's workers (which must see the store's folder): the store must then be :class:`TierFiles`."""
    started = time.perf_counter()
    rules, tiers = tier_rules(game)
    from .kernel import board_constants

    width = value_bytes(game)
    kept = store if store is not None else MemoryTiers()
    run = _Run(
        kernel=_kernel(rules.functions(), tiers.functions()),
        board=board_constants(rules.board),
        tboard=board_constants(tiers.board),
        sizes=tiers.sizes,
        dtype=np.uint8 if width == 1 else np.uint16,
        shift=6 if width == 1 else 14,
        no_moves=rules.no_moves,
        out=np.zeros(max(64, rules.max_moves), dtype=np.int64),
        progress=progress,
        should_stop=should_stop,
        rules=rules,
        tiers=tiers,
    )
    if workers > 1 or scheduler is not None:
        if not isinstance(kept, TierFiles):
            raise ValueError("a tier build split over workers needs a tier directory (its workers share its files)")
        from ..runtime.runners import make_runner
        from .tier_shards import work_shard

        run.runner = make_runner(
            work_shard,
            workers=workers,
            scheduler=scheduler,
            preload=("gametree.search.tier_shards",),
            doing="the tier build",
        )
    try:
        _forward(run, kept)
        counts = _backward(run, kept)
    except BaseException:
        if run.runner is not None:
            run.runner.cancel()
        raise
    finally:
        if run.runner is not None:
            run.runner.close()
    return TierSolution(game_name(game), counts, width, time.perf_counter() - started)


def _sharded(
    run: _Run,
    tier: int,
    src: Path,
    dst: Path,
    *,
    solve: bool,
    stage: str,
    finished: tuple[int, ...],
    marks: Path | None = None,
) -> int:
    """One pass over ``tier`` split into shards for the runner's workers; the sum of their answers."""
    from .tier_shards import ShardJob

    assert run.runner is not None
    size = run.sizes[tier]
    jobs = [
        ShardJob(run.rules, run.tiers, tier, lo, min(lo + SHARD, size), src, dst, solve, run.shift, marks)
        for lo in range(0, size, SHARD)
    ]
    pending = [run.runner.submit(job) for job in jobs]
    total = 0
    for job, answer in zip(jobs, pending):
        try:
            total += answer.result()
        except WorkerLost as exc:
            raise WorkerLost(f"{stage}, the shard of indices {job.lo:,} to {job.hi:,}: {exc}") from None
        run.step(stage, (job.hi - job.lo) if solve else 0, finished)
    return total


def _zeros_file(path: Path, size: int, dtype: type[np.unsignedinteger[Any]]) -> None:
    mapped = np.lib.format.open_memmap(path, mode="w+", dtype=dtype, shape=(size,))
    mapped.flush()
    del mapped


def _forward(run: _Run, store: TierStore) -> None:
    """The reach marks of every tier below the solved ones (from the last tier marked, if any)."""
    need = len(run.sizes)  # tiers 0 .. need - 1 are not solved: they need their marks
    while need > 0 and store.holds("tier", need - 1):
        need -= 1
    run.done += sum(run.sizes[need:])
    if need == 0:
        return
    first = 0
    while first + 1 < need and store.holds("reach", first + 1):
        first += 1
    src = store.reach(first)
    if src is not None:
        src = np.array(src)  # (in memory, writable: one compiled signature)
    else:
        src = np.zeros(run.sizes[0], dtype=run.dtype)
        src[0] = OPEN  # the start (the only position of tier 0)
        store.keep_reach(0, src)
    run.done += sum(run.sizes[: first + 1])
    for tier in range(first, need - 1):
        if run.runner is not None and isinstance(store, TierFiles):
            scratch = store.scratch("reach", tier + 1)
            _zeros_file(scratch, run.sizes[tier + 1], run.dtype)
            _sharded(
                run, tier, store.path("reach", tier), scratch, solve=False, stage=f"reach tier {tier + 1}", finished=()
            )
            run.step(f"reach tier {tier + 1}", run.sizes[tier + 1], ())
            store.adopt("reach", tier + 1, None)
            continue
        dst = np.zeros(run.sizes[tier + 1], dtype=run.dtype)
        for lo in range(0, run.sizes[tier], CHUNK):
            hi = min(lo + CHUNK, run.sizes[tier])
            run.kernel.reach(run.board, run.tboard, tier, lo, hi, src, dst, run.out)
            run.step(f"reach tier {tier + 1}", 0, ())
        run.step(f"reach tier {tier + 1}", run.sizes[tier + 1], ())
        store.keep_reach(tier + 1, dst)
        src = dst


def _backward(run: _Run, store: TierStore) -> tuple[TierCounts, ...]:
    """Each tier's values, the last tier first; the counts of all tiers."""
    last = len(run.sizes) - 1
    finished: list[int] = []
    found: dict[int, TierCounts] = {}
    nxt = np.zeros(1, dtype=run.dtype)
    for tier in range(last, -1, -1):
        counted = store.counts(tier) if store.holds("tier", tier) else None
        if counted is not None:
            found[tier] = counted
            finished.append(tier)
            run.done += run.sizes[tier]
            if tier > 0 and not store.holds("tier", tier - 1):  # the next tier to solve looks it up
                kept = store.solved(tier)  # (read and checked)
                if kept is None:
                    raise RuntimeError(f"tier {tier}'s values are missing")
                nxt = np.array(kept)  # (in memory, writable: one compiled signature)
            continue
        if run.runner is not None and isinstance(store, TierFiles):
            found[tier] = _solve_sharded(run, store, tier, tuple(finished))
            finished.append(tier)
            continue
        marks = store.reach(tier)
        if marks is None:
            raise RuntimeError(f"tier {tier}'s reach marks are missing")
        cur = np.array(marks, dtype=run.dtype)  # a copy: the marks may be a read-only map of a file
        for lo in range(0, run.sizes[tier], CHUNK):
            hi = min(lo + CHUNK, run.sizes[tier])
            missing = run.kernel.solve(
                run.board, run.tboard, tier, lo, hi, cur, cur, nxt, run.out, run.shift, run.no_moves
            )
            if missing:
                raise RuntimeError(f"tier {tier}: {missing} children of reachable positions were not solved")
            run.step(f"solve tier {tier}", hi - lo, tuple(finished))
        found[tier] = count_tier(tier, cur, run.shift)
        store.keep_solved(tier, cur, found[tier])
        finished.append(tier)
        nxt = cur
    return tuple(found[t] for t in range(last + 1))


def _solve_sharded(run: _Run, store: TierFiles, tier: int, finished: tuple[int, ...]) -> TierCounts:
    """Tier ``tier``'s values, computed by the runner's workers in a copy of its reach marks."""
    if store.reach(tier) is None:  # (checks the marks' file)
        raise RuntimeError(f"tier {tier}'s reach marks are missing")
    scratch = store.scratch("tier", tier)
    _zeros_file(scratch, run.sizes[tier], run.dtype)
    last = tier == len(run.sizes) - 1  # (its positions have no children: the source is never read)
    src = store.path("reach" if last else "tier", tier if last else tier + 1)
    missing = _sharded(
        run,
        tier,
        src,
        scratch,
        solve=True,
        stage=f"solve tier {tier}",
        finished=finished,
        marks=store.path("reach", tier),
    )
    if missing:
        raise RuntimeError(f"tier {tier}: {missing} children of reachable positions were not solved")
    counts = count_tier(tier, np.asarray(np.load(scratch, mmap_mode="r")), run.shift)
    store.adopt("tier", tier, counts)
    return counts


def count_tier(tier: int, values: np.ndarray, shift: int) -> TierCounts:
    """The tier's positions by outcome, counted a slice at a time: ``np.bincount`` casts its input to
    8-byte integers, 8 times the memory of a one-byte tier (10 GB for 6x5's largest)."""
    by_outcome = np.zeros(4, dtype=np.int64)
    for lo in range(0, values.shape[0], COUNT_SLICE):
        by_outcome += np.bincount(values[lo : lo + COUNT_SLICE] >> shift, minlength=4)[:4]
    wins, draws, losses = int(by_outcome[WIN]), int(by_outcome[DRAW]), int(by_outcome[LOSS])
    return TierCounts(tier, int(values.shape[0]), wins + draws + losses, wins, draws, losses)
