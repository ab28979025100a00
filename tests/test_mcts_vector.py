"""MCTS on games with chance nodes and with three players (gametree.search.mcts_vector): the right
move on small cases whose answer is worked out by hand (and by expectiminimax)."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest
from test_chance import Node, TreeGame

from gametree import GameInfo, Outcome, UnsupportedGameError, load, play_text
from gametree.game import CHANCE
from gametree.search import mcts, search
from gametree.search.chance import expectiminimax
from gametree.search.montecarlo import MCTSPlayer


def leaf(v: int) -> Node:
    return Node(None, value=v)


def test_mcts_weighs_chance_outcomes_by_their_probabilities() -> None:
    # a: 3/4 of +10, 1/4 of -10 (worth +5); b: a sure +4; c: 1/4 of +10, 3/4 of -10 (-5).
    q = Fraction(1, 4)
    a = Node(CHANCE, (leaf(10), leaf(-10)), (3 * q, q))
    b = leaf(4)
    c = Node(CHANCE, (leaf(10), leaf(-10)), (q, 3 * q))
    game: Any = TreeGame(Node(0, (b, a, c)))
    assert expectiminimax(game).best_moves == ("1",)
    result = mcts(game, iterations=3000, seed=3)
    assert result.best_moves == ("1",) and not result.proven
    means = {mv.move: mv.mean for mv in result.move_values}
    assert means["1"] == pytest.approx(5, abs=1.5) and means["0"] == 4
    assert result.pv == ("1",)  # the line stops at the chance node


def test_mcts_at_a_chance_node_reports_the_outcomes() -> None:
    game: Any = TreeGame(Node(CHANCE, (leaf(2), leaf(-4)), (Fraction(1, 2), Fraction(1, 2))))
    result = search("mcts", game, iterations=400, seed=1)
    assert result.to_move == CHANCE and result.best_moves == () and result.pv == ()
    assert sum(mv.visits or 0 for mv in result.move_values) == 400  # each iteration through one outcome
    assert result.score == pytest.approx(-1, abs=0.6)


class ThreeGame:
    """A tree of three players: ``(player, children)`` inner nodes, payoff triples at the leaves."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.info = GameInfo(max_plies=8, players=3, zero_sum=False, player_names=("a", "b", "c"))

    def node(self, state: tuple[int, ...]) -> Any:
        node = self.root
        for i in state:
            node = node[1][i]
        return node

    def initial_state(self) -> tuple[int, ...]:
        return ()

    def to_move(self, state: tuple[int, ...]) -> int:
        node = self.node(state)
        return int(node[0]) if isinstance(node[1], tuple) else 0

    def ply(self, state: tuple[int, ...]) -> int:
        return len(state)

    def legal_moves(self, state: tuple[int, ...]) -> list[int]:
        node = self.node(state)
        return list(range(len(node[1]))) if isinstance(node[1], tuple) else []

    def play(self, state: tuple[int, ...], move: int) -> tuple[int, ...]:
        return (*state, move)

    def outcome(self, state: tuple[int, ...]) -> Outcome | None:
        node = self.node(state)
        if isinstance(node[1], tuple):
            return None
        best = max(node)
        return Outcome(node.index(best), tuple(node))

    def key(self, state: tuple[int, ...]) -> tuple[int, ...]:
        return state

    def parse_move(self, state: tuple[int, ...], text: str) -> int:
        return int(text)

    def format_move(self, state: tuple[int, ...], move: int) -> str:
        return str(move)

    def render(self, state: tuple[int, ...]) -> str:
        return repr(state)


def test_mcts_with_three_players_expects_each_to_maximise_their_own_payoff() -> None:
    # Player a: move 0 lets b choose between (3, 1, 0) and (0, 2, 0): b takes the second, a gets 0.
    # Move 1 lets c choose between (1, 0, 2) and (2, 0, 1): c takes the first, a gets 1.  Best: 1.
    tree = (0, ((1, ((3, 1, 0), (0, 2, 0))), (2, ((1, 0, 2), (2, 0, 1)))))
    game: Any = ThreeGame(tree)
    result = mcts(game, iterations=2000, seed=5)
    assert result.best_moves == ("1",)
    assert result.pv == ("1", "0")
    assert result.payoffs is not None and result.payoffs == pytest.approx((1, 0, 2), abs=0.3)
    by_move = {mv.move: mv for mv in result.move_values}
    assert by_move["0"].payoffs is not None and by_move["0"].payoffs[1] == pytest.approx(2, abs=0.4)
    player = MCTSPlayer(iterations=500)
    assert player.choose(game, (), random.Random(1)) == 1
    assert player.choose(game, (1,), random.Random(1)) == 0  # c takes its own 2


def test_mcts_on_the_dice_game_stops_and_rolls_when_it_must() -> None:
    game = load().game("dice").create(target=6, sides=3)
    at_six = play_text(game, "roll 3 roll 3")  # rolling again busts for sure
    assert mcts(game, at_six, iterations=300, seed=2).best_moves == ("stop",)
    behind = play_text(game, "roll 3 roll 3 stop roll 2 roll 3")  # 5 against 6: stopping loses
    assert mcts(game, behind, iterations=300, seed=2).best_moves == ("roll",)
    assert MCTSPlayer(iterations=300).choose(game, behind, random.Random(4)) == "roll"
    start = mcts(game, iterations=2000, seed=1)
    assert start.best_moves == ("roll",)


def test_mcts_still_refuses_what_it_cannot_search() -> None:
    class Loops(TreeGame):
        def __init__(self) -> None:
            super().__init__(Node(0, (leaf(1),)))
            self.info = GameInfo(max_plies=4, repeats=True)

    with pytest.raises(UnsupportedGameError, match="^mcts cannot search .*positions that repeat"):
        mcts(Loops())


def test_a_computer_player_asked_at_a_chance_node_rolls_the_die() -> None:
    game = load().game("dice").create(target=6, sides=3)
    rolling = play_text(game, "roll")
    registry = load()
    for name in ("mcts", "perfect", "medium"):
        player: Any = registry.players[name]()
        faces = {player.choose(game, rolling, random.Random(seed)) for seed in range(40)}
        assert faces == {1, 2, 3}, name
