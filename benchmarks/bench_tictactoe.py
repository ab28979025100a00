"""Time solving empty m,n,k boards with each algorithm.

    python benchmarks/bench_tictactoe.py            # every case
    python benchmarks/bench_tictactoe.py --quick    # the small ones (well under a minute)
    python benchmarks/bench_tictactoe.py --case 4x4k4 --algorithm solver

Each case runs in a fresh subprocess so that its peak memory (max RSS) is its own.
3x3 is a full analysis (the exact score of every first move); larger boards compute the
exact depth-aware score of the empty board (``all_moves=False``).  ``seconds`` is search
time; the target column is the goal from issue 7 for the solver (one core, pure Python).
Cases an algorithm cannot finish in reasonable time are listed with the reason.  A fixed
loop timed before and after the runs (:mod:`machine`) shows whether the machine was in
a slow spell (not with ``--json``).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

from machine import report as machine_report

# name: (width, height, k, expected (value, score) for the first player, quick?, solver target in seconds)
CASES = {
    "3x3k3": (3, 3, 3, ("draw", 0), True, 0.002),
    "4x4k3": (4, 4, 3, ("win", 6), True, None),
    "4x4k4": (4, 4, 4, ("draw", 0), True, 0.5),
    "5x4k4": (5, 4, 4, ("draw", 0), True, 2.0),
    "6x5k4": (6, 5, 4, ("win", 10), True, 1.0),
    "5x5k4": (5, 5, 4, ("draw", 0), False, 10.0),
    "6x4k4": (6, 4, 4, ("draw", 0), False, 10.0),
}
#: "solver-weak" is the solver with weak=True (--weak): who wins, not how fast.
ALGORITHMS = ("minimax", "alphabeta", "solver", "solver-weak")
#: What each algorithm can finish: plain minimax has no pruning (3x3 only: 549,946 nodes);
#: alpha-beta without threat pruning takes minutes beyond 4x4.
FEASIBLE = {
    "minimax": {"3x3k3"},
    "alphabeta": {"3x3k3", "4x4k3", "4x4k4"},
    "solver": set(CASES),
    "solver-weak": set(CASES),
}


def run_one(case: str, algorithm: str) -> dict:
    from gametree import load
    from gametree.search import run as search

    width, height, k = CASES[case][:3]
    game = load().game("tictactoe").create(width=width, height=height, k=k)
    start = time.perf_counter()
    options = {"algorithm": "solver", "weak": True} if algorithm == "solver-weak" else {"algorithm": algorithm}
    result = search(game, all_moves=case == "3x3k3", **options)
    wall = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "case": case,
        "algorithm": algorithm,
        "value": result.value,
        "score": result.score,
        "plies": result.plies_to_end,
        "nodes": result.stats.nodes,
        "seconds": result.stats.seconds,
        "wall": wall,
        "nodes_per_second": result.stats.nodes_per_second,
        "peak_mb": peak_kb / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="only the small cases")
    parser.add_argument("--case", choices=sorted(CASES), action="append", help="run only these cases")
    parser.add_argument("--algorithm", choices=ALGORITHMS, action="append", help="run only these algorithms")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per case before giving up (default 600)")
    parser.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    parser.add_argument("--child", nargs=2, metavar=("CASE", "ALGORITHM"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(*args.child)))
        return

    cases = args.case or [c for c, spec in CASES.items() if spec[4] or not args.quick]
    algorithms = args.algorithm or list(ALGORITHMS)
    header = (
        f"{'case':8} {'algorithm':11} {'result':14} {'nodes':>12} {'seconds':>9} {'nodes/s':>10} {'peak MB':>8}"
        f" {'target':>8}"
    )
    if not args.json:
        print(machine_report("before the runs"), flush=True)
        print(header)
        print("-" * len(header))
    for case in cases:
        for algorithm in algorithms:
            if case not in FEASIBLE[algorithm]:
                if not args.json:
                    print(f"{case:8} {algorithm:11} skipped: far too many nodes for this algorithm")
                continue
            try:
                proc = subprocess.run(
                    [sys.executable, __file__, "--child", case, algorithm],
                    capture_output=True,
                    text=True,
                    timeout=args.timeout,
                )
            except subprocess.TimeoutExpired:
                print(f"{case:8} {algorithm:11} gave up after {args.timeout:.0f} s")
                continue
            if proc.returncode:
                print(f"{case:8} {algorithm:11} failed: {proc.stderr.strip().splitlines()[-1:]}")
                continue
            row = json.loads(proc.stdout)
            expected = CASES[case][3]
            if algorithm == "solver-weak":  # the value and the sign of the score
                expected = (expected[0], (expected[1] > 0) - (expected[1] < 0))
            target = CASES[case][5] if algorithm == "solver" else None
            ok = "" if (row["value"], row["score"]) == expected else f"  WRONG: expected {expected}"
            if target is not None:
                ok = f" {target:>7}s" + (" MISSED" if row["seconds"] > target else "") + ok
            if args.json:
                print(json.dumps(row))
            else:
                result = f"{row['value']} {row['score']:+d} /{row['plies'] if row['plies'] is not None else '-'}"
                print(
                    f"{case:8} {algorithm:11} {result:14} {row['nodes']:>12,} {row['seconds']:>9.3f} "
                    f"{row['nodes_per_second']:>10,.0f} {row['peak_mb']:>8.1f}{ok}",
                    flush=True,
                )
    if not args.json:
        print(machine_report("after the runs"))


if __name__ == "__main__":
    main()
