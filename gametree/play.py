"""Playing a game in the terminal: the player protocol, the game loop and the board display.

A *player* is any object with ``human: bool`` and ``choose(game, state, rng)``
returning a legal move; players arrive as plugins through
``gametree_register_players`` (the built-in ones are in ``plugins/players.py``).
The loop is game-agnostic.  It draws a board from the optional members a board
game offers (the :class:`~gametree.game.BoardView` capability):

- ``row_labels`` and ``column_labels`` (top row and left column first);
- ``board_cells(state)``: rows of cells, each ``""`` or a player's name;
- ``move_cell(state_before, move)``: the (row, column) a move marks;
- ``winning_cells(state)``: the cells of the completed line(s), else ``()``;

and falls back to ``game.render(state)`` for a game without them (Nim).  A
game's ``move_help`` (:class:`~gametree.game.MoveHelp`), one line saying how to
type a move, is shown to a person; without it, two legal moves as examples.
Output is styled with rich on a terminal and plain text when it is not a
terminal or ``NO_COLOR`` is set; rich is imported only when it is used.

Two computer players can also play without any terminal::

    >>> import random
    >>> from gametree import load
    >>> registry = load()
    >>> game = registry.game("tictactoe").create(size=3)
    >>> perfect = registry.players["perfect"]
    >>> record = play_game(game, (perfect(), perfect()), random.Random(1))
    >>> record.winner is None, len(record.moves)
    (True, 9)
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TextIO, TypeVar, runtime_checkable

from .search.table import TranspositionTable
from .game import Game, GameError, Move, State, capabilities, checked_play
from .display import bounds_verdict
from .search import SearchResult, Solver
from .search.perfect import stored_choice
from .search.progress import SolveProgress
from .store import GameEntries
from .search.compiled import EngineChoice

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "GameRecord",
    "MatchResult",
    "PlayError",
    "Player",
    "Seat",
    "Session",
    "Terminal",
    "board_rows",
    "play_game",
    "play_match",
    "wants_color",
]

T = TypeVar("T")

QUIT_WORDS = frozenset({"quit", "q", "x", "exit"})
YES_WORDS = frozenset({"", "y", "yes"})
NO_WORDS = frozenset({"n", "no"}) | QUIT_WORDS


@runtime_checkable
class Player(Protocol):
    """Chooses moves.  ``human`` players are asked at the terminal instead."""

    human: bool

    def choose(self, game: Game[Any, Any], state: State, rng: random.Random) -> Any:
        """A legal move in ``state`` (ties broken with ``rng`` so games replay from a seed)."""
        ...


class PlayError(Exception):
    """A player broke the rules of the loop (for example, chose an illegal move)."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished game: its moves in the game's notation and the winner (None: draw);
    ``seconds``: how long each move took to choose (computer players; empty if not timed)."""

    moves: tuple[str, ...]
    winner: int | None
    seconds: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A series of games between the same two seats."""

    players: tuple[str, str]
    games: int
    wins: tuple[int, int]
    draws: int
    records: tuple[GameRecord, ...]

    @staticmethod
    def of(players: tuple[str, str], records: Sequence[GameRecord]) -> MatchResult:
        wins = (sum(r.winner == 0 for r in records), sum(r.winner == 1 for r in records))
        return MatchResult(players, len(records), wins, len(records) - wins[0] - wins[1], tuple(records))


def _apply(game: Game[Any, Any], state: State, move: Move, who: str) -> Any:
    try:
        return checked_play(game, state, move)
    except GameError as exc:
        raise PlayError(f"player {who} chose an illegal move: {exc}") from None


def play_game(game: Game[Any, Any], players: Sequence[Player], rng: random.Random, state: State | None = None) -> GameRecord:
    """Play one game between two computer players, from ``state`` (default: the start)."""
    if any(p.human for p in players):
        raise PlayError("play_game needs two computer players")
    state = game.initial_state() if state is None else state
    moves = []
    seconds = []
    while (out := game.outcome(state)) is None:
        side = game.to_move(state)
        started = time.perf_counter()
        move = players[side].choose(game, state, rng)
        seconds.append(round(time.perf_counter() - started, 6))
        moves.append(game.format_move(state, move))
        state = _apply(game, state, move, type(players[side]).__name__)
    return GameRecord(tuple(moves), out.winner, tuple(seconds))


