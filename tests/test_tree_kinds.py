"""Pictures of every kind of tree (issue 31): chance nodes, payoff vectors, margins.

The searches here are small hand-written ones (expectiminimax with Star1
pruning, max^n with shallow pruning) that tell the observer every node as
docs/trees.md says a search other than the engine does; what the recorder
keeps is checked against an independent brute force of the same trees.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from gametree.game import CHANCE, GameInfo, Outcome
from gametree.search.engine import Exit
from gametree.search.results import SearchResult, SearchStats
from gametree.tree.general import capture_search, count_search

# ---------------------------------------------------------------------------------------------
# Hand-written trees: ("max"|"min"|"chance"|0|1|2, [(move, child) or (move, p, child)]) or a leaf
# (a payoff vector).


class KindTree:
    """A game of a hand-typed tree: player nodes, chance nodes and leaves holding payoff vectors."""

    def __init__(self, tree, players=2, bounds=(-10, 10)):
        self.tree = tree
        chance = _has_chance(tree)
        names = ("MAX", "MIN") if players == 2 else tuple(f"P{i + 1}" for i in range(players))
        self.info = GameInfo(
            max_plies=20,
            players=players,
            deterministic=not chance,
            zero_sum=players == 2,
            margin=players == 2,
            payoff_bounds=bounds,
            player_names=names,
        )

    def node(self, state):
        node = self.tree
        for move in state:
            node = dict((m, rest[-1]) for m, *rest in node[1])[move]
        return node

    def initial_state(self):
        return ()

    def to_move(self, state):
        node = self.node(state)
        if isinstance(node[0], tuple) or not isinstance(node[1], list):  # a leaf
            return 0
        kind = node[0]
        return CHANCE if kind == "chance" else {"max": 0, "min": 1}.get(kind, kind)

    def ply(self, state):
        return len(state)

    def legal_moves(self, state):
        node = self.node(state)
        return [] if _leaf(node) else [m for m, *_ in node[1]]

    def chance_outcomes(self, state):
        return [(m, p) for m, p, _ in self.node(state)[1]]

    def play(self, state, move):
        return (*state, move)

    def outcome(self, state):
        node = self.node(state)
        if not _leaf(node):
            return None
        best = max(node)
        winner = node.index(best) if list(node).count(best) == 1 else None
        return Outcome(winner, tuple(node))

    def key(self, state):
        return state

    def parse_move(self, state, text):
        return text

    def format_move(self, state, move):
        return move

    def render(self, state):
        return " ".join(state) or "root"


def _leaf(node) -> bool:
    return not (isinstance(node, tuple) and len(node) == 2 and isinstance(node[1], list))


def _has_chance(node) -> bool:
    if _leaf(node):
        return False
    return node[0] == "chance" or any(_has_chance(rest[-1]) for _, *rest in node[1])


def _result(algorithm, game, value, pv, nodes, cutoffs, payoffs=None) -> SearchResult:
    stats = SearchStats(
        nodes=nodes,
        terminals=0,
        heuristic_leaves=0,
        cutoffs=cutoffs,
        cache_probes=0,
        cache_hits=0,
        cache_stores=0,
        max_depth=0,
        seconds=0.0,
        nodes_per_second=0.0,
        nodes_per_depth=(),
    )
    return SearchResult(
        algorithm=algorithm,
        to_move=game.to_move(game.initial_state()),
        value="win" if value > 0 else "loss" if value < 0 else "draw",
        winner=None,
        score=float(value),
        proven=True,
        plies_to_end=None,
        best_moves=tuple(pv[:1]),
        move_values=(),
        pv=tuple(pv),
        depth=None,
        stats=stats,
        payoffs=None if payoffs is None else tuple(float(p) for p in payoffs),
    )


# ---------------------------------------------------------------------------------------------
# Expectiminimax and Star1, in MAX's payoff (``Exit.player`` 0), as docs/trees.md describes.


class Star1:
    def __init__(self, game, observer, prune=True):
        self.game, self.obs, self.prune = game, observer, prune
        self.low, self.high = game.info.payoff_bounds
        self.nodes = self.cutoffs = 0

    def leave(self, value, kind, window=None, winner=None):
        self.obs.leave(Exit(value, kind, window, winner=winner, payoffs=(value, -value), player=0))
        return value

    def value(self, state, alpha, beta, height=0):
        game, obs = self.game, self.obs
        self.nodes += 1
        obs.enter(state, height, alpha if self.prune else None, beta if self.prune else None)
        out = game.outcome(state)
        if out is not None:
            return self.leave(out.payoffs[0], "terminal", winner=out.winner)
        mover = game.to_move(state)
        if mover == CHANCE:
            return self.chance(state, alpha, beta, height)
        best = None
        moves = game.legal_moves(state)
        for i, move in enumerate(moves):
            a, b = alpha, beta
            if self.prune and best is not None:
                a, b = (max(alpha, best), beta) if mover == 0 else (alpha, min(beta, best))
            obs.child(move)
            v = self.value(game.play(state, move), a, b, height + 1)
            if best is None or (v > best if mover == 0 else v < best):
                best = v
            if self.prune and (best >= beta if mover == 0 else best <= alpha) and i < len(moves) - 1:
                self.cutoffs += 1
                obs.prune(moves[i + 1 :], f"{'beta' if mover == 0 else 'alpha'} cutoff")
                break
        return self.leave(best, "searched", (alpha, beta) if self.prune else None)

    def chance(self, state, alpha, beta, height):
        game, obs = self.game, self.obs
        outcomes = game.chance_outcomes(state)
        lower, upper = Fraction(self.low), Fraction(self.high)
        for i, (move, p) in enumerate(outcomes):
            obs.child(move)
            a = max((alpha - (upper - p * self.high)) / p, self.low) if self.prune else self.low
            b = min((beta - (lower - p * self.low)) / p, self.high) if self.prune else self.high
            v = self.value(game.play(state, move), a, b, height + 1)
            lower += p * (v - self.low)
            upper += p * (v - self.high)
            if self.prune and (upper <= alpha or lower >= beta) and i < len(outcomes) - 1:
                self.cutoffs += 1
                obs.prune([m for m, _ in outcomes[i + 1 :]], "star1: the mean is outside the window")
                return self.leave(upper if upper <= alpha else lower, "searched", (alpha, beta))
        return self.leave(lower, "searched", (alpha, beta) if self.prune else None)


def brute_chance(game, state=()):
    """Expectiminimax by brute force: MAX's expected payoff."""
    out = game.outcome(state)
    if out is not None:
        return Fraction(out.payoffs[0])
    mover = game.to_move(state)
    if mover == CHANCE:
        return sum(p * brute_chance(game, game.play(state, m)) for m, p in game.chance_outcomes(state))
    values = [brute_chance(game, game.play(state, m)) for m in game.legal_moves(state)]
    return max(values) if mover == 0 else min(values)


