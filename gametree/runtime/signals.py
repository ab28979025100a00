"""Stop signals for work that Python code cannot interrupt (a compiled search that holds no GIL).

Python runs signal handlers between bytecodes of the main thread, never inside
compiled code; but its C-level handler writes the signal's number to the
wake-up file at once.  A :class:`SignalWatch` thread waits on that file and,
on Ctrl-C, SIGTERM or SIGHUP, calls the stop function of every piece of work
registered with it (the compiled engine sets the stop word its kernel reads at
every node), and counts the signal, so that work started later can tell that
one came while it was being set up.  It starts only from the main thread, and
only if nobody else uses the wake-up file.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
import time
from collections.abc import Callable, Iterator

__all__ = ["STOP_SIGNALS", "SignalWatch", "watch"]

#: The signals that stop work: Ctrl-C, SIGTERM and SIGHUP (where the platform has them).
STOP_SIGNALS = frozenset(int(s) for s in (signal.SIGINT, getattr(signal, "SIGTERM", 2), getattr(signal, "SIGHUP", 2)))


class SignalWatch:
    """One process's watch on stop signals (see the module); :func:`watch` gives the process's own."""

    def __init__(self) -> None:
        #: How many stop signals the watch has seen.
        self.count = 0
        #: None: not started; False: not watching when last started (the wake-up file is someone
        #: else's); True: watching.
        self.watching: bool | None = None
        self._stops: list[Callable[[], None]] = []
        self._lock = threading.Lock()
        #: The wake-up file's reading and writing ends, once made; True while the watch passes a signal on.
        self._read = self._write = -1
        self._passing = False

    def start(self) -> bool:
        """Start watching, or make sure the watch still holds the wake-up file (an asyncio loop in
        the main thread takes it while it has signal handlers, and leaves it empty when it closes);
        whether the watch runs now.  Only the main thread can start it or take the file back."""
        if threading.current_thread() is not threading.main_thread():
            return bool(self.watching)
        if self._write >= 0:
            self.watching = _take_wakeup(self._write)
            return self.watching
        read, write = os.pipe()
        os.set_blocking(write, False)
        if not _take_wakeup(write):
            os.close(read)
            os.close(write)
            self.watching = False
            return False
        self._read, self._write = read, write
        threading.Thread(target=self._run, args=(read,), name="gametree-stop", daemon=True).start()
        self.watching = True
        return True

    @contextlib.contextmanager
    def stopping(self, stop: Callable[[], None]) -> Iterator[None]:
        """While the block runs, a stop signal calls ``stop()`` (from the watching thread).  A signal
        that came before the block is not passed on to ``stop`` (Python raised its own
        KeyboardInterrupt for it then): the watch is let catch up first."""
        self._catch_up()
        with self._lock:
            self._stops.append(stop)
        try:
            yield
        finally:
            with self._lock:
                self._stops.remove(stop)

    def signalled_since(self, seen: int, wait: float = 0.5) -> bool:
        """Whether a stop signal came since :attr:`count` was ``seen`` (waiting up to ``wait`` seconds
        for the watching thread, which may not have run yet)."""
        if not self.watching:
            return False
        deadline = time.monotonic() + wait
        while self.count == seen and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.count != seen

    def _catch_up(self, wait: float = 1.0) -> None:
        """Wait (up to ``wait`` seconds) until the watching thread has passed on every signal that
        came before now: on a loaded machine it may run long after the signal."""
        if not self.watching:
            return
        deadline = time.monotonic() + wait
        while (self._passing or _readable(self._read, 0)) and time.monotonic() < deadline:
            time.sleep(0.001)

    def _run(self, fd: int) -> None:
        while True:
            try:
                _readable(fd, None)
                self._passing = True  # (before the bytes leave the file: catching up sees one or the other)
                received = os.read(fd, 64)
            except OSError:
                self._passing = False
                return
            if not received:
                self._passing = False
                return
            if any(number in STOP_SIGNALS for number in received):
                self.count += 1
                with self._lock:
                    stops = list(self._stops)
                for stop in stops:
                    stop()
            self._passing = False


def _readable(fd: int, timeout: float | None) -> bool:
    """Whether ``fd`` has bytes to read, waiting up to ``timeout`` seconds (None: until it has).
    (poll, not select: a process with many files open may have this one above select's limit.)"""
    poller = select.poll()  # (one a call: a poll object is not for two threads at once)
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(None if timeout is None else int(timeout * 1000)))


def _take_wakeup(fd: int) -> bool:
    """Make ``fd`` the wake-up file unless another one is set (someone else's: left as it is);
    whether ``fd`` is the wake-up file now."""
    try:
        previous = signal.set_wakeup_fd(fd, warn_on_full_buffer=False)
    except (ValueError, OSError):
        return False
    if previous in (-1, fd):
        return True
    signal.set_wakeup_fd(previous)
    return False


_WATCH = SignalWatch()


def watch() -> SignalWatch:
    """The process's signal watch (started by the first work that needs it)."""
    return _WATCH
