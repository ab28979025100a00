"""``gametree tiers``: strong solutions in flat arrays, tier by tier, kept in a directory (docs/tiers.md).

- ``gametree tiers build GAME [game options] [--out DIR]`` solves every reachable position of a
  tiered game (Connect Four, m,n,k; a game without tiers of its own that declares
  ``GameInfo.adds_one_piece`` is tiered by ply) into DIR, with a live line (positions a second, the time left
  for the whole build); Ctrl-C or SIGTERM keeps the finished tiers, and the same command resumes;
- ``gametree tiers query GAME [game options] [--tiers DIR] --moves M [--json]``: a position's value
  and remoteness and every move's, from the arrays;
- ``gametree tiers info DIR|FILE [--json]``: the positions and bytes of each tier (of a tier
  file too, from its header alone);
- ``gametree tiers export DIR FILE`` and ``gametree tiers import FILE [--out DIR] [--force]``: one
  file a user can copy (:mod:`.tiers_files`).

``gametree book query`` and ``gametree book info --tiers DIR`` are these same commands
(:func:`query_command`, :func:`show_tier_info`); ``play --tiers`` and ``solve --tiers`` read a
directory through :func:`open_tier_book` (and :func:`solve_from_tiers`).
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..game import Game, GameError
from ..plugin.registry import GameSpec
from . import common
from .tiers_files import export_command, import_command

if TYPE_CHECKING:
    from ..tier_book import TierBook

__all__ = ["TIERS_OPTION", "open_tier_book", "query_command", "show_tier_info", "solve_from_tiers", "tiers"]

#: ``--tiers DIR`` of the commands that read a tier directory (play, solve).
TIERS_OPTION = click.option(
    "--tiers",
    "tiers",
    metavar="DIR",
    default=None,
    help="Read positions from this tier directory (gametree tiers build): values, remoteness and every move's, "
    "without a search.",
)


def open_tier_book(spec: GameSpec, game: Game[Any, Any], folder: str) -> TierBook:
    """The tier directory ``folder`` of ``game`` (installed as ``spec``), checked against the game's
    name, options and tier sizes: one of another game or board is a one-line error."""
    from ..store.tiers import TierFileError
    from ..tier_book import TierBook

    try:
        return TierBook(game, spec.name, Path(folder))
    except (GameError, TierFileError) as exc:
        raise click.ClickException(f"--tiers: {exc}") from None


@click.group(name="tiers", help="Strong solutions in flat arrays, tier by tier, in a directory (see docs/tiers.md).")
def tiers() -> None:
    pass


#: ``gametree solve`` parameters that mean something with ``--tiers`` (beside the game's options).
_TIER_PARAMS = frozenset({"moves", "tiers", "as_json", "best_only"})


def _flag_given(parameter: click.Parameter, value: object) -> str:
    """How ``parameter`` was written on the command line (``--no-cache``, ``--no-trace``, ``--algorithm``)."""
    if isinstance(parameter, click.Option) and parameter.secondary_opts and value is False:
        return parameter.secondary_opts[0]
    return next((o for o in parameter.opts if o.startswith("--")), parameter.opts[0])


def _refused_with_tiers(ctx: click.Context, params: dict[str, Any]) -> list[str]:
    """The flags of ``params`` given on the command line that mean nothing when the answer is read
    from a tier directory: a search's (``--depth``, ``--cache-size``, ``--analysis-time``, an
    algorithm's own), the store's, the batch's, the parallel run's, the live progress."""
    return [
        _flag_given(parameter, params[parameter.name])
        for parameter in ctx.command.params
        if parameter.name in params
        and parameter.name not in _TIER_PARAMS
        and ctx.get_parameter_source(parameter.name) is click.core.ParameterSource.COMMANDLINE
    ]


def solve_from_tiers(
    ctx: click.Context, spec: GameSpec, game: Game[Any, Any], game_params: dict[str, Any], params: dict[str, Any]
) -> None:
    """``gametree solve GAME --tiers DIR``: the position's answer read from the tier directory (the
    solver's result, ``algorithm`` ``"tiers"``), printed as ``solve`` prints a result; ``--best-only``
    lists only the best moves' values, any flag of a search is a usage error naming it."""
    given = _refused_with_tiers(ctx, params)
    if given:
        raise click.UsageError(f"--tiers reads the answer without a search: drop {', '.join(given)}")
    book = open_tier_book(spec, game, params["tiers"])
    state = common.position_of(game, params["moves"])
    from .. import display
    from ..store.tiers import TierFileError
    from ..tier_book import tier_result

    try:
        result = tier_result(book, state, all_moves=not params.get("best_only", False))
    except (GameError, TierFileError) as exc:
        raise click.ClickException(f"--tiers: {exc}") from None
    if params["as_json"]:
        options = common.resolved_options(spec, game, game_params)
        click.echo(json.dumps({"game": spec.name, "options": options, "moves": params["moves"], **result.data()}))
        return
    display.print_result(game, state, result)


