"""Worker processes for the web application's searches, driven from the event loop.

The server's event loop never searches: each analysis, computer move or tree is a job
(:mod:`gametree.serve.work`) sent to a worker process of a :class:`SearchPool` over a pipe,
and the loop waits for the answer without blocking (the pipe's and the process's file
descriptors are watched by the loop), so the health route and the other pages answer
while searches run.

- At most ``size`` workers run; more requests wait for one until their deadline, then get
  :class:`Busy` (the application answers without a search).  A job taken up while others wait
  gets a fair share of its time, so that a crowd of requests all get a (shorter) search.
- A job has a deadline: a worker that has not answered by then is killed (a search past
  its time, a plugin stuck in C code) and a fresh one is started when needed; the wait
  raises :class:`TimeoutError`.
- A wait that is cancelled (the page went away) kills the worker too: its search stops.
- Workers start through :func:`gametree.runtime.processes.worker_context` (the fork server,
  with the search modules preloaded), ignore Ctrl-C and end when the server dies
  (:func:`gametree.runtime.lifeline.die_with_parent`); :meth:`SearchPool.close` ends them.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..runtime.lifeline import die_with_parent
from ..runtime.processes import worker_context
from .work import Answer, Job, WorkerContext, WorkerSetup, run_job

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.context import BaseContext
    from multiprocessing.process import BaseProcess

__all__ = ["Busy", "GATHER", "PRELOAD", "SearchPool", "WorkerGone", "worker_main"]

#: The modules the fork server imports once for all the workers.
PRELOAD = ("gametree.serve.work", "gametree.search.solver", "gametree.search.perfect")


#: Seconds a job waits once it has a worker, for a crowd of requests arriving at once to be counted.
GATHER = 0.05


#: How much lower the workers' scheduling priority is than the server's (``nice``): with every CPU
#: searching, the event loop still gets one at once.
WORKER_NICENESS = 5
#: Seconds a job takes beyond its search (sent, made, answered), kept off each share in a crowd.
OVERHEAD = 0.05


class Busy(Exception):
    """No worker came free before the request's deadline."""


class WorkerGone(Exception):
    """A worker process died before answering (out of memory, killed from outside)."""


def worker_main(connection: Connection, setup: WorkerSetup) -> None:
    """A worker process: jobs from ``connection``, answers back, until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the process group: the server ends us
    die_with_parent()
    with contextlib.suppress(OSError, AttributeError):  # (no os.nice on Windows)
        os.nice(WORKER_NICENESS)  # the server's event loop goes first: pages and /health answer at once
    context = WorkerContext(setup)
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):
            return
        connection.send(run_job(context, job))


class _Worker:
    """One worker process and the server's end of its pipe."""

    def __init__(self, context: BaseContext, setup: WorkerSetup) -> None:
        ours, theirs = context.Pipe()
        self.process: BaseProcess = context.Process(  # type: ignore[attr-defined]
            target=worker_main, args=(theirs, setup), name="gametree-serve-worker", daemon=True
        )
        self.process.start()
        theirs.close()
        self.connection = ours

    async def ask(self, job: Job, timeout: float) -> Answer:
        """Send ``job`` and wait for the answer, at most ``timeout`` seconds (:class:`TimeoutError`)."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Answer] = loop.create_future()

        def readable() -> None:
            if answer.done():
                return
            try:
                answer.set_result(self.connection.recv())
            except (EOFError, OSError):
                answer.set_exception(WorkerGone("a search worker died before answering"))

        def died() -> None:
            if not answer.done():
                answer.set_exception(WorkerGone("a search worker died before answering"))

        self.connection.send(job)
        pipe, sentinel = self.connection.fileno(), self.process.sentinel
        loop.add_reader(pipe, readable)
        loop.add_reader(sentinel, died)
        try:
            return await asyncio.wait_for(answer, max(0.0, timeout))
        finally:
            loop.remove_reader(pipe)
            loop.remove_reader(sentinel)

    def kill(self) -> None:
        """End the process at once (its search with it)."""
        with contextlib.suppress(OSError, ValueError):
            self.process.kill()
        with contextlib.suppress(OSError):
            self.connection.close()

    def reap(self) -> None:
        """Wait for a killed process's end (in a thread: it takes a moment)."""
        self.process.join(5)


