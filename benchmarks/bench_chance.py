"""Node counts of expectiminimax, Star1 and Star2 side by side on the same trees (issue 31).

    python benchmarks/bench_chance.py                 # random trees and the dice game
    python benchmarks/bench_chance.py --quick         # fewer, smaller trees (seconds)
    python benchmarks/bench_chance.py --trees 1000 --depth 4 --branching 3

The random trees are the textbook game's (``random_tree(chance=True)``,
``games/textbook_random.py``): regular *-minimax trees as Ballard's, levels of MAX, chance, MIN,
chance, ... ``--depth`` levels deep, ``--branching`` children at every inner node (moves at a
player's node, outcomes at a chance node, each outcome with small whole-number odds), whole leaf
payoffs drawn from -10..10 (Star1 and Star2 are given the leaves' lowest and highest payoff as
bounds).  Each tree is searched three times, the root as one node (``all_moves=False``), without
the memo (``cache=False``), so the counts are of the tree itself; every search's value is
checked against a brute-force expectiminimax of the tree.  "random" rows take the moves in the
order drawn, "ordered" rows the same trees with each player's best move first
(``ordered=True``, the order Star2's probing is made for).  The dice game rows search Dice 21
(target 21, a six-sided die) with the memo, and a smaller target without it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # (run from a checkout)

from machine import report as machine_report  # noqa: E402

from gametree import load  # noqa: E402
from gametree.search.chance import expectiminimax, star1, star2  # noqa: E402
from gametree_builtins.games.textbook import random_tree  # noqa: E402
from gametree_builtins.games.textbook_notation import CHANCE_NODE, LEAF, Tree  # noqa: E402

LOW, HIGH = -10, 10
SEARCHES = (("expectiminimax", expectiminimax), ("star1", star1), ("star2", star2))


def brute_value(tree: Tree, node: int = 0) -> Fraction:
    """MAX's expected payoff at ``node``, every node visited: the oracle the searches are checked against."""
    kind = tree.kinds[node]
    if kind == LEAF:
        return tree.values[node][0]
    values = [brute_value(tree, child) for child in tree.children[node]]
    if kind == CHANCE_NODE:
        return sum((p * v for p, v in zip(tree.probabilities[node], values, strict=True)), start=Fraction(0))
    return max(values) if kind == 0 else min(values)


def tree_rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    for ordered in (False, True):
        counts: dict[str, list[int]] = {name: [] for name, _ in SEARCHES}
        seconds = dict.fromkeys(counts, 0.0)
        for number in range(args.trees):
            game = random_tree(
                depth=args.depth,
                branching=args.branching,
                low=LOW,
                high=HIGH,
                seed=args.seed + number,
                chance=True,
                ordered=ordered,
            )
            value = brute_value(game.tree)
            for name, search in SEARCHES:
                started = time.perf_counter()
                result = search(game, cache=False, all_moves=False, pv=False)
                seconds[name] += time.perf_counter() - started
                if result.exact != value:
                    raise SystemExit(f"WRONG: {name} gives {result.exact}, the tree is worth {value}")
                counts[name].append(result.stats.nodes)
        full = statistics.mean(counts["expectiminimax"])
        order = "ordered" if ordered else "random"
        for name, _ in SEARCHES:
            mean = statistics.mean(counts[name])
            rows.append(
                {
                    "case": f"trees d{args.depth} b{args.branching} {order}",
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
    parser.add_argument("--branching", type=int, default=3, help="children of an inner node [default: 3]")
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
