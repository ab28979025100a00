"""``gametree solve GAME``: solve a position of any installed game.

A group with one subcommand per installed game, carrying the game's own options
(``gametree solve tictactoe --size 4 --k 3 --help``).  ``--batch`` solves one
position per line of a file with one search set up for the whole batch.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

import click

from .. import live as progress
from ..game import Game, GameError, M, S, capabilities, game_kinds, play_text
from ..plugin.registry import AlgorithmSpec, GameSpec, Option, Registry
from ..search.results import Scored, SearchResult
from .common import (
    DEPTH_OPTION,
    ENGINE_OPTION,
    Decorator,
    FiniteFloatRange,
    GameGroup,
    click_option,
    clip,
    game_group,
    game_options,
    make_game,
    number_option,
    open_book,
    option_stack,
    parallel_options,
    position_of,
    progress_bar,
    registry_of,
    resolved_options,
    split_game_options,
    store_options,
)
from .tiers import TIERS_OPTION, solve_from_tiers

__all__ = ["CACHE_SIZE", "solve"]


#: Default transposition-table bound of the search commands.
CACHE_SIZE = "3M"

#: Default seconds for scoring every move once the position's value is proven (0: no limit).
ANALYSIS_TIME = 3.0


#: The parameters of every solve command; any other (beside the game's) is an algorithm's own option.
_COMMAND_PARAMS = frozenset(
    {
        "moves",
        "algorithm",
        "depth",
        "time_limit",
        "analysis_time",
        "best_only",
        "weak",
        "no_cache",
        "cache_size",
        "no_symmetry",
        "engine",
        "batch",
        "keep_going",
        "as_json",
        "progress",
        "workers",
        "scheduler",
        "split_ply",
        "store_path",
        "no_store",
        "trace",
        "tiers",
    }
)

#: The shared search flags: the search option each sets, and its click declaration.
_SHARED_FLAGS: tuple[tuple[str, Callable[[Callable[..., Any]], Callable[..., Any]]], ...] = (
    ("depth", DEPTH_OPTION),
    (
        "time_limit",
        number_option(
            "--time-limit",
            FiniteFloatRange(min=0, min_open=True),
            "SECONDS",
            "Stop after SECONDS. solver: exact if proven in time (moves not scored by then are listed), "
            "else a best guess marked unproven, with the score's proven range; alphabeta: iterative deepening; "
            "mcts: stop the playouts.",
        ),
    ),
    (
        "analysis_time",
        number_option(
            "--analysis-time",
            FiniteFloatRange(min=0),
            "SECONDS",
            "Once the value is proven, score the moves for at most SECONDS (the rest are listed as not scored); "
            "0: no limit.",
            default=ANALYSIS_TIME,
            show_default=True,
        ),
    ),
    (
        "all_moves",
        click.option(
            "--best-only",
            is_flag=True,
            help="Only the position's score and one best move with its line, not every move's score: "
            "much faster on big boards.",
        ),
    ),
    (
        "weak",
        click.option(
            "--weak",
            is_flag=True,
            help="Prove only who wins (win, draw or loss), not how fast: much faster on won and lost positions.",
        ),
    ),
    ("cache", click.option("--no-cache", is_flag=True, help="Search without a transposition cache.")),
    (
        "cache",
        click.option(
            "--cache-size",
            default=CACHE_SIZE,
            show_default=True,
            metavar="SIZE",
            help="Cache bound: entries (500000, 2M) or memory (256MB).",
        ),
    ),
    (
        "symmetry",
        click.option("--no-symmetry", is_flag=True, help="Key the cache by position, not by canonical symmetric key."),
    ),
    ("engine", ENGINE_OPTION),
    (
        "trace",
        click.option(
            "--trace/--no-trace",
            default=None,
            help="List the nodes the search entered, in order (--json: 'expanded'); alphabeta then searches as "
            "the textbook does (no table, one search from the root) [default: on for games that name their "
            "nodes, such as textbook].",
        ),
    ),
)


def _applies(help: str, names: list[str]) -> str:
    return f"{help} [{', '.join(names)}]"


def _algorithm_options(
    registry: Registry | None, taken: set[str]
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The shared search flags some registered algorithm takes, and each algorithm's own
    options, every help saying which algorithms it applies to."""
    specs = list(registry.algorithms.values()) if registry is not None else []
    decorators = []
    for name, declared in _SHARED_FLAGS:
        users = [s.name for s in specs if name in s.takes]
        if users or registry is None:
            decorators.append((declared, users))
    own: dict[str, tuple[Option, list[str]]] = {}
    for spec in specs:
        for option in spec.options:
            if option.name in taken:
                continue  # a game option or shared flag of that name wins
            if option.name not in own:
                own[option.name] = (option, [])
            own[option.name][1].append(spec.name)

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        for option, users in reversed(own.values()):
            function = click_option(dataclasses.replace(option, help=_applies(option.help, users)))(function)
        for declared, users in reversed(decorators):
            function = declared(function)
            if users:  # the help names the algorithms that take the flag
                parameter = function.__click_params__[-1]  # type: ignore[attr-defined]
                parameter.help = _applies(parameter.help or "", users)
        return function

    return decorate