def chance_search(game, prune):
    def search(observer):
        s = Star1(game, observer, prune)
        v = s.value((), Fraction(s.low), Fraction(s.high))
        return _result("star1" if prune else "expectiminimax", game, v, [], s.nodes, s.cutoffs, (v, -v))

    return search


HALF, THIRD = Fraction(1, 2), Fraction(1, 3)
# MAX chooses between a fair coin (4 or -2) and a three-way roll after which MIN moves.
DICE = (
    "max",
    [
        ("coin", ("chance", [("H", HALF, (4, -4)), ("T", HALF, (-2, 2))])),
        (
            "roll",
            (
                "chance",
                [
                    ("1", THIRD, ("min", [("x", (3, -3)), ("y", (-5, 5))])),
                    ("2", THIRD, ("min", [("x", (9, -9)), ("y", (-3, 3))])),
                    ("3", THIRD, ("min", [("x", (-9, 9)), ("y", (5, -5))])),
                ],
            ),
        ),
    ],
)


def visited(tree):
    return [n for n, d in tree.graph.nodes(data=True) if not d["pruned"]]


def test_chance_tree_recorded():
    game = KindTree(DICE)
    tree = capture_search(game, chance_search(game, prune=False))
    g = tree.graph
    assert tree.visited == tree.result.stats.nodes == 14  # the root, 2 chance nodes, 3 MIN nodes, 8 leaves
    chance = [n for n in visited(tree) if g.nodes[n]["chance"]]
    assert len(chance) == 2
    for n in chance:
        d = g.nodes[n]
        assert d["player"] == "chance" and d["to_move"] == CHANCE and d["viewer"] == 0
        # The expected value: the sum of p times each child's value, from the chance node's viewer.
        state = tuple(d["moves"].split())
        assert Fraction(d["value_text"]) == brute_chance(game, state) if "value_text" in d else True
        assert d["value"] == pytest.approx(float(brute_chance(game, state)))
        edges = [g.edges[n, c] for c in g.successors(n)]
        assert sum(e["probability"] for e in edges) == pytest.approx(1)
        assert all("probability_text" in e for e in edges)
    coin = next(n for n in chance if g.nodes[n]["move"] == "coin")
    assert g.nodes[coin]["value"] == 1 and "value_text" not in g.nodes[coin]
    roll = next(n for n in chance if g.nodes[n]["move"] == "roll")
    assert g.nodes[roll]["value_text"] == "-17/3"  # (-5 - 3 - 9) / 3
    # A MIN node's value is for MIN (the negation of MAX's payoff the search reported).
    for n in visited(tree):
        d = g.nodes[n]
        state = tuple(d["moves"].split())
        mine = brute_chance(game, state)
        assert d["value"] == pytest.approx(float(-mine if d["viewer"] == 1 else mine))
        assert d["payoffs"][0] == pytest.approx(float(mine))
    assert g.nodes[0]["value"] == 1 == brute_chance(game)


