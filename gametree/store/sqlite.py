"""The solution store's file: SQLite, one table of positions per game and board.

A :class:`SolutionStore` keeps proven scores of positions, keyed by the game
(its registry name and the options that recreate it) and the position's
canonical key (the same key for a position and its mirror image).  An entry
is an exact score, or a bound on it (:class:`~gametree.search.table.Bound`:
what a weak solve proves, "a win" being "at least +1").  :class:`GameEntries`,
one game's entries, is the :class:`~gametree.search.known.KnownValues` that
searches read and write.

The file is SQLite in WAL mode (several readers and one writer at a time),
with its schema version in ``PRAGMA user_version`` and gametree's mark in
``PRAGMA application_id``; every write is a transaction.  A file that is not
such a store (another program's database, a corrupt file) is refused with a
:class:`StoreError` naming it, and left untouched.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..search.known import DamagedValues, Known, StoreKey
from ..search.table import Bound

__all__ = [
    "APPLICATION_ID",
    "BUSY_SECONDS",
    "SCHEMA_VERSION",
    "DamagedStore",
    "GameEntries",
    "GameSummary",
    "SolutionStore",
    "Staging",
    "StoreError",
    "default_store_path",
]

#: ``PRAGMA application_id`` of a gametree store ("gtre").
APPLICATION_ID = 0x67747265
#: The schema this code writes.  A store of version 1 (exact scores only) is upgraded when
#: opened for writing; any other version is refused.
SCHEMA_VERSION = 2


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


class DamagedStore(StoreError, DamagedValues):
    """A store that cannot be read: its pages or content are damaged, or SQLite failed to read it (found
    while reading it: a search, ``book info``); a :class:`~gametree.search.known.DamagedValues` too, so
    that a search reports it in one line."""


def damaged_message(path: str, why: str) -> str:
    """How a damaged store is reported: the file, what is wrong, and the ways out."""
    return (
        f"the solution store {path} is damaged ({why}): delete it or move it away (a new store is made "
        f"on the next use; 'sqlite3 {path} .recover' may save what is left), or run with --no-store"
    )


def default_store_path() -> str | None:
    """The store of the commands: ``$GAMETREE_STORE`` (``none`` or empty: no store), else
    ``$XDG_DATA_HOME/gametree/solutions.sqlite`` (``~/.local/share/gametree/...``)."""
    chosen = os.environ.get("GAMETREE_STORE")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "none", "off") else chosen
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(data, "gametree", "solutions.sqlite")


@dataclass(frozen=True, slots=True)
class GameSummary:
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
        #: Why the store is read-only though it was opened for writing (a read-only file or folder), if so.
        self.readonly_reason: str | None = None
        self._immutable = False
        _check_regular(self.path)
        if not readonly:
            self.readonly_reason = _unwritable(self.path)
            self.readonly = self.readonly_reason is not None
        if not self.readonly:
            folder = os.path.dirname(os.path.abspath(self.path))
            try:
                os.makedirs(folder, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create the store's folder {folder}: {exc.strerror or exc}") from None
            if not os.path.exists(self.path) and not os.access(folder, os.W_OK | os.X_OK):
                raise StoreError(f"cannot make the store {self.path}: its folder is read-only")
        elif not os.path.exists(self.path):
            raise StoreError(f"no store at {self.path}")
        # Several processes may make a new store at the same moment; SQLite may then answer "database is
        # locked" at once (switching the new file to WAL wants it alone), without waiting: try again.
        deadline = time.monotonic() + BUSY_SECONDS
        while True:
            self.db = self._connect()
            try:
                self._check()
                break
            except sqlite3.OperationalError as exc:
                self.db.close()
                if self.readonly and not self._immutable and ("unable to open" in str(exc) or "readonly" in str(exc)):
                    # A store in WAL mode in a read-only folder: SQLite cannot make its "-shm" file there;
                    # nobody can write the store there either, so it is read as an immutable file.
                    self._immutable = True
                    continue
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise StoreError(_open_error(self.path, str(exc))) from None
                time.sleep(0.05)
            except sqlite3.DatabaseError as exc:
                self.db.close()
                if "malformed" in str(exc):  # (a store whose schema's pages are damaged)
                    raise DamagedStore(damaged_message(self.path, str(exc))) from None
                raise StoreError(f"{self.path} is not a gametree store ({exc})") from None
            except StoreError:
                self.db.close()
                raise
        self._games: dict[tuple[str, str], int] = {}

    def _connect(self) -> sqlite3.Connection:
        try:
            uri = f"file:{_quote(os.path.abspath(self.path))}?mode={'ro' if self.readonly else 'rwc'}"
            uri += "&immutable=1" if self._immutable else ""
            return sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the store {self.path}: {exc}") from None

    def _check(self) -> None:
        """Make a new file a store; refuse a file that is some other thing."""
        db = self.db
        db.execute("BEGIN")  # one snapshot for the three reads (another process may be making the store)
        try:
            application, version = (
                db.execute("PRAGMA application_id").fetchone()[0],
                db.execute("PRAGMA user_version").fetchone()[0],
            )
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            db.execute("COMMIT")
        if application == 0 and version == 0 and not tables:
            if self.readonly:
                if self.readonly_reason is not None:
                    raise StoreError(f"{self.path} is empty and read-only ({self.readonly_reason}): no store to read")
                raise StoreError(f"{self.path} is an empty file, not a gametree store")
            db.execute("PRAGMA journal_mode = WAL")
            with self.transaction():
                if (
                    db.execute("SELECT 1 FROM sqlite_master").fetchone() is None
                ):  # (still new: no other process made it meanwhile)
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
                raise StoreError(
                    f"{self.path} is a gametree store of schema version 1: open it for writing once to upgrade it"
                    + (f" (it is read-only: {self.readonly_reason})" if self.readonly_reason else "")
                )
            self._upgrade()
            self._check()
            return
        if version != SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} is a gametree store of schema version {version}; this gametree reads version "
                f"{SCHEMA_VERSION}"
            )
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
        """Close the file; what is written goes from the write-ahead log into the file itself first
        (SQLite does so when its last connection closes), so that the ``.sqlite`` file alone holds it."""
        if not self.readonly:
            with contextlib.suppress(sqlite3.Error):  # (another process reading: it checkpoints later)
                self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()

    def __enter__(self) -> SolutionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> _Transaction:
        """``with store.transaction():`` several writes as one (all or none).  An SQLite error in it
        (a full disk, a read-only file, a damaged page) is a :class:`StoreError` saying so."""
        return _Transaction(self)

    def staging(self) -> Staging:
        """A new, empty temporary table for a book's entries, checked before they join the store
        (:func:`gametree.store.files.import_book`; within its transaction)."""
        return Staging(self)

    def drop_staging(self) -> None:
        """Drop the table of :meth:`staging` (after the book's transaction)."""
        with contextlib.suppress(sqlite3.Error):
            self.db.execute("DROP TABLE IF EXISTS temp.staged")

    def check_writable(self) -> None:
        """Refuse, in one line, to write to a store opened read-only."""
        if self.readonly:
            why = self.readonly_reason or "opened read-only"
            raise StoreError(f"the store {self.path} is read-only ({why}): it can be read, not written")

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Reads of the store: a damaged page is a :class:`DamagedStore` naming the file and the way out."""
        try:
            yield
        except sqlite3.OperationalError as exc:  # (an I/O error, say)
            raise DamagedStore(f"cannot read the store {self.path}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise DamagedStore(damaged_message(self.path, str(exc))) from None

    def game_id(self, name: str, options: dict[str, Any], *, create: bool = True) -> int | None:
        """The store's number for the game ``name`` with ``options`` (None: not in the store)."""
        text = json.dumps(options, sort_keys=True, separators=(",", ":"))
        found = self._games.get((name, text))
        if found is not None:
            return found
        with self.reading():
            row = self.db.execute("SELECT id FROM games WHERE name = ? AND options = ?", (name, text)).fetchone()
        if row is None:
            if not create or self.readonly:
                return None
            with self.transaction():  # (another process may add the same game meanwhile: then its number)
                self.db.execute("INSERT OR IGNORE INTO games (name, options) VALUES (?, ?)", (name, text))
                row = self.db.execute("SELECT id FROM games WHERE name = ? AND options = ?", (name, text)).fetchone()
        self._games[(name, text)] = int(row[0])
        return int(row[0])

    def entries_of(self, name: str, options: dict[str, Any]) -> GameEntries:
        """The entries of one game (with these options)."""
        return GameEntries(self, name, options)

    def games(self) -> list[GameSummary]:
        """What the store holds, game by game."""
        with self.reading():
            return self._games_held()

    def _games_held(self) -> list[GameSummary]:
        entries = []
        for game, name, options in self.db.execute(
            "SELECT id, name, options FROM games ORDER BY name, options"
        ).fetchall():
            positions, covered, bounds, chosen, sane = self.db.execute(
                "SELECT COUNT(*), COALESCE(SUM(images), 0), COALESCE(SUM(bound != 0), 0), COUNT(best), "
                "COALESCE(MIN(typeof(images) = 'integer' AND images >= 1), 1) FROM positions WHERE game = ?",
                (game,),
            ).fetchone()
            builds = tuple(
                (b, bool(c), p, s, n)
                for b, c, p, s, n in self.db.execute(
                    "SELECT name, complete, positions, seconds, note FROM builds WHERE game = ? ORDER BY name", (game,)
                )
            )
            if not sane or not all(
                isinstance(b[0], str)
                and isinstance(b[2], int)
                and isinstance(b[3], (int, float))
                and isinstance(b[4], str)
                for b in builds
            ):
                raise DamagedStore(
                    damaged_message(self.path, f"the game {name!r} has counts that are not whole numbers")
                )
            entries.append(GameSummary(name, self._options(name, options), positions, covered, builds, bounds, chosen))
        return entries

    def _options(self, name: object, text: object) -> dict[str, Any]:
        """A game's options as the store keeps them (JSON): anything else is damage."""
        try:
            options = json.loads(text) if isinstance(text, str) else None
        except (ValueError, RecursionError):
            options = None
        if not isinstance(name, str) or not isinstance(options, dict):
            raise DamagedStore(damaged_message(self.path, f"the options of the game {name!r} are not a JSON object"))
        return options

    def size(self) -> int:
        """The store's bytes on disk (its WAL file included)."""
        return sum(os.path.getsize(p) for p in (self.path, self.path + "-wal") if os.path.exists(p))


def _check_regular(path: str) -> None:
    """Refuse, before SQLite opens it, a path that is no regular file: SQLite would block for ever on a
    FIFO (and ignore Ctrl-C meanwhile), and a folder or a device is no store either."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return  # (a new store)
    except OSError as exc:
        raise StoreError(f"cannot open the store {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file"
        raise StoreError(f"{path} is {kind}, not a gametree store: give --store a file")


def _unwritable(path: str) -> str | None:
    """Why the store at ``path`` can be read but not written (a read-only file, or a read-only folder,
    where SQLite cannot make its write-ahead log), or None."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.exists(path):
        return None
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return "on a read-only file system"
    except (OSError, AttributeError):  # (no statvfs: Windows)
        pass
    if not os.access(path, os.W_OK):
        return "the file is read-only"
    if os.path.isdir(folder) and not os.access(folder, os.W_OK | os.X_OK):
        if all(os.access(path + suffix, os.W_OK) for suffix in ("-wal", "-shm")):
            return None  # (SQLite writes through the log files already there)
        return "its folder is read-only"
    return None


def _open_error(path: str, why: str) -> str:
    """The message for a file SQLite cannot use as a store."""
    if "readonly" in why or "read-only" in why:
        return f"the store {path} is read-only ({why}): it can be read, not written"
    return f"{path} is not a gametree store ({why})"


def _quote(path: str) -> str:
    from urllib.parse import quote

    return quote(path)


class _Transaction:
    """One write transaction.  SQLite ends a transaction itself on some errors (a full disk): the
    rollback then is skipped, so that the error reported is SQLite's own (``database or disk is
    full``), never ``cannot rollback - no transaction is active``."""

    def __init__(self, store: SolutionStore) -> None:
        self.store = store
        self.db = store.db

    def __enter__(self) -> None:
        self.store.check_writable()
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreError(self._message(exc)) from None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, *rest: object) -> None:
        if kind is None:
            try:
                self.db.execute("COMMIT")
                return
            except sqlite3.Error as exc:
                error = exc
        if self.db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
        if isinstance(error, sqlite3.Error):
            raise StoreError(self._message(error)) from None

    def _message(self, exc: sqlite3.Error) -> str:
        path, text = self.store.path, str(exc)
        if isinstance(exc, sqlite3.DatabaseError) and "malformed" in text:
            return damaged_message(path, text)
        if "readonly" in text or "read-only" in text:
            return f"the store {path} is read-only ({text}): it can be read, not written"
        return f"cannot write to the store {path}: {text}"


