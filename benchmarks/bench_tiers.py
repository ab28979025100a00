"""Time tier builds (every reachable position, value and remoteness, in flat arrays).

    python benchmarks/bench_tiers.py                 # 3x3 tic-tac-toe, 4x4, 5x4 and 5x5 Connect Four
    python benchmarks/bench_tiers.py --quick         # without 5x5 (a few seconds)
    python benchmarks/bench_tiers.py --case c4-5x5 --json
    python benchmarks/bench_tiers.py --case c4-5x5 --disk   # into a tier directory (gametree.tier_book)
    python benchmarks/bench_tiers.py --case c4-5x5 --workers 2  # each tier split over 2 processes

Each case runs :func:`gametree.search.tiers.solve_tiers` (in memory, or with ``--disk`` into a
temporary tier directory) in a fresh subprocess, once to compile (a small board of the same game
first, so the timed build does not include numba's compile), so that its peak memory (max RSS of
that process) is its own.  ``seconds`` is the build's wall time; positions per second count the
reachable positions.  The counts are checked: the positions against tests/data/strong_counts.json,
and on 5x5 (and 6x5, run only when named) every ply's wins, draws and losses against Böck's tables
(tests/data/connect4/boeck_5x5_per_ply.csv, boeck_6x5_per_ply.csv).
"""

from __future__ import annotations

import argparse
import csv
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import report as machine_report

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"

# name: (game, options, quick?)
CASES = {
    "ttt-3x3": ("tictactoe", {"size": 3}, True),
    "c4-4x4": ("connect4", {"width": 4, "height": 4}, True),
    "c4-5x4": ("connect4", {"width": 5, "height": 4}, True),
    "c4-5x5": ("connect4", {"width": 5, "height": 5}, False),
    "c4-6x5": ("connect4", {"width": 6, "height": 5}, False),  # only when named: about 10 GB of arrays
}
BOECK = {"c4-5x5": "boeck_5x5_per_ply.csv", "c4-6x5": "boeck_6x5_per_ply.csv"}
WARM = {"tictactoe": {"size": 3}, "connect4": {"width": 4, "height": 4}}


def expected(case: str) -> tuple[int | None, list[tuple[int, int, int]] | None]:
    """The published positions and (5x5) per-ply wins, draws and losses of a case."""
    name, options, _ = CASES[case]
    width, height = options.get("width", options.get("size")), options.get("height", options.get("size"))
    counts = json.loads((DATA / "strong_counts.json").read_text(encoding="utf-8"))
    positions = next(
        (e["published"]["positions"] for e in counts.get(name, []) if (e["width"], e["height"]) == (width, height)),
        None,
    )
    if case not in BOECK:
        return positions, None
    with (DATA / "connect4" / BOECK[case]).open(encoding="utf-8") as f:
        table = [(int(r["wins"]), int(r["draws"]), int(r["losses"])) for r in csv.DictReader(f)]
    return sum(map(sum, table)), table


def run_one(case: str, disk: bool, workers: int) -> dict[str, object]:
    from gametree import load
    from gametree.search.tiers import solve_tiers
    from gametree.tier_book import build_tier_book

    name, options, _ = CASES[case]
    solve_tiers(load().game(name).create(**WARM[name]))  # compiled (or loaded from numba's cache) here
    game = load().game(name).create(**options)
    started = time.perf_counter()
    if disk or workers > 1 or case == "c4-6x5":  # (6x5 in memory would hold all 10 GB of its arrays)
        with tempfile.TemporaryDirectory() as folder:
            solution = build_tier_book(game, name, Path(folder) / "tiers", workers=workers)
            stored = sum(p.stat().st_size for p in (Path(folder) / "tiers").iterdir())
    else:
        solution = solve_tiers(game)
        stored = 0
    wall = time.perf_counter() - started
    return {
        "case": case,
        "positions": solution.positions,
        "indices": sum(c.size for c in solution.counts),
        "per_ply": [(c.wins, c.draws, c.losses) for c in solution.counts],
        "seconds": wall,
        "positions_per_second": solution.positions / wall if wall > 0 else 0.0,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "disk_bytes": stored,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="only the small cases (not 5x5 Connect Four)")
    parser.add_argument("--case", choices=sorted(CASES), action="append", help="run only these cases")
    parser.add_argument("--disk", action="store_true", help="build into a temporary tier directory")
    parser.add_argument("--workers", type=int, default=1, help="split each tier over N processes (implies --disk)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per case before giving up (default 1800)")
    parser.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    parser.add_argument("--child", metavar="CASE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(args.child, args.disk, args.workers)))
        return
    cases = args.case or [c for c, spec in CASES.items() if (spec[2] or not args.quick) and c != "c4-6x5"]
    header = f"{'case':8} {'positions':>11} {'indices':>12} {'seconds':>8} {'positions/s':>12} {'peak MB':>8}  checked"
    if not args.json:
        print(machine_report("before the runs"), flush=True)
        print(header)
        print("-" * len(header))
    failed = False
    for case in cases:
        command = [sys.executable, __file__, "--child", case, "--workers", str(args.workers)]
        command += ["--disk"] if args.disk else []
        try:
            proc = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"{case:8} gave up after {args.timeout:.0f} s")
            failed = True
            continue
        if proc.returncode:
            print(f"{case:8} failed: {proc.stderr.strip().splitlines()[-1:]}")
            failed = True
            continue
        row = json.loads(proc.stdout)
        positions, table = expected(case)
        good = positions in (None, row["positions"]) and table in (None, [tuple(t) for t in row["per_ply"]])
        check = ("ok" if good else "WRONG") + (" (per ply: Böck)" if table else "")
        failed |= not good
        if args.json:
            print(json.dumps(row | {"published": positions, "checked": good}))
        else:
            print(
                f"{case:8} {row['positions']:>11,} {row['indices']:>12,} {row['seconds']:>8.2f}"
                f" {row['positions_per_second']:>12,.0f} {row['peak_mb']:>8.0f}  {check}",
                flush=True,
            )
    if not args.json:
        print(machine_report("after the runs"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
