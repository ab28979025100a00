"""The runtime of parallel work: worker processes, Dask clients, watchers and cooperative stops.

Searches, book builds and ``learn`` hand their jobs to it; it knows nothing of what a job
computes.  What it needs of a search is only that its engines can be halted and resumed
(:class:`Haltable`), so it imports nothing of :mod:`gametree.search`, the store or the command line.

- :mod:`gametree.runtime.processes`: how many worker processes (``max_workers``), how they start
  (``forkserver`` or ``spawn``, ignoring Ctrl-C), and :class:`WorkerWatch` for one that dies.
- :mod:`gametree.runtime.lifeline`: workers that end when the command is killed outright, quietly;
  :mod:`gametree.runtime.forkserver_exit`, which the fork server imports, removes the command's
  ``pymp-*`` folder then.
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
modules.  This package imports none of them itself: each is imported where it is used (the
solver's alarm should not load the process pools).

>>> from gametree.runtime.runners import make_runner
>>> runner = make_runner(lambda job, halter: job * job)
>>> [runner.submit(job).result() for job in (2, 3)]
[4, 9]
>>> runner.close()
"""
