"""Pig (games/pig.py) and value iteration (gametree.search.valueiteration).

Every value is checked against an independent computation written here from the
rules (Neller and Presser's equations for P(i, j, k), the side to move's chance
of winning with score i against j and turn total k): policy iteration, each
policy's probabilities an exact solve of a linear system (numpy), until no
state's choice improves; and against the dice game's exact expectiminimax value.
Pig to 100 against Neller and Presser's published figure (tests/data/pig.json).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gametree import (
    GameInfo,
    GameOverError,
    IllegalMoveError,
    MoveParseError,
    Outcome,
    UnsupportedGameError,
    load,
    play_text,
)
from gametree.game import CHANCE, FINISHED, Ranked, RankedMoves
from gametree.search import search
from gametree.search.chance import expectiminimax
from gametree.search.valueiteration import solve_values, value_iteration
from gametree_builtins.games.pig import Pig, PigState
from gametree_builtins.plugins.players import SearchPlayer

DATA = json.loads((Path(__file__).parent / "data" / "pig.json").read_text())


# -- the independent computation ----------------------------------------------------------------
def policy_iteration(goal: int) -> dict[tuple[int, int, int], float]:
    """P(i, j, k) for every state in play (i, j < goal, i + k < goal), by policy iteration from
    "always roll" (a turn total of 0 must roll), each policy solved exactly as a linear system."""
    states = [(i, j, k) for i in range(goal) for j in range(goal) for k in range(goal - i)]
    where = {s: n for n, s in enumerate(states)}
    n = len(states)

    def rows(i: int, j: int, k: int, act: str) -> tuple[dict[int, float], float]:
        """The action's value as sum(coef * P[index]) + constant."""
        coef: dict[int, float] = {}
        if act == "hold":
            coef[where[(j, i + k, 0)]] = -1.0
            return coef, 1.0
        const = 1 / 6  # a 1: the opponent's turn, 1 - P(j, i, 0)
        coef[where[(j, i, 0)]] = -1 / 6
        for r in range(2, 7):
            if i + k + r >= goal:
                const += 1 / 6
            else:
                at = where[(i, j, k + r)]
                coef[at] = coef.get(at, 0.0) + 1 / 6
        return coef, const

    def value_of(p: np.ndarray, i: int, j: int, k: int, act: str) -> float:
        coef, const = rows(i, j, k, act)
        return const + sum(c * p[at] for at, c in coef.items())

    policy = {s: "roll" for s in states}
    for _ in range(100):
        a, c = np.eye(n), np.zeros(n)
        for s, at in where.items():
            coef, const = rows(*s, policy[s])
            for other, x in coef.items():
                a[at, other] -= x
            c[at] = const
        p = np.linalg.solve(a, c)
        changed = False
        for s in states:
            if s[2] == 0:
                continue
            other = "hold" if policy[s] == "roll" else "roll"
            if value_of(p, *s, other) > value_of(p, *s, policy[s]) + 1e-12:
                policy[s], changed = other, True
        if not changed:
            break
    else:
        raise AssertionError("policy iteration did not settle")
    best = [max(value_of(p, *s, "roll"), value_of(p, *s, "hold") if s[2] else 0.0) for s in states]
    assert np.max(np.abs(np.array(best) - p)) < 1e-12  # (a fixed point of the optimality equations)
    return {s: float(p[where[s]]) for s in states}


