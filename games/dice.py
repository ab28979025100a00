"""Dice 21: roll a die as often as you dare; over the target you bust.

The rules (a two-player form of the push-your-luck dice game often called
"Twenty-One" or "Blackjack dice"; see docs/dice.md):

- the first player rolls a die as often as they like, adding each roll to
  their total; they may stop at any time (even before a roll);
- a total over the target busts: the first player loses at once;
- then the second player does the same, knowing the first player's total; a
  bust loses;
- when both have stopped, the higher total wins; equal totals draw.

Options: ``target`` (default 21) and ``sides`` (the die's faces, default 6;
each comes up with probability ``1/sides``, an exact fraction).  Totals only
grow and each turn ends, so no position repeats; the game is small enough to
solve exactly with a transposition table, or by plain expectiminimax for small
targets.  The value (an expected payoff: +1 a win, 0 a draw, -1 a loss) is
``gametree solve dice -a star2``.

Moves are ``roll`` and ``stop``; chance's moves are written ``rolled 4``
(``4`` alone is read too).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple

from gametree import GameInfo, GameSpec, IllegalMoveError, MoveParseError, Option, Outcome, hookimpl
from gametree.game import CHANCE

__all__ = ["Dice21", "DiceState", "ROLL", "STOP"]

ROLL = "roll"
STOP = "stop"
#: The largest target and die the options accept.
MAX_TARGET = 1000
MAX_SIDES = 100

#: A move: "roll" or "stop" for a player, the face rolled (an int) for chance.
DiceMove = str | int


class DiceState(NamedTuple):
    """Whose turn it is (0, 1; 2 when both have played), the totals, whether a die is in the air
    (chance to move), and the moves played."""

    turn: int
    totals: tuple[int, int]
    rolling: bool
    plies: int


class Dice21:
    """Dice 21 to ``target`` with a die of ``sides`` faces."""

    def __init__(self, target: int = 21, sides: int = 6) -> None:
        if not 1 <= target <= MAX_TARGET:
            raise ValueError(f"--target: the target must be from 1 to {MAX_TARGET}, not {target}")
        if not 2 <= sides <= MAX_SIDES:
            raise ValueError(f"--sides: a die has from 2 to {MAX_SIDES} sides, not {sides}")
        self.target = target
        self.sides = sides
        self._chance = [(face, Fraction(1, sides)) for face in range(1, sides + 1)]
        # Each player rolls at most target + 1 times (ones, then a bust), two plies a roll, and stops.
        self.info = GameInfo(max_plies=4 * (target + 1) + 2, deterministic=False, player_names=("first", "second"))

    def __repr__(self) -> str:
        return f"Dice21(target={self.target}, sides={self.sides})"

    @property
    def name(self) -> str:
        return f"Dice {self.target} with a {self.sides}-sided die"

    def options(self) -> dict[str, Any]:
        return {"target": self.target, "sides": self.sides}

    # -- the protocol ------------------------------------------------------------------
    def initial_state(self) -> DiceState:
        return DiceState(0, (0, 0), False, 0)

    def to_move(self, state: DiceState) -> int:
        return CHANCE if state.rolling else min(state.turn, 1)

    def ply(self, state: DiceState) -> int:
        return state.plies

    def legal_moves(self, state: DiceState) -> list[DiceMove]:
        """Chance's faces, or ``roll`` and ``stop`` (the likelier better first: stop when ahead
        or near the target); none when the game is over."""
        if self.outcome(state) is not None:
            return []
        if state.rolling:
            return [face for face, _ in self._chance]
        mine = state.totals[state.turn]
        if state.turn == 1:
            stop_first = mine > state.totals[0]
        else:
            stop_first = mine > self.target - (self.sides + 1) // 2
        return [STOP, ROLL] if stop_first else [ROLL, STOP]

    def chance_outcomes(self, state: DiceState) -> list[tuple[int, Fraction]]:
        """Each face with probability 1/sides."""
        return list(self._chance)

    def play(self, state: DiceState, move: DiceMove) -> DiceState:
        turn, totals, _, plies = state
        if move == ROLL:
            return DiceState(turn, totals, True, plies + 1)
        if move == STOP:
            return DiceState(turn + 1, totals, False, plies + 1)
        assert isinstance(move, int)
        mine = totals[turn] + move
        new = (mine, totals[1]) if turn == 0 else (totals[0], mine)
        # A bust ends the turn (and the first player's bust, the game).
        return DiceState(turn + 1 if mine > self.target else turn, new, False, plies + 1)

    def outcome(self, state: DiceState) -> Outcome | None:
        first, second = state.totals
        if first > self.target:
            return Outcome(1)
        if second > self.target:
            return Outcome(0)
        if state.turn < 2:
            return None
        return Outcome(None if first == second else 0 if first > second else 1)

    def key(self, state: DiceState) -> DiceState:
        return state

    # -- text ----------------------------------------------------------------------------
    def split_moves(self, text: str) -> list[str]:
        """Move texts from a sequence: ``rolled 4`` is one move."""
        words = text.split()
        moves: list[str] = []
        for word in words:
            if moves and moves[-1] == "rolled":
                moves[-1] = f"rolled {word}"
            else:
                moves.append(word)
        return moves

    def parse_move(self, state: DiceState, text: str) -> DiceMove:
        t = " ".join(text.lower().split())
        shown = t if len(t) <= 40 else t[:37] + "..."
        if t in (ROLL, STOP):
            return t
        number = t.removeprefix("rolled").strip()
        if number.isdecimal() and len(number) <= 6:
            return int(number)
        raise MoveParseError(f"cannot read {shown!r}: write roll, stop, or a roll's outcome such as 'rolled 4'")

    def format_move(self, state: DiceState, move: DiceMove) -> str:
        return move if isinstance(move, str) else f"rolled {move}"

    def check_move(self, state: DiceState, move: DiceMove) -> None:
        if self.outcome(state) is not None:
            raise IllegalMoveError("the game is over")
        if state.rolling:
            if not isinstance(move, int) or not 1 <= move <= self.sides:
                raise IllegalMoveError(f"the die is rolling: its outcome is a number from 1 to {self.sides}")
        elif move not in (ROLL, STOP):
            raise IllegalMoveError("a player rolls or stops; the die's outcomes are chance's moves")

    @property
    def move_help(self) -> str:
        return "type roll (roll the die) or stop (end your turn)"

    def render(self, state: DiceState) -> str:
        names = self.info.player_names
        lines = []
        for player in (0, 1):
            total = state.totals[player]
            note = " (bust)" if total > self.target else ""
            if state.turn == player and self.outcome(state) is None:
                note = " (rolling the die)" if state.rolling else " (to play)"
            elif state.turn > player and not note:
                note = " (stopped)"
            lines.append(f"{names[player]:>6}: {total:>3}{note}")
        lines.append(f"target {self.target}, a {self.sides}-sided die: over the target busts")
        return "\n".join(lines)

    def evaluate(self, state: DiceState) -> float:
        """A rough guess for the side to move: the share of the target reached, compared with the
        opponent's total (strictly between -1 and 1)."""
        me = min(state.turn, 1)
        mine, theirs = state.totals[me], state.totals[1 - me]
        return 0.9 * (mine - theirs) / (self.target + self.sides)


def _make(target: int = 21, sides: int = 6) -> Dice21:
    return Dice21(target, sides)


@hookimpl
def gametree_register_games(registry) -> None:  # type: ignore[no-untyped-def]
    registry.add_game(
        GameSpec(
            name="dice",
            factory=_make,
            summary="Dice 21: roll as often as you dare; over the target busts; the higher total wins",
            options=(
                Option("target", int, 21, "the highest total that does not bust"),
                Option("sides", int, 6, "the die's number of sides"),
            ),
        )
    )
