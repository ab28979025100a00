"""The tier solver: counts per ply as published, every value and remoteness equal to independent solvers'."""

from __future__ import annotations

import csv
import json
import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gametree import load
from gametree.game import UnsupportedGameError, capabilities
from gametree.search import Solver, solve_strongly
from gametree.search.tiers import MemoryTiers, TierValue, decode, solve_tiers

DATA = Path(__file__).parent / "data"
COUNTS = json.loads((DATA / "strong_counts.json").read_text(encoding="utf-8"))
SLOW = os.environ.get("GAMETREE_SLOW") == "1"


def published(game: str, width: int, height: int) -> dict[str, Any]:
    return next(entry for entry in COUNTS[game] if (entry["width"], entry["height"]) == (width, height))


def solved(name: str, **options: int) -> tuple[Any, MemoryTiers, Any]:
    game = load().game(name).create(**options)
    store = MemoryTiers()
    return game, store, solve_tiers(game, store)


@pytest.fixture(scope="module")
def ttt3() -> tuple[Any, MemoryTiers, Any]:
    return solved("tictactoe")


@pytest.fixture(scope="module")
def c4_4x4() -> tuple[Any, MemoryTiers, Any]:
    return solved("connect4", width=4, height=4)


def value_of(game: Any, store: MemoryTiers, state: Any) -> TierValue:
    tier, index = game.tier_position(state)
    found = decode(int(store.values[tier][index]), 1)
    assert found is not None, game.render(state)
    return found


def expected_value(score: int, ply: int, cells: int) -> TierValue:
    """The value a depth-aware score means: a win scores ``(C + 1 - n) // 2`` with ``n`` the moves
    before the winning one, so the remoteness is ``C + 2 - ply - 2 * score`` or one less, odd for
    a win (the side to move plays the last move), even for a loss; a draw fills the board."""
    if score == 0:
        return TierValue("draw", cells - ply)
    r = cells + 2 - ply - 2 * abs(score)
    if (r % 2 == 1) != (score > 0):
        r -= 1
    return TierValue("win" if score > 0 else "loss", r)


def test_3x3_tictactoe_has_5478_positions_and_the_empty_board_draws_in_9(ttt3) -> None:
    game, store, solution = ttt3
    assert solution.positions == 5478 == published("tictactoe", 3, 3)["published"]["positions"]
    assert [c.positions for c in solution.counts] == published("tictactoe", 3, 3)["per_ply_computed"]
    assert value_of(game, store, game.initial_state()) == TierValue("draw", 9)


def test_every_3x3_position_equals_the_strong_solvers_score(ttt3) -> None:
    """All 5,478 positions, value and remoteness, against the Python strong solver's scores."""
    game, store, _ = ttt3
    strong = solve_strongly(game, symmetry=False)
    states = {game.key(s): s for s in _reachable(game)}
    assert len(states) == strong.positions == 5478
    for key, state in states.items():
        assert value_of(game, store, state) == expected_value(strong.scores[key], game.ply(state), 9), game.render(
            state
        )
    reachable = sum(int(np.count_nonzero(v)) for v in store.values.values())
    assert reachable == 5478  # no index is marked that no reachable position has


@pytest.mark.parametrize(
    ("name", "options"),
    [("connect4", {"width": 4, "height": 3, "k": 3}), ("tictactoe", {"width": 3, "height": 2, "k": 2})],
)
def test_other_boards_and_lines_equal_the_strong_solver(name: str, options: dict[str, int]) -> None:
    """Every reachable position of a board with lines of 3 (2): counts, value and remoteness."""
    game, store, solution = solved(name, **options)
    strong = solve_strongly(game, symmetry=False)
    per_ply = list(strong.per_ply) + [0] * (len(solution.counts) - len(strong.per_ply))  # (games that end early)
    assert [c.positions for c in solution.counts] == per_ply
    cells = game.info.max_plies
    for state in _reachable(game):
        expected = expected_value(strong.scores[game.key(state)], game.ply(state), cells)
        if game.outcome(state) is None or expected.outcome != "draw":
            assert value_of(game, store, state) == expected, game.render(state)
        else:  # a finished draw: no moves left
            assert value_of(game, store, state) == TierValue("draw", 0)