def test_star1_cutoffs_recorded_with_their_reason():
    game = KindTree(DICE, bounds=(-9, 9))
    tree = capture_search(game, chance_search(game, prune=True))
    g = tree.graph
    assert g.nodes[0]["value"] == 1
    # After the coin's 1, the roll fails low once two outcomes force its mean to at most 1/3.
    roll = next(n for n in g if g.nodes[n].get("move") == "roll")
    assert g.nodes[roll]["bound"] == "upper" and g.nodes[roll]["value_text"] == "1/3"
    assert "E ≤ +1/3" in tree.to_dot()
    reasons = {g.nodes[n]["reason"] for n in g if g.nodes[n]["pruned"]}
    assert any(r.startswith("star1") for r in reasons), reasons
    pruned = [(u, v) for u, v in tree.pruned_edges() if g.nodes[u]["chance"]]
    assert pruned and all("probability" in g.edges[u, v] for u, v in pruned)
    assert tree.visited < 14


def test_random_chance_trees_value_and_counts():
    rng = random.Random(31)
    for _ in range(20):
        game = KindTree(_random_chance(rng, 3))
        for prune in (False, True):
            search = chance_search(game, prune)
            tree = capture_search(game, search)
            assert Fraction(tree.graph.nodes[0]["value"]).limit_denominator(1000) == brute_chance(game)
            assert count_search(search, 10_000) == tree.visited == tree.result.stats.nodes


def _random_chance(rng, depth, kind=0):
    if depth == 0:
        v = rng.randint(-9, 9)
        return (v, -v)
    if kind == 2:
        k = rng.randint(2, 3)
        return ("chance", [(str(i + 1), Fraction(1, k), _random_chance(rng, depth - 1, 0)) for i in range(k)])
    nxt = 2 if kind == 0 else 0
    return ("max" if kind == 0 else "min", [(f"m{i}", _random_chance(rng, depth - 1, nxt)) for i in range(2)])


def test_chance_diagram_and_views():
    game = KindTree(DICE)
    tree = capture_search(game, chance_search(game, prune=False))
    dot = tree.to_dot()
    assert "shape=ellipse" in dot and "p = 1/3" in dot and "p = 1/2" in dot
    assert "E = -17/3" in dot and "E = +1" in dot
    # Margins are signed; a MIN node shows MIN's value in the negamax view, MAX's in the MAX/MIN view.
    assert "v = +4" in dot
    maxmin = tree.to_dot(view="maxmin", order=True)
    assert "<B>#1 MAX</B>" in maxmin and "CHANCE" in maxmin and "MIN</B>" in maxmin
    assert "v = +9" in dot and "v = -9" in dot  # (the leaves after 2 x and 3 x)
    negamax_min = [d for _, d in tree.graph.nodes(data=True) if d.get("viewer") == 1 and d.get("kind") == "searched"]
    assert negamax_min and all(d["value"] == -float(brute_chance(game, tuple(d["moves"].split()))) for d in negamax_min)
    with pytest.raises(ValueError, match="unknown view"):
        tree.to_dot(view="sideways")


