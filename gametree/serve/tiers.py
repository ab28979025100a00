"""The tier directories ``gametree serve --tiers DIR`` reads (docs/web.md, docs/tiers.md).

A :class:`TierShelf` opens each directory as the installed game and board its header names
(:class:`gametree.tier_book.TierBook`: the game's name, options and tier sizes checked), so a
wrong directory is one :class:`gametree.store.tiers.TierFileError` line before the server listens.
Then, for a position of a game and board one of them holds (and a tier it has solved), the
answer is read from the arrays at once (:meth:`TierShelf.result`: every move's value and
remoteness, which :func:`gametree.serve.work.tier_analysis` says as the page shows it) and the
perfect player reads its moves from there (:meth:`TierShelf.book_for`); every other game and
board is searched as without a directory.

>>> from gametree import load
>>> TierShelf(load(), ["no-such-folder"])
Traceback (most recent call last):
...
gametree.store.tiers.TierFileError: no-such-folder is not a tier directory (no header.json)
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..game import CHANCE, Configurable, Game, GameError
from ..plugin.registry import PluginError, Registry
from ..search.results import SearchResult
from ..store.tiers import TierFileError, read_header
from ..tier_book import TierBook, tier_result
from .positions import Made

__all__ = ["TierShelf", "board_key"]


def board_key(name: str, game: Game[Any, Any]) -> tuple[str, str]:
    """The game and board ``game`` (installed as ``name``) is, as a key: its name and its options."""
    options = game.options() if isinstance(game, Configurable) else {}
    return name, json.dumps(options, sort_keys=True)


class TierShelf:
    """The tier directories ``folders`` of games installed in ``registry``, one a game and board;
    a directory that is none, of a game not installed, of options the game refuses, of other tier
    sizes, or of a board another one holds too is a :class:`TierFileError` here."""

    def __init__(self, registry: Registry, folders: Iterable[str]) -> None:
        self.books: dict[tuple[str, str], TierBook] = {}
        for folder in folders:
            book = _open(registry, Path(folder))
            key = board_key(book.header["game"], book.game)
            if key in self.books:
                raise TierFileError(f"{self.books[key].folder} and {folder} hold the same game and board: give one")
            self.books[key] = book

    def book_for(self, made: Made) -> TierBook | None:
        """The directory of ``made``'s game and board, if one was given (whatever its position)."""
        return self.books.get(board_key(made.spec.name, made.game)) if self.books else None

    def result(self, made: Made) -> SearchResult | None:
        """``made``'s position answered from its directory (the exact solver's result: every move's
        score and remoteness, no search, no line), or None: no directory of its game and board, a
        tier the directory has not solved, a finished game or chance to move."""
        book = self.book_for(made)
        game, state = made.game, made.state
        if book is None or game.outcome(state) is not None or game.to_move(state) == CHANCE:
            return None
        if not book.covers(state):
            return None
        return tier_result(book, state, pv=False)


def _open(registry: Registry, folder: Path) -> TierBook:
    """``folder`` opened as the installed game and board its header names."""
    header = read_header(folder)
    name, options = header["game"], header["options"]
    spec = registry.games.get(name)
    if spec is None:
        raise TierFileError(f"{folder} holds {name}, which is not installed")
    try:
        game = spec.create(**options)
    except (ValueError, TypeError, GameError, PluginError) as exc:
        raise TierFileError(f"{folder} holds {name} {options}, which cannot be made: {exc}") from None
    return TierBook(game, name, folder)
