"""Where the whole process of ``gametree solve connect4 --batch <Pons's middle-easy set>`` goes, phase by phase.

Run from the repository root::

    python benchmarks/bench_phases.py                                   # this checkout, 5 rounds
    python benchmarks/bench_phases.py --old /old-venv/bin/python --old-cache /tmp/old-cache  # and another install

The command is the one :mod:`bench_auto` times (``--json --no-store --engine auto``), run in a
fresh process each time, with BitBully's whole process on the same file beside it, the
commands alternately, round after round (the machine is shared: compare within a round).  Each
gametree process runs under a small driver that times, in that process:

- the interpreter's start (the process spawned to the driver's first line: wall clocks);
- ``import gametree.cli``: the CLI's own imports (click and every command's module);
- the plugins loaded (entry points read, every game's module imported);
- the command parsed and set up, to the batch's first search;
- numpy and numba imported (their own imports, when the compiled engine is built);
- numba's target set up (``BaseContext.refresh``: its registries imported, once a process);
- each compiled function loaded from numba's cache (``Cache.load_overload``, LLVM linking included);
- or, without numba, ``import llvmlite.binding`` and the native object loaded (:mod:`gametree.search.native`);
- the rest of the compiled engine's building (its arrays, the first call of each function);
- the Python engine's probe (``auto``'s searches on the Python engine before it hands over);
- the compiled searches (``CompiledEngine._run``, Python's wrapping of each kernel call included);
- the other Python work per position (replay of the line, result objects, output lines);
- the interpreter's exit (the driver's exit handler to the process's end).

Then one more process of each under ``python -X importtime``: its imports' own time by top
package (numba, numpy, click, gametree, games, ...; importtime itself slows imports, so only the
shares matter).  The compiled code must be in the cache already (one warm-up run of each
command comes first).  Nothing is asserted; the exit status is 1 if the scores differ.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_compiled import bitbully_command, write_lines  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "connect4"

#: The driver: argv[1] the wall clock (time.time()) when the parent spawned it, argv[2] a file for the
#: phases (JSON), the rest the gametree command's arguments.
_DRIVER = r"""
import time
_first = time.time()
import atexit, importlib.abc, importlib.machinery, json, os, sys
_spawned, _out = float(sys.argv[1]), sys.argv[2]
sys.argv = ["gametree", *sys.argv[3:]]
totals = {"interpreter start": _first - _spawned}
counts = {}
clock = time.perf_counter

def add(name, seconds, n=1):
    totals[name] = totals.get(name, 0.0) + seconds
    counts[name] = counts.get(name, 0) + n

def timed(owner, attribute, name, exclusive=()):
    original = getattr(owner, attribute, None)
    if original is None:
        return
    def wrapper(*args, **kwargs):
        before = {k: totals.get(k, 0.0) for k in exclusive}
        start = clock()
        try:
            return original(*args, **kwargs)
        finally:
            inner = sum(totals.get(k, 0.0) - before[k] for k in exclusive)
            add(name, clock() - start - inner)
    setattr(owner, attribute, wrapper)

# Modules whose import (cumulative) is timed, and what to wrap once one is imported.
WATCHED = {"numpy": "import numpy", "numba": "import numba",
           "llvmlite.binding": "import llvmlite.binding (native code)"}
AFTER = {}

class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in WATCHED and name not in AFTER:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        class Timed(importlib.abc.Loader):
            def __getattr__(self, attribute):  # (get_resource_reader: llvmlite finds its library so)
                return getattr(loader, attribute)
            def create_module(self, spec):
                return loader.create_module(spec)
            def exec_module(self, module):
                start = clock()
                try:
                    loader.exec_module(module)
                finally:
                    if name in WATCHED:
                        add(WATCHED[name], clock() - start)
                    if name in AFTER:
                        AFTER[name](module)
        spec.loader = Timed()
        return spec

sys.meta_path.insert(0, Finder())
loads = []

def caching(module):
    original = module.Cache.load_overload
    def load_overload(self, sig, target_context):
        start = clock()
        before = totals.get("numba's target set up (registries)", 0.0)
        found = original(self, sig, target_context)
        spent = clock() - start - (totals.get("numba's target set up (registries)", 0.0) - before)
        add("compiled functions loaded from numba's cache", spent)
        loads.append([self._name.split(" at ")[0].strip("<>").removeprefix("function ")[:60], spent, found is not None])
        return found
    module.Cache.load_overload = load_overload

