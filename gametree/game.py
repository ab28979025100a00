"""The game protocol: what the search core needs to know about a game.

A game is a set of pure functions over immutable, hashable states.  The core
never mutates a state and never imports a concrete game; games arrive as
plugins (see :mod:`gametree.plugin`).

Players are numbered 0 (the first player) and 1.  Scores are always from the
point of view of the side to move (negamax convention).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

__all__ = [
    "Game",
    "GameError",
    "GameOverError",
    "GameInfo",
    "IllegalMoveError",
    "MoveParseError",
    "Outcome",
    "UnsupportedGameError",
    "checked_play",
    "iter_symmetries",
    "play_text",
    "win_score",
]

S = TypeVar("S", bound=Hashable)
M = TypeVar("M")


class GameError(Exception):
    """Base class of the errors a game raises for bad input."""


class IllegalMoveError(GameError, ValueError):
    """A well-formed move that the rules do not allow in this position."""


class MoveParseError(GameError, ValueError):
    """Move text that cannot be read as a move of this game."""


class GameOverError(GameError, ValueError):
    """The position is final: no move can be played or searched."""


class UnsupportedGameError(GameError, TypeError):
    """The game lacks a property that an algorithm relies on."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended: ``winner`` is 0, 1 or ``None`` for a draw."""

    winner: int | None

    @property
    def is_draw(self) -> bool:
        return self.winner is None


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What search algorithms may assume about a game.

    ``max_plies`` is the longest possible game in moves (C in the score
    formula: the number of cells on a board game).  ``player_names`` are used
    for display only.
    """

    max_plies: int
    players: int = 2
    zero_sum: bool = True
    deterministic: bool = True
    perfect_information: bool = True
    player_names: tuple[str, str] = ("first", "second")


def win_score(max_plies: int, moves_before_win: int) -> int:
    """Depth-aware score of a win: ``(C + 1 - n) // 2`` (Pascal Pons's convention).

    ``n`` is the number of moves played before the game-ending move, counted
    from the game's initial position.  A loss scores the negation; a draw 0.

    >>> win_score(9, 4)   # X completes a line with the 5th move of 3x3
    3
    >>> win_score(42, 6)  # first player's 4th stone on 7x6 Connect Four
    18
    """
    return (max_plies + 1 - moves_before_win) // 2


@runtime_checkable
class Game(Protocol[S, M]):
    """The rules of a two-player, zero-sum, perfect-information game.

    Required members are the ones below.  Optional members the core uses when
    present:

    - ``canonical_key(state) -> Hashable``: the same key for all positions
      equivalent under the game's symmetries (used by the transposition cache).
      A game may give up the sharing where it does not pay (Connect Four keys
      positions deep in the game as they are), as long as the key is a function
      of the position;
    - ``symmetries(state) -> Iterable[state]``: the equivalent positions;
    - ``evaluate(state) -> float``: heuristic value for the side to move,
      strictly between -1 and 1, used at the depth limit;
    - ``check_move(state, move)``: raise :class:`IllegalMoveError` saying why
      a move is illegal.  It must reject *every* illegal move: when a game has
      it, :func:`checked_play` trusts it instead of searching ``legal_moves``
      (default: a generic message after that search);
    - ``split_moves(text) -> list[str]``: split a move sequence into move
      texts (default: on white space);
    - ``replay(state, texts) -> state``: the state after the move texts, read
      and checked like :func:`play_text` does, only faster (a batch of long
      positions spends much of its time there).  For a malformed or illegal
      move it raises any :class:`GameError`: :func:`play_text` then plays the
      moves one by one to name the offending move and say why.
    """

    info: GameInfo

    def initial_state(self) -> S:
        """The position the game starts from."""
        ...

    def to_move(self, state: S) -> int:
        """The player to move (0 or 1)."""
        ...

    def ply(self, state: S) -> int:
        """Moves played since the initial state (n in the score formula)."""
        ...

    def legal_moves(self, state: S) -> Sequence[M]:
        """Legal moves, best-first if the game knows a good order; empty when over."""
        ...

    def play(self, state: S, move: M) -> S:
        """The state after ``move``; the move is assumed legal (see :func:`checked_play`)."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """``None`` while the game goes on, else how it ended."""
        ...

    def key(self, state: S) -> Hashable:
        """A compact hashable key that determines the state's value.

        If the same arrangement can be reached after different numbers of
        moves, the key must include the ply (depth-aware scores depend on it).
        """
        ...

    def parse_move(self, state: S, text: str) -> M:
        """Read move text; raise :class:`MoveParseError` if it is malformed."""
        ...

    def format_move(self, state: S, move: M) -> str:
        """The canonical text of ``move`` (``parse_move`` reads it back)."""
        ...

    def render(self, state: S) -> str:
        """A plain-text picture of the state."""
        ...


def checked_play(game: Game[Any, Any], state: Any, move: Any) -> Any:
    """Play ``move`` after checking that the game is on and the move legal."""
    if game.outcome(state) is not None:
        raise GameOverError(f"the game is already over; {game.format_move(state, move)} cannot be played")
    check = getattr(game, "check_move", None)
    if check is not None:
        check(state, move)  # complete by contract: no need to generate (and order) the legal moves
    elif move not in game.legal_moves(state):
        raise IllegalMoveError(f"illegal move {game.format_move(state, move)}")
    return game.play(state, move)


def play_text(game: Game[Any, Any], text: str, state: Any = None) -> Any:
    """Play a whitespace-separated move sequence from ``state`` (default: the start).

    Raises :class:`MoveParseError` or :class:`IllegalMoveError` naming the
    offending move and its position in the sequence.
    """
    if state is None:
        state = game.initial_state()
    split = getattr(game, "split_moves", None)
    tokens = split(text) if split is not None else text.split()
    replay = getattr(game, "replay", None)
    if replay is not None:
        try:
            return replay(state, tokens)
        except GameError:
            pass  # one by one below, to say which move is wrong and why
    for number, token in enumerate(tokens, start=1):
        try:
            move = game.parse_move(state, token)
            state = checked_play(game, state, move)
        except GameError as exc:
            raise type(exc)(f"move {number} ({token!r}): {exc}") from None
    return state


def iter_symmetries(game: Game[Any, Any], state: Any) -> Iterable[Any]:
    """The game's symmetric images of ``state`` (just the state if it has none)."""
    sym = getattr(game, "symmetries", None)
    return sym(state) if sym is not None else (state,)
