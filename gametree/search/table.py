"""A bounded transposition table that is correct with alpha-beta windows.

Each entry stores a *lower* and an *upper* bound on a position's score, the
best move found and the horizon the bounds are valid for (the ply down to
which the position was searched: a later search may use them if it looks no
deeper).  An exact value is simply ``lower == upper``; a bound is never used
as an exact value.

Size is bounded in entries (``max_entries``) or megabytes
(:meth:`TranspositionTable.from_megabytes`).  Replacement is by generations:
new entries go to the current generation; when it holds half the budget, it
becomes the old generation (the previous old one is dropped).  Probes look in
both, so recently useful entries survive and memory never exceeds the budget.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from ..game import Move

__all__ = ["DEFAULT_ENTRIES", "Bound", "Entry", "TranspositionTable", "parse_cache_size", "table_of", "UNLIMITED_DEPTH"]

#: The horizon of entries whose subtree was searched without a depth limit: to the end.
UNLIMITED_DEPTH = 1 << 30

#: Rough bytes one entry costs in CPython (dict slot, tuple, key, move), rounded up.
BYTES_PER_ENTRY = 200

#: The default bound: at most about 600 MB when full; small searches use a fraction.
DEFAULT_ENTRIES = 3_000_000


class Bound(enum.IntEnum):
    """What a value says about a position's true score: it is the score (``EXACT``), the score is at
    least it (``LOWER``, a lower bound), or at most it (``UPPER``).

    The one spelling of a bound from the engine's fail-soft results to the table, the solution
    store (whose ``kind`` column holds these numbers: 0, 1 and -1) and exported books.
    """

    EXACT = 0
    LOWER = 1
    UPPER = -1

    @property
    def label(self) -> str:
        """``"exact"``, ``"lower"`` or ``"upper"``: how tree exports and JSON name it."""
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Entry:
    """A table entry, typed, as :meth:`TranspositionTable.get` returns it (the table keeps plain
    tuples, which the engine reads directly).

    The score lies in ``[lower, upper]`` (``-inf``/``inf`` when unbounded) for a
    search down to ply ``horizon`` (:data:`UNLIMITED_DEPTH`: to the end); ``move`` was the best move found.
    """

    lower: float
    upper: float
    move: Move
    horizon: int

    @property
    def bound(self) -> Bound:
        if self.lower == self.upper:
            return Bound.EXACT
        return Bound.LOWER if self.upper == float("inf") else Bound.UPPER


class TranspositionTable:
    """Maps ``game.key(state)`` to ``(lower, upper, move, horizon)`` tuples.

    The engine's node reads the ``current`` and ``old`` dictionaries and stores
    into ``current`` directly, as :meth:`get` and :meth:`put` do (starting a new
    generation when ``current`` holds ``generation_size`` entries), and adds its
    own counts to ``probes``, ``hits`` and ``stores``: a method call per node
    would cost more than the probe.
    """

    __slots__ = ("max_entries", "requested", "generation_size", "current", "old", "probes", "hits", "stores")

    def __init__(self, max_entries: int = DEFAULT_ENTRIES, *, requested: bool = False) -> None:
        if max_entries < 2:
            raise ValueError("a transposition table needs room for at least 2 entries")
        self.max_entries = max_entries
        #: The size was asked for by the user (``--cache-size``): the compiled engine's table then
        #: takes all of that memory, not only its own default at most.
        self.requested = requested
        #: Entries in the current generation before it becomes the old one.
        self.generation_size = max_entries // 2
        self.current: dict[Hashable, tuple[float, float, Any, int]] = {}
        self.old: dict[Hashable, tuple[float, float, Any, int]] = {}
        self.probes = self.hits = self.stores = 0

    @classmethod
    def from_megabytes(cls, megabytes: float) -> TranspositionTable:
        return cls(max(2, int(megabytes * 1024 * 1024 / BYTES_PER_ENTRY)))

    def __len__(self) -> int:
        return len(self.current) + len(self.old)

    def get(self, key: Hashable) -> Entry | None:
        """The entry stored for ``key``, typed, or None; counted as a probe (and a hit)."""
        self.probes += 1
        entry = self.current.get(key)
        if entry is None:
            entry = self.old.get(key)
            if entry is None:
                return None
        self.hits += 1
        return Entry(*entry)

    def put(self, key: Hashable, lower: float, upper: float, move: Move, horizon: int) -> None:
        """Store bounds for ``key``; a full current generation becomes the old one first."""
        self.stores += 1
        current = self.current
        if len(current) >= self.generation_size and key not in current:
            self.old = current
            self.current = current = {}
        current[key] = (lower, upper, move, horizon)

    def clear(self) -> None:
        self.current, self.old = {}, {}


def table_of(cache: TranspositionTable | bool | None) -> TranspositionTable | None:
    """The table a search uses: the one given, a fresh default one for ``True``, none for ``False``/``None``."""
    if isinstance(cache, TranspositionTable):
        return cache
    return TranspositionTable() if cache else None


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b|[kmgt]|b)?\s*$", re.IGNORECASE)

#: Entries by the thousand, million, billion or trillion (``2M``); memory in bytes (``B``) or by
#: powers of 1024 however the unit is spelt: ``MB`` and ``MiB`` are both 2**20 bytes, as gametree
#: has always read ``256MB``, so that the limit, 1 TiB, is also ``1TB`` and ``1024GB``.
_ENTRY_UNITS = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BYTE_UNITS = {"b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


#: The largest cache :func:`parse_cache_size` accepts: 1 TiB, at :data:`BYTES_PER_ENTRY` an entry
#: (about 5.5 billion entries).  Beyond it a size is a typo, not a plan.
MAX_CACHE_BYTES = 1 << 40


def parse_cache_size(text: str) -> TranspositionTable:
    """``"500000"`` (entries), ``"2M"`` (entries) or ``"256MB"`` (memory; ``KB``, ``MB``, ``GB``, ``TB``
    count in 1024s, as ``KiB`` ... ``TiB`` do; ``B``: bytes).

    Between 2 entries and :data:`MAX_CACHE_BYTES` of memory (1 TiB), whichever
    way it is written; else a one-line :class:`ValueError`.
    """
    shown = text if len(text) <= 60 else text[:57] + "..."
    match = _SIZE.match(text)
    if not match:
        raise ValueError(
            f"cache size {shown!r}: expected a number of entries (e.g. 500000, 2M) or of bytes (e.g. 256MB, 1GiB, 1TB)"
        )
    number, unit = float(match.group(1)), (match.group(2) or "").lower()  # (float: inf for hundreds of digits)
    if unit.endswith("b"):
        entries = number * _BYTE_UNITS[unit[0]] / BYTES_PER_ENTRY
    else:
        entries = number * _ENTRY_UNITS[unit]
    most = MAX_CACHE_BYTES // BYTES_PER_ENTRY
    if not entries < most + 1:  # (whole entries: 1024GB is ``most`` and a bit)
        raise ValueError(f"cache size {shown!r}: at most 1 TiB (1TB, 1024GB, {most} entries)")
    if entries < 2:
        raise ValueError(f"cache size {shown!r}: at least 2 entries ({2 * BYTES_PER_ENTRY} bytes)")
    return TranspositionTable(int(entries), requested=True)
