"""How long a plugin's import, or one of its registration hooks, may take: a plugin that loops
forever would otherwise hang every command.

Two guards.  A timer signal raises :class:`PluginTimeout` in the plugin's Python code, which is
then given up like any failing plugin.  But Python runs signal handlers only between bytecodes: a
plugin stuck in one long C call that holds the GIL (``sum(range(10**11))``) is out of reach of
that signal, and of any thread of this process.  So a watchdog process (:class:`Watchdog`,
forked once for a loading phase, see :func:`watched`) waits for each block's deadline plus
:data:`GRACE` seconds; if the block has not ended by then, it prints one ``Error:`` line naming the
plugin and ends the command: with SIGHUP, whose handler during the loading phase is the C
library's ``_exit`` (exit status 1 at once, in any C call), else with SIGKILL.

The blocks' deadlines reach the watchdog through memory the two processes share, not as a message
each: a message woke the watchdog for every block (two dozen a command, about 14 ms of a loaded
2-core machine's start-up, docs/performance-log.md); it now wakes every :data:`POLL` seconds while
the loading phase lasts, and at a deadline.

>>> with time_limited("a quick hook"):
...     pass
"""

from __future__ import annotations

import contextlib
import mmap
import os
import select
import signal
import struct
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType

__all__ = [
    "GRACE",
    "PLUGIN_SECONDS",
    "POLL",
    "PluginTimeout",
    "Watchdog",
    "plugin_seconds",
    "time_limited",
    "watched",
]

#: Seconds a plugin's import, or one of its registration hooks, may take before it is given up as
#: broken (``GAMETREE_PLUGIN_SECONDS``; a plugin that loops forever would hang every command).
PLUGIN_SECONDS = 10.0


class PluginTimeout(Exception):
    """A plugin's import or hook ran past :data:`PLUGIN_SECONDS`."""


#: Seconds past a block's limit after which the watchdog stops the command: the timer signal had
#: that long to end the block from Python.
GRACE = 1.0


def plugin_seconds() -> float:
    """The limit: ``$GAMETREE_PLUGIN_SECONDS`` if it is a number, else :data:`PLUGIN_SECONDS` (0 or
    less: no limit)."""
    try:
        return float(os.environ.get("GAMETREE_PLUGIN_SECONDS", PLUGIN_SECONDS))
    except ValueError:
        return PLUGIN_SECONDS


def _can_limit() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


#: Seconds between the watchdog's looks at the shared deadline while no block is due sooner: how
#: late, at most, it notices a block armed after it last looked (against a limit of seconds).
POLL = 0.25

#: The shared memory: a change count (odd while a change is being written), the deadline
#: (``time.monotonic()``; 0: no block), the message's length, then the message.
_HEAD = struct.Struct("<qdq")
_MESSAGE_BYTES = 4096


class Watchdog:
    """A forked process that stops this one when a time-limited block overruns by :data:`GRACE`
    seconds (see the module).  :meth:`arm` and :meth:`disarm` write each block's deadline to
    memory both share; it exits when the pipe between them closes (:meth:`close`, or this
    process's end)."""

    def __init__(self, *, hangup_exits: bool = False) -> None:
        _reap()
        self._shared = mmap.mmap(-1, _HEAD.size + _MESSAGE_BYTES)  # (anonymous and shared: seen by the fork)
        self._changes = 0
        read, self._write = os.pipe()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the watchdog: only system calls, and never back into the caller's code
            code = 0
            try:
                os.close(self._write)
                _watch(read, self._shared, parent, hangup_exits)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(read)
        self.pid = pid

    def _set(self, deadline: float, message: str) -> None:
        text = message.encode("utf-8", "replace")[:_MESSAGE_BYTES]
        shared = self._shared
        self._changes += 1  # odd: being written
        _HEAD.pack_into(shared, 0, self._changes, 0.0, 0)
        shared[_HEAD.size : _HEAD.size + len(text)] = text
        self._changes += 1  # even: whole again
        _HEAD.pack_into(shared, 0, self._changes, deadline, len(text))

    def arm(self, seconds: float, message: str) -> None:
        """From now, ``seconds`` (plus :data:`GRACE`) until the watchdog prints ``message`` and kills."""
        self._set(time.monotonic() + seconds + GRACE, " ".join(message.split()))

    def disarm(self) -> None:
        """The block ended in time."""
        self._set(0.0, "")

    def close(self) -> None:
        """End the watchdog (it exits when it sees the pipe closed; reaped then, without waiting)."""
        with contextlib.suppress(OSError):
            os.close(self._write)
        self._shared.close()
        _UNREAPED.append(self.pid)
        _reap()


#: Watchdogs told to exit and not reaped yet: reaped without waiting for them (waiting took 10 ms).
_UNREAPED: list[int] = []


def _reap() -> None:
    for pid in list(_UNREAPED):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # reaped by someone else
            done = pid
        if done:
            _UNREAPED.remove(pid)


def _snapshot(shared: mmap.mmap) -> tuple[int, float, str] | None:
    """The shared state (change count, deadline, message), or None while a change is being written."""
    before, deadline, length = _HEAD.unpack_from(shared, 0)
    message = shared[_HEAD.size : _HEAD.size + max(0, min(length, _MESSAGE_BYTES))].decode("utf-8", "replace")
    after = _HEAD.unpack_from(shared, 0)[0]
    return (before, deadline, message) if before == after and before % 2 == 0 else None