def _position_options(algorithms: str) -> Decorator:
    """``--moves`` and ``--algorithm`` (whose help names the registered ``algorithms``)."""
    return option_stack(
        click.option(
            "--moves", default="", metavar="MOVES", help='Solve the position after these moves (e.g. "B2 A1").'
        ),
        click.option(
            "--algorithm",
            "-a",
            default="solver",
            show_default=True,
            help=f"Search algorithm: {algorithms} (see 'gametree games'), or 'all': every one that can "
            "search the game, side by side.",
        ),
    )


#: The options of ``gametree solve GAME`` after the search flags: the batch, the output, the store, parallel solving.
_RUN_OPTIONS = option_stack(
    click.option(
        "--batch",
        type=click.File("r"),
        default=None,
        metavar="FILE",
        help="Solve one position per line of FILE ('-' for stdin); print 'position score'.",
    ),
    click.option(
        "--keep-going",
        is_flag=True,
        help="With --batch: report a bad line (FILE:LINE) and go on; exit non-zero at the end.",
    ),
    click.option("--json", "as_json", is_flag=True, help="Print one JSON object (one per line with --batch)."),
    click.option(
        "--progress/--no-progress",
        default=None,
        help="Show live progress on standard error [default: when it is a terminal, without --json].",
    ),
    store_options,
    parallel_options(
        "Solve subproblems",
        " (exact algorithms; see docs/parallel.md): at most 4 per CPU, or 8 on small machines",
    ),
    number_option(
        "--split-ply",
        click.IntRange(min=1),
        "PLY",
        "With --workers/--scheduler: split this many moves down [default: automatic].",
    ),
    TIERS_OPTION,
)


def _solve_command(spec: GameSpec) -> click.Command:
    context = click.get_current_context(silent=True)
    registry = registry_of(context) if context is not None else None
    names = ", ".join(registry.algorithms) if registry is not None else "solver, alphabeta, minimax, mcts"
    taken = {o.name for o in spec.options} | _COMMAND_PARAMS

    @click.command(name=spec.name, help=f"Solve {spec.summary or spec.name}.")
    @game_options(spec)
    @_position_options(names)
    @_algorithm_options(registry, taken)
    @_RUN_OPTIONS
    @click.pass_context
    def command(ctx: click.Context, /, **params: Any) -> None:
        _solve(ctx, spec, params)

    return command


