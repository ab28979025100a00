"""The command line, run as a user runs it (subprocess) and through click's runner."""

from __future__ import annotations

import json
import re
import shlex
import subprocess

import pytest


def test_solve_3x3_prints_everything(gametree_cli):
    out = gametree_cli("solve", "tictactoe", "--size", "3")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    for needle in [
        "A . . .",
        "draw in 9 plies",
        "Value of each move",
        "Best moves:",
        "Principal variation:",
        "nodes",
        "cutoffs",
        "nodes per depth",
    ]:
        assert needle in text, needle


def test_solve_json_has_all_fields(gametree_cli):
    out = gametree_cli("solve", "tictactoe", "--size", "4", "--k", "3", "--moves", "B2 A1", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["value"] == "win" and data["winner"] == 0 and data["proven"] is True
    assert data["game"] == "tictactoe" and data["moves"] == "B2 A1"
    assert data["best_moves"] and data["pv"][0] in data["best_moves"]
    assert {
        "nodes",
        "terminals",
        "cutoffs",
        "cache_probes",
        "cache_hits",
        "cache_stores",
        "max_depth",
        "seconds",
        "nodes_per_second",
        "nodes_per_depth",
    } <= set(data["stats"])
    assert len(data["move_values"]) == 14


def test_default_is_the_solver_and_best_only_skips_the_other_moves(gametree_cli):
    full = json.loads(gametree_cli("solve", "tictactoe", "--size", "4", "--k", "3", "--json").stdout)
    best = json.loads(gametree_cli("solve", "tictactoe", "--size", "4", "--k", "3", "--best-only", "--json").stdout)
    assert full["algorithm"] == best["algorithm"] == "solver"
    assert len(full["move_values"]) == 16 and len(best["move_values"]) == 1
    assert best["score"] == full["score"] == 6 and best["plies_to_end"] == 5
    assert best["best_moves"][0] in full["best_moves"] and best["pv"][0] == best["best_moves"][0]
    assert best["stats"]["nodes"] < full["stats"]["nodes"]
    weak = json.loads(
        gametree_cli("solve", "tictactoe", "--size", "4", "--k", "3", "--best-only", "--weak", "--json").stdout
    )
    assert (weak["weak"], weak["score"], weak["value"], weak["plies_to_end"]) == (True, 1, "win", None)


def test_algorithms_and_options_agree(gametree_cli):
    a = json.loads(gametree_cli("solve", "tictactoe", "--moves", "B2", "--algorithm", "minimax", "--json").stdout)
    b = json.loads(gametree_cli("solve", "tictactoe", "--moves", "B2", "--no-cache", "--json").stdout)
    c = json.loads(
        gametree_cli("solve", "tictactoe", "--moves", "B2", "--cache-size", "1MB", "--no-symmetry", "--json").stdout
    )
    assert a["move_values"] == b["move_values"] == c["move_values"]
    assert a["stats"]["nodes"] > b["stats"]["nodes"] > c["stats"]["nodes"]
    d = json.loads(
        gametree_cli("solve", "tictactoe", "--size", "4", "-a", "alphabeta", "--depth", "2", "--json").stdout
    )
    assert d["proven"] is False and d["value"] == "unknown" and d["depth"] == 2
    # The solver proves exact values: a depth limit would silently make it another algorithm.
    refused = gametree_cli("solve", "tictactoe", "--size", "4", "--depth", "2", "--json")
    assert (
        refused.returncode == 2 and "a depth limit makes a heuristic search (-a alphabeta --depth N)" in refused.stderr
    )


def test_batch_from_stdin_and_file(gametree_cli, tmp_path):
    out = gametree_cli(
        "solve", "tictactoe", "--batch", "-", input="\nB2\nA1 B1 A2 B2\n# a comment\nB1 A3 C2 B3 C3\t-1\n"
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["B2 0", "A1 B1 A2 B2 3", "B1 A3 C2 B3 C3 -1"]
    assert "3 positions" in out.stderr and "1/1 matched" in out.stderr
    weak = gametree_cli(
        "solve",
        "tictactoe",
        "--algorithm",
        "solver",
        "--weak",
        "--batch",
        "-",
        "--json",
        input="B2\nB1 A3 C2 B3 C3\t-1\n",
    )
    assert weak.returncode == 0, weak.stderr
    assert [(d["score"], d["weak"]) for d in map(json.loads, weak.stdout.splitlines())] == [(0, True), (-1, True)]
    assert "1/1 matched the expected value (win, draw or loss)" in weak.stderr
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("B2, 5\n")
    out = gametree_cli("solve", "tictactoe", "--batch", str(wrong))
    assert out.returncode == 1 and "0/1 matched" in out.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["solve", "chess"], "unknown game 'chess'"),
        (["solve", "tictactoe", "--size", "0"], "Invalid value for '--size': 0: the board needs at least one cell"),
        (["solve", "tictactoe", "--size", "3", "--k", "4"], "Invalid value for '--k': 4 cannot fit"),
        (["solve", "tictactoe", "--size", "x"], "'x' is not a valid integer"),
        (["solve", "tictactoe", "--colour", "red"], "No such option '--colour'"),
        (["solve", "tictactoe", "--moves", "B2 B2"], "move 2 ('B2'): B2 is already taken"),
        (["solve", "tictactoe", "--moves", "B2 Q7"], "move 2 ('Q7'): Q7 is off the board"),
        (["solve", "tictactoe", "--moves", "B2 ??"], "cannot read '??'"),
        (["solve", "tictactoe", "--moves", "B²"], "cannot read 'B²'"),  # isdigit() but not int()-able
        (["solve", "nim", "--moves", "1:²"], "cannot read '1:²'"),
        (["solve", "nim", "--heaps", "²,3"], "'²' is not a heap size"),
        (["solve", "connect4", "--moves", "4²"], "move 2 ('²'): cannot read '²'"),
        (["solve", "connect4", "--moves", "4444444"], "move 7 ('4'): column 4 is full"),
        (["solve", "connect4", "--moves", "12121213"], "move 8 ('3'): the game is already over"),
        (["solve", "tictactoe", "--moves", "A1 B1 A2 B2 A3 C3"], "the game is already over"),
        (["solve", "tictactoe", "--moves", "A1 B1 A2 B2 A3"], "nothing to search"),
        (["solve", "tictactoe", "--algorithm", "magic"], "unknown algorithm 'magic'"),
        (["solve", "tictactoe", "--depth", "0"], "--depth"),
        (["solve", "tictactoe", "--cache-size", "lots"], "cache size 'lots'"),
        (
            ["solve", "tictactoe", "--algorithm", "minimax", "--no-cache"],
            "--no-cache/--cache-size does not apply to --algorithm minimax",
        ),
        (
            ["solve", "tictactoe", "--algorithm", "minimax", "--time-limit", "1"],
            "--time-limit does not apply to --algorithm minimax",
        ),
        (["solve", "tictactoe", "--time-limit", "0"], "--time-limit"),
        (["solve", "tictactoe", "--batch", "/nonexistent/file.txt"], "/nonexistent/file.txt"),
        (
            ["solve", "tictactoe", "--algorithm", "alphabeta", "--weak"],
            "--weak does not apply to --algorithm alphabeta",
        ),
        (["solve", "tictactoe", "--algorithm", "solver", "--weak", "--time-limit", "2"], "--weak proves the value"),
        (["solve", "tictactoe", "--depth", "2"], "a depth limit makes a heuristic search"),
        (["solve", "tictactoe", "--keep-going"], "--keep-going goes with --batch"),
        (
            ["solve", "tictactoe", "-a", "alphabeta", "--analysis-time", "2"],
            "--analysis-time does not apply to --algorithm alphabeta",
        ),
        (["solve", "tictactoe", "--algorithm", "solver", "--weak", "--workers", "2"], "--weak solves in one process"),
        (["solve", "tictactoe", "--best-only", "--workers", "2"], "drop --best-only"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(gametree_cli, args, message):
    out = gametree_cli(*args)
    assert out.returncode != 0
    assert message in out.stderr
    assert "Traceback" not in out.stderr
    assert len([line for line in out.stderr.splitlines() if line.startswith("Error")]) == 1


def test_batch_errors_name_the_line(gametree_cli, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("B2\nB2 B2\n")
    out = gametree_cli("solve", "tictactoe", "--batch", str(bad))
    assert out.returncode == 1 and "bad.txt:2: move 2 ('B2'): B2 is already taken" in out.stderr
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    out = gametree_cli("solve", "tictactoe", "--batch", str(binary))
    assert out.returncode == 1 and "cannot read" in out.stderr and "Traceback" not in out.stderr


def test_games_lists_options_and_sources(gametree_cli):
    out = gametree_cli("games", "--json")
    data = json.loads(out.stdout)
    ttt = next(g for g in data["games"] if g["name"] == "tictactoe")
    assert {o["name"] for o in ttt["options"]} == {"size", "width", "height", "k"}
    assert "entry point gametree_builtins.games.tictactoe" in ttt["source"]
    assert {"minimax", "alphabeta"} <= set(data["algorithms"])
    human = gametree_cli("games")
    assert human.returncode == 0 and "tictactoe" in human.stdout and "--size" in human.stdout


def test_game_help_shows_its_own_flags(gametree_cli):
    out = gametree_cli("solve", "tictactoe", "--help")
    assert out.returncode == 0 and "--size" in out.stdout and "--k" in out.stdout and "--batch" in out.stdout


def test_broken_pipe_is_quiet(gametree_cli):
    proc = subprocess.run(
        f"{shlex.join(gametree_cli.argv('solve', 'tictactoe', '--size', '4', '--k', '3'))} | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
        env=gametree_cli.env(),
    )
    assert "Traceback" not in proc.stderr


def test_time_limit_gives_an_anytime_answer(gametree_cli):
    """alphabeta: iterative deepening's deepest answer; the solver: exact when proven in time,
    else its best guess marked unproven, with the range the score was proven to lie in."""
    out = gametree_cli(
        "solve", "tictactoe", "--size", "5", "--k", "4", "-a", "alphabeta", "--time-limit", "0.5", "--json"
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["proven"] is False and data["value"] == "unknown" and data["depth"] >= 1 and data["best_moves"]
    text = gametree_cli(
        "solve", "tictactoe", "--size", "5", "--k", "4", "-a", "alphabeta", "--time-limit", "0.5"
    ).stdout
    assert "unknown (heuristic score" in text
    # The Python engine cannot prove 5x5 k=4 (a draw) in 0.3 s: a best guess, with what was proven.
    guess = json.loads(
        gametree_cli(
            "solve", "tictactoe", "--size", "5", "--k", "4", "--engine", "python", "--time-limit", "0.3", "--json"
        ).stdout
    )
    assert (guess["proven"], guess["value"], guess["algorithm"], guess["cut_short"]) == (
        False,
        "unknown",
        "solver",
        "time",
    )
    low, high = guess["score_bounds"]
    assert low <= 0 <= high and guess["depth"] >= 1 and guess["best_moves"]
    text = gametree_cli(
        "solve", "tictactoe", "--size", "5", "--k", "4", "--engine", "python", "--time-limit", "0.3"
    ).stdout
    assert "unknown: not proven in time; score proven in [" in text
    exact = json.loads(gametree_cli("solve", "tictactoe", "--time-limit", "30", "--json").stdout)
    assert (exact["proven"], exact["value"], exact["cut_short"], exact["unscored"], len(exact["move_values"])) == (
        True,
        "draw",
        None,
        [],
        9,
    )


def nodes_counted(shown: str) -> bool:
    """Whether the live progress on the terminal counts search nodes ("1.2k nodes"): the search runs."""
    return any(float(n) > 0 for n in re.findall(r"([0-9.]+)[kMG]? nodes", shown))


def test_ctrl_c_ends_cleanly(gametree_cli):
    # Standard error on a terminal, as a person at one has it: the live progress shows, and the
    # Ctrl-C comes once it counts nodes (well into a search that takes far longer than the test).
    command = gametree_cli.watched("solve", "tictactoe", "--size", "6", "--k", "5")
    command.expect(nodes_counted, "the live progress counting nodes")
    command.interrupt()
    status, _, err = command.finish(timeout=60)
    assert status == 130, err
    assert "interrupted" in err and "Traceback" not in err
