"""A game and one of its states, together: what a notebook works with.

>>> from gametree import Position, load
>>> game = load().game("tictactoe").create(size=3)
>>> p = Position.after(game, "A1 B1 A2 B2")
>>> p.moves  # the game's order: best first
('A3', 'C1', 'C3', 'B3', 'C2')
>>> p.solve().best_moves
('A3',)
>>> p.play("A3").outcome
Outcome(winner=0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic

from .game import Game, M, Outcome, S, play_text
from .plugin.registry import AlgorithmSpec
from .search import SearchResult, search
from .search.results import position

__all__ = ["Position"]


@dataclass(frozen=True)
class Position(Generic[S, M]):
    """A state of a game, with the game: ``Position.after(game, "B2 A1").solve()``.

    Positions are values (frozen, compared and hashed by game and state);
    playing a move makes a new one.  ``str(p)`` is the game's text picture;
    in Jupyter a position shows its board.
    """

    game: Game[S, M]
    state: S

    def __post_init__(self) -> None:
        if self.state is None:
            raise TypeError("state: expected a state of the game, not None (Position.start(game) is the start)")
        position(self.game, self.state)

    @classmethod
    def start(cls, game: Game[S, M]) -> Position[S, M]:
        """The game's starting position."""
        return cls(game, position(game))

    @classmethod
    def after(cls, game: Game[S, M], moves: str) -> Position[S, M]:
        """The position after ``moves`` from the start, such as ``"B2 A1"`` (read as :func:`gametree.play_text`
        does)."""
        return cls(game, position(game, moves=moves))

    def play(self, moves: str) -> Position[S, M]:
        """The position after ``moves`` (one move or several, such as ``"B2"`` or ``"B2 A1"``) from this one."""
        if not isinstance(moves, str):
            raise TypeError(f"moves: expected a string of moves such as 'B2 A1', not {type(moves).__name__}")
        return Position(self.game, play_text(self.game, moves, self.state))

    @property
    def moves(self) -> tuple[str, ...]:
        """The legal moves, in the game's notation and order (none once the game is over)."""
        game, state = self.game, self.state
        return tuple(game.format_move(state, m) for m in game.legal_moves(state))

    @property
    def to_move(self) -> int:
        """The player to move (0 or 1)."""
        return self.game.to_move(self.state)

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""
        return self.game.outcome(self.state)

    def solve(self, **options: Any) -> SearchResult:
        """The exact solver's answer: ``search("solver", ...)`` with ``options`` (see
        :func:`gametree.search.search`)."""
        return search("solver", self.game, self.state, **options)

    def search(self, algorithm: AlgorithmSpec | str, **options: Any) -> SearchResult:
        """Search this position with ``algorithm`` (``"alphabeta"``, ``"mcts"``, ...) and its options: see
        :func:`gametree.search.search`."""
        return search(algorithm, self.game, self.state, **options)

    def __str__(self) -> str:
        return self.game.render(self.state)

    def _repr_html_(self) -> str:
        from .notebook import position_html

        return position_html(self.game, self.state)
