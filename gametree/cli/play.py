"""``gametree play``: play any installed game at the terminal.

Built like ``solve``: a group with one subcommand per installed game, carrying
the game's own options, plus who plays each side: ``--x`` and ``--o`` for the
first two, or ``--seats`` for every seat of a game of any number of players
(``--seats human,hard,hard`` for trio's X, O and Y).  ``gametree play`` with no
game's name (options or none) plays 3x3 tic-tac-toe, by default a human (X)
against the perfect player (O).  The
terminal session lives in :mod:`gametree.session` (on :mod:`gametree.terminal`),
and ``--json`` matches in :mod:`gametree.play`; they are imported only when a
game starts (rich only when it draws), so importing the CLI stays light.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import TYPE_CHECKING, Any

import click

from .common import (
    ENGINE_OPTION,
    FiniteFloatRange,
    GameGroup,
    clip,
    game_options,
    make_game,
    open_book,
    registry_of,
    split_game_options,
    store_options,
)
from .tiers import TIERS_OPTION, open_tier_book

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..game import Game, M, S
    from ..plugin.registry import GameSpec, Registry
    from ..session import Seat

__all__ = ["DEFAULT_GAME", "MAX_DELAY", "PlayerKind", "play", "session_options"]

#: What ``gametree play`` with no game argument plays.
DEFAULT_GAME = "tictactoe"
#: ``perfect`` solves the whole game before moving; beyond this many plies (cells) that is
#: slow in Python, so the default second player becomes ``hard`` and choosing ``perfect`` warns.
PERFECT_MAX_PLIES = 20
#: The same on the compiled engine (6x5 Connect Four: its first move in about a second; 6x6 takes 15 s).
COMPILED_PERFECT_MAX_PLIES = 30
#: The same for a game the exact solver cannot search (more players: ``perfect`` is then max^n to the
#: end, without the solver's pruning; 3x3 trio takes 0.2 s, 4x3 over 10 s).
MULTIPLAYER_PERFECT_MAX_PLIES = 9
#: The longest ``--delay`` in seconds: a pause to watch a move, not a way to hang the game.
MAX_DELAY = 60


if TYPE_CHECKING:
    _ParamType = click.ParamType[str, object]
else:  # not subscriptable at run time before click 8.2
    _ParamType = click.ParamType


class PlayerKind(_ParamType):
    """A player name registered by a plugin (checked against this run's registry)."""

    name = "player"

    @staticmethod
    def names(ctx: click.Context | None) -> list[str]:
        ctx = ctx or click.get_current_context(silent=True)
        return list(registry_of(ctx).players) if ctx is not None else []

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        names = self.names(ctx)
        return f"[{'|'.join(names)}]" if names else "PLAYER"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        names = self.names(ctx)
        if names and value not in names:
            self.fail(f"unknown player {clip(str(value))!r} (choose from {', '.join(names)})", param, ctx)
        return str(value)


#: Options of every ``gametree play GAME`` besides the game's own.
_SESSION_OPTIONS = (
    click.option(
        "--x",
        "--first",
        "first",
        type=PlayerKind(),
        default=None,
        help="Who plays first (X in tic-tac-toe).  [default: human]",
    ),
    click.option(
        "--o",
        "--second",
        "second",
        type=PlayerKind(),
        default=None,
        help=f"Who plays second (O).  [default: perfect; hard on boards over {PERFECT_MAX_PLIES} cells]",
    ),
    click.option(
        "--seats",
        "seats",
        default=None,
        metavar="KIND,KIND,...",
        help="Who plays each seat, in the game's order, one player kind per player of the game "
        "(e.g. human,hard,hard for trio's X, O and Y); instead of --x and --o.  [default: --x, then --o's "
        "default for every other seat]",
    ),
    click.option(
        "--seed", type=int, default=None, help="Seed for the players' random choices (same seed, same games)."
    ),
    click.option(
        "--games",
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        help="Play a match of this many games and print the tally.",
    ),
    click.option(
        "--delay",
        type=FiniteFloatRange(min=0, max=MAX_DELAY),
        default=None,
        metavar="SECONDS",
        help="Pause before each computer move when two computers play "
        "(default 0.8 s for a single game on a terminal, else 0).",
    ),
    click.option(
        "--moves",
        default="",
        metavar="MOVES",
        help="Start from the position after these moves, in the game's notation.",
    ),
    click.option("--json", "as_json", is_flag=True, help="Print the match result as JSON (computer players only)."),
    click.option(
        "--table",
        metavar="FILE",
        default=None,
        help="The table the learned player plays from (written by gametree learn) "
        "[default: $GAMETREE_TABLE, else gametree-learned.json].",
    ),
    ENGINE_OPTION,
    TIERS_OPTION,
)


def session_options(function: Callable[..., object]) -> Callable[..., object]:
    """Add the options of every ``gametree play GAME`` (who plays, how many games, the store, ...)."""
    for option in reversed(_SESSION_OPTIONS):
        function = option(function)
    return store_options(function)


def _play_command(spec: GameSpec) -> click.Command:
    @click.command(
        name=spec.name,
        help=f"Play {spec.name} at the terminal ({spec.summary or spec.name}).",
        short_help=spec.summary or f"Play {spec.name}.",
        epilog="At the prompt: a move, or hint, undo, help, quit (x). Ctrl-D or Ctrl-C also leave.",
    )
    @game_options(spec)
    @session_options
    @click.pass_context
    def command(ctx: click.Context, /, **params: Any) -> None:
        game_params, params = split_game_options(spec, params)
        game = make_game(spec, game_params)
        params["book"] = open_book(spec, game, game_params, params)
        params["tier_book"] = open_tier_book(spec, game, params["tiers"]) if params["tiers"] else None
        _seat_and_play(ctx, spec, game, params)

    return command


def _seat_and_play(ctx: click.Context, spec: GameSpec, game: Game[S, M], params: dict[str, Any]) -> None:
    """Build the seats (one for each player of the game) from the options and play: a match printed as
    JSON, or a session at the terminal."""
    from ..game import GameError
    from ..play import PlayError, number_word, play_match
    from ..session import Session
    from ..terminal import Terminal

    registry = registry_of(ctx)
    if params["engine"] == "compiled":  # say now, not at the first hint or computer move
        from ..search.compiled import use_compiled

        try:
            use_compiled(game, "compiled", game.info.max_plies)
        except GameError as exc:
            raise click.BadParameter(str(exc), param_hint="--engine") from None
    from ..search.compiled import use_compiled

    compiled = use_compiled(game, params["engine"] or "auto", game.info.max_plies)
    # (a tier directory answers the perfect player at once: no game is too long for it then)
    big = game.info.max_plies > _perfect_max_plies(game, compiled) and params["tier_book"] is None
    notes: list[str] = []
    kinds = _default_kinds(registry, spec, game, params, big, compiled, notes)
    options = ["--seats"] * len(kinds) if params["seats"] is not None else ["--x", "--o", *["--seats"] * len(kinds)]
    seats = [_seat(registry, option, kind, params) for option, kind in zip(options, kinds)]
    if params["table"] is not None:
        _give_table(game, seats, params["table"])
    # (a store with a book for perfect play, from book build --for-play or a game's shipped book, keeps it quick)
    booked = params["book"] is not None and params["book"].has_chosen_moves()
    asked = kinds if params["seats"] is not None else [params["first"], params["second"]]
    if big and not booked and "perfect" in asked:
        notes.append(
            f"note: 'perfect' proves the value before it moves; "
            f"with {game.info.max_plies} plies and no book for perfect play in the store "
            "(gametree book build --for-play) that can take very long (Ctrl-C stops)."
        )
    try:  # (an illegal move is exit 1, as in solve and tree: the command line is well formed)
        start = _start(game, params["moves"])
    except GameError as exc:
        raise click.ClickException(f"--moves: {exc}") from None
    if game.outcome(start) is not None:
        raise click.ClickException("--moves: the game is already over after these moves")
    if params["as_json"]:
        if any(seat.human for seat in seats):
            example = "--x perfect --o random" if len(seats) == 2 else f"--seats {','.join(['random'] * len(seats))}"
            raise click.UsageError(f"--json needs {number_word(len(seats))} computer players (for example {example})")
        try:
            result = play_match(
                game,
                [s.player for s in seats],
                games=params["games"],
                seed=params["seed"],
                names=tuple(seat.kind for seat in seats),
                start=start,
            )
        except (PlayError, GameError) as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(json.dumps({"game": spec.name, "seed": params["seed"], **dataclasses.asdict(result)}))
        return
    title = getattr(game, "name", None) or spec.name
    session: Session[S, M] = Session(
        game,
        tuple(seats),
        Terminal(),
        seed=params["seed"],
        games=params["games"],
        delay=params["delay"],
        start=start,
        title=str(title),
        notes=tuple(notes),
        engine=params["engine"] or "auto",
        store=params["book"],
        tiers=params["tier_book"],
    )
    try:
        session.play_games()
    except (PlayError, GameError) as exc:  # a player that breaks the rules, or a game a search cannot handle
        raise click.ClickException(str(exc)) from None
    if session.ended == "interrupt":
        sys.exit(130)  # the shell's code for Ctrl-C (click's non-standalone main would swallow ctx.exit)


def _default_kinds(
    registry: Registry,
    spec: GameSpec,
    game: Game[S, M],
    params: dict[str, Any],
    big: bool,
    compiled: bool,
    notes: list[str],
) -> list[str]:
    """The kind of player of each seat (see :func:`_kinds`), the seats left to their default given
    ``perfect`` (``hard`` on a ``big`` game, ``random`` where no built-in search plays the game), with a
    note in ``notes`` saying why the default is not ``perfect``."""
    default = "hard" if big and "hard" in registry.players else "perfect"
    searched = _searched(game)
    if not searched:  # no built-in search plays this kind of game (chance nodes, say): random moves by default
        default = "random"
    kinds = _kinds(spec, game, params, default)
    if default == "perfect" or params["seats"] is not None or params["second"] is not None or len(kinds) < 2:
        return kinds
    others = " and ".join(game.info.player_names[1 : len(kinds)])
    plays = "plays" if len(kinds) == 2 else "play"
    if default == "random":
        notes.append(f"{others} {plays} 'random' by default here: no built-in search plays this kind of game.")
    else:
        notes.append(
            f"{others} {plays} 'hard' by default here: "
            f"'perfect' would first solve all {game.info.max_plies} plies, "
            f"which is slow{'' if compiled else ' in Python'} ({'--o' if len(kinds) == 2 else '--seats'} "
            "perfect insists)."
        )
    return kinds


#: The built-in algorithms the search players (medium, hard, perfect) play with, by the kind of game
#: (star1: games with dice, where it is registered).
SEARCH_PLAYER_ALGORITHMS = ("solver", "alphabeta", "maxn", "star1")


def _searched(game: Game[S, M]) -> bool:
    """Whether an algorithm the search players use can search ``game``."""
    from ..search.algorithms import ALGORITHMS

    specs = [ALGORITHMS[name] for name in SEARCH_PLAYER_ALGORITHMS if name in ALGORITHMS]
    return any(spec.refusal(game) is None for spec in specs)


def _perfect_max_plies(game: Game[S, M], compiled: bool) -> int:
    """The longest game ``perfect`` plays by default: the exact solver's limits, or max^n's."""
    from ..search.algorithms import ALGORITHMS

    if ALGORITHMS["solver"].refusal(game) is not None:
        return MULTIPLAYER_PERFECT_MAX_PLIES
    return COMPILED_PERFECT_MAX_PLIES if compiled else PERFECT_MAX_PLIES


def _kinds(spec: GameSpec, game: Game[S, M], params: dict[str, Any], default: str) -> list[str]:
    """The kind of player of each seat: ``--seats``, else ``--x`` (human), ``--o`` and ``default``
    for the seats after the second; a count that does not match the game's players is a usage error."""
    players = game.info.players
    if params["seats"] is None:
        first = params["first"] or "human"
        return [first, params["second"] or default, *[default] * (players - 2)][:players]
    if params["first"] is not None or params["second"] is not None:
        raise click.UsageError("give --seats, or --x and --o, not both")
    kinds = [kind.strip() for kind in params["seats"].split(",")]
    if len(kinds) != players or not all(kinds):
        raise click.BadParameter(
            f"{spec.name} has {players} players ({', '.join(game.info.player_names[:players])}): give {players} "
            f"player kinds separated by commas, not {clip(params['seats'])!r}",
            param_hint="--seats",
        )
    return kinds


def _seat(registry: Registry, option: str, kind: str, params: dict[str, Any]) -> Seat:
    """The seat of the player ``kind`` asked for by ``option`` (``--x``, ``--o`` or ``--seats``), given the
    ``--engine`` and the store if it searches; an unknown, failing or malformed player is a one-line error."""
    from ..game import GameError
    from ..play import Player
    from ..session import Seat

    factory = registry.players.get(kind)
    if factory is None:
        known = ", ".join(registry.players) or "none"
        raise click.BadParameter(f"unknown player {clip(kind)!r} (installed: {known})", param_hint=option)
    try:
        player = factory()
    except (ValueError, GameError) as exc:  # e.g. mcts with a bad $GAMETREE_MCTS_SECONDS
        raise click.ClickException(f"player {kind} ({option}): {exc}") from None
    if not isinstance(player, Player) or not isinstance(player.human, bool) or not callable(player.choose):
        raise click.ClickException(
            f"player {kind} (from {factory.source}) is no player: "
            "it needs a 'human' attribute (True or False) and a 'choose' method"
        )
    if params["engine"] is not None and hasattr(player, "engine"):  # a searching player (see docs/playing.md)
        player.engine = params["engine"]
    if params["book"] is not None and hasattr(player, "store"):  # a solving player: proven values from the store
        player.store = params["book"]
    if params["tier_book"] is not None and hasattr(player, "tiers"):  # the perfect player: a tier directory
        player.tiers = params["tier_book"]
    return Seat(kind, player)


def _give_table(game: Game[S, M], seats: list[Seat], path: str) -> None:
    """Load the learned table ``path`` for the players that play from one (the learned player);
    a file that cannot be read, is no table or is another game's is a one-line error."""
    from ..learn import LearnedTable, TableError, TableReader

    readers = [seat.player for seat in seats if isinstance(seat.player, TableReader)]
    if not readers:
        raise click.UsageError("--table is for the learned player: add --x learned or --o learned")
    try:
        table = LearnedTable.load(path)
    except TableError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        table.check(game)
    except TableError as exc:
        raise click.ClickException(f"{clip(path)}: {exc}") from None
    for player in readers:
        player.use_table(table)


def _start(game: Game[S, M], moves: str) -> S:
    from ..game import play_text

    start: S = play_text(game, moves) if moves.strip() else game.initial_state()
    return start


play = GameGroup(
    name="play",
    help=(
        "Play a game at the terminal against people or the search (gametree play GAME --help).\n\n"
        "With no game: 3x3 tic-tac-toe, you (X) against the perfect player (O); the options of "
        "gametree play tictactoe --help apply to it as well (gametree play --x perfect --o human)."
    ),
    command_factory=_play_command,
    default_game=DEFAULT_GAME,
)
