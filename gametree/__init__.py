"""gametree: game-tree search with games as plugins.

>>> from gametree import load, alphabeta
>>> game = load().game("tictactoe").create(size=3)
>>> result = alphabeta(game)
>>> result.value, result.score, result.plies_to_end
('draw', 0, 9)
"""

from __future__ import annotations

import gc as _gc

# Importing the package (importlib.metadata, pluggy, dataclasses, the core modules) makes tens of
# thousands of long-lived objects and next to no garbage: collector passes over them are wasted
# start-up time (about 4 ms of a CLI run).  So the collector pauses meanwhile, then everything
# alive moves to the oldest generation at once (freeze + unfreeze, no traversal), where young
# collections stop visiting it and full collections still do.  A caller's disabled collector or
# frozen objects are left as they were.
_gc_was_enabled = _gc.isenabled()
_gc.disable()
try:
    from .cache import Bound, Entry, TranspositionTable
    from .game import (
        Game,
        GameError,
        GameInfo,
        GameOverError,
        IllegalMoveError,
        MoveParseError,
        Outcome,
        UnsupportedGameError,
        checked_play,
        play_text,
        win_score,
    )
    from .hookspecs import hookimpl
    from .plugin import GameSpec, Option, PluginError, PluginLoadError, Registry, load, make_plugin_manager
    from .search import MoveValue, SearchResult, SearchStats, alphabeta, minimax, search, solver
finally:
    if not _gc.get_freeze_count():
        _gc.freeze()
        _gc.unfreeze()
    if _gc_was_enabled:
        _gc.enable()
    del _gc, _gc_was_enabled

__version__ = "0.1.0"

__all__ = [
    "Bound",
    "Entry",
    "Game",
    "GameError",
    "GameInfo",
    "GameOverError",
    "GameSpec",
    "IllegalMoveError",
    "MoveParseError",
    "MoveValue",
    "Option",
    "Outcome",
    "PluginError",
    "PluginLoadError",
    "Registry",
    "SearchResult",
    "SearchStats",
    "TranspositionTable",
    "UnsupportedGameError",
    "alphabeta",
    "checked_play",
    "hookimpl",
    "load",
    "make_plugin_manager",
    "minimax",
    "play_text",
    "search",
    "solver",
    "win_score",
]
