"""The benchmark scripts run as documented, on their smallest cases: right answers, and the machine's speed check.

Times are printed by the scripts, never asserted here.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

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