depth = [0]
def base(module):
    original = module.BaseContext.refresh
    def refresh(self):  # (timed at its outermost call: it calls itself for the typing context)
        depth[0] += 1
        start = clock()
        try:
            return original(self)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                add("numba's target set up (registries)", clock() - start)
    module.BaseContext.refresh = refresh

def native(module):  # (gametree.search.native: the native object loaded without numba)
    timed(module, "_engine", "native code loaded (MCJIT, symbols)")

AFTER["numba.core.caching"] = caching
AFTER["numba.core.base"] = base
AFTER["gametree.search.native"] = native

start = clock()
import gametree.cli
add("import gametree.cli (the CLI's imports)", clock() - start)
import importlib
timed(importlib.import_module("gametree.cli.common"), "load", "plugins loaded")
solver, compiled, python_engine = (
    importlib.import_module(f"gametree.search.{m}") for m in ("solver", "compiled", "engine")
)
_marks = {}
def first_search(original):
    def wrapper(*args, **kwargs):
        _marks.setdefault("batch", clock())
        return original(*args, **kwargs)
    return wrapper
SETUP = ["import numpy", "import numba", "numba's target set up (registries)",
         "compiled functions loaded from numba's cache", "import llvmlite.binding (native code)",
         "native code loaded (MCJIT, symbols)"]
timed(compiled.CompiledEngine, "__init__", "the compiled engine's other building", exclusive=SETUP)
timed(compiled.CompiledEngine, "_run", "compiled searches (each kernel call with its Python wrapping)")
timed(python_engine.Engine, "search", "Python engine's searches (auto's probe)")
score_name = "per position: Solver.score, the rest"
timed(solver.Solver, "score", score_name, exclusive=[
    "the compiled engine's other building", "compiled searches (each kernel call with its Python wrapping)",
    "Python engine's searches (auto's probe)", *SETUP])
import gametree.search as _search
_search.prepare_scores = first_search(_search.prepare_scores)
main_start = clock()

def report():
    end = clock()
    main = end - main_start
    setup = _marks.get("batch", end) - main_start
    totals["command parsed and set up (to the batch)"] = setup - totals.get("plugins loaded", 0.0)
    before = ("interpreter start", "import gametree.cli (the CLI's imports)", "plugins loaded",
              "command parsed and set up (to the batch)")
    accounted = sum(v for k, v in totals.items() if k not in before)
    totals["per position: replay, output lines, the batch loop"] = main - setup - accounted
    totals["_exit_at"] = time.time()
    with open(_out, "w") as f:
        json.dump({"totals": totals, "counts": counts, "loads": loads}, f)

atexit.register(report)  # (registered before the CLI's own handlers: runs after them)
gametree.cli.main()
"""

#: Phases in the order shown.
PHASES = [
    "interpreter start",
    "import gametree.cli (the CLI's imports)",
    "plugins loaded",
    "command parsed and set up (to the batch)",
    "Python engine's searches (auto's probe)",
    "import numpy",
    "import numba",
    "numba's target set up (registries)",
    "compiled functions loaded from numba's cache",
    "import llvmlite.binding (native code)",
    "native code loaded (MCJIT, symbols)",
    "the compiled engine's other building",
    "compiled searches (each kernel call with its Python wrapping)",
    "per position: Solver.score, the rest",
    "per position: replay, output lines, the batch loop",
    "interpreter exit",
]


def environment(cache: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # (a user's install has its bytecode cached)
    env.pop("PYTHONUNBUFFERED", None)
    if cache:
        env["GAMETREE_CACHE_DIR"] = cache
    return env


def arguments(batch: str) -> list[str]:
    """``gametree solve``'s arguments, as :mod:`bench_auto` gives them for its middle-easy case."""
    return ["solve", "connect4", "--batch", batch, "--json", "--no-store", "--engine", "auto"]


