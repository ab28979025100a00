"""Margin games through the one negamax engine: minimax, alpha-beta and the exact solver give the exact
final margin under perfect play, equal to an independent brute force written here.

The test game is "coins in a line": a row of coins, each player in turn takes the coin at either end;
the game's value is the first player's total minus the second's (a margin, not win/draw/loss).
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass

import pytest

from gametree import GameInfo, Outcome, UnsupportedGameError
from gametree.game import IncompleteCapabilityError, MoveParseError, RuleSet, end_score
from gametree.search import alphabeta, minimax, search, solver
from gametree.search.known import Known
from gametree.search.perfect import PerfectMover
from gametree.search.table import Bound
from gametree.search.values import Margin


@dataclass(frozen=True, slots=True)
class CoinState:
    left: int  # the first coin still in the line
    right: int  # one past the last
    diff: int  # the first player's coins minus the second's, so far
    ply: int


class Coins:
    """Take a coin from either end ("L" or "R"); the margin is the difference of the totals."""

    name = "coins"

    def __init__(self, coins: tuple[int, ...], *, heuristic: bool = False, bounds: bool = True) -> None:
        self.coins = coins
        total = sum(coins)
        self.info = GameInfo(
            max_plies=len(coins),
            margin=True,
            payoff_bounds=(-total, total) if bounds else None,
        )
        if heuristic:
            self.evaluate = self._evaluate

    def initial_state(self) -> CoinState:
        return CoinState(0, len(self.coins), 0, 0)

    def to_move(self, state: CoinState) -> int:
        return state.ply % 2

    def ply(self, state: CoinState) -> int:
        return state.ply

    def legal_moves(self, state: CoinState) -> list[str]:
        if state.left >= state.right:
            return []
        return ["L", "R"] if state.right - state.left > 1 else ["L"]

    def play(self, state: CoinState, move: str) -> CoinState:
        sign = 1 if state.ply % 2 == 0 else -1
        if move == "L":
            return CoinState(state.left + 1, state.right, state.diff + sign * self.coins[state.left], state.ply + 1)
        return CoinState(state.left, state.right - 1, state.diff + sign * self.coins[state.right - 1], state.ply + 1)

    def outcome(self, state: CoinState) -> Outcome | None:
        if state.left < state.right:
            return None
        d = state.diff
        return Outcome(None if d == 0 else 0 if d > 0 else 1, (d, -d))

    def key(self, state: CoinState) -> tuple[int, int, int]:
        return state.left, state.right, state.diff

    def parse_move(self, state: CoinState, text: str) -> str:
        if text.upper() not in ("L", "R"):
            raise MoveParseError(f"not a move: {text!r} (L or R)")
        return text.upper()

    def format_move(self, state: CoinState, move: str) -> str:
        return move

    def render(self, state: CoinState) -> str:
        return " ".join(str(c) for c in self.coins[state.left : state.right])

    def _evaluate(self, state: CoinState) -> float:
        me = 1 if state.ply % 2 == 0 else -1
        return float(me * state.diff)  # the coins taken so far (may reach the bounds: the engine clamps it)


def brute(coins: tuple[int, ...]) -> int:
    """The first player's final margin under perfect play, by plain recursion over what is left."""

    @functools.cache
    def best(left: int, right: int) -> int:  # the best (own total - other's) from here, for the side to move
        if left >= right:
            return 0
        return max(coins[left] - best(left + 1, right), coins[right - 1] - best(left, right - 1))

    return best(0, len(coins))


def brute_depth(game: Coins, state: CoinState, depth: int) -> float:
    """Depth-limited negamax by hand, with the game's estimate clamped as the engine documents."""
    out = game.outcome(state)
    if out is not None:
        assert out.payoffs is not None
        return float(out.payoffs[game.to_move(state)])
    if depth == 0:
        top = sum(game.coins) - 0.001
        return max(-top, min(top, game._evaluate(state)))
    return max(-brute_depth(game, game.play(state, m), depth - 1) for m in game.legal_moves(state))


ROWS = [(3, 9, 1, 2), (5, 3, 7, 10), (1, 1), (4,), (2, 2, 2, 2), (8, 15, 3, 7, 2, 9, 1, 6)] + [
    tuple(random.Random(seed).randint(0, 9) for _ in range(random.Random(seed).randint(3, 10))) for seed in range(12)
]


@pytest.mark.parametrize("coins", ROWS)
def test_margin_equals_brute_force(coins: tuple[int, ...]) -> None:
    game = Coins(coins)
    expected = brute(coins)
    results = [
        minimax(game),
        alphabeta(game),
        alphabeta(game, cache=False),
        solver(game, engine="python"),
        search("solver", game, all_moves=False),
    ]
    for result in results:
        assert result.proven and result.score == expected == result.margin, (result.algorithm, coins)
        assert isinstance(result.score, int)
        assert result.value == ("win" if expected > 0 else "loss" if expected < 0 else "draw")
        assert result.winner == (0 if expected > 0 else 1 if expected < 0 else None)
        assert result.outcome == Margin(expected, result.plies_to_end)
    # Every move's score is its exact margin: the brute force of the row after it.
    full = solver(game, engine="python")
    by_move = {mv.move: mv.score for mv in full.move_values}
    if len(coins) > 1:
        assert by_move["L"] == coins[0] - brute(coins[1:])
        assert by_move["R"] == coins[-1] - brute(coins[:-1])
        assert minimax(game).move_values == alphabeta(game).move_values
    # The line reaches the end with the proven margin.
    state = game.initial_state()
    for move in full.pv:
        state = game.play(state, move)
    assert game.outcome(state) is not None and full.plies_to_end == len(coins)
    assert end_score(game, state) == (expected if len(coins) % 2 == 0 else -expected)


