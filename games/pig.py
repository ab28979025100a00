"""Pig: the dice game of pushing your luck, first to the goal (default 100).

The rules (as analysed by Neller and Presser, "Optimal Play of the Dice Game
Pig", The UMAP Journal 25(1), 2004; see docs/pig.md):

- two players take turns; a turn starts with a roll of a six-sided die;
- a roll of 2 to 6 adds to the *turn total*; then the player rolls again or
  *holds*: the turn total is banked (added to the player's score) and the turn
  passes;
- a roll of 1 loses the turn total and ends the turn;
- the first player whose score plus turn total reaches the goal wins at once
  (there is nothing to gain by rolling on).

Positions repeat (two busts in a row give the same scores back), so the game
declares ``GameInfo(deterministic=False, repeats=True)``: search it with value
iteration (``gametree solve pig``, :mod:`gametree.search.valueiteration`).

Moves are ``roll`` and ``hold``; chance's moves are written ``rolled 4``
(``4`` alone is read too).  Each position has a rank, a perfect hash
(:class:`gametree.game.Ranked`): value iteration keeps its values in one
array indexed by it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # (imported in ranked_moves: loading the plugin does not import numpy)
    import numpy as np

from gametree import GameInfo, GameSpec, IllegalMoveError, MoveParseError, Option, Outcome, hookimpl
from gametree.game import CHANCE, FINISHED

__all__ = ["HOLD", "MAX_GOAL", "Pig", "PigState", "ROLL"]

ROLL = "roll"
HOLD = "hold"
#: The largest goal the option accepts (4 * goal * goal * (goal + 1) / 2 positions: 2 million for 100).
MAX_GOAL = 200
SIDES = 6

#: A move: "roll" or "hold" for a player, the face rolled (an int) for chance.
PigMove = str | int


class PigState(NamedTuple):
    """The player whose turn it is, both scores (by player), the turn total, whether the die is in
    the air (chance to move), and the moves played (not part of the position: see :meth:`Pig.key`)."""

    player: int
    scores: tuple[int, int]
    turn_total: int
    rolling: bool
    plies: int


class Pig:
    """Pig to ``goal`` with a six-sided die."""

    def __init__(self, goal: int = 100) -> None:
        if not 1 <= goal <= MAX_GOAL:
            raise ValueError(f"--goal: the goal must be from 1 to {MAX_GOAL}, not {goal}")
        self.goal = goal
        self._chance = [(face, Fraction(1, SIDES)) for face in range(1, SIDES + 1)]
        # A game can go on for ever (ones forever, with probability 0): max_plies is no bound here,
        # only a nominal length (value iteration does not use it).
        self.info = GameInfo(max_plies=1 << 20, deterministic=False, repeats=True, player_names=("first", "second"))
        self._pairs = goal * (goal + 1) // 2  # (own score, turn total) with own + total < goal
        self._unpaired = [(own, total) for own in range(goal) for total in range(goal - own)]

    def __repr__(self) -> str:
        return f"Pig(goal={self.goal})"

    @property
    def name(self) -> str:
        return f"Pig to {self.goal}"

    def options(self) -> dict[str, Any]:
        return {"goal": self.goal}

    # -- the protocol ------------------------------------------------------------------
    def initial_state(self) -> PigState:
        return PigState(0, (0, 0), 0, False, 0)

    def to_move(self, state: PigState) -> int:
        return CHANCE if state.rolling else state.player

    def ply(self, state: PigState) -> int:
        return state.plies

    def legal_moves(self, state: PigState) -> list[PigMove]:
        """Chance's faces, or ``roll`` (and ``hold`` once the turn total is not 0); none when over."""
        if self.outcome(state) is not None:
            return []
        if state.rolling:
            return [face for face, _ in self._chance]
        return [ROLL, HOLD] if state.turn_total else [ROLL]

    def chance_outcomes(self, state: PigState) -> list[tuple[int, Fraction]]:
        """Each face with probability 1/6."""
        return list(self._chance)

    def play(self, state: PigState, move: PigMove) -> PigState:
        player, scores, total, _, plies = state
        if move == ROLL:
            return PigState(player, scores, total, True, plies + 1)
        if move == HOLD:
            banked = (scores[0] + total, scores[1]) if player == 0 else (scores[0], scores[1] + total)
            return PigState(1 - player, banked, 0, False, plies + 1)
        assert isinstance(move, int)
        if move == 1:
            return PigState(1 - player, scores, 0, False, plies + 1)
        return PigState(player, scores, total + move, False, plies + 1)

    def outcome(self, state: PigState) -> Outcome | None:
        if state.scores[state.player] + state.turn_total >= self.goal:
            return Outcome(state.player)
        return None

    def key(self, state: PigState) -> tuple[int, ...]:
        """The position without the ply (the value does not depend on it): who won, for a finished game."""
        if self.outcome(state) is not None:
            return (state.player,)
        return (state.player, *state.scores, state.turn_total, int(state.rolling))

    # -- the perfect hash (gametree.game.Ranked) ----------------------------------------
    def position_count(self) -> int:
        """Two finished positions (a win for each player), then every position still in play."""
        return 2 + 4 * self._pairs * self.goal

    def rank(self, state: PigState) -> int:
        """0 or 1: a game the first or second player won; else the position's place among those in
        play, by (player, own score, turn total, rolling, the other's score): value iteration, sweeping
        from the last rank down, then meets a roll's outcomes before the roll."""
        player, scores, total, rolling, _ = state
        own = scores[player]
        if own + total >= self.goal:
            return player
        pair = own * self.goal - own * (own - 1) // 2 + total
        return 2 + ((player * self._pairs + pair) * 2 + rolling) * self.goal + scores[1 - player]

    def unrank(self, rank: int) -> PigState:
        """The position of ``rank`` (ply 0); a finished game is its winner's at the goal, the other at 0."""
        if not 0 <= rank < self.position_count():
            raise ValueError(f"rank {rank} is not from 0 to {self.position_count() - 1}")
        if rank < 2:
            return PigState(rank, (self.goal, 0) if rank == 0 else (0, self.goal), 0, False, 0)
        rest, other = divmod(rank - 2, self.goal)
        rest, rolling = divmod(rest, 2)
        player, pair = divmod(rest, self._pairs)
        own, total = self._unpaired[pair]
        scores = (own, other) if player == 0 else (other, own)
        return PigState(player, scores, total, bool(rolling), 0)

    def ranked_moves(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every rank's mover, payoff and children at once (:class:`gametree.game.RankedMoves`),
        computed with numpy from the ranks, as :meth:`rank` numbers them."""
        import numpy as np

        g, pairs = self.goal, self._pairs
        ranks = np.arange(2, self.position_count(), dtype=np.int64)
        rest, other = np.divmod(ranks - 2, g)
        rest, rolling = np.divmod(rest, 2)
        player, pair = np.divmod(rest, pairs)
        table = np.array(self._unpaired, dtype=np.int64).reshape(-1, 2)
        own, total = table[pair, 0], table[pair, 1]

        def ranked(who: np.ndarray, mine: np.ndarray, turn: np.ndarray, theirs: np.ndarray) -> np.ndarray:
            """The ranks of the players' positions (not rolling) of these scores and totals; a win where reached."""
            at = mine * g - mine * (mine - 1) // 2 + turn
            won = mine + turn >= g
            inside = 2 + ((who * pairs + np.where(won, 0, at)) * 2) * g + theirs
            return np.where(won, who, inside)

        count = np.where(rolling == 1, SIDES, np.where(total > 0, 2, 1))
        mover = np.concatenate([np.array([FINISHED, FINISHED]), np.where(rolling == 1, CHANCE, player)])
        payoff = np.array([1.0, -1.0] + [0.0] * len(ranks))
        start = np.concatenate([np.zeros(3, dtype=np.int64), np.cumsum(count)])
        first = start[2:-1]
        child = np.zeros(int(start[-1]), dtype=np.int64)
        prob = np.ones(int(start[-1]))
        deciding, rolls = rolling == 0, rolling == 1
        child[first[deciding]] = ranks[deciding] + g  # roll: the same position, the die in the air
        holds = deciding & (total > 0)
        child[first[holds] + 1] = ranked(1 - player[holds], other[holds], 0 * other[holds], own[holds] + total[holds])
        p, o, t, b = player[rolls], own[rolls], total[rolls], other[rolls]
        child[first[rolls]] = ranked(1 - p, b, 0 * b, o)  # a 1: the other's turn
        for face in range(2, SIDES + 1):
            child[first[rolls] + face - 1] = ranked(p, o, t + face, b)
        prob[np.repeat(rolling == 1, count)] = 1 / SIDES
        return mover.astype(np.int8), payoff, start, child, prob

    # -- text ----------------------------------------------------------------------------
    def split_moves(self, text: str) -> list[str]:
        """Move texts from a sequence: ``rolled 4`` is one move."""
        moves: list[str] = []
        for word in text.split():
            if moves and moves[-1] == "rolled":
                moves[-1] = f"rolled {word}"
            else:
                moves.append(word)
        return moves

    def parse_move(self, state: PigState, text: str) -> PigMove:
        t = " ".join(text.lower().split())
        shown = t if len(t) <= 40 else t[:37] + "..."
        if t in (ROLL, HOLD):
            return t
        number = t.removeprefix("rolled").strip()
        if number.isdecimal() and len(number) <= 6:
            return int(number)
        raise MoveParseError(f"cannot read {shown!r}: write roll, hold, or a roll's outcome such as 'rolled 4'")

    def format_move(self, state: PigState, move: PigMove) -> str:
        return move if isinstance(move, str) else f"rolled {move}"

    def check_move(self, state: PigState, move: PigMove) -> None:
        if self.outcome(state) is not None:
            raise IllegalMoveError("the game is over")
        if state.rolling:
            if not isinstance(move, int) or not 1 <= move <= SIDES:
                raise IllegalMoveError(f"the die is rolling: its outcome is a number from 1 to {SIDES}")
        elif move not in (ROLL, HOLD):
            raise IllegalMoveError("a player rolls or holds; the die's outcomes are chance's moves")
        elif move == HOLD and not state.turn_total:
            raise IllegalMoveError("a turn starts with a roll: there is nothing to hold yet")

    @property
    def move_help(self) -> str:
        return "type roll (roll the die) or hold (bank the turn total and pass the turn)"

    def render(self, state: PigState) -> str:
        names = self.info.player_names
        won = self.outcome(state) is not None
        lines = []
        for player in (0, 1):
            note = ""
            if state.player == player:
                if won:
                    note = f" + {state.turn_total} this turn: wins" if state.turn_total else " (wins)"
                else:
                    doing = "rolling the die" if state.rolling else "to play"
                    note = f" + {state.turn_total} this turn ({doing})"
            lines.append(f"{names[player]:>6}: {state.scores[player]:>3}{note}")
        lines.append(f"goal {self.goal}: a 1 loses the turn total")
        return "\n".join(lines)

    def evaluate(self, state: PigState) -> float:
        """A rough guess for the side to move: the lead, the turn total counted, as a share of the goal."""
        me = state.player
        mine, theirs = state.scores[me] + state.turn_total, state.scores[1 - me]
        return 0.9 * (mine - theirs) / (self.goal + SIDES)


def _make(goal: int = 100) -> Pig:
    return Pig(goal)


@hookimpl
def gametree_register_games(registry) -> None:  # type: ignore[no-untyped-def]
    registry.add_game(
        GameSpec(
            name="pig",
            factory=_make,
            summary="Pig: roll as often as you dare, a 1 loses the turn's points; first to the goal wins",
            options=(Option("goal", int, 100, "the score that wins"),),
        )
    )
