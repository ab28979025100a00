"""Games and positions for the web application, without a search: what ``/api/games`` and
``/api/position`` answer.

A :class:`Catalogue` holds the registry of installed games (plugins from ``-p`` among them)
and makes a game from a parsed :class:`~gametree.serve.requests.PositionRequest`, refusing
an unknown game, options the game refuses and malformed or illegal moves with a
:class:`~gametree.serve.requests.BadRequest`.  The position's report is plain data for JSON:
its board as SVG (:func:`gametree.board_svg.board_svg`) where the game has a board view, with
where each legal move puts its mark, else the game's text rendering; whose turn; the outcome.

>>> from gametree import load
>>> catalogue = Catalogue(load())
>>> from gametree.serve.requests import PositionRequest
>>> report = catalogue.report(PositionRequest("tictactoe", (("size", 3),), "A1 B2 A2 C3 B3"))
>>> report["to_move"], [m["move"] for m in report["legal"]][:2], report["board"]["rows"]
(1, ['A3', 'C1'], 3)
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any

from ..board_svg import board_layout, board_svg
from ..game import CHANCE, Configurable, Game, GameError, capabilities, game_kinds, payoffs, play_text
from ..plugin.registry import GameSpec, PluginError, Registry
from .requests import FILE_OPTIONS, BadRequest, PositionRequest, one_line

__all__ = ["COMPUTER_PLAYERS_SKIPPED", "Catalogue", "MAX_LEGAL", "Made", "error_of", "outcome_text"]

#: The most legal moves a position may have to be shown in the page.
MAX_LEGAL = 1000
#: Registered players the page does not offer as computers: a person, and one that needs a table file.
COMPUTER_PLAYERS_SKIPPED = frozenset({"human", "learned"})
#: How many games (name and options) a catalogue keeps made.
KEPT_GAMES = 64


@dataclass(frozen=True, slots=True)
class Made:
    """A game made from a request, the position after its moves, and the moves as a list."""

    spec: GameSpec
    game: Game[Any, Any]
    state: object
    moves: tuple[str, ...]


def outcome_text(game: Game[Any, Any], state: object) -> dict[str, object] | None:
    """The end of the game as data (winner, each player's payoff, a sentence), or None while it goes on."""
    out = game.outcome(state)
    if out is None:
        return None
    names = game.info.player_names
    text = "a draw" if out.winner is None else f"{names[out.winner]} wins"
    paid = [str(p) for p in payoffs(game, out)]
    return {"winner": out.winner, "payoffs": paid, "text": text}


class Catalogue:
    """The installed games, made on request (the last :data:`KEPT_GAMES` kept)."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._make = functools.lru_cache(maxsize=KEPT_GAMES)(self._create)

    def spec(self, name: str) -> GameSpec:
        spec = self.registry.games.get(name)
        if spec is None:
            raise BadRequest(f"unknown game {name!r} (installed: {', '.join(self.registry.games)})", 404)
        return spec

    def _create(self, name: str, options: tuple[tuple[str, object], ...]) -> Game[Any, Any]:
        spec = self.spec(name)
        declared = {o.name: o for o in spec.options}
        for key, value in options:
            option = declared.get(key)
            if option is None:
                raise BadRequest(f"{name} has no option {key!r} (it has: {', '.join(declared) or 'none'})")
            if option.type is float and isinstance(value, int) and not isinstance(value, bool):
                continue
            if type(value) is not option.type:
                raise BadRequest(f"options.{key}: expected {option.type.__name__}, not {type(value).__name__}")
            if option.choices is not None and value not in option.choices:
                raise BadRequest(f"options.{key}: choose from {', '.join(option.choices)}")
        try:
            return spec.create(**dict(options))  # type: ignore[arg-type]  # (values checked against the declared types)
        except ValueError as exc:
            raise BadRequest(f"{name}: {exc}") from None
        except (TypeError, PluginError) as exc:
            raise BadRequest(f"{name} cannot be made with these options: {exc}", 422) from None

    def make(self, request: PositionRequest) -> Made:
        """The game and position ``request`` names; a :class:`BadRequest` for anything wrong with it."""
        game = self._make(request.game, request.options)
        try:
            state = play_text(game, request.moves)
        except GameError as exc:
            raise BadRequest(f"moves: {exc}", 422) from None
        splitter = capabilities(game).splitter
        moves = splitter.split_moves(request.moves) if splitter is not None else request.moves.split()
        return Made(self.spec(request.game), game, state, tuple(moves))

    def checked(self, request: PositionRequest) -> Made:
        """:meth:`make`, refusing a position with more than :data:`MAX_LEGAL` legal moves (a search's
        answer lists them all)."""
        made = self.make(request)
        if len(list(itertools.islice(made.game.legal_moves(made.state), MAX_LEGAL + 1))) > MAX_LEGAL:
            raise BadRequest(f"this position has more than {MAX_LEGAL} legal moves: too many to show in the page")
        return made

    def games(self) -> list[dict[str, object]]:
        """Every installed game with its options (not those naming files on the server), its kinds beyond
        the plain game (``margin``, ``chance``, ``players``, ...) and its players' names (``/api/games``)."""
        listed: list[dict[str, object]] = []
        for spec in self.registry.games.values():
            options: list[dict[str, object]] = [
                {
                    "name": o.name,
                    "type": o.type.__name__,
                    "default": o.default,
                    "help": o.help,
                    "choices": list(o.choices) if o.choices is not None else None,
                }
                for o in spec.options
                if o.name not in FILE_OPTIONS
            ]
            entry: dict[str, object] = {"name": spec.name, "summary": spec.summary, "source": spec.source}
            entry.update(options=options, **self._kinds(spec.name))
            listed.append(entry)
        return listed

    def _kinds(self, name: str) -> dict[str, object]:
        """The kinds and player names of ``name``'s game made with its default options (none if it
        cannot be made so)."""
        try:
            game = self._make(name, ())
        except BadRequest:
            return {"kinds": [], "player_names": []}
        return {
            "kinds": sorted(kind.name.lower() for kind in game_kinds(game.info)),
            "player_names": list(game.info.player_names),
        }

    def players(self) -> list[str]:
        """The computer players the page offers."""
        return [name for name in self.registry.players if name not in COMPUTER_PLAYERS_SKIPPED]

    def report(self, request: PositionRequest) -> dict[str, object]:
        """The position ``request`` names as plain data (``/api/position``)."""
        made = self.checked(request)
        game, state = made.game, made.state
        legal = list(game.legal_moves(state))
        over = game.outcome(state) is not None
        if over:
            legal = []
        board = capabilities(game).board
        moves = []
        for move in legal:
            cell = None
            if board is not None:
                r, c = board.move_cell(state, move)
                cell = [int(r), int(c)]
            moves.append({"move": game.format_move(state, move), "cell": cell})
        options = dict(game.options()) if isinstance(game, Configurable) else request.option_dict
        return {
            "game": made.spec.name,
            "options": options,
            "moves": list(made.moves),
            "ply": game.ply(state),
            "to_move": game.to_move(state),
            "chance": game.to_move(state) == CHANCE,
            "players": list(game.info.player_names),
            "kinds": sorted(kind.name.lower() for kind in game_kinds(game.info)),
            "outcome": outcome_text(game, state),
            "legal": moves,
            "board": self._board(game, state),
            "text": game.render(state),
        }

    @staticmethod
    def _board(game: Game[Any, Any], state: object) -> dict[str, object] | None:
        svg = board_svg(game, state)
        layout = board_layout(game, state)
        if svg is None or layout is None:
            return None
        return {
            "svg": svg,
            "rows": layout.rows,
            "columns": layout.columns,
            "left": layout.left,
            "top": layout.top,
            "cell": layout.cell,
            "width": layout.width,
            "height": layout.height,
        }


def error_of(exc: BaseException) -> str:
    """One line on an unexpected error, for a response."""
    return one_line(f"{type(exc).__name__}: {exc}")
