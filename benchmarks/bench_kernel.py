"""The compiled kernel's node rate on fixed Connect Four workloads, for comparing two versions of the code.

Run from the repository root (the code measured is the one ``gametree`` imports; put another
checkout first on ``PYTHONPATH`` to measure it, with its own ``GAMETREE_CACHE_DIR``)::

    python benchmarks/bench_kernel.py                 # every workload below
    python benchmarks/bench_kernel.py --only middle   # one of them

Workloads (7x6): Pons's middle-easy set (tests/data/connect4/pons_middle_easy.txt, one Solver and
table kept for the set), random positions of 12 to 24 stones (a fresh Solver per position, the
engine built before the clock), and the position after 44444333 (score only); tic-tac-toe 5x5
with k=4 from the empty board and Othello 6x6 after 12 plies (a fixed line: the first legal move
at each even ply, the last at each odd one), scores only, a fresh Solver each.  Each prints the
positions, nodes, CPU seconds of the search (``time.process_time``: the machine is shared) and
ns per node.  Every score is checked against Pons's where the set has it.  Nothing is asserted
beyond that; the exit status is 1 if a score was wrong.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

from bench_compiled import random_positions

WORKLOADS = ("middle", "end", "random", "deep", "ttt", "othello")
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data", "connect4")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=WORKLOADS, action="append")
    parser.add_argument("--positions", type=int, default=20, help="random positions (default 20)")
    parser.add_argument("--step", type=int, default=1, help="every STEP-th position of Pons's sets")
    args = parser.parse_args(argv)
    from gametree import load
    from gametree.search import Solver

    game = load().game("connect4").create()

    def position(moves: str) -> object:
        state = game.initial_state()
        for c in moves:
            state = game.play(state, int(c) - 1)
        return state

    Solver(game, engine="compiled").engine_for(
        position("4444")
    )  # numba loads the compiled code (a search told to stop)
    wrong = 0
    only = set(args.only or WORKLOADS)

    def report(name: str, count: int, nodes: int, seconds: float) -> None:
        print(
            f"{name:28} {count:5} positions {nodes:13,} nodes {seconds:9.3f} s "
            f"{seconds / count * 1e6:10.1f} us/pos {seconds / max(1, nodes) * 1e9:7.1f} ns/node",
            flush=True,
        )

    for name in ("middle", "end"):
        if name not in only:
            continue
        with open(os.path.join(DATA, f"pons_{name}_easy.txt")) as f:
            rows = [line.split() for line in f if line.strip()][:: args.step]
        solver = Solver(game, engine="compiled")
        solver.engine_for(position(rows[0][0]))
        nodes, seconds = 0, 0.0
        for moves, expected in rows:
            state = position(moves)
            start = time.process_time()
            r = solver.score(state)
            seconds += time.process_time() - start
            nodes += r.nodes
            wrong += int(r.score) != int(expected)
        report(f"Pons {name}-easy (table kept)", len(rows), nodes, seconds)
    if "random" in only:
        found = random_positions(args.positions, 2024)  # (bench_compiled.py's positions, the same seed)
        nodes, seconds, scores = 0, 0.0, []
        for moves in found:
            state = position(moves)
            solver = Solver(game, engine="compiled")
            solver.engine_for(state)
            start = time.process_time()
            r = solver.score(state)
            seconds += time.process_time() - start
            nodes += r.nodes
            scores.append(int(r.score))
        report("random 12-24 stones (fresh)", len(found), nodes, seconds)
        print("  scores:", " ".join(map(str, scores)))
    if "deep" in only:
        state = position("44444333")
        solver = Solver(game, engine="compiled")
        solver.engine_for(state)
        start = time.process_time()
        r = solver.score(state)
        report(f"after 44444333 (score {int(r.score)})", 1, r.nodes, time.process_time() - start)
    for name in ("ttt", "othello"):
        if name in only:
            wrong += other_game(name, report)
    if wrong:
        print(f"{wrong} WRONG scores")
    return 1 if wrong else 0


def other_game(name: str, report: Callable[[str, int, int, float], None]) -> int:
    """Tic-tac-toe 5x5 k=4 from the empty board (a draw) or Othello 6x6 after 12 plies; 1 if the
    tic-tac-toe score is wrong."""
    from gametree import load
    from gametree.search import Solver

    if name == "ttt":
        game = load().game("tictactoe").create(width=5, height=5, k=4)
        state = game.initial_state()
        label = "tic-tac-toe 5x5 k4"
    else:
        game = load().game("othello").create(size=6)
        state = game.initial_state()
        for ply in range(12):
            moves = list(game.legal_moves(state))
            state = game.play(state, moves[0] if ply % 2 == 0 else moves[-1])
        label = "Othello 6x6 after 12 plies"
    Solver(game, engine="compiled").engine_for(state)  # numba loads the compiled code
    solver = Solver(game, engine="compiled")
    solver.engine_for(state)
    start = time.process_time()
    r = solver.score(state)
    report(f"{label} (score {int(r.score)})", 1, r.nodes, time.process_time() - start)
    return int(name == "ttt" and int(r.score) != 0)


if __name__ == "__main__":
    sys.exit(main())
