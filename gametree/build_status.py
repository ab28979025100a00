"""What a strong book build (``gametree book build GAME --all``) is doing, for its live line.

:class:`StrongBuildStatus` follows the build's two stages: first it lists the positions
(``enumerating ply N``, ply by ply), then it scores them (``scoring ply N``, the last ply first,
each ply written to the store as it is scored).  The line names the stage, and while listing,
how many positions are listed so far and how fast.  The time left for the whole build cannot be
known while the positions are listed (how many there are is what is being found); once they are
all found, the plies still to score are known in positions, and the time left is what they take at
the rate the classes scored so far took (see :meth:`StrongBuildStatus.left`).  A build that goes
on from a stopped one (:func:`gametree.book.strong_resume`) knows how many positions it lists
again, and says how long the listing has left.

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
        #: When the listing began.
        self.listing_since: float | None = None
        #: A build going on from a stopped one: the ply it lists down to, and each ply's positions.
        self.resumed_at: int | None = None
        self.expected: tuple[int, ...] = ()
        #: The plies scored (and written) so far, their classes (positions scored once for all their
        #: mirror images), and when scoring began.
        self.scored_plies: set[int] = set()
        self.classes: dict[int, int] = {}
        self.scoring_since: float | None = None
        self.ply = -1
        self.kept = 0

    def resuming(self, ply: int, per_ply: tuple[int, ...]) -> None:
        """The build goes on from a stopped one: it lists the positions down to ``ply`` (where it
        reads the scores kept), and the plies hold ``per_ply`` positions."""
        self.resumed_at, self.expected = ply, per_ply

    def progress(self, stage: str, done: int, total: int) -> None:
        """The build's progress callback."""
        what, _, number = stage.rpartition(" ")
        ply = int(number) if number.isdigit() else -1
        if what == "enumerating ply":
            if self.listing_since is None:
                self.listing_since = time.perf_counter()
            if done == total:
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

    def listed(self) -> int:
        """Positions listed so far (those of the plies done and of the ply under way)."""
        under_way = self.done if self.stage.startswith("enumerating") and self.ply not in self.per_ply else 0
        return sum(self.per_ply.values()) + under_way

    def listing_rate(self) -> float | None:
        """Positions listed per second, or None before the listing began."""
        if self.listing_since is None:
            return None
        spent = time.perf_counter() - self.listing_since
        return self.listed() / spent if spent > 0 else None

    def listing_left(self) -> float | None:
        """Seconds the listing has left: known only when the build goes on from a stopped one
        (whose listing counted the positions), at the rate of the listing so far."""
        rate = self.listing_rate()
        if self.resumed_at is None or not rate:
            return None
        to_list = sum(self.expected[: self.resumed_at + 1])  # (the ply read from the store: its positions too)
        return max(0, to_list - self.listed()) / rate

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
        """One line: the stage, its counts, the time so far and the time left."""
        elapsed = time.perf_counter() - self.started
        if self.stage.startswith("enumerating"):
            what, left = self._listing_text()
        elif self.stage.startswith("reading"):
            what = f"listing (1/2): reading ply {self.ply}'s scores kept in the store ({self.done:,}/{self.total:,})"
            left = "the whole build's time left is known once scoring starts"
        elif self.stage.startswith("scoring"):
            what = f"scoring (2/2) ply {self.ply} ({self.done:,}/{self.total:,}), {self.kept:,} kept in the store"
            seconds = self.left()
            left = (
                "time left: known once the first scores are in"
                if seconds is None
                else f"left {_clock(seconds)} for the whole build"
            )
        else:
            what, left = self.stage, ""
        return " · ".join(part for part in (what, f"{_clock(elapsed)} so far", left) if part)

    def _listing_text(self) -> tuple[str, str]:
        """What the line says while the positions are listed, and of the time left."""
        rate = self.listing_rate()
        speed = "" if rate is None else f" ({rate:,.0f}/s)"
        if self.resumed_at is None:
            what = f"listing the positions (1/2), ply {self.ply}: {self.listed():,} listed{speed}"
            return what, "time left: unknown until every position is listed"
        deepest = len(self.expected) - 1
        kept = f"plies {self.resumed_at} to {deepest} kept" if deepest > self.resumed_at else "finished ones kept"
        to_list = sum(self.expected[: self.resumed_at + 1])
        what = (
            f"listing the positions again down to ply {self.resumed_at} ({kept}) (1/2), ply {self.ply}: "
            f"{self.listed():,} of {to_list:,} listed{speed}"
        )
        seconds = self.listing_left()
        if seconds is None:
            return what, "listing left: ?"
        return what, f"listing left about {_clock(seconds)}, then the scoring"


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
