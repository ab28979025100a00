"""Node counts of expectiminimax, Star1 and Star2 side by side on the same trees (issue 31).

    python benchmarks/bench_chance.py                 # random trees and the dice game
    python benchmarks/bench_chance.py --quick         # fewer, smaller trees (seconds)
    python benchmarks/bench_chance.py --trees 1000 --depth 4 --branching 3 --outcomes 3

The random trees are Ballard's regular *-minimax trees: levels of MAX, chance,
MIN, chance, ... ``--depth`` levels deep, ``--branching`` moves at a player's
node, ``--outcomes`` equally likely outcomes at a chance node, whole leaf
payoffs drawn from -10..10 (the payoff bounds Star1 and Star2 are given).
Each tree is searched three times, the root as one node (``all_moves=False``),
without the memo (``cache=False``), so the counts are of the tree itself; every
search's value is checked against a brute-force expectiminimax of the tree.
"random" rows take the moves in the order drawn, "ordered" rows with each
player's best move first (the order Star2's probing is made for).  The dice
game rows search Dice 21 (target 21, a six-sided die) with the memo, and a
smaller target without it.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # (run from a checkout)

from machine import report as machine_report  # noqa: E402

from gametree import GameInfo, Outcome, load  # noqa: E402
from gametree.game import CHANCE  # noqa: E402
from gametree.search.chance import expectiminimax, star1, star2  # noqa: E402

LOW, HIGH = -10, 10
SEARCHES = (("expectiminimax", expectiminimax), ("star1", star1), ("star2", star2))


class Tree(NamedTuple):
    """A node: ``kind`` 0 (MAX), 1 (MIN), CHANCE, or None for a leaf worth ``value``."""

    kind: int | None
    children: tuple[Tree, ...]
    value: Fraction


def regular_tree(rng: random.Random, depth: int, branching: int, outcomes: int, level: int, ordered: bool) -> Tree:
    """A regular *-minimax tree (MAX, chance, MIN, chance, ...), its value computed on the way up."""
    if depth == 0:
        return Tree(None, (), Fraction(rng.randint(LOW, HIGH)))
    kind = (0, CHANCE, 1, CHANCE)[level % 4]
    width = outcomes if kind == CHANCE else branching
    children = tuple(regular_tree(rng, depth - 1, branching, outcomes, level + 1, ordered) for _ in range(width))
    if kind == CHANCE:
        return Tree(kind, children, sum((c.value for c in children), start=Fraction(0)) / width)
    if ordered:
        children = tuple(sorted(children, key=lambda c: c.value, reverse=kind == 0))
    pick = max if kind == 0 else min
    return Tree(kind, children, pick(c.value for c in children))


class TreeGame:
    """A tree as a two-player zero-sum margin game with chance nodes: a state is a path of indices."""

    def __init__(self, root: Tree) -> None:
        self.root = root
        self.info = GameInfo(max_plies=64, deterministic=False, margin=True, payoff_bounds=(LOW, HIGH))

    def node(self, state: tuple[int, ...]) -> Tree:
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
        width = len(self.node(state).children)
        return [(i, Fraction(1, width)) for i in range(width)]

    def play(self, state: tuple[int, ...], move: int) -> tuple[int, ...]:
        return (*state, move)

    def outcome(self, state: tuple[int, ...]) -> Outcome | None:
        node = self.node(state)
        if node.kind is not None:
            return None
        v = int(node.value)
        return Outcome(0 if v > 0 else 1 if v < 0 else None, (v, -v))

    def key(self, state: tuple[int, ...]) -> tuple[int, ...]:
        return state

    def parse_move(self, state: tuple[int, ...], text: str) -> int:
        return int(text)

    def format_move(self, state: tuple[int, ...], move: int) -> str:
        return str(move)

    def render(self, state: tuple[int, ...]) -> str:
        return repr(state)


def tree_rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    for ordered in (False, True):
        rng = random.Random(args.seed)
        counts: dict[str, list[int]] = {name: [] for name, _ in SEARCHES}
        seconds = dict.fromkeys(counts, 0.0)
        for _ in range(args.trees):
            tree = regular_tree(rng, args.depth, args.branching, args.outcomes, 0, ordered)
            game: Any = TreeGame(tree)
            for name, search in SEARCHES:
                started = time.perf_counter()
                result = search(game, cache=False, all_moves=False, pv=False)
                seconds[name] += time.perf_counter() - started
                if result.exact != tree.value:
                    raise SystemExit(f"WRONG: {name} gives {result.exact}, the tree is worth {tree.value}")
                counts[name].append(result.stats.nodes)
        full = statistics.mean(counts["expectiminimax"])
        order = "ordered" if ordered else "random"
        for name, _ in SEARCHES:
            mean = statistics.mean(counts[name])
            rows.append(
                {
                    "case": f"trees d{args.depth} b{args.branching} c{args.outcomes} {order}",
                    "algorithm": name,
                    "trees": args.trees,
                    "mean_nodes": round(mean, 1),
                    "of_expectiminimax": round(mean / full, 3),
                    "seconds": round(seconds[name], 3),
                }
            )
    return rows


def dice_rows(quick: bool) -> list[dict[str, Any]]:
    rows = []
    cases = [(4, 3, False), (10, 6, True)] if quick else [(5, 3, False), (21, 6, True)]
    for target, sides, cache in cases:
        game = load().game("dice").create(target=target, sides=sides)
        values = set()
        for name, search in SEARCHES:
            started = time.perf_counter()
            result = search(game, cache=cache, all_moves=False, pv=False)
            values.add(result.exact)
            rows.append(
                {
                    "case": f"dice target {target} d{sides} {'memo' if cache else 'no memo'}",
                    "algorithm": name,
                    "trees": 1,
                    "mean_nodes": result.stats.nodes,
                    "of_expectiminimax": None,
                    "seconds": round(time.perf_counter() - started, 3),
                    "value": str(result.exact),
                }
            )
        if len(values) != 1:
            raise SystemExit(f"WRONG: the three searches disagree on the dice game: {values}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trees", type=int, default=None, help="random trees [default: 200; --quick 50]")
    parser.add_argument("--depth", type=int, default=None, help="levels of a tree [default: 6; --quick 4]")
    parser.add_argument("--branching", type=int, default=3, help="moves at a player's node [default: 3]")
    parser.add_argument("--outcomes", type=int, default=3, help="outcomes at a chance node [default: 3]")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--quick", action="store_true", help="small trees and a small dice game (seconds)")
    parser.add_argument("--no-dice", action="store_true", help="only the random trees")
    parser.add_argument("--json", action="store_true", help="one JSON object a row, nothing else")
    args = parser.parse_args()
    args.trees = args.trees if args.trees is not None else 50 if args.quick else 200
    args.depth = args.depth if args.depth is not None else 4 if args.quick else 6
    if not args.json:
        print(machine_report("before the runs"), flush=True)
    rows = tree_rows(args) + ([] if args.no_dice else dice_rows(args.quick))
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return
    header = f"{'case':<34} {'algorithm':<15} {'trees':>5} {'mean nodes':>12} {'of expmm':>8} {'seconds':>8}"
    print(header)
    print("-" * len(header))
    for row in rows:
        share = "" if row["of_expectiminimax"] is None else f"{100 * row['of_expectiminimax']:.1f}%"
        print(
            f"{row['case']:<34} {row['algorithm']:<15} {row['trees']:>5} {row['mean_nodes']:>12,} {share:>8} "
            f"{row['seconds']:>8.2f}"
        )
    print(machine_report("after the runs"))


if __name__ == "__main__":
    main()
