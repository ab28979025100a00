"""Two versions of gametree side by side in one run: node counts and the ratio of search times.

This machine is shared and noisy, so a lone wall time says little; what a change
did to speed is read from the same searches run by the old and the new code in
alternating rounds, one after the other, in the same minutes.  Each Python
interpreter given runs ``gametree solve ... --json`` from its own installation
(a virtual environment with the other checkout installed, for example one made
with ``git worktree add ../base REV`` and ``pip install -e ../base``)::

    python benchmarks/versions.py --base ../venv-base/bin/python            # against this checkout's python
    python benchmarks/versions.py --base OLD/bin/python --new NEW/bin/python --rounds 5

For every case it prints the node counts of both (a restructuring must keep
them equal: they are compared, and a difference is marked), the best search
time of each over the rounds and the ratio new/base of those (below 1: the new
code is faster).  Search times are the searches' own (``stats.seconds``), not
the processes': start-up is not what these cases measure.  Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PONS = ROOT / "tests" / "data" / "connect4"  # published sets, sources in tests/data/README.md


@dataclass(frozen=True)
class Case:
    """One search: the ``gametree solve`` arguments; ``batch``: a file of positions, one per line."""

    name: str
    args: tuple[str, ...]
    batch: str | None = None


CASES = (
    Case("tictactoe 3x3 minimax (python)", ("tictactoe", "--size", "3", "-a", "minimax")),
    Case("tictactoe 3x3 alphabeta (python)", ("tictactoe", "--size", "3", "-a", "alphabeta")),
    Case("tictactoe 4x4 k=3 solver (python)", ("tictactoe", "--size", "4", "--k", "3", "--engine", "python")),
    Case(
        "connect4 5x4 solver (python)",
        ("connect4", "--width", "5", "--height", "4", "--engine", "python", "--best-only"),
    ),
    Case(
        "connect4 6x4 solver (python)",
        ("connect4", "--width", "6", "--height", "4", "--engine", "python", "--best-only"),
    ),
    Case(
        "connect4 6x5 solver (compiled)",
        ("connect4", "--width", "6", "--height", "5", "--engine", "compiled", "--best-only"),
    ),
    Case("Pons end-easy, every 10th (python)", ("connect4", "--engine", "python"), "pons_end_easy.txt"),
    Case("Pons middle-easy, every 10th (python)", ("connect4", "--engine", "python"), "pons_middle_easy.txt"),
    Case("Pons middle-easy, all (compiled)", ("connect4", "--engine", "compiled"), "pons_middle_easy.txt"),
)


def batch_file(name: str, step: int, folder: str) -> str:
    """Every ``step``-th position of one of Pons's sets (the moves alone), written to ``folder``."""
    lines = (PONS / name).read_text().split("\n")
    moves = [line.split()[0] for line in lines if line.strip()][::step]
    path = os.path.join(folder, f"{name}.{step}")
    Path(path).write_text("\n".join(moves) + "\n")
    return path


def run(python: str, case: Case, folder: str) -> tuple[int, float]:
    """Nodes and search seconds of ``case`` run by ``python``'s gametree."""
    command = [python, "-m", "gametree", "solve", *case.args, "--json", "--no-store", "--no-progress"]
    if case.batch is not None:
        step = 1 if "compiled" in case.name else 10
        command += ["--batch", batch_file(case.batch, step, folder)]
    env = {**os.environ, "GAMETREE_STORE": "none", "PYTHONDONTWRITEBYTECODE": ""}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=folder, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{python}: {' '.join(command[3:])} failed: {done.stderr.strip()[-300:]}")
    if case.batch is None:
        stats = json.loads(done.stdout)["stats"]
        return int(stats["nodes"]), float(stats["seconds"])
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return sum(int(r["nodes"]) for r in rows), sum(float(r["seconds"]) for r in rows)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", required=True, help="the old version's Python (its gametree is the base)")
    parser.add_argument("--new", default=sys.executable, help="the new version's Python (default: this one)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--case", action="append", help="run only cases whose name contains this text")
    args = parser.parse_args()
    cases = [c for c in CASES if not args.case or any(text in c.name for text in args.case)]
    print(f"base: {args.base}\nnew:  {args.new}\n{args.rounds} alternating rounds; best search time of each\n")
    print(f"{'case':42} {'nodes base':>12} {'nodes new':>12} {'base s':>9} {'new s':>9} {'new/base':>9}")
    ratios = []
    with tempfile.TemporaryDirectory() as folder:
        for case in cases:
            times: dict[str, list[float]] = {"base": [], "new": []}
            nodes: dict[str, int] = {}
            for _ in range(args.rounds):
                for side, python in (("base", args.base), ("new", args.new)):
                    nodes[side], seconds = run(python, case, folder)
                    times[side].append(seconds)
            best = {side: min(t) for side, t in times.items()}
            ratio = best["new"] / best["base"] if best["base"] > 0 else float("nan")
            ratios.append(ratio)
            mark = "" if nodes["base"] == nodes["new"] else "  NODES DIFFER"
            print(
                f"{case.name:42} {nodes['base']:>12,} {nodes['new']:>12,} {best['base']:>9.3f} {best['new']:>9.3f}"
                f" {ratio:>9.2f}{mark}",
                flush=True,
            )
    print(f"\nmedian ratio new/base: {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