@pytest.mark.parametrize("coins", ROWS[:8])
def test_positions_along_the_way(coins: tuple[int, ...]) -> None:
    """Positions after some moves, the second player to move too: the margin for the side to move."""
    game = Coins(coins)
    rng = random.Random(len(coins))
    state = game.initial_state()
    while game.outcome(state) is None:
        rest = coins[state.left : state.right]
        me = 1 if state.ply % 2 == 0 else -1
        expected = me * state.diff + brute(rest)  # what is taken counts, for the side to move
        for algorithm in ("minimax", "alphabeta", "solver"):
            assert search(algorithm, game, state).score == expected
        state = game.play(state, rng.choice(game.legal_moves(state)))


def test_weak_solve_gives_the_sign() -> None:
    game = Coins((5, 3, 7, 10))
    result = solver(game, weak=True, engine="python")
    assert result.weak and result.score == 1 and result.margin is None and result.outcome is not None


def test_depth_limit_with_the_heuristic() -> None:
    coins = (8, 15, 3, 7, 2, 9, 1, 6)
    game = Coins(coins, heuristic=True)
    for depth in (1, 2, 3, 5):
        expected = brute_depth(game, game.initial_state(), depth)
        for result in (minimax(game, depth=depth), alphabeta(game, depth=depth)):
            assert result.score == pytest.approx(expected)
            assert not result.proven and result.margin is None and result.outcome is None
    # Deep enough to reach every end: proven, the exact margin.
    exact = alphabeta(game, depth=len(coins))
    assert exact.proven and exact.score == brute(coins)
    timed = alphabeta(game, time_limit=5.0)
    assert timed.proven and timed.score == brute(coins)


def test_a_margin_game_without_bounds_is_refused() -> None:
    game = Coins((1, 2, 3), bounds=False)
    for algorithm in ("minimax", "alphabeta", "solver"):
        with pytest.raises(UnsupportedGameError, match="payoff_bounds"):
            search(algorithm, game)


def test_mcts_plays_margin_games_by_their_payoffs() -> None:
    # MCTS searches a margin game with a payoff for each player (gametree.search.mcts_vector): its
    # means, never proven, find the move of the exact margin on small lines.
    for coins in ((1, 2, 9, 3), (3, 9, 1, 2), (5, 3, 7, 10), (8, 15, 3, 7)):
        exact = search("alphabeta", Coins(coins))
        guess = search("mcts", Coins(coins), iterations=3000, seed=1)
        assert guess.best_moves == exact.best_moves and not guess.proven
        assert guess.score == pytest.approx(brute(coins), abs=1)


def test_compiled_rules_of_a_margin_game_need_a_score() -> None:
    with pytest.raises(UnsupportedGameError, match="coins has no compiled rules"):
        solver(Coins((1, 2, 3)), engine="compiled")

    def never(*args: object) -> int:  # pragma: no cover (never called)
        raise AssertionError

    with pytest.raises(IncompleteCapabilityError, match="score alone"):
        RuleSet(moves=never, play=never, ends=never, key=never, win_now=never, safe_moves=never, score=never)


class Entries:
    """Known values in a dict (a KnownValues, as the store's entries are)."""

    def __init__(self) -> None:
        self.values: dict[int | str, Known] = {}
        self.write_error: str | None = None

    def entry(self, key: int | str) -> Known | None:
        return self.values.get(key)

    def record(self, exact: list[tuple[int | str, int]], bounds: list[tuple[int | str, int, Bound]]) -> int:
        for key, score in exact:
            self.values[key] = Known(score, Bound.EXACT)
        for key, score, bound in bounds:
            if key not in self.values:
                self.values[key] = Known(score, bound)
        return len(exact) + len(bounds)


def test_known_values_and_the_perfect_player() -> None:
    coins = (8, 15, 3, 7, 2, 9, 1, 6)
    game = Coins(coins)
    store = Entries()
    first = solver(game, store=store, engine="python")
    assert not first.from_store and first.score == brute(coins) and store.values
    again = solver(game, store=store, engine="python")
    assert again.from_store and again.score == first.score and again.margin == first.margin
    assert {mv.move: mv.score for mv in again.move_values} == {mv.move: mv.score for mv in first.move_values}
    # The perfect player keeps the margin at every move of a game against itself.
    mover = PerfectMover(game, engine="python", store=Entries())
    state, value = game.initial_state(), brute(coins)
    while game.outcome(state) is None:
        choice = mover.choose(state)
        assert choice.exact and choice.value == value
        state = game.play(state, game.parse_move(state, choice.moves[0]))
        value = -value
    assert end_score(game, state) == value
