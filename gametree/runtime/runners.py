"""Running jobs on workers, one job at a time per worker: in this process, in worker processes, or on
a Dask cluster, behind one interface that can be cancelled at any moment.

A runner is made for one function, ``work(job, halter)``, which must be importable by name (worker
processes and Dask workers unpickle it).  :meth:`Runner.submit` hands it a job and gives back a
:class:`Pending` answer; :meth:`Runner.cancel` (Ctrl-C, an error elsewhere) makes every wait raise
:class:`Cancelled` and stops the workers, the tasks already running on Dask too; :meth:`Runner.close`
frees them.
"""

from __future__ import annotations

import functools
import multiprocessing
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Generic, TypeAlias, TypeVar

from .cluster import DaskConnection, dask_lost, new_stop_name, on_dask_stoppable, stop_dask_tasks
from .processes import WorkerWatch, start_pool
from .stops import Halter

if TYPE_CHECKING:
    from multiprocessing.pool import AsyncResult

    import distributed

__all__ = ["Cancelled", "InProcess", "OnDask", "Pending", "Processes", "Runner", "Work", "make_runner"]

J = TypeVar("J")
A = TypeVar("A")

#: What a runner does with a job: ``work(job, halter)`` (``halter`` None where nothing can stop
#: the work midway; else the engines it searches with are to be attached to it).
Work: TypeAlias = Callable[[J, "Halter | None"], A]


class Cancelled(Exception):
    """A wait ended because its runner was cancelled."""


class Pending(ABC, Generic[A]):
    """The answer to a submitted job, to wait for."""

    @abstractmethod
    def result(self) -> A:
        """The answer, once there; :class:`Cancelled` once the runner is cancelled."""


class Runner(ABC, Generic[J, A]):
    """Submits jobs to ``work`` and waits for answers; ``cancel()`` stops every wait."""

    def __init__(self, work: Work[J, A]) -> None:
        self.work = work
        self.cancelled = threading.Event()

    @abstractmethod
    def submit(self, job: J) -> Pending[A]:
        """Start ``work(job, ...)`` (or queue it); its answer to wait for."""

    def slots(self) -> int:
        """How many jobs run at once."""
        return 1

    def cancel(self) -> None:
        """Stop every wait (each raises :class:`Cancelled`) and the work under way."""
        self.cancelled.set()

    def close(self) -> None:
        """Free the workers (after the answers are in, or after :meth:`cancel`)."""


class InProcess(Runner[J, A]):
    """No workers: each job is done in this process when its answer is first asked for."""

    def __init__(self, work: Work[J, A]) -> None:
        super().__init__(work)
        self.lock = threading.Lock()  # one job at a time: the worker's tables are per thread, the CPU is one

    def submit(self, job: J) -> Pending[A]:
        return _Deferred(self, job)


class _Deferred(Pending[A], Generic[J, A]):
    def __init__(self, runner: InProcess[J, A], job: J) -> None:
        self.runner = runner
        self.job = job
        self.answer: Future[A] = Future()

    def result(self) -> A:
        with self.runner.lock:
            if not self.answer.done():
                if self.runner.cancelled.is_set():
                    raise Cancelled
                self.answer.set_result(self.runner.work(self.job, None))
            return self.answer.result()


class Processes(Runner[J, A]):
    """Jobs done in ``workers`` worker processes (watched: one that dies is an error, not a hang);
    ``preload``: the modules the workers import before their first job."""

    def __init__(self, work: Work[J, A], workers: int, preload: Sequence[str]) -> None:
        super().__init__(work)
        self.workers = workers
        self.pool = start_pool(workers, preload=preload)
        self.watch = WorkerWatch()

    def slots(self) -> int:
        return self.workers

    def submit(self, job: J) -> Pending[A]:
        return _InPool(self, self.pool.apply_async(self.work, (job, None)))

    def cancel(self) -> None:
        super().cancel()
        self.pool.terminate()

    def close(self) -> None:
        if self.cancelled.is_set():
            self.pool.join()
            return
        self.pool.close()
        self.pool.join()


class _InPool(Pending[A], Generic[J, A]):
    def __init__(self, runner: Processes[J, A], answer: AsyncResult[A]) -> None:
        self.runner = runner
        self.answer = answer

    def result(self) -> A:
        while True:
            if self.runner.cancelled.is_set():
                raise Cancelled
            try:
                return self.answer.get(timeout=0.1)
            except multiprocessing.TimeoutError:
                self.runner.watch.check()


def _stoppable_on_dask(work: Work[J, A], job: J, stop: str) -> A:
    """``work(job, halter)`` in a Dask task, halted when the runner sets the event ``stop``."""
    return on_dask_stoppable(functools.partial(work, job), stop)


class OnDask(Runner[J, A]):
    """Jobs done on the Dask cluster of ``scheduler`` (see :class:`gametree.runtime.cluster.DaskConnection`).

    :meth:`cancel` sets this runner's stop event (the tasks running now halt within about
    :data:`gametree.runtime.stops.STOP_POLL` seconds) and cancels the futures.  A lost scheduler is a
    one-line :class:`gametree.runtime.errors.ParallelError` naming ``doing`` (what the jobs are for).
    """

    def __init__(self, work: Work[J, A], scheduler: str | distributed.Client, doing: str = "the solve") -> None:
        super().__init__(work)
        self.connection = DaskConnection(scheduler)
        self.doing = doing
        self.futures: list[distributed.Future[A]] = []
        self.lock = threading.Lock()
        #: The name of this runner's ``distributed.Event``, set by :meth:`cancel`: its running tasks halt.
        self.stop = new_stop_name()

    def slots(self) -> int:
        threads: int = sum(self.connection.client.nthreads().values())  # type: ignore[no-untyped-call]
        return max(1, threads)

    def submit(self, job: J) -> Pending[A]:
        future = self.connection.client.submit(_stoppable_on_dask, self.work, job, self.stop, pure=False)
        with self.lock:
            self.futures.append(future)
        return _OnDask(self, future)

    def cancel(self) -> None:
        super().cancel()
        with self.lock:
            futures = list(self.futures)
        if futures:
            stop_dask_tasks(self.connection.client, self.stop)  # first the tasks running now
        self.connection.client.cancel(futures)  # type: ignore[no-untyped-call]

    def close(self) -> None:
        self.connection.close()


class _OnDask(Pending[A], Generic[J, A]):
    def __init__(self, runner: OnDask[J, A], future: distributed.Future[A]) -> None:
        self.runner = runner
        self.future = future

    def result(self) -> A:
        # Block without a timeout (polling with one can lose the result in distributed);
        # cancel() cancels the futures, which ends the wait.
        cancelled = self.runner.cancelled
        if cancelled.is_set():
            raise Cancelled
        try:
            return self.future.result()
        except BaseException as exc:
            if cancelled.is_set():
                raise Cancelled from None
            lost = dask_lost(exc, self.runner.connection.address, self.runner.doing)
            if lost is not None:
                raise lost from None
            raise


def make_runner(
    work: Work[J, A],
    *,
    workers: int = 1,
    scheduler: str | distributed.Client | None = None,
    preload: Sequence[str] = (),
    doing: str = "the solve",
) -> Runner[J, A]:
    """The runner for ``work``: on the Dask cluster of ``scheduler`` if given, else in ``workers``
    processes (``preload``: see :class:`Processes`), else (one worker) in this process."""
    if scheduler is not None:
        return OnDask(work, scheduler, doing)
    return InProcess(work) if workers == 1 else Processes(work, workers, preload)
