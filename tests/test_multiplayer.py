"""max^n and paranoid search (gametree.search.multiplayer) against independent brute force.

The references here share no code with the module: a plain recursive max^n
(every node, the first child best for the mover among ties) and a plain
minimax of the root player's payoff (every node, no window).  They run on
trio (the built-in three-player game) and on small random n-player trees made
below, whose payoffs are drawn from a few values so that ties, on which max^n's
value depends, are common.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, NamedTuple

import pytest
from click.testing import CliRunner

from gametree import load, play_text
from gametree.cli import cli
from gametree.game import GameInfo, Outcome, UnsupportedGameError, payoffs
from gametree.search import search
from gametree.search.multiplayer import maxn, paranoid, pruning_bounds

REGISTRY = load()


# -- a small n-player tree game --------------------------------------------------------------------
class Node(NamedTuple):
    """A node of a random tree: the path of child indices from the root."""

    path: tuple[int, ...]


@dataclass
class RandomTree:
    """A random game tree: ``players`` players, ``depth`` plies, 1 to ``branching`` moves a node; the
    player to move drawn at random (so a player may move twice running); each leaf's payoffs drawn
    from 0..``top`` and summing to at most ``total`` (so shallow pruning applies); ``heuristic``:
    give an estimate at every inner node too (``evaluate_all``)."""

    seed: int
    players: int = 3
    depth: int = 4
    branching: int = 3
    top: int = 3
    total: int = 5
    declare: bool = True

    def __post_init__(self) -> None:
        rng = random.Random(self.seed)
        self.children: dict[tuple[int, ...], int] = {}
        self.mover: dict[tuple[int, ...], int] = {}
        self.leaves: dict[tuple[int, ...], tuple[int, ...]] = {}
        self.estimates: dict[tuple[int, ...], tuple[float, ...]] = {}
        self._grow((), rng)
        self.info = GameInfo(
            max_plies=self.depth,
            players=self.players,
            zero_sum=False,
            player_names=tuple(f"P{p}" for p in range(self.players)),
            payoff_bounds=(0, self.top) if self.declare else None,
            payoff_sum=self.total if self.declare else None,
        )

    def _vector(self, rng: random.Random) -> tuple[int, ...]:
        while True:
            vector = tuple(rng.randint(0, self.top) for _ in range(self.players))
            if sum(vector) <= self.total:
                return vector

    def _grow(self, path: tuple[int, ...], rng: random.Random) -> None:
        if len(path) == self.depth or (path and rng.random() < 0.15):
            self.leaves[path] = self._vector(rng)
            return
        count = rng.randint(1, self.branching)
        self.children[path] = count
        self.mover[path] = rng.randrange(self.players)
        estimate = self._vector(rng)
        self.estimates[path] = tuple(v / 2 for v in estimate)  # (halves keep the bounds and the sum)
        for i in range(count):
            self._grow((*path, i), rng)

    def initial_state(self) -> Node:
        return Node(())

    def to_move(self, state: Node) -> int:
        return self.mover.get(state.path, 0)

    def ply(self, state: Node) -> int:
        return len(state.path)

    def legal_moves(self, state: Node) -> list[int]:
        return list(range(self.children.get(state.path, 0)))

    def play(self, state: Node, move: int) -> Node:
        return Node((*state.path, move))

    def outcome(self, state: Node) -> Outcome | None:
        vector = self.leaves.get(state.path)
        if vector is None:
            return None
        top = max(vector)
        leaders = [p for p, v in enumerate(vector) if v == top]
        return Outcome(leaders[0] if len(leaders) == 1 else None, vector)

    def key(self, state: Node) -> tuple[int, ...]:
        return state.path

    def parse_move(self, state: Node, text: str) -> int:
        return "abcdefghij".index(text)

    def format_move(self, state: Node, move: int) -> str:
        return "abcdefghij"[move]

    def render(self, state: Node) -> str:
        return repr(state.path)

    def evaluate_all(self, state: Node) -> tuple[float, ...]:
        return self.estimates[state.path]


# -- the references -----------------------------------------------------------------------------------
def leaf_vector(game: Any, state: Any) -> tuple[Any, ...]:
    """A finished position's payoffs as the searches define them (two-player win/draw/loss games: the
    depth-aware score, recomputed here from Pons's formula)."""
    out = game.outcome(state)
    info = game.info
    if info.players == 2 and info.zero_sum and not info.margin:
        if out.winner is None:
            return (0, 0)
        won = (info.max_plies + 1 - (game.ply(state) - 1)) // 2
        return (won, -won) if out.winner == 0 else (-won, won)
    return tuple(payoffs(game, out))


