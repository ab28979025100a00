"""bench_kernel.py under two Pythons (two checkouts' environments), alternately, round after round.

Run from the repository root::

    python benchmarks/ab_kernel.py --old /path/to/old-venv/bin/python --rounds 3

Each round runs every workload of bench_kernel.py in a process of the new Python (this one), then in
one of the old (its own ``GAMETREE_CACHE_DIR``, given by ``--old-cache``), in turn, so that a slow
spell of the shared machine falls on both.  It prints, per workload, the nodes of each (they must
not rise) and the median ns per node of each with their ratio (new / old: below 1, new is faster).
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
LINE = re.compile(r"^(?P<name>.+?)\s+(?P<count>\d+) positions\s+(?P<nodes>[\d,]+) nodes .* (?P<ns>[\d.]+) ns/node")


def run(python: str, cache: str | None, workload: str) -> tuple[str, int, float]:
    env = dict(os.environ)
    if cache is not None:
        env["GAMETREE_CACHE_DIR"] = cache
    done = subprocess.run(
        [python, str(HERE / "bench_kernel.py"), "--only", workload],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd="/",
    )
    for line in done.stdout.splitlines():
        m = LINE.match(line)
        if m:
            return m["name"].strip(), int(m["nodes"].replace(",", "")), float(m["ns"])
    raise SystemExit(f"{python} {workload}: {done.stdout[-400:]} {done.stderr[-800:]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="the old checkout's Python")
    parser.add_argument("--old-cache", help="GAMETREE_CACHE_DIR for the old one")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", action="append", default=None)
    args = parser.parse_args()
    workloads = args.only or ["middle", "end", "random", "deep", "ttt", "othello"]
    ns: dict[tuple[str, str], list[float]] = {}
    nodes: dict[tuple[str, str], int] = {}
    names: dict[str, str] = {}
    for _ in range(args.rounds):
        for workload in workloads:
            for label, python, cache in (("new", sys.executable, None), ("old", args.old, args.old_cache)):
                name, n, t = run(python, cache, workload)
                names[workload] = name
                nodes[workload, label] = n
                ns.setdefault((workload, label), []).append(t)
    print(
        f"{'workload':<36} {'old nodes':>13} {'new nodes':>13} {'old ns/node':>11} {'new ns/node':>11} {'new/old':>8}"
    )
    for workload in workloads:
        old, new = statistics.median(ns[workload, "old"]), statistics.median(ns[workload, "new"])
        print(
            f"{names[workload]:<36} {nodes[workload, 'old']:>13,} {nodes[workload, 'new']:>13,}"
            f" {old:>11.1f} {new:>11.1f} {new / old:>8.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
