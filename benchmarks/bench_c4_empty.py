"""The empty 7x6 Connect Four board: gametree's compiled engine beside Pascal Pons's solver, in one run.

Run from the repository root (Pons's solver is built at run time from his public sources, as
``compare.py --references`` builds it; his code is never copied here)::

    python benchmarks/bench_c4_empty.py --pons https://github.com/PascalPons/connect4
    python benchmarks/bench_c4_empty.py --pons ~/src/connect4 --columns      # every column's score too

Pons's solver is built with compare.py's recipe (:func:`compare.build_pons`). The score of the
empty board (the first player wins, score +1), then with ``--columns`` every column's exact
score: gametree's ``gametree solve connect4 --workers 2`` (its whole process, two worker
processes) against Pons's solver solving the seven positions after each first move in one
process with his table kept (one core: he has no parallel search). Each engine runs in a process
of its own, one after the other, so each has the machine to itself as far as the machine allows;
a fixed loop timed before and after (:mod:`machine`) shows a slow spell. The engines' times are
the search calls' (CPU time of the search for gametree's score) and the whole processes' (wall
time), with the nodes each counted. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compare import build_pons
from machine import report as machine_report

ROOT = Path(__file__).resolve().parents[1]

#: gametree's score of the empty board, in a process of its own: nodes, search CPU and wall seconds.
OURS = """
import json, time
from gametree import load, play_text
from gametree.search.solver import Solver
game = load().game("connect4").create(width=7, height=6)
Solver(game, engine="compiled").score(play_text(game, "4444433322"))  # (numba loads the engine here)
solver = Solver(game, engine="compiled")
wall, cpu = time.perf_counter(), time.process_time()
result = solver.solve(game.initial_state(), all_moves=False, pv=False)
print(json.dumps({"score": result.score, "nodes": result.stats.nodes,
                  "cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall,
                  "table": str(solver.engine.table_fill())}))
"""


def pons(binary: Path, lines: list[str]) -> list[tuple[int, int, float]]:
    """Pons's (score, nodes, search seconds) of each line, his table kept across them."""
    out = subprocess.run([str(binary)], input="".join(f"{line}\n" for line in lines), capture_output=True, text=True)
    rows = []
    for line in out.stdout.splitlines():
        *_, score, nodes, micros = line.split()
        rows.append((int(score), int(nodes), float(micros) / 1e6))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pons", required=True, help="Pons's sources: a folder, or anything git clone takes")
    parser.add_argument("--columns", action="store_true", help="every column's score too (--workers 2 for ours)")
    args = parser.parse_args()
    print(machine_report("before the runs"))
    with tempfile.TemporaryDirectory(prefix="gametree-pons-") as folder:
        binary = build_pons(args.pons, Path(folder))
        print("| case | engine | score | nodes | search s | process s |")
        print("|---|---|---:|---:|---:|---:|")
        started = time.perf_counter()
        ours = json.loads(subprocess.run([sys.executable, "-c", OURS], capture_output=True, text=True).stdout)
        process = time.perf_counter() - started
        print(
            f"| empty, score | gametree compiled | {ours['score']:+d} | {ours['nodes']:,} | {ours['cpu']:.1f} (CPU; "
            f"{ours['wall']:.1f} wall) | {process:.1f} |",
            flush=True,
        )
        started = time.perf_counter()
        ((score, nodes, seconds),) = pons(binary, ["-"])
        process = time.perf_counter() - started
        print(f"| empty, score | Pons | {score:+d} | {nodes:,} | {seconds:.1f} | {process:.1f} |", flush=True)
        print(f"table of gametree's: {ours['table']}")
        if args.columns:
            command = [sys.executable, "-m", "gametree", "solve", "connect4", "--workers", "2", "--no-store", "--json"]
            started = time.perf_counter()
            answer = json.loads(subprocess.run(command, capture_output=True, text=True).stdout)
            process = time.perf_counter() - started
            scores = " ".join(f"{m['move']}:{m['score']:+d}" for m in answer["move_values"])
            nodes = answer["stats"]["nodes"]
            print(f"| every column | gametree --workers 2 | {scores} | {nodes:,} | | {process:.1f} |")
            started = time.perf_counter()
            rows = pons(binary, [str(column) for column in range(1, 8)])
            process = time.perf_counter() - started
            scores = " ".join(f"{c}:{-s:+d}" for c, (s, _, _) in enumerate(rows, start=1))
            total = sum(n for _, n, _ in rows)
            print(f"| every column | Pons | {scores} | {total:,} | {sum(t for *_, t in rows):.1f} | {process:.1f} |")
    print(machine_report("after the runs"))


if __name__ == "__main__":
    main()
