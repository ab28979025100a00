"""Where the start-up of a process that does one compiled search goes, and what each engine choice costs for short work.

Run from the repository root::

    python benchmarks/bench_startup.py              # 5 runs of each step, the fastest reported
    python benchmarks/bench_startup.py --repeat 9

It needs numba (the compiled engine).  Three parts:

1. Steps of one process, each timed in it (``import gametree``; the plugins
   loaded and a 7x6 Connect Four game made; ``import numba``; a one-line
   numba function loaded from its cache, which is numba's own floor: its
   compiler's and target's set-up, paid by the first compiled function of any
   process; gametree's compiled engine built, which loads its functions from
   numba's cache; a first search, a position of Pons's end-easy set, whose
   table is allocated then), with the peak memory after each: each step's
   fastest of ``--repeat`` processes, and ``python -c pass`` beside them.
2. The compiled functions numba loads from its cache when the engine is built,
   each timed (numba's ``Cache.load_overload``, wrapped in that process).
3. Whole commands, ``gametree solve connect4 --moves MOVES --no-store --json``
   with ``--engine python``, ``compiled`` and ``auto``, on a short position
   (the first of Pons's end-easy set) and a longer one (the first of his
   middle-easy set): the process's wall time and peak memory, and the search's
   own time (``stats.seconds``).

Parts 1 and 2 measure numba's path (``GAMETREE_NATIVE=0``); part 3's commands load
the kernel's native code without numba where a process saved it (docs/compiled-kernel.md).
The compiled code is in numba's cache after a first, unmeasured, run (as after
a user's first search).  The processes get this environment, except that, as in
bench_connect4.py, Python's bytecode cache is on and output buffered.  Nothing
is asserted; times depend on the machine and its load (the check before and
after the runs, :mod:`machine`, says how fast it was).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

from bench_connect4 import DATA, SETS, gametree_command, run_measured
from machine import report as machine_report

#: The first of Pons's end-easy set: the position searched.
_POSITION = "2252576253462244111563365343671351441"

#: Part 1, in one process: each step timed (perf_counter) with the peak memory after it; one JSON line.
#: argv: a folder for the one-line numba function (numba caches it in __pycache__ there).
_STEPS = f"""
import json, os, resource, sys, time
os.environ["GAMETREE_NATIVE"] = "0"  # (numba's path: the native code would skip numba's steps)
marks = [("Python's start (to the first line)", 0.0)]
peaks = [resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024]
last = time.perf_counter()
def mark(name):
    global last
    now = time.perf_counter()
    marks.append((name, now - last))
    peaks.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    last = now
import gametree
mark("import gametree")
from gametree import load, play_text
game = load().game("connect4").create()
mark("plugins loaded, Connect Four made")
import numba
mark("import numba")
sys.path.insert(0, sys.argv[1])
import startup_tiny
startup_tiny.tiny(1)
mark("a one-line numba function, from its cache")
from gametree.search import Solver
solver = Solver(game, engine="compiled")
state = play_text(game, "{_POSITION}")
solver.engine_for(state)
mark("gametree's compiled engine built")
solver.score(state)
mark("first search (its table allocated)")
print(json.dumps({{"steps": marks, "peaks": peaks}}))
"""
_TINY = "import numba\n\n\n@numba.njit(cache=True)\ndef tiny(x):\n    return x + 1\n"

#: Part 2: the engine built with numba's cache loads timed; one JSON line a function loaded.
_LOADS = f"""
import json, os, time
os.environ["GAMETREE_NATIVE"] = "0"  # (numba's path)
from numba.core import caching
original = caching.Cache.load_overload
loads = []
def timed(self, sig, target_context):
    start = time.perf_counter()
    found = original(self, sig, target_context)
    loads.append((self._name.split(" at ")[0].strip("<>").removeprefix("function "), time.perf_counter() - start,
                  found is not None))
    return found
caching.Cache.load_overload = timed
from gametree import load, play_text
from gametree.search import Solver
game = load().game("connect4").create()
Solver(game, engine="compiled").engine_for(play_text(game, "{_POSITION}"))
for name, seconds, found in loads:
    print(json.dumps({{"function": name, "ms": 1000 * seconds, "from_cache": found}}))