def _default_out(spec: GameSpec, options: dict[str, Any]) -> Path:
    from ..tier_import import default_folder

    return default_folder(spec.name, options)


OUT_OPTION = click.option(
    "--out", metavar="DIR", help="The tier directory (default: GAME-OPTIONS.tiers in the current folder)."
)


class _Status:
    """The live line: the pass and tier, positions a second, the time left for the whole build."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.stage, self.done, self.total, self.first = "starting", 0, 0, -1

    def progress(self, stage: str, done: int, total: int) -> None:
        if self.first < 0:
            self.first = done  # (what a resumed build had done before: not counted in the rate)
        self.stage, self.done, self.total = stage, done, total

    def text(self) -> str:
        seconds = time.perf_counter() - self.started
        rate = (self.done - max(self.first, 0)) / seconds if seconds > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        share = 100 * self.done / self.total if self.total else 0.0
        return f"{self.stage}: {share:.1f}% of {self.total:,} indices, {rate:,.0f}/s, about {left:.0f} s left"


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM stops the build as Ctrl-C does (the finished tiers are kept)."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupted(out: Path) -> str:
    """What a stopped build kept (its finished tiers, the reach marks of the forward pass)."""
    from ..store.tiers import TierFileError
    from ..tier_book import tier_info

    try:
        found = tier_info(out)
    except TierFileError:
        return f"Interrupted before anything was kept in {out}."
    kept = sum(1 for counts, _ in found.tiers if counts is not None)
    marks = f" and the reach marks of {found.marked}" if found.marked else ""
    return f"Interrupted: {kept} finished tiers{marks} are kept in {out}; run the same command again to go on."


def _build_command(spec: GameSpec) -> click.Command:
    @click.command(name=spec.name, help=f"Solve every position of {spec.summary or spec.name} into a tier directory.")
    @common.game_options(spec)
    @OUT_OPTION
    @common.parallel_options("Split each tier", " (they share the directory)")
    @click.option("--json", "as_json", is_flag=True, help="Print a JSON summary instead of text.")
    def command(**params: Any) -> None:
        game_params, params = common.split_game_options(spec, params)
        if params["workers"] and params["scheduler"]:
            raise click.UsageError("--workers and --scheduler: choose one")
        game = common.make_game(spec, game_params)
        options = common.resolved_options(spec, game, game_params)
        out = Path(params["out"]) if params["out"] else _default_out(spec, options)
        from ..build_status import stop_hook
        from ..live import live, text_status
        from ..store.tiers import TierFileError
        from ..tier_book import build_tier_book

        status = _Status()
        hook = stop_hook()

        def progress(stage: str, done: int, total: int) -> None:
            status.progress(stage, done, total)
            hook()

        try:
            with _terminate_as_interrupt(), live(text_status(status.text), sys.stderr.isatty()):
                solution = build_tier_book(
                    game,
                    spec.name,
                    out,
                    progress=progress,
                    workers=params["workers"] or 1,
                    scheduler=params["scheduler"],
                )
        except KeyboardInterrupt:
            click.echo(_interrupted(out), err=True)
            sys.exit(130)
        except (GameError, TierFileError) as exc:
            raise click.ClickException(str(exc)) from None
        except OSError as exc:
            raise click.ClickException(f"cannot write {out}: {exc.strerror or exc}") from None
        if params["as_json"]:
            click.echo(json.dumps({"directory": str(out), **asdict(solution), "positions": solution.positions}))
            return
        click.echo(f"{out}: {solution.positions:,} positions in {len(solution.counts)} tiers, {solution.seconds:.1f} s")

    return command


tiers.add_command(
    common.game_group("build", "Solve a tiered game into a directory (gametree tiers build GAME --help).")(
        _build_command
    )
)


#: The directory ``tiers query`` and ``book query`` read (``--out``, as ``tiers build`` names it, or ``--tiers``).
_READ_OPTION = click.option(
    "--tiers",
    "--out",
    "out",
    metavar="DIR",
    help="The tier directory to read (default: GAME-OPTIONS.tiers in the current folder).",
)


def query_command(spec: GameSpec) -> click.Command:
    """``tiers query GAME`` (and ``book query GAME``, the same command): a position's value and
    remoteness and every move's, from a tier directory."""

    @click.command(name=spec.name, help=f"A position's value and every move's, from a tier directory of {spec.name}.")
    @common.game_options(spec)
    @_READ_OPTION
    @click.option("--moves", default="", metavar="MOVES", help="The moves from the start (default: none).")
    @click.option("--json", "as_json", is_flag=True, help="Print JSON.")
    def command(**params: Any) -> None:
        game_params, params = common.split_game_options(spec, params)
        game = common.make_game(spec, game_params)
        options = common.resolved_options(spec, game, game_params)
        out = Path(params["out"]) if params["out"] else _default_out(spec, options)
        state = common.position_of(game, params["moves"])
        from ..store.tiers import TierFileError

        try:
            answer = open_tier_book(spec, game, str(out)).answer(state)
        except (GameError, TierFileError) as exc:
            raise click.ClickException(str(exc)) from None
        if params["as_json"]:
            click.echo(json.dumps(asdict(answer)))
            return
        click.echo(f"{answer.value.outcome} in {answer.value.remoteness} for the side to move")
        for move in answer.moves:
            click.echo(f"  {move.move}: {move.value.outcome} in {move.value.remoteness}")

    return command


