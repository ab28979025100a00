"""The error of work that cannot run in parallel."""

from __future__ import annotations

from ..game import GameError

__all__ = ["ParallelError"]


class ParallelError(GameError):
    """Work cannot run in parallel: bad options, a worker process lost, Dask missing or unreachable.

    A :class:`gametree.game.GameError`, so that callers reporting the game's errors in one line
    (the command line) report these too.
    """
