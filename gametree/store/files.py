"""Book files: a game's stored entries exported to a gzip text file, and imported back.

A book comes from outside, so nothing in it is trusted: :func:`import_book` reads it as a stream
(gzip line by line, each line and the whole text bounded: :data:`MAX_BOOK_LINE`,
:data:`MAX_BOOK_BYTES`), checks every line (its fields, keys and numbers in range, with the file
and the line number in every message), and stages the entries in a temporary table; a
:class:`BookVetter` (the game's checks: :class:`gametree.book_check.BookChecker`) checks each
entry against the game and then verifies the values; only then are they merged into the store,
in the same transaction.  A book that fails anywhere leaves the store exactly as it was.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import sqlite3
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from ..files import write_atomically
from ..game import Game, M, S
from ..search.known import Known, StoreKey
from ..search.table import Bound
from .sqlite import GameEntries, SolutionStore, Staging, StoreError

__all__ = [
    "BOOK_FORMAT",
    "MAX_BOOK_BYTES",
    "MAX_BOOK_LINE",
    "BookEntry",
    "BookVetter",
    "Lookup",
    "book_digest",
    "export_book",
    "game_identity",
    "import_book",
]

#: The first line's ``format`` of an exported book.
BOOK_FORMAT = "gametree-book"
#: The longest line of a book, in bytes (its header included): far more than any key takes.
MAX_BOOK_LINE = 65_536
#: The most a book may hold once decompressed, in bytes (a strong solution of 5x4 Connect Four,
#: 3.9 million entries, takes about 80 MB).
MAX_BOOK_BYTES = 1 << 30
#: The largest integer a store keeps (SQLite's INTEGER: 64 bits, signed).
_INT64 = 1 << 63
#: The most positions one entry may stand for (its mirror images).
_MAX_IMAGES = 1 << 31
#: Entries staged per statement.
_CHUNK = 1000
_INTEGER = re.compile(r"-?[0-9]{1,20}")

#: What is known of a key while a book is checked: the entry (the book's own first, else the store's)
#: and the book's line that gave it (None: the store's).
Lookup = Callable[[StoreKey], "tuple[Known, int | None] | None"]


@dataclass(frozen=True, slots=True)
class BookEntry:
    """One line of a book: ``key score images [kind best]``, read and checked."""

    line: int
    key: StoreKey
    score: int
    images: int
    kind: Bound
    best: StoreKey | None


class BookVetter(Protocol):
    """The game's checks of a book (:class:`gametree.book_check.BookChecker`): the store cannot tell
    a game's keys and scores apart from noise, the game can."""

    def begin(self, path: str, name: str, options: dict[str, Any]) -> None:
        """Check the header: the game installed, the options accepted (a :class:`StoreError` if not)."""
        ...

    def check(self, entry: BookEntry) -> str | None:
        """Why ``entry`` cannot be one of this game's (its key, its score), or None."""
        ...

    def verify(self, path: str, lookup: Lookup) -> str | None:
        """Why the staged values cannot be trusted (they contradict the game or each other), or None;
        the reason starts with the number of the book's line at fault and a colon."""
        ...


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


def book_digest(path: str) -> str:
    """The SHA-256 of the book file at ``path`` (as ``sha256sum`` prints it)."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def import_book(
    store: SolutionStore,
    path: str,
    *,
    expect: tuple[str, dict[str, Any]] | None = None,
    vetter: BookVetter | None = None,
    trusted_digest: str | None = None,
) -> tuple[GameEntries, int]:
    """Add the entries of the exported book at ``path`` to ``store``, all of them or none (one
    transaction); returns the book and how many entries.  Every line is checked (see the module),
    against the game too with a ``vetter``, which then verifies the values, unless the file's
    SHA-256 is ``trusted_digest`` (a shipped book whose checksum was recorded when it was made).
    A file that is not such a book, or fails a check, is a :class:`StoreError` naming the file (and
    the line); the store is then left exactly as it was."""
    store.check_writable()
    verify = vetter is not None and (trusted_digest is None or _digest_or_none(path) != trusted_digest)
    try:
        # Staged and checked without the store's write lock (other processes go on writing meanwhile);
        # then merged in one transaction.
        with gzip.open(path, "rb") as raw:
            name, options, staging, count = _stage(store, path, _Lines(path, raw), expect, vetter)
        if verify and vetter is not None:
            why = vetter.verify(path, staging.lookup(name, options))
            if why is not None:  # ("LINE: why")
                raise StoreError(f"{path}:{why}: the book is refused, the store is left as it was")
        with store.transaction():
            staging.merge(name, options)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise StoreError(f"cannot read the book {path}: {getattr(exc, 'strerror', None) or exc}") from None
    except sqlite3.Error as exc:  # (the temporary table: a full disk, say)
        raise StoreError(f"cannot import the book {path} into the store {store.path}: {exc}") from None
    finally:
        store.drop_staging()
    return store.entries_of(name, options), count


def _stage(
    store: SolutionStore,
    path: str,
    lines: _Lines,
    expect: tuple[str, dict[str, Any]] | None,
    vetter: BookVetter | None,
) -> tuple[str, dict[str, Any], Staging, int]:
    """Read the book's header and entries, check each, and stage them: the game, its options, the
    staged entries and how many."""
    name, options = _read_header(path, lines, expect)
    if vetter is not None:
        vetter.begin(path, name, options)
    staging = store.staging()
    count = 0
    for chunk in _chunks(_read_entries(path, lines, vetter)):
        twice = staging.add(chunk)
        if twice is not None:
            raise StoreError(f"{path}:{twice[0]}: the key of this entry is given twice (first on line {twice[1]})")
        count += len(chunk)
    return name, options, staging, count


def _digest_or_none(path: str) -> str | None:
    try:
        return book_digest(path)
    except OSError:
        return None


class _Lines:
    """A book's lines as bytes, each and all of them bounded."""

    def __init__(self, path: str, raw: gzip.GzipFile) -> None:
        self.path = path
        self.raw = raw
        self.number = 0
        self.total = 0

    def next(self) -> str | None:
        """The next line without its end (None at the end of the file)."""
        data = self.raw.readline(MAX_BOOK_LINE + 1)
        if not data:
            return None
        self.number += 1
        self.total += len(data)
        if len(data) > MAX_BOOK_LINE:
            raise StoreError(f"{self.path}:{self.number}: a line of more than {MAX_BOOK_LINE:,} bytes: not a book")
        if self.total > MAX_BOOK_BYTES:
            raise StoreError(
                f"{self.path}:{self.number}: more than {MAX_BOOK_BYTES:,} bytes once decompressed: "
                "a book is at most that large"
            )
        try:
            return data.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError:
            raise StoreError(f"{self.path}:{self.number}: not UTF-8 text") from None


