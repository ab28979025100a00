"""Compiling is visible and rare (issue 34, item 1): a line before numba compiles an engine, a
command that compiles ahead of time, and ``auto`` on the Python engine for a search whose time
is shorter than a compile still to come."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from gametree import load
from gametree.search import compile_state
from gametree.search.compiled import use_compiled
from gametree.search.progress import SolveProgress
from gametree.search.solver import Solver

pytest.importorskip("numba")

BOARD = ("--width", "5", "--height", "4")


def test_the_first_compile_is_announced_before_any_search_output(gametree_cli, tmp_path: Path) -> None:
    """A fresh cache folder: the first line after the board says that the engine is compiled, once,
    and about how long it takes.  The command is stopped once it is seen (the compile itself is
    not waited for)."""
    process = gametree_cli.popen(
        "solve",
        "connect4",
        *BOARD,
        "--engine",
        "compiled",
        "--no-store",
        "--best-only",
        env={"GAMETREE_CACHE_DIR": str(tmp_path / "cache")},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert process.stdout is not None
    started, lines = time.monotonic(), []
    try:
        for raw in process.stdout:
            lines.append(raw.decode().rstrip())
            if lines[-1].startswith("compiling"):
                break
    finally:
        process.kill()
        process.wait()
    seen = time.monotonic() - started
    board = [line for line in lines if line.strip().startswith((".", "1 2"))]
    assert len(board) == 5 and lines.index(lines[-1]) == len(board) + 1  # the first line after the board
    assert lines[-1].startswith("compiling the engine for 5x4 Connect Four, 4 in a row, once: about ")
    assert not any(line.startswith(("Proven", "Red to move")) for line in lines)  # before any search output
    assert seen < 60  # a hang guard: it comes at the start, not after the compile (measured: 0.7 s)


def test_auto_searches_on_python_while_the_compile_would_outlast_the_time_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAMETREE_CACHE_DIR", str(tmp_path / "fresh"))  # nothing compiled there
    monkeypatch.setattr(compile_state, "_built", set())  # nor in this process
    said: list[str] = []
    monkeypatch.setattr(compile_state, "notify", said.append)
    game = load().game("connect4").create(width=6, height=5)
    assert not compile_state.ready(game)
    assert use_compiled(game, "auto", 30) and use_compiled(game, "compiled", 30, budget=1.0)
    assert not use_compiled(game, "auto", 30, budget=1.0)  # a hint of 1 s does not wait 20 s on a compile
    watch = SolveProgress()
    hint = Solver(game, engine="auto").solve(game.initial_state(), time_limit=0.5, all_moves=False, progress=watch)
    assert watch.engine == "python" and said == [] and not hint.proven  # (the empty 6x5 board takes minutes)
    # A compile measured shorter than the budget: then it is worth waiting for.
    (tmp_path / "fresh").mkdir(exist_ok=True)
    (tmp_path / "fresh" / "compile-times.json").write_text(f'{{"{compile_state.game_id(game)}": 0.8}}')
    assert compile_state.estimate(game) == 0.8 and use_compiled(game, "auto", 30, budget=1.0)


def test_gametree_compile_compiles_ahead_and_says_what_it_did(gametree_cli) -> None:
    first = gametree_cli("compile", "tictactoe", check=True)
    assert first.stdout.startswith(("tictactoe: compiled in ", "tictactoe: compiled already")), first.stdout
    again = gametree_cli("compile", "tictactoe", check=True)
    assert again.stdout.startswith("tictactoe: compiled already; loaded from the cache in ")
    assert "compiling" not in again.stderr  # nothing compiled the second time
    assert compile_state.ready(load().game("tictactoe").create(size=3))  # (this run's cache folder)
    for args, message in ((("nope",), "no game 'nope'"), (("nim",), "nim has no compiled rules")):
        bad = gametree_cli("compile", *args)
        assert bad.returncode != 0 and message in bad.stderr and "Traceback" not in bad.stderr


def test_the_perfect_player_moves_without_waiting_on_a_compile_where_python_answers_in_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gametree.search.perfect import PerfectMover

    monkeypatch.setenv("GAMETREE_CACHE_DIR", str(tmp_path / "fresh"))  # nothing compiled there
    monkeypatch.setattr(compile_state, "_built", set())
    said: list[str] = []
    monkeypatch.setattr(compile_state, "notify", said.append)
    game = load().game("connect4").create(width=6, height=5)
    state = game.initial_state()
    for move in "1 2 1 2 1 2".split():  # Red wins at once in column 1; 24 plies left: auto would compile
        state = game.play(state, game.parse_move(state, move))
    assert use_compiled(game, "auto", game.info.max_plies - game.ply(state))
    choice = PerfectMover(game, engine="auto").choose(state)
    assert choice.moves == ("1",) and choice.how == "exact" and said == []