def _solve(ctx: click.Context, spec: GameSpec, params: dict[str, Any]) -> None:
    """``gametree solve GAME``: check the flags, then solve a batch of positions or one, and show the answer."""
    game_params, params = split_game_options(spec, params)
    registry = registry_of(ctx)
    game = make_game(spec, game_params)
    if params["tiers"] is not None:  # read from a tier directory, no search
        solve_from_tiers(ctx, spec, game, game_params, params)
        return
    name = params["algorithm"]
    if name == "all":
        _solve_all(spec, game, game_params, params)
        return
    if name not in registry.algorithms:
        raise click.BadParameter(
            f"unknown algorithm {clip(name)!r} (choose from {', '.join(registry.algorithms)})",
            param_hint="--algorithm",
        )
    algorithm = registry.algorithms[name]
    why = algorithm.refusal(game)  # (a game of a kind it cannot search: one line, naming who can)
    if why is not None:
        able = [other for other, spec in registry.algorithms.items() if spec.refusal(game) is None]
        exact = [other for other in able if registry.algorithms[other].exact]
        if ctx.get_parameter_source("algorithm") is click.core.ParameterSource.DEFAULT and exact:
            # Not asked for by name: the first exact algorithm that can (dice: expectiminimax).
            name, algorithm = exact[0], registry.algorithms[exact[0]]
        else:
            raise click.ClickException(f"{why} ({'use -a ' + ', '.join(able) if able else 'no algorithm can'})")
    options = _search_options(algorithm, params, _traced(game, params))
    parallel = params["workers"] is not None or params["scheduler"] is not None
    _check_run_flags(params, parallel)
    show = progress.wanted(params["progress"], params["as_json"])
    book = open_book(spec, game, game_params, params) if "store" in algorithm.takes else None
    if book is not None:
        options["store"] = book
    elif params["store_path"] and "store" not in algorithm.takes:
        raise click.UsageError(f"--store does not apply to --algorithm {algorithm.name} (it stores proven values)")
    if params["batch"] is not None and not parallel:
        _solve_batch(
            game, algorithm, options, params["batch"], params["as_json"], keep_going=params["keep_going"], show=show
        )
        return
    state = position_of(game, params["moves"])
    from .. import display

    if not params["as_json"]:
        display.print_position(game, state)  # at once: the answer may take a while
    if parallel:  # split into subproblems solved by worker processes or a Dask cluster
        result = _solve_parallel(game, state, name, options, params)
    else:
        result = _solve_live(algorithm, game, state, options, show=show, quiet=params["as_json"])
    if book is not None and book.write_error:
        click.echo(f"warning: {book.write_error}", err=True)
    if params["as_json"]:
        data = {
            "game": spec.name,
            "options": resolved_options(spec, game, game_params),
            "moves": params["moves"],
            **result.data(),
        }
        click.echo(json.dumps(data))
    else:
        display.print_result(game, state, result, position=False)
        if result.expanded is not None:
            click.echo(f"expanded ({len(result.expanded)} nodes): {_expanded_text(result.expanded)}")
    if result.cut_short == "interrupt":  # what was proven is shown; the exit says Ctrl-C
        sys.exit(130)


def _check_run_flags(params: dict[str, Any], parallel: bool) -> None:
    """The flags that need another (``--split-ply``, ``--keep-going``) or exclude parallel solving."""
    if params["split_ply"] is not None and not parallel:
        raise click.UsageError("--split-ply needs --workers or --scheduler")
    if params.get("weak") and parallel:
        raise click.UsageError("--weak solves in one process: drop --workers/--scheduler")
    if params.get("best_only") and parallel:
        raise click.UsageError("--workers/--scheduler split the work by move and score every move: drop --best-only")
    if params["keep_going"] and params["batch"] is None:
        raise click.UsageError("--keep-going goes with --batch")


#: The flag that asks for each search option (the command line's side of :class:`SearchOptions`).
_FLAG_OF = {
    "depth": "--depth",
    "time_limit": "--time-limit",
    "analysis_time": "--analysis-time",
    "cache": "--no-cache/--cache-size",
    "symmetry": "--no-symmetry",
    "weak": "--weak",
    "all_moves": "--best-only",
    "trace": "--trace",
}
#: Options the command line passes with its own defaults to every algorithm that takes them.
_CLI_DEFAULTS = frozenset({"depth", "time_limit", "analysis_time", "cache", "symmetry"})


def _given(flag: str, params: dict[str, Any]) -> bool:
    """Whether the user gave ``flag`` (a value other than its default)."""
    if flag == "--analysis-time":
        return bool(params.get("analysis_time", ANALYSIS_TIME) != ANALYSIS_TIME)
    if flag == "--no-cache/--cache-size":
        return bool(params.get("no_cache")) or params.get("cache_size", CACHE_SIZE) != CACHE_SIZE
    value = params.get(flag.lstrip("-").replace("-", "_"))
    return bool(value is not None and value is not False)


def _traced(game: Game[Any, Any], params: dict[str, Any]) -> bool | None:
    """Whether to trace: ``--trace``/``--no-trace``, else None (on where the algorithm takes it and the
    game names its nodes: a textbook tree)."""
    if params.get("trace") is not None:
        return bool(params["trace"])
    return None if capabilities(game).node_names is not None else False


