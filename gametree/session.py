"""A session of games at a terminal: people and computer players at one board.

:class:`Session` plays games between seats (:class:`Seat`), one for each player
of the game (two, three or more), on a :class:`~gametree.terminal.Terminal`: it
draws the board, reads a person's moves and commands (a move, ``hint``,
``undo``, ``help``, ``quit``), lets computer players choose through the
:class:`~gametree.play.Player` protocol, rolls chance's moves
(:func:`~gametree.play.chance_move`, shown as "Chance: rolled 4"), and keeps each
finished game as a :class:`~gametree.play.GameRecord`; a margin game's end says
by how much ("X wins by 4").  Hints come from a tier directory where one is given
and holds the position (:class:`~gametree.tier_book.TierBook`), else from the exact
solver, or from max^n for games of more players.  A game without a
board (Nim) is shown by its ``render(state)``.  A game's ``move_help``
(:class:`~gametree.game.MoveHelp`), one line saying how to type a move, is
shown to a person; without it, two legal moves as examples.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, Literal

from .display import bounds_verdict
from .game import CHANCE, Game, GameError, M, Outcome, Payoff, S, capabilities, checked_play
from .play import (
    REPETITIONS,
    GameRecord,
    MatchResult,
    Player,
    apply_move,
    chance_move,
    number_word,
    record_payoffs,
    repetition_end,
)
from .plugin.registry import AlgorithmSpec
from .search import SearchResult, Solver, compile_state
from .search.algorithms import ALGORITHMS
from .search.compiled import EngineChoice
from .search.perfect import Choice, stored_choice
from .search.progress import SolveProgress
from .search.table import TranspositionTable
from .search.values import margin_text
from .terminal import EMPTY, LABEL, LAST, WIN, Terminal, board_rows, player_style

#: After a perfect player's move that is a guess (its compiled engine still compiling; see
#: :mod:`gametree.search.perfect`).
_GUESS_NOTE = " (a guess, not proven: the engine is still compiling)"

if TYPE_CHECKING:
    from .search.known import KnownValues
    from .tier_book import TierBook

#: What gives hints where the exact solver cannot search the game, in order of preference (those registered).
HINT_ALGORITHMS = ("maxn", "expectiminimax")

__all__ = ["HINT_ALGORITHMS", "NO_WORDS", "chance_text", "QUIT_WORDS", "YES_WORDS", "Ended", "Seat", "Session"]

#: What a person types to leave; to play again; not to.
QUIT_WORDS = frozenset({"quit", "q", "x", "exit"})
YES_WORDS = frozenset({"", "y", "yes"})
NO_WORDS = frozenset({"n", "no"}) | QUIT_WORDS

#: How a session ended: its games were played, the person quit, input ended, or Ctrl-C.
Ended = Literal["done", "quit", "eof", "interrupt"]


@dataclass
class Seat:
    """A side of the board: the kind of player (its registry name) and the player."""

    kind: str
    player: Player

    @property
    def human(self) -> bool:
        """Whether a person plays this side (moves typed at the terminal)."""
        return bool(self.player.human)


class _Undo(Exception):
    """The human asked to take back moves (internal signal)."""


class _Stop(Exception):
    """The human quit or input ended (internal signal); ``reason`` is how the session ends."""

    def __init__(self, reason: Ended) -> None:
        super().__init__(reason)
        self.reason: Ended = reason


@dataclass
class Session(Generic[S, M]):
    """Games between seats at a terminal, one seat for each player of the game.

    :meth:`play_games` plays ``games`` games (or, with one game, a person at the
    terminal and a human seat, offers to play again) and returns the
    tally.  ``ended`` says how the session ended: ``"done"``, ``"quit"``,
    ``"eof"`` or ``"interrupt"`` (Ctrl-C).
    """

    game: Game[S, M]
    seats: tuple[Seat, ...]
    ui: Terminal
    seed: int | None = None
    games: int = 1
    delay: float | None = None
    #: The position every game starts from (None: the game's initial state).
    start: S | None = None
    title: str = ""
    notes: tuple[str, ...] = ()
    records: list[GameRecord] = field(default_factory=list)
    ended: Ended = "done"
    #: The engine of hints.
    engine: EngineChoice = "auto"
    #: Seconds a hint may take (an exact solve with this time limit: see :meth:`hint`).
    hint_seconds: float = 1.5
    #: A solution store's entries for this game (:class:`gametree.search.known.KnownValues`): hints read and write it.
    store: KnownValues | None = None
    #: A tier directory of this game (``gametree play --tiers``): hints read the positions it holds from there.
    tiers: TierBook | None = None

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.names = self.game.info.player_names
        self.humans = sum(s.human for s in self.seats)
        #: The game's optional members (a board to draw, help on typing a move), checked once.
        self.caps = capabilities(self.game)
        #: The position every game starts from.
        self.start_state: S = self.game.initial_state() if self.start is None else self.start
        if self.delay is None:
            # Two computers in front of a person: slow down so the game can be watched.
            self.delay = 0.8 if not self.humans and self.games == 1 and self.ui.watching else 0.0
        # Boards are drawn when someone plays or watches; a fast computer match prints one line per game.
        self.show_boards = bool(self.humans or self.games == 1 or self.delay)
        self._hint_solver: Solver | None = None
        #: The algorithm of hints where the exact solver cannot search the game (max^n for more players,
        #: expectiminimax for dice where it is registered), or None (the solver's hints).
        self.hint_by: AlgorithmSpec | None = None
        if ALGORITHMS["solver"].refusal(self.game) is not None:
            able = [ALGORITHMS[name] for name in HINT_ALGORITHMS if name in ALGORITHMS]
            self.hint_by = next((spec for spec in able if spec.refusal(self.game) is None), None)
        self._styles = {
            LABEL: "dim",
            EMPTY: "dim",
            **{f"player{side}": player_style(self.names, side) for side in range(len(self.names))},
            LAST: "reverse bold",
            WIN: "bold black on bright_green",
        }

    # -- naming -------------------------------------------------------------------------
    def label(self, side: int) -> str:
        """How messages name a side: its player's name and who plays it ("you" for the one person)."""
        seat = self.seats[side]
        if seat.human and self.humans == 1:
            return f"{self.names[side]} (you)"
        return f"{self.names[side]} ({seat.kind})"

    def move_help(self, state: S) -> str:
        """One line on how to type a move: the game's ``move_help``, else two legal moves as examples."""
        text = self.caps.help.move_help if self.caps.help is not None else None
        if isinstance(text, str) and text:
            return text
        if self.game.to_move(state) == CHANCE:  # (its moves are chance's outcomes, not a player's)
            return "type a move in the game's notation ('help' at your turn shows examples)"
        examples = [self.game.format_move(state, m) for m in list(self.game.legal_moves(state))[:2]]
        return f"type a move in the game's notation, e.g. {' or '.join(examples)}" if examples else "type a move"

    # -- running ------------------------------------------------------------------------
    def play_games(self) -> MatchResult:
        """Play the session's games at the terminal (see the class) and return their tally."""
        ui = self.ui
        sides = " vs ".join(self.label(side) for side in range(len(self.seats)))
        ui.say(f"{self.title}: {sides}".lstrip(": "), style="bold")
        for note in self.notes:
            ui.say(note, style="yellow")
        if self.humans:
            ui.say(f"How to play: {self.move_help(self.start_state)} (or hint, undo, help, quit).")
        # A background compile's notice waits for the terminal's next line: never inside a prompt.
        with compile_state.notices_to(ui.post):
            self._play_all()
        ui.show_notices()
        if len(self.records) > 1 or self.games > 1:
            self.print_tally()
        return self.result()

    def _play_all(self) -> None:
        """The games of :meth:`play_games`, until they are played or the person stops them."""
        ui = self.ui
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
            self.ended = stop.reason
            ui.say("Goodbye.")
        except KeyboardInterrupt as exc:
            if type(exc) is not KeyboardInterrupt:  # a termination signal (the command's Terminated): no tally
                raise
            self.ended = "interrupt"
            ui.say()
            ui.say("Interrupted. Goodbye.")

    def result(self) -> MatchResult:
        return MatchResult.of(tuple(seat.kind for seat in self.seats), self.records)

    def print_tally(self) -> None:
        r = self.result()
        games = f"{r.games} game{'s' if r.games != 1 else ''}"
        wins = ", ".join(f"{self.label(side)} {n} win{'s' if n != 1 else ''}" for side, n in enumerate(r.wins))
        self.ui.say(f"Tally after {games}: {wins}, {r.draws} draw{'s' if r.draws != 1 else ''}", style="bold")

    def play_one(self, number: int, *, ask_again: bool) -> bool:
        """Play one game to its end; returns whether to play another (when asking)."""
        game, ui = self.game, self.ui
        history: list[S] = [self.start_state]
        moves: list[M] = []
        while True:
            state = history[-1]
            out = game.outcome(state)
            if out is None and (out := repetition_end(game, history)) is not None:
                ui.say(f"The same position has occurred {number_word(REPETITIONS)} times: a draw by repetition.")
            if out is not None:
                record = GameRecord(tuple(self._texts(history, moves)), out.winner, payoffs=record_payoffs(game, out))
                self.show_end(state, history, moves, out, number)
                if not ask_again:
                    self.records.append(record)
                    return False
                try:
                    return self.ask_again(record, can_undo=self._undo_point(history) is not None)
                except _Undo:
                    self._undo(history, moves)
                    continue
            side = game.to_move(state)
            if side == CHANCE:  # the dice: an outcome drawn with its probability, from the seeded generator
                move = chance_move(game, state, self.rng)
                if self.show_boards:
                    ui.say(f"Chance: {chance_text(game.format_move(state, move))}")
                history.append(game.play(state, move))
                moves.append(move)
                continue
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
                    move = ui.think(
                        functools.partial(player.choose, game, state, self.rng), f"{self.label(side)} is thinking..."
                    )
                except KeyboardInterrupt as exc:
                    # Ctrl-C while the computer thinks, with a person playing: back to the person's move.
                    if type(exc) is not KeyboardInterrupt or not self.humans:
                        raise
                    self._stopped_thinking(history, moves, side)
                    continue
                new = apply_move(game, state, move, seat.kind)
                if self.show_boards:
                    last = getattr(player, "last", None)  # (the perfect player's Choice: how it chose)
                    guess = isinstance(last, Choice) and last.how == "guess"
                    note = _GUESS_NOTE if guess else ""
                    ui.say(f"{self.label(side)} plays {game.format_move(state, move)}{note}")
            history.append(new)
            moves.append(move)

    def _stopped_thinking(self, history: list[S], moves: list[M], side: int) -> None:
        """The computer's move was stopped: take back the person's last move and ask again (with no
        move to take back, ask whether to let the computer move again)."""
        if self._undo_point(history) is not None:
            self.ui.say(f"Stopped {self.label(side)}'s move: your last move is taken back.", style="yellow")
            self._undo(history, moves)
            return
        while True:
            try:
                prompt = f"Stopped {self.label(side)}'s move. Enter lets it move again, quit leaves: "
                answer = self.ui.ask(prompt).strip().lower()
            except EOFError:
                raise _Stop("eof") from None
            if answer in QUIT_WORDS:
                raise _Stop("quit")
            if not answer:
                return

    def _texts(self, history: list[S], moves: list[M]) -> list[str]:
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
    def human_move(self, state: S, side: int, *, can_undo: bool) -> M:
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
                except GameError as exc:  # a game the solver cannot search to the end (too large, say): play on
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

    def _undo_point(self, history: list[S]) -> int | None:
        """Index of the latest earlier position where a human was to move."""
        for i in range(len(history) - 2, -1, -1):
            side = self.game.to_move(history[i])
            if side != CHANCE and self.seats[side].human:
                return i
        return None

    def _undo(self, history: list[S], moves: list[M]) -> None:
        point = self._undo_point(history)
        if point is None:  # pragma: no cover - undo is only accepted when possible
            return
        taken = self._texts(history, moves)[point:]
        del history[point + 1 :]
        del moves[point:]
        self.ui.say(f"Took back {' '.join(taken)}.")

    def show_help(self, state: S) -> None:
        say = self.ui.say
        say("Commands:")
        say(f"  MOVE      play a move: {self.move_help(state)}")
        say("  hint      show what every legal move leads to under perfect play")
        say("  undo      take back your last move (and the computer's reply)")
        say("  help      show this help")
        say("  quit, x   leave (Ctrl-D and Ctrl-C also leave)")

    def hint(self, state: S, progress: SolveProgress | None = None) -> SearchResult:
        """Every legal move's value under perfect play, as far as :attr:`hint_seconds` allow (an
        exact solve with that time limit; the solver and its tables are kept between hints).  A
        game of more players: max^n, as deep as it gets in that time (each move's payoff vector)."""
        if self.hint_by is not None:
            result: SearchResult = self.hint_by.search(self.game, state, time_limit=self.hint_seconds)
            return result
        if self.tiers is not None and self.tiers.covers(state):
            from .tier_book import tier_result

            return tier_result(self.tiers, state, pv=False)
        if self._hint_solver is None:
            self._hint_solver = Solver(self.game, cache=TranspositionTable(), engine=self.engine, store=self.store)
        return self._hint_solver.solve(state, all_moves=True, pv=True, time_limit=self.hint_seconds, progress=progress)

    def show_hint(self, state: S) -> None:
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
        if self.hint_by is not None:
            self.show_payoffs_hint(result)
            return
        if not result.proven:
            known = stored_choice(self.game, state, self.store) if self.store is not None else None
            if known is not None:  # the book knows a move keeping the value
                what = {1: "a win", 0: "a draw", -1: "a loss"}[(known.value > 0) - (known.value < 0)]
                keeps = "every move loses" if known.value < 0 else f"{' or '.join(known.moves)} keeps it"
                say(
                    f"Not every move proven in {self.hint_seconds:g} s. The book says: {what}; {keeps}.",
                    style="yellow",
                )
                return
            guess = ", ".join(result.best_moves)
            verdict = bounds_verdict(result.score_bounds) if result.score_bounds is not None else None
            bounds = f" (proven: {verdict})" if verdict else ""
            say(
                f"Not proven in {self.hint_seconds:g} s{bounds}. Best guess: {guess} "
                f"(looking {result.depth} plies ahead).",
                style="yellow",
            )
            return
        source = f", from the tier directory {self.tiers.folder}" if result.algorithm == "tiers" and self.tiers else ""
        say(f"Under perfect play from both sides (moves counted for both sides{source}):")
        values = sorted(result.move_values, key=lambda mv: -mv.score)
        width = max(len(mv.move) for mv in values)
        for mv in values:
            if mv.score > 0:
                text, style = "win", "green"
            elif mv.score < 0:
                text, style = "loss", "red"
            else:
                text, style = "draw", None
            if self.game.info.margin:  # a margin game: by how much ("wins by 4")
                text = margin_text(mv.score)
            elif (mv.score != 0 or result.algorithm == "tiers") and mv.plies_to_end is not None:
                # (a tier directory's draws have a remoteness too: the moves until the board is full, say)
                text += f" in {mv.plies_to_end} move{'s' if mv.plies_to_end != 1 else ''}"
            if mv.best:
                text += "  (best)"
                style = f"bold {style}" if style else "bold"
            self.ui.say(f"  {mv.move:<{width}}  {text}", style=style)
        if result.unscored:
            say(f"  Not scored in {self.hint_seconds:g} s: {' '.join(result.unscored)}", style="dim")

    def show_payoffs_hint(self, result: SearchResult) -> None:
        """A hint by another algorithm than the solver: each move's payoff vector (max^n), or the mover's
        payoff (expected, with dice), the best first."""
        say = self.ui.say
        ahead = "to the end" if result.proven else f"{result.depth} plies ahead, estimates at the end"
        if result.algorithm == "maxn":
            say(
                "If every player plays for itself to the end (max^n; ties: the first move):"
                if result.proven
                else f"Looking {ahead}, each player for itself (max^n):"
            )
        else:
            say(f"Each move's payoff for {self.names[result.to_move]} ({result.algorithm}, {ahead}):")
        values = sorted(result.move_values, key=lambda mv: -mv.score)
        width = max(len(mv.move) for mv in values)
        for mv in values:
            named = zip(self.names, mv.payoffs) if mv.payoffs is not None and len(self.names) > 2 else ()
            shown = ", ".join(f"{name} {_payoff(v)}" for name, v in named) or _payoff(mv.score)
            style = "bold" if mv.best else None
            say(f"  {mv.move:<{width}}  {shown}{'  (best)' if mv.best else ''}", style=style)

    # -- showing ----------------------------------------------------------------------------
    def show_board(
        self, state: S, history: list[S], moves: list[M], *, winning: Sequence[tuple[int, int]] = ()
    ) -> None:
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

    def show_end(self, state: S, history: list[S], moves: list[M], out: Outcome, number: int) -> None:
        game, ui = self.game, self.ui
        plies = game.ply(state)
        winner = out.winner
        after = f"after {plies} move{'s' if plies != 1 else ''}"
        by = ""  # a margin game's margin ("X wins by 4"); the payoffs of a game that gives them
        if out.payoffs is not None and game.info.margin and winner is not None:
            by = f" by {_payoff(out.payoffs[winner])}"
        elif out.payoffs is not None and not game.info.margin:
            after += " (payoffs: " + ", ".join(f"{n} {_payoff(v)}" for n, v in zip(self.names, out.payoffs)) + ")"
        if winner is None:
            line, style = f"Draw {after}.", "bold"
        elif self.seats[winner].human and self.humans == 1:
            line, style = f"You win{by} {after}!", "bold green"
        else:
            line, style = f"{self.label(winner)} wins{by} {after}.", "bold red" if self.humans == 1 else "bold"
        if not self.show_boards:
            ui.say(f"Game {number}: {line} {' '.join(self._texts(history, moves))}")
            return
        board = self.caps.board
        winning = tuple(board.winning_cells(state)) if board is not None else ()
        self.show_board(state, history, moves, winning=winning)
        ui.say(line, style=style)


def _payoff(value: Payoff) -> str:
    """A payoff as a line shows it: whole numbers without a point, others to three places."""
    return str(int(value)) if float(value).is_integer() else f"{float(value):.3f}"


def chance_text(text: str) -> str:
    """How a chance outcome is shown: a number as a roll ("rolled 4"), any other text as the game writes
    it (a game may write its own: "rolled 4", "heads")."""
    return f"rolled {text}" if text.strip().lstrip("-").isdecimal() else text
