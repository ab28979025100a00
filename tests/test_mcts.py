"""Monte Carlo tree search: tactics, the solver part against exact values, seeds, the CLI."""

from __future__ import annotations

import json
import random

import pytest

from gametree import UnsupportedGameError, alphabeta, play_text, solver
from gametree.search.montecarlo import Playouts, choose, grow_tree, mcts


@pytest.fixture(scope="module")
def c4(registry):
    return registry.game("connect4").create(width=5, height=4)


def _values(result):
    return {mv.move: mv for mv in result.move_values}


# -- tactics -------------------------------------------------------------------------------
@pytest.mark.parametrize("moves, expected", [("A1 B1 A2 B2", "A3"), ("B2 A1 C3 A3", "A2"), ("C1 B2 C2 A2", "C3")])
def test_takes_the_immediate_win(ttt3, moves, expected):
    for seed in range(5):
        result = mcts(ttt3, play_text(ttt3, moves), iterations=50, seed=seed)
        assert result.best_moves == (expected,)
        assert result.pv[0] == expected


@pytest.mark.parametrize("moves, expected", [("A1 B2 A2", "A3"), ("B2 A1 C2", "A2"), ("A1 B2 C1", "B1")])
def test_blocks_the_opponents_threat(ttt3, moves, expected):
    # Only the block avoids a loss (the exact solver agrees), and MCTS finds it every time.
    exact = solver(ttt3, play_text(ttt3, moves))
    assert expected in exact.best_moves
    for seed in range(5):
        assert mcts(ttt3, play_text(ttt3, moves), iterations=200, seed=seed).best_moves == (expected,)


def test_connect_four_win_and_block(c4):
    # Red has 1, 2, 3 on the bottom row: Red to move wins with 4; Yellow to move must block 4.
    win = play_text(c4, "1 5 2 5 3 1".replace(" ", ""))
    assert mcts(c4, win, iterations=100, seed=0).best_moves == ("4",)
    block = play_text(c4, "15253")
    for seed in range(3):
        assert mcts(c4, block, iterations=300, seed=seed).best_moves == ("4",)


# -- the solver part ------------------------------------------------------------------------
def _random_positions(game, count, seed, min_moves=0):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = game.initial_state()
        for _ in range(rng.randrange(min_moves, game.info.max_plies)):
            if game.outcome(state) is not None:
                break
            state = game.play(state, rng.choice(list(game.legal_moves(state))))
        if game.outcome(state) is None:
            out.append(state)
    return out


def test_proven_values_equal_the_exact_solver(ttt3, registry):
    ttt43 = registry.game("tictactoe").create(size=4, k=3)
    checked = proven = 0
    for game, states in ((ttt3, _random_positions(ttt3, 40, 1)), (ttt43, _random_positions(ttt43, 15, 2, min_moves=5))):
        for i, state in enumerate(states):
            result = mcts(game, state, iterations=400, seed=i)
            exact = alphabeta(game, state)
            exact_moves = {mv.move: mv.score for mv in exact.move_values}
            if result.proven:
                proven += 1
                assert (result.value, result.score, result.winner) == (exact.value, exact.score, exact.winner)
                assert result.best_moves[0] in exact.best_moves
            for mv in result.move_values:
                if isinstance(mv.score, int):  # proven: exact, depth-aware
                    checked += 1
                    assert mv.score == exact_moves[mv.move], (game.render(state), mv)
                    if mv.score:
                        assert mv.plies_to_end == next(e.plies_to_end for e in exact.move_values if e.move == mv.move)
    assert proven >= 20 and checked >= 100


def test_never_plays_a_proven_loss_while_another_move_is_not(registry):
    # Positions where some moves lose by force: whatever the budget, the chosen move
    # is never one the search has proven to lose while some other move is not.
    game = registry.game("tictactoe").create(size=4, k=3)
    seen = 0
    for i, state in enumerate(_random_positions(game, 25, 7, min_moves=3)):
        for budget in (30, 150):
            tree = grow_tree(game, state, Playouts(iterations=budget, seed=i))
            children = tree.root.children
            lost = [ch for ch in children if -ch.lo < 0]  # proven: this move loses
            if lost and len(lost) < len(children):
                seen += 1
                best = choose(tree.root)
                assert best is not None and best not in lost
                assert -best.lo >= 0
    assert seen >= 5


def test_proves_the_empty_board_draw_and_stops(ttt3):
    result = mcts(ttt3, iterations=50_000, seed=1)
    assert result.proven and result.value == "draw" and result.score == 0
    assert result.stats.iterations < 50_000  # stopped as soon as the root was proven
    assert sum(mv.visits or 0 for mv in result.move_values) == result.stats.iterations


def test_result_fields(ttt3):
    result = mcts(ttt3, iterations=300, seed=2)
    assert result.algorithm == "mcts" and not result.proven and result.value == "unknown"
    assert -1 < result.score < 1
    most = max(result.move_values, key=lambda mv: mv.visits or 0)
    assert result.best_moves == (most.move,) and most.best
    assert all(mv.visits is not None for mv in result.move_values)
    assert sum(mv.visits for mv in result.move_values) == 300 == result.stats.iterations
    assert result.stats.nodes == 301 and result.stats.nodes_per_depth[0] == 1
    assert len(result.pv) >= 2 and result.pv[0] == result.best_moves[0]