def _search_options(algorithm: AlgorithmSpec, params: dict[str, Any], trace: bool | None = False) -> dict[str, Any]:
    """The search options the algorithm takes; a flag it does not take is an error, not ignored.
    ``trace`` None: trace if the algorithm can."""
    from ..search.options import Limit, OptionNotTaken, SearchOptions
    from ..search.table import TranspositionTable, parse_cache_size

    cache: Any = None
    if not params.get("no_cache"):
        size = params.get("cache_size")
        size = CACHE_SIZE if size is None else size
        try:
            # The default is not "asked for": the compiled engine then takes less (see TranspositionTable.requested).
            cache = parse_cache_size(size) if size != CACHE_SIZE else TranspositionTable()
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--cache-size") from None
    analysis = params.get("analysis_time", ANALYSIS_TIME)
    engine = params.get("engine")
    wanted = SearchOptions(
        limit=Limit(depth=params.get("depth"), time=params.get("time_limit"), analysis=analysis or None),
        cache=cache,
        symmetry=not params.get("no_symmetry"),
        weak=bool(params.get("weak")),
        all_moves=not params.get("best_only"),
        engine=engine or "auto",
        trace=trace if trace is not None else "trace" in algorithm.takes,
    )
    given = {name for name, flag in _FLAG_OF.items() if _given(flag, params)}
    if trace is None and "trace" in algorithm.takes:
        given.add("trace")
    if engine is not None and (engine == "compiled" or "engine" in algorithm.takes):
        given.add("engine")  # (python and auto: what an algorithm without the choice runs on)
    try:
        # The command line's own defaults go to every algorithm that takes them (a 3M table, 3 s to score the moves).
        options = wanted.for_algorithm(algorithm.name, algorithm.takes, asked=given, also=_CLI_DEFAULTS)
    except OptionNotTaken as exc:
        if exc.option == "depth":
            raise click.UsageError(
                f"--depth does not apply to --algorithm {algorithm.name}: "
                "a depth limit makes a heuristic search (-a alphabeta --depth N)"
            ) from None
        flag = "--engine compiled" if exc.option == "engine" else _FLAG_OF[exc.option]
        raise click.UsageError(f"{flag} does not apply to --algorithm {algorithm.name}") from None
    if params.get("weak") and (params.get("depth") is not None or params.get("time_limit") is not None):
        raise click.UsageError("--weak proves the value: it does not combine with --depth or --time-limit")
    own = {option.name for option in algorithm.options}
    for name, value in params.items():
        if name not in _COMMAND_PARAMS and value is not None:
            if name not in own:
                raise click.UsageError(f"--{name.replace('_', '-')} does not apply to --algorithm {algorithm.name}")
            options[name] = value
    return options


def _expanded_text(expanded: tuple[str, ...]) -> str:
    """The nodes a search entered as a line: ``A, B, E, ...``; a node named by its moves as ``B1 C2``,
    the searched position itself as ``(root)``."""
    return ", ".join(name or "(root)" for name in expanded)


def _solve_all(spec: GameSpec, game: Game[S, M], game_params: dict[str, Any], params: dict[str, Any]) -> None:
    """``--algorithm all``: every registered algorithm that can search the game, on the same position,
    as a table (or one JSON object with a result per algorithm; those that refuse the game are listed
    with why)."""
    if params["batch"] is not None or params["workers"] is not None or params["scheduler"] is not None:
        raise click.UsageError("--algorithm all solves one position in one process: drop --batch/--workers/--scheduler")
    state = position_of(game, params["moves"])
    trace = _traced(game, params)
    results: list[SearchResult] = []
    refused: list[dict[str, str]] = []
    for algorithm in registry_of(click.get_current_context()).algorithms.values():
        why = algorithm.refusal(game)
        if why is not None:
            refused.append({"algorithm": algorithm.name, "reason": why})
            continue
        # Traced where the algorithm can be, if traced at all (--trace does not apply to the solver: not an error here).
        options = _search_options(algorithm, {**params, "trace": None}, None if trace is not False else False)
        results.append(_run(algorithm, game, state, options))
    if params["as_json"]:
        data = {
            "game": spec.name,
            "options": resolved_options(spec, game, game_params),
            "moves": params["moves"],
            "results": [result.data() for result in results],
            "refused": refused,
        }
        click.echo(json.dumps(data, default=str))
        return
    from .. import display

    display.print_position(game, state)
    # A margin, an expectation or a payoff is the value itself: "(win)" beside it would say less, and wrongly
    # for a chance or a player among several.
    valued = bool(game_kinds(game.info))
    width = max([10, *(len(r.algorithm) for r in results), *(len(str(item["algorithm"])) for item in refused)])
    for result in results:
        expanded = f"; expanded {_expanded_text(result.expanded)}" if result.expanded is not None else ""
        said = ("" if result.proven else " (estimate)") if valued else f" ({result.value})"
        click.echo(
            f"{result.algorithm:>{width}}: {_fmt_score(result.score)}{said}, best {' '.join(result.best_moves)}, "
            f"{result.stats.nodes} nodes{expanded}"
        )
    for item in refused:
        click.echo(f"{item['algorithm']:>{width}}: refused: {item['reason']}")