def brute_maxn(game: Any, state: Any, depth: int | None = None, memo: dict[Any, Any] | None = None) -> tuple[Any, ...]:
    """Plain max^n: every node; the mover takes the first child best for it.  ``memo``: remember each
    position's vector by its key (the tie rule makes it a function of the position)."""
    if memo is not None and (key := (game.key(state), depth)) in memo:
        return memo[key]
    if game.outcome(state) is not None:
        return leaf_vector(game, state)
    if depth == 0:
        return tuple(game.evaluate_all(state))
    me = game.to_move(state)
    best = None
    for move in game.legal_moves(state):
        value = brute_maxn(game, game.play(state, move), None if depth is None else depth - 1, memo)
        if best is None or value[me] > best[me]:
            best = value
    assert best is not None
    if memo is not None:
        memo[key] = best
    return best


def brute_paranoid(game: Any, state: Any, root: int, depth: int | None = None) -> Any:
    """Plain minimax of ``root``'s payoff: ``root`` maximises it, every other player minimises it."""
    if game.outcome(state) is not None:
        return leaf_vector(game, state)[root]
    if depth == 0:
        return game.evaluate_all(state)[root]
    values = [
        brute_paranoid(game, game.play(state, m), root, None if depth is None else depth - 1)
        for m in game.legal_moves(state)
    ]
    return max(values) if game.to_move(state) == root else min(values)


def preorder(game: Any, state: Any, path: tuple[str, ...] = ()) -> list[str]:
    """Every node's name (its moves from the root), in depth-first order: what a search without pruning enters."""
    names = [" ".join(path)]
    if game.outcome(state) is None:
        for move in game.legal_moves(state):
            names += preorder(game, game.play(state, move), (*path, game.format_move(state, move)))
    return names


# -- max^n ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(40))
def test_maxn_equals_brute_force_on_random_trees(seed: int) -> None:
    rng = random.Random(1000 + seed)
    players = rng.choice((2, 3, 3, 4))
    game = RandomTree(seed, players=players, depth=rng.randint(2, 5), total=rng.choice((players * 3, 4, 5)))
    state = game.initial_state()
    if game.outcome(state) is not None:
        return
    expected = brute_maxn(game, state)
    for all_moves in (True, False):
        result = maxn(game, all_moves=all_moves, trace=seed % 2 == 0)  # (a trace keeps no table)
        assert result.payoffs == expected
        assert result.proven and result.score == expected[game.to_move(state)]
    # each root move's vector is the brute force's of its child
    result = maxn(game)
    for mv in result.move_values:
        assert mv.payoffs == brute_maxn(game, game.play(state, mv.game_move))
    # the line leads to a leaf with the root's vector
    end = play_text(game, " ".join(result.pv))
    assert game.outcome(end) is not None and leaf_vector(game, end) == expected


@pytest.mark.parametrize("seed", range(20))
def test_maxn_with_a_depth_limit_equals_brute_force(seed: int) -> None:
    game = RandomTree(seed, players=3, depth=5)
    if game.outcome(game.initial_state()) is not None:
        return
    for depth in (1, 2, 3):
        result = maxn(game, depth=depth)
        assert result.payoffs == brute_maxn(game, game.initial_state(), depth)


