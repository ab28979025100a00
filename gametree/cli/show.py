"""``gametree show GAME``: print a position of any installed game without searching it.

A teacher prints an exercise this way: ``gametree show textbook --random --tree-seed 7``
prints the random tree in the notation (``gametree solve textbook --file`` reads it back),
not its answer.
"""

from __future__ import annotations

import json
from typing import Any

import click

from ..game import GameError
from ..plugin.registry import GameSpec
from .common import (
    GameGroup,
    game_group,
    game_options,
    make_game,
    position_of,
    resolved_options,
    split_game_options,
)

__all__ = ["show"]


def _show_command(spec: GameSpec) -> click.Command:
    @click.command(name=spec.name, help=f"Print a position of {spec.summary or spec.name}, without searching it.")
    @game_options(spec)
    @click.option("--moves", default="", metavar="MOVES", help='Show the position after these moves (e.g. "B2 A1").')
    @click.option("--json", "as_json", is_flag=True, help="Print one JSON object: the position, who moves, the moves.")
    @click.pass_context
    def command(ctx: click.Context, /, **params: Any) -> None:
        _show(spec, params)

    return command


def _show(spec: GameSpec, params: dict[str, Any]) -> None:
    game_params, params = split_game_options(spec, params)
    game = make_game(spec, game_params)
    state = position_of(game, params["moves"])
    try:
        text = game.render(state)
        moves = [game.format_move(state, m) for m in game.legal_moves(state)]
        to_move = game.to_move(state)
    except GameError as exc:
        raise click.ClickException(str(exc)) from None
    if not params["as_json"]:
        click.echo(text)
        return
    data = {
        "game": spec.name,
        "options": resolved_options(spec, game, game_params),
        "moves": params["moves"],
        "position": text,
        "to_move": to_move,
        "legal_moves": moves,
        "over": game.outcome(state) is not None,
    }
    click.echo(json.dumps(data))


show: GameGroup = game_group("show", "Print a position of an installed game, without searching it.")(_show_command)