class SearchPool:
    """Up to ``size`` worker processes doing jobs with deadlines (see the module)."""

    def __init__(self, setup: WorkerSetup, size: int) -> None:
        self.setup = setup
        self.size = size
        self.context = worker_context(PRELOAD)
        self.idle: list[_Worker] = []
        self.workers: set[_Worker] = set()
        self.waiting: collections.deque[asyncio.Future[_Worker]] = collections.deque()
        self.starting = 0
        self.closed = False
        #: Requests in :meth:`run` now: searching, or waiting for a worker.
        self.pending = 0
        self.tasks: set[asyncio.Task[None]] = set()  # (kept: the loop holds tasks weakly)

    @property
    def busy(self) -> int:
        """Workers doing a job now."""
        return len(self.workers) - len(self.idle)

    @property
    def queued(self) -> int:
        """Requests waiting for a worker."""
        return sum(not f.done() for f in self.waiting)

    async def _start(self) -> _Worker:
        self.starting += 1
        try:
            worker = await asyncio.to_thread(_Worker, self.context, self.setup)
        finally:
            self.starting -= 1
        self.workers.add(worker)
        return worker

    async def warm(self, count: int) -> None:
        """Start ``count`` workers ahead of the first requests (the fork server's start is slow)."""
        count = min(count, self.size - len(self.workers) - self.starting)
        started = await asyncio.gather(*(self._start() for _ in range(max(0, count))))
        for worker in started:
            self._release(worker)

    async def _acquire(self, timeout: float) -> _Worker:
        if self.closed:
            raise Busy("the server is stopping")
        if self.idle:
            return self.idle.pop()
        if len(self.workers) + self.starting < self.size:
            return await self._start()
        waiter: asyncio.Future[_Worker] = asyncio.get_running_loop().create_future()
        self.waiting.append(waiter)
        try:
            return await asyncio.wait_for(asyncio.shield(waiter), max(0.0, timeout))
        except (TimeoutError, asyncio.CancelledError) as exc:
            if waiter.done() and not waiter.cancelled():
                self._release(waiter.result())  # (handed over as the wait ended: pass it on)
            else:
                waiter.cancel()
            if isinstance(exc, TimeoutError):
                raise Busy("every search worker is busy") from None
            raise

    def _release(self, worker: _Worker) -> None:
        if self.closed:
            self._discard(worker)
            return
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_result(worker)
                return
        self.idle.append(worker)

    def _discard(self, worker: _Worker) -> None:
        worker.kill()
        self.workers.discard(worker)
        if worker in self.idle:
            self.idle.remove(worker)
        loop = asyncio.get_running_loop()
        loop.run_in_executor(None, worker.reap)
        if self.waiting and not self.closed:
            task = loop.create_task(self._replace())
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _replace(self) -> None:
        """A new worker for a request waiting for one (a worker was killed)."""
        if len(self.workers) + self.starting < self.size:
            self._release(await self._start())

    async def run(self, make_job: Callable[[float], Job], deadline: float, grace: float) -> Answer:
        """The answer of the job ``make_job(seconds)`` makes, where ``seconds`` is what is left until
        ``deadline`` (the loop's clock) once a worker takes it up, shared fairly with the requests
        in line with it (``size / pending`` of it once more requests than workers are pending: many pages
        at once each get a shorter search rather than most getting none).  :class:`Busy` if no worker is free
        before the deadline; :class:`TimeoutError` (the worker killed) if it has not answered ``grace``
        seconds after it; a cancelled wait kills the worker too."""
        loop = asyncio.get_running_loop()
        self.pending += 1
        try:
            waited = self.queued > 0 or not self.idle
            worker = await self._acquire(deadline - loop.time())
            try:
                if not waited:  # (the first of a crowd arriving at once waits for the others to be counted)
                    await asyncio.sleep(GATHER)
                left = deadline - loop.time()
                # A fair share of what is left when others are in line: each gets an answer in its time.
                seconds = left * self.size / max(self.size, self.pending) - (
                    OVERHEAD if self.pending > self.size else 0
                )
                answer = await worker.ask(make_job(seconds), left + grace)
            except BaseException:
                self._discard(worker)
                raise
        finally:
            self.pending -= 1
        self._release(worker)
        return answer

    def close(self) -> None:
        """End every worker (the server is stopping)."""
        self.closed = True
        for waiter in self.waiting:
            waiter.cancel()
        for worker in list(self.workers):
            worker.kill()
        for worker in list(self.workers):
            worker.reap()
        self.workers.clear()
        self.idle.clear()
