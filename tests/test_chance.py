"""Expectiminimax, Star1 and Star2 (gametree.search.chance) against brute force, and the dice game.

The random chance trees are built here (a small tree game: MAX, MIN and chance
nodes with exact probabilities and leaf payoffs), and every value is checked
against a brute-force expectiminimax written on the tree itself, not through the
game protocol; the dice game's value against a dynamic programme over the
totals written from the rules.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from functools import cache
from typing import Any, NamedTuple

import pytest

from gametree import GameInfo, Outcome, UnsupportedGameError, load
from gametree.game import CHANCE, payoffs
from gametree.search import search
from gametree.search.chance import expectiminimax, star1, star2
from gametree_builtins.games.textbook import random_tree as textbook_tree

# -- a random chance tree as a game ------------------------------------------------------------
LOW, HIGH = -10, 10


class Node(NamedTuple):
    """A tree node: ``kind`` is 0 (MAX), 1 (MIN), CHANCE or None (a leaf with ``value``)."""

    kind: int | None
    children: tuple[Node, ...] = ()
    probs: tuple[Fraction, ...] = ()
    value: int = 0


def chance_tree(rng: random.Random, depth: int, branching: int, kinds: tuple[int, ...]) -> Node:
    """A tree whose levels take turns as ``kinds`` says; 1 to ``branching`` children a node."""
    if depth == 0:
        return Node(None, value=rng.randint(LOW, HIGH))
    kind = kinds[0]
    rest = kinds[1:] + kinds[:1]
    width = rng.randint(1, branching) if kind != CHANCE else rng.randint(2, branching)
    children = tuple(chance_tree(rng, depth - 1, branching, rest) for _ in range(width))
    if kind != CHANCE:
        return Node(kind, children)
    weights = [rng.randint(1, 4) for _ in children]
    probs = tuple(Fraction(w, sum(weights)) for w in weights)
    return Node(CHANCE, children, probs)


def brute(node: Node) -> Fraction:
    """Expectiminimax on the tree itself: MAX's payoff."""
    if node.kind is None:
        return Fraction(node.value)
    values = [brute(child) for child in node.children]
    if node.kind == CHANCE:
        return sum((p * v for p, v in zip(node.probs, values)), start=Fraction(0))
    return max(values) if node.kind == 0 else min(values)


def size(node: Node) -> int:
    return 1 + sum(size(child) for child in node.children)


class TreeGame:
    """A chance tree as a two-player zero-sum margin game: a state is the path of child indices."""

    def __init__(self, root: Node, bounds: tuple[int, int] | None = (LOW, HIGH)) -> None:
        self.root = root
        self.info = GameInfo(
            max_plies=64, deterministic=False, margin=True, payoff_bounds=bounds, player_names=("max", "min")
        )

    def node(self, state: tuple[int, ...]) -> Node:
        node = self.root
        for i in state:
            node = node.children[i]
        return node

    def initial_state(self) -> tuple[int, ...]:
        return ()

    def to_move(self, state: tuple[int, ...]) -> int:
        kind = self.node(state).kind
        return 0 if kind is None else kind

    def ply(self, state: tuple[int, ...]) -> int:
        return len(state)

    def legal_moves(self, state: tuple[int, ...]) -> list[int]:
        return list(range(len(self.node(state).children)))

    def chance_outcomes(self, state: tuple[int, ...]) -> list[tuple[int, Fraction]]:
        return list(enumerate(self.node(state).probs))

    def play(self, state: tuple[int, ...], move: int) -> tuple[int, ...]:
        return (*state, move)

    def outcome(self, state: tuple[int, ...]) -> Outcome | None:
        node = self.node(state)
        if node.kind is not None:
            return None
        v = node.value
        return Outcome(0 if v > 0 else 1 if v < 0 else None, (v, -v))

    def key(self, state: tuple[int, ...]) -> tuple[int, ...]:
        return state

    def parse_move(self, state: tuple[int, ...], text: str) -> int:
        return int(text)

    def format_move(self, state: tuple[int, ...], move: int) -> str:
        return str(move)

    def render(self, state: tuple[int, ...]) -> str:
        return repr(state)