class GameEntries:
    """One game's entries in a store, by canonical key: exact scores (:meth:`get`, :meth:`put_many`)
    and bounds on scores (:meth:`entry`, :meth:`put_bounds`)."""

    def __init__(self, store: SolutionStore, name: str, options: dict[str, Any]) -> None:
        self.store = store
        #: How messages name where these values are kept.
        self.origin = f"the solution store {store.path}"
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

    def get(self, key: StoreKey) -> int | None:
        """The exact score of the position with this (storable) key, or None (not stored, or only a bound)."""
        found = self.entry(key)
        return found.score if found is not None and found.bound is Bound.EXACT else None

    def entry(self, key: StoreKey) -> Known | None:
        """What the store holds of the position with this key, or None."""
        game = self._game(False)
        if game is None:
            return None
        row = self._one("SELECT score, bound, best FROM positions WHERE game = ? AND key = ?", (game, key))
        if row is None:
            return None
        try:
            return Known(int(row[0]), Bound(int(row[1])), row[2])
        except (ValueError, TypeError):
            why = f"the entry {str(key)[:60]!r} of {self.name} holds {row[0]!r} as its score, {row[1]!r} as its kind"
            raise DamagedStore(damaged_message(self.store.path, why)) from None

    def _one(self, query: str, arguments: tuple[object, ...]) -> Any:
        """The first row of a query (None if none), a damaged store reported as such."""
        with self.store.reading():
            return self.store.db.execute(query, arguments).fetchone()

    def has_chosen_moves(self) -> bool:
        """Whether some stored position names a chosen move (a book for perfect play is here)."""
        game = self._game(False)
        return (
            game is not None
            and self._one("SELECT 1 FROM positions WHERE game = ? AND best IS NOT NULL LIMIT 1", (game,)) is not None
        )

    def chosen_moves(self) -> int:
        """How many stored positions name a chosen move (a book for perfect play)."""
        game = self._game(False)
        if game is None:
            return 0
        return int(self._one("SELECT COUNT(*) FROM positions WHERE game = ? AND best IS NOT NULL", (game,))[0])

    def choose_many(self, items: Iterable[tuple[StoreKey, StoreKey]]) -> None:
        """Record for stored positions ``(key, best)`` that each is to be left for the position
        ``best`` (the caller has stored what proves that the move keeps the score)."""
        if self.store.readonly:
            return
        game = self._game(True)
        rows = [(best, game, key) for key, best in items]
        if rows:
            with self.store.transaction():
                self.store.db.executemany("UPDATE positions SET best = ? WHERE game = ? AND key = ?", rows)

    def has_many(self, keys: Sequence[StoreKey]) -> set[StoreKey]:
        """Which of ``keys`` the store holds exact scores of."""
        return {row[0] for row in self._exact_rows(keys, "key")}

    def scores_of(self, keys: Sequence[StoreKey]) -> dict[StoreKey, int]:
        """The exact scores the store holds of ``keys`` (those it lacks, or holds bounds of, left out),
        read in a few queries: for many keys at once, where :meth:`get` asks once a key."""
        return {row[0]: int(row[1]) for row in self._exact_rows(keys, "key, score")}

    def _exact_rows(self, keys: Sequence[StoreKey], columns: str) -> Iterator[Any]:
        """The rows (``columns``) of those of ``keys`` held with exact scores, 500 keys a query."""
        game = self._game(False)
        if game is None:
            return
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            where = f"game = ? AND bound = 0 AND key IN ({','.join('?' * len(chunk))})"
            with self.store.reading():
                rows = self.store.db.execute(
                    f"SELECT {columns} FROM positions WHERE {where}", (game, *chunk)
                ).fetchall()
            yield from rows

    def put_many(self, items: Iterable[tuple[StoreKey, int]] | Iterable[tuple[StoreKey, int, int]]) -> int:
        """Store ``(key, score)`` or ``(key, score, images)`` entries in one transaction; returns how many."""
        if self.store.readonly:
            return 0
        game = self._game(True)
        rows = [(game, item[0], int(item[1]), int(item[2]) if len(item) > 2 else 1) for item in items]
        if rows:
            with self.store.transaction():
                self.store.db.executemany(
                    "INSERT INTO positions (game, key, score, images, bound) VALUES (?, ?, ?, ?, 0) "
                    # (a chosen move stays chosen)
                    "ON CONFLICT (game, key) DO UPDATE SET score = excluded.score, images = excluded.images, bound = 0",
                    rows,
                )
        return len(rows)

    def put_bounds(self, items: Iterable[tuple[StoreKey, int, Bound]]) -> int:
        """Store ``(key, score, kind)`` bounds (kind ``Bound.LOWER`` or ``Bound.UPPER``) in one
        transaction, each unless the store knows better: an exact score or a tighter bound of
        the same kind is kept (a bound of the other kind too: the first one stays).  Returns
        how many were given."""
        if self.store.readonly:
            return 0
        game = self._game(True)
        rows = [(game, key, int(score), int(kind)) for key, score, kind in items if kind in (Bound.LOWER, Bound.UPPER)]
        if rows:
            with self.store.transaction():
                self.store.db.executemany(
                    "INSERT INTO positions (game, key, score, bound) VALUES (?, ?, ?, ?) ON CONFLICT (game, "
                    "key) DO UPDATE SET score = excluded.score "
                    "WHERE positions.bound = excluded.bound AND excluded.bound * (excluded.score - "
                    "positions.score) > 0",
                    rows,
                )
        return len(rows)

    def record(self, exact: Sequence[tuple[StoreKey, int]], bounds: Sequence[tuple[StoreKey, int, Bound]]) -> int:
        """Keep what a search proved (:meth:`gametree.search.known.KnownValues.record`): a store that
        cannot be written (locked too long, read-only, a full disk) loses it, not the search, and
        :attr:`write_error` says why."""
        if self.store.readonly:
            if exact or bounds:
                why = self.store.readonly_reason or "opened read-only"
                self.write_error = f"the store {self.store.path} is read-only ({why}): what was proven is not kept"
            return 0
        try:
            return self.put_many(exact) + self.put_bounds(bounds)
        except StoreError as exc:  # (a full disk, a lock held too long: the transaction says which)
            self.write_error = str(exc)
            return 0
        except sqlite3.Error as exc:
            self.write_error = f"could not write to the store {self.store.path}: {exc}"
            return 0

    def entries(self) -> Iterator[tuple[StoreKey, int, int, int, StoreKey | None]]:
        """Every entry: ``(key, score, images, kind, best)``, by key."""
        game = self._game(False)
        if game is None:
            return
        with self.store.reading():
            yield from self.store.db.execute(
                "SELECT key, score, images, bound, best FROM positions WHERE game = ? ORDER BY key", (game,)
            )

    def record_build(self, name: str, *, complete: bool, positions: int, seconds: float, note: str = "") -> None:
        """Remember a book build (``gametree book info`` lists them)."""
        game = self._game(True)
        with self.store.transaction():
            self.store.db.execute(
                "INSERT OR REPLACE INTO builds (game, name, complete, positions, seconds, note) VALUES (?, ?, "
                "?, ?, ?, ?)",
                (game, name, int(complete), positions, seconds, note),
            )

    def build(self, name: str) -> tuple[bool, int, float, str] | None:
        game = self._game(False)
        if game is None:
            return None
        row = self._one(
            "SELECT complete, positions, seconds, note FROM builds WHERE game = ? AND name = ?", (game, name)
        )
        return None if row is None else (bool(row[0]), int(row[1]), float(row[2]), str(row[3]))


