"""The benchmark scripts run as documented, on their smallest cases: right answers, and the machine's speed check.

Times are printed by the scripts, never asserted here.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
CHECK = re.compile(
    r"^machine speed check (before|after) the runs: \d+ ms for a fixed 1,000,000-step Python loop", re.MULTILINE
)


def run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    # As the docs run them: ``python benchmarks/NAME.py`` (the script's folder first on sys.path).
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True, timeout=300
    )


def test_tictactoe_3x3_analysis() -> None:
    proc = run("bench_tictactoe.py", "--case", "3x3k3", "--algorithm", "solver")
    assert proc.returncode == 0, proc.stderr
    assert [m.group(1) for m in CHECK.finditer(proc.stdout)] == ["before", "after"]
    (row,) = [line for line in proc.stdout.splitlines() if line.startswith("3x3k3")]
    assert row.split()[1:5] == ["solver", "draw", "+0", "/9"]
    assert "WRONG" not in proc.stdout


def test_tictactoe_json_rows_only() -> None:
    proc = run("bench_tictactoe.py", "--case", "3x3k3", "--algorithm", "alphabeta", "--json")
    assert proc.returncode == 0, proc.stderr
    assert not CHECK.search(proc.stdout)
    (line,) = proc.stdout.splitlines()
    assert '"value": "draw"' in line and '"score": 0' in line


def test_connect4_small_boards_against_the_published_table() -> None:
    proc = run("bench_connect4.py", "--quick", "--skip-sets", "--algorithm", "solver")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [m.group(1) for m in CHECK.finditer(proc.stdout)] == ["before", "after"]
    rows = [line for line in proc.stdout.splitlines() if re.match(r"\dx\d ", line)]
    assert [row.split()[0] for row in rows] == ["4x4", "5x4", "4x5"]
    assert all(row.endswith("ok") for row in rows), rows


def test_compiled_beside_bitbully() -> None:
    pytest.importorskip("numba")
    pytest.importorskip("bitbully", reason="BitBully is in the compare extra: pip install 'gametree[compare]'")
    proc = run("bench_compiled.py", "--quick", "--step", "20", "--positions", "3")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [m.group(1) for m in CHECK.finditer(proc.stdout)] == ["before", "after"]
    sections = [line.split(" ", 1)[0] for line in proc.stdout.splitlines() if re.match(r"\d\. ", line)]
    assert sections == ["1.", "2.", "3."]
    rows = [line.split() for line in proc.stdout.splitlines() if re.match(r"(end|middle) ", line)]
    solvers = [row[2] if row[1] == "gametree" else row[1] for row in rows]
    assert solvers == ["compiled", "auto", "python", "BitBully"] * 2
    assert all(row[3 if row[1] == "gametree" else 2] == "50/50" for row in rows), rows
    assert proc.stdout.count("scores agree:         3/3") == 2
    boards = [line for line in proc.stdout.splitlines() if re.match(r"(connect4|tictactoe) \d", line)]
    assert [" ".join(line.split()[:2]) for line in boards] == ["connect4 6x5", "tictactoe 5x5", "tictactoe 6x4"]
    assert all(line.endswith("ok") for line in boards), boards


def test_chance_node_counts_rows() -> None:
    proc = run("bench_chance.py", "--trees", "5", "--depth", "3", "--no-dice", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [row["algorithm"] for row in rows] == ["expectiminimax", "star1", "star2"] * 2
    assert all(row["trees"] == 5 and row["mean_nodes"] > 0 for row in rows)
    assert rows[0]["of_expectiminimax"] == 1.0 and rows[1]["mean_nodes"] <= rows[0]["mean_nodes"]


def test_othello_line_quick() -> None:
    pytest.importorskip("numba")
    proc = run("bench_othello.py", "--quick")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [m.group(1) for m in CHECK.finditer(proc.stdout)] == ["before", "after"]
    rows = [line.split() for line in proc.stdout.splitlines() if re.match(r"\s+\d+\s+\d+\s+[+-]", line)]
    assert [(row[0], row[2], row[3]) for row in rows] == [("24", "-4", "ok"), ("20", "-4", "ok")]


def test_serve_load_test_accounts_for_every_request() -> None:
    pytest.importorskip("httpx")
    proc = run("bench_serve.py", "--requests", "6", "--budget", "0.5", "--workers", "2", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    figures = json.loads(proc.stdout.splitlines()[-1])
    assert figures["requests"] == figures["answered"] == 6 == sum(figures["sources"].values())
    assert figures["health_probes"] > 0 and figures["slowest"] > 0


# -- benchmarks/compare.py --references: Pons's solver (built here from his source), BitBully, ours ------------
COMPARE = BENCHMARKS / "compare.py"
DATA = BENCHMARKS.parent / "tests" / "data" / "connect4"
#: Where Pons's source is looked for: $GAMETREE_PONS_SOURCE (a folder or git URL), else a local clone of
#: github.com/PascalPons/connect4 where this project's machines keep one.
PONS_CANDIDATES = (os.environ.get("GAMETREE_PONS_SOURCE", ""), "/work/.mirror/PascalPons+connect4/repo")


def pons_source() -> str:
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed: Pons's solver cannot be built")
    for source in PONS_CANDIDATES:
        if source and (Path(source).exists() or "://" in source):
            return source
    pytest.skip("Pons's source not found: set GAMETREE_PONS_SOURCE to a clone or git URL of PascalPons/connect4")


def compare_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compare_under_test", COMPARE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


def run_references(engines: list[str]) -> dict[str, dict[str, Any]]:
    """compare.py --references on the first 20 end-easy positions: each engine's row, checked."""
    source = pons_source()
    args = ["--references", "--pons", source, "--case", "c4-end-20", "--json"]
    proc = subprocess.run(
        [sys.executable, str(COMPARE), *args, *(x for e in engines for x in ("--engine", e))],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    rows = {row["engine"]: row for row in map(json.loads, proc.stdout.splitlines())}
    assert sorted(rows) == sorted(engines), proc.stderr
    published = [line.split() for line in (DATA / "pons_end_easy.txt").read_text().splitlines()[:20]]
    for engine, row in rows.items():
        assert row["status"] == "done" and row["correct"] is True, row
        positions = row["positions"]
        assert [(p[0], str(p[1])) for p in positions] == [(m, s) for m, s in published], engine
        assert all(p[2] > 0 and p[3] >= 0 for p in positions), engine  # nodes and seconds of each position
        assert row["nodes"] == sum(p[2] for p in positions)
    return rows


def test_pons_beside_bitbully_on_end_easy() -> None:
    engines = ["pons"] + (["bitbully"] if importlib.util.find_spec("bitbully") is not None else [])
    rows = run_references(engines)
    # Pons's node count over these 20 positions, his solver being deterministic (no book, one table).
    assert rows["pons"]["nodes"] == 1784


@pytest.mark.slow  # (the compiled engine is compiled first, in the test run's own numba cache: tens of seconds)
def test_compiled_beside_pons_on_end_easy() -> None:
    pytest.importorskip("numba")
    rows = run_references(["gametree-compiled", "pons"])
    assert rows["gametree-compiled"]["process_seconds"] > 0


def test_pons_bad_source_is_skipped_in_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, str(COMPARE), "--references", "--pons", "/nonexistent/connect4", "--case", "c4-end-20"]
        + ["--engine", "pons", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0
    assert proc.stdout == ""
    assert "skipping pons" in proc.stderr and "Traceback" not in proc.stderr


def test_medium_file_missing_is_one_line_error() -> None:
    proc = subprocess.run(
        [sys.executable, str(COMPARE), "--references", "--medium", "/nonexistent/Test_L2_R2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0
    assert "--medium: no file" in proc.stderr and "Traceback" not in proc.stderr


def test_random_positions_are_legal_open_and_distinct() -> None:
    from gametree import load, play_text

    compare = compare_module()
    game = load().game("connect4").create()
    positions = compare.random_positions(30, 7)
    assert len(set(positions)) == 30
    assert positions == compare.random_positions(30, 7)  # the seed fixes them
    for moves in positions:
        assert 12 <= len(moves) <= 24
        state = play_text(game, moves)  # every move legal, and (play_text) no move after the game ended
        assert game.outcome(state) is None
        # No win at once for the side to move (checked move by move, by the game's own rules).
        assert all(game.outcome(game.play(state, m)) is None for m in game.legal_moves(state)), moves


@pytest.mark.slow  # (numba compiles the engine into the test run's own cache first: tens of seconds)
def test_startup_steps_and_cache_loads() -> None:
    pytest.importorskip("numba")
    proc = run("bench_startup.py", "--repeat", "1", "--skip-commands")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [m.group(1) for m in CHECK.finditer(proc.stdout)] == ["before", "after"]
    steps = re.findall(r"^(\S.*?)\s+(-?\d+)\s+(\d+)$", proc.stdout, re.MULTILINE)
    assert [name for name, *_ in steps] == [
        "import gametree",
        "plugins loaded, Connect Four made",
        "import numba",
        "a one-line numba function, from its cache",
        "gametree's compiled engine built",
        "first search (its table allocated)",
    ]
    assert all(int(peak) > 0 for *_, peak in steps)
    loads = re.findall(
        r"^   (\S+)\s+[\d.]+ ms  (from the cache|NOT in the cache: compiled)$", proc.stdout, re.MULTILINE
    )
    assert loads and all(where == "from the cache" for _, where in loads), proc.stdout  # (the warm-up filled it)


@pytest.mark.slow  # (numba compiles the engine into the test run's own cache first: tens of seconds)
def test_the_batch_process_phase_by_phase() -> None:
    pytest.importorskip("numba")
    pytest.importorskip("bitbully", reason="BitBully is in the compare extra: pip install 'gametree[compare]'")
    proc = run("bench_phases.py", "--repeat", "1")  # (the whole set: auto hands over to the compiled engine)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    commands = re.findall(r"^(new|BitBully|python -c pass)\s+[\d.]+\s+[\d.]+\s+[\d.]+x$", proc.stdout, re.MULTILINE)
    assert commands == ["new", "BitBully", "python -c pass"], proc.stdout
    phases = dict(re.findall(r"^(\S.*?)\s+(-?[\d.]+)$", proc.stdout.split("Phases in the process")[1], re.MULTILINE))
    spec = importlib.util.spec_from_file_location("bench_phases_under_test", BENCHMARKS / "bench_phases.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert [name for name in phases if name in module.PHASES] == module.PHASES
    assert float(phases["compiled searches (each kernel call with its Python wrapping)"]) > 0
    assert float(phases["interpreter exit"]) > 0
    loads = re.findall(r"^   (\S+)\s+-?[\d.]+ ms (.*)$", proc.stdout, re.MULTILINE)
    if float(phases["native code loaded (MCJIT, symbols)"]) > 0:  # the kernel's native code (the warm-up saved it)
        assert float(phases["import numba"]) == 0 and not loads, proc.stdout
    else:  # numba's path: every function from its cache
        assert float(phases["import numba"]) > 0, proc.stdout
        assert loads and all(where.strip() == "" for _, where in loads), proc.stdout