def test_shallow_pruning_cuts_and_keeps_the_value() -> None:
    """Over many trees shallow pruning enters fewer nodes than the tree has, and never changes a value;
    without declared bounds every node is entered, in depth-first order."""
    pruned = whole = 0
    for seed in range(30):
        game = RandomTree(seed, players=3, depth=5, top=4, total=4)  # constant-sum-like: much to prune
        plain = RandomTree(seed, players=3, depth=5, top=4, total=4, declare=False)
        assert pruning_bounds(plain) is None
        if game.outcome(game.initial_state()) is not None:
            continue
        cut = maxn(game, all_moves=False, trace=True)
        full = maxn(plain, all_moves=False, trace=True)
        assert cut.payoffs == full.payoffs == brute_maxn(game, game.initial_state())
        assert full.expanded == tuple(preorder(plain, plain.initial_state()))
        assert full.stats.cutoffs == 0
        assert cut.expanded is not None and set(cut.expanded) <= set(full.expanded)
        pruned += len(cut.expanded)
        whole += len(full.expanded)
    assert pruned < whole * 0.9, (pruned, whole)


def test_korf_shallow_pruning_example() -> None:
    """Korf's (1991) figure: a three-player tree, payoffs summing to 10.  The root (player 0) gets
    (3,3,4) from its first child; in the second, player 1 already has 7 from its first leaf, so
    player 0 could get at most 3 there: the second leaf is never entered."""

    class Korf(RandomTree):
        def __post_init__(self) -> None:
            self.children = {(): 2, (0,): 2, (1,): 2}
            self.mover = {(): 0, (0,): 1, (1,): 1}
            self.leaves = {(0, 0): (3, 3, 4), (0, 1): (1, 2, 7), (1, 0): (3, 7, 0), (1, 1): (9, 1, 0)}
            self.estimates = {}
            self.info = GameInfo(max_plies=2, players=3, zero_sum=False, payoff_bounds=(0, 10), payoff_sum=10)

    game = Korf(0)
    result = maxn(game, all_moves=False, trace=True)
    assert result.payoffs == (3, 3, 4)
    assert result.expanded == ("", "a", "a a", "a b", "b", "b a")  # "b b", worth (9,1,0), cut
    assert result.stats.cutoffs == 1
    # Without the bounds, b b is entered; the value is the same (player 1 takes (3,7,0) there).
    game.info = GameInfo(max_plies=2, players=3, zero_sum=False)
    assert maxn(game, all_moves=False, trace=True).expanded == ("", "a", "a a", "a b", "b", "b a", "b b")


def test_maxn_on_trio_equals_brute_force() -> None:
    game = REGISTRY.game("trio").create(width=3, height=3)
    rng = random.Random(7)
    for _ in range(6):
        state = game.initial_state()
        for _ in range(rng.randint(1, 3)):
            state = game.play(state, rng.choice(game.legal_moves(state)))
        if game.outcome(state) is not None:
            continue
        result = maxn(game, state)
        memo: dict[Any, Any] = {}
        assert result.payoffs == brute_maxn(game, state, memo=memo)
        for mv in result.move_values:
            assert mv.payoffs == brute_maxn(game, game.play(state, mv.game_move), memo=memo)
        assert paranoid(game, state).score == brute_paranoid(game, state, game.to_move(state))


def test_trio_3x3_values() -> None:
    """The empty 3x3 board, by max^n with first-best ties: X wins; paranoid: each player alone
    against the two others is sure of nothing."""
    game = REGISTRY.game("trio").create(size=3)
    result = maxn(game)
    assert result.payoffs == brute_maxn(game, game.initial_state(), memo={}) == (1, 0, 0)
    assert result.value == "win" and result.winner == 0
    assert paranoid(game).score == 0
    after = search("maxn", game, moves="A1 B2 C3 A2")  # O cannot win: it takes its first move, A3; Y wins
    assert after.payoffs == (0, 0, 1) and after.pv[0] == "A3" and after.value == "loss" and after.winner == 2


