"""``gametree games``: the installed games, their options and where each came from."""

from __future__ import annotations

import dataclasses
import json

import click

from .common import registry_of

__all__ = ["list_games"]


@click.command("games")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.pass_context
def list_games(ctx: click.Context, as_json: bool) -> None:
    """List installed games, their options and where each came from."""
    registry = registry_of(ctx)
    if as_json:
        data = {
            "games": [
                {
                    "name": spec.name,
                    "summary": spec.summary,
                    "source": spec.source,
                    "options": [
                        {"name": o.name, "type": o.type.__name__, "default": o.default, "help": o.help, "choices": o.choices}
                        for o in spec.options
                    ],
                }
                for spec in registry.games.values()
            ],
            "algorithms": sorted(registry.algorithms),
            "errors": [dataclasses.asdict(e) for e in registry.errors],
        }
        click.echo(json.dumps(data, indent=2))
        return
    from .. import display

    display.print_games(registry)

