"""Computer play as data: the player protocol and the game loop, with no terminal.

A *player* is any object with ``human: bool`` and ``choose(game, state, rng)``
returning a legal move; players arrive as plugins through
``gametree_register_players`` (the built-in ones are in ``plugins/players.py``).
:func:`play_game` plays one game between two computer players and returns its
:class:`GameRecord`; :func:`play_match` plays a seeded series and returns the
tally as a :class:`MatchResult`.  Nothing here prints: a person at a terminal
plays through :class:`gametree.session.Session`, which builds on this loop.

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

from .game import Game, GameError, M, S, checked_play

__all__ = [
    "GameRecord",
    "MatchResult",
    "PlayError",
    "Player",
    "apply_move",
    "play_game",
    "play_match",
]


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
        """The tally of ``records``, games played by ``players`` (first, second)."""
        wins = (sum(r.winner == 0 for r in records), sum(r.winner == 1 for r in records))
        return MatchResult(players, len(records), wins, len(records) - wins[0] - wins[1], tuple(records))


def apply_move(game: Game[S, M], state: S, move: M, who: str) -> S:
    """The state after a computer player's ``move``; an illegal one is a :class:`PlayError` naming ``who``."""
    try:
        after: S = checked_play(game, state, move)
    except GameError as exc:
        raise PlayError(f"player {who} chose an illegal move: {exc}") from None
    return after


def play_game(game: Game[S, M], players: Sequence[Player], rng: random.Random, state: S | None = None) -> GameRecord:
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
        state = apply_move(game, state, move, type(players[side]).__name__)
    return GameRecord(tuple(moves), out.winner, tuple(seconds))


def play_match(
    game: Game[S, M],
    players: Sequence[Player],
    *,
    games: int,
    seed: int | None = None,
    names: tuple[str, str] = ("first", "second"),
    start: S | None = None,
) -> MatchResult:
    """Play ``games`` games between two computer players with one seeded random generator."""
    rng = random.Random(seed)
    return MatchResult.of(names, [play_game(game, players, rng, start) for _ in range(games)])