def _watch(read: int, shared: mmap.mmap, parent: int, hangup_exits: bool) -> None:
    """The watchdog's loop: the deadline from ``shared`` (see :class:`Watchdog`); past it (seen the
    same twice, so that no half-written change decides), the message on standard error, then
    :func:`_stop`.  Returns when ``read`` closes (the loading phase, or the command, ended)."""
    for number in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", signal.SIGTERM)):
        signal.signal(number, signal.SIG_IGN)  # the command's signals are the command's to act on
    overdue: tuple[int, float, str] | None = None
    wait = POLL
    while True:
        ready, _, _ = select.select([read], [], [], wait)
        if ready and not os.read(read, 65536):
            return
        state = _snapshot(shared)
        wait = 0.01 if state is None else _due(state)  # (a change being written: looked at again soon)
        if state is not None and state[1] and wait <= 0:
            if state == overdue:
                os.write(2, f"Error: {state[2]}\n".encode("utf-8", "replace"))
                _stop(read, parent, hangup_exits)
                return
            overdue, wait = state, 0.0  # (looked at again at once)
        else:
            overdue = None


def _due(state: tuple[int, float, str]) -> float:
    """Seconds until the next look: until the deadline, or :data:`POLL` at most."""
    _, deadline, _ = state
    return min(POLL, deadline - time.monotonic()) if deadline else POLL


def _stop(read: int, parent: int, hangup_exits: bool) -> None:
    """End ``parent``: with SIGHUP where that makes it exit 1 at once (:func:`_exit_on_hangup`), the
    pipe ``read`` closing when it did; else, or if it did not within a second, with SIGKILL."""
    if hangup_exits:
        os.kill(parent, signal.SIGHUP)
        ready, _, _ = select.select([read], [], [], 1.0)
        if ready and not os.read(read, 65536):
            return  # (its end of the pipe closed: it is gone, and its number may be another's now)
    os.kill(parent, signal.SIGKILL)


def _exit_on_hangup() -> Callable[[], None] | None:
    """Make SIGHUP end this process at once with exit status 1, even inside a C call (the C library's
    ``_exit`` as the signal's handler: it is called with the signal's number, 1), and return what
    gives SIGHUP back to Python's handler; None where this cannot be set up."""
    if int(getattr(signal, "SIGHUP", 0)) != 1:
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None)
        set_handler = libc.signal
        exit_now = ctypes.cast(libc._exit, ctypes.c_void_p).value
    except (OSError, AttributeError):
        return None
    set_handler.restype = ctypes.c_void_p
    set_handler.argtypes = (ctypes.c_int, ctypes.c_void_p)
    handler = signal.getsignal(signal.SIGHUP)
    set_handler(1, exit_now)

    def restore() -> None:
        signal.signal(signal.SIGHUP, handler if handler is not None else signal.SIG_DFL)

    return restore


_WATCHDOG: Watchdog | None = None


@contextlib.contextmanager
def watched() -> Iterator[None]:
    """One :class:`Watchdog` for every :func:`time_limited` block inside (a loading phase), instead
    of one each: only where a limit applies (the main thread of a POSIX process, a limit set) and
    this process runs no other thread (forking one that does is unsafe); else nothing."""
    global _WATCHDOG
    if _WATCHDOG is not None or not (_can_limit() and plugin_seconds() > 0 and threading.active_count() == 1):
        yield
        return
    restore = _exit_on_hangup()
    _WATCHDOG = Watchdog(hangup_exits=restore is not None)
    try:
        yield
    finally:
        watchdog, _WATCHDOG = _WATCHDOG, None
        watchdog.close()
        if restore is not None:
            restore()


@contextlib.contextmanager
def time_limited(what: str, who: str = "a plugin") -> Iterator[None]:
    """Raise :class:`PluginTimeout` in the block after :data:`PLUGIN_SECONDS` (or
    ``$GAMETREE_PLUGIN_SECONDS``), by a timer signal: only in the main thread of a POSIX process
    (elsewhere no limit), and leaving any timer set before as it was.  ``what`` names the block
    in the message (``"its import"``), ``who`` the plugin (``"-p mod"``) in the watchdog's (see the
    module; inside :func:`watched`, its watchdog, else one for this block)."""
    seconds = plugin_seconds()
    if not (seconds > 0 and _can_limit()):
        yield
        return
    with watched() if _WATCHDOG is None else contextlib.nullcontext(), _timed(what, who, seconds):
        yield


@contextlib.contextmanager
def _timed(what: str, who: str, seconds: float) -> Iterator[None]:
    """:func:`time_limited`'s timer signal, and the watchdog's deadline if one watches."""
    previous_timer = signal.getitimer(signal.ITIMER_REAL)
    if previous_timer[0] > 0:  # someone else's timer runs: leave it alone
        yield
        return

    def expired(signum: int, frame: FrameType | None) -> None:
        raise PluginTimeout(f"{what} did not finish within {seconds:g} s (GAMETREE_PLUGIN_SECONDS)")

    previous = signal.signal(signal.SIGALRM, expired)
    watchdog = _WATCHDOG
    if watchdog is not None:
        watchdog.arm(
            seconds,
            f"{who}: PluginTimeout: {what} did not finish within {seconds:g} s (GAMETREE_PLUGIN_SECONDS), "
            "stuck in a call Python cannot interrupt: the command was stopped",
        )
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if watchdog is not None:
            watchdog.disarm()