def _solve_live(
    algorithm: AlgorithmSpec, game: Game[S, M], state: S, options: dict[str, Any], *, show: bool, quiet: bool
) -> SearchResult:
    """Run the search with live progress (``show``); an algorithm that reports its progress
    (the solver) also prints its value as soon as it is proven (unless ``quiet``) and keeps
    what it proved when Ctrl-C stops the scoring of the moves."""
    from ..search.progress import SolveProgress

    options = dict(options)
    if "progress" in algorithm.takes:
        watch = SolveProgress()
        if not quiet:
            from .. import display

            watch.on_root = lambda p: progress.say(display.proven_line(p))
        options["progress"] = watch
        render = progress.solve_status(watch)
    else:
        render = progress.elapsed_status(f"searching ({algorithm.name})")
    if "interruptible" in algorithm.takes:
        options["interruptible"] = True
    with progress.live(render, show):
        return _run(algorithm, game, state, options)


def _run(algorithm: AlgorithmSpec, game: Game[S, M], state: S, options: dict[str, Any]) -> SearchResult:
    try:
        return algorithm.search(game, state, **options)
    except GameError as exc:
        raise click.ClickException(str(exc)) from None
    except ValueError as exc:  # an option value the algorithm refuses (mcts --iterations 0)
        raise click.ClickException(f"--algorithm {algorithm.name}: {exc}") from None


def _split_batch_line(compact: bool, line: str) -> tuple[str, int | None]:
    """``MOVES [EXPECTED]``: the expected score follows a tab or comma, or (for a
    ``compact`` notation like Connect Four's ``4453``, which the game splits itself) the first space."""
    for sep in ("\t", ","):
        if sep in line:
            moves, _, expected = line.rpartition(sep)
            return moves.strip(), int(expected)
    fields = line.split()
    if compact and len(fields) == 2:
        return fields[0], int(fields[1])
    return line.strip(), None


@dataclasses.dataclass
class _BatchTally:
    """What a ``--batch`` run has solved so far, for the summary on standard error.

    ``name``: the file's name for the ``FILE:LINE: error`` of a bad line; ``keep_going``: a bad
    line is counted and reported, not the end of the run.
    """

    name: str
    keep_going: bool
    count: int = 0
    matched: int = 0
    with_expected: int = 0
    nodes: int = 0
    failed: int = 0
    seconds: float = 0.0

    def bad(self, number: int, message: str) -> None:
        """Line ``number`` cannot be solved: the end of the run, or (``keep_going``) a line on standard error."""
        text = f"{self.name}:{number}: {message}"
        if not self.keep_going:
            raise click.ClickException(text)
        self.failed += 1
        sys.stdout.flush()  # the lines before it first
        click.echo(f"Error: {text}", err=True)

    def add(self, scored: Scored, expected: int | None) -> None:
        """Count a solved position and whether its score matches the ``expected`` one."""
        self.count += 1
        self.nodes += scored.nodes
        self.seconds += scored.seconds
        if expected is not None:
            self.with_expected += 1
            # A weak result is the score's sign: it matches the sign of the expected score.
            sign = (expected > 0) - (expected < 0)
            self.matched += scored.score == sign if scored.weak else scored.score == expected

    def summary(self, wall: float, weak: bool) -> str:
        """The summary line: mean search time and nodes, the matches, the bad lines skipped."""
        count = self.count
        if not count:
            text = f"{count} positions"
        else:
            text = (
                f"{count} positions: mean {1000 * self.seconds / count:.3f} ms search time "
                f"({1000 * wall / count:.3f} ms with set-up), {self.nodes / count:.1f} nodes per position"
            )
        if self.with_expected:
            what = "value (win, draw or loss)" if weak else "score"
            text += f"; {self.matched}/{self.with_expected} matched the expected {what}"
        if self.failed:
            text += f"; {self.failed} bad line{'s' if self.failed != 1 else ''} skipped"
        return text


