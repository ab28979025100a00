"""``gametree games``: the installed games, their options and where each came from."""

from __future__ import annotations

import dataclasses
import json

import click

from ..plugin.registry import Registry
from .common import registry_of

__all__ = ["list_games"]


@click.command("games")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.pass_context
def list_games(ctx: click.Context, as_json: bool) -> None:
    """List installed games, their options and where each came from."""
    registry = registry_of(ctx)
    engines = _engines(registry)
    if as_json:
        data = {
            "games": [
                {
                    "name": spec.name,
                    "summary": spec.summary,
                    "source": spec.source,
                    "engines": list(engines[spec.name][0]),
                    "options": [
                        {
                            "name": o.name,
                            "type": o.type.__name__,
                            "default": o.default,
                            "help": o.help,
                            "choices": o.choices,
                        }
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

    display.print_games(registry, engines)


def _engines(registry: Registry) -> dict[str, tuple[tuple[str, ...], str]]:
    """Each game's engines on its default board (a game that cannot be created with its
    defaults is searched by the Python engine as far as this list knows)."""
    from ..search.compiled import engines_of

    found: dict[str, tuple[tuple[str, ...], str]] = {}
    for spec in registry.games.values():
        try:
            found[spec.name] = engines_of(spec.create())
        except Exception:  # a plugin's failure to build its default board is not this list's to report
            found[spec.name] = (("python",), "")
    return found
