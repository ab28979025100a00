"""gametree: game-tree search with games as plugins.

>>> from gametree import load, alphabeta
>>> game = load().game("tictactoe").create(size=3)
>>> result = alphabeta(game)
>>> result.value, result.score, result.plies_to_end
('draw', 0, 9)
>>> alphabeta(game, moves="A1 B1 A2 B2").best_moves
('A3',)
>>> from gametree import Position
>>> Position.after(game, "A1 B1 A2 B2").search("mcts", iterations=200, seed=1).best_moves
('A3',)

Algorithms by name are in :mod:`gametree.search` (``gametree.search.search("mcts", game)``).
"""

from __future__ import annotations

from .game import (
    CompiledRules,
    Game,
    GameError,
    GameInfo,
    GameOverError,
    IllegalMoveError,
    MoveParseError,
    Outcome,
    RuleSet,
    UnsupportedGameError,
    checked_play,
    play_text,
    win_score,
)
from .plugin import hookimpl
from .plugin.manager import load, make_plugin_manager
from .plugin.registry import (
    AlgorithmSpec,
    Exporter,
    GameSpec,
    Option,
    PlayerSpec,
    PluginError,
    PluginLoadError,
    Registry,
)
from .position import Position
from .search import MoveValue, Scored, SearchResult, SearchStats, alphabeta, mcts, minimax, solver
from .search.table import Bound, Entry, TranspositionTable

__version__ = "0.1.0"

__all__ = [
    "AlgorithmSpec",
    "Bound",
    "CompiledRules",
    "Entry",
    "Exporter",
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
    "PlayerSpec",
    "PluginError",
    "PluginLoadError",
    "Position",
    "Registry",
    "RuleSet",
    "Scored",
    "SearchResult",
    "SearchStats",
    "TranspositionTable",
    "UnsupportedGameError",
    "alphabeta",
    "checked_play",
    "hookimpl",
    "load",
    "make_plugin_manager",
    "mcts",
    "minimax",
    "play_text",
    "solver",
    "win_score",
]
