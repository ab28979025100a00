"""``--engine auto`` against ``compiled`` and ``python``, whole processes, side by side in one run.

Run from the repository root::

    python benchmarks/bench_auto.py                      # this checkout's engines and BitBully, 5 rounds
    python benchmarks/bench_auto.py --old /work/main     # and another checkout's auto (its gametree package)
    python benchmarks/bench_auto.py --old /old-venv/bin/python --old-cache /tmp/old-cache  # another install's

Each case is one ``gametree solve`` process (``--no-store``): Pons's end-easy and middle-easy sets
(1000 positions, ``--batch``), the first 10 and the first 1 of middle-easy, and empty boards
whose work lies near ``auto``'s break-even (5x4 Connect Four, 4x4 and 5x4 k=4 tic-tac-toe, scores
only).  Every command of a case runs once a round, in turn, so that a slow spell of the shared
machine falls on all; the table gives the fastest and the median wall time of ``--repeat`` rounds
and the median's ratio to BitBully's (a Python process solving the same file with ``mtdf``; Connect
Four 7x6 only).  The compiled code must be in the cache already (run any compiled solve first).
Nothing is asserted; the exit status is 1 if an answer differs between the commands.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_compiled import bitbully_command, write_lines  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "connect4"


def cli(root: str | None) -> list[str]:
    """The gametree CLI of this checkout (None), of the checkout at ``root`` (its package first on the
    path: the games are this checkout's) or of the Python ``root`` (another environment's install)."""
    code = "import sys; from gametree.cli import main; sys.argv[0] = 'gametree'; main()"
    if root is None:
        return [sys.executable, "-c", code]
    if Path(root).is_file():
        return [root, "-c", code]
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {root!r}); {code}"]


def cases(sets: dict[str, str]) -> list[tuple[str, list[str], str | None]]:
    """(name, the solve's arguments after ``gametree solve``, the batch file for BitBully or None)."""
    out: list[tuple[str, list[str], str | None]] = []
    for name, path in sets.items():
        out.append((name, ["connect4", "--batch", path, "--json"], path))
    out.append(("c4 5x4 empty", ["connect4", "--width", "5", "--height", "4", "--json", "--best-only"], None))
    out.append(("ttt 4x4 k4 empty", ["tictactoe", "--size", "4", "--k", "4", "--json", "--best-only"], None))
    out.append(
        ("ttt 5x4 k4 empty", ["tictactoe", "--width", "5", "--height", "4", "--k", "4", "--json", "--best-only"], None)
    )
    return out


def run(command: list[str], cache: str | None = None) -> tuple[float, str]:
    env = {**os.environ, "GAMETREE_CACHE_DIR": cache} if cache else None
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env, cwd="/" if cache else None)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:3])}... failed: {done.stderr.strip()[-500:]}")
    scores = [json.loads(line).get("score") for line in done.stdout.splitlines() if line.startswith("{")]
    return wall, json.dumps(scores)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--old", metavar="CHECKOUT", help="also another checkout's auto (a folder, or a Python)")
    parser.add_argument("--old-cache", metavar="FOLDER", help="GAMETREE_CACHE_DIR for the old one")
    parser.add_argument("--skip-boards", action="store_true", help="Pons's sets only")
    args = parser.parse_args(argv)
    lines = {
        name: [line.split()[0] for line in (DATA / file).read_text().splitlines() if line.strip()]
        for name, file in (("end-easy", "pons_end_easy.txt"), ("middle-easy", "pons_middle_easy.txt"))
    }
    sets = {
        "end-easy 1000": write_lines(lines["end-easy"]),
        "middle-easy 1000": write_lines(lines["middle-easy"]),
        "middle-easy 10": write_lines(lines["middle-easy"][:10]),
        "middle-easy 1": write_lines(lines["middle-easy"][:1]),
    }
    print(f"{'case':<18} {'command':<16} {'fastest s':>9} {'median s':>9} {'vs BitBully':>11}")
    failures = 0
    for name, arguments, batch in cases(sets)[: len(sets) if args.skip_boards else None]:
        commands = {
            f"new {e}": [*cli(None), "solve", *arguments, "--no-store", "--engine", e]
            for e in ("auto", "compiled", "python")
        }
        if args.old:
            commands["old auto"] = [*cli(args.old), "solve", *arguments, "--no-store", "--engine", "auto"]
        if batch is not None:
            commands["BitBully"] = bitbully_command(batch, fresh=False)
        walls: dict[str, list[float]] = {label: [] for label in commands}
        answers: dict[str, str] = {}
        for _ in range(args.repeat):
            for label, command in commands.items():
                wall, scores = run(command, args.old_cache if label == "old auto" else None)
                walls[label].append(wall)
                answers[label] = scores
        failures += len({a for label, a in answers.items() if label != "BitBully"}) != 1
        base = statistics.median(walls["BitBully"]) if "BitBully" in walls else None
        for label, w in walls.items():
            ratio = f"x{statistics.median(w) / base:.2f}" if base else ""
            print(f"{name:<18} {label:<16} {min(w):>9.3f} {statistics.median(w):>9.3f} {ratio:>11}", flush=True)
    for path in sets.values():
        os.unlink(path)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
