"""``gametree learn GAME``: learn position statistics from random self-play.

Built like ``solve``: one subcommand per installed game with that game's
options.  The table is written as JSON (see :mod:`gametree.learn`); the
``learned`` player of ``gametree play`` reads it.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import click

from ..files import write_atomically
from ..game import GameError
from ..plugin.registry import GameSpec
from .common import (
    check_workers,
    clip,
    game_group,
    game_options,
    make_game,
    progress_bar,
    resolved_options,
    split_game_options,
)

__all__ = ["MAX_GAMES", "learn"]

#: The most random games ``learn`` plays (``-n``): a billion take hours even on small boards;
#: more is a typo of a few zeros, which would run for ever.
MAX_GAMES = 1_000_000_000


def _check_games(ctx: click.Context, param: click.Parameter, value: int) -> int:
    """The ``--games`` callback: at most :data:`MAX_GAMES` (the number shown cut to 60 characters)."""
    if value > MAX_GAMES:
        raise click.BadParameter(f"at most {MAX_GAMES:,} games, not {clip(f'{value:,}')}")
    return value


def _learn_command(spec: GameSpec) -> click.Command:
    from ..learn import DEFAULT_TABLE

    @click.command(
        name=spec.name,
        help=f"Learn position statistics of {spec.summary or spec.name} from random games.",
        epilog="Play against the table with: gametree play GAME --o learned --table FILE "
        "(without --table: $GAMETREE_TABLE, else " + DEFAULT_TABLE + ").",
    )
    @game_options(spec)
    @click.option(
        "--games",
        "-n",
        type=click.IntRange(min=1),
        default=10_000,
        show_default=True,
        callback=_check_games,
        help="Random games to play.",
    )
    @click.option(
        "--workers",
        "-w",
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        callback=check_workers,
        help="Play the games in this many processes (same table as one).",
    )
    @click.option(
        "--seed", type=int, default=0, show_default=True, help="Master seed: game i uses a seed made from it and i."
    )
    @click.option(
        "-o",
        "--output",
        default=DEFAULT_TABLE,
        show_default=True,
        metavar="FILE",
        help="Where to write the table ('-': standard output).",
    )
    @click.option("--json", "as_json", is_flag=True, help="Print a JSON summary line instead of text.")
    def command(**params: Any) -> None:
        game_params, params = split_game_options(spec, params)
        game = make_game(spec, game_params)
        from ..learn import learn

        start = time.perf_counter()
        total = params["games"]
        played = 0
        with progress_bar(f"playing {total:,} random games") as bar:

            def progress(n: int) -> None:
                nonlocal played
                played += n
                bar(played, total)

            try:
                table = learn(
                    game,
                    games=total,
                    seed=params["seed"],
                    workers=params["workers"],
                    name=spec.name,
                    options=resolved_options(spec, game, game_params),
                    progress=progress,
                )
            except GameError as exc:  # a worker process that died, say
                raise click.ClickException(str(exc)) from None
        seconds = time.perf_counter() - start
        text = table.to_json()
        output = params["output"]
        if output == "-":
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            try:
                write_atomically(output, text.encode("utf-8"))  # a failed write keeps an old table whole
            except OSError as exc:
                raise click.ClickException(f"cannot write {output}: {exc.strerror or exc}") from None
        summary = {
            "game": spec.name,
            "games": total,
            "positions": len(table.positions),
            "seconds": round(seconds, 3),
            "output": output,
        }
        if params["as_json"]:
            click.echo(json.dumps(summary), err=output == "-")
        else:
            click.echo(
                f"learned {len(table.positions):,} positions from {total:,} random games in {seconds:.1f} s; "
                f"wrote {output}",
                err=True,
            )

    return command


learn = game_group("learn", "Learn position statistics from random self-play (gametree learn GAME --help).")(
    _learn_command
)
