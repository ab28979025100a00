"""The error of work that cannot run in parallel."""

from __future__ import annotations

from ..game import GameError

__all__ = ["ParallelError", "WorkerLost"]


class ParallelError(GameError):
    """Work cannot run in parallel: bad options, a worker process lost, Dask missing or unreachable.

    A :class:`gametree.game.GameError`, so that callers reporting the game's errors in one line
    (the command line) report these too.
    """


class WorkerLost(ParallelError):
    """A task whose workers kept dying: Dask gave it to another worker each time a worker running
    it was lost, up to its ``distributed.scheduler.allowed-failures`` (3 by default), then gave up."""
