"""The textbook game: the tree notation, random trees, and minimax/alpha-beta traced on them.

The oracle is AIMA's own pseudo-code (MAX-VALUE / MIN-VALUE, 4th edition Figure 5.7), written
here over the parsed tree, apart from the engine: its values and its left-to-right expansion
order.  The AIMA Figure 5.2 data and the textbook's expansion orders are in
tests/data/aima_figure_5_2.json with their source.
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gametree.game import CHANCE, GameKind, Stochastic, game_kinds
from gametree.search import search
from gametree_builtins.games.textbook import (
    AIMA_FIGURE_5_2,
    MAX_FILE_BYTES,
    TextbookTree,
    parse_tree,
    random_tree,
    tree_text,
)
from gametree_builtins.games.textbook_notation import (
    CHANCE_NODE,
    LEAF,
    MAX_DEPTH,
    MAX_NODES,
    Tree,
    TreeSyntaxError,
    parse,
)

DATA = json.loads((Path(__file__).parent / "data" / "aima_figure_5_2.json").read_text())


# -- the oracle: AIMA's MAX-VALUE / MIN-VALUE over the tree itself -------------------------------
def oracle_minimax(tree: Tree, node: int = 0) -> Fraction:
    """MAX's value of ``node`` by plain minimax over the tree's own arrays (two players, numbers)."""
    if tree.kinds[node] == LEAF:
        return tree.values[node][0]
    values = [oracle_minimax(tree, c) for c in tree.children[node]]
    return max(values) if tree.kinds[node] == 0 else min(values)


def oracle_alphabeta(tree: Tree) -> tuple[Fraction, list[str]]:
    """AIMA's ALPHA-BETA-SEARCH of the root: MAX's value and the nodes entered, in order."""
    entered: list[str] = []
    inf = Fraction(10**12)

    def value(node: int, alpha: Fraction, beta: Fraction) -> Fraction:
        entered.append(tree.names[node])
        if tree.kinds[node] == LEAF:
            return tree.values[node][0]
        if tree.kinds[node] == 0:  # MAX-VALUE
            v = -inf
            for child in tree.children[node]:
                v = max(v, value(child, alpha, beta))
                if v >= beta:
                    return v
                alpha = max(alpha, v)
            return v
        v = inf  # MIN-VALUE
        for child in tree.children[node]:
            v = min(v, value(child, alpha, beta))
            if v <= alpha:
                return v
            beta = min(beta, v)
        return v

    return value(0, -inf, inf), entered


def all_names(tree: Tree) -> list[str]:
    """Every node depth-first, left to right: the order minimax enters them."""
    order: list[str] = []

    def walk(node: int) -> None:
        order.append(tree.names[node])
        for child in tree.children[node]:
            walk(child)

    walk(0)
    return order


# -- the notation -----------------------------------------------------------------------------
def test_aima_figure_5_2_reads_as_the_book_draws_it():
    game = parse_tree(DATA["tree"])
    tree = game.tree
    assert list(tree.names) == DATA["letters"]
    root = game.initial_state()
    assert [game.format_move(root, m) for m in game.legal_moves(root)] == ["a1", "a2", "a3"]
    b = game.play(root, 0)
    assert game.node_name(b) == "B" and [game.format_move(b, m) for m in game.legal_moves(b)] == ["b1", "b2", "b3"]
    assert game.to_move(root) == 0 and game.to_move(b) == 1
    leaf = game.play(b, game.parse_move(b, "b2"))
    assert game.outcome(leaf).payoffs == (12, -12) and game.outcome(leaf).winner == 0
    info = game.info
    assert (info.players, info.margin, info.zero_sum, info.deterministic) == (2, True, True, True)
    assert info.payoff_bounds == (-14, 14) and info.max_plies == 2
    assert oracle_minimax(tree) == DATA["value"]


def test_labels_name_nodes_and_the_rest_are_lettered_around_them():
    tree = parse("root: max(B: min(1 2) min(C: 3 4))")
    assert tree.names == ("root", "B", "A", "D", "E", "C", "F")
    game = TextbookTree(tree)
    assert game.format_move(0, 1) == "root2" and game.parse_move(0, "root2") == 1 and game.parse_move(0, "1") == 0


def test_numbers_fractions_decimals_and_comments():
    tree = parse("# a comment\nmax(min(-3, 1/2) min(2.25 7)) # end")
    assert [tree.values[n][0] for n in range(len(tree)) if tree.kinds[n] == LEAF] == [
        -3,
        Fraction(1, 2),
        Fraction(9, 4),
        7,
    ]


def test_chance_nodes_make_a_stochastic_game():
    game = parse_tree("max(chance(1/6: min(1 2) 5/6: 3) chance(0.5: 4  0.5: min(5 -6)))")
    assert not game.info.deterministic and game.info.margin
    assert isinstance(game, Stochastic)
    chance = game.play(0, 0)
    assert game.to_move(chance) == CHANCE
    assert game.chance_outcomes(chance) == [(0, Fraction(1, 6)), (1, Fraction(5, 6))]
    assert sum(p for _, p in game.chance_outcomes(game.play(0, 1))) == 1


def test_payoff_vectors_make_a_game_of_more_players():
    game = parse_tree("players(ann bob cy) ann(bob((1,2,3) (3,2,1)) cy((0,0,6) (2,2,2)))")
    info = game.info
    assert info.players == 3 and info.zero_sum and not info.margin
    assert info.player_names == ("ann", "bob", "cy") and info.payoff_bounds == (0, 6)
    assert game.to_move(game.play(0, 1)) == 2
    assert not parse_tree("p1((1,2,3) (0,0,0))").info.zero_sum
    assert parse(tree_text(game)) == game.tree


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ("max(min(3 12 8) min(2 4 6)", "1:27", 'the ")" closing "max" at 1:1'),
        ("max(min(3 x 8))", "1:11", "a value like 3"),
        ("max(min(3 8)))", "1:14", "the end of the tree"),
        ("max(\n  min(3 8)\n  mix(1))", "3:3", "max, min, chance"),
        ("chance(1/2: 1  1/3: 2)", "1:1", "sum to 1, not 5/6"),
        ("chance(1/2 1)", "1:12", '":" after the probability'),
        ("max(1/0 2)", "1:5", "division by 0"),
        ("max(max(1 2) 3)", "1:5", "take turns"),
        ("max(1 (1,2))", "1:7", "a single value"),
        ("p1((1,2,3) (1,2))", "1:12", "3 payoffs"),
        ("3", "1:1", "an inner node at the root"),
        ("max()", "1:5", "at least one child"),
        ("max(A:1 A:2)", "1:9", 'new label: "A"'),
        ("max(1 2) ~", "1:10", 'found "~"'),
    ],
)
def test_parse_errors_say_where_and_what_was_expected(text, where, words):
    with pytest.raises(TreeSyntaxError) as caught:
        parse(text)
    message = str(caught.value)
    assert message.startswith(where + ": expected") and words in message and "\n" not in message


def test_the_input_is_bounded():
    deep = "max(" * (MAX_DEPTH + 2) + "1" + ")" * (MAX_DEPTH + 2)
    with pytest.raises(TreeSyntaxError, match="levels deep"):
        parse(deep)
    wide = "max(" + " ".join(["1"] * (MAX_NODES + 1)) + ")"
    with pytest.raises(TreeSyntaxError, match="nodes"):
        parse(wide)
    with pytest.raises(TreeSyntaxError, match="digits"):
        parse("max(" + "9" * 40 + ")")
    with pytest.raises(ValueError, match="makes"):
        random_tree(depth=20, branching=10, seed=1)


# -- random trees -----------------------------------------------------------------------------
def _values_by_brute_force(tree: Tree, node: int = 0) -> tuple[Fraction, ...]:
    """Each player's payoff at ``node`` (MAX's alone in a tree of numbers), every node visited."""
    kind = tree.kinds[node]
    if kind == LEAF:
        return tree.values[node][: 1 if not tree.vectors else None]
    values = [_values_by_brute_force(tree, child) for child in tree.children[node]]
    if kind == CHANCE_NODE:
        return tuple(
            sum((p * v[i] for p, v in zip(tree.probabilities[node], values)), Fraction(0))
            for i in range(len(values[0]))
        )
    if not tree.vectors:
        return (max if kind == 0 else min)(values)
    return max(values, key=lambda v: v[kind])


@pytest.mark.parametrize("chance, players", [(False, 2), (True, 2), (False, 3), (True, 3)])
def test_an_ordered_random_tree_is_the_same_tree_best_move_first(chance, players):
    for seed in range(8):
        plain = random_tree(depth=4, branching=3, low=-9, high=9, seed=seed, chance=chance, players=players)
        ordered = random_tree(
            depth=4, branching=3, low=-9, high=9, seed=seed, chance=chance, players=players, ordered=True
        )
        tree = ordered.tree
        assert _values_by_brute_force(tree) == _values_by_brute_force(plain.tree)
        assert sorted(map(str, tree.values)) == sorted(map(str, plain.tree.values))  # the same leaves, moved
        for node, kind in enumerate(tree.kinds):
            if kind < 0:
                continue
            values = [_values_by_brute_force(tree, child) for child in tree.children[node]]
            mine = [v[kind] if tree.vectors else v[0] * (1 if kind == 0 else -1) for v in values]
            assert mine == sorted(mine, reverse=True), (seed, node, values)  # the mover's best first
        assert ordered.options()["ordered"] is True and "ordered" not in plain.options()


def test_an_ordered_random_tree_is_made_again_from_its_options(registry):
    game = random_tree(depth=3, branching=2, seed=5, chance=True, ordered=True)
    again = registry.game("textbook").create(**game.options())
    assert tree_text(again) == tree_text(game) != tree_text(random_tree(depth=3, branching=2, seed=5, chance=True))
    with pytest.raises(ValueError, match="--ordered makes a random tree: add --random"):
        registry.game("textbook").create(ordered=True)


def test_random_trees_are_reproducible_by_seed_and_read_back():
    one = random_tree(depth=3, branching=2, low=-5, high=5, seed=7)
    assert tree_text(one) == tree_text(random_tree(depth=3, branching=2, low=-5, high=5, seed=7))
    assert tree_text(one) != tree_text(random_tree(depth=3, branching=2, low=-5, high=5, seed=8))
    assert parse(tree_text(one)) == one.tree
    assert len(one.tree) == 15 and all(-5 <= v[0] <= 5 for v in one.tree.values if v)
    assert one.options()["tree_seed"] == 7
    chance = random_tree(depth=4, branching=2, seed=3, chance=True)
    assert [chance.tree.kinds[n] for n in (0, 1, 3, 7)] == [0, CHANCE_NODE, 1, CHANCE_NODE]
    three = random_tree(depth=2, branching=2, seed=3, players=3)
    assert three.info.players == 3 and three.tree.kinds[:3] == (0, 1, 1)


# -- searches traced ------------------------------------------------------------------------
def test_aima_figure_5_2_minimax_visits_every_node():
    game = parse_tree(DATA["tree"])
    result = search("minimax", game, trace=True)
    assert result.score == DATA["value"] and result.best_moves == tuple(DATA["best_moves"])
    assert list(result.expanded) == DATA["minimax_expanded"] == all_names(game.tree)
    assert result.stats.nodes == len(game.tree)


def test_aima_figure_5_2_alphabeta_leaves_c2_and_c3_unexamined():
    game = parse_tree(DATA["tree"])
    result = search("alphabeta", game, trace=True)
    assert result.score == DATA["value"] and result.best_moves == ("a1",)
    assert list(result.expanded) == DATA["alphabeta_expanded"]
    c = game.play(0, game.parse_move(0, "a2"))
    unexamined = {game.node_name(game.play(c, game.parse_move(c, move))) for move in ("c2", "c3")}
    assert unexamined == {"I", "J"} and not unexamined & set(result.expanded)
    assert list(result.expanded) == oracle_alphabeta(game.tree)[1]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    depth=st.integers(1, 4),
    branching=st.integers(1, 3),
    low=st.integers(-9, 0),
)
def test_random_trees_minimax_equals_alphabeta_equals_the_oracle(seed, depth, branching, low):
    game = random_tree(depth=depth, branching=branching, low=low, high=low + 12, seed=seed)
    value, order = oracle_alphabeta(game.tree)
    assert value == oracle_minimax(game.tree)
    sign = 1 if game.to_move(0) == 0 else -1
    plain = search("minimax", game, trace=True)
    pruned = search("alphabeta", game, trace=True)
    assert plain.score == pruned.score == search("solver", game).score == sign * value
    assert list(plain.expanded) == all_names(game.tree)
    assert list(pruned.expanded) == order


# -- the command line -------------------------------------------------------------------------
def test_cli_json_lists_the_expanded_nodes(gametree_cli):
    done = gametree_cli("solve", "textbook", "--tree", DATA["tree"], "-a", "alphabeta", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["score"] == 3 and data["best_moves"] == ["a1"]
    assert data["expanded"] == DATA["alphabeta_expanded"]


def test_cli_all_algorithms_side_by_side(gametree_cli):
    done = gametree_cli("solve", "textbook", "-a", "all", "--json")
    assert done.returncode == 0, done.stderr
    results = {r["algorithm"]: r for r in json.loads(done.stdout)["results"]}
    assert results["minimax"]["expanded"] == DATA["minimax_expanded"]
    assert results["alphabeta"]["expanded"] == DATA["alphabeta_expanded"]


def test_cli_errors_are_one_line(gametree_cli, tmp_path):
    done = gametree_cli("solve", "textbook", "--tree", "max(min(3 12 8)")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "1:16: expected" in done.stderr
    binary = tmp_path / "tree.bin"
    binary.write_bytes(b"max(\0)")
    huge = tmp_path / "huge.txt"
    huge.write_text("max(" + "1 " * MAX_FILE_BYTES + ")")
    for path, words in ((binary, "binary"), (huge, "larger than"), (tmp_path / "none.txt", "cannot read")):
        done = gametree_cli("solve", "textbook", "--file", os.fspath(path))
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and words in done.stderr, done.stderr
    done = gametree_cli("solve", "textbook", "--tree-depth", "3")
    assert done.returncode == 2 and "add --random" in done.stderr


def test_cli_file_errors_name_the_file_line_and_column(gametree_cli, tmp_path):
    path = tmp_path / "fig.txt"
    path.write_text("max(\n  min(3 12 8)\n  min(2 4 6\n")
    done = gametree_cli("solve", "textbook", "--file", os.fspath(path))
    assert done.returncode == 2 and f"{path}:4:1: expected" in done.stderr


def test_game_kinds_follow_the_content():
    assert game_kinds(parse_tree(AIMA_FIGURE_5_2).info) == {GameKind.MARGIN}
    assert game_kinds(random_tree(depth=2, branching=2, seed=1, chance=True).info) == {GameKind.MARGIN, GameKind.CHANCE}
    assert game_kinds(random_tree(depth=2, branching=2, seed=1, players=3).info) == {
        GameKind.PLAYERS,
        GameKind.GENERAL_SUM,
    }


def test_a_game_without_node_names_is_traced_by_its_moves(ttt3):
    plain = search("minimax", ttt3, moves="B2 A1 C3 A3 A2", trace=True)
    assert plain.expanded[0] == "" and len(plain.expanded) == plain.stats.nodes == len(set(plain.expanded))
    assert plain.expanded[1] == plain.move_values[0].move  # the first child, then its subtree
    pruned = search("alphabeta", ttt3, moves="B2 A1 C3 A3 A2", trace=True)
    untraced = search("alphabeta", ttt3, moves="B2 A1 C3 A3 A2")
    assert untraced.expanded is None and pruned.score == untraced.score == plain.score
    assert len(pruned.expanded) == pruned.stats.nodes < plain.stats.nodes
    assert set(pruned.expanded) < set(plain.expanded)
    with pytest.raises(ValueError, match="one search"):
        search("alphabeta", ttt3, trace=True, time_limit=1.0)


def test_cli_trace_flag_for_any_game(gametree_cli):
    moves = ("--moves", "B2 A1 C3 A3 A2 C1")
    done = gametree_cli("solve", "tictactoe", *moves, "-a", "minimax", "--trace", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["expanded"][0] == "" and len(data["expanded"]) == data["stats"]["nodes"]
    done = gametree_cli("solve", "tictactoe", *moves, "-a", "all", "--trace", "--json")
    assert done.returncode == 0, done.stderr
    results = {r["algorithm"]: r for r in json.loads(done.stdout)["results"]}
    assert results["solver"]["expanded"] is None and results["minimax"]["expanded"] == data["expanded"]
    assert len({r["score"] for r in results.values()}) == 1
    done = gametree_cli("solve", "tictactoe", *moves, "-a", "solver", "--trace")
    assert done.returncode == 2 and "--trace does not apply to --algorithm solver" in done.stderr
    done = gametree_cli("solve", "tictactoe", *moves, "-a", "alphabeta")
    assert done.returncode == 0 and "expanded" not in done.stdout


def test_cli_show_prints_an_exercise_that_reads_back(gametree_cli, tmp_path):
    args = ("--random", "--tree-depth", "3", "--branching", "2", "--tree-seed", "7")
    done = gametree_cli("show", "textbook", *args)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "A: " + tree_text(random_tree(depth=3, branching=2, seed=7))
    path = tmp_path / "exercise.txt"
    path.write_text(done.stdout)
    again = gametree_cli("show", "textbook", "--file", os.fspath(path), "--json")
    assert again.returncode == 0, again.stderr
    data = json.loads(again.stdout)
    assert data["position"] == done.stdout.strip() and data["legal_moves"] == ["a1", "a2"] and data["to_move"] == 0
    done = gametree_cli("show", "textbook", "--moves", "a9")
    assert done.returncode == 1 and "the moves of node A are a1 to a3" in done.stderr


def test_cli_one_source_of_the_tree(gametree_cli):
    done = gametree_cli("show", "textbook", "--tree", "max(1 2)", "--random")
    assert done.returncode == 2 and "not from --tree and --random" in done.stderr
    done = gametree_cli("show", "textbook", "--tree", "")
    assert done.returncode == 2 and "1:1: expected a node" in done.stderr


def test_the_drawing_shows_node_letters_leaf_values_and_the_textbook_cutoff(gametree_cli):
    done = gametree_cli("tree", "textbook", "--tree", DATA["tree"], "-f", "dot")
    assert done.returncode == 0, done.stderr
    dot = done.stdout
    for leaf in ("E: 3", "F: 12", "G: 8", "H: 2", "K: 14", "L: 5", "M: 2"):
        assert leaf in dot
    assert "I: 4" not in dot and "J: 6" not in dot and "pruned: c2, c3" in dot
    page = gametree_cli("tree", "textbook", "-f", "html")
    assert page.returncode == 0, page.stderr
    assert "E: 3" in page.stdout and "K: 14" in page.stdout and "I: 4" not in page.stdout  # the explorer's data
    from gametree.tree import capture

    tree = capture(parse_tree(DATA["tree"]), all_moves=False, cache=False, bounds=False)
    visited = [data["name"] for _, data in sorted(tree.graph.nodes(data=True)) if not data["pruned"]]
    assert visited == DATA["alphabeta_expanded"]


def test_fractional_leaves_are_searched_by_their_value():
    game = parse_tree("max(min(1/2 3) min(2.5 7/3) min(-1/3 0.25))")
    value = oracle_minimax(game.tree)
    assert value == Fraction(7, 3)
    for algorithm in ("minimax", "alphabeta", "solver"):
        result = search(algorithm, game)
        assert result.score == float(value) and result.best_moves == ("a2",), algorithm
    expanded = search("alphabeta", game, trace=True).expanded
    assert list(expanded) == oracle_alphabeta(game.tree)[1] == ["A", "B", "E", "F", "C", "G", "H", "D", "I"]