KINDS = ((0, CHANCE, 1, CHANCE), (0, 1, CHANCE), (CHANCE, 0, CHANCE, 1))


def trees(count: int, seed: int = 0) -> list[Node]:
    rng = random.Random(seed)
    return [chance_tree(rng, rng.randint(1, 5), 3, KINDS[i % len(KINDS)]) for i in range(count)]


def check_trees(count: int) -> tuple[float, float, float]:
    """Star1 and Star2 give exactly expectiminimax's value (brute force's), Star1 enters no more
    nodes; the mean node counts of the three, each searching the root as one node."""
    totals = [0, 0, 0]
    for tree in trees(count):
        game: Any = TreeGame(tree)
        truth = brute(tree)
        results = [f(game, cache=False, all_moves=False, pv=False) for f in (expectiminimax, star1, star2)]
        for result in results:
            # the root's value for its side to move (MAX's at a chance node)
            assert result.exact == (-truth if game.to_move(()) == 1 else truth), (tree, result.algorithm)
        assert results[0].stats.nodes == size(tree)
        assert results[1].stats.nodes <= results[0].stats.nodes
        for i, result in enumerate(results):
            totals[i] += result.stats.nodes
    return totals[0] / count, totals[1] / count, totals[2] / count


def test_expectiminimax_equals_brute_force_and_scores_every_root_move() -> None:
    for tree in trees(60, seed=1):
        game: Any = TreeGame(tree)
        result = expectiminimax(game, cache=False)
        sign = -1 if game.to_move(()) == 1 else 1
        assert result.exact == sign * brute(tree)
        for mv, child in zip(result.move_values, tree.children):
            # each root move's value for the side that plays it (MAX's at a chance root)
            assert mv.exact == sign * brute(child)
        if tree.kind != CHANCE:
            assert result.best_moves == tuple(mv.move for mv in result.move_values if mv.exact == result.exact)


def test_star1_and_star2_equal_expectiminimax_on_random_chance_trees_of_three_patterns() -> None:
    means = check_trees(300)
    assert means[1] < means[0]  # Star1 prunes something on average


def game_brute(game: Any, state: Any) -> Fraction:
    """Expectiminimax through the game protocol, written out here: MAX's payoff at ``state``."""
    out = game.outcome(state)
    if out is not None:
        return Fraction(payoffs(game, out)[0])
    values = [game_brute(game, game.play(state, move)) for move in game.legal_moves(state)]
    mover = game.to_move(state)
    if mover == CHANCE:
        probs = [p for _, p in game.chance_outcomes(state)]
        return sum((p * v for p, v in zip(probs, values)), start=Fraction(0))
    return max(values) if mover == 0 else min(values)


def textbook_means(count: int) -> tuple[float, float, float]:
    """The issue's acceptance on the textbook game's random chance trees (seeds 0 to ``count - 1``):
    Star1 and Star2 give exactly expectiminimax's value, brute force's; Star1 enters no more nodes
    than expectiminimax (and none it would not); the mean node counts of the three."""
    totals = [0, 0, 0]
    for seed in range(count):
        rng = random.Random(seed)
        game: Any = textbook_tree(
            depth=rng.randint(1, 4), branching=rng.randint(1, 3), low=-10, high=10, seed=seed, chance=True
        )
        truth = game_brute(game, game.initial_state())
        results = [f(game, cache=False, all_moves=False, pv=False, trace=True) for f in (expectiminimax, star1, star2)]
        for result in results:
            assert result.exact == truth, (seed, result.algorithm)
        plain, one, _ = results
        assert one.stats.nodes <= plain.stats.nodes, seed
        assert set(one.expanded or ()) <= set(plain.expanded or ())
        for i, result in enumerate(results):
            totals[i] += result.stats.nodes
    return totals[0] / count, totals[1] / count, totals[2] / count


def test_star1_and_star2_equal_expectiminimax_on_1000_random_textbook_chance_trees() -> None:
    """The issue's acceptance: 1,000 seeded random chance trees of the textbook game (a few seconds)."""
    means = textbook_means(1000)
    assert means[1] < means[0]  # Star1 prunes something on average


