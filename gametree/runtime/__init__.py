"""The runtime of parallel work: worker processes, Dask clients, watchers and cooperative stops.

Searches, book builds and ``learn`` hand their jobs to it; it knows nothing of what a job
computes.  What it needs of a search is only that its engines can be halted and resumed
(:class:`Haltable`), so it imports nothing of :mod:`gametree.search`, the store or the command line.

- :mod:`gametree.runtime.processes`: how many worker processes (``max_workers``), how they start
  (``forkserver`` or ``spawn``, ignoring Ctrl-C), and :class:`WorkerWatch` for one that dies.
- :mod:`gametree.runtime.cluster`: a Dask client with one-line errors (``dask_client``), the error
  of a lost scheduler (``dask_lost``), and stop events that halt running Dask tasks.
- :mod:`gametree.runtime.stops`: :class:`Halter` and :func:`run_stoppable`, halting the engines of
  running work from another thread.
- :mod:`gametree.runtime.runners`: one interface for running jobs in this process, in worker
  processes or on Dask, cancellable at any moment (``make_runner``).
- :mod:`gametree.runtime.errors`: :class:`ParallelError`.
- :mod:`gametree.runtime.alarm`: :class:`Alarm`, which halts a search when its time is up.
- :mod:`gametree.runtime.signals`: :class:`SignalWatch`, which stops work Python cannot interrupt
  (a compiled search) on Ctrl-C, SIGTERM or SIGHUP.

The settings ``SCHEDULER_TIMEOUT`` (``cluster``) and ``STOP_POLL`` (``stops``) are read from their
modules.

>>> from gametree.runtime import make_runner
>>> runner = make_runner(lambda job, halter: job * job)
>>> [runner.submit(job).result() for job in (2, 3)]
[4, 9]
>>> runner.close()
"""

from __future__ import annotations

from .alarm import Alarm
from .cluster import DaskConnection, dask_client, dask_lost, new_stop_name, on_dask_stoppable, stop_dask_tasks
from .errors import ParallelError
from .processes import (
    WorkerWatch,
    max_workers,
    process_pool,
    start_pool,
    watched,
    worker_context,
    workers_limit_message,
)
from .runners import Cancelled, InProcess, OnDask, Pending, Processes, Runner, Work, make_runner
from .signals import SignalWatch, watch
from .stops import Haltable, Halter, Stopped, run_stoppable

__all__ = [
    "Alarm",
    "Cancelled",
    "DaskConnection",
    "Haltable",
    "Halter",
    "InProcess",
    "OnDask",
    "ParallelError",
    "Pending",
    "Processes",
    "Runner",
    "SignalWatch",
    "Stopped",
    "Work",
    "WorkerWatch",
    "dask_client",
    "dask_lost",
    "make_runner",
    "max_workers",
    "new_stop_name",
    "on_dask_stoppable",
    "process_pool",
    "run_stoppable",
    "start_pool",
    "stop_dask_tasks",
    "watch",
    "watched",
    "worker_context",
    "workers_limit_message",
]
