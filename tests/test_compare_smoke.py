"""benchmarks/compare.py runs without easyAI or OpenSpiel: its help, and gametree's side of one 3x3 case."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "compare.py"

#: Runs the script with easyAI and OpenSpiel hidden, whether or not they are installed.
WITHOUT_PEERS = """
import importlib.util, runpy, sys
find_spec = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name in ("easyAI", "pyspiel") else find_spec(name, *a)
sys.argv = [sys.argv[1], *sys.argv[2:]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_PEERS, str(SCRIPT), *args], capture_output=True, text=True, timeout=120
    )


def test_help_names_the_options() -> None:
    proc = run("--help")
    assert proc.returncode == 0, proc.stderr
    for option in ("--quick", "--cap", "--case", "--engine", "--json"):
        assert option in proc.stdout


def test_gametree_side_of_3x3_without_the_other_engines() -> None:
    proc = run("--case", "3x3k3", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "easyAI is not installed" in proc.stderr
    assert "open_spiel is not installed" in proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [row["engine"] for row in rows] == ["gametree-solver", "gametree-alphabeta"]
    for row in rows:
        assert row["status"] == "done"
        assert row["result"] == "draw"
        assert row["correct"] is True
        assert row["nodes"] > 0 and row["seconds"] > 0


def test_bad_cap_is_one_line_error() -> None:
    proc = run("--cap", "0")
    assert proc.returncode != 0
    assert "--cap must be positive" in proc.stderr
    assert "Traceback" not in proc.stderr