def test_a_textbook_chance_tree_by_name() -> None:
    game: Any = load().game("textbook").create(tree="max(chance(1/2: 3 1/2: 5) chance(3/4: -10 1/4: 10))")
    assert expectiminimax(game, trace=True, cache=False, all_moves=False).expanded == (
        "A",
        "B",
        "D",
        "E",
        "C",
        "F",
        "G",
    )
    cut = star1(game, trace=True, cache=False, all_moves=False)
    assert cut.exact == 4 and cut.best_moves == ("a1",) and cut.expanded == ("A", "B", "D", "E", "C", "F")


@pytest.mark.parametrize("cache", [False, True])
@pytest.mark.parametrize("all_moves", [False, True])
def test_the_three_agree_with_and_without_the_memo_and_root_moves(cache: bool, all_moves: bool) -> None:
    for tree in trees(40, seed=2):
        game: Any = TreeGame(tree)
        results = [f(game, cache=cache, all_moves=all_moves) for f in (expectiminimax, star1, star2)]
        assert len({r.exact for r in results}) == 1
        assert len({tuple(mv.exact for mv in r.move_values) for r in results}) == 1 or not all_moves
        assert len({r.best_moves[:1] for r in results}) == 1 or tree.kind == CHANCE


def test_a_hand_worked_tree_and_its_expansion_order() -> None:
    # MAX chooses between two chance nodes: (1/2: 3, 1/2: 5) = 4 and (1/4: 10, 3/4: -10) = -5.
    half, quarter = Fraction(1, 2), Fraction(1, 4)
    left = Node(CHANCE, (Node(None, value=3), Node(None, value=5)), (half, half))
    right = Node(CHANCE, (Node(None, value=-10), Node(None, value=10)), (1 - quarter, quarter))
    game: Any = TreeGame(Node(0, (left, right)))
    plain = expectiminimax(game, trace=True, cache=False)
    assert plain.exact == 4 and plain.best_moves == ("0",)
    assert plain.expanded == ("", "0", "0 0", "0 1", "1", "1 0", "1 1")
    # Star1, the root searched as a node: after the left chance node (4), the right one's first
    # outcome -10 with probability 3/4 bounds it by 3/4 * -10 + 1/4 * 10 = -5 <= 4: cut.
    pruned = star1(game, trace=True, cache=False, all_moves=False)
    assert pruned.exact == 4
    assert pruned.expanded == ("", "0", "0 0", "0 1", "1", "1 0")
    assert pruned.stats.cutoffs >= 1
    assert len(pruned.expanded) == pruned.stats.nodes


def test_star2_probing_cuts_a_chance_node_before_searching_a_child_fully() -> None:
    # MAX already has 0; a chance node over two MIN nodes whose first move is -2: the probes alone
    # bound the chance node by -2 <= 0, where Star1 searches the first MIN node in full (-8) first.
    def low_min() -> Node:
        return Node(1, (Node(None, value=-2), Node(None, value=-8)))

    half = Fraction(1, 2)
    game: Any = TreeGame(Node(0, (Node(None, value=0), Node(CHANCE, (low_min(), low_min()), (half, half)))))
    one = star1(game, trace=True, cache=False, all_moves=False)
    two = star2(game, trace=True, cache=False, all_moves=False)
    assert one.exact == two.exact == 0
    assert one.expanded == ("", "0", "1", "1 0", "1 0 0", "1 0 1", "1 1", "1 1 0")
    assert two.expanded == ("", "0", "1", "1 0", "1 0 0", "1 1", "1 1 0")
    assert two.stats.nodes < one.stats.nodes


def test_star_searches_need_payoff_bounds_and_refuse_other_kinds() -> None:
    tree = Node(0, (Node(None, value=1),))
    unbounded: Any = TreeGame(tree, bounds=None)
    assert expectiminimax(unbounded).exact == 1
    with pytest.raises(UnsupportedGameError, match=r"^star1 needs payoff bounds.*GameInfo.payoff_bounds"):
        star1(unbounded)
    with pytest.raises(UnsupportedGameError, match="star2 needs payoff bounds"):
        search("star2", unbounded)

    class ThreePlayers(TreeGame):
        def __init__(self) -> None:
            super().__init__(tree)
            self.info = GameInfo(max_plies=4, players=3, zero_sum=False, player_names=("a", "b", "c"))

    with pytest.raises(UnsupportedGameError, match="more than two players"):
        search("expectiminimax", ThreePlayers())


