"""What a strong book build (``gametree book build GAME --all``) is doing, for its live line.

:class:`StrongBuildStatus` follows the build's two stages: first it lists the positions
(``enumerating ply N``, ply by ply), then it scores them (``scoring ply N``, the last ply first,
each ply written to the store as it is scored).  The line names the stage, and while listing,
how many positions are listed so far and how fast.  How many positions there are is what the
listing finds, so while it runs the time left for the whole build is an estimate, and the line
says so and what it rests on (:func:`estimate_positions`): the plies counted so far, the plies
still to list extrapolated from them (by the game's tier sizes where it has them,
:class:`gametree.game.Tiered`, which also bound the count from above), the listing's rate, and
the scoring taken as :data:`SCORING_SHARE` times the listing.  Once every position is found, the
plies still to score are known in positions, and the time left is what they take at the rate the
classes scored so far took (see :meth:`StrongBuildStatus.left`).  A build that goes on from a
stopped one (:func:`gametree.book.strong_resume`) knows how many positions it lists again, and
says how long the listing has left.

:func:`stop_hook` is a test hook: ``GAMETREE_BUILD_STOP=N:SIGNAL`` sends the build's own
process ``SIGNAL`` (``INT``, ``TERM`` or ``KILL``) at its ``N``-th progress report, so
that a test stops a build at a chosen point instead of after a chosen time.
"""

from __future__ import annotations

import math
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .game import Game, capabilities

__all__ = ["SCORING_SHARE", "STOP_VARIABLE", "Estimate", "StrongBuildStatus", "estimate_positions", "stop_hook"]

#: The test hook's environment variable (see the module).
STOP_VARIABLE = "GAMETREE_BUILD_STOP"

#: The scoring (and writing the store) of a position, in times the listing of one: what
#: ``book build --all`` took on 5x4 Connect Four here (25.6 s listing, its plies kept on disk, then
#: 34.2 s scoring and writing; docs/performance-log.md, 26 November 2026).
SCORING_SHARE = 1.3


@dataclass(frozen=True, slots=True)
class Estimate:
    """How many positions a listing finds in all: ``total`` (an estimate), at most ``upper``
    (None: no bound known); plies 0 to ``counted`` are counted, the deeper ones extrapolated."""

    total: int
    upper: int | None
    counted: int


def estimate_positions(counts: Sequence[int], last_ply: int, tiers: Sequence[int] | None = None) -> Estimate | None:
    """Estimate the positions at plies 0 to ``last_ply`` from their counts at plies 0 to
    ``len(counts) - 1`` (None while too few plies are counted to extrapolate).

    With ``tiers`` (each ply's tier size, :class:`gametree.game.Tiered`: an upper bound on its
    positions), ply ``j``'s positions are its tier size times the share of its tier the last ply
    counted fills, that share shrinking per ply as it did over the last two plies counted (games
    end, so deeper tiers are filled less).  Without them, each ply's positions are the last's
    times the growth per ply, the growth shrinking as it did over the last plies counted."""
    k = len(counts) - 1
    counted = sum(counts)
    if k >= last_ply:
        return Estimate(counted, counted, k)
    if tiers is not None and len(tiers) > last_ply and all(tiers[: k + 1]):
        share = counts[k] / tiers[k]
        before = counts[k - 2] / tiers[k - 2] if k >= 2 else 0.0
        shrink = min(1.0, math.sqrt(share / before)) if before > 0 else 1.0
        rest = 0.0
        for j in range(k + 1, last_ply + 1):
            share *= shrink
            rest += tiers[j] * share
        return Estimate(counted + round(rest), counted + sum(tiers[k + 1 : last_ply + 1]), k)
    if k < 4 or not all(counts[k - 4 : k + 1]):
        return None
    growth = math.sqrt(counts[k] / counts[k - 2])  # (per ply, over two plies: the plies' parity evens out)
    shrink = min(1.0, math.sqrt(growth / math.sqrt(counts[k - 2] / counts[k - 4])))
    size, rest = float(counts[k]), 0.0
    for _ in range(k + 1, last_ply + 1):
        growth *= shrink
        size *= growth
        if size < 1:
            break
        rest += size
    return Estimate(counted + round(rest), None, k)


