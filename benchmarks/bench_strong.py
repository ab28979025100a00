"""Time strong solutions (every reachable position proven) of small boards.

    python benchmarks/bench_strong.py            # 3x3 tic-tac-toe, 4x4 and 5x4 Connect Four
    python benchmarks/bench_strong.py --quick    # without 5x4 (a few seconds)
    python benchmarks/bench_strong.py --case c4-5x4 --json

Each case runs :func:`gametree.search.solve_strongly` in a fresh subprocess so that its peak
memory (max RSS of that process, Python and the game loaded included) is its own.  ``seconds``
is the solve's own wall time (enumeration and scoring); positions per second count the
reachable positions (mirror images apart).  The positions found are checked against the
published counts in tests/data/strong_counts.json.  A fixed loop timed before and after the
runs (:mod:`machine`) shows whether the machine was in a slow spell (not with ``--json``).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from machine import report as machine_report

COUNTS = Path(__file__).resolve().parent.parent / "tests" / "data" / "strong_counts.json"

# name: (game, options, quick?)
CASES = {
    "ttt-3x3": ("tictactoe", {"size": 3}, True),
    "c4-4x4": ("connect4", {"width": 4, "height": 4}, True),
    "c4-5x4": ("connect4", {"width": 5, "height": 4}, False),
}


def published(game: str, options: dict[str, int]) -> int | None:
    """The published number of reachable positions of a case, if tests/data/strong_counts.json has it."""
    width = options.get("width", options.get("size"))
    height = options.get("height", options.get("size"))
    for entry in json.loads(COUNTS.read_text(encoding="utf-8")).get(game, []):
        if (entry["width"], entry["height"]) == (width, height):
            return entry["published"].get("positions")
    return None


def run_one(case: str) -> dict[str, object]:
    from gametree import load
    from gametree.search import solve_strongly

    name, options, _ = CASES[case]
    game = load().game(name).create(**options)
    started = time.perf_counter()
    solved = solve_strongly(game)
    wall = time.perf_counter() - started
    start_key = next(iter(solved.images))  # the start's class, the first one met
    return {
        "case": case,
        "positions": solved.positions,
        "classes": len(solved.scores),
        "plies": len(solved.per_ply),
        "start_score": solved.scores[start_key],
        "seconds": solved.seconds,
        "wall": wall,
        "positions_per_second": solved.positions / solved.seconds if solved.seconds > 0 else 0.0,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="only the small cases (not 5x4 Connect Four)")
    parser.add_argument("--case", choices=sorted(CASES), action="append", help="run only these cases")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per case before giving up (default 1800)")
    parser.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    parser.add_argument("--child", metavar="CASE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(args.child)))
        return

    cases = args.case or [c for c, spec in CASES.items() if spec[2] or not args.quick]
    header = (
        f"{'case':8} {'positions':>10} {'classes':>10} {'start':>6} {'seconds':>9} {'positions/s':>12} {'peak MB':>8}"
        "  published"
    )
    if not args.json:
        print(machine_report("before the runs"), flush=True)
        print(header)
        print("-" * len(header))
    failed = False
    for case in cases:
        try:
            proc = subprocess.run(
                [sys.executable, __file__, "--child", case], capture_output=True, text=True, timeout=args.timeout
            )
        except subprocess.TimeoutExpired:
            print(f"{case:8} gave up after {args.timeout:.0f} s")
            failed = True
            continue
        if proc.returncode:
            print(f"{case:8} failed: {proc.stderr.strip().splitlines()[-1:]}")
            failed = True
            continue
        row = json.loads(proc.stdout)
        expected = published(*CASES[case][:2])
        check = (
            "-" if expected is None else f"{expected:,} ok" if expected == row["positions"] else f"{expected:,} WRONG"
        )
        failed |= check.endswith("WRONG")
        if args.json:
            print(json.dumps(row | {"published": expected}))
        else:
            print(
                f"{case:8} {row['positions']:>10,} {row['classes']:>10,} {row['start_score']:>+6d}"
                f" {row['seconds']:>9.2f} {row['positions_per_second']:>12,.0f} {row['peak_mb']:>8.0f}  {check}",
                flush=True,
            )
    if not args.json:
        print(machine_report("after the runs"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