def _solve_batch(
    game: Game[S, M],
    algorithm: AlgorithmSpec,
    options: dict[str, Any],
    stream: Any,
    as_json: bool,
    *,
    keep_going: bool = False,
    show: bool = False,
) -> None:
    """Solve one position per line with one cache for the whole batch; only root scores.

    ``keep_going``: a bad line is reported (``FILE:LINE: error``, on standard error) and the
    rest are solved; the exit status is then 1.  ``show``: a progress bar on standard error.
    """
    from ..search import prepare_scores

    options = {k: v for k, v in options.items() if k != "analysis_time"}  # (a batch scores no moves)
    tally = _BatchTally(getattr(stream, "name", "batch"), keep_going)
    lines = _read_batch(stream, tally.name)
    compact = capabilities(game).splitter is not None
    if algorithm.name == "solver":  # its engine "auto" chooses by the work the whole batch is expected to take
        options["positions"] = sum(1 for line in lines if line.strip() and not line.lstrip().startswith("#"))
        options["deepest"] = _deepest(game, compact, lines)  # (its compiled table sized once for all)
    # One search set up for the whole batch (the solver's functions are built once), for the scores alone.
    try:
        solve = prepare_scores(algorithm, game, **options)
    except ValueError as exc:  # an option value the algorithm refuses (mcts --iterations 0)
        raise click.ClickException(f"--algorithm {algorithm.name}: {exc}") from None
    write = _batch_writer(as_json)
    start = time.perf_counter()
    with progress_bar("solving positions", enabled=show) as advance:
        for number, raw in enumerate(lines, start=1):
            advance(number - 1, len(lines))
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            try:
                moves, expected = _split_batch_line(compact, line)
            except ValueError:
                tally.bad(number, f"the expected score must be an integer: {clip(line)!r}")
                continue
            try:
                scored = solve(play_text(game, moves))
            except GameError as exc:
                tally.bad(number, str(exc))
                continue
            except ValueError as exc:  # an option value the algorithm refuses only when it runs
                tally.bad(number, f"--algorithm {algorithm.name}: {exc}")
                continue
            tally.add(scored, expected)
            write(moves, scored, expected)
    sys.stdout.flush()  # before the summary on stderr
    if not tally.count and not tally.failed:
        raise click.ClickException(f"{tally.name}: no positions")
    click.echo(tally.summary(time.perf_counter() - start, bool(options.get("weak"))), err=True)
    if tally.matched != tally.with_expected or tally.failed:
        sys.exit(1)


def _deepest(game: Game[S, M], compact: bool, lines: list[str]) -> int | None:
    """The most plies left of the batch's positions, counted from their lines' moves (a position
    after ``n`` moves has ``max_plies - n`` left at most; a bad line is left to the solve to report);
    None if the batch has no line of moves."""
    splitter = capabilities(game).splitter
    fewest: int | None = None
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            moves, _ = _split_batch_line(compact, line)
            played = len(splitter.split_moves(moves) if splitter is not None else moves.split())
        except ValueError:
            continue
        fewest = played if fewest is None else min(fewest, played)
    return None if fewest is None else max(0, game.info.max_plies - fewest)


#: The longest line of a batch (characters): far more than any game's line of moves.
MAX_BATCH_LINE = 1 << 20
#: The most characters a batch may hold (it is read whole first, for its progress bar).
MAX_BATCH_CHARACTERS = 1 << 28
#: The most lines a batch may hold: each is kept as a string until solved (about 60 bytes even when
#: short), so that an endless stream of short lines (``yes A1 | gametree solve GAME --batch -``) is
#: refused within a second, not after 3 GB and two minutes.
MAX_BATCH_LINES = 1 << 20


