"""Strong solutions: reachable positions counted as published, every score equal to the solver's."""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gametree import UnsupportedGameError, load, play_text
from gametree.game import capabilities, payoffs, win_score
from gametree.search import Solver, StrongSolution, solve_strongly
from gametree.search.strong import ListedPly, Resume

COUNTS = json.loads((Path(__file__).parent / "data" / "strong_counts.json").read_text(encoding="utf-8"))
SLOW = os.environ.get("GAMETREE_SLOW") == "1"


def published(game: str, width: int, height: int) -> dict[str, Any]:
    return next(entry for entry in COUNTS[game] if (entry["width"], entry["height"]) == (width, height))


@pytest.fixture(scope="module")
def c4_4x4():
    return load().game("connect4").create(width=4, height=4)


@pytest.fixture(scope="module")
def c4_4x4_solved(c4_4x4) -> StrongSolution:
    return solve_strongly(c4_4x4)


@pytest.fixture(scope="module")
def ttt3_solved(ttt3) -> StrongSolution:
    return solve_strongly(ttt3)


def canonical(game: Any, state: Any) -> Any:
    symmetric = capabilities(game).symmetric
    return symmetric.canonical_key(state) if symmetric is not None else game.key(state)


def check_counts(solved: StrongSolution, entry: dict[str, Any]) -> None:
    assert solved.positions == entry["published"]["positions"]
    assert sum(solved.per_ply) == solved.positions
    assert list(solved.per_ply) == entry["per_ply_computed"]
    assert sum(solved.images.values()) == solved.positions
    assert solved.scores.keys() == solved.images.keys()


def test_3x3_tictactoe_has_5478_positions(ttt3_solved) -> None:
    check_counts(ttt3_solved, published("tictactoe", 3, 3))


def test_3x3_tictactoe_classes_per_ply_are_oeis_a008907(ttt3_solved) -> None:
    # Up to rotation and reflection: the canonical keys, grouped by marks on the board (the ply).
    per_ply = Counter(int(key).bit_count() for key in ttt3_solved.scores)
    assert [per_ply[p] for p in range(10)] == published("tictactoe", 3, 3)["published"]["classes_per_ply"]
    assert len(ttt3_solved.scores) == 765
    # An image count is the size of the class: 1 (the empty board), 4 or 8 for a first mark.
    assert ttt3_solved.images[canonical_of_moves("tictactoe", "B2")] == 1
    assert ttt3_solved.images[canonical_of_moves("tictactoe", "A1")] == 4


def canonical_of_moves(name: str, moves: str, **options: Any) -> Any:
    game = load().game(name).create(**options)
    return canonical(game, play_text(game, moves))


def test_4x4_connect_four_has_161029_positions(c4_4x4_solved) -> None:
    check_counts(c4_4x4_solved, published("connect4", 4, 4))
    assert c4_4x4_solved.scores[canonical_of_moves("connect4", "", width=4, height=4)] == 0  # a draw (small_boards.csv)


@pytest.mark.skipif(not SLOW, reason="about a minute: set GAMETREE_SLOW=1")
def test_5x4_connect_four_has_3945711_positions() -> None:
    game = load().game("connect4").create(width=5, height=4)
    solved = solve_strongly(game)
    check_counts(solved, published("connect4", 5, 4))
    assert solved.scores[canonical(game, game.initial_state())] == 0  # a draw (small_boards.csv)
    check_sample(game, solved, random.Random(54), playouts=4)


def test_connect_four_stops_at_a_win_as_tromp_counts() -> None:
    """7x6 up to ply 8 (the first ply a finished game could have led on to), from the progress
    reports, stopped there by ``max_positions``: OEIS A212693, Tromp's table."""
    game = load().game("connect4").create()
    expected = published("connect4", 7, 6)["published"]["per_ply_first"][:9]
    sizes: dict[str, int] = {}

    def progress(stage: str, done: int, total: int) -> None:
        assert 0 <= done <= total
        sizes[stage] = total

    with pytest.raises(UnsupportedGameError, match="more than 262,000 reachable positions") as info:
        solve_strongly(game, progress=progress, max_positions=262_000)
    assert "\n" not in str(info.value)
    assert [sizes[f"enumerating ply {p}"] for p in range(9)] == expected
    assert sum(expected) < 262_000