"""


def best(command: list[str], repeat: int, time_limit: float) -> tuple[float, float, str]:
    """The fastest of ``repeat`` runs: (wall seconds, its peak MiB, its output)."""
    runs = []
    for _ in range(repeat):
        out, err, wall, peak_mb, timed_out = run_measured(command, time_limit)
        if timed_out:
            raise SystemExit(f"timed out after {time_limit:g} s: {' '.join(command)}")
        if "Traceback" in err:
            raise SystemExit(f"failed: {' '.join(command)}\n{err.strip().splitlines()[-1]}")
        runs.append((wall, peak_mb, out))
    return min(runs)


def bench_steps(repeat: int, time_limit: float) -> None:
    """Part 1: each step's time, the fastest of ``repeat`` processes, and the peak memory after it."""
    with tempfile.TemporaryDirectory(prefix="gametree-startup-") as folder:
        Path(folder, "startup_tiny.py").write_text(_TINY)
        command = [sys.executable, "-c", _STEPS, folder]
        run_measured(command, time_limit)  # (the one-line function compiled into its cache)
        runs = []
        for _ in range(repeat):
            out, err, wall, peak_mb, timed_out = run_measured(command, time_limit)
            if timed_out or not out.strip():
                raise SystemExit(f"the start-up steps failed: {err.strip()[-300:]}")
            runs.append((wall, json.loads(out.splitlines()[-1])))
    python_alone = best([sys.executable, "-c", "pass"], repeat, time_limit)[0]
    print(f"1. Start-up step by step in one process, each step the fastest of {repeat} processes")
    print(f"{'step':<42} {'ms':>7} {'peak MiB after':>14}")
    print(f"{'Python alone (python -c pass, whole process)':<42} {1000 * python_alone:>7.0f}")
    names = [name for name, _ in runs[0][1]["steps"]]
    total = 0.0
    for i, name in enumerate(names[1:], 1):
        fastest = min(run["steps"][i][1] for _, run in runs)
        total += fastest
        peak = min(run["peaks"][i] for _, run in runs)
        print(f"{name:<42} {1000 * fastest:>7.0f} {peak:>14.0f}")
    print(f"{'sum of the steps above':<42} {1000 * total:>7.0f}")
    whole = min(wall for wall, _ in runs)
    print(f"{'whole process (fastest)':<42} {1000 * whole:>7.0f}")
    print(
        f"{'the rest: start and exit of the interpreter':<42} {1000 * (whole - total):>7.0f}"
        "  (at exit Python's collector walks numba's objects: the gametree command freezes them first)"
    )
    print()


def bench_loads(time_limit: float) -> None:
    out, err, wall, peak_mb, _ = run_measured([sys.executable, "-c", _LOADS], time_limit)
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    print("2. The compiled functions loaded from numba's cache when the engine is built (one process)")
    for row in rows:
        where = "from the cache" if row["from_cache"] else "NOT in the cache: compiled"
        print(f"   {row['function']:<40} {row['ms']:>8.1f} ms  {where}")
    print(f"   {'all of them':<40} {sum(r['ms'] for r in rows):>8.1f} ms  ({len(rows)} functions)")
    print()


def bench_commands(repeat: int, time_limit: float) -> None:
    print(f"3. 'gametree solve connect4 --moves MOVES --no-store --json' by engine, the fastest of {repeat}")
    print(
        f"{'position':<8} {'engine':<9} {'score':>5} {'nodes':>8} {'search ms':>9} {'process ms':>10} {'peak MiB':>8}"
    )
    for name in ("end", "middle"):
        line = next(line for line in (DATA / SETS[name]).read_text().splitlines() if line.strip())
        moves, expected = line.split()
        for engine in ("python", "compiled", "auto"):
            command = [*gametree_command(), "solve", "connect4", "--moves", moves, "--engine", engine]
            wall, peak_mb, out = best([*command, "--no-store", "--json"], repeat, time_limit)
            result = json.loads(out.splitlines()[-1])
            check = "" if result["score"] == int(expected) else f"  WRONG (published {expected})"
            print(
                f"{name:<8} {engine:<9} {result['score']:>+5} {result['stats']['nodes']:>8,}"
                f" {1000 * result['stats']['seconds']:>9.2f} {1000 * wall:>10.0f} {peak_mb:>8.0f}{check}",
                flush=True,
            )
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, metavar="N", help="runs of each process (default 5)")
    parser.add_argument("--time-limit", type=float, default=600.0, metavar="SECONDS", help="per process")
    parser.add_argument("--skip-commands", action="store_true", help="parts 1 and 2 only")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if importlib.util.find_spec("numba") is None:
        parser.error("the compiled engine needs numba: pip install numba")
    print(machine_report("before the runs"), flush=True)
    # Warm-up, not measured: the compiled code written to (or found in) numba's cache, bytecode written.
    run_measured([sys.executable, "-c", _LOADS], args.time_limit)
    print()
    bench_steps(args.repeat, args.time_limit)
    bench_loads(args.time_limit)
    if not args.skip_commands:
        bench_commands(args.repeat, args.time_limit)
    print(machine_report("after the runs"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