def play_match(
    game: Game[Any, Any],
    players: Sequence[Player],
    *,
    games: int,
    seed: int | None = None,
    names: tuple[str, str] = ("first", "second"),
    start: State = None,
) -> MatchResult:
    """Play ``games`` games between two computer players with one seeded random generator."""
    rng = random.Random(seed)
    return MatchResult.of(names, [play_game(game, players, rng, start) for _ in range(games)])


# -- board display ------------------------------------------------------------------------
#: Style names used in board rows; the terminal maps them to rich styles.
LABEL, EMPTY, LAST, WIN = "label", "empty", "last", "win"

_NAMED_COLOURS = {"red", "yellow", "blue", "green", "white", "black", "cyan", "magenta"}
_PLAYER_STYLES = ("bold bright_cyan", "bold bright_magenta")


def _marks(names: tuple[str, str]) -> dict[str, str]:
    """Short marks for player names: the names themselves if short, else first letters."""
    if max(len(n) for n in names) <= 2 or len({n[0] for n in names}) < 2:
        return {n: n for n in names}
    return {n: n[0] for n in names}


def board_rows(
    game: Any, state: State, *, last: tuple[int, int] | None = None, winning: Sequence[tuple[int, int]] = (), plain: bool = True
) -> list[list[tuple[str, str | None]]]:
    """The board as rows of ``(text, style)`` pieces, labels on top and left.

    ``style`` is None, ``"label"``, ``"empty"``, ``"last"``, ``"win"`` or
    ``"player0"``/``"player1"``.  With ``plain`` the last move is marked
    ``[X]`` and winning cells ``*X*`` so they show without colour.
    """
    names = game.info.player_names
    marks = _marks(names)
    cols, rows_l = list(game.column_labels), list(game.row_labels)
    cells = game.board_cells(state)
    width = max([len(c) for c in cols] + [len(m) for m in marks.values()]) + 2
    label_width = max((len(r) for r in rows_l), default=0)
    win = set(winning)
    out: list[list[tuple[str, str | None]]] = []
    header: list[tuple[str, str | None]] = [(" " * (label_width + 1), None)]
    for i, c in enumerate(cols):
        header.append(((" " if i else "") + c.center(width), LABEL))
    out.append(header)
    for r, row in enumerate(cells):
        pieces: list[tuple[str, str | None]] = [(rows_l[r].rjust(label_width), LABEL), (" ", None)]
        for c, cell in enumerate(row):
            if c:
                pieces.append((" ", None))
            mark = marks.get(cell, cell) if cell else "."
            style: str | None
            if (r, c) in win:
                text, style = (f"*{mark}*" if plain else f" {mark} ").center(width), WIN
            elif (r, c) == last:
                text, style = (f"[{mark}]" if plain else f" {mark} ").center(width), LAST
            else:
                text = f" {mark} ".center(width)
                style = EMPTY if not cell else f"player{names.index(cell)}" if cell in names else None
            pieces.append((text, style))
        out.append(pieces)
    return out


def _player_style(names: tuple[str, str], index: int) -> str:
    name = names[index].lower()
    return f"bold {name}" if name in _NAMED_COLOURS else _PLAYER_STYLES[index]


def wants_color(stream: TextIO) -> bool:
    """Styled output: the stream is a terminal, ``NO_COLOR`` is unset and ``TERM`` is not ``dumb``."""
    return _isatty(stream) and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


