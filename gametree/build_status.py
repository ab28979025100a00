"""What a strong book build (``gametree book build GAME --all``) is doing, for its live line.

:class:`StrongBuildStatus` follows the build's stages (``enumerating ply N``, then
``scoring ply N``, the last ply first, each ply written to the store as it is scored)
and tells the time left for the whole build, not the stage: while positions are being
enumerated it cannot be known (how many there are is what is being found); once they
are all found, the plies still to score are known in positions, and the time left is
what they take at the rate the plies scored so far took (see :meth:`StrongBuildStatus.left`).

:func:`stop_hook` is a test hook: ``GAMETREE_BUILD_STOP=N:SIGNAL`` sends the build's own
process ``SIGNAL`` (``INT``, ``TERM`` or ``KILL``) at its ``N``-th progress report, so
that a test stops a build at a chosen point instead of after a chosen time.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable

__all__ = ["STOP_VARIABLE", "StrongBuildStatus", "stop_hook"]

#: The test hook's environment variable (see the module).
STOP_VARIABLE = "GAMETREE_BUILD_STOP"


def _clock(seconds: float) -> str:
    whole = int(seconds + 0.5)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


class StrongBuildStatus:
    """The live state of a strong build: fed by its ``progress(stage, done, total)`` and
    ``kept(n)`` callbacks (:func:`gametree.book.build_strong`), read by :meth:`text`."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.stage = "starting"
        self.done = self.total = 0
        #: Positions found at each ply (filled as each ply's enumeration ends).
        self.per_ply: dict[int, int] = {}
        #: The plies scored (and written) so far, their classes (positions scored once for all their
        #: mirror images), and when scoring began.
        self.scored_plies: set[int] = set()
        self.classes: dict[int, int] = {}
        self.scoring_since: float | None = None
        self.ply = -1
        self.kept = 0

    def progress(self, stage: str, done: int, total: int) -> None:
        """The build's progress callback."""
        what, _, number = stage.rpartition(" ")
        ply = int(number) if number.isdigit() else -1
        if what == "enumerating ply" and done == total:
            self.per_ply[ply] = total
        elif what == "scoring ply":
            if self.scoring_since is None:
                self.scoring_since = time.perf_counter()
            self.classes[ply] = total
            if done == total:
                self.scored_plies.add(ply)
        self.stage, self.ply, self.done, self.total = stage, ply, done, total

    def record_kept(self, entries: int) -> None:
        """The build's ``kept`` callback: ``entries`` written to the store so far."""
        self.kept = entries

    def left(self) -> float | None:
        """Seconds left for the whole build, or None while that cannot be known.

        The work is counted in classes scored: those of the plies scored so far (and of the ply
        under way) are known; a ply still to score is counted by its positions (the shallow plies
        left have few finished positions or mirror images), at the rate of the classes so far."""
        if self.scoring_since is None:
            return None
        done = sum(self.classes[p] for p in self.scored_plies) + (0 if self.ply in self.scored_plies else self.done)
        if done <= 0:
            return None
        to_do = sum(n for p, n in self.per_ply.items() if p not in self.classes)
        if self.ply not in self.scored_plies:
            to_do += self.classes.get(self.ply, 0) - self.done
        spent = time.perf_counter() - self.scoring_since
        return spent * max(0, to_do) / done

    def text(self) -> str:
        """One line: the stage, its counts, the time so far and the time left for the whole build."""
        elapsed = time.perf_counter() - self.started
        if self.stage.startswith("enumerating"):
            found = sum(self.per_ply.values()) + self.done
            what = f"{self.stage}: {found:,} positions found"
            left = "left: known once every position is found"
        elif self.stage.startswith("scoring"):
            what = f"{self.stage} ({self.done:,}/{self.total:,}), {self.kept:,} kept in the store"
            seconds = self.left()
            left = "left: ?" if seconds is None else f"left {_clock(seconds)} for the whole build"
        else:
            what, left = self.stage, ""
        return " · ".join(part for part in (what, f"{_clock(elapsed)} so far", left) if part)


def stop_hook() -> Callable[[], None]:
    """A function to call at each progress report: it sends the signal ``GAMETREE_BUILD_STOP``
    names at the report it names (see the module); it does nothing when the variable is unset."""
    text = os.environ.get(STOP_VARIABLE, "").strip()
    if not text:
        return lambda: None
    count, _, name = text.partition(":")
    at, signum = int(count), getattr(signal, f"SIG{name or 'INT'}")
    seen = 0

    def hook() -> None:
        nonlocal seen
        seen += 1
        if seen == at:
            os.kill(os.getpid(), signum)

    return hook