tiers.add_command(
    common.game_group("query", "A position's value from a tier directory (gametree tiers query GAME --help).")(
        query_command
    )
)


@tiers.command(name="info", help="The positions and bytes of each tier of a tier directory or a tier file.")
@click.argument("directory", metavar="DIR|FILE")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def info(directory: str, as_json: bool) -> None:
    show_tier_info(directory, as_json)


def show_tier_info(directory: str, as_json: bool) -> None:
    """Print what the tier directory ``directory`` holds (``tiers info DIR``, ``book info --tiers DIR``):
    each tier's positions by outcome and bytes, as text or JSON."""
    from ..store.tiers import TierFileError
    from ..tier_book import tier_info

    try:
        found = tier_info(Path(directory))
    except TierFileError as exc:
        raise click.ClickException(str(exc)) from None
    rows = [
        {"tier": t, "solved": c is not None, "bytes": b, **({} if c is None else asdict(c))}
        for t, (c, b) in enumerate(found.tiers)
    ]
    if as_json:
        summary = {"game": found.game, "options": found.options, "complete": found.complete}
        if found.file_bytes:
            summary["file_bytes"] = found.file_bytes
        click.echo(json.dumps({**summary, "positions": found.positions, "bytes": found.bytes, "tiers": rows}))
        return
    state = "complete" if found.complete else "incomplete"
    if found.file_bytes:
        state = f"a tier file of {found.file_bytes:,} bytes, compressed; not checked until imported"
    click.echo(f"{found.game} {found.options}: {found.positions:,} positions, {found.bytes:,} bytes ({state})")
    for row in rows:
        if not row["solved"]:
            click.echo(f"  tier {row['tier']}: not solved yet")
            continue
        click.echo(
            f"  tier {row['tier']}: {row['positions']:,} positions ({row['wins']:,} wins, {row['draws']:,} draws, "
            f"{row['losses']:,} losses), {row['bytes']:,} bytes"
        )


tiers.add_command(export_command)
tiers.add_command(import_command)