def test_trio_depth_limited_with_heuristic() -> None:
    game = REGISTRY.game("trio").create(size=4)
    state = play_text(game, "A1 B2 C3 D4 A2")
    for depth in (1, 2, 3):
        result = maxn(game, state, depth=depth)
        assert result.payoffs == pytest.approx(brute_maxn(game, state, depth))
        assert not result.proven and result.value == "unknown" and result.depth == depth
        assert paranoid(game, state, depth=depth).score == pytest.approx(
            brute_paranoid(game, state, game.to_move(state), depth)
        )


def test_trio_estimates_keep_the_bounds() -> None:
    game = REGISTRY.game("trio").create(size=4)
    rng = random.Random(3)
    for _ in range(50):
        state = game.initial_state()
        for _ in range(rng.randint(0, 12)):
            if game.outcome(state) is not None:
                break
            state = game.play(state, rng.choice(game.legal_moves(state)))
        estimate = game.evaluate_all(state)
        assert all(0 <= v <= 1 for v in estimate) and sum(estimate) <= 1


# -- paranoid --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(40))
def test_paranoid_equals_minimax_of_the_root_players_payoff(seed: int) -> None:
    rng = random.Random(2000 + seed)
    game = RandomTree(seed, players=rng.choice((2, 3, 4)), depth=rng.randint(2, 5))
    state = game.initial_state()
    if game.outcome(state) is not None:
        return
    me = game.to_move(state)
    expected = brute_paranoid(game, state, me)
    for all_moves in (True, False):
        result = paranoid(game, all_moves=all_moves, trace=seed % 2 == 1)
        assert result.score == expected
        assert result.payoffs is not None and result.payoffs[me] == expected
    for mv in paranoid(game).move_values:
        assert mv.score == brute_paranoid(game, game.play(state, mv.game_move), me)
    depth = rng.randint(1, 3)
    assert paranoid(game, depth=depth).score == brute_paranoid(game, state, me, depth)


def textbook_alphabeta(game: Any, state: Any, root: int, alpha: float, beta: float, path: tuple[str, ...],
                       entered: list[str]) -> Any:  # fmt: skip
    """AIMA's alpha-beta (Figure 5.7) on ``root``'s payoff, noting every node it enters."""
    entered.append(" ".join(path))
    if game.outcome(state) is not None:
        return leaf_vector(game, state)[root]
    maximising = game.to_move(state) == root
    value = float("-inf") if maximising else float("inf")
    for move in game.legal_moves(state):
        child = textbook_alphabeta(
            game, game.play(state, move), root, alpha, beta, (*path, game.format_move(state, move)), entered
        )
        if maximising:
            value = max(value, child)
            if value >= beta:
                return value
            alpha = max(alpha, value)
        else:
            value = min(value, child)
            if value <= alpha:
                return value
            beta = min(beta, value)
    return value


@pytest.mark.parametrize("seed", range(15))
def test_paranoid_expands_the_nodes_alphabeta_expands(seed: int) -> None:
    game = RandomTree(3000 + seed, players=3, depth=5, top=6, total=18)
    state = game.initial_state()
    if game.outcome(state) is not None:
        return
    entered: list[str] = []
    value = textbook_alphabeta(game, state, game.to_move(state), float("-inf"), float("inf"), (), entered)
    result = paranoid(game, all_moves=False, trace=True)
    assert result.score == value and result.expanded == tuple(entered)


