"""Computer play as data: the player protocol and the game loop, with no terminal.

A *player* is any object with ``human: bool`` and ``choose(game, state, rng)``
returning a legal move; players arrive as plugins through
``gametree_register_players`` (the built-in ones are in ``plugins/players.py``).
:func:`play_game` plays one game between computer players, one for each
player of the game (two, three or more), and returns its :class:`GameRecord`;
:func:`play_match` plays a seeded series and returns the tally as a
:class:`MatchResult`.  Where chance is to move (a dice roll:
:data:`gametree.game.CHANCE`), :func:`chance_move` draws an outcome with its
probability from the same seeded generator.  Nothing here prints: a person at a
terminal plays through :class:`gametree.session.Session`, which builds on this loop.

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

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from .game import (
    CHANCE,
    Game,
    GameError,
    M,
    Outcome,
    Payoff,
    S,
    UnsupportedGameError,
    capabilities,
    checked_play,
    game_name,
    payoffs,
)

__all__ = [
    "chance_move",
    "GameRecord",
    "MatchResult",
    "PlayError",
    "Player",
    "apply_move",
    "number_word",
    "record_payoffs",
    "play_game",
    "play_match",
    "REPETITIONS",
    "repetition_end",
]

#: A game without chance whose positions repeat (``GameInfo.repeats``) ends in a draw when a position
#: comes back for this many times in a game (two computers keeping a draw by endless play would go on
#: for ever).  Not a game with dice: there a position comes back by the dice (two busts in a row in
#: Pig), and play goes on, as its rules say.
REPETITIONS = 3


def repetition_end(game: Game[S, M], history: Sequence[S]) -> Outcome | None:
    """A draw (``Outcome(None)``) when the last of ``history``'s positions, in a game without chance whose
    positions repeat, has now come :data:`REPETITIONS` times; None otherwise."""
    if not game.info.repeats or not game.info.deterministic or len(history) < 2 * REPETITIONS - 1:
        return None
    last = game.key(history[-1])
    return Outcome(None) if sum(game.key(s) == last for s in history) >= REPETITIONS else None


@runtime_checkable
class Player(Protocol):
    """Chooses moves in any game.  ``human`` players are asked at the terminal instead."""

    human: bool

    def choose(self, game: Game[S, M], state: S, rng: random.Random) -> M:
        """A legal move in ``state`` (ties broken with ``rng`` so games replay from a seed)."""
        ...


class PlayError(Exception):
    """A player broke the rules of the loop (for example, chose an illegal move)."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished game: its moves in the game's notation (chance's outcomes among them) and the
    winner (None: draw); ``seconds``: how long each player's move took to choose (computer players;
    empty if not timed); ``payoffs``: each player's payoff where the game ends with more than a
    winner (a margin game's final margin, the payoffs of a game of three or more players)."""

    moves: tuple[str, ...]
    winner: int | None
    seconds: tuple[float, ...] = ()
    payoffs: tuple[Payoff, ...] | None = None


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A series of games between the same seats, one for each player of the game."""

    players: tuple[str, ...]
    games: int
    wins: tuple[int, ...]
    draws: int
    records: tuple[GameRecord, ...]

    @staticmethod
    def of(players: tuple[str, ...], records: Sequence[GameRecord]) -> MatchResult:
        """The tally of ``records``, games played by ``players`` (first, second, ...)."""
        wins = tuple(sum(r.winner == side for r in records) for side in range(len(players)))
        return MatchResult(players, len(records), wins, len(records) - sum(wins), tuple(records))


def chance_move(game: Game[S, M], state: S, rng: random.Random) -> M:
    """Chance's move where :data:`~gametree.game.CHANCE` is to move: an outcome of the game's
    ``chance_outcomes(state)`` drawn with its probability from ``rng`` (one ``rng.random()``)."""
    stochastic = capabilities(game).stochastic
    if stochastic is None:
        raise UnsupportedGameError(f"{game_name(game)} has chance nodes but no chance_outcomes (see Stochastic)")
    outcomes = list(stochastic.chance_outcomes(state))
    if not outcomes:
        raise PlayError(f"{game_name(game)} gives chance no outcome to draw from")
    draw = rng.random() * float(sum(p for _, p in outcomes))
    for move, probability in outcomes:
        draw -= float(probability)
        if draw < 0:
            return move
    return outcomes[-1][0]  # (rounding left a sliver past the last outcome)


def record_payoffs(game: Game[S, M], out: Outcome) -> tuple[Payoff, ...] | None:
    """What a :class:`GameRecord` keeps of the payoffs: the outcome's own, or each player's payoff in a
    game of more than two players (:func:`gametree.game.payoffs`); None for a plain two-player game."""
    if out.payoffs is not None:
        return out.payoffs
    return payoffs(game, out) if game.info.players > 2 else None


def number_word(count: int) -> str:
    """A small count as a word ("two", "three"), a larger one as digits."""
    words = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    return words[count] if 0 <= count < len(words) else str(count)


def apply_move(game: Game[S, M], state: S, move: M, who: str) -> S:
    """The state after a computer player's ``move``; an illegal one is a :class:`PlayError` naming ``who``."""
    try:
        after: S = checked_play(game, state, move)
    except GameError as exc:
        raise PlayError(f"player {who} chose an illegal move: {exc}") from None
    return after


def play_game(game: Game[S, M], players: Sequence[Player], rng: random.Random, state: S | None = None) -> GameRecord:
    """Play one game between computer players, one for each player of the game, from ``state``
    (default: the start); chance's moves are drawn by :func:`chance_move`."""
    if any(p.human for p in players):
        raise PlayError(f"play_game needs {number_word(game.info.players)} computer players")
    if len(players) != game.info.players:
        raise PlayError(f"{game_name(game)} is played by {game.info.players} players, not {len(players)}")
    state = game.initial_state() if state is None else state
    moves = []
    seconds = []
    history = [state]
    while (out := game.outcome(state) or repetition_end(game, history)) is None:
        side = game.to_move(state)
        if side == CHANCE:
            move = chance_move(game, state, rng)
            moves.append(game.format_move(state, move))
            state = game.play(state, move)
            continue
        started = time.perf_counter()
        move = players[side].choose(game, state, rng)
        seconds.append(round(time.perf_counter() - started, 6))
        moves.append(game.format_move(state, move))
        state = apply_move(game, state, move, type(players[side]).__name__)
        history.append(state)
    return GameRecord(tuple(moves), out.winner, tuple(seconds), record_payoffs(game, out))


def play_match(
    game: Game[S, M],
    players: Sequence[Player],
    *,
    games: int,
    seed: int | None = None,
    names: tuple[str, ...] | None = None,
    start: S | None = None,
) -> MatchResult:
    """Play ``games`` games between computer players (one for each player of the game) with one
    seeded random generator (the players' choices and chance's draws)."""
    rng = random.Random(seed)
    if names is None:
        names = ("first", "second") if game.info.players == 2 else game.info.player_names
    return MatchResult.of(names, [play_game(game, players, rng, start) for _ in range(games)])