# -- the rules --------------------------------------------------------------------------------
def test_rules_moves_and_text() -> None:
    game = load().game("pig").create(goal=10)
    start = game.initial_state()
    assert game.legal_moves(start) == ["roll"] and game.to_move(start) == 0
    rolling = play_text(game, "roll")
    assert game.to_move(rolling) == CHANCE and game.legal_moves(rolling) == [1, 2, 3, 4, 5, 6]
    s = play_text(game, "roll rolled 4 hold")
    assert s.scores == (4, 0) and s.player == 1 and s.turn_total == 0
    s = play_text(game, "roll rolled 4 roll rolled 1")
    assert s.scores == (0, 0) and s.player == 1  # a 1 loses the turn total
    s = play_text(game, "roll 4 roll 6")
    assert game.outcome(s) is not None and game.outcome(s).winner == 0 and game.legal_moves(s) == []
    assert "wins" in game.render(s) and "goal 10" in game.render(s)
    assert game.format_move(rolling, 3) == "rolled 3" and game.parse_move(rolling, "rolled 3") == 3
    with pytest.raises(IllegalMoveError, match="nothing to hold"):
        play_text(game, "hold")
    with pytest.raises(MoveParseError):
        play_text(game, "jump")
    with pytest.raises(ValueError, match="goal"):
        Pig(0)
    # The same scores come back: the game repeats.
    assert game.key(play_text(game, "roll 1 roll 1")) == game.key(start)
    assert game.info.repeats and not game.info.deterministic


def test_rank_is_a_perfect_hash() -> None:
    game = Pig(7)
    assert isinstance(game, Ranked)
    ranks = [game.rank(game.unrank(r)) for r in range(game.position_count())]
    assert ranks == list(range(game.position_count()))
    s = play_text(game, "roll 3 hold roll 5")
    assert game.key(game.unrank(game.rank(s))) == game.key(s)


class RulesOnly(Pig):
    """Pig without its moves as arrays: value iteration calls the rules position by position."""

    ranked_moves = None  # type: ignore[assignment]  # (None: not the capability, as for typing.Protocol)


@pytest.mark.parametrize("goal", [1, 2, 9])
def test_moves_as_arrays_agree_with_the_rules(goal: int) -> None:
    fast, slow = Pig(goal), RulesOnly(goal)
    assert isinstance(fast, RankedMoves) and not isinstance(slow, RankedMoves)
    mover, payoff, start, child, prob = fast.ranked_moves()
    assert len(mover) == len(payoff) == len(start) - 1 == fast.position_count()
    for r in range(fast.position_count()):
        state = fast.unrank(r)
        out = fast.outcome(state)
        children = list(child[start[r] : start[r + 1]])
        if out is not None:
            assert mover[r] == FINISHED and payoff[r] == (1 if out.winner == 0 else -1) and children == []
            continue
        assert mover[r] == fast.to_move(state)
        moves = fast.legal_moves(state)
        assert children == [fast.rank(fast.play(state, m)) for m in moves]
        expected = [1 / 6] * 6 if state.rolling else [1.0] * len(moves)
        assert list(prob[start[r] : start[r + 1]]) == pytest.approx(expected)
    assert np.array_equal(solve_values(fast).values, solve_values(slow).values)


# -- value iteration against the independent computation ----------------------------------------
@pytest.mark.parametrize("goal", [1, 2, 5, 9])
def test_values_equal_policy_iteration(goal: int) -> None:
    game = Pig(goal)
    exact = policy_iteration(goal)
    table = solve_values(game)
    worst = 0.0
    for (i, j, k), p in exact.items():
        first = table.win_probability(PigState(0, (i, j), k, False, 0))
        second = table.win_probability(PigState(1, (j, i), k, False, 0))
        worst = max(worst, abs(first - p), abs(second - p))
    assert worst < 1e-7
    assert table.win_probability(game.initial_state()) == pytest.approx(exact[(0, 0, 0)], abs=1e-8)


def test_goal_two_by_hand() -> None:
    # Each turn the mover wins with a roll of 2 to 6: p = 5/6 + (1/6)(1 - p), so p = 6/7.
    result = value_iteration(Pig(2))
    assert result.score == pytest.approx(2 * 6 / 7 - 1, abs=1e-8) and result.best_moves == ("roll",)


class Unranked:
    """Pig without its perfect hash: value iteration numbers the positions as it meets them."""

    def __init__(self, goal: int) -> None:
        self.pig = Pig(goal)
        self.info = self.pig.info

    def __getattr__(self, name: str) -> Any:
        if name in ("rank", "unrank", "position_count"):
            raise AttributeError(name)
        return getattr(self.pig, name)