# -- two players: max^n and paranoid are minimax ------------------------------------------------------
@pytest.mark.parametrize("moves", ["", "B2", "A1 B2", "A1 B2 C3", "B2 A1 C3 A3"])
def test_two_player_games_give_minimax_scores(moves: str) -> None:
    game = REGISTRY.game("tictactoe").create(size=3)
    expected = search("alphabeta", game, moves=moves)
    for name in ("maxn", "paranoid"):
        result = search(name, game, moves=moves)
        assert result.score == expected.score and result.value == expected.value
        assert set(result.best_moves) == set(expected.best_moves)
        assert {mv.move: mv.score for mv in result.move_values} == {mv.move: mv.score for mv in expected.move_values}
    depth = search("alphabeta", game, moves=moves, depth=2)
    assert search("maxn", game, moves=moves, depth=2).score == pytest.approx(depth.score)


@pytest.mark.parametrize("coins", [(3, 9, 1, 2), (5, 3, 7, 10), (8, 15, 3, 7, 2, 9, 1), (4,)])
def test_margin_games_give_the_exact_margin(coins: tuple[int, ...]) -> None:
    """Two-player margin games (tests/test_margins.py's coins in a line): the margin, by both searches, with
    the game's payoff bounds (pruning) or without (none)."""
    from test_margins import Coins, brute

    expected = brute(coins)
    for bounds in (True, False):
        game = Coins(coins, bounds=bounds)
        for name in ("maxn", "paranoid"):
            result = search(name, game)
            assert result.score == result.margin == expected and result.payoffs == (expected, -expected)
            assert result.value == ("win" if expected > 0 else "loss" if expected < 0 else "draw")


def test_a_two_player_game_keeps_its_scores_whatever_payoff_bounds_it_declares() -> None:
    """Tic-tac-toe's leaves are depth-aware scores (up to 5 on 3x3): payoff bounds of (-1, 1), declared
    for its win/draw/loss, must not stop a search at the first win (immediate pruning at 1)."""
    import dataclasses

    game = REGISTRY.game("tictactoe").create(size=3)
    game.info = dataclasses.replace(game.info, payoff_bounds=(-1, 1))
    for moves in ("A1 A2 B1 B2", "B2 A2"):  # X wins at once (3); X wins in 5 plies (2), not by the first win found
        expected = search("alphabeta", game, moves=moves)
        assert search("maxn", game, moves=moves, all_moves=False).score == expected.score >= 2


def test_time_limit_gives_the_deepest_finished_search() -> None:
    game = REGISTRY.game("trio").create(size=5)
    result = maxn(game, time_limit=0.3)
    assert result.cut_short == "time" and result.depth is not None and result.depth >= 1
    assert result.stats.nodes_per_depth[0] > result.depth  # every search run is counted, the one cut short too
    assert not result.proven and result.best_moves
    small = REGISTRY.game("trio").create(size=3)
    done = maxn(small, time_limit=30)
    assert done.proven and done.cut_short is None and done.payoffs == (1, 0, 0)


# -- refusals and the command line ----------------------------------------------------------------------
def test_two_player_algorithms_refuse_trio_and_name_maxn() -> None:
    game = REGISTRY.game("trio").create(size=3)
    with pytest.raises(UnsupportedGameError, match="more than two players") as info:
        search("alphabeta", game)
    message = str(info.value)
    assert "(use maxn, " in message and "paranoid" in message and "\n" not in message