# ---------------------------------------------------------------------------------------------
# max^n with shallow pruning, three players whose payoffs sum to TOTAL (each at least 0).

TOTAL = 10


class MaxN:
    def __init__(self, game, observer, prune=True):
        self.game, self.obs, self.prune = game, observer, prune
        self.nodes = self.cutoffs = 0

    def value(self, state, bound=None, height=0):
        """The payoff vector of ``state``; ``bound``: the parent mover's best so far (shallow pruning)."""
        game, obs = self.game, self.obs
        self.nodes += 1
        obs.enter(state, height, None, None)
        out = game.outcome(state)
        mover = game.to_move(state)
        if out is not None:
            obs.leave(Exit(out.payoffs[mover], "terminal", winner=out.winner, payoffs=out.payoffs, player=mover))
            return out.payoffs
        best = None
        moves = game.legal_moves(state)
        for i, move in enumerate(moves):
            obs.child(move)
            v = self.value(game.play(state, move), best[mover] if best is not None else None, height + 1)
            if best is None or v[mover] > best[mover]:
                best = v
            if self.prune and bound is not None and best[mover] >= TOTAL - bound and i < len(moves) - 1:
                self.cutoffs += 1
                obs.prune(moves[i + 1 :], f"shallow pruning: {best[mover]} >= {TOTAL} - {bound}")
                break
        obs.leave(Exit(best[mover], "searched", payoffs=best, player=mover))
        return best


def brute_maxn(game, state=()):
    out = game.outcome(state)
    if out is not None:
        return out.payoffs
    mover = game.to_move(state)
    best = None
    for m in game.legal_moves(state):
        v = brute_maxn(game, game.play(state, m))
        if best is None or v[mover] > best[mover]:
            best = v
    return best


def maxn_search(game, prune=True):
    def search(observer):
        s = MaxN(game, observer, prune)
        v = s.value(())
        return _result("maxn", game, v[0], [], s.nodes, s.cutoffs, v)

    return search


def _random_three(rng, depth, mover=0):
    if depth == 0:
        a = rng.randint(0, TOTAL)
        b = rng.randint(0, TOTAL - a)
        return (a, b, TOTAL - a - b)
    return (mover, [(f"{'abc'[mover]}{i}", _random_three(rng, depth - 1, (mover + 1) % 3)) for i in range(3)])


THREE = (
    0,
    [
        ("a0", (1, [("b0", (7, 2, 1)), ("b1", (3, 4, 3))])),
        ("a1", (1, [("b0", (6, 3, 1)), ("b1", (2, 8, 0)), ("b2", (0, 0, 10))])),
    ],
)


def test_three_player_tree_recorded():
    game = KindTree(THREE, players=3, bounds=(0, TOTAL))
    tree = capture_search(game, maxn_search(game))
    g = tree.graph
    assert g.graph["player_count"] == 3
    assert g.nodes[0]["payoffs"] == (3.0, 4.0, 3.0) == tuple(map(float, brute_maxn(game)))
    # P1 has 3 after a0; after a1 b1 P2 takes 8 >= 10 - 3: b2 is pruned, shallow pruning.
    pruned = [d for _, d in g.nodes(data=True) if d["pruned"]]
    assert [d["move"] for d in pruned] == ["b2"] and pruned[0]["reason"].startswith("shallow pruning")
    for n in visited(tree):
        d = g.nodes[n]
        assert d["viewer"] == d["to_move"]
        assert d["value"] == d["payoffs"][d["to_move"]]
    dot = tree.to_dot(view="maxmin")
    # The payoff vector in cells, the mover's highlighted; no MAX/MIN labels with three players.
    assert '<TD BORDER="1" BGCOLOR="#ffd54f"><B>4</B></TD>' in dot  # (P2's 4 at the node after a0)
    assert "MAX" not in dot.split("legend")[0]
    assert "each player's payoff" in dot