def _short(number: float) -> str:
    """``3,905,001`` as ``3.9M``, ``41,250`` as ``41k``."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if number >= size:
            value = number / size
            return f"{value:.1f}{suffix}" if value < 10 else f"{value:.0f}{suffix}"
    return f"{number:.0f}"


def _clock(seconds: float) -> str:
    whole = int(seconds + 0.5)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


class StrongBuildStatus:
    """The live state of a strong build: fed by its ``progress(stage, done, total)`` and
    ``kept(n)`` callbacks (:func:`gametree.book.build_strong`), read by :meth:`text`."""

    def __init__(
        self,
        last_ply: int | None = None,
        tiers: Sequence[int] | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        #: The deepest ply a game can reach and each ply's tier size (for the estimate while
        #: listing; None: not known); ``clock`` gives the time in seconds.
        self.last_ply, self.tiers, self.clock = last_ply, tiers, clock
        self.started = clock()
        self.stage = "starting"
        self.done = self.total = 0
        #: Positions found at each ply (filled as each ply's enumeration ends).
        self.per_ply: dict[int, int] = {}
        #: Positions at each ply, known as soon as its listing starts; the positions read back from
        #: a listing kept by a stopped build (not listed by this one).
        self.sizes: dict[int, int] = {}
        self.read = 0
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

    @classmethod
    def for_game(cls, game: Game[Any, Any]) -> StrongBuildStatus:
        """The status of a strong build of ``game`` from its start: its deepest ply, and its tier
        sizes if it has tiers, one a ply."""
        last = game.info.max_plies
        tiered = capabilities(game).tiered
        tiers = None
        if last is not None and tiered is not None and tiered.tier_count() == last + 1:
            tiers = tuple(tiered.tier_size(t) for t in range(last + 1))
        return cls(last, tiers)

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
                self.listing_since = self.clock()
            self.sizes[ply] = total
            if done == total:
                self.per_ply[ply] = total
        elif what == "reading listed ply":
            if ply not in self.per_ply:
                self.read += total
            self.sizes[ply] = self.per_ply[ply] = total
        elif what == "scoring ply":
            if self.scoring_since is None:
                self.scoring_since = self.clock()
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
        """Positions listed per second (those read back from a kept listing left out), or None
        before the listing began."""
        if self.listing_since is None:
            return None
        spent = self.clock() - self.listing_since
        return (self.listed() - self.read) / spent if spent > 0 else None

    def estimate(self) -> Estimate | None:
        """The positions the first listing will find in all, estimated from the plies counted so
        far (:func:`estimate_positions`), or None (too few plies counted, or the game's depth unknown)."""
        if self.last_ply is None or not self.sizes:
            return None
        plies = max(self.sizes) + 1
        if any(p not in self.sizes for p in range(plies)):
            return None
        return estimate_positions([self.sizes[p] for p in range(plies)], self.last_ply, self.tiers)

    def estimated_left(self) -> tuple[float, Estimate] | None:
        """Seconds the whole build has left while its first listing runs, an estimate: the positions
        still to list at the listing's rate, then the scoring at :data:`SCORING_SHARE` times that
        rate; with the estimate of the positions it rests on (None while there is none)."""
        found = self.estimate()
        rate = self.listing_rate()
        if found is None or not rate:
            return None
        listing = max(0, found.total - self.listed()) / rate
        return listing + SCORING_SHARE * found.total / rate, found

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
        spent = self.clock() - self.scoring_since
        return spent * max(0, to_do) / done

    def text(self) -> str:
        """One line: the stage, its counts, the time so far and the time left."""
        elapsed = self.clock() - self.started
        if self.stage.startswith("reading listed"):
            what = f"listing (1/2): reading ply {self.ply} of the listing a stopped build kept"
            left = ""
        elif self.stage.startswith("enumerating"):
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
            return what, self._estimate_text()
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

    def _estimate_text(self) -> str:
        """The time left for the whole build while the first listing runs: an estimate, saying so
        and what it rests on."""
        known = self.estimated_left()
        if known is None and self.last_ply is None:
            return "time left: unknown until every position is listed (the game's depth is not known)"
        found = self.estimate()
        if found is None:
            return "time left: not estimated yet (too few plies listed)"
        upper = "" if found.upper is None else f", at most {_short(found.upper)} by the tier sizes"
        if known is None:
            return f"time left: estimated once the listing has a rate (~{_short(found.total)} positions{upper})"
        seconds = known[0]
        source = "the tier sizes" if found.upper is not None else "the growth per ply"
        rest = (
            f"plies {found.counted + 1}-{self.last_ply} extrapolated by {source}"
            if self.last_ply is not None and found.counted < self.last_ply
            else "every ply counted"
        )
        return (
            f"left about {_clock(seconds)} for the whole build (an estimate: ~{_short(found.total)} positions{upper}; "
            f"{rest}; scoring taken as {SCORING_SHARE:g}x the listing)"
        )


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