class Staging:
    """A book's entries in a temporary table, where they are checked before they are merged into
    the store's positions (all in the caller's transaction: a book refused leaves no trace)."""

    def __init__(self, store: SolutionStore) -> None:
        self.store = store
        self.db = store.db
        self.db.execute("DROP TABLE IF EXISTS temp.staged")
        self.db.execute(
            "CREATE TEMP TABLE staged (key NOT NULL PRIMARY KEY, score INTEGER NOT NULL, images INTEGER NOT NULL, "
            "bound INTEGER NOT NULL, best, line INTEGER NOT NULL) WITHOUT ROWID"
        )

    def add(self, entries: Sequence[BookLine]) -> tuple[int, int] | None:
        """Stage entries; a key given twice is not staged again: then the two lines that give it
        (the later one first)."""
        rows = [(e.key, e.score, e.images, int(e.kind), e.best, e.line) for e in entries]
        try:
            self.db.executemany(
                "INSERT INTO staged (key, score, images, bound, best, line) VALUES (?, ?, ?, ?, ?, ?)", rows
            )
        except sqlite3.IntegrityError:
            for key, *_, line in rows:
                first = self.db.execute("SELECT line FROM staged WHERE key = ?", (key,)).fetchone()
                if first is not None and first[0] != line:
                    return line, int(first[0])
            raise
        return None

    def lookup(self, name: str, options: dict[str, Any]) -> Callable[[StoreKey], tuple[Known, int | None] | None]:
        """What is known of a key: the book's entry (with its line), else the store's (its line None)."""
        text = json.dumps(options, sort_keys=True, separators=(",", ":"))
        row = self.db.execute("SELECT id FROM games WHERE name = ? AND options = ?", (name, text)).fetchone()
        game = None if row is None else int(row[0])

        def find(key: StoreKey) -> tuple[Known, int | None] | None:
            found = self.db.execute("SELECT score, bound, best, line FROM staged WHERE key = ?", (key,)).fetchone()
            if found is not None:
                return Known(int(found[0]), Bound(int(found[1])), found[2]), int(found[3])
            if game is None:
                return None
            kept = self.db.execute(
                "SELECT score, bound, best FROM positions WHERE game = ? AND key = ?", (game, key)
            ).fetchone()
            if kept is None:
                return None
            try:
                return Known(int(kept[0]), Bound(int(kept[1])), kept[2]), None
            except (ValueError, TypeError):
                return None  # (a damaged entry of the store is not the book's fault)

        return find

    def merge(self, name: str, options: dict[str, Any]) -> None:
        """Merge the staged entries into the store as :meth:`GameEntries.put_many`, :meth:`~GameEntries.put_bounds`
        and :meth:`~GameEntries.choose_many` would (within the caller's transaction)."""
        text = json.dumps(options, sort_keys=True, separators=(",", ":"))
        db = self.db
        db.execute("INSERT OR IGNORE INTO games (name, options) VALUES (?, ?)", (name, text))
        game = int(db.execute("SELECT id FROM games WHERE name = ? AND options = ?", (name, text)).fetchone()[0])
        db.execute(
            "INSERT INTO positions (game, key, score, images, bound) SELECT ?, key, score, images, 0 FROM staged "
            "WHERE bound = 0 ON CONFLICT (game, key) DO UPDATE SET score = excluded.score, images = excluded.images, "
            "bound = 0",
            (game,),
        )
        db.execute(
            "INSERT INTO positions (game, key, score, bound) SELECT ?, key, score, bound FROM staged WHERE bound != 0 "
            "ON CONFLICT (game, key) DO UPDATE SET score = excluded.score WHERE positions.bound = excluded.bound AND "
            "excluded.bound * (excluded.score - positions.score) > 0",
            (game,),
        )
        db.execute(
            "UPDATE positions SET best = (SELECT best FROM staged WHERE staged.key = positions.key) WHERE game = ? "
            "AND key IN (SELECT key FROM staged WHERE best IS NOT NULL)",
            (game,),
        )


class BookLine(Protocol):
    """One checked line of a book (:class:`gametree.store.files.BookEntry`)."""

    @property
    def line(self) -> int: ...
    @property
    def key(self) -> StoreKey: ...
    @property
    def score(self) -> int: ...
    @property
    def images(self) -> int: ...
    @property
    def kind(self) -> Bound: ...
    @property
    def best(self) -> StoreKey | None: ...
