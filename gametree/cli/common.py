"""What the ``gametree`` commands share.

``solve``, ``play``, ``tree`` and ``learn`` are groups with one subcommand per
installed game (:class:`GameGroup`), built from the game's declared options
(:func:`game_options`).  The registry of plugins is built once per run from the
root's ``-p`` options and kept on the root context (:func:`registry_of`).  A bad
game option or move is a :class:`click.ClickException`: one line and a non-zero
exit, never a traceback.
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable, Iterator
from typing import Any

import click

from ..game import GameError, play_text
from ..plugin import GameSpec, Option, PluginError, PluginLoadError, Registry, build_registry, make_plugin_manager

__all__ = [
    "ENGINE_OPTION",
    "FINITE_FLOAT",
    "FiniteFloatRange",
    "GameGroup",
    "click_option",
    "clip",
    "game_group",
    "progress_bar",
    "game_options",
    "make_game",
    "position_of",
    "registry_of",
    "split_game_options",
]


#: ``--engine``, wherever a search runs (the names of :data:`gametree.search.compiled.ENGINES`).
ENGINE_OPTION = click.option(
    "--engine",
    type=click.Choice(["auto", "python", "compiled"]),
    default=None,
    help="Search engine: compiled (numba; games with compiled rules), python (the reference) or auto: compiled for searches long enough to pay its start-up [default: auto].",
)


def clip(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters with ``...``: user input echoed in an error message."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- plugin registry on the root context ---------------------------------------------
def registry_of(ctx: click.Context) -> Registry:
    """The registry for this run, built on first use from the root's ``-p`` options.

    Plugins are imported and registered with standard output sent to standard error,
    so a plugin that prints cannot corrupt a command's result (``--json``).  A broken
    entry-point plugin is a warning; a ``-p MODULE`` that fails to load or register is
    an error, as with ``pytest -p``: the user asked for it by name.
    """
    root = ctx.find_root()
    registry = root.meta.get("gametree.registry")
    plugins = root.params.get("plugins") or ()
    if registry is None:
        with contextlib.redirect_stdout(sys.stderr):
            registry = build_registry(make_plugin_manager(extra=plugins))
        root.meta["gametree.registry"] = registry
        for error in registry.errors:
            if not _requested(error, plugins):
                click.echo(f"warning: {error}", err=True)
    for error in registry.errors:
        if _requested(error, plugins):
            raise click.ClickException(f"-p {clip(error.name)}: {error.error.replace(error.name, clip(error.name))}")
    return registry


def _requested(error: PluginLoadError, plugins: tuple[str, ...]) -> bool:
    """Whether ``error`` is about a ``-p MODULE`` of ``plugins``: its import or registration
    (no distribution) or its hook (the origin the loader gives -p modules)."""
    return error.name in plugins and (not error.dist or error.dist.endswith("(-p)"))


class _FiniteFloat(click.types.FloatParamType):
    """click's FLOAT without ``nan`` and ``inf`` (which ``float()`` reads, and no option means)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{clip(str(value))!r} is not a finite number", param, ctx)
        return number


#: A float option's type: any finite number.
FINITE_FLOAT = _FiniteFloat()


class FiniteFloatRange(click.FloatRange):
    """click's FloatRange without ``nan`` (which passes every bound check) and ``inf``."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return super().convert(FINITE_FLOAT.convert(value, param, ctx), param, ctx)


def click_option(option: Option) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The click option for a game's or algorithm's declared :class:`Option` (a float one is finite)."""
    flag = "--" + option.name.replace("_", "-")
    default_text = "" if option.default is None else f" [default: {option.default}]"
    if option.type is bool:
        return click.option(f"{flag}/--no-{option.name.replace('_', '-')}", option.name, default=option.default, help=option.help)
    kind: Any = click.Choice(option.choices) if option.choices else FINITE_FLOAT if option.type is float else option.type
    return click.option(flag, option.name, type=kind, default=None, help=option.help + default_text)


def game_options(spec: GameSpec) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator adding the game's declared options to a click command."""

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(spec.options):
            function = click_option(option)(function)
        return function

    return decorate


def make_game(spec: GameSpec, options: dict[str, Any]) -> Any:
    """Create the game from CLI option values; a bad value is a one-line error."""
    try:
        return spec.create(**options)
    except (ValueError, TypeError, PluginError) as exc:
        raise click.ClickException(f"{spec.name}: {exc}") from None


def split_game_options(spec: GameSpec, params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A command's parameters split into the game's own options and the rest."""
    names = {o.name for o in spec.options}
    return {k: v for k, v in params.items() if k in names}, {k: v for k, v in params.items() if k not in names}


class GameGroup(click.Group):
    """A group whose subcommands are the installed games.

    ``command_factory(spec)`` builds the click command for one game.
    """

    def __init__(self, *args: Any, command_factory: Callable[[GameSpec], click.Command], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.command_factory = command_factory

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(registry_of(ctx).games)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        registry = registry_of(ctx)
        spec = registry.games.get(name)
        if spec is None:
            return None
        return self.command_factory(spec)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if not name or name.startswith("-"):
            return super().resolve_command(ctx, args)
        command = self.get_command(ctx, name)  # built once
        if command is None:
            known = ", ".join(registry_of(ctx).games) or "none"
            raise click.UsageError(f"unknown game {clip(name)!r} (installed: {known}; see 'gametree games')")
        return name, command, args[1:]


def game_group(name: str, help: str) -> Callable[[Callable[[GameSpec], click.Command]], GameGroup]:
    """A decorator turning a per-game command factory into the :class:`GameGroup` ``name``."""
    def decorate(factory: Callable[[GameSpec], click.Command]) -> GameGroup:
        return GameGroup(name=name, help=help, command_factory=factory)

    return decorate


def position_of(game: Any, moves: str) -> Any:
    """The position after ``moves`` (in the game's notation); an illegal or malformed move is a one-line error."""
    try:
        return play_text(game, moves)
    except GameError as exc:
        raise click.ClickException(str(exc)) from None



@contextlib.contextmanager
def progress_bar(what: str) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar on standard error (when it is a terminal) with the time left;
    yields the ``progress(done, total)`` callback."""
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def check_workers(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """A ``--workers`` callback refusing more processes than :func:`gametree.search.parallel.max_workers`
    (checked here, not by ``IntRange(max=...)``, so that ``--help`` and docs/cli.md do not depend
    on the machine's CPU count)."""
    if value is None:  # not given: nothing to check (and the process pools' module stays unloaded)
        return value
    from ..search.parallel import workers_limit_message

    problem = workers_limit_message(value)
    if problem is not None:
        raise click.BadParameter(problem)
    return value
