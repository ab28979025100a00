"""Book files: a game's stored entries exported to a gzip text file, and imported back."""

from __future__ import annotations

import gzip
import json
from typing import Any

from ..files import write_atomically
from ..game import Game, M, S
from ..search.table import Bound
from .sqlite import GameEntries, SolutionStore, StoreError

__all__ = ["BOOK_FORMAT", "export_book", "game_identity", "import_book"]

#: The first line's ``format`` of an exported book.
BOOK_FORMAT = "gametree-book"


def game_identity(game: Game[S, M]) -> dict[str, Any] | None:
    """The options that recreate ``game`` (its ``options()``), or None if it does not say."""
    options = getattr(game, "options", None)
    if callable(options):
        value = options()
        if isinstance(value, dict):
            return value
    return None


def export_book(book: GameEntries, path: str) -> int:
    """Write ``book``'s entries to ``path`` (gzip-compressed lines: a JSON header, then
    ``key score images`` per exact entry and ``key score images kind best`` per bound or
    chosen move, the keys as JSON, the kind 0 for exact, 1 for "at least", -1 for "at
    most", ``best`` the key of the position the chosen move leads to, or null),
    atomically; returns how many.  A book of exact entries alone is of version 1, which
    gametree before bounds reads too."""
    lines = []
    count = 0
    for key, score, images, kind, best in book.entries():
        if kind or best is not None:
            lines.append(f"{json.dumps(key)} {score} {images} {kind} {json.dumps(best)}")
        else:
            lines.append(f"{json.dumps(key)} {score} {images}")
        count += 1
    version = 2 if any(line.count(" ") > 2 for line in lines) else 1
    lines.insert(0, json.dumps({"format": BOOK_FORMAT, "version": version, "game": book.name, "options": book.options}))
    write_atomically(path, gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), mtime=0))
    return count


def import_book(
    store: SolutionStore, path: str, *, expect: tuple[str, dict[str, Any]] | None = None
) -> tuple[GameEntries, int]:
    """Add the entries of the exported book at ``path`` to ``store`` (in one transaction);
    returns the book and how many entries.  A file that is not such a book is a StoreError."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as stream:
            header = json.loads(stream.readline())
            if not isinstance(header, dict) or header.get("format") != BOOK_FORMAT:
                raise StoreError(f"{path} is not a gametree book")
            if header.get("version") not in (1, 2):
                raise StoreError(
                    f"{path} is a gametree book of version {header.get('version')}; this gametree reads "
                    "versions 1 and 2"
                )
            name, options = header["game"], header["options"]
            if not isinstance(name, str) or not isinstance(options, dict):
                raise StoreError(f"{path} is a damaged gametree book (bad header)")
            if expect is not None and (name, options) != expect:
                raise StoreError(f"{path} is a book of {name} {options}, not of {expect[0]} {expect[1]}")
            entries, bounds, chosen = [], [], []
            for number, line in enumerate(stream, start=2):
                fields = line.split()
                if len(fields) not in (3, 5):
                    raise StoreError(f"{path}:{number}: not 'key score images [kind best]'")
                key, best = json.loads(fields[0]), json.loads(fields[4]) if len(fields) == 5 else None
                if not all(
                    isinstance(k, (int, str)) and not isinstance(k, bool) for k in (key, key if best is None else best)
                ):
                    raise StoreError(f"{path}:{number}: a key must be an integer or a string")
                kind = int(fields[3]) if len(fields) == 5 else Bound.EXACT
                if kind == Bound.EXACT:
                    entries.append((key, int(fields[1]), int(fields[2])))
                elif kind in (Bound.LOWER, Bound.UPPER):
                    bounds.append((key, int(fields[1]), Bound(kind)))
                else:
                    raise StoreError(
                        f"{path}:{number}: the kind of an entry is 0 (exact), 1 (at least) or -1 (at most)"
                    )
                if best is not None:
                    chosen.append((key, best))
    except (OSError, EOFError, UnicodeDecodeError, ValueError, KeyError, gzip.BadGzipFile) as exc:
        raise StoreError(f"cannot read the book {path}: {exc}") from None
    book = store.entries_of(name, options)
    book.put_many(entries)
    book.put_bounds(bounds)
    book.choose_many(chosen)
    return book, len(entries) + len(bounds)