def test_a_game_without_chance_keeps_the_depth_aware_scores_of_minimax() -> None:
    game = load().game("tictactoe").create(size=3)
    for moves in ("A1 B1 A2 B2", "A1 B2", "B2 A1 C3 A3 A2 C1", "A1 B1 A2"):
        plain = search("minimax", game, moves=moves)
        for name in ("expectiminimax", "star1", "star2"):
            result = search(name, game, moves=moves)
            assert result.score == result.exact == plain.score, (moves, name)
            assert result.best_moves == plain.best_moves and result.value == plain.value
            assert [mv.score for mv in result.move_values] == [mv.score for mv in plain.move_values]


# -- the dice game -----------------------------------------------------------------------------
def dice_value(target: int, sides: int) -> Fraction:
    """The first player's expected payoff in Dice 21, from the rules alone: the second player,
    knowing the first's total, rolls while rolling is worth more than stopping."""
    p = Fraction(1, sides)

    @cache
    def second(total: int, first: int) -> Fraction:  # the second player's expected payoff at a decision
        stop = Fraction((total > first) - (total < first))
        roll = sum(
            (p * (second(total + f, first) if total + f <= target else -1) for f in range(1, sides + 1)),
            start=Fraction(0),
        )
        return max(stop, roll)

    @cache
    def first(total: int) -> Fraction:
        stop = -second(0, total)
        roll = sum(
            (p * (first(total + f) if total + f <= target else -1) for f in range(1, sides + 1)), start=Fraction(0)
        )
        return max(stop, roll)

    return first(0)


@pytest.mark.parametrize(("target", "sides"), [(1, 2), (5, 2), (6, 3), (10, 6), (21, 6)])
def test_dice_value_equals_an_independent_computation(target: int, sides: int) -> None:
    game = load().game("dice").create(target=target, sides=sides)
    expected = dice_value(target, sides)
    if target > 10:  # (the default game: expectiminimax with its memo is the quickest, about 1 s)
        assert search("expectiminimax", game).exact == expected
        return
    assert search("star1", game).exact == search("star2", game).exact == expected
    if target <= 6:
        assert expectiminimax(game, cache=False).exact == expected


def test_dice_rules_text_and_lines() -> None:
    game = load().game("dice").create(target=6, sides=3)
    from gametree import play_text

    state = play_text(game, "roll rolled 3 roll 2 stop roll rolled 3")
    assert state.totals == (5, 3) and game.to_move(state) == 1
    assert game.format_move(state, 2) == "rolled 2"
    bust = play_text(game, "roll 3 roll 3 roll rolled 1")
    assert game.outcome(bust) == Outcome(1)
    result = star2(game, moves="roll rolled 3")
    assert result.pv == tuple(result.pv[:1]) and result.pv[0] in ("roll", "stop")  # the line stops at the die
    at_chance = star2(game, moves="roll")
    assert at_chance.to_move == CHANCE and at_chance.best_moves == () and at_chance.pv == ()
    assert at_chance.exact == sum(Fraction(1, 3) * mv.exact for mv in at_chance.move_values if mv.exact is not None)
    assert "rolling" in game.render(play_text(game, "roll"))


def test_dice_depth_and_time_limits() -> None:
    game = load().game("dice").create(target=12, sides=6)
    shallow = star1(game, depth=2)
    assert not shallow.proven and shallow.value == "unknown" and shallow.stats.heuristic_leaves > 0
    assert shallow.exact is None and shallow.best_moves == ("roll",)
    small = load().game("dice").create(target=6, sides=3)
    timed = star2(small, time_limit=30)  # deepens until a search meets no depth limit: exact
    assert timed.proven and timed.exact == dice_value(6, 3)
    cut = star2(load().game("dice").create(target=60, sides=6), time_limit=0.2)
    assert not cut.proven and cut.depth is not None and cut.best_moves == ("roll",)
    with pytest.raises(ValueError, match="depth must be at least 1"):
        star1(game, depth=0)


