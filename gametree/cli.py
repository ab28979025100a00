"""The ``gametree`` command line.

``solve``, ``play`` and ``tree`` are groups with one subcommand per installed
game, built from the game's declared options, so
``gametree solve tictactoe --size 4 --k 3 --help`` shows that game's flags.
The plugin manager is built once per run (after ``-p``) and kept on the root
context.  User errors are one line and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import atexit
import dataclasses
import gc
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import click

from .game import GameError, play_text
from .plugin import GameSpec, Option, PluginError, Registry, build_registry, make_plugin_manager

__all__ = ["main", "cli", "GameGroup", "registry_of", "game_options", "make_game"]


#: Default transposition-table bound of the search commands.
CACHE_SIZE = "3M"


# -- plugin registry on the root context ---------------------------------------------
def registry_of(ctx: click.Context) -> Registry:
    """The registry for this run, built on first use from the root's ``-p`` options."""
    root = ctx.find_root()
    registry = root.meta.get("gametree.registry")
    if registry is None:
        plugins = root.params.get("plugins") or ()
        registry = build_registry(make_plugin_manager(extra=plugins))
        root.meta["gametree.registry"] = registry
        for error in registry.errors:
            click.echo(f"warning: {error}", err=True)
    return registry


def _click_option(option: Option) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    flag = "--" + option.name.replace("_", "-")
    default_text = "" if option.default is None else f" [default: {option.default}]"
    if option.type is bool:
        return click.option(f"{flag}/--no-{option.name.replace('_', '-')}", option.name, default=option.default, help=option.help)
    kind: Any = click.Choice(option.choices) if option.choices else option.type
    return click.option(flag, option.name, type=kind, default=None, help=option.help + default_text)


def game_options(spec: GameSpec) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator adding the game's declared options to a click command."""

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(spec.options):
            function = _click_option(option)(function)
        return function

    return decorate


def make_game(spec: GameSpec, options: dict[str, Any]) -> Any:
    """Create the game from CLI option values; a bad value is a one-line error."""
    try:
        return spec.create(**options)
    except (ValueError, TypeError, PluginError) as exc:
        raise click.ClickException(f"{spec.name}: {exc}") from None


