"""Connect Four benchmarks: Pascal Pons's 7x6 test sets and small boards from the empty position.

Run from the repository root::

    python benchmarks/bench_connect4.py            # full sets and six small boards (about two minutes)
    python benchmarks/bench_connect4.py --quick    # every 10th position, three small boards
    python benchmarks/bench_connect4.py --algorithm solver --time-limit 120

Pons's sets go through the command anyone can rerun,
``gametree solve connect4 --batch FILE --json`` (one process per set, one
cache for the whole set), and the benchmark reads its JSON lines: accuracy
against the published scores, mean search time and nodes per position, and
the whole process's wall time per position (start-up and move parsing
included) and peak memory.  Each set runs ``--repeat`` times (3 by default,
1 with ``--quick``): its process time is the best run's, as :mod:`timeit`
takes the fastest (slower runs were slowed by something else on the machine:
on these shared machines whole minutes run 1.2 to 1.8 times slower), and the
slowest run is printed beside it.  With the solver it also runs ``--weak`` (who
wins, not how fast; its answers are checked against the sign of Pons's
scores).  The processes run with Python's bytecode cache on, as an installed
command does (one warm-up run first), even if ``PYTHONDONTWRITEBYTECODE`` is set,
and with output buffered even if ``PYTHONUNBUFFERED`` is.  Small boards are solved from the empty position in a fresh
process each (root value, best move and principal variation, as
``alphabeta(game, all_moves=False)``), and compared with the published table
``small_boards.csv``: winner, the move number on which the game ends under
perfect play, and the score.  Their "seconds" are the search's (what the
goals measure); "with PV" is the whole call, following the principal
variation to the end included.  Each case runs under ``--time-limit`` seconds
and is reported as a timeout past it.  A fixed loop timed before and after the
runs (:mod:`machine`) shows whether the machine was in a slow spell.  Nothing here is
asserted: the tests check correctness, this prints figures.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from machine import report as machine_report

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "connect4"  # published values, sources in tests/data/README.md
SETS = {"end": "pons_end_easy.txt", "middle": "pons_middle_easy.txt"}
BOARDS = ((4, 4), (5, 4), (6, 4), (4, 5), (5, 5), (4, 6), (6, 5), (7, 5))
#: Issue 7's goals for the solver (one core, pure Python): seconds per empty board,
#: and milliseconds per position for Pons's sets (whole process, start-up included).
BOARD_TARGETS = {(6, 4): 3.0, (6, 5): 20.0, (7, 5): 300.0}
SET_TARGETS = {"end": 0.3, "middle": 2.0}
QUICK_BOARDS = ((4, 4), (5, 4), (4, 5))
WINNERS = {0: "first", 1: "second", None: "draw"}
#: Seconds a command past its time limit gets to stop after Ctrl-C before it is killed.
GRACE = 5.0

_WORKER = """
import json, resource, sys, time
from gametree import load
from gametree.search import run as search
width, height, algorithm = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
game = load().game("connect4").create(width=width, height=height)
start = time.perf_counter()
r = search(game, algorithm=algorithm, all_moves=False)
wall = time.perf_counter() - start
print(json.dumps({"winner": r.winner, "plies": r.plies_to_end, "score": r.score, "nodes": r.stats.nodes,
                  "seconds": r.stats.seconds, "wall": wall, "pv": " ".join(r.pv),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def gametree_command() -> list[str]:
    """The ``gametree`` console script of this Python (or the CLI module run directly)."""
    script = Path(sys.executable).with_name("gametree")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from gametree.cli import main; sys.argv[0] = 'gametree'; main()"]


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    # Time the command as installed and run: bytecode cached, output buffered (these
    # machines set both variables; unbuffered, each line of output is a write of its own).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONUNBUFFERED", None)
    return env


def run_measured(command: list[str], time_limit: float) -> tuple[str, str, float, float, bool]:
    """Run ``command``.

    Returns its stdout, stderr, wall seconds, peak resident MB (of that process alone), and whether it timed out.
    """
    with tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True, env=_environment())
        # Past the limit: Ctrl-C, so that the command writes out what it has solved; then kill.
        stopped = threading.Event()
        timers = (
            threading.Timer(time_limit, lambda: (stopped.set(), process.send_signal(signal.SIGINT))),
            threading.Timer(time_limit + GRACE, process.kill),
        )
        for timer in timers:
            timer.start()
        try:
            with process.stdout:  # type: ignore[union-attr]
                out = process.stdout.read()  # type: ignore[union-attr]
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            for timer in timers:
                timer.cancel()
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4: tell Popen
        err.seek(0)
        timed_out = stopped.is_set()
        return out, err.read(), wall, usage.ru_maxrss / 1024, timed_out


def run_set(name: str, algorithm: str, step: int, time_limit: float, weak: bool = False) -> dict[str, object]:
    """Run one of Pons's sets (every ``step``-th line) through ``gametree solve --batch``."""
    lines = [line for line in (DATA / SETS[name]).read_text().splitlines() if line.strip()][::step]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    command = [
        *gametree_command(),
        "solve",
        "connect4",
        "--algorithm",
        algorithm,
        "--batch",
        path,
        "--json",
        "--no-store",  # (the default store would answer from what an earlier run proved: no search timed)
        *(["--weak"] if weak else []),
    ]
    try:
        out, err, wall, peak_mb, timed_out = run_measured(command, time_limit)
    finally:
        os.unlink(path)
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    if not rows and not timed_out:
        raise SystemExit(f"gametree failed on {name}: {err.strip()}")
    solved = len(rows)
    # A weak answer is the sign of the score.
    right = (
        (lambda r: r["score"] == (r["expected"] > 0) - (r["expected"] < 0))
        if weak
        else (lambda r: r["score"] == r["expected"])
    )
    mean_ms = 1000 * sum(r["seconds"] for r in rows) / max(solved, 1)
    mean_nodes = sum(r["nodes"] for r in rows) / max(solved, 1)
    return {
        "set": name,
        "algorithm": algorithm + (" --weak" if weak else ""),
        "positions": len(lines),
        "solved": solved,
        "matched": sum(map(right, rows)),
        "mean_ms": mean_ms,
        "mean_nodes": mean_nodes,
        "nodes_per_s": 1000 * mean_nodes / mean_ms if mean_ms else 0.0,
        "process_ms": 1000 * wall / max(solved, 1),
        "peak_mb": peak_mb,
        "timed_out": timed_out,
    }


def run_board(width: int, height: int, algorithm: str, time_limit: float) -> dict[str, object] | None:
    """Solve an empty board in a fresh process; None past the time limit."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _WORKER, str(width), str(height), algorithm],
            capture_output=True,
            text=True,
            timeout=time_limit,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise SystemExit(f"{width}x{height} failed: {done.stderr.strip().splitlines()[-1]}")
    return json.loads(done.stdout)


def target_note(width: int, height: int, algorithm: str, r: dict[str, object]) -> str:
    target = BOARD_TARGETS.get((width, height))
    if target is None or algorithm != "solver":
        return ""
    return f"  target {target:g} s " + ("MISSED" if float(r["seconds"]) > target else "met")  # type: ignore[arg-type]


def published() -> dict[tuple[int, int], dict[str, str]]:
    with (DATA / "small_boards.csv").open() as f:
        return {(int(r["width"]), int(r["height"])): r for r in csv.DictReader(f)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="every 10th position of each set, boards 4x4, 5x4, 4x5")
    parser.add_argument(
        "--time-limit", type=float, default=600.0, metavar="SECONDS", help="per set and per board (default 600)"
    )
    parser.add_argument(
        "--algorithm", choices=("alphabeta", "solver", "both"), default="both", help="search algorithm (default: both)"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        metavar="N",
        help="runs of each set, the best one reported (default 3; 1 with --quick)",
    )
    parser.add_argument("--skip-sets", action="store_true", help="only the small boards")
    parser.add_argument("--skip-boards", action="store_true", help="only Pons's sets")
    args = parser.parse_args(argv)
    if not DATA.is_dir():
        parser.error(f"published data not found in {DATA}")
    algorithms = ("alphabeta", "solver") if args.algorithm == "both" else (args.algorithm,)
    step = 10 if args.quick else 1
    repeat = args.repeat if args.repeat is not None else 1 if args.quick else 3
    if repeat < 1:
        parser.error("--repeat must be at least 1")
    failures = 0
    print(machine_report("before the runs"), flush=True)

    if not args.skip_sets:
        print(
            "Pons's 7x6 test sets via 'gametree solve connect4 --batch'"
            f" ({'every 10th position' if args.quick else 'all positions'})"
        )
        if repeat > 1:
            print(
                f"'process ms' (wall time per position, start-up included) is the best of {repeat} runs;"
                " 'slowest' the slowest"
            )
        print(
            f"{'set':<8} {'algorithm':<16} {'positions':>9} {'matched':>9} {'mean ms':>9} {'nodes':>9} {'nodes/s':>9}"
            f" {'process ms':>11} {'slowest':>8} {'peak MB':>8}"
        )
        run_measured([*gametree_command(), "--version"], args.time_limit)  # warm-up: bytecode written, files cached
        for name in SETS:
            for algorithm, weak in [(a, w) for a in algorithms for w in ((False, True) if a == "solver" else (False,))]:
                runs = [run_set(name, algorithm, step, args.time_limit, weak) for _ in range(repeat)]
                # The fastest complete run (a run cut short solved fewer positions).
                r = min(runs, key=lambda run: (bool(run["timed_out"]), float(run["process_ms"])))  # type: ignore[arg-type]
                slowest = max(float(run["process_ms"]) for run in runs)  # type: ignore[arg-type]
                late = sum(bool(run["timed_out"]) for run in runs)
                note = f"  TIMEOUT after {args.time_limit:g} s ({r['solved']} solved)" if r["timed_out"] else ""
                if late and not r["timed_out"]:
                    note += f"  ({late} of {repeat} runs timed out)"
                if algorithm == "solver" and not weak and not args.quick:
                    target = SET_TARGETS[name]
                    note += f"  target {target:g} ms" + (" MISSED" if r["process_ms"] > target else " met")
                print(
                    f"{name:<8} {r['algorithm']:<16} {r['positions']:>9} {r['matched']:>5}/{r['solved']:<3}"
                    f" {r['mean_ms']:>9.3f} {r['mean_nodes']:>9.1f} {r['nodes_per_s']:>9,.0f}"
                    f" {r['process_ms']:>11.3f} {slowest:>8.3f} {r['peak_mb']:>8.0f}{note}",
                    flush=True,
                )
                failures += any(run["matched"] != run["positions"] for run in runs)
        print()

    if not args.skip_boards:
        table = published()
        print("Small boards from the empty position (4 in a row), against small_boards.csv")
        print(
            "'seconds' is the search (the goals' measure); 'with PV' adds following the line of perfect play to the end"
        )
        print(
            f"{'board':<6} {'algorithm':<10} {'result':<7} {'plies':>5} {'score':>5} {'nodes':>10} {'seconds':>8}"
            f" {'with PV':>8} {'peak MB':>8}  published"
        )
        for width, height in QUICK_BOARDS if args.quick else BOARDS:
            row = table[(width, height)]
            expect = f"{row['winner']}, move {row['last_move']}, score {row['empty_board_score']}"
            for algorithm in algorithms:
                r = run_board(width, height, algorithm, args.time_limit)
                if r is None:
                    print(
                        f"{width}x{height:<4} {algorithm:<10} TIMEOUT after {args.time_limit:g} s{'':>36}  {expect}",
                        flush=True,
                    )
                    failures += 1
                    continue
                ok = (WINNERS[r["winner"]], str(r["plies"]), str(r["score"])) == (
                    row["winner"],
                    row["last_move"],
                    row["empty_board_score"],
                )
                failures += not ok
                print(
                    f"{width}x{height:<4} {algorithm:<10} {WINNERS[r['winner']]:<7} {r['plies']:>5} {r['score']:>5}"
                    f" {r['nodes']:>10,} {r['seconds']:>8.2f} {r['wall']:>8.2f} {r['peak_mb']:>8.0f}  {expect}"
                    f"  {'ok' if ok else 'MISMATCH'}{target_note(width, height, algorithm, r)}",
                    flush=True,
                )
    print(machine_report("after the runs"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