def test_random_three_player_trees_match_brute_force():
    rng = random.Random(5)
    for _ in range(20):
        game = KindTree(_random_three(rng, 3), players=3, bounds=(0, TOTAL))
        tree = capture_search(game, maxn_search(game))
        root = tree.graph.nodes[0]
        assert root["payoffs"] == tuple(map(float, brute_maxn(game)))
        for n in visited(tree):
            d = tree.graph.nodes[n]
            if d["kind"] == "terminal" or not any(tree.graph.nodes[c]["pruned"] for c in tree.graph.successors(n)):
                if not _below_cutoff(tree, n):
                    assert d["payoffs"] == tuple(map(float, brute_maxn(game, tuple(d["moves"].split()))))


def _below_cutoff(tree, node):
    """Is ``node`` inside a subtree cut short (a node with pruned children, or under one)?"""
    g = tree.graph
    while True:
        if any(g.nodes[c]["pruned"] for c in g.successors(node)):
            return True
        parents = list(g.predecessors(node))
        if not parents:
            return False
        node = parents[0]


def test_exports_keep_probabilities_and_payoffs():
    import json

    from gametree import load

    exporters = load().exporters
    game = KindTree(DICE, bounds=(-9, 9))
    tree = capture_search(game, chance_search(game, prune=True))
    data = json.loads(exporters["json"].export(tree, {}))
    edges = [e for e in data["edges"] if e.get("probability_text") == "1/3"]
    assert len(edges) == 3 and all(e["probability"] == pytest.approx(1 / 3) for e in edges)
    assert data["graph"]["chance"] is True and data["graph"]["margin"] is True
    assert b"probability_text" in exporters["graphml"].export(tree, {})
    game = KindTree(THREE, players=3, bounds=(0, TOTAL))
    tree = capture_search(game, maxn_search(game))
    data = json.loads(exporters["json"].export(tree, {}))
    assert data["nodes"][0]["payoffs"] == [3, 4, 3] and data["graph"]["player_count"] == 3


# ---------------------------------------------------------------------------------------------
# The registered searches, told of every node (gametree.tree.general.observed_search).


def _textbook(**options):
    from gametree import load

    return load().game("textbook").create(**options)


CHANCE_TREE = "max(chance(1/2: 4  1/2: -2) chance(1/3: min(3 -5) 1/3: min(9 -3) 1/3: min(-9 5)))"
THREE_TREE = "p1(p2((7,2,1) (3,4,3)) p2((6,3,1) (2,8,0) (0,0,10)))"


@pytest.mark.parametrize("algorithm", ["expectiminimax", "star1", "star2"])
def test_chance_searches_tell_every_node(algorithm):
    """On random chance trees: the observed search is the unobserved one (value, node count), every
    node entered is recorded, and expectiminimax's nodes carry their brute-force values."""
    from gametree.search.algorithms import ALGORITHMS
    from gametree.tree.general import observed_search

    function = ALGORITHMS[algorithm].search
    for seed in range(12):
        game = _textbook(random=True, chance=True, tree_depth=2, branching=2, tree_seed=seed, low=-5, high=5)
        for all_moves in (True, False):
            tree = capture_search(game, observed_search(game, game.initial_state(), algorithm, all_moves=all_moves))
            quiet = function(game, all_moves=all_moves, cache=False)
            assert tree.result.score == quiet.score and tree.result.best_moves == quiet.best_moves
            assert tree.visited == tree.result.stats.nodes == quiet.stats.nodes
            root = tree.graph.nodes[0]
            assert Fraction(root["payoffs"][0]).limit_denominator(10_000) == brute_chance(game, game.initial_state())
            if algorithm == "expectiminimax":
                for n in visited(tree):
                    d = tree.graph.nodes[n]
                    state = _state_of(game, d["moves"])
                    mine = brute_chance(game, state)
                    assert d["value"] == pytest.approx(float(-mine if d["viewer"] == 1 else mine))
                    if d["chance"]:
                        edges = [tree.graph.edges[n, c] for c in tree.graph.successors(n)]
                        assert sum(Fraction(e["probability_text"]) for e in edges) == 1