# -- options --------------------------------------------------------------------------------
def test_same_seed_same_search(c4):
    a = mcts(c4, iterations=400, seed=11)
    b = mcts(c4, iterations=400, seed=11)
    assert a.move_values == b.move_values and a.pv == b.pv and a.stats.nodes == b.stats.nodes


def test_heuristic_playouts(c4):
    leaf = mcts(c4, iterations=300, seed=1, depth=0)
    assert leaf.stats.heuristic_leaves == 300  # every new node scored by evaluate(), no playout
    short = mcts(c4, iterations=300, seed=1, depth=2)
    assert 0 < short.stats.heuristic_leaves <= 300


def test_depth_needs_a_heuristic(registry):
    nim = registry.game("nim").create()
    assert not hasattr(nim, "evaluate")
    with pytest.raises(UnsupportedGameError, match="evaluate"):
        mcts(nim, iterations=10, depth=2)
    assert mcts(nim, iterations=200, seed=0).stats.iterations >= 1  # plain playouts work on any game


def test_time_limit_and_bad_options(ttt3):
    result = mcts(ttt3, time_limit=0.05, seed=0)
    assert result.stats.iterations >= 1
    for bad in ({"iterations": 0}, {"time_limit": 0}, {"exploration": -1}):
        with pytest.raises(ValueError):
            mcts(ttt3, **bad)


# -- command line ---------------------------------------------------------------------------
def test_cli_mcts_json_is_repeatable_and_wrong_flags_are_one_line(gametree_cli):
    args = (
        "solve",
        "tictactoe",
        "--moves",
        "B2",
        "-a",
        "mcts",
        "--iterations",
        "300",
        "--seed",
        "5",
        "--exploration",
        "0.7",
        "--json",
    )
    first, second = gametree_cli(*args), gametree_cli(*args)
    assert first.returncode == 0, first.stderr
    data = json.loads(first.stdout)
    assert data["algorithm"] == "mcts" and data["stats"]["iterations"] <= 300
    assert data["move_values"] == json.loads(second.stdout)["move_values"]
    assert all("visits" in mv and "mean" in mv for mv in data["move_values"])
    for args, flag in (
        (("-a", "solver", "--iterations", "5"), "--iterations"),
        (("-a", "mcts", "--no-cache"), "--no-cache"),
    ):
        out = gametree_cli("solve", "tictactoe", *args)
        assert out.returncode == 2 and flag in out.stderr and "Traceback" not in out.stderr


# -- the tree, for gametree tree ------------------------------------------------------------
def test_captured_tree_has_visits_and_values(ttt3):
    from gametree.tree import capture_mcts as capture

    tree = capture(ttt3, play_text(ttt3, "B2 A1"), iterations=60, seed=4)
    graph = tree.graph
    assert (
        graph.number_of_nodes() == tree.result.stats.nodes and graph.nodes[0]["visits"] == tree.result.stats.iterations
    )
    for node, data in graph.nodes(data=True):
        below = sum(graph.nodes[child]["visits"] for child in graph.successors(node))
        # The iteration that added a node, then one per iteration through a child (the root was never added).
        assert data["visits"] == below + (node != 0)
        assert data["lower"] <= data["value"] <= data["upper"] or not data["proven"]
        if data["proven"]:
            assert data["value"] == data["lower"] == data["upper"]
    assert tree.pv_moves() == list(tree.result.pv)
    assert "visits" in tree.to_dot()


def test_cli_tree_mcts(gametree_cli, tmp_path):
    out = gametree_cli(
        "tree", "tictactoe", "--moves", "B2 A1 C3", "-a", "mcts", "--iterations", "25", "--seed", "2", "-f", "json"
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["graph"]["algorithm"] == "mcts" and data["graph"]["iterations"] <= 25
    assert all("visits" in node for node in data["nodes"])
    too_big = gametree_cli("tree", "tictactoe", "-a", "mcts", "--iterations", "1000", "-f", "json")
    assert too_big.returncode == 1 and "--max-nodes" in too_big.stderr and "Traceback" not in too_big.stderr


def test_cli_mcts_table_does_not_call_unproven_moves_won():
    """mcts proves the root's value (3x3: a draw), not every move's: a move scored by its mean is
    shown as '?', not as a win."""
    from click.testing import CliRunner

    from gametree.cli import cli

    result = CliRunner().invoke(cli, ["solve", "tictactoe", "-a", "mcts", "--seed", "1", "--iterations", "3000"])
    assert result.exit_code == 0, result.output
    rows = [line.split("│")[1:4] for line in result.output.splitlines() if line.startswith("│")]
    assert rows
    for move, score, outcome in rows:
        if "." in score:  # a mean, not a proven score
            assert outcome.strip() == "?", (move, score, outcome)