def check_sample(game: Any, solved: StrongSolution, rng: random.Random, *, playouts: int, state: Any = None) -> int:
    """Random games from ``state``: every unfinished position on the way (every ply) scores as the
    solver proves it, every finished one as the engine scores it.  Returns the positions checked."""
    solver = Solver(game, engine="python")
    C = game.info.max_plies
    start = game.initial_state() if state is None else state
    checked = 0
    for _ in range(playouts):
        s = start
        while True:
            got = solved.scores[canonical(game, s)]
            ended = game.outcome(s)
            if ended is not None:
                p = game.ply(s)
                if game.info.margin:  # the final margin for the side to move
                    assert got == payoffs(game, ended)[game.to_move(s)]
                else:
                    won = win_score(C, p - 1)
                    assert got == (0 if ended.winner is None else won * (1 if ended.winner == game.to_move(s) else -1))
                break
            assert got == solver.score(s).score, game.render(s)
            checked += 1
            s = game.play(s, rng.choice(list(game.legal_moves(s))))
    return checked


def test_4x4_connect_four_scores_equal_the_solvers(c4_4x4, c4_4x4_solved) -> None:
    assert check_sample(c4_4x4, c4_4x4_solved, random.Random(4), playouts=12) > 100


def test_4x4_othello_margins_equal_the_solvers() -> None:
    """A margin game (issue 33: margins for margin games): every position's score is its exact
    final margin for the side to move, as the solver proves it."""
    game = load().game("othello").create(size=4)
    solved = solve_strongly(game)
    start = game.initial_state()
    assert solved.scores[canonical(game, start)] == Solver(game, engine="python").score(start).score
    assert sum(solved.images.values()) == solved.positions
    assert check_sample(game, solved, random.Random(5), playouts=12) > 100


def test_3x3_tictactoe_scores_equal_the_solvers(ttt3, ttt3_solved) -> None:
    assert check_sample(ttt3, ttt3_solved, random.Random(3), playouts=25) > 100


def test_every_3x3_position_scores_as_the_solver_says(ttt3, ttt3_solved) -> None:
    """Not a sample: all 765 classes, each through a position of its own."""
    solver = Solver(ttt3, engine="python")
    seen: dict[Any, Any] = {}
    frontier = [ttt3.initial_state()]
    while frontier:
        nxt = []
        for s in frontier:
            c = canonical(ttt3, s)
            if c in seen:
                continue
            seen[c] = s
            if ttt3.outcome(s) is None:
                assert ttt3_solved.scores[c] == solver.score(s).score
                nxt.extend(ttt3.play(s, m) for m in ttt3.legal_moves(s))
        frontier = nxt
    assert seen.keys() == ttt3_solved.scores.keys()


def test_4x4_k3_tictactoe_from_a_position_scores_equal_the_solvers() -> None:
    # The whole 4x4 board has 6 million positions; after four marks, a few thousand.
    game = load().game("tictactoe").create(size=4, k=3)
    state = play_text(game, "B2 C3 A1 D4")
    solved = solve_strongly(game, state)
    assert solved.per_ply[0] == 1 and len(solved.per_ply) <= 16 - 4 + 1
    assert solved.scores[canonical(game, state)] == solver_score(game, state)
    assert check_sample(game, solved, random.Random(43), playouts=10, state=state) > 50


def solver_score(game: Any, state: Any) -> float:
    return Solver(game, engine="python").score(state).score