def _state_of(game, moves):
    state = game.initial_state()
    for text in moves.split():
        state = game.play(state, game.parse_move(state, text))
    return state


def test_cli_draws_the_trees_of_every_kind(tmp_path):
    from click.testing import CliRunner

    from gametree.cli import cli

    def run(*args):
        return CliRunner().invoke(cli, ["tree", "textbook", *args], catch_exceptions=False)

    svg = tmp_path / "t.svg"
    result = run("--tree", CHANCE_TREE, "-a", "star2", "-o", str(svg))
    assert result.exit_code == 0, result.output
    assert svg.read_bytes().startswith(b"<?xml") or b"<svg" in svg.read_bytes()[:400]
    dot = run("--tree", CHANCE_TREE, "-a", "expectiminimax", "-f", "dot").output
    assert "shape=ellipse" in dot and "p = 1/3" in dot and "E = -17/3" in dot and "CHANCE" in dot  # (maxmin)
    star1 = run("--tree", CHANCE_TREE, "-a", "star1", "-f", "json").output
    assert "star1: the mean is at most 1/3" in star1
    html = tmp_path / "t.html"
    assert run("--tree", CHANCE_TREE, "-a", "star2", "-o", str(html)).exit_code == 0
    refused = run("--tree", THREE_TREE, "-a", "star1", "-f", "dot")
    assert refused.exit_code == 1 and refused.output.count("\n") == 1 and "star1 cannot search" in refused.output
    refused = run("--tree", CHANCE_TREE, "-a", "star1", "--cache", "-f", "dot")
    assert refused.exit_code == 2 and "--cache" in refused.output


@pytest.mark.parametrize("algorithm", ["maxn", "paranoid"])
def test_three_player_searches_tell_every_node(algorithm):
    from gametree.search.algorithms import ALGORITHMS
    from gametree.tree.general import observed_search

    function = ALGORITHMS[algorithm].search
    for seed in range(12):
        game = _textbook(random=True, players=3, tree_depth=3, branching=2, tree_seed=seed)
        for all_moves in (True, False):
            tree = capture_search(game, observed_search(game, game.initial_state(), algorithm, all_moves=all_moves))
            quiet = function(game, all_moves=all_moves, trace=True)
            assert tree.visited == tree.result.stats.nodes == quiet.stats.nodes
            assert tree.result.payoffs == quiet.payoffs
            if algorithm == "maxn":
                assert tree.graph.nodes[0]["payoffs"] == tuple(map(float, brute_maxn(game, game.initial_state())))


def _tree_cli(*args):
    from click.testing import CliRunner

    from gametree.cli import cli

    return CliRunner().invoke(cli, ["tree", "textbook", *args], catch_exceptions=False)


def test_cli_draws_three_player_trees():
    three = _tree_cli("--tree", THREE_TREE, "-a", "maxn", "-f", "dot").output
    assert '<TD BORDER="1" BGCOLOR="#ffd54f"><B>4</B></TD>' in three
    paranoid = _tree_cli("--tree", THREE_TREE, "-a", "paranoid", "-f", "dot").output
    assert "alpha cutoff: 2 <= 3" in paranoid


def test_maxn_shallow_pruning_is_drawn_with_its_reason():
    """The registered max^n on a game that declares its payoff sum: shallow pruning at a1's p2 node
    (p2's 8 leaves p1 at most 10 - 8 = 2 < 3) is recorded with its reason, and drawn."""
    import dataclasses

    from gametree.tree.general import observed_search

    game = KindTree(THREE, players=3, bounds=(0, TOTAL))
    game.info = dataclasses.replace(game.info, payoff_sum=TOTAL)
    tree = capture_search(game, observed_search(game, (), "maxn"))
    pruned = [d for _, d in tree.graph.nodes(data=True) if d["pruned"]]
    assert [d["move"] for d in pruned] == ["b2"] and pruned[0]["reason"].startswith("shallow pruning: 8 >= ")
    assert tree.graph.nodes[0]["payoffs"] == (3.0, 4.0, 3.0)
    assert "shallow pruning" in tree.to_dot()
