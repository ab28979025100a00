"""One game's entries in memory: what a worker that cannot write the store proves, handed back."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..search.known import Known, StoreKey
from ..search.table import Bound
from .sqlite import GameEntries

__all__ = ["MemoryEntries"]


class MemoryEntries(GameEntries):
    """One game's entries in memory, for a worker process that cannot write the store (a Dask worker on
    another machine): what its searches prove is collected here and handed back (:meth:`take`)
    to the process that writes the store."""

    def __init__(self, name: str, options: dict[str, Any]) -> None:
        self.name = name
        self.options = options
        self.write_error = None
        self.values: dict[StoreKey, int] = {}
        self.fresh: list[tuple[StoreKey, int]] = []
        self.bounds: dict[StoreKey, tuple[int, int]] = {}
        self.fresh_bounds: list[tuple[StoreKey, int, int]] = []
        self.chosen: dict[StoreKey, StoreKey] = {}

    def get(self, key: StoreKey) -> int | None:
        return self.values.get(key)

    def entry(self, key: StoreKey) -> Known | None:
        if key in self.values:
            return Known(self.values[key], Bound.EXACT, self.chosen.get(key))
        found = self.bounds.get(key)
        return None if found is None else Known(found[0], Bound(found[1]), self.chosen.get(key))

    def choose_many(self, items: Iterable[tuple[StoreKey, StoreKey]]) -> None:
        self.chosen.update(items)

    def chosen_moves(self) -> int:
        return len(self.chosen)

    def has_chosen_moves(self) -> bool:
        return bool(self.chosen)

    def put_bounds(self, items: Iterable[tuple[StoreKey, int, Bound]]) -> int:
        count = 0
        for key, score, kind in items:
            old = self.bounds.get(key)
            if key not in self.values and (old is None or (old[1] == kind and kind * (score - old[0]) > 0)):
                self.bounds[key] = (int(score), int(kind))
                self.fresh_bounds.append((key, int(score), int(kind)))
            count += 1
        return count

    def has_many(self, keys: Sequence[StoreKey]) -> set[StoreKey]:
        return {k for k in keys if k in self.values}

    def put_many(self, items: Iterable[tuple[StoreKey, int]] | Iterable[tuple[StoreKey, int, int]]) -> int:
        count = 0
        for item in items:
            self.values[item[0]] = int(item[1])
            self.fresh.append((item[0], int(item[1])))
            count += 1
        return count

    def record(self, exact: Sequence[tuple[StoreKey, int]], bounds: Sequence[tuple[StoreKey, int, Bound]]) -> int:
        return self.put_many(exact) + self.put_bounds(bounds)

    def take(self) -> list[tuple[StoreKey, int]]:
        """The exact entries put since the last take."""
        fresh, self.fresh = self.fresh, []
        return fresh

    def take_bounds(self) -> list[tuple[StoreKey, int, int]]:
        """The bounds put since the last take."""
        fresh, self.fresh_bounds = self.fresh_bounds, []
        return fresh