def test_without_symmetry_every_position_is_scored_as_its_class(ttt3, ttt3_solved) -> None:
    plain = solve_strongly(ttt3, symmetry=False)
    assert plain.per_ply == ttt3_solved.per_ply
    assert len(plain.scores) == plain.positions == 5478
    assert set(plain.images.values()) == {1}
    # Every position's own score is its class's: walk them all.
    frontier = {ttt3.key(ttt3.initial_state()): ttt3.initial_state()}
    while frontier:
        nxt = {}
        for k, s in frontier.items():
            assert plain.scores[k] == ttt3_solved.scores[canonical(ttt3, s)]
            if ttt3.outcome(s) is None:
                for m in ttt3.legal_moves(s):
                    child = ttt3.play(s, m)
                    nxt[ttt3.key(child)] = child
        frontier = nxt


@pytest.mark.parametrize("heaps", ["1,2,3", "2,2,3", "3,4"])
@pytest.mark.parametrize("symmetry", [True, False])
def test_nim_scores_equal_the_solvers_everywhere(heaps: str, symmetry: bool) -> None:
    game = load().game("nim").create(heaps=heaps)
    solved = solve_strongly(game, symmetry=symmetry)
    solver = Solver(game, engine="python")
    keyf = canonical if symmetry else (lambda g, s: g.key(s))
    frontier = {game.key(game.initial_state()): game.initial_state()}
    counted = []
    while frontier:
        counted.append(len(frontier))
        nxt = {}
        for s in frontier.values():
            if game.outcome(s) is not None:
                assert solved.scores[keyf(game, s)] == -win_score(
                    game.info.max_plies, game.ply(s) - 1
                )  # the last to take won
                continue
            assert solved.scores[keyf(game, s)] == solver.score(s).score
            for m in game.legal_moves(s):
                child = game.play(s, m)
                nxt[game.key(child)] = child
        frontier = nxt
    assert list(solved.per_ply) == counted
    assert sum(solved.images.values()) == solved.positions
    if not symmetry:
        assert len(solved.scores) == solved.positions
    elif heaps == "2,2,3":  # (1,2,3) and (2,1,3) after one move: two positions, one class
        assert len(solved.scores) < solved.positions


def test_a_finished_position_is_one_position_scored_as_the_engine_scores_it(ttt3) -> None:
    state = play_text(ttt3, "A1 B1 A2 B2 A3")  # X wins with the 5th mark
    solved = solve_strongly(ttt3, state)
    assert solved.per_ply == (1,) and solved.positions == 1
    assert solved.scores == {canonical(ttt3, state): -win_score(9, 4)}


def test_progress_reports_every_stage_in_order(ttt3) -> None:
    calls: list[tuple[str, int, int]] = []
    solve_strongly(ttt3, progress=lambda stage, done, total: calls.append((stage, done, total)))
    stages = list(dict.fromkeys(stage for stage, _, _ in calls))
    assert stages == [f"enumerating ply {p}" for p in range(10)] + [f"scoring ply {p}" for p in range(9, -1, -1)]
    assert all(0 <= done <= total for _, done, total in calls)
    finals = {stage: total for stage, done, total in calls if done == total}
    assert [finals[f"enumerating ply {p}"] for p in range(10)] == [1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78]
    assert (
        finals["scoring ply 0"] == 1 and finals["scoring ply 9"] == 0
    )  # a full board is finished: nothing to score there


def test_too_many_positions_are_refused_in_one_line(ttt3) -> None:
    with pytest.raises(UnsupportedGameError, match=r"more than 1,000 reachable positions") as info:
        solve_strongly(ttt3, max_positions=1000)
    assert "\n" not in str(info.value)
    assert solve_strongly(ttt3, max_positions=5478).positions == 5478


def test_the_garbage_collector_is_left_as_it_was(ttt3) -> None:
    assert gc.isenabled()
    solve_strongly(ttt3)
    assert gc.isenabled()
    gc.disable()
    try:
        solve_strongly(ttt3)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("prop", ["zero_sum", "deterministic", "perfect_information"])
