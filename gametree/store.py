"""Proven values that last: a solution store in an embedded SQLite file.

A :class:`SolutionStore` keeps proven scores of positions, keyed by the game
(its registry name and the options that recreate it) and the position's
canonical key (the same key for a position and its mirror image).  An entry
is an exact score, or a bound on it (:data:`AT_LEAST`, :data:`AT_MOST`: what a
weak solve proves, "a win" being "at least +1").  Searches
read it before searching and write what they prove (:class:`Stored`, which
wraps a search engine); opening books fill it ahead of time (``gametree book
build``) and ship in files (:func:`export_book`, :func:`import_book`).

The file is SQLite in WAL mode (several readers and one writer at a time),
with its schema version in ``PRAGMA user_version`` and gametree's mark in
``PRAGMA application_id``; every write is a transaction.  A file that is not
such a store (another program's database, a corrupt file) is refused with a
:class:`StoreError` naming it, and left untouched.

>>> import os, tempfile
>>> store = SolutionStore(os.path.join(tempfile.mkdtemp(), "s.sqlite"))
>>> book = store.book("tictactoe", {"width": 3, "height": 3, "k": 3})
>>> book.put_many([(0, 0), (5, 3)])
2
>>> book.get(5), book.get(7)
(3, None)
>>> store.close()
"""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from .game import Game, State, capabilities

__all__ = [
    "APPLICATION_ID",
    "AT_LEAST",
    "AT_MOST",
    "BOOK_FORMAT",
    "EXACT",
    "Entry",
    "SCHEMA_VERSION",
    "Book",
    "GameEntry",
    "MemoryBook",
    "SolutionStore",
    "StoreError",
    "Stored",
    "default_store_path",
    "canonical_keyer",
    "export_book",
    "game_identity",
    "import_book",
    "record_result",
    "storable_key",
]

#: ``PRAGMA application_id`` of a gametree store ("gtre").
APPLICATION_ID = 0x67747265
#: The schema this code writes.  A store of version 1 (exact scores only) is upgraded when
#: opened for writing; any other version is refused.
SCHEMA_VERSION = 2
#: What an entry's score is: the exact score, or a lower or an upper bound on it.
EXACT, AT_LEAST, AT_MOST = 0, 1, -1


class Entry(NamedTuple):
    """A stored position: its ``score`` (``kind``: :data:`EXACT`, :data:`AT_LEAST` or
    :data:`AT_MOST`), and ``best``, the key of the position a chosen move keeping the score
    leads to (None if none was chosen): the move a book tells a perfect player to take."""

    score: int
    kind: int
    best: int | str | None = None
#: The first line's ``format`` of an exported book.
BOOK_FORMAT = "gametree-book"

_SCHEMA = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    options TEXT NOT NULL,
    UNIQUE (name, options)
);
CREATE TABLE positions (
    game INTEGER NOT NULL REFERENCES games (id),
    key NOT NULL,
    score INTEGER NOT NULL,
    images INTEGER NOT NULL DEFAULT 1,
    bound INTEGER NOT NULL DEFAULT 0,
    best,
    PRIMARY KEY (game, key)
) WITHOUT ROWID;
CREATE TABLE builds (
    game INTEGER NOT NULL REFERENCES games (id),
    name TEXT NOT NULL,
    complete INTEGER NOT NULL,
    positions INTEGER NOT NULL,
    seconds REAL NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (game, name)
);
"""

#: Seconds a writer waits for another one to finish (several processes may share a store).
BUSY_SECONDS = 30.0


class StoreError(Exception):
    """A store that cannot be used: unreadable, corrupt, another program's, another version."""


def default_store_path() -> str | None:
    """The store of the commands: ``$GAMETREE_STORE`` (``none`` or empty: no store), else
    ``$XDG_DATA_HOME/gametree/solutions.sqlite`` (``~/.local/share/gametree/...``)."""
    chosen = os.environ.get("GAMETREE_STORE")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "none", "off") else chosen
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(data, "gametree", "solutions.sqlite")


def storable_key(key: Hashable) -> int | str | None:
    """A position's key as the store keeps it: an integer that fits 64 bits as it is; a string,
    or a tuple of integers and strings, as its ``repr`` (stable from run to run); None for any
    other key (its ``repr`` may change between runs: such positions are not stored)."""
    if isinstance(key, bool):
        return int(key)
    if isinstance(key, int):
        return key if -(1 << 63) <= key < (1 << 63) else repr(key)
    if isinstance(key, str) or (isinstance(key, tuple) and _plain(key)):
        return repr(key)
    return None


