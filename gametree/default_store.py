"""The solution store the Python API reads and writes by default, as the command line does.

``gametree solve`` reads proven values from the store (``$GAMETREE_STORE``, else
``~/.local/share/gametree/solutions.sqlite``) and adds the books a game's plugin ships
on first use; :meth:`gametree.Position.solve` does the same through :func:`entries_for`.
The game's name in the store is its registry name, found by :func:`spec_of`.  Stores are
opened once a process and closed when it ends.
"""

from __future__ import annotations

import atexit
import functools
import os
from typing import TYPE_CHECKING

from .game import Configurable, Game, M, S

if TYPE_CHECKING:
    from .plugin.registry import GameSpec, Registry
    from .store import GameEntries, SolutionStore

__all__ = ["add_shipped_books", "book_board", "default_options", "entries_for", "spec_of"]


@functools.cache
def _registry() -> Registry:
    from .plugin.manager import load

    return load()


def spec_of(game: Game[S, M]) -> GameSpec | None:
    """The installed game ``game`` is one of (the spec whose game of the same options is of its
    type), or None (a game made by hand, not registered)."""
    options = game.options() if isinstance(game, Configurable) else {}
    for spec in _registry().games.values():
        factory = spec.factory
        if isinstance(factory, type):
            if isinstance(game, factory):
                return spec
            continue
        try:
            made = spec.create(**options)
        except Exception:  # (another game's options: not this one)  # noqa: BLE001
            continue
        if type(made) is type(game) and (not isinstance(made, Configurable) or made.options() == options):
            return spec
    return None


@functools.cache
def default_options(spec: GameSpec) -> dict[str, object]:
    """The options of ``spec``'s game made with none given (empty if it cannot be made so)."""
    try:
        game = spec.create()
    except Exception:  # (a game without defaults)  # noqa: BLE001
        return {}
    return dict(game.options()) if isinstance(game, Configurable) else {}


@functools.cache
def _opened(path: str) -> SolutionStore:
    from .store import SolutionStore

    store = SolutionStore(path)
    atexit.register(store.close)
    return store


def add_shipped_books(store: SolutionStore, book: GameEntries, spec: GameSpec, options: dict[str, object]) -> None:
    """Add to ``store`` the books ``spec``'s plugin ships for this board (``options``), each once."""
    from .book_check import BookChecker, recorded_digest
    from .store import import_book

    for shipped in spec.books:
        name = f"shipped:{os.path.basename(shipped)}:{os.path.getsize(shipped)}"
        if book.build(name) is None and book_board(shipped) == (spec.name, options):
            checker = BookChecker({spec.name: spec})
            _, count = import_book(store, shipped, vetter=checker, trusted_digest=recorded_digest(shipped))
            book.record_build(
                name, complete=True, positions=count, seconds=0.0, note=f"shipped with {spec.source or 'the plugin'}"
            )


def book_board(path: str) -> tuple[str, dict[str, object]] | None:
    """The game and options an exported book is for (None if it is no book)."""
    import gzip
    import json

    try:
        with gzip.open(path, "rt", encoding="utf-8") as stream:
            header = json.loads(stream.readline())
        return (header["game"], header["options"])
    except (OSError, ValueError, KeyError, TypeError, EOFError):
        return None


def entries_for(game: Game[S, M]) -> GameEntries | None:
    """The default store's entries for ``game`` with the books shipped for its board, or None
    (``GAMETREE_STORE=none``, a game not installed or whose options it cannot tell)."""
    from .store import default_store_path

    path = default_store_path()
    spec = spec_of(game)
    if path is None or spec is None or not isinstance(game, Configurable):
        return None
    options = dict(game.options())
    store = _opened(str(path))
    book = store.entries_of(spec.name, options)
    if not store.readonly:
        add_shipped_books(store, book, spec, options)
    return book
