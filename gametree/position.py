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
>>> Position.of("tictactoe", "A1 B1")
Position.of('tictactoe', 'A1 B1')

:meth:`Position.solve` does what ``gametree solve`` does: it reads the solution store
and the books shipped with the game (``store=None``: none), scores the moves for at
most :data:`ANALYSIS_TIME` seconds once the value is proven, shows its progress on a
terminal or in Jupyter, and Ctrl-C gives what was proven, marked ``cut_short="interrupt"``;
``solve(tiers=DIR)`` reads the same answer from a tier directory (``gametree tiers build``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic

from .game import Configurable, Game, M, Outcome, S, play_text
from .plugin.registry import AlgorithmSpec
from .search import SearchResult, search
from .search.results import position

__all__ = ["ANALYSIS_TIME", "Position"]

#: Seconds :meth:`Position.solve` scores the moves for once the value is proven (as ``gametree solve``).
ANALYSIS_TIME = 3.0
#: ``store=DEFAULT``: the store ``gametree solve`` uses (see :mod:`gametree.default_store`).
DEFAULT = "default"


@dataclass(frozen=True)
class Position(Generic[S, M]):
    """A state of a game, with the game: ``Position.after(game, "B2 A1").solve()``.

    Positions are values (frozen, compared and hashed by game and state);
    playing a move makes a new one.  ``str(p)`` is the game's text picture;
    in Jupyter a position shows its board.
    """

    game: Game[S, M]
    state: S
    #: The moves from the start that led here (as typed), if known: what :func:`repr` shows.
    history: str | None = field(default=None, compare=False, repr=False)

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
        return cls(game, position(game, moves=moves), " ".join(moves.split()))

    @staticmethod
    def of(name: str, moves: str = "", **options: Any) -> Position[Any, Any]:
        """The position after ``moves`` in the installed game ``name`` made with ``options``:
        ``Position.of("connect4", "4 4", width=6, height=5)``."""
        from .plugin.manager import load

        return Position.after(load().game(name).create(**options), moves)

    def play(self, moves: str) -> Position[S, M]:
        """The position after ``moves`` (one move or several, such as ``"B2"`` or ``"B2 A1"``) from this one."""
        if not isinstance(moves, str):
            raise TypeError(f"moves: expected a string of moves such as 'B2 A1', not {type(moves).__name__}")
        history = None if self.history is None else " ".join([*self.history.split(), *moves.split()])
        return Position(self.game, play_text(self.game, moves, self.state), history)

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

    def solve(
        self, *, store: Any = DEFAULT, show: bool | None = None, tiers: Any = None, **options: Any
    ) -> SearchResult:
        """The exact solver's answer, as ``gametree solve`` gives it: ``search("solver", ...)`` with
        ``options`` (see :func:`gametree.search.search`; ``time_limit=SECONDS`` bounds it).

        ``store``: the solution store's entries to read and write (default: the store of the command
        line, with the books shipped for this board; None: no store).  The moves are scored for at
        most :data:`ANALYSIS_TIME` seconds unless ``analysis_time`` says otherwise.  ``show``: show
        the progress live (None: on a terminal and in Jupyter).  Ctrl-C ends the solve with what was
        proven, marked ``cut_short="interrupt"``.

        ``tiers``: a tier directory of this game (its folder, or a :class:`gametree.tier_book.TierBook`):
        the same result read from its arrays at once (``algorithm`` ``"tiers"``, every move's score and
        remoteness), without a search; another game's or board's directory is a
        :class:`gametree.store.tiers.TierFileError`, a search option beside it a :class:`TypeError`."""
        from .api_solve import solve_from_tiers, solve_position

        if tiers is not None:
            return solve_from_tiers(self.game, self.state, tiers, options)

        if store == DEFAULT:
            from .default_store import entries_for

            store = entries_for(self.game)
        options.setdefault("analysis_time", ANALYSIS_TIME)
        return solve_position(self.game, self.state, store=store, show=show, options=options)

    def search(self, algorithm: AlgorithmSpec | str, **options: Any) -> SearchResult:
        """Search this position with ``algorithm`` (``"alphabeta"``, ``"mcts"``, ...) and its options: see
        :func:`gametree.search.search`."""
        return search(algorithm, self.game, self.state, **options)

    def __str__(self) -> str:
        return self.game.render(self.state)

    def __repr__(self) -> str:
        """``Position.of('connect4', '4 4', width=6, height=5)``, which makes it again; for a position
        built from a state, its game, ply and who is to move."""
        from .default_store import default_options, spec_of

        spec = spec_of(self.game)
        if spec is not None and self.history is not None and isinstance(self.game, Configurable):
            default = default_options(spec)
            options = self.game.options()  # all of them unless all are the defaults (they may depend on each other)
            given = "" if options == default else "".join(f", {k}={v!r}" for k, v in options.items())
            return f"Position.of({spec.name!r}, {self.history!r}{given})"
        outcome = self.outcome
        names = self.game.info.player_names
        if outcome is None:
            status = f"{names[self.to_move]} to move"
        else:
            status = "a draw" if outcome.winner is None else f"{names[outcome.winner]} has won"
        name = spec.name if spec is not None else type(self.game).__name__
        return f"<Position of {name}, ply {self.game.ply(self.state)}, {status}>"

    def _repr_svg_(self) -> str | None:
        """The board as SVG (None for a game with no board view: Jupyter then shows the HTML or text)."""
        from .board_svg import board_svg

        return board_svg(self.game, self.state)

    def _repr_html_(self) -> str:
        from .notebook import position_html

        return position_html(self.game, self.state)