# -- the terminal ------------------------------------------------------------------------
class Terminal:
    """Where a game is shown and moves are typed: rich on a terminal, else plain text.

    ``interactive`` means input comes from a person at a terminal; when input
    is piped, each line read is echoed so the transcript reads like a session.
    """

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None, *, fancy: bool | None = None) -> None:
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        self.fancy = wants_color(self.stdout) if fancy is None else fancy
        self.interactive = _isatty(self.stdin)
        self.watching = _isatty(self.stdout)
        self._console: Console | None = None

    @property
    def console(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(file=self.stdout, highlight=False, emoji=False, soft_wrap=True)
        return self._console

    def say(self, text: str = "", style: str | None = None) -> None:
        # A line longer than the terminal is broken between words (the terminal would break it
        # mid-word): by rich (soft_wrap=False), or by textwrap on a terminal without colours.
        if self.fancy:
            self.console.print(text, style=style, markup=False, soft_wrap=False)
        else:
            if self.watching:
                import shutil
                import textwrap

                width = shutil.get_terminal_size().columns
                lines = text.split("\n")
                indents = [" " * (len(line) - len(line.lstrip())) for line in lines]
                text = "\n".join(
                    textwrap.fill(line, width, subsequent_indent=indent, break_on_hyphens=False) if len(line) > width else line
                    for line, indent in zip(lines, indents)
                )
            self.stdout.write(text + "\n")
            self.stdout.flush()

    def show_rows(self, rows: list[list[tuple[str, str | None]]], styles: dict[str, str]) -> None:
        if not self.fancy:
            for row in rows:
                self.stdout.write("".join(text for text, _ in row).rstrip() + "\n")
            self.stdout.flush()
            return
        from rich.text import Text

        for row in rows:
            line = Text()
            for text, style in row:
                line.append(text, style=styles.get(style, "") if style else "")
            self.console.print(line)

    def ask(self, prompt: str) -> str:
        """One line of input; ``EOFError`` at end of input, ``KeyboardInterrupt`` on Ctrl-C,
        ``PlayError`` for input that is not text in the stream's encoding."""
        if self.fancy:
            self.console.print(prompt, end="", style="bold", markup=False)
        else:
            self.stdout.write(prompt)
            self.stdout.flush()
        try:
            if self.interactive and self.stdin is sys.stdin:
                return input()
            line = self.stdin.readline()
        except UnicodeDecodeError as exc:  # bytes that are not text under strict decoding
            self.stdout.write("\n")  # end the prompt's line
            self.stdout.flush()
            raise PlayError(f"cannot read the input: {exc}") from None
        if not line:
            raise EOFError
        self.stdout.write(line if line.endswith("\n") else line + "\n")  # echo piped input
        self.stdout.flush()
        return line.rstrip("\r\n")

    def think(self, work: Callable[[], T], message: str, status: Callable[[], Any] | None = None) -> T:
        """Run ``work``; on a styled terminal, if it takes over half a second, show ``status()``
        (default: a spinner, ``message`` and the seconds) until it ends.  The work runs in this
        thread: Ctrl-C stops it (and raises KeyboardInterrupt here) at once."""
        if not self.fancy:
            return work()
        from .live import elapsed_status, live

        with live(status or elapsed_status(message), True, console=self.console):
            return work()

    def pause(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


# -- a session of games at the terminal ---------------------------------------------------------
@dataclass
class Seat:
    """A side of the board: the kind of player (its registry name) and the player."""

    kind: str
    player: Player

    @property
    def human(self) -> bool:
        return bool(self.player.human)


class _Undo(Exception):
    """The human asked to take back moves (internal signal)."""


class _Stop(Exception):
    """The human quit or input ended (internal signal)."""


@dataclass
class Session:
    """Games between two seats at a terminal.

    ``run()`` plays ``games`` games (or, with one game, a person at the
    terminal and a human seat, offers to play again) and returns the
    tally.  ``ended`` says how the session ended: ``"done"``, ``"quit"``,
    ``"eof"`` or ``"interrupt"`` (Ctrl-C).
    """

    game: Game[Any, Any]
    seats: tuple[Seat, Seat]
    ui: Terminal
    seed: int | None = None
    games: int = 1
    delay: float | None = None
    start: State = None
    title: str = ""
    notes: tuple[str, ...] = ()
    records: list[GameRecord] = field(default_factory=list)
    ended: str = "done"
    #: The engine of hints.
    engine: EngineChoice = "auto"
    #: Seconds a hint may take (an exact solve with this time limit: see :meth:`hint`).
    hint_seconds: float = 1.5
    #: A solution store's entries for this game (:class:`gametree.store.GameEntries`): hints read and write it.
    store: GameEntries | None = None

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.names = self.game.info.player_names
        self.humans = sum(s.human for s in self.seats)
        #: The game's optional members (a board to draw, help on typing a move), checked once.
        self.caps = capabilities(self.game)
        if self.start is None:
            self.start = self.game.initial_state()
        if self.delay is None:
            # Two computers in front of a person: slow down so the game can be watched.
            self.delay = 0.8 if not self.humans and self.games == 1 and self.ui.watching else 0.0
        # Boards are drawn when someone plays or watches; a fast computer match prints one line per game.
        self.show_boards = bool(self.humans or self.games == 1 or self.delay)
        self._hint_solver: Solver | None = None
        self._styles = {
            LABEL: "dim",
            EMPTY: "dim",
            "player0": _player_style(self.names, 0),
            "player1": _player_style(self.names, 1),
            LAST: "reverse bold",
            WIN: "bold black on bright_green",
        }

    # -- naming -------------------------------------------------------------------------
    def label(self, side: int) -> str:
        seat = self.seats[side]
        if seat.human and self.humans == 1:
            return f"{self.names[side]} (you)"
        return f"{self.names[side]} ({seat.kind})"

    def move_help(self, state: State) -> str:
        text = self.caps.help.move_help if self.caps.help is not None else None
        if isinstance(text, str) and text:
            return text
        examples = [self.game.format_move(state, m) for m in list(self.game.legal_moves(state))[:2]]
        return f"type a move in the game's notation, e.g. {' or '.join(examples)}" if examples else "type a move"

    # -- running ------------------------------------------------------------------------
    def run(self) -> MatchResult:
        ui = self.ui
        ui.say(f"{self.title}: {self.label(0)} vs {self.label(1)}".lstrip(": "), style="bold")
        for note in self.notes:
            ui.say(note, style="yellow")
        if self.humans:
            ui.say(f"How to play: {self.move_help(self.start)} (or hint, undo, help, quit).")
        try:
            number = 0
            while True:
                number += 1
                if self.games > 1 and self.show_boards:
                    ui.say()
                    ui.say(f"Game {number} of {self.games}", style="bold")
                again = self.play_one(number, ask_again=self.games == 1 and self.humans > 0 and ui.interactive)
                if (self.games > 1 and number >= self.games) or (self.games == 1 and not again):
                    break
                if self.games == 1:
                    ui.say()
        except _Stop as stop:
            self.ended = str(stop) or "quit"
            ui.say("Goodbye.")
        except KeyboardInterrupt as exc:
            if type(exc) is not KeyboardInterrupt:  # a termination signal (the command's Terminated): no tally
                raise
            self.ended = "interrupt"
            ui.say()
            ui.say("Interrupted. Goodbye.")
        if len(self.records) > 1 or self.games > 1:
            self.print_tally()
        return self.result()

    def result(self) -> MatchResult:
        return MatchResult.of((self.seats[0].kind, self.seats[1].kind), self.records)

    def print_tally(self) -> None:
        r = self.result()
        games = f"{r.games} game{'s' if r.games != 1 else ''}"
        self.ui.say(
            f"Tally after {games}: {self.label(0)} {r.wins[0]} win{'s' if r.wins[0] != 1 else ''}, "
            f"{self.label(1)} {r.wins[1]} win{'s' if r.wins[1] != 1 else ''}, {r.draws} draw{'s' if r.draws != 1 else ''}",
            style="bold",
        )

    def play_one(self, number: int, *, ask_again: bool) -> bool:
        """Play one game to its end; returns whether to play another (when asking)."""
        game, ui = self.game, self.ui
        history: list[Any] = [self.start]
        moves: list[Any] = []
        while True:
            state = history[-1]
            out = game.outcome(state)
            if out is not None:
                record = GameRecord(tuple(self._texts(history, moves)), out.winner)
                self.show_end(state, history, moves, out.winner, number)
                if not ask_again:
                    self.records.append(record)
                    return False
                try:
                    return self.ask_again(record, can_undo=self._undo_point(history) is not None)
                except _Undo:
                    self._undo(history, moves)
                    continue
            side = game.to_move(state)
            seat = self.seats[side]
            if seat.human:
                self.show_board(state, history, moves)
                try:
                    move = self.human_move(state, side, can_undo=self._undo_point(history) is not None)
                except _Undo:
                    self._undo(history, moves)
                    continue
                new = checked_play(game, state, move)  # checked again by human_move; cannot fail
            else:
                if self.show_boards and not self.humans:
                    self.show_board(state, history, moves)
                    ui.pause(self.delay or 0.0)
                player = seat.player
                try:
                    move = ui.think(lambda: player.choose(game, state, self.rng), f"{self.label(side)} is thinking...")
                except KeyboardInterrupt as exc:
                    # Ctrl-C while the computer thinks, with a person playing: back to the person's move.
                    if type(exc) is not KeyboardInterrupt or not self.humans:
                        raise
                    self._stopped_thinking(history, moves, side)
                    continue
                new = _apply(game, state, move, seat.kind)
                if self.show_boards:
                    ui.say(f"{self.label(side)} plays {game.format_move(state, move)}")
            history.append(new)
            moves.append(move)

    def _stopped_thinking(self, history: list[Any], moves: list[Any], side: int) -> None:
        """The computer's move was stopped: take back the person's last move and ask again (with no
        move to take back, ask whether to let the computer move again)."""
        if self._undo_point(history) is not None:
            self.ui.say(f"Stopped {self.label(side)}'s move: your last move is taken back.", style="yellow")
            self._undo(history, moves)
            return
        while True:
            try:
                answer = self.ui.ask(f"Stopped {self.label(side)}'s move. Enter lets it move again, quit leaves: ").strip().lower()
            except EOFError:
                raise _Stop("eof") from None
            if answer in QUIT_WORDS:
                raise _Stop("quit")
            if not answer:
                return

    def _texts(self, history: list[Any], moves: list[Any]) -> list[str]:
        return [self.game.format_move(s, m) for s, m in zip(history, moves)]

    def ask_again(self, record: GameRecord, *, can_undo: bool) -> bool:
        while True:
            try:
                answer = self.ui.ask("Play again? [Y/n] ").strip().lower()
            except EOFError:
                self.records.append(record)
                raise _Stop("eof") from None
            if answer in YES_WORDS or answer in NO_WORDS:
                self.records.append(record)
                if answer in NO_WORDS:
                    raise _Stop("quit")
                return True
            if answer == "undo" and can_undo:
                raise _Undo
            undo = ", or undo to take back your last move" if can_undo else ""
            self.ui.say(f"The game is over: answer y to play again, n to stop{undo}.", style="yellow")

    # -- the human's turn --------------------------------------------------------------------
    def human_move(self, state: State, side: int, *, can_undo: bool) -> Any:
        game, ui = self.game, self.ui
        prompt = f"{self.names[side]} to move: " if self.humans == 1 else f"{self.label(side)} to move: "
        while True:
            try:
                text = ui.ask(prompt)
            except EOFError:
                ui.say()
                raise _Stop("eof") from None
            command = text.strip().lower()
            if not command:
                continue
            if command in QUIT_WORDS:
                raise _Stop("quit")
            if command in ("help", "?", "h"):
                self.show_help(state)
                continue
            if command == "hint":
                try:
                    self.show_hint(state)
                except GameError as exc:  # a game the solver cannot search to the end (too large, say): the game goes on
                    ui.say(f"No hint: {exc}", style="yellow")
                continue
            if command == "undo":
                if can_undo:
                    raise _Undo
                ui.say("Nothing to undo yet.", style="yellow")
                continue
            try:
                move = game.parse_move(state, text)
                checked_play(game, state, move)
            except (GameError, ValueError) as exc:
                ui.say(f"{exc}; try again ('help' for help)", style="red")
                continue
            return move

    def _undo_point(self, history: list[Any]) -> int | None:
        """Index of the latest earlier position where a human was to move."""
        for i in range(len(history) - 2, -1, -1):
            if self.seats[self.game.to_move(history[i])].human:
                return i
        return None

    def _undo(self, history: list[Any], moves: list[Any]) -> None:
        point = self._undo_point(history)
        if point is None:  # pragma: no cover - undo is only accepted when possible
            return
        taken = self._texts(history, moves)[point:]
        del history[point + 1 :]
        del moves[point:]
        self.ui.say(f"Took back {' '.join(taken)}.")

    def show_help(self, state: State) -> None:
        say = self.ui.say
        say("Commands:")
        say(f"  MOVE      play a move: {self.move_help(state)}")
        say("  hint      show what every legal move leads to under perfect play")
        say("  undo      take back your last move (and the computer's reply)")
        say("  help      show this help")
        say("  quit, x   leave (Ctrl-D and Ctrl-C also leave)")

    def hint(self, state: State, progress: SolveProgress | None = None) -> SearchResult:
        """Every legal move's value under perfect play, as far as :attr:`hint_seconds` allow (an
        exact solve with that time limit; the solver and its tables are kept between hints)."""
        if self._hint_solver is None:
            self._hint_solver = Solver(self.game, cache=TranspositionTable(), engine=self.engine, store=self.store)
        return self._hint_solver.solve(state, all_moves=True, pv=True, time_limit=self.hint_seconds, progress=progress)

    def show_hint(self, state: State) -> None:
        from .live import solve_status

        watch = SolveProgress()
        try:
            result = self.ui.think(lambda: self.hint(state, watch), "Solving...", solve_status(watch))
        except KeyboardInterrupt as exc:
            if type(exc) is not KeyboardInterrupt:  # a termination signal
                raise
            self.ui.say("Hint stopped.", style="yellow")
            return
        say = self.ui.say
        if not result.proven:
            known = stored_choice(self.game, state, self.store) if self.store is not None else None
            if known is not None:  # the book knows a move keeping the value
                what = {1: "a win", 0: "a draw", -1: "a loss"}[(known.value > 0) - (known.value < 0)]
                keeps = "every move loses" if known.value < 0 else f"{' or '.join(known.moves)} keeps it"
                say(f"Not every move proven in {self.hint_seconds:g} s. The book says: {what}; {keeps}.", style="yellow")
                return
            guess = ", ".join(result.best_moves)
            verdict = bounds_verdict(result.score_bounds) if result.score_bounds is not None else None
            bounds = f" (proven: {verdict})" if verdict else ""
            say(f"Not proven in {self.hint_seconds:g} s{bounds}. Best guess: {guess} (looking {result.depth} plies ahead).", style="yellow")
            return
        say("Under perfect play from both sides (moves counted for both sides):")
        values = sorted(result.move_values, key=lambda mv: -mv.score)
        width = max(len(mv.move) for mv in values)
        for mv in values:
            if mv.score > 0:
                text, style = "win", "green"
            elif mv.score < 0:
                text, style = "loss", "red"
            else:
                text, style = "draw", None
            if mv.score != 0 and mv.plies_to_end is not None:
                text += f" in {mv.plies_to_end} move{'s' if mv.plies_to_end != 1 else ''}"
            if mv.best:
                text += "  (best)"
                style = f"bold {style}" if style else "bold"
            self.ui.say(f"  {mv.move:<{width}}  {text}", style=style)
        if result.unscored:
            say(f"  Not scored in {self.hint_seconds:g} s: {' '.join(result.unscored)}", style="dim")

    # -- showing ----------------------------------------------------------------------------
    def show_board(self, state: State, history: list[Any], moves: list[Any], *, winning: Sequence[tuple[int, int]] = ()) -> None:
        game, ui = self.game, self.ui
        ui.say()
        board = self.caps.board
        if board is None:
            ui.say(game.render(state))
            if moves:
                ui.say(f"last move: {game.format_move(history[-2], moves[-1])}")
            return
        last: tuple[int, int] | None = None
        if moves:
            row, column = board.move_cell(history[-2], moves[-1])
            last = (row, column)
        rows = board_rows(game, state, last=last, winning=winning, plain=not ui.fancy)
        ui.show_rows(rows, self._styles)

    def show_end(self, state: State, history: list[Any], moves: list[Any], winner: int | None, number: int) -> None:
        game, ui = self.game, self.ui
        plies = game.ply(state)
        after = f"after {plies} move{'s' if plies != 1 else ''}"
        if winner is None:
            line, style = f"Draw {after}.", "bold"
        elif self.seats[winner].human and self.humans == 1:
            line, style = f"You win {after}!", "bold green"
        else:
            line, style = f"{self.label(winner)} wins {after}.", "bold red" if self.humans == 1 else "bold"
        if not self.show_boards:
            ui.say(f"Game {number}: {line} {' '.join(self._texts(history, moves))}")
            return
        board = self.caps.board
        winning = tuple(board.winning_cells(state)) if board is not None else ()
        self.show_board(state, history, moves, winning=winning)
        ui.say(line, style=style)