def _plain(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (int, str, bytes))


@dataclass(frozen=True, slots=True)
class GameEntry:
    """What a store holds for one game (``gametree book info``)."""

    name: str
    options: dict[str, Any]
    positions: int
    covered: int
    builds: tuple[tuple[str, bool, int, float, str], ...]
    #: How many of the entries are bounds (what weak solves proved), not exact scores.
    bounds: int = 0
    #: How many entries name a chosen move (a book for perfect play).
    chosen: int = 0


class SolutionStore:
    """A solution store in the SQLite file ``path`` (created if missing, with its folder).

    Not for two threads at once; each process opens its own.
    """

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        self.path = os.fspath(path)
        self.readonly = readonly
        if not readonly:
            folder = os.path.dirname(os.path.abspath(self.path))
            try:
                os.makedirs(folder, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create the store's folder {folder}: {exc.strerror or exc}") from None
        elif not os.path.exists(self.path):
            raise StoreError(f"no store at {self.path}")
        try:
            uri = f"file:{_quote(os.path.abspath(self.path))}?mode={'ro' if readonly else 'rwc'}"
            self.db = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the store {self.path}: {exc}") from None
        try:
            self._check()
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise StoreError(f"{self.path} is not a gametree store ({exc})") from None
        except StoreError:
            self.db.close()
            raise
        self._games: dict[tuple[str, str], int] = {}

    def _check(self) -> None:
        """Make a new file a store; refuse a file that is some other thing."""
        db = self.db
        db.execute("BEGIN")  # one snapshot for the three reads (another process may be making the store)
        try:
            application, version = db.execute("PRAGMA application_id").fetchone()[0], db.execute("PRAGMA user_version").fetchone()[0]
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            db.execute("COMMIT")
        if application == 0 and version == 0 and not tables:
            if self.readonly:
                raise StoreError(f"{self.path} is an empty file, not a gametree store")
            db.execute("PRAGMA journal_mode = WAL")
            with self.transaction():
                if db.execute("SELECT 1 FROM sqlite_master").fetchone() is None:  # (still new: no other process made it meanwhile)
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            db.execute(statement)
                    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self._check()  # what it is now
            return
        if application != APPLICATION_ID:
            raise StoreError(f"{self.path} is not a gametree store (another program's database: it is left as it is)")
        if version == 1 and "positions" in tables:
            if self.readonly:
                raise StoreError(f"{self.path} is a gametree store of schema version 1: open it for writing once to upgrade it")
            self._upgrade()
            self._check()
            return
        if version != SCHEMA_VERSION:
            raise StoreError(f"{self.path} is a gametree store of schema version {version}; this gametree reads version {SCHEMA_VERSION}")
        if not {"games", "positions", "builds"} <= tables:
            raise StoreError(f"{self.path} is a damaged gametree store (tables missing)")
        columns = {row[1] for row in db.execute("PRAGMA table_info(positions)")}
        if not {"key", "score", "images", "bound", "best"} <= columns:
            raise StoreError(f"{self.path} is a damaged gametree store (columns missing from its positions)")
        if not self.readonly:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")  # (in WAL mode: never corrupt; a crash may lose the last writes)

    def _upgrade(self) -> None:
        """Version 1 to 2: entries gain their kind (all of version 1's are exact scores) and a best move."""
        with self.transaction():
            if self.db.execute("PRAGMA user_version").fetchone()[0] == 1:  # (no other process upgraded it meanwhile)
                self.db.execute("ALTER TABLE positions ADD COLUMN bound INTEGER NOT NULL DEFAULT 0")
                self.db.execute("ALTER TABLE positions ADD COLUMN best")
                self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> SolutionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> _Transaction:
        """``with store.transaction():`` several writes as one (all or none)."""
        return _Transaction(self.db)

    def game_id(self, name: str, options: dict[str, Any], *, create: bool = True) -> int | None:
        """The store's number for the game ``name`` with ``options`` (None: not in the store)."""
        text = json.dumps(options, sort_keys=True, separators=(",", ":"))
        found = self._games.get((name, text))
        if found is not None:
            return found
        row = self.db.execute("SELECT id FROM games WHERE name = ? AND options = ?", (name, text)).fetchone()
        if row is None:
            if not create or self.readonly:
                return None
            with self.transaction():  # (another process may add the same game meanwhile: then its number)
                self.db.execute("INSERT OR IGNORE INTO games (name, options) VALUES (?, ?)", (name, text))
                row = self.db.execute("SELECT id FROM games WHERE name = ? AND options = ?", (name, text)).fetchone()
        self._games[(name, text)] = int(row[0])
        return int(row[0])

    def book(self, name: str, options: dict[str, Any]) -> Book:
        """The entries of one game (with these options)."""
        return Book(self, name, options)

    def games(self) -> list[GameEntry]:
        """What the store holds, game by game."""
        entries = []
        for game, name, options in self.db.execute("SELECT id, name, options FROM games ORDER BY name, options").fetchall():
            positions, covered, bounds, chosen = self.db.execute(
                "SELECT COUNT(*), COALESCE(SUM(images), 0), COALESCE(SUM(bound != 0), 0), COUNT(best) FROM positions WHERE game = ?", (game,)
            ).fetchone()
            builds = tuple(
                (b, bool(c), p, s, n)
                for b, c, p, s, n in self.db.execute("SELECT name, complete, positions, seconds, note FROM builds WHERE game = ? ORDER BY name", (game,))
            )
            entries.append(GameEntry(name, json.loads(options), positions, covered, builds, bounds, chosen))
        return entries

    def size(self) -> int:
        """The store's bytes on disk (its WAL file included)."""
        return sum(os.path.getsize(p) for p in (self.path, self.path + "-wal") if os.path.exists(p))


def _quote(path: str) -> str:
    from urllib.parse import quote

    return quote(path)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


class Book:
    """One game's entries in a store, by canonical key: exact scores (:meth:`get`, :meth:`put_many`)
    and bounds on scores (:meth:`entry`, :meth:`put_bounds`)."""

    def __init__(self, store: SolutionStore, name: str, options: dict[str, Any]) -> None:
        self.store = store
        self.name = name
        self.options = options
        self._id: int | None = None
        #: Why a search could not write what it proved here, if it could not (the search went on).
        self.write_error: str | None = None

    def _game(self, create: bool) -> int | None:
        if self._id is None:
            self._id = self.store.game_id(self.name, self.options, create=create)
        return self._id

    def game_number(self) -> int:
        """The store's number for this game and board (added to the store if new)."""
        number = self._game(True)
        if number is None:
            raise StoreError(f"{self.store.path} is read-only: it cannot hold a new game")
        return number

    def get(self, key: int | str) -> int | None:
        """The exact score of the position with this (storable) key, or None (not stored, or only a bound)."""
        found = self.entry(key)
        return found.score if found is not None and found.kind == EXACT else None

    def entry(self, key: int | str) -> Entry | None:
        """What the store holds of the position with this key, or None."""
        game = self._game(False)
        if game is None:
            return None
        row = self.store.db.execute("SELECT score, bound, best FROM positions WHERE game = ? AND key = ?", (game, key)).fetchone()
        return None if row is None else Entry(int(row[0]), int(row[1]), row[2])

    def has_chosen_moves(self) -> bool:
        """Whether some stored position names a chosen move (a book for perfect play is here)."""
        game = self._game(False)
        return game is not None and self.store.db.execute("SELECT 1 FROM positions WHERE game = ? AND best IS NOT NULL LIMIT 1", (game,)).fetchone() is not None

    def chosen_moves(self) -> int:
        """How many stored positions name a chosen move (a book for perfect play)."""
        game = self._game(False)
        if game is None:
            return 0
        return int(self.store.db.execute("SELECT COUNT(*) FROM positions WHERE game = ? AND best IS NOT NULL", (game,)).fetchone()[0])

    def choose_many(self, items: Iterable[tuple[int | str, int | str]]) -> None:
        """Record for stored positions ``(key, best)`` that each is to be left for the position
        ``best`` (the caller has stored what proves that the move keeps the score)."""
        if self.store.readonly:
            return
        game = self._game(True)
        rows = [(best, game, key) for key, best in items]
        if rows:
            with self.store.transaction():
                self.store.db.executemany("UPDATE positions SET best = ? WHERE game = ? AND key = ?", rows)

    def has_many(self, keys: Sequence[int | str]) -> set[int | str]:
        """Which of ``keys`` the store holds exact scores of."""
        game = self._game(False)
        found: set[int | str] = set()
        if game is None:
            return found
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            query = f"SELECT key FROM positions WHERE game = ? AND bound = 0 AND key IN ({','.join('?' * len(chunk))})"
            found.update(row[0] for row in self.store.db.execute(query, (game, *chunk)))
        return found

    def put_many(self, items: Iterable[tuple[int | str, int]] | Iterable[tuple[int | str, int, int]]) -> int:
        """Store ``(key, score)`` or ``(key, score, images)`` entries in one transaction; returns how many."""
        if self.store.readonly:
            return 0
        game = self._game(True)
        rows = [(game, item[0], int(item[1]), int(item[2]) if len(item) > 2 else 1) for item in items]
        if rows:
            with self.store.transaction():
                self.store.db.executemany(
                    "INSERT INTO positions (game, key, score, images, bound) VALUES (?, ?, ?, ?, 0) "
                    "ON CONFLICT (game, key) DO UPDATE SET score = excluded.score, images = excluded.images, bound = 0",  # (a chosen move stays chosen)
                    rows,
                )
        return len(rows)

    def put_bounds(self, items: Iterable[tuple[int | str, int, int]]) -> int:
        """Store ``(key, score, kind)`` bounds (kind :data:`AT_LEAST` or :data:`AT_MOST`) in one
        transaction, each unless the store knows better: an exact score or a tighter bound of
        the same kind is kept (a bound of the other kind too: the first one stays).  Returns
        how many were given."""
        if self.store.readonly:
            return 0
        game = self._game(True)
        rows = [(game, key, int(score), int(kind)) for key, score, kind in items if kind in (AT_LEAST, AT_MOST)]
        if rows:
            with self.store.transaction():
                self.store.db.executemany(
                    "INSERT INTO positions (game, key, score, bound) VALUES (?, ?, ?, ?) ON CONFLICT (game, key) DO UPDATE SET score = excluded.score "
                    "WHERE positions.bound = excluded.bound AND excluded.bound * (excluded.score - positions.score) > 0",
                    rows,
                )
        return len(rows)

    def entries(self) -> Iterator[tuple[int | str, int, int, int, int | str | None]]:
        """Every entry: ``(key, score, images, kind, best)``, by key."""
        game = self._game(False)
        if game is None:
            return
        yield from self.store.db.execute("SELECT key, score, images, bound, best FROM positions WHERE game = ? ORDER BY key", (game,))

    def record_build(self, name: str, *, complete: bool, positions: int, seconds: float, note: str = "") -> None:
        """Remember a book build (``gametree book info`` lists them)."""
        game = self._game(True)
        with self.store.transaction():
            self.store.db.execute(
                "INSERT OR REPLACE INTO builds (game, name, complete, positions, seconds, note) VALUES (?, ?, ?, ?, ?, ?)",
                (game, name, int(complete), positions, seconds, note),
            )

    def build(self, name: str) -> tuple[bool, int, float, str] | None:
        game = self._game(False)
        if game is None:
            return None
        row = self.store.db.execute("SELECT complete, positions, seconds, note FROM builds WHERE game = ? AND name = ?", (game, name)).fetchone()
        return None if row is None else (bool(row[0]), int(row[1]), float(row[2]), str(row[3]))


class MemoryBook(Book):
    """A book in memory, for a worker process that cannot write the store (a Dask worker on
    another machine): what its searches prove is collected here and handed back (:meth:`take`)
    to the process that writes the store."""

    def __init__(self, name: str, options: dict[str, Any]) -> None:
        self.name = name
        self.options = options
        self.write_error = None
        self.values: dict[int | str, int] = {}
        self.fresh: list[tuple[int | str, int]] = []
        self.bounds: dict[int | str, tuple[int, int]] = {}
        self.fresh_bounds: list[tuple[int | str, int, int]] = []
        self.chosen: dict[int | str, int | str] = {}

    def get(self, key: int | str) -> int | None:
        return self.values.get(key)

    def entry(self, key: int | str) -> Entry | None:
        if key in self.values:
            return Entry(self.values[key], EXACT, self.chosen.get(key))
        found = self.bounds.get(key)
        return None if found is None else Entry(*found, self.chosen.get(key))

    def choose_many(self, items: Iterable[tuple[int | str, int | str]]) -> None:
        self.chosen.update(items)

    def chosen_moves(self) -> int:
        return len(self.chosen)

    def has_chosen_moves(self) -> bool:
        return bool(self.chosen)

    def put_bounds(self, items: Iterable[tuple[int | str, int, int]]) -> int:
        count = 0
        for key, score, kind in items:
            old = self.bounds.get(key)
            if key not in self.values and (old is None or (old[1] == kind and kind * (score - old[0]) > 0)):
                self.bounds[key] = (int(score), int(kind))
                self.fresh_bounds.append((key, int(score), int(kind)))
            count += 1
        return count

    def has_many(self, keys: Sequence[int | str]) -> set[int | str]:
        return {k for k in keys if k in self.values}

    def put_many(self, items: Iterable[tuple[int | str, int]] | Iterable[tuple[int | str, int, int]]) -> int:
        count = 0
        for item in items:
            self.values[item[0]] = int(item[1])
            self.fresh.append((item[0], int(item[1])))
            count += 1
        return count

    def take(self) -> list[tuple[int | str, int]]:
        """The exact entries put since the last take."""
        fresh, self.fresh = self.fresh, []
        return fresh

    def take_bounds(self) -> list[tuple[int | str, int, int]]:
        """The bounds put since the last take."""
        fresh, self.fresh_bounds = self.fresh_bounds, []
        return fresh


class Stored:
    """A search engine that answers from a store what the store holds, and remembers what
    it proves at the top of a search (not inside it: a store is read between searches,
    never once per node).

    ``search(state, alpha, beta, height)``: a stored exact score is the position's
    value, a fail-soft answer for any window; a stored bound answers a window it
    settles (a lower bound at or above ``beta``, an upper one at or below
    ``alpha``); otherwise the engine searches, and what its answer proves (the exact
    score strictly inside the window, a bound at or past an edge) is kept to be
    written by :meth:`flush`.  Everything else is the engine's.
    """

    def __init__(self, engine: Any, book: Book) -> None:
        self.engine = engine
        self.book = book
        self.key = canonical_keyer(engine.game)
        #: What was proven since the last flush: (lower, upper) bounds by key, None where unknown.
        self.pending: dict[int | str, tuple[int | None, int | None]] = {}
        #: Positions answered from the store.
        self.hits = 0
        #: Why the last :meth:`flush` wrote nothing, if it failed.
        self.write_error: str | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def bounds(self, state: State) -> tuple[int | None, int | None]:
        """The lower and upper bounds on ``state``'s score known here (equal: its exact score)."""
        key = self.key(state)
        if key is None:
            return None, None
        lo, hi = self.pending.get(key, (None, None))
        if lo is not None and lo == hi:
            return lo, hi
        found = self.book.entry(key)
        if found is not None:
            score, kind, _ = found
            lo = score if kind != AT_MOST and (lo is None or score > lo) else lo
            hi = score if kind != AT_LEAST and (hi is None or score < hi) else hi
        return lo, hi

    def lookup(self, state: State) -> int | None:
        """``state``'s exact score, if known here."""
        lo, hi = self.bounds(state)
        return lo if lo is not None and lo == hi else None

    def remember(self, state: State, score: float, kind: int = 0) -> None:
        """Keep what was proven of ``state``: its exact ``score``, or (``kind``) a bound on it."""
        key = self.key(state)
        if key is None or not float(score).is_integer():
            return
        lo, hi = self.pending.get(key, (None, None))
        if kind != AT_MOST and (lo is None or score > lo):
            lo = int(score)
        if kind != AT_LEAST and (hi is None or score < hi):
            hi = int(score)
        self.pending[key] = (lo, hi)

    def search(self, state: State, alpha: float, beta: float, height: int = 0) -> float:
        lo, hi = self.bounds(state)
        if lo is not None and (lo == hi or lo >= beta):
            self.hits += 1
            return lo
        if hi is not None and hi <= alpha:
            self.hits += 1
            return hi
        value = self.engine.search(state, alpha, beta, height)
        self.remember(state, value, AT_LEAST if value >= beta else AT_MOST if value <= alpha else EXACT)
        return value  # type: ignore[no-any-return]

    def flush(self) -> int:
        """Write what was proven since the last flush; returns how many entries.  A store that
        cannot be written (locked too long, read-only, a full disk) loses them, not the search:
        :attr:`write_error` says why."""
        if not self.pending:
            return 0
        exact, bounds = [], []
        for key, (lo, hi) in self.pending.items():
            if lo is not None and lo == hi:
                exact.append((key, lo))
            elif lo is not None and (lo > 0 or hi is None or hi >= 0):  # (the bound that says more: a win, or at least a draw)
                bounds.append((key, lo, AT_LEAST))
            elif hi is not None:
                bounds.append((key, hi, AT_MOST))
        self.pending.clear()
        try:
            return self.book.put_many(exact) + self.book.put_bounds(bounds)
        except sqlite3.Error as exc:
            self.write_error = self.book.write_error = f"could not write to the store {self.book.store.path}: {exc}"
            return 0


def canonical_keyer(game: Game[Any, Any]) -> Callable[[State], int | str | None]:
    """A position's key in the store: its canonical key (the same for its mirror images), storable."""
    caps = capabilities(game)
    canonical = caps.symmetric.canonical_key if caps.symmetric is not None else game.key
    return lambda state: storable_key(canonical(state))


def record_result(book: Book, game: Game[Any, Any], state: State, result: Any) -> int:
    """Write what a proven (not weak) search result says: the position's score and each scored
    move's (as its position's score for the side to move there); returns how many entries."""
    if not result.proven or result.weak:
        return 0
    key = canonical_keyer(game)
    items = [(key(state), int(result.score))]
    for mv in result.move_values:
        if float(mv.score).is_integer():
            items.append((key(game.play(state, game.parse_move(state, mv.move))), -int(mv.score)))
    return book.put_many([(k, v) for k, v in items if k is not None])


def game_identity(game: Game[Any, Any]) -> dict[str, Any] | None:
    """The options that recreate ``game`` (its ``options()``), or None if it does not say."""
    options = getattr(game, "options", None)
    if callable(options):
        value = options()
        if isinstance(value, dict):
            return value
    return None


def export_book(book: Book, path: str) -> int:
    """Write ``book``'s entries to ``path`` (gzip-compressed lines: a JSON header, then
    ``key score images`` per exact entry and ``key score images kind best`` per bound or
    chosen move, the keys as JSON, the kind 0 for exact, 1 for "at least", -1 for "at
    most", ``best`` the key of the position the chosen move leads to, or null),
    atomically; returns how many.  A book of exact entries alone is of version 1, which
    gametree before bounds reads too."""
    from .files import write_atomically

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


def import_book(store: SolutionStore, path: str, *, expect: tuple[str, dict[str, Any]] | None = None) -> tuple[Book, int]:
    """Add the entries of the exported book at ``path`` to ``store`` (in one transaction);
    returns the book and how many entries.  A file that is not such a book is a StoreError."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as stream:
            header = json.loads(stream.readline())
            if not isinstance(header, dict) or header.get("format") != BOOK_FORMAT:
                raise StoreError(f"{path} is not a gametree book")
            if header.get("version") not in (1, 2):
                raise StoreError(f"{path} is a gametree book of version {header.get('version')}; this gametree reads versions 1 and 2")
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
                if not all(isinstance(k, (int, str)) and not isinstance(k, bool) for k in (key, key if best is None else best)):
                    raise StoreError(f"{path}:{number}: a key must be an integer or a string")
                kind = int(fields[3]) if len(fields) == 5 else EXACT
                if kind == EXACT:
                    entries.append((key, int(fields[1]), int(fields[2])))
                elif kind in (AT_LEAST, AT_MOST):
                    bounds.append((key, int(fields[1]), kind))
                else:
                    raise StoreError(f"{path}:{number}: the kind of an entry is 0 (exact), 1 (at least) or -1 (at most)")
                if best is not None:
                    chosen.append((key, best))
    except (OSError, EOFError, UnicodeDecodeError, ValueError, KeyError, gzip.BadGzipFile) as exc:
        raise StoreError(f"cannot read the book {path}: {exc}") from None
    book = store.book(name, options)
    book.put_many(entries)
    book.put_bounds(bounds)
    book.choose_many(chosen)
    return book, len(entries) + len(bounds)

