"""Cooperative stops: halting running searches from another thread, on request.

A search cannot be interrupted from outside (a Dask task, a thread), but an engine can be asked to
stop at its next node: anything with ``halt()`` and ``resume()`` (:class:`Haltable`).  A
:class:`Halter` holds the engines one piece of work searches with, and :func:`run_stoppable` runs
that work with a thread of its own that halts them once ``stopped()`` turns true.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol, TypeVar

__all__ = ["STOP_POLL", "Haltable", "Halter", "Stopped", "run_stoppable"]

T = TypeVar("T")

#: Seconds between a piece of work's looks at whether it is to stop (for Dask, each look is a short
#: call to the scheduler).
STOP_POLL = 0.2


class Haltable(Protocol):
    """What a stop needs of a search engine (the Python and the compiled engine both have it)."""

    def halt(self) -> None:
        """Make the search running now, and every later one, stop at once (until :meth:`resume`);
        safe to call from another thread."""

    def resume(self) -> None:
        """Let searches run again after :meth:`halt`."""


class Stopped(Exception):
    """Work halted on request by :func:`run_stoppable` (its result is not wanted)."""


class Halter:
    """The engines a piece of work searches with, halted on request from another thread.

    :meth:`attach` each engine as the work takes it up (one asked to stop already is halted at
    once); :meth:`stop` halts them all, again at each call (the solver resumes its engine between
    its stages); :meth:`finish`, when the work has ended, resumes those it halted, so that the
    worker's kept solver and tables serve its next task, and makes later stops do nothing.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.engines: list[Haltable] = []
        self.stopped = False
        self.finished = False

    def attach(self, engine: Haltable) -> None:
        """Halt ``engine`` with the others on :meth:`stop` (at once, if stopped already)."""
        with self.lock:
            if self.finished:
                return
            self.engines.append(engine)
            if self.stopped:
                engine.halt()

    def stop(self) -> None:
        """Halt every attached engine (nothing, once finished)."""
        with self.lock:
            if self.finished:
                return
            self.stopped = True
            for engine in self.engines:
                engine.halt()

    def finish(self) -> None:
        """The work has ended: resume the engines halted, and ignore later stops."""
        with self.lock:
            self.finished = True
            if self.stopped:
                for engine in self.engines:
                    engine.resume()


def run_stoppable(work: Callable[[Halter], T], stopped: Callable[[], bool]) -> T:
    """``work(halter)``, halted within about :data:`STOP_POLL` seconds of ``stopped()`` turning true:
    a thread of the work's own asks it every :data:`STOP_POLL` seconds and halts the search engines
    ``work`` attaches to ``halter``.  Halted work raises :class:`Stopped` (whatever the halted
    search made of the halt; its result is not wanted), and its engines are resumed, so that the
    worker's kept solver serves its next task.  (An engine still being built, numba compiling on a
    cold cache, is halted once it is built and attached.)"""
    halter = Halter()
    done = threading.Event()
    threading.Thread(target=_watch_stop, args=(stopped, halter, done), name="gametree-stop-watch", daemon=True).start()
    try:
        return work(halter)
    except Exception:
        if halter.stopped:
            raise Stopped("the work was cancelled") from None
        raise
    finally:
        done.set()
        halter.finish()


def _watch_stop(stopped: Callable[[], bool], halter: Halter, done: threading.Event) -> None:
    """Until ``done``: every :data:`STOP_POLL` seconds, ask ``stopped()`` (for Dask, a short call to
    the scheduler: ``Event.is_set``, not a ``wait`` that would still be open on the scheduler when the
    task ends); once it is true, halt ``halter``'s engines, and again at each look after (the
    solver resumes its engine between its stages)."""
    stopping = False
    while not done.wait(STOP_POLL):
        if not stopping:
            try:
                stopping = bool(stopped())
            except Exception:  # the scheduler is gone: no stop can come (and the task's result has nowhere to go)
                return
        if stopping:
            halter.stop()