def _read_header(path: str, lines: _Lines, expect: tuple[str, dict[str, Any]] | None) -> tuple[str, dict[str, Any]]:
    """The book's game and options, from its first line."""
    first = lines.next()
    try:
        header = json.loads(first) if first is not None else None
    except (ValueError, RecursionError):
        header = None
    if not isinstance(header, dict) or header.get("format") != BOOK_FORMAT:
        raise StoreError(f"{path} is not a gametree book")
    if header.get("version") not in (1, 2) or isinstance(header.get("version"), bool):
        version = str(header.get("version"))[:20]
        raise StoreError(f"{path} is a gametree book of version {version}; this gametree reads versions 1 and 2")
    name, options = header.get("game"), header.get("options")
    if not isinstance(name, str) or not isinstance(options, dict):
        raise StoreError(f"{path}:1: a damaged gametree book (its header lacks the game's name or options)")
    if expect is not None and (name, options) != expect:
        raise StoreError(f"{path} is a book of {name} {options}, not of {expect[0]} {expect[1]}")
    return name, options


def _read_entries(path: str, lines: _Lines, vetter: BookVetter | None) -> Iterator[BookEntry]:
    """The book's entries, each checked (against the game too, with a vetter)."""
    while (text := lines.next()) is not None:
        entry = _parse(lines.number, text.split())
        if isinstance(entry, str):
            raise StoreError(f"{path}:{lines.number}: {entry}")
        why = None if vetter is None else vetter.check(entry)
        if why is not None:
            raise StoreError(f"{path}:{lines.number}: {why}")
        yield entry


def _parse(number: int, fields: list[str]) -> BookEntry | str:
    """One line's entry, or why it is none."""
    if len(fields) not in (3, 5):
        return "not 'key score images [kind best]'"
    key = _key(fields[0])
    if isinstance(key, _Bad):
        return f"the key {key.why}"
    score, images = _integer(fields[1]), _integer(fields[2])
    if score is None:
        return f"the score {_clip(fields[1])} is not an integer of at most 64 bits"
    if images is None or not 1 <= images <= _MAX_IMAGES:
        return f"the count of images {_clip(fields[2])} is not a whole number from 1 to {_MAX_IMAGES:,}"
    kind, best = Bound.EXACT, None
    if len(fields) == 5:
        number_kind = _integer(fields[3])
        if number_kind not in (0, 1, -1):
            return "the kind of an entry is 0 (exact), 1 (at least) or -1 (at most)"
        kind = Bound(number_kind)
        found = None if fields[4] == "null" else _key(fields[4])
        if isinstance(found, _Bad):
            return f"the chosen move's key {found.why}"
        best = found
    if kind is not Bound.EXACT and images != 1:
        return "a bound stands for one position (images 1)"
    return BookEntry(number, key, score, images, kind, best)


@dataclass(frozen=True, slots=True)
class _Bad:
    why: str


def _key(token: str) -> StoreKey | _Bad:
    """A key as a book writes it: an integer of at most 64 bits, or a JSON string of text."""
    if token.startswith('"'):
        try:
            key = json.loads(token)
        except ValueError:
            return _Bad(f"{_clip(token)} is not a JSON string")
        if not isinstance(key, str):
            return _Bad(f"{_clip(token)} is not a JSON string")
        try:
            key.encode("utf-8")
        except UnicodeEncodeError:
            return _Bad(f"{_clip(token)} is not text (a lone surrogate)")
        return key
    number = _integer(token)
    if number is None:
        return _Bad(f"{_clip(token)} is neither an integer of at most 64 bits nor a JSON string")
    return number


def _integer(token: str) -> int | None:
    """``token`` as a signed 64-bit integer written plainly in ASCII digits, or None."""
    if _INTEGER.fullmatch(token) is None:
        return None
    number = int(token)
    return number if -_INT64 <= number < _INT64 else None


def _clip(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _chunks(entries: Iterator[BookEntry]) -> Iterator[list[BookEntry]]:
    chunk: list[BookEntry] = []
    for entry in entries:
        chunk.append(entry)
        if len(chunk) == _CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
