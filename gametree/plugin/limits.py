"""How long a plugin's import, or one of its registration hooks, may take: a plugin that loops
forever would otherwise hang every command.

>>> with time_limited("a quick hook"):
...     pass
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

__all__ = ["PLUGIN_SECONDS", "PluginTimeout", "time_limited"]

#: Seconds a plugin's import, or one of its registration hooks, may take before it is given up as
#: broken (``GAMETREE_PLUGIN_SECONDS``; a plugin that loops forever would hang every command).
PLUGIN_SECONDS = 10.0


class PluginTimeout(Exception):
    """A plugin's import or hook ran past :data:`PLUGIN_SECONDS`."""


@contextlib.contextmanager
def time_limited(what: str) -> Iterator[None]:
    """Raise :class:`PluginTimeout` in the block after :data:`PLUGIN_SECONDS` (or
    ``$GAMETREE_PLUGIN_SECONDS``), by a timer signal: only in the main thread of a POSIX process
    (elsewhere no limit), and leaving any timer set before as it was.  ``what`` names the block
    in the message (``"its import"``)."""
    try:
        seconds = float(os.environ.get("GAMETREE_PLUGIN_SECONDS", PLUGIN_SECONDS))
    except ValueError:
        seconds = PLUGIN_SECONDS
    if not (seconds > 0 and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()):
        yield
        return
    previous_timer = signal.getitimer(signal.ITIMER_REAL)
    if previous_timer[0] > 0:  # someone else's timer runs: leave it alone
        yield
        return

    def expired(signum: int, frame: FrameType | None) -> None:
        raise PluginTimeout(f"{what} did not finish within {seconds:g} s (GAMETREE_PLUGIN_SECONDS)")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
