"""bench_othello.py on two checkouts, alternately: nodes and seconds per position of Feinstein's 6x6 line.

Run from the repository root::

    python benchmarks/ab_othello.py --old /path/to/old-venv/bin/python --moves 14,12,10 --rounds 2

Each round solves each position (``--from k --to k`` of this checkout's bench_othello.py, the compiled
engine, a fresh process) under this Python, then under the old checkout's (its environment's editable
install, with its own ``GAMETREE_CACHE_DIR``), so that a slow spell of the shared machine falls on both.  It prints,
per position, the margin each found (they must agree), the nodes of each and the median seconds of each.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROW = re.compile(r"^\s*(?P<move>\d+)\s+(?P<empty>\d+)\s+(?P<margin>[+-]?\d+)\s+\S+\s+(?P<nodes>[\d,]+)\s+(?P<s>[\d.]+)")


def run(python: str, cache: str, move: int) -> tuple[int, int, int, float]:
    """(empty squares, margin, nodes, seconds) of the line's position after ``move`` moves, under ``python``."""
    env = dict(os.environ, GAMETREE_CACHE_DIR=cache)
    script = str(HERE / "bench_othello.py")
    cmd = [python, script, "--from", str(move), "--to", str(move), "--time-limit", "3600"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env, cwd=str(HERE))
    for line in done.stdout.splitlines():
        m = ROW.match(line)
        if m:
            return int(m["empty"]), int(m["margin"]), int(m["nodes"].replace(",", "")), float(m["s"])
    raise SystemExit(f"{python} move {move}: {done.stdout[-400:]} {done.stderr[-800:]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="the old checkout's Python")
    parser.add_argument("--old-cache", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "gtcache-ab-old"))
    parser.add_argument("--new-cache", default=os.environ.get("GAMETREE_CACHE_DIR", ""))
    parser.add_argument("--moves", default="14,12,10", help="the line's positions, by moves played")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    new_cache = args.new_cache or os.path.join(os.environ.get("TMPDIR", "/tmp"), "gtcache-ab-new")
    moves = [int(x) for x in args.moves.split(",")]
    seen: dict[tuple[int, str], list[tuple[int, int, int, float]]] = {}
    for _ in range(args.rounds):
        for move in moves:
            for label, python, cache in (("new", sys.executable, new_cache), ("old", args.old, args.old_cache)):
                seen.setdefault((move, label), []).append(run(python, cache, move))
    print(
        f"{'move':>4} {'empty':>5} {'old':>4} {'new':>4} {'old nodes':>13} {'new nodes':>13} {'old s':>7} {'new s':>7}"
    )
    for move in moves:
        old, new = seen[(move, "old")], seen[(move, "new")]
        old_s, new_s = statistics.median(r[3] for r in old), statistics.median(r[3] for r in new)
        print(
            f"{move:>4} {old[0][0]:>5} {old[0][1]:>+4} {new[0][1]:>+4} {old[0][2]:>13,} {new[0][2]:>13,}"
            f" {old_s:>7.2f} {new_s:>7.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