def test_the_same_values_without_a_perfect_hash() -> None:
    plain = Unranked(8)
    assert not isinstance(plain, Ranked)
    table = solve_values(plain)  # type: ignore[arg-type]
    ranked = solve_values(Pig(8))
    assert table.positions < ranked.positions  # (only the positions reached)
    for moves in ("", "roll 3", "roll 3 roll 4", "roll 6 hold roll 2"):
        s = play_text(plain.pig, moves)
        assert table.payoff(s) == pytest.approx(ranked.payoff(s), abs=1e-8)


def test_too_many_positions_are_refused() -> None:
    with pytest.raises(UnsupportedGameError, match="2,020,002 positions, more than the 1,000 allowed"):
        solve_values(Pig(100), max_positions=1000)
    with pytest.raises(UnsupportedGameError, match="more than the 100 positions allowed"):
        solve_values(Unranked(30), max_positions=100)  # type: ignore[arg-type]


def test_dice_without_repeats_agrees_with_expectiminimax() -> None:
    dice = load().game("dice").create(target=6, sides=3)
    exact = expectiminimax(dice)
    iterated = search("value-iteration", dice)
    assert iterated.score == pytest.approx(float(exact.exact or exact.score), abs=1e-8)
    assert iterated.best_moves == exact.best_moves


# -- the search result, the refusals, the command line, the player ------------------------------
def test_result_moves_and_refusals() -> None:
    game = Pig(20)
    state = play_text(game, "roll 6 roll 5 roll 6")
    result = search("value-iteration", game, state)
    table = solve_values(game)
    by_move = {mv.move: mv.score for mv in result.move_values}
    assert set(by_move) == {"roll", "hold"}
    assert result.score == pytest.approx(max(by_move.values()))
    assert result.score == pytest.approx(2 * table.win_probability(state) - 1)
    assert result.pv == result.best_moves[:1] and result.value == "win" and result.winner == 0
    at_chance = search("value-iteration", game, play_text(game, "roll"))
    assert at_chance.to_move == CHANCE and len(at_chance.move_values) == 6 and at_chance.pv == ()
    with pytest.raises(UnsupportedGameError, match="repeat.*value-iteration"):
        search("star2", game)
    with pytest.raises(UnsupportedGameError, match="value-iteration cannot search.*more than two players"):
        search("value-iteration", load().game("trio").create())
    with pytest.raises(UnsupportedGameError, match="value-iteration is for games with chance nodes .* has none"):
        search("value-iteration", load().game("tictactoe").create(size=3))  # (no chance, no loops: the solver's)
    plain = value_iteration(load().game("tictactoe").create(size=3))  # (called directly, it still answers: a draw)
    assert plain.score == 0 and plain.value == "draw" and len(plain.best_moves) == 9
    with pytest.raises(ValueError, match="tolerance"):
        solve_values(game, tolerance=0)
    with pytest.raises(GameOverError):
        value_iteration(game, play_text(game, "roll 6 roll 6 roll 6 roll 6"))