def _reachable(game: Any) -> list[Any]:
    seen: dict[Any, Any] = {}
    todo = [game.initial_state()]
    while todo:
        s = todo.pop()
        if game.key(s) in seen:
            continue
        seen[game.key(s)] = s
        if game.outcome(s) is None:
            todo.extend(game.play(s, m) for m in game.legal_moves(s))
    return list(seen.values())


def test_4x4_connect_four_counts_per_ply_as_published(c4_4x4) -> None:
    game, store, solution = c4_4x4
    entry = published("connect4", 4, 4)
    assert solution.positions == entry["published"]["positions"] == 161029
    assert [c.positions for c in solution.counts] == entry["per_ply_computed"]
    assert value_of(game, store, game.initial_state()) == TierValue("draw", 16)


def test_4x4_connect_four_values_equal_the_negamax_solvers(c4_4x4) -> None:
    """Random games: every position on the way has the value and remoteness the negamax solver proves."""
    game, store, _ = c4_4x4
    solver = Solver(game, engine="python")
    rng = random.Random(44)
    checked = 0
    for _ in range(12):
        s = game.initial_state()
        while game.outcome(s) is None:
            assert value_of(game, store, s) == expected_value(solver.score(s).score, s.moves, 16), game.render(s)
            checked += 1
            s = game.play(s, rng.choice(list(game.legal_moves(s))))
        assert value_of(game, store, s) == (TierValue("draw", 0) if not s.won else TierValue("loss", 0))
    assert checked > 100


def test_5x4_connect_four_counts_per_ply_as_published() -> None:
    game, store, solution = solved("connect4", width=5, height=4)
    entry = published("connect4", 5, 4)
    assert solution.positions == entry["published"]["positions"] == 3945711
    assert [c.positions for c in solution.counts] == entry["per_ply_computed"]
    assert value_of(game, store, game.initial_state()) == TierValue("draw", 20)


@pytest.mark.parametrize(("name", "options"), [("connect4", {"width": 4, "height": 4}), ("tictactoe", {"size": 4})])
def test_a_tier_index_is_a_perfect_hash_and_the_compiled_one_agrees(name: str, options: dict[str, int]) -> None:
    game = load().game(name).create(**options)
    tiers = game.compiled_tiers()
    rules = game.compiled_rules()
    assert tiers is not None and rules is not None
    from gametree.search.kernel import board_constants

    functions = tiers.functions()
    t = board_constants(tiers.board)[0]
    for tier in (0, 1, 5, game.tier_count() - 1):
        size = game.tier_size(tier)
        assert size == tiers.sizes[tier]
        for index in random.Random(tier).sample(range(size), min(size, 300)):
            state = game.tier_unrank(tier, index)
            assert game.tier_position(state) == (tier, index)
            a, b = rules.encode(state)
            assert functions.rank(t, tier, np.uint64(a), np.uint64(b)) == index
            assert tuple(int(w) for w in functions.unrank(t, tier, index)) == (a, b)


def test_a_game_without_tiers_is_refused_in_one_line() -> None:
    game = load().game("nim").create()
    assert capabilities(game).tiered is None
    with pytest.raises(UnsupportedGameError, match="has no tiers") as info:
        solve_tiers(game)
    assert "\n" not in str(info.value)


def boeck_5x5() -> list[tuple[int, int, int]]:
    with (DATA / "connect4" / "boeck_5x5_per_ply.csv").open(encoding="utf-8") as f:
        return [(int(row["wins"]), int(row["draws"]), int(row["losses"])) for row in csv.DictReader(f)]


@pytest.mark.slow
@pytest.mark.skipif(not SLOW, reason="about a minute: set GAMETREE_SLOW=1")
def test_5x5_connect_four_wins_draws_and_losses_per_ply_are_boecks() -> None:
    game, store, solution = solved("connect4", width=5, height=5)
    assert [(c.wins, c.draws, c.losses) for c in solution.counts] == boeck_5x5()
    assert solution.positions == 69763700
    assert value_of(game, store, game.initial_state()).outcome == "draw"