def test_solve_dice_on_the_command_line(gametree_cli: Any) -> None:
    done = gametree_cli("solve", "dice", "--target", "6", "--sides", "3", "-a", "star2", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert Fraction(data["exact"]) == dice_value(6, 3) and data["best_moves"] == ["roll"]
    shown = gametree_cli("solve", "dice", "--target", "6", "--sides", "3", "-a", "expectiminimax")
    assert shown.returncode == 0 and "expected payoff" in shown.stdout
    # Without -a, the default (the solver) cannot: the first exact algorithm that can solves it.
    default = gametree_cli("solve", "dice", "--target", "6", "--sides", "3", "--json")
    assert default.returncode == 0, default.stderr
    data = json.loads(default.stdout)
    assert data["algorithm"] == "expectiminimax" and Fraction(data["exact"]) == dice_value(6, 3)


def test_solve_refuses_an_algorithm_without_chance_and_names_those_with(gametree_cli: Any) -> None:
    done = gametree_cli("solve", "dice", "-a", "alphabeta")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "alphabeta cannot search" in line and "chance nodes" in line
    assert "use -a expectiminimax, mcts, star1, star2" in line


def test_the_search_players_play_dice_by_expected_payoff() -> None:
    from gametree import play_text

    registry = load()
    game = registry.game("dice").create(target=6, sides=3)
    at_six = play_text(game, "roll 3 roll 3")  # rolling again busts for sure
    behind = play_text(game, "roll 3 roll 3 stop roll 2 roll 3")  # 5 against 6: stopping loses
    for name in ("medium", "perfect"):
        player: Any = registry.players[name]()
        assert player.choose(game, at_six, random.Random(1)) == "stop"
        assert player.choose(game, behind, random.Random(1)) == "roll"


def test_a_time_limit_without_a_heuristic_reports_the_root_moves_it_scored() -> None:
    rng = random.Random(7)
    tree = Node(0, tuple(chance_tree(rng, 7, 3, (CHANCE, 1, CHANCE, 0)) for _ in range(3)))
    game: Any = TreeGame(tree)
    cut = star1(game, time_limit=1e-6, cache=False)  # the clock is read every 1,024 nodes
    assert cut.cut_short == "time" and not cut.proven and cut.value == "unknown" and cut.exact is None
    assert cut.unscored and len(cut.unscored) + len(cut.move_values) == 3
    for mv in cut.move_values:  # what was scored is right
        assert mv.score == pytest.approx(float(brute(tree.children[int(mv.move)])))
    whole = star1(game, time_limit=60, cache=False)
    assert whole.cut_short is None and whole.exact == brute(tree)


def test_a_margin_game_without_chance_gets_its_final_margin() -> None:
    from test_margins import Coins
    from test_margins import brute as coins_brute

    rng = random.Random(3)
    for _ in range(10):
        coins = tuple(rng.randint(1, 9) for _ in range(rng.randint(1, 7)))
        game: Any = Coins(coins)
        for name in ("expectiminimax", "star1", "star2"):
            result = search(name, game)
            assert result.exact == result.score == result.margin == coins_brute(coins), (coins, name)


def test_the_trace_lists_every_node_entered_once_each_time() -> None:
    for tree in trees(30, seed=4):
        game: Any = TreeGame(tree)
        plain = expectiminimax(game, trace=True, cache=False)
        assert plain.expanded is not None and len(plain.expanded) == plain.stats.nodes == size(tree)
        assert len(set(plain.expanded)) == size(tree)  # each node once, named by its path
        for search_ in (star1, star2):
            result = search_(game, trace=True, cache=False, all_moves=False)
            assert result.expanded is not None and len(result.expanded) == result.stats.nodes
            assert set(result.expanded) <= set(plain.expanded)


def test_a_tree_whose_payoffs_are_all_equal() -> None:
    # payoff_bounds (0, 0): no window is left between them; every search still gives 0.
    game: Any = load().game("textbook").create(tree="max(chance(1: min(0)) 0)")
    for name in ("expectiminimax", "star1", "star2"):
        for all_moves in (False, True):
            assert search(name, game, all_moves=all_moves, cache=False).exact == 0