def test_solve_on_the_command_line(gametree_cli: Any) -> None:
    done = gametree_cli("solve", "pig", "--goal", "12", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["algorithm"] == "value-iteration" and data["best_moves"] == ["roll"]
    exact = policy_iteration(12)[(0, 0, 0)]
    assert (data["score"] + 1) / 2 == pytest.approx(exact, abs=1e-8)
    shown = gametree_cli("solve", "pig", "--goal", "12")
    assert shown.returncode == 0 and f"win probability {exact:.4f}" in shown.stdout
    refused = gametree_cli("solve", "pig", "--goal", "12", "-a", "star2")
    assert refused.returncode != 0 and "value-iteration" in refused.stderr and "Traceback" not in refused.stderr


def test_the_perfect_player_rolls_and_holds_as_the_values_say() -> None:
    import random

    game = Pig(15)
    table = solve_values(game)
    player = SearchPlayer(None)
    for moves in ("", "roll 6 roll 6", "roll 4 roll 5 roll 2", "roll 2 hold roll 6"):
        s = play_text(game, moves)
        assert game.format_move(s, player.choose(game, s, random.Random(1))) in table.best_moves(s)
    chance = play_text(game, "roll")
    assert player.choose(game, chance, random.Random(1)) in range(1, 7)


# -- Neller and Presser's Pig to 100 (about 2 s: two million positions, from Pig's moves as arrays) ----
def test_pig_to_100_matches_neller_and_presser() -> None:
    game = Pig(DATA["goal"])
    table = solve_values(game)
    assert round(table.win_probability(game.initial_state()), 4) == DATA["first_player_wins"]
    for case in DATA["thresholds"]:
        for k in range(1, case["roll_below"]):
            assert table.best_moves(PigState(0, (case["own"], case["other"]), k, False, 0)) == ["roll"]
        for k in case["hold"]:
            assert table.best_moves(PigState(0, (case["own"], case["other"]), k, False, 0)) == ["hold"]
        for k in case["roll"]:
            assert table.best_moves(PigState(0, (case["own"], case["other"]), k, False, 0)) == ["roll"]


def test_play_on_the_command_line(gametree_cli: Any) -> None:
    done = gametree_cli("play", "pig", "--goal", "8", "--first", "perfect", "--second", "random", "--games", "3",
                        "--seed", "5", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["games"] == 3 and sum(data["wins"]) == 3
    for record in data["records"]:
        game = Pig(8)
        assert game.outcome(play_text(game, " ".join(record["moves"]))) is not None  # (each game played out legally)


class Loops:
    """A tiny game without chance whose positions repeat: a position is a node; each move names the
    node it goes to ("+" the first player wins, "-" she loses).  Endless play is a draw."""

    GRAPH = {  # node: (player to move, successors)
        "R": (0, "AEG"),
        "A": (0, "BC"),
        "B": (1, "A+"),  # the second player cycles back rather than lose
        "C": (1, "D"),
        "D": (0, "C-"),  # the first player cycles rather than lose: a draw
        "E": (0, "F"),
        "F": (1, "+E"),
        "G": (0, "H"),
        "H": (1, "+"),  # forced: a win for the first player
    }
    info = GameInfo(max_plies=100, repeats=True)

    def initial_state(self) -> str:
        return "R"

    def to_move(self, state: str) -> int:
        return self.GRAPH[state][0] if state in self.GRAPH else 0

    def ply(self, state: str) -> int:
        return 0

    def legal_moves(self, state: str) -> list[str]:
        return list(self.GRAPH[state][1]) if state in self.GRAPH else []

    def play(self, state: str, move: str) -> str:
        return move

    def outcome(self, state: str) -> Outcome | None:
        return Outcome(0) if state == "+" else Outcome(1) if state == "-" else None

    def key(self, state: str) -> str:
        return state

    def parse_move(self, state: str, text: str) -> str:
        return text

    def format_move(self, state: str, move: str) -> str:
        return move

    def render(self, state: str) -> str:
        return state


def test_endless_play_without_chance_is_a_draw() -> None:
    table = solve_values(Loops())
    expected = {"R": 1, "A": 0, "B": 0, "C": 0, "D": 0, "E": 0, "F": 0, "G": 1, "H": 1}
    assert {node: table.values[table.index(node)] for node in expected} == expected  # (the first player's)
    assert value_iteration(Loops()).best_moves == ("G",)


def test_a_position_that_comes_back_by_the_dice_is_no_draw() -> None:
    """Two busts in a row bring Pig's start back: play goes on however often it happens (a draw by
    repetition is for games without chance whose positions repeat, such as Dodgem)."""
    from gametree.play import REPETITIONS, repetition_end

    game = Pig(20)
    start = game.initial_state()
    history = [start]
    state = start
    for _ in range(REPETITIONS):
        for _ in range(2):  # each player rolls and busts
            state = game.play(state, game.parse_move(state, "roll"))
            history.append(state)
            state = game.play(state, game.parse_move(state, "rolled 1"))
            history.append(state)
    assert sum(game.key(s) == game.key(start) for s in history) > REPETITIONS  # (the same position, later)
    assert repetition_end(game, history) is None
