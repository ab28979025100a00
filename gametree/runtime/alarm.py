"""An alarm: call something (an engine's ``halt``) at a given time, from a timer thread, until cancelled."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["Alarm"]


class Alarm:
    """Calls ``ring()`` at a :func:`time.perf_counter` time (a daemon timer thread), unless cancelled first.

    The exact solver halts its engine this way when a time limit runs out: the search stops at its
    next node (the compiled one at its next node too, from its stop word)."""

    def __init__(self, ring: Callable[[], None]) -> None:
        self.ring = ring
        self.timer: threading.Timer | None = None

    def at(self, when: float | None) -> None:
        """Ring at ``when`` (None: never), instead of any time set before."""
        self.cancel()
        if when is None:
            return
        timer = threading.Timer(max(0.0, when - time.perf_counter()), self.ring)
        timer.daemon = True
        timer.start()
        self.timer = timer

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