def test_cli_solve_trio_with_maxn_json() -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["solve", "trio", "--size", "3", "-a", "maxn", "--moves", "A1 B2 C3 A2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["payoffs"] == [0, 0, 1] and data["algorithm"] == "maxn"
    assert {mv["move"]: mv["payoffs"] for mv in data["move_values"]}["A3"] == [0, 0, 1]
    result = runner.invoke(cli, ["solve", "trio", "--size", "4", "-a", "paranoid", "--depth", "2"])
    assert result.exit_code == 0, result.output
    bad = runner.invoke(cli, ["solve", "trio", "--size", "3", "-a", "alphabeta"])
    assert bad.exit_code != 0 and "Traceback" not in bad.output and "more than two players" in bad.output


def test_chance_and_repeats_are_refused_in_one_line() -> None:
    import dataclasses

    game = RandomTree(1)
    for change, words in (({"deterministic": False}, "chance nodes"), ({"repeats": True}, "positions that repeat")):
        game.info = dataclasses.replace(RandomTree(1).info, **change)
        for name in ("maxn", "paranoid"):
            with pytest.raises(UnsupportedGameError, match=f"{name} cannot search .*{words}") as info:
                search(name, game)
            assert "\n" not in str(info.value)


# -- the textbook's random trees (the lead merges the textbook game into main) -----------------------------
@pytest.mark.parametrize("players", [3, 4])
def test_maxn_equals_brute_force_on_random_textbook_trees(players: int) -> None:
    textbook = pytest.importorskip("gametree_builtins.games.textbook", reason="the textbook game is not on main yet")
    for seed in range(25):
        rng = random.Random(seed)
        game = textbook.random_tree(
            depth=rng.randint(1, 4), branching=rng.randint(1, 3), low=0, high=rng.choice((1, 3, 9)), seed=seed,
            players=players,
        )  # fmt: skip
        root = game.initial_state()
        if game.outcome(root) is not None:
            continue
        expected = brute_maxn(game, root)
        traced = maxn(game, all_moves=False, trace=True)
        assert maxn(game).payoffs == traced.payoffs == expected
        me = game.to_move(root)
        assert paranoid(game).score == brute_paranoid(game, root, me)
        if pruning_bounds(game) is None:  # no declared sum of payoffs: every node, in the textbook's order
            assert traced.expanded == tuple(named_preorder(game, root))
        else:
            assert traced.expanded is not None and set(traced.expanded) <= set(named_preorder(game, root))


def named_preorder(game: Any, state: Any) -> list[str]:
    """Every node's name (``node_name``), in depth-first order."""
    found = [game.node_name(state)]
    for move in game.legal_moves(state) if game.outcome(state) is None else ():
        found += named_preorder(game, game.play(state, move))
    return found


def test_prepare_and_prepare_scores_by_name() -> None:
    from gametree.search import prepare, prepare_scores

    game = REGISTRY.game("trio").create(size=3)
    state = play_text(game, "A1 B2 C3")
    assert prepare("maxn", game, depth=None)(state).payoffs == brute_maxn(game, state)
    scored = prepare_scores("paranoid", game)(state)
    assert scored.score == brute_paranoid(game, state, 0) and scored.nodes > 0
    with pytest.raises(TypeError, match="maxn takes no option 'cache'"):
        search("maxn", game, cache=False)


def test_aima_figure_5_2_two_players_prune_as_alphabeta() -> None:
    """AIMA's Figure 5.2 (value 3, best move a1): with two players shallow pruning is alpha-beta's cut,
    so max^n and paranoid (best move only) leave the two leaves after 2 (I and J) unexamined."""
    from gametree_builtins.games.textbook import AIMA_FIGURE_5_2, parse_tree

    game = parse_tree(AIMA_FIGURE_5_2)
    for search_ in (maxn, paranoid):
        result = search_(game, all_moves=False, trace=True)
        assert result.score == 3 and result.best_moves == ("a1",)
        assert result.expanded == ("A", "B", "E", "F", "G", "C", "H", "D", "K", "L", "M")


def test_a_full_table_starts_afresh_and_the_values_stay(monkeypatch: pytest.MonkeyPatch) -> None:
    from gametree.search import multiplayer

    monkeypatch.setattr(multiplayer, "TABLE_ENTRIES", 40)
    game = REGISTRY.game("trio").create(size=3)
    state = play_text(game, "B2 A1")
    result = maxn(game, state)
    assert result.payoffs == brute_maxn(game, state) and result.stats.cache_stores > 40
    assert paranoid(game, state).score == brute_paranoid(game, state, game.to_move(state))
