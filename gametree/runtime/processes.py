"""Worker processes on this machine: how many may start, how they start, and a watch for one that dies."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import tempfile
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

from .errors import ParallelError
from .lifeline import die_with_parent, quiet_resource_tracker

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext
    from multiprocessing.pool import IMapIterator, Pool

__all__ = [
    "FORKSERVER_EXIT",
    "MIN_MAX_WORKERS",
    "WORKERS_PER_CPU",
    "WorkerWatch",
    "max_workers",
    "process_pool",
    "start_pool",
    "watched",
    "worker_context",
    "workers_limit_message",
]

R = TypeVar("R")

#: At most this many worker processes per CPU, and never a maximum under MIN_MAX_WORKERS: more
#: only adds memory and start-up time, and a typo of a few zeros must not fork a million processes.
WORKERS_PER_CPU = 4
MIN_MAX_WORKERS = 8


def max_workers() -> int:
    """The most worker processes a parallel solve, a book build or ``learn`` starts on this machine."""
    return max(MIN_MAX_WORKERS, WORKERS_PER_CPU * (os.cpu_count() or 1))


def workers_limit_message(workers: int) -> str | None:
    """What ``workers`` processes must be, when they are too few or too many here; else None."""
    if workers < 1:
        return f"at least 1, not {workers}"
    limit = max_workers()
    if workers <= limit:
        return None
    return (
        f"at most {limit} processes on this machine ({WORKERS_PER_CPU} per CPU, at least {MIN_MAX_WORKERS}), "
        f"not {workers:,}"
    )


def _start_worker() -> None:
    # Ctrl-C reaches the whole process group; only the parent reacts (it terminates the pool).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()  # a parent killed outright cannot terminate the pool


#: The longest path a Unix socket can have (Linux's ``sun_path``, less its final zero byte), and what
#: the fork server's socket adds to the temporary folder's path (``/pymp-XXXXXXXX/listener-XXXXXXXX``,
#: with room to spare): a longer ``TMPDIR`` makes the fork server fail ("AF_UNIX path too long").
SOCKET_PATH_LIMIT = 107
SERVER_SOCKET_SUFFIX = 40


def server_socket_fits() -> bool:
    """Whether the fork server's socket path fits in the temporary folder (see :data:`SOCKET_PATH_LIMIT`)."""
    return len(os.fsencode(tempfile.gettempdir())) + SERVER_SOCKET_SUFFIX <= SOCKET_PATH_LIMIT


#: The module the fork server imports first: it removes the command's ``pymp-*`` folder when the
#: command was killed (see :mod:`gametree.runtime.lifeline`).
FORKSERVER_EXIT = "gametree.runtime.forkserver_exit"


def worker_context(preload: Sequence[str]) -> BaseContext:
    """How worker processes start: ``forkserver``, whose server imports the modules named in
    ``preload`` (those the workers' tasks need) once for all the workers it starts, else ``spawn``
    (also where the temporary folder's path is too long for the server's socket).
    Not ``fork``: the parent may run threads (a progress bar, Dask), and forking them is unsafe.
    (The server starts with the first pool of the process: later preloads do not change it.)
    The processes it starts keep the resource tracker's warnings quiet (see
    :func:`gametree.runtime.lifeline.quiet_resource_tracker`)."""
    quiet_resource_tracker()
    if "forkserver" in multiprocessing.get_all_start_methods() and server_socket_fits():
        forkserver = multiprocessing.get_context("forkserver")
        forkserver.set_forkserver_preload([FORKSERVER_EXIT, *preload])
        return forkserver
    return multiprocessing.get_context("spawn")


def start_pool(workers: int, *, preload: Sequence[str]) -> Pool:
    """A ``multiprocessing`` pool of ``workers`` processes that ignore Ctrl-C (the parent
    terminates them) and end when the parent dies (:func:`gametree.runtime.lifeline.die_with_parent`);
    ``preload``: see :func:`worker_context`.  The caller closes or terminates it."""
    return worker_context(preload).Pool(workers, initializer=_start_worker)


@contextlib.contextmanager
def process_pool(workers: int, *, preload: Sequence[str]) -> Iterator[Pool]:
    """A pool of :func:`start_pool` for the ``with`` block; on any error or interruption in the
    block the workers are terminated at once."""
    pool = start_pool(workers, preload=preload)
    try:
        yield pool
    except BaseException:
        pool.terminate()
        pool.join()
        raise
    pool.close()
    pool.join()


class WorkerWatch:
    """The worker processes of a pool just started, watched for one that dies.

    A worker that dies (the system's out-of-memory killer is the usual cause) takes its task
    with it: ``multiprocessing`` starts a new worker but never answers the lost task, so the
    parent would wait forever.  :meth:`check`, called while waiting, raises
    :class:`ParallelError` instead.  The workers are this process's children named as
    ``multiprocessing`` names pool workers.
    """

    def __init__(self) -> None:
        self.pids = self._workers()

    @staticmethod
    def _workers() -> set[int]:
        return {p.pid for p in multiprocessing.active_children() if "PoolWorker" in p.name and p.pid is not None}

    def check(self) -> None:
        """Raise :class:`ParallelError` if a watched worker is gone."""
        lost = self.pids - self._workers()
        if lost:
            raise ParallelError(
                f"worker process {min(lost)} died before finishing its work (the system may have stopped it "
                "for lack of memory): try fewer --workers or a smaller --cache-size"
            )


def watched(results: IMapIterator[R], watch: WorkerWatch) -> Iterator[R]:
    """The results of ``pool.imap_unordered`` (or ``imap``) as they come, checking ``watch`` while waiting."""
    while True:
        try:
            yield results.next(timeout=0.2)
        except StopIteration:
            return
        except multiprocessing.TimeoutError:
            watch.check()
