"""Dask: a client of a scheduler with one-line errors, the error for a scheduler lost while waiting,
and stop events that halt the tasks running on the workers.

distributed is imported only inside the functions that use it (``pip install 'gametree[dask]'``).
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError
from typing import TYPE_CHECKING, TypeVar

from .errors import ParallelError, WorkerLost
from .stops import Halter, run_stoppable

if TYPE_CHECKING:
    from distributed import Client

__all__ = [
    "SCHEDULER_TIMEOUT",
    "DaskConnection",
    "dask_client",
    "dask_lost",
    "new_stop_name",
    "on_dask_stoppable",
    "stop_dask_tasks",
]

T = TypeVar("T")

#: Seconds to wait for a Dask scheduler to answer.
SCHEDULER_TIMEOUT = 10.0


def _silence(prefix: str) -> dict[str, int]:
    """Raise every logger named ``prefix`` or ``prefix.*`` above CRITICAL; their levels before."""
    names = [prefix, *(n for n in logging.root.manager.loggerDict if n.startswith(prefix + "."))]
    levels = {name: logging.getLogger(name).level for name in names}
    for name in names:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    return levels


def _restore(levels: dict[str, int]) -> None:
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


def _connect(client_class: type[Client], scheduler: str) -> Client:
    """A Dask client of ``scheduler``, or :class:`ParallelError` within :data:`SCHEDULER_TIMEOUT`.

    ``Client(timeout=...)`` bounds the connection, not the handshake after it: a port that
    accepts connections and never answers (a web server, a silent socket) kept it waiting for
    minutes.  So the client is made in a thread of its own, and waited for with a deadline.
    """
    made: queue.SimpleQueue[Client | BaseException] = queue.SimpleQueue()

    def connect() -> None:
        try:
            made.put(client_class(scheduler, timeout=f"{SCHEDULER_TIMEOUT:g}s"))
        except BaseException as exc:  # handed to the waiting thread
            made.put(exc)

    threading.Thread(target=connect, name="gametree-dask-connect", daemon=True).start()
    try:
        got = made.get(timeout=SCHEDULER_TIMEOUT + 2)
    except queue.Empty:
        raise ParallelError(f"no Dask scheduler answered at {scheduler} within {SCHEDULER_TIMEOUT:g} s") from None
    if isinstance(got, BaseException):
        if isinstance(got, (OSError, TimeoutError, ValueError, TypeError)):
            raise ParallelError(f"cannot reach the Dask scheduler at {scheduler}: {got}") from None
        raise got
    return got


class DaskConnection:
    """A client of the Dask scheduler at ``scheduler`` (an address; a ``Client`` is used as it is),
    with the one-line errors of ``--scheduler``: Dask missing, a scheduler that does not answer
    within :data:`SCHEDULER_TIMEOUT`, an address that is no scheduler (a :class:`ParallelError`).

    A client of our own reports its failures through us, in one line: distributed's own log
    (tracebacks of lost connections on standard error) is silenced until :meth:`close`.
    """

    def __init__(self, scheduler: str | Client) -> None:
        try:
            from dask.distributed import Client
        except ImportError:
            raise ParallelError(
                "--scheduler needs Dask: pip install 'gametree[dask]' (or pip install distributed)"
            ) from None
        self.levels: dict[str, int] = {}
        if isinstance(scheduler, Client):
            self.own = False
            self.client = scheduler
            #: Where the scheduler is, for error messages.
            self.address = str(getattr(getattr(scheduler, "scheduler", None), "address", "the client's scheduler"))
            return
        self.own = True
        self.address = scheduler
        self.levels = _silence("distributed")
        try:
            self.client = _connect(Client, scheduler)
        except BaseException:
            _restore(self.levels)
            raise

    def close(self) -> None:
        """Close a client of our own (one given is left open) and give distributed its log back."""
        if self.own:
            try:
                self.client.close()  # type: ignore[no-untyped-call]
            finally:
                _restore(self.levels)


@contextlib.contextmanager
def dask_client(scheduler: str | Client) -> Iterator[Client]:
    """The client of a :class:`DaskConnection` to ``scheduler``, closed after the ``with`` block."""
    connection = DaskConnection(scheduler)
    try:
        yield connection.client
    finally:
        connection.close()


def dask_lost(error: BaseException, scheduler: object, work: str = "the solve") -> ParallelError | None:
    """The one-line error for ``error`` raised while waiting on a Dask result: the scheduler or
    the connection was lost during ``work``, or the task's workers kept dying (:class:`WorkerLost`);
    None: another error, to raise as it is."""
    from distributed.scheduler import KilledWorker

    if isinstance(error, KilledWorker):
        return WorkerLost(
            f"Dask gave up a task of {work}: every worker that ran it died (the limit is "
            "distributed.scheduler.allowed-failures)"
        )
    if isinstance(error, (CancelledError, OSError)):  # (distributed's FutureCancelledError, CommClosedError)
        reason = "the connection was lost" if isinstance(error, CancelledError) else " ".join(str(error).split())
        return ParallelError(f"lost the Dask scheduler at {scheduler} during {work}: {reason}")
    return None


def new_stop_name() -> str:
    """A fresh name for the ``distributed.Event`` that stops one piece of work's Dask tasks."""
    return f"gametree-stop-{uuid.uuid4().hex}"


def stop_dask_tasks(client: Client, stop: str) -> None:
    """Set the event ``stop``: the running tasks of :func:`on_dask_stoppable` with that name halt
    (cancelling their futures does not stop them).  The event stays set on the scheduler (a few
    bytes), so that a task that looks late still sees it.  A lost scheduler is not an error here."""
    from distributed import Event

    with contextlib.suppress(Exception):  # (a lost scheduler: the error of the wait is the one to report)
        Event(stop, client=client).set()  # type: ignore[no-untyped-call]


def on_dask_stoppable(work: Callable[[Halter], T], stop: str) -> T:
    """``work(halter)`` in a Dask task, halted within about :data:`gametree.runtime.stops.STOP_POLL`
    seconds of the client's setting the ``distributed.Event`` named ``stop`` (:func:`stop_dask_tasks`):
    Dask cannot interrupt a running task (see :func:`gametree.runtime.stops.run_stoppable`)."""
    from distributed import Event, get_client

    # (Made in the task's thread: get_client() finds the worker here.)
    event = Event(stop, client=get_client())  # type: ignore[no-untyped-call]
    return run_stoppable(work, event.is_set)
