"""Proven values that last: the solution store.

- :mod:`.sqlite`: the store's file (:class:`SolutionStore`) and one game's entries in it
  (:class:`GameEntries`, the :class:`~gametree.search.known.KnownValues` searches read and write);
- :mod:`.memory`: one game's entries in memory (:class:`MemoryEntries`), for workers that cannot
  write the file;
- :mod:`.files`: book files, a game's entries exported and imported (``gametree book export``).

Searches never import this package: they reach it through
:class:`gametree.search.known.KnownValues`.  Opening books fill it ahead of time
(``gametree book build``).

>>> import os, tempfile
>>> store = SolutionStore(os.path.join(tempfile.mkdtemp(), "s.sqlite"))
>>> entries = store.entries_of("tictactoe", {"width": 3, "height": 3, "k": 3})
>>> entries.put_many([(0, 0), (5, 3)])
2
>>> entries.get(5), entries.get(7)
(3, None)
>>> store.close()
"""

from __future__ import annotations

from .files import BOOK_FORMAT, MAX_BOOK_BYTES, MAX_BOOK_LINE, book_digest, export_book, game_identity, import_book
from .memory import MemoryEntries
from .sqlite import (
    SCHEMA_VERSION,
    DamagedStore,
    GameEntries,
    GameSummary,
    SolutionStore,
    StoreError,
    default_store_path,
)

__all__ = [
    "BOOK_FORMAT",
    "MAX_BOOK_BYTES",
    "MAX_BOOK_LINE",
    "SCHEMA_VERSION",
    "DamagedStore",
    "GameEntries",
    "GameSummary",
    "MemoryEntries",
    "SolutionStore",
    "StoreError",
    "book_digest",
    "default_store_path",
    "export_book",
    "game_identity",
    "import_book",
]