def run_phases(python: str, batch: str, cache: str | None) -> tuple[float, dict[str, float], list[list[object]], str]:
    """One process of the command under the driver: (wall seconds, phases, numba's loads, the scores)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    spawned = time.time()
    start = time.perf_counter()
    done = subprocess.run(
        [python, "-c", _DRIVER, repr(spawned), out, *arguments(batch)],
        capture_output=True,
        text=True,
        check=False,
        env=environment(cache),
        cwd="/",
    )
    wall = time.perf_counter() - start
    ended = time.time()
    if done.returncode != 0:
        raise SystemExit(f"{python}: failed: {done.stderr.strip()[-500:]}")
    data = json.loads(Path(out).read_text())
    os.unlink(out)
    totals = data["totals"]
    totals["interpreter exit"] = ended - totals.pop("_exit_at")
    return wall, totals, data["loads"], scores(done.stdout)


def scores(stdout: str) -> str:
    return json.dumps([json.loads(line).get("score") for line in stdout.splitlines() if line.startswith("{")])


def run_plain(command: list[str], cache: str | None) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=environment(cache), cwd="/")
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:3])}... failed: {done.stderr.strip()[-500:]}")
    return wall, scores(done.stdout)


def import_shares(python: str, batch: str, cache: str | None) -> dict[str, float]:
    """Seconds of the imports' own time by top package, under ``-X importtime`` (one process)."""
    code = "import sys; from gametree.cli import main; sys.argv[0] = 'gametree'; main()"
    done = subprocess.run(
        [python, "-X", "importtime", "-c", code, *arguments(batch)],
        capture_output=True,
        text=True,
        check=False,
        env=environment(cache),
        cwd="/",
    )
    shares: dict[str, float] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _, name = (part.strip() for part in line.removeprefix("import time:").split("|"))
        top = name.split(".")[0]
        shares[top] = shares.get(top, 0.0) + int(own) / 1e6
    return shares


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--old", metavar="PYTHON", help="also another install's Python (old main's environment)")
    parser.add_argument("--old-cache", metavar="FOLDER", help="GAMETREE_CACHE_DIR for the old one")
    parser.add_argument("--positions", type=int, default=1000, help="the set's first N positions (default all)")
    args = parser.parse_args(argv)
    lines = [line.split()[0] for line in (DATA / "pons_middle_easy.txt").read_text().splitlines() if line.strip()]
    batch = write_lines(lines[: args.positions])
    pythons = {"new": (sys.executable, os.environ.get("GAMETREE_CACHE_DIR"))}
    if args.old:
        pythons["old"] = (args.old, args.old_cache)
    for python, cache in pythons.values():  # warm-up: compiled code and bytecode cached
        run_plain([python, "-c", "import sys; from gametree.cli import main; main()", *arguments(batch)], cache)
    walls: dict[str, list[float]] = {label: [] for label in [*pythons, "BitBully", "python -c pass"]}
    phases: dict[str, list[dict[str, float]]] = {label: [] for label in pythons}
    loads: dict[str, list[list[object]]] = {}
    answers: dict[str, str] = {}
    for _ in range(args.repeat):
        for label, (python, cache) in pythons.items():
            wall, totals, loaded, answer = run_phases(python, batch, cache)
            walls[label].append(wall)
            phases[label].append(totals)
            loads[label] = loaded
            answers[label] = answer
        walls["BitBully"].append(run_plain(bitbully_command(batch, fresh=False), None)[0])
        walls["python -c pass"].append(run_plain([sys.executable, "-c", "pass"], None)[0])
    base = statistics.median(walls["BitBully"])
    print(f"Whole process, {len(lines[: args.positions])} positions of Pons's middle-easy set, {args.repeat} rounds")
    print(f"{'command':<16} {'fastest s':>9} {'median s':>9} {'vs BitBully':>11}")
    for label, w in walls.items():
        print(f"{label:<16} {min(w):>9.3f} {statistics.median(w):>9.3f} {statistics.median(w) / base:>10.2f}x")
    print()
    print("Phases in the process (median ms of the rounds)")
    print(f"{'phase':<62}" + "".join(f" {label:>8}" for label in pythons))
    for phase in PHASES:
        cells = "".join(
            f" {1000 * statistics.median(t.get(phase, 0.0) for t in phases[label]):>8.1f}" for label in pythons
        )
        print(f"{phase:<62}{cells}")
    cells = "".join(f" {1000 * statistics.median(walls[label]):>8.1f}" for label in pythons)
    print(f"{'whole process (wall, median)':<62}{cells}")
    print()
    for label, loaded in loads.items():
        print(f"numba's cache loads ({label}, last round): {len(loaded)} functions")
        for name, seconds, found in loaded:
            print(f"   {name:<62} {1000 * float(seconds):>7.1f} ms {'' if found else ' NOT in the cache: compiled'}")
    print()
    for label, (python, cache) in pythons.items():
        shares = import_shares(python, batch, cache)
        top = sorted(shares.items(), key=lambda item: -item[1])[:14]
        print(
            f"imports' own time by package under -X importtime ({label}): "
            + ", ".join(f"{name} {1000 * seconds:.0f}" for name, seconds in top)
            + f" ms; all {1000 * sum(shares.values()):.0f} ms"
        )
    os.unlink(batch)
    return 1 if len(set(answers.values())) != 1 else 0


if __name__ == "__main__":
    sys.exit(main())
