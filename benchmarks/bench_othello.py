"""Othello benchmarks: 6x6 positions along Joel Feinstein's perfect line, and the empty 6x6 board.

Run from the repository root::

    python benchmarks/bench_othello.py                       # the line from move 20 back to move 8, compiled
    python benchmarks/bench_othello.py --from 0 --time-limit 7200   # down to the empty board (hours)
    python benchmarks/bench_othello.py --engine python --from 16    # the Python engine (20 to 30 times slower)
    python benchmarks/bench_othello.py --quick               # moves 24 and 20 only

Each position after ``k`` moves of the line (tests/data/othello, source in
tests/data/README.md; White wins 20-16, so every position's margin is 4 for
White) is solved on its own by a fresh ``Solver`` (root value only, as
``gametree solve othello --size 6 --best-only`` proves it, without the
principal variation), from the last move backwards, until one takes longer
than ``--time-limit`` seconds (that one is reported as cut short, with the
range proven by then).  It prints the margin found, whether it is White's 4,
the nodes and the seconds; ``k = 0`` is the empty board.  The compiled
engine's numba compilation (or loading from its cache) is done, and timed,
before the first position.  A fixed loop timed before and after the runs
(:mod:`machine`) shows whether the machine was in a slow spell.  Nothing
here is asserted: the tests check correctness, this prints figures.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from machine import report as machine_report

from gametree import load
from gametree.search.solver import Solver
from gametree.search.table import TranspositionTable, parse_cache_size

ROOT = Path(__file__).resolve().parents[1]
LINE = ROOT / "tests" / "data" / "othello" / "feinstein_6x6.json"


def line_moves() -> list[str]:
    """Feinstein's line on gametree's 6x6 board, with its forced pass (see tests/data/README.md)."""
    data = json.loads(LINE.read_text())
    moves = [f"{chr(ord(m[0]) - 1)}{int(m[1]) - 1}" for m in data["moves"]]
    cut = data["pass_before"] - 1
    return [*moves[:cut], "pass", *moves[cut:]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=("compiled", "python"), default="compiled")
    parser.add_argument("--from", dest="first", type=int, default=8, help="the earliest move of the line (0: empty)")
    parser.add_argument("--to", dest="last", type=int, default=20, help="the latest move of the line")
    parser.add_argument("--time-limit", type=float, default=300.0, help="seconds per position; stop after one past it")
    parser.add_argument("--quick", action="store_true", help="moves 24 and 20 only")
    parser.add_argument(
        "--cache-size", default=None, help="the table's memory, as --cache-size takes it (default: the engine's)"
    )
    args = parser.parse_args()
    game = load().game("othello").create(size=6)
    states = [game.initial_state()]
    for text in line_moves():
        states.append(game.play(states[-1], game.parse_move(states[-1], text)))

    def table() -> TranspositionTable | bool:
        return True if args.cache_size is None else parse_cache_size(args.cache_size)

    plies = [24, 20] if args.quick else list(range(args.last, args.first - 1, -1))
    print(machine_report("before the runs"))
    started = time.perf_counter()
    Solver(game, engine=args.engine).score(states[30])  # (the compiled engine: numba compiles or loads here)
    print(f"engine {args.engine}: ready in {time.perf_counter() - started:.2f} s")
    print(f"{'move':>4} {'empty':>5} {'margin':>6} {'white':>6} {'nodes':>14} {'seconds':>9} {'nodes/s':>11}")
    for k in plies:
        state = states[k]
        empty = 36 - sum(bin(x).count("1") for x in (state.mine, state.theirs))
        solver = Solver(game, engine=args.engine, cache=table())
        result = solver.solve(state, all_moves=False, pv=False, time_limit=args.time_limit)
        white = result.score if game.to_move(state) == 1 else -result.score
        seconds = result.stats.seconds
        rate = result.stats.nodes / seconds if seconds else 0.0
        fill = f"table: {solver.engine.table_fill()}"
        if not result.proven:
            print(f"{k:>4} {empty:>5} cut short after {seconds:.0f} s: score proven in {result.score_bounds}; {fill}")
            break
        verdict = "ok" if white == 4 else "WRONG"
        nodes = result.stats.nodes
        print(
            f"{k:>4} {empty:>5} {result.score:>+6} {verdict:>6} {nodes:>14,} {seconds:>9.3f} {rate:>11,.0f}  {fill}",
            flush=True,
        )
    print(machine_report("after the runs"))


if __name__ == "__main__":
    main()
