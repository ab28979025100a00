"""Speed-up of ``gametree solve --workers N`` over one process.

    python benchmarks/bench_parallel.py                    # empty 4x4 tic-tac-toe and 6x5 Connect Four, 2 workers
    python benchmarks/bench_parallel.py --case c4-6x5 --workers 2 --split-ply 2

Each measurement runs in a fresh interpreter (no warm tables, process start-up
included in the parallel figure, as a user sees it): the single-process
``solver`` with every root move's exact value (what ``gametree solve`` does),
then ``solve_parallel`` with the same answer checked.  Wall-clock seconds;
the speed-up is single / parallel.  On a machine shared with other work the
figures move a lot: run it on an idle machine with at least N cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CASES = {
    "ttt-4x4": ("tictactoe", {"size": 4}),
    "c4-6x5": ("connect4", {"width": 6, "height": 5}),
    "c4-5x4": ("connect4", {"width": 5, "height": 4}),
}

_CHILD = r"""
import json, sys, time
from gametree import load, solver
from gametree.search.parallel import solve_parallel

def main():
    name, options, workers, split_ply = json.loads(sys.argv[1])
    game = load().game(name).create(**options)
    start = time.perf_counter()
    if workers == 0:
        result = solver(game)
    else:
        result = solve_parallel(game, workers=workers, split_ply=split_ply)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "nodes": result.stats.nodes, "value": result.value, "score": result.score,
                      "moves": [[m.move, m.score] for m in result.move_values]}))

if __name__ == "__main__":
    main()
"""


def measure(case: str, workers: int, split_ply: int | None) -> dict:
    name, options = CASES[case]
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps([name, options, workers, split_ply])],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=sorted(CASES), action="append", help="default: ttt-4x4 and c4-6x5")
    parser.add_argument("--workers", type=int, nargs="+", default=[2])
    parser.add_argument("--split-ply", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=1, help="take the best of this many runs of each")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f} at the start")
    print("| case | workers | seconds | nodes | speed-up | same answer |")
    print("|---|---:|---:|---:|---:|---|")
    for case in args.case or ["ttt-4x4", "c4-6x5"]:
        single = min((measure(case, 0, None) for _ in range(args.repeat)), key=lambda r: r["seconds"])
        print(f"| {case} | 1 (no split) | {single['seconds']:.2f} | {single['nodes']:,} | 1.00 | |", flush=True)
        for workers in args.workers:
            par = min((measure(case, workers, args.split_ply) for _ in range(args.repeat)), key=lambda r: r["seconds"])
            same = (par["value"], par["score"], par["moves"]) == (single["value"], single["score"], single["moves"])
            print(
                f"| {case} | {workers} | {par['seconds']:.2f} | {par['nodes']:,}"
                f" | {single['seconds'] / par['seconds']:.2f} | {same} |",
                flush=True,
            )
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