def test_only_exact_two_player_games(prop: str) -> None:
    game = load().game("tictactoe").create(size=3)
    game.info = dataclasses.replace(game.info, **{prop: False})
    with pytest.raises(UnsupportedGameError, match=prop):
        solve_strongly(game)


def test_three_players_are_refused() -> None:
    game = load().game("tictactoe").create(size=3)
    game.info = dataclasses.replace(game.info, players=3)
    with pytest.raises(UnsupportedGameError, match="players"):
        solve_strongly(game)


@pytest.mark.parametrize("ply", [0, 3, 6, 9, 10])
def test_a_resumed_solve_lists_down_to_the_kept_ply_and_scores_the_rest_as_one_solve(ttt3, ttt3_solved, ply) -> None:
    # What a stopped build kept: the scores from ``ply`` on (here, those of one whole solve).
    kept: list[tuple[int | None, list[object]]] = []
    calls: list[str] = []
    solved = solve_strongly(
        ttt3,
        progress=lambda stage, done, total: calls.append(stage),
        keep=lambda keys, scores, images, at: kept.append((at, [(k, scores[k], images[k]) for k in keys])),
        resume=Resume(ply, lambda keys: {k: ttt3_solved.scores[k] for k in keys}),
    )
    assert solved.per_ply == ttt3_solved.per_ply[: ply + 1]  # (the ply read counted; none deeper)
    assert all(solved.scores[k] == ttt3_solved.scores[k] for k in solved.scores)
    assert [at for at, _ in kept] == list(range(min(ply, 10) - 1, -1, -1))  # no finished positions kept again
    for _, entries in kept:
        assert all(score == ttt3_solved.scores[k] and n == ttt3_solved.images[k] for k, score, n in entries)
    listed = [stage for stage in dict.fromkeys(calls) if stage.startswith("enumerating")]
    assert listed == [f"enumerating ply {p}" for p in range(min(ply, 10))]
    assert (f"reading ply {ply}" in calls) == (ply <= 9)


def test_a_resumed_solve_without_a_kept_score_raises_lookup_error(ttt3) -> None:
    with pytest.raises(LookupError, match="ply 4"):
        solve_strongly(ttt3, resume=Resume(4, lambda keys: {}))


@pytest.mark.parametrize("plies", [1, 4, 9, 10])
def test_a_solve_going_on_from_the_plies_listed_before_ends_as_one_solve(ttt3, ttt3_solved, plies) -> None:
    # What a stopped listing kept: the first ``plies`` plies, as ``listed`` gave them.
    listed: list[ListedPly[Any]] = []
    assert solve_strongly(ttt3, listed=listed.append).scores == ttt3_solved.scores
    assert [found.ply for found in listed] == list(range(10))
    assert [found.count for found in listed] == list(ttt3_solved.per_ply)
    kept = listed[:plies]
    calls: list[str] = []
    again: list[ListedPly[Any]] = []
    solved = solve_strongly(
        ttt3, progress=lambda stage, done, total: calls.append(stage), listed=again.append, relist=kept
    )
    assert solved.per_ply == ttt3_solved.per_ply and solved.positions == 5478
    assert solved.scores == ttt3_solved.scores and solved.images == ttt3_solved.images
    assert list(solved.scores) == list(ttt3_solved.scores)  # (the same order: the store is written alike)
    stages = list(dict.fromkeys(calls))
    assert stages[: plies + (10 - plies)] == [f"reading listed ply {p}" for p in range(plies)] + [
        f"enumerating ply {p}" for p in range(plies, 10)
    ]
    assert [found.ply for found in again] == list(range(plies, 10))  # only the plies listed now are told


def test_a_listing_kept_out_of_order_is_refused(ttt3) -> None:
    listed: list[ListedPly[Any]] = []
    solve_strongly(ttt3, listed=listed.append)
    with pytest.raises(ValueError, match="ply 1 where ply 0 was due"):
        solve_strongly(ttt3, relist=listed[1:3])