def split_game_options(spec: GameSpec, params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
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
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            known = ", ".join(registry_of(ctx).games) or "none"
            raise click.UsageError(f"unknown game {name!r} (installed: {known}; see 'gametree games')")
        return super().resolve_command(ctx, args)


def game_group(name: str, help: str) -> Callable[[Callable[[GameSpec], click.Command]], GameGroup]:
    def decorate(factory: Callable[[GameSpec], click.Command]) -> GameGroup:
        return GameGroup(name=name, help=help, command_factory=factory)

    return decorate


# -- root -------------------------------------------------------------------------------
@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gametree")
@click.option(
    "-p",
    "--plugin",
    "plugins",
    multiple=True,
    metavar="MODULE",
    help="Load a plugin module from the path (repeatable); -p no:NAME disables an installed plugin.",
)
def cli(plugins: tuple[str, ...]) -> None:
    """Game-tree search: solve, play and draw games installed as plugins."""


@cli.command("games")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.pass_context
def games_command(ctx: click.Context, as_json: bool) -> None:
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
    from . import display

    display.print_games(registry)


# -- solve ------------------------------------------------------------------------------
def _solve_command(spec: GameSpec) -> click.Command:
    @click.command(name=spec.name, help=f"Solve {spec.summary or spec.name}.")
    @game_options(spec)
    @click.option("--moves", default="", metavar="MOVES", help="Solve the position after these moves (e.g. \"B2 A1\").")
    @click.option("--algorithm", "-a", default="solver", show_default=True, help="Search algorithm: solver (exact, fastest), alphabeta, minimax, mcts, or one a plugin adds (see 'gametree games').")
    @click.option("--depth", type=click.IntRange(min=1), default=None, help="Depth limit; leaves are scored by the game's heuristic.")
    @click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS", help="Anytime search (iterative deepening): the best answer found in SECONDS, marked unproven if cut short; mcts: stop after SECONDS.")
    @click.option("--best-only", is_flag=True, help="Only the position's score and one best move with its line, not every move's score: much faster on big boards.")
    @click.option("--weak", is_flag=True, help="Prove only who wins (win, draw or loss), not how fast: much faster on won and lost positions (solver).")
    @click.option("--no-cache", is_flag=True, help="Search without a transposition cache.")
    @click.option("--cache-size", default=CACHE_SIZE, show_default=True, metavar="SIZE", help="Cache bound: entries (500000, 2M) or memory (256MB).")
    @click.option("--no-symmetry", is_flag=True, help="Key the cache by position, not by canonical symmetric key.")
    @click.option("--batch", type=click.File("r"), default=None, metavar="FILE", help="Solve one position per line of FILE ('-' for stdin); print 'position score'.")
    @click.option("--json", "as_json", is_flag=True, help="Print one JSON object (one per line with --batch).")
    @click.option("--iterations", type=click.IntRange(min=1), default=None, metavar="N", help="Monte Carlo iterations (mcts; default 10000 unless --time-limit).")
    @click.option("--exploration", type=click.FloatRange(min=0), default=None, metavar="C", help="UCT exploration constant (mcts; default 1.0).")
    @click.option("--seed", type=int, default=None, help="Seed for the random playouts (mcts).")
    @click.option("--workers", type=click.IntRange(min=1), default=None, metavar="N", help="Solve subproblems in N processes (solver or alphabeta; see docs/parallel.md).")
    @click.option("--scheduler", default=None, metavar="ADDRESS", help="Solve subproblems on a Dask cluster, e.g. tcp://host:8786 (needs gametree[dask]).")
    @click.option("--split-ply", type=click.IntRange(min=1), default=None, metavar="PLY", help="With --workers/--scheduler: split this many moves down [default: automatic].")
    @click.pass_context
    def command(ctx: click.Context, /, **params: Any) -> None:
        game_params, params = split_game_options(spec, params)
        registry = registry_of(ctx)
        game = make_game(spec, game_params)
        algorithm = params["algorithm"]
        if algorithm not in registry.algorithms:
            raise click.BadParameter(f"unknown algorithm {algorithm!r} (choose from {', '.join(sorted(registry.algorithms))})", param_hint="--algorithm")
        function = registry.algorithms[algorithm]
        options = _search_options(function, algorithm, params)
        parallel = params["workers"] is not None or params["scheduler"] is not None
        if params["split_ply"] is not None and not parallel:
            raise click.UsageError("--split-ply needs --workers or --scheduler")
        if params["weak"] and parallel:
            raise click.UsageError("--weak solves in one process: drop --workers/--scheduler")
        if params["best_only"] and parallel:
            raise click.UsageError("--workers/--scheduler split the work by move and score every move: drop --best-only")
        if params["batch"] is not None and not parallel:
            _solve_batch(game, function, options, params["batch"], params["as_json"])
            return
        state = _position(game, params["moves"])
        if parallel:  # split into subproblems solved by worker processes or a Dask cluster
            from .search.parallel import solve_command

            result = solve_command(game, state, algorithm, options, params)
        else:
            result = _run(function, game, state, options)
        if params["as_json"]:
            data = {"game": spec.name, "options": game_params, "moves": params["moves"], **dataclasses.asdict(result)}
            click.echo(json.dumps(data))
            return
        from . import display

        display.print_result(game, state, result)

    return command


def _search_options(function: Callable[..., Any], algorithm: str, params: dict[str, Any]) -> dict[str, Any]:
    """The search options the algorithm takes; a flag it does not take is an error, not ignored."""
    import inspect

    from .search.table import parse_cache_size

    parameters = inspect.signature(function).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    cache: Any = None
    if not params["no_cache"]:
        try:
            cache = parse_cache_size(params["cache_size"])
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--cache-size") from None
    # name: (value, given by the user?, flag)
    wanted = {
        "depth": (params["depth"], params["depth"] is not None, "--depth"),
        "time_limit": (params["time_limit"], params["time_limit"] is not None, "--time-limit"),
        "cache": (cache, params["no_cache"] or params["cache_size"] != CACHE_SIZE, "--no-cache/--cache-size"),
        "symmetry": (not params["no_symmetry"], params["no_symmetry"], "--no-symmetry"),
        "weak": (params["weak"], params["weak"], "--weak"),
        "all_moves": (not params["best_only"], params["best_only"], "--best-only"),
    }
    options: dict[str, Any] = {}
    for name, (value, given, flag) in wanted.items():
        if takes_any or name in parameters:
            if given or name not in ("weak", "all_moves"):  # the algorithms' own defaults
                options[name] = value
        elif given:
            raise click.UsageError(f"{flag} does not apply to --algorithm {algorithm}")
    if params["weak"] and (params["depth"] is not None or params["time_limit"] is not None):
        raise click.UsageError("--weak proves the value: it does not combine with --depth or --time-limit")
    # Monte Carlo options go only to algorithms that name them (not through **options).
    for name, flag in (("iterations", "--iterations"), ("exploration", "--exploration"), ("seed", "--seed")):
        if params[name] is not None:
            if name not in parameters:
                raise click.UsageError(f"{flag} does not apply to --algorithm {algorithm}")
            options[name] = params[name]
    return options


def _position(game: Any, moves: str) -> Any:
    try:
        return play_text(game, moves)
    except GameError as exc:
        raise click.ClickException(str(exc)) from None


def _run(function: Callable[..., Any], game: Any, state: Any, options: dict[str, Any]) -> Any:
    try:
        return function(game, state, **options)
    except GameError as exc:
        raise click.ClickException(str(exc)) from None


def _split_batch_line(game: Any, line: str) -> tuple[str, int | None]:
    """``MOVES [EXPECTED]``: the expected score follows a tab or comma, or (for a
    compact notation like Connect Four's ``4453``) the first space."""
    for sep in ("\t", ","):
        if sep in line:
            moves, _, expected = line.rpartition(sep)
            return moves.strip(), int(expected)
    fields = line.split()
    if hasattr(game, "split_moves") and len(fields) == 2:
        return fields[0], int(fields[1])
    return line.strip(), None


def _solve_batch(game: Any, function: Callable[..., Any], options: dict[str, Any], stream: Any, as_json: bool) -> None:
    """Solve one position per line with one cache for the whole batch; only root scores."""
    from .search import prepare_scores

    # One search set up for the whole batch (the solver's functions are built once), for the scores alone.
    solve = prepare_scores(function, game, **options)
    # One line per position, buffered as stdout is (click.echo would flush every line: a
    # write and a wake-up of the reader per position, 30-70 us each through a pipe here).
    write = sys.stdout.write
    # One encoder for every line, not watching for cycles (a line's object holds no containers):
    # a fifth less time per line than json.dumps.
    encode = json.JSONEncoder(check_circular=False).encode
    count = matched = with_expected = nodes = 0
    seconds = 0.0
    name = getattr(stream, "name", "batch")
    try:
        lines = stream.readlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"cannot read {name}: {exc}") from None
    start = time.perf_counter()
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            moves, expected = _split_batch_line(game, line)
        except ValueError:
            raise click.ClickException(f"{name}:{number}: the expected score must be an integer: {line!r}") from None
        try:
            state = play_text(game, moves)
            result = solve(state)
        except GameError as exc:
            raise click.ClickException(f"{name}:{number}: {exc}") from None
        count += 1
        nodes += result.nodes
        seconds += result.seconds
        if expected is not None:
            with_expected += 1
            # A weak result is the score's sign: it matches the sign of the expected score.
            matched += result.score == (expected > 0) - (expected < 0) if result.weak else result.score == expected
        if as_json:
            write(encode({"position": moves, "score": result.score, "weak": result.weak, "expected": expected, "nodes": result.nodes, "seconds": result.seconds}) + "\n")
        else:
            write(f"{moves} {_fmt_score(result.score)}\n")
    sys.stdout.flush()  # before the summary on stderr
    if not count:
        raise click.ClickException(f"{name}: no positions")
    wall = time.perf_counter() - start
    summary = f"{count} positions: mean {1000 * seconds / count:.3f} ms search time ({1000 * wall / count:.3f} ms with set-up), {nodes / count:.1f} nodes per position"
    if with_expected:
        summary += f"; {matched}/{with_expected} matched the expected {'value (win, draw or loss)' if options.get('weak') else 'score'}"
    click.echo(summary, err=True)
    if matched != with_expected:
        sys.exit(1)