def _read_batch(stream: TextIO, name: str) -> list[str]:
    """The lines of a batch, read with bounds: a line longer than :data:`MAX_BATCH_LINE` (a binary
    file, ``/dev/zero``) or a batch longer than :data:`MAX_BATCH_CHARACTERS` or :data:`MAX_BATCH_LINES`
    (an endless stream) is a one-line error, found without reading on."""
    lines: list[str] = []
    total = 0
    try:
        while line := stream.readline(MAX_BATCH_LINE + 1):
            if len(line) > MAX_BATCH_LINE and not line.endswith("\n"):
                raise click.ClickException(
                    f"{name}:{len(lines) + 1}: a line of more than {MAX_BATCH_LINE:,} characters: not a line of moves"
                )
            total += len(line)
            if total > MAX_BATCH_CHARACTERS:
                raise click.ClickException(
                    f"{name}: more than {MAX_BATCH_CHARACTERS:,} characters: split the batch into smaller files"
                )
            lines.append(line)
            if len(lines) > MAX_BATCH_LINES:
                raise click.ClickException(
                    f"{name}: more than {MAX_BATCH_LINES:,} lines: split the batch into smaller files"
                )
    except UnicodeDecodeError as exc:  # (decoded a chunk at a time: where in the file is not known)
        raise click.ClickException(
            f"cannot read {name}: not UTF-8 text (cannot decode a byte 0x{exc.object[exc.start]:02x})"
        ) from None
    except OSError as exc:
        raise click.ClickException(f"cannot read {name}: {exc}") from None
    return lines


def _batch_writer(as_json: bool) -> Callable[[str, Scored, int | None], None]:
    """What writes a solved position's line of a batch: ``position score``, or (``as_json``) a JSON object."""
    # One line per position, buffered as stdout is (click.echo would flush every line: a
    # write and a wake-up of the reader per position).
    write = sys.stdout.write
    # One encoder for every line, not watching for cycles (a line's object holds no containers).
    encode = json.JSONEncoder(check_circular=False).encode

    def write_json(moves: str, scored: Scored, expected: int | None) -> None:
        line = {
            "position": moves,
            "score": scored.score,
            "weak": scored.weak,
            "expected": expected,
            "nodes": scored.nodes,
            "seconds": scored.seconds,
        }
        write(encode(line) + "\n")

    def write_text(moves: str, scored: Scored, expected: int | None) -> None:
        write(f"{moves} {_fmt_score(scored.score)}\n")

    return write_json if as_json else write_text


def _solve_parallel(
    game: Game[S, M], state: S, algorithm: str, options: dict[str, Any], params: dict[str, Any]
) -> SearchResult:
    """``gametree solve --workers N`` / ``--scheduler ADDRESS``: one-line errors for the CLI."""
    from ..search.known import answer
    from ..search.parallel import EXACT_ALGORITHMS, WORKER_TABLE_ENTRIES, solve_parallel

    if params.get("batch") is not None:
        raise click.UsageError("--workers and --scheduler solve one position; they do not work with --batch")
    if options.get("depth") is not None or options.get("time_limit") is not None:
        raise click.UsageError("--workers and --scheduler compute exact values: drop --depth and --time-limit")
    if algorithm not in EXACT_ALGORITHMS:
        raise click.BadParameter(
            f"parallel solving needs an exact algorithm ({' or '.join(EXACT_ALGORITHMS)}), not {algorithm!r}",
            param_hint="--algorithm",
        )
    table = options.get("cache")
    entries = getattr(table, "max_entries", WORKER_TABLE_ENTRIES)
    workers = params.get("workers") or 1
    where = (
        f"on {params['scheduler']}"
        if params.get("scheduler")
        else f"in {workers} process{'es' if workers != 1 else ''}"
    )

    def search() -> SearchResult:
        try:
            with progress_bar(f"solving subproblems {where}") as progress:
                return solve_parallel(
                    game,
                    state,
                    workers=workers,
                    algorithm=algorithm,
                    scheduler=params.get("scheduler"),
                    split_ply=params.get("split_ply"),
                    table_entries=entries,
                    progress=progress,
                    engine=options.get("engine", "auto"),
                )
        except GameError as exc:
            raise click.ClickException(str(exc)) from None

    # Read what is known (all of it stored already: nothing to split), else solve, then record.
    return answer(options.get("store"), game, state, search)


def _fmt_score(score: float) -> str:
    return str(score) if isinstance(score, int) else f"{score:.3f}"


solve: GameGroup = game_group("solve", "Solve a position of an installed game (gametree solve GAME --help).")(
    _solve_command
)
