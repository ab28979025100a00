"""What the ``gametree`` commands share.

``solve``, ``play``, ``tree`` and ``learn`` are groups with one subcommand per
installed game (:class:`GameGroup`), built from the game's declared options
(:func:`game_options`); options may come before the game's name as well as after
it.  The registry of plugins is built once per run from the
root's ``-p`` options and kept on the root context (:func:`registry_of`).  A game
option the game refuses is a usage error (exit 2, as click's own checks of the
command line); an illegal move is a :class:`click.ClickException` (exit 1): either
is one line, never a traceback.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
import textwrap
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import click

from ..game import Configurable, Game, GameError, M, S, play_text
from ..plugin.manager import load
from ..plugin.registry import GameSpec, Option, PluginError, PluginLoadError, Registry

if TYPE_CHECKING:
    from ..store import GameEntries, SolutionStore

__all__ = [
    "close_at_the_end",
    "DEPTH_OPTION",
    "ENGINE_OPTION",
    "FINITE_FLOAT",
    "FiniteFloatRange",
    "Decorator",
    "GameGroup",
    "click_option",
    "clip",
    "echo_message",
    "game_group",
    "progress_bar",
    "game_options",
    "make_game",
    "number_option",
    "open_book",
    "option_stack",
    "parallel_options",
    "position_of",
    "registry_of",
    "resolved_options",
    "split_game_options",
    "store_options",
    "wrap_for_terminal",
]


#: A decorator adding click parameters to a command's function.
Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def option_stack(*decorators: Decorator) -> Decorator:
    """One decorator applying ``decorators`` as if they were stacked in this order above the
    function (the first is the first in ``--help``): a command's options declared once, at
    module level, and reused by name (as simonw/datasette's ``cli.py`` shares its flags)."""

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return decorate


def number_option(
    flag: str, kind: click.ParamType[Any, Any], metavar: str | None, help: str, **extra: Any
) -> Decorator:
    """The option ``flag`` taking one value of type ``kind`` (a range, most often), None when not
    given unless ``extra`` sets a ``default``: the shape of most of the commands' numeric flags."""
    return click.option(flag, type=kind, metavar=metavar, help=help, **{"default": None, **extra})


#: ``--engine``, wherever a search runs (the names of :data:`gametree.search.compiled.ENGINES`).
ENGINE_OPTION = click.option(
    "--engine",
    type=click.Choice(["auto", "python", "compiled"]),
    default=None,
    help="Search engine: compiled (numba; games with compiled rules), python (the reference) or auto: "
    "compiled for searches long enough to pay its start-up [default: auto].",
)

#: ``--depth``, wherever a search can stop at a depth and score its leaves by the heuristic.
DEPTH_OPTION = number_option(
    "--depth", click.IntRange(min=1), None, "Depth limit; leaves are scored by the game's heuristic."
)


def clip(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters with ``...``: user input echoed in an error message."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def wrap_for_terminal(text: str, stream: Any) -> str:
    """``text`` as it should be written to ``stream``: on a terminal, each line longer than the
    terminal is broken between words (the terminal itself would break it anywhere, mid-word),
    indented as the line was; to a pipe or a file, unchanged (one message, one line)."""
    try:
        if not stream.isatty():
            return text
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):  # no file descriptor, closed, or no size: not a terminal to fit
        return text
    with contextlib.suppress(ValueError):
        columns = int(os.environ.get("COLUMNS", "")) or columns  # as rich and shutil read it
    width = (
        columns if columns > 0 else 80
    )  # (a terminal of no size, as a pty can be, counts as 80 columns, as rich takes it)
    lines = []
    for line in text.split("\n"):
        indent = line[: len(line) - len(line.lstrip())]
        lines.append(
            textwrap.fill(line, width, subsequent_indent=indent, break_on_hyphens=False, drop_whitespace=True)
            if len(line) > width
            else line
        )
    return "\n".join(lines)


def echo_message(text: str) -> None:
    """Print a message (an error, a warning, a note) on standard error, fitted to a terminal
    by :func:`wrap_for_terminal`."""
    click.echo(wrap_for_terminal(text, sys.stderr), err=True)


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
            registry = load(extra=plugins)  # (one watchdog for all of it: see gametree.plugin.limits)
        root.meta["gametree.registry"] = registry
        for error in registry.errors:
            if not _requested(error, plugins):
                echo_message(f"warning: {error}")
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
        return click.option(
            f"{flag}/--no-{option.name.replace('_', '-')}", option.name, default=option.default, help=option.help
        )
    kind: Any = (
        click.Choice(option.choices) if option.choices else FINITE_FLOAT if option.type is float else option.type
    )
    return click.option(flag, option.name, type=kind, default=None, help=option.help + default_text)


def game_options(spec: GameSpec) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator adding the game's declared options to a click command."""

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(spec.options):
            function = click_option(option)(function)
        return function

    return decorate


def make_game(spec: GameSpec, options: dict[str, Any]) -> Any:
    """Create the game from CLI option values.

    A value the game refuses (its ``ValueError``) is a usage error, exit 2, as click's own
    checks of the command line are: ``Invalid value for '--width': must be at most 100 ...``
    when the game's message starts with the option it refuses (``--width ...`` or ``k=...``),
    else the game's message.  A game that is malformed (:class:`PluginError`) or whose factory
    fails otherwise (``TypeError``) is the plugin's fault: a one-line error, exit 1.
    """
    try:
        return spec.create(**options)
    except ValueError as exc:
        raise _option_error(spec, str(exc)) from None
    except (TypeError, PluginError) as exc:
        raise click.ClickException(f"{spec.name}: {exc}") from None


def _option_error(spec: GameSpec, message: str) -> click.UsageError:
    """The usage error for a game's refusal ``message`` of its options: a
    :class:`click.BadParameter` naming the option when the message starts with one of the
    game's options (``--width must be ...``, ``--heaps: ...``, ``k=9 cannot fit ...``; the
    option's name is not repeated), else a :class:`click.UsageError` with the message after
    the game's name."""
    for option in spec.options:
        flag = "--" + option.name.replace("_", "-")
        named = re.match(rf"(?:{re.escape(flag)}(?![\w-])|{re.escape(option.name)}=(?=\S))[:\s]*", message)
        if named and message[named.end() :]:
            return click.BadParameter(message[named.end() :], param_hint=f"'{flag}'")
    return click.UsageError(f"{spec.name}: {message}")


def resolved_options(spec: GameSpec, game: object, given: dict[str, Any]) -> dict[str, Any]:
    """The options that made ``game``, as a report shows them: the game's own
    :meth:`~gametree.game.Configurable.options` (resolved: 3x3 tic-tac-toe's width, height
    and k, whatever was typed), else the values ``given`` (a command's game options) without
    those not given (None).  A game whose ``options()`` is not a dict of its declared options
    is a one-line error."""
    if isinstance(game, Configurable) and callable(game.options):
        options = game.options()
        declared = {o.name for o in spec.options}
        if not isinstance(options, dict) or not set(options) <= declared:
            raise click.ClickException(
                f"plugin {spec.source or '?'}: game {spec.name!r} is malformed: "
                f"its options() gave {clip(repr(options))}, "
                f"not a dict of its declared options ({', '.join(sorted(declared)) or 'none'})"
            )
        return dict(options)
    return {k: v for k, v in given.items() if v is not None}


def check_file_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A callback refusing an empty file name (``--store ''``, ``-o ''``), which would otherwise
    mean the default store or the current folder."""
    if value is not None and not value.strip():
        raise click.BadParameter("expected a file name, not an empty one")
    return value


def close_at_the_end(store: SolutionStore) -> None:
    """Close ``store`` when the command ends (its data then sit in its file, not in the write-ahead log
    beside it); with no command running (a caller of the functions), the caller closes it."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.find_root().call_on_close(store.close)


#: ``--store PATH`` and ``--no-store``, wherever proven values are read and written.
store_options = option_stack(
    click.option(
        "--store",
        "store_path",
        default=None,
        callback=check_file_name,
        metavar="PATH",
        help="The solution store (SQLite) to read proven values from and write them to "
        "[default: $GAMETREE_STORE, else ~/.local/share/gametree/solutions.sqlite].",
    ),
    click.option("--no-store", is_flag=True, help="Use no solution store (read nothing, write nothing)."),
)


def parallel_options(what: str, workers_note: str = "") -> Decorator:
    """``--workers N`` and ``--scheduler ADDRESS``: do ``what`` ("Prove positions") in N processes
    (``workers_note`` added to that help) or on a Dask cluster."""
    return option_stack(
        number_option(
            "--workers", click.IntRange(min=1), "N", f"{what} in N processes{workers_note}.", callback=check_workers
        ),
        click.option(
            "--scheduler",
            default=None,
            metavar="ADDRESS",
            help=f"{what} on a Dask cluster, e.g. tcp://host:8786 (needs gametree[dask]).",
        ),
    )


def open_book(spec: GameSpec, game: object, given: dict[str, Any], params: dict[str, Any]) -> GameEntries | None:
    """The solution store's entries for this game and board (a :class:`gametree.store.GameEntries`), or
    None (``--no-store``, ``GAMETREE_STORE=none``, or a game whose positions cannot be stored).
    The books the game's plugin ships for this board are added to the store on first use (not
    with ``from_scratch`` in ``params``: a build that remakes them).  A store that cannot be
    used is a one-line error naming it."""
    if params.get("no_store"):  # (the store's modules not even imported)
        if params.get("store_path"):
            raise click.UsageError("--store and --no-store contradict each other")
        return None
    from ..default_store import add_shipped_books
    from ..store import SolutionStore, StoreError, default_store_path

    path = params.get("store_path") or default_store_path()
    if path is None:
        return None
    options = resolved_options(spec, game, given)
    try:
        store = SolutionStore(path)
        close_at_the_end(store)
        book = store.entries_of(spec.name, options)
        if not params.get("from_scratch") and not store.readonly:
            add_shipped_books(store, book, spec, options)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot use the store {path}: {exc.strerror or exc}") from None
    return book


def split_game_options(spec: GameSpec, params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A command's parameters split into the game's own options and the rest."""
    names = {o.name for o in spec.options}
    return {k: v for k, v in params.items() if k in names}, {k: v for k, v in params.items() if k not in names}


class GameGroup(click.Group):
    """A group whose subcommands are the installed games.

    ``command_factory(spec)`` builds the click command for one game.  Options may
    come before the game's name as well as after it (``gametree solve --moves B2
    tictactoe``): :meth:`parse_args` moves the game's name to the front.  With a
    ``default_game``, a command line naming no game plays that one (``gametree play``).
    """

    def __init__(
        self,
        *args: Any,
        command_factory: Callable[[GameSpec], click.Command],
        default_game: str | None = None,
        **kwargs: Any,
    ) -> None:
        if default_game is not None:  # the game may be left out
            kwargs.setdefault("no_args_is_help", False)
            kwargs.setdefault("subcommand_metavar", "[COMMAND] [ARGS]...")
        super().__init__(*args, **kwargs)
        self.command_factory = command_factory
        self.default_game = default_game

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(registry_of(ctx).games)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        registry = registry_of(ctx)
        spec = registry.games.get(name)
        if spec is None:
            return None
        built: dict[tuple[str | None, str], click.Command] = ctx.meta.setdefault("gametree.commands", {})
        command = built.get((self.name, name))
        if command is None:
            command = built[self.name, name] = self.command_factory(spec)
        return command

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, self.game_first(ctx, args))

    def game_first(self, ctx: click.Context, args: list[str]) -> list[str]:
        """``args`` with the game's name first, then the arguments before it, then those after it.

        The game is the first installed game named after whole options of its own command,
        each with its values (``--moves nim tictactoe``: ``nim`` is the value of ``--moves``);
        else, when an option before it is none of its own (a typo its command will report), the
        first installed game named; else the first argument that is no option's value in any
        game, moved first to be reported as an unknown game.  A help option before the game
        asks for this group's help; ``--`` ends the search.  With no game named, the
        ``default_game`` goes first if there is one.
        """
        registry = registry_of(ctx)
        end = args.index("--") if "--" in args else len(args)
        words = [i for i in range(end) if not args[i].startswith("-") or args[i] == "-"]
        games = [i for i in words if args[i] in registry.games]
        chosen = next(
            (
                i
                for i in games
                if _options_complete(_value_counts(self._command(ctx, args[i]), ctx), args[:i], strict=True)
            ),
            None,
        )
        if chosen is None and games:
            chosen = games[0]
        if chosen is None and words:
            every: dict[str, int] = {}  # the options of all the games' commands, with the most values any takes
            for name in registry.games:
                for option, count in _value_counts(self._command(ctx, name), ctx).items():
                    every[option] = max(count, every.get(option, 0))
            chosen = next((i for i in words if _options_complete(every, args[:i], strict=False)), None)
        helps = [arg for arg in args[: end if chosen is None else chosen] if arg in ctx.help_option_names]
        if helps:
            return helps[:1]  # this group's help, whatever came before it
        if chosen is not None:
            return [args[chosen], *args[:chosen], *args[chosen + 1 :]]
        if ctx.resilient_parsing:
            return args
        if self.default_game is None:
            group_options = _value_counts(self, ctx)
            if any(arg.startswith("-") and arg.partition("=")[0] not in group_options for arg in args[:end]):
                known = ", ".join(registry.games) or "none"
                raise click.UsageError(f"no game named (installed: {known})", ctx)
            return args
        if self.default_game not in registry.games:
            known = ", ".join(registry.games) or "none"
            raise click.UsageError(
                f"name a game: the default, {self.default_game}, is not installed (installed: {known})", ctx
            )
        return [self.default_game, *args]

    def _command(self, ctx: click.Context, name: str) -> click.Command:
        command = self.get_command(ctx, name)
        assert command is not None, name  # (a name of the registry's games)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if not name or name.startswith("-"):
            return super().resolve_command(ctx, args)
        command = self.get_command(ctx, name)  # built once
        if command is None:
            known = ", ".join(registry_of(ctx).games) or "none"
            raise click.UsageError(f"unknown game {clip(name)!r} (installed: {known}; see 'gametree games')")
        return name, command, args[1:]


def _value_counts(command: click.Command, ctx: click.Context) -> dict[str, int]:
    """Each option string of ``command`` with the number of values it takes (0 for a flag)."""
    counts: dict[str, int] = {}
    for param in command.get_params(ctx):
        if isinstance(param, click.Option):
            takes = 0 if param.is_flag or param.count else param.nargs
            counts.update({name: takes for name in param.opts})
            counts.update({name: 0 for name in param.secondary_opts})  # --no-board
    return counts


def _options_complete(counts: dict[str, int], args: list[str], *, strict: bool) -> bool:
    """Whether ``args`` are whole options (each with its values) for a command whose options take
    ``counts`` values: no free word among them, and the last option is not waiting for a value.
    An option missing from ``counts`` makes them not so if ``strict``, else it is taken for a flag."""
    waiting = 0
    for arg in args:
        if waiting:
            waiting -= 1
        elif arg.startswith("--"):
            name, equals, _ = arg.partition("=")
            if strict and name not in counts:
                return False
            waiting = 0 if equals else counts.get(name, 0)
        elif arg.startswith("-") and arg != "-":
            for j in range(1, len(arg)):  # -bn: flags; -oFILE, -o FILE: a value, attached or next
                if strict and "-" + arg[j] not in counts:
                    return False
                takes = counts.get("-" + arg[j], 0)
                if takes:
                    waiting = takes - (j < len(arg) - 1)
                    break
        else:
            return False
    return waiting == 0


def game_group(name: str, help: str) -> Callable[[Callable[[GameSpec], click.Command]], GameGroup]:
    """A decorator turning a per-game command factory into the :class:`GameGroup` ``name``."""

    def decorate(factory: Callable[[GameSpec], click.Command]) -> GameGroup:
        return GameGroup(name=name, help=help, command_factory=factory)

    return decorate


def position_of(game: Game[S, M], moves: str) -> S:
    """The position after ``moves`` (in the game's notation); an illegal or malformed move is a one-line error."""
    try:
        return play_text(game, moves)
    except GameError as exc:
        raise click.ClickException(str(exc)) from None


@contextlib.contextmanager
def progress_bar(what: str, enabled: bool | None = None, *, total: bool = True) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar on standard error with the time left (``enabled``: shown or not;
    None: when standard error is a terminal); yields the ``progress(done, total)`` callback.
    ``total=False``: work of unknown size, shown as the two counts and the time so far."""
    if not (sys.stderr.isatty() if enabled is None else enabled):
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    if total:
        columns: tuple[Any, ...] = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
        )
    else:
        columns = (TextColumn("{task.description}"), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def check_workers(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """A ``--workers`` callback refusing more processes than :func:`gametree.runtime.processes.max_workers`
    (checked here, not by ``IntRange(max=...)``, so that ``--help`` and docs/cli.md do not depend
    on the machine's CPU count)."""
    if value is None:  # not given: nothing to check (and the runtime of worker processes stays unloaded)
        return value
    from ..runtime.processes import workers_limit_message

    problem = workers_limit_message(value)
    if problem is not None:
        raise click.BadParameter(problem)
    return value