def _fmt_score(score: float) -> str:
    return str(score) if isinstance(score, int) else f"{score:.3f}"


solve = game_group("solve", "Solve a position of an installed game (gametree solve GAME --help).")(_solve_command)
cli.add_command(solve)

from .cli_tree import tree  # noqa: E402  (the group lives in its own module; it needs the helpers above)

cli.add_command(tree)

from .cli_play import play_group  # noqa: E402  (builds the group on demand from the helpers above)

cli.add_command(play_group())

from .cli_learn import learn  # noqa: E402  (the group lives in its own module; it needs the helpers above)

cli.add_command(learn)


def _skip_exit_collections() -> None:
    """Spare the interpreter's garbage collections at exit (about 10 ms, most of a short run's teardown).

    At exit the interpreter runs full collections over every object of the run (the
    tens of thousands of classes, functions and modules that start-up made) only to
    call finalizers of unreachable cycles, which Python does not promise to run at
    exit anyway; gametree closes its own files explicitly.  An exit handler freezes
    the tracked objects, so those collections skip them.  Registered before any plugin
    or command registers its own, it runs after them (handlers run in reverse order).
    Not in development mode (``-X dev``) or with collector debugging on, where the
    warnings of those collections are wanted.
    """
    global _exit_handler_registered
    if not _exit_handler_registered:
        _exit_handler_registered = True
        atexit.register(_freeze_collector)


def _freeze_collector() -> None:
    """Move every object the collector tracks out of its reach (not with ``-X dev`` or collector debugging).

    Called at start, it keeps the objects of start-up out of the run's full
    collections: they live as long as the process, yet every full collection
    would walk them again (one such collection in a batch of a thousand
    positions: about 7 ms).  At exit, see :func:`_skip_exit_collections`.
    """
    if not (sys.flags.dev_mode or gc.get_debug()):
        gc.freeze()


_exit_handler_registered = False


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``gametree`` console script."""
    if argv is None:  # the process is the command (the console script), not a caller passing arguments
        _freeze_collector()
        _skip_exit_collections()
    try:
        cli.main(args=argv, prog_name="gametree", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except (KeyboardInterrupt, click.Abort):
        click.echo("\ninterrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (e.g. | head): not an error of ours
        sys.exit(0)
