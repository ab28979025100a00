"""The commands behave alike (issue 22): options before or after the game's name, ``play --table``,
JSON that reports the options actually used, messages that fit the terminal, and no markup written
to a terminal."""

from __future__ import annotations

import fcntl
import io
import json
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click
import pytest

import gametree
from gametree.game import Configurable

if TYPE_CHECKING:
    from conftest import CliResult, GametreeCli

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def one_line_error(out: CliResult, *needles: str) -> str:
    """The error line of a failed command: one line on standard error, no traceback."""
    assert out.returncode != 0, out.stdout
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in out.stderr, out.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def on_terminal(
    gametree_cli: GametreeCli, *args: str, columns: int = 80, input: str = "", env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """Run the command with standard output on a pseudo-terminal of ``columns`` columns (and COLUMNS
    unset, so the terminal's own size counts); standard error is a pipe unless ``stderr_too``.
    Returns the exit status, what the terminal showed (colours removed) and standard error."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    process = gametree_cli.popen(
        *args,
        env={"COLUMNS": None, "LINES": None, "NO_COLOR": None, "TERM": "xterm-256color", **(env or {})},
        stdin=subprocess.PIPE,
        stdout=slave,
        stderr=subprocess.PIPE,
    )
    os.close(slave)
    assert process.stdin is not None and process.stderr is not None
    process.stdin.write(input.encode())
    process.stdin.close()
    raw = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            raw += data
        elif process.poll() is not None:
            break
    os.close(master)
    status = process.wait(timeout=30)
    stderr = process.stderr.read().decode()
    return status, ANSI.sub("", raw.decode(errors="replace")).replace("\r", ""), stderr


# -- 1. options before or after the game's name ------------------------------------------------------
def _answer(out: CliResult) -> dict[str, object]:
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    return {k: data[k] for k in ("game", "options", "moves", "value", "best_moves", "pv")}


def test_solve_takes_options_before_the_game(gametree_cli):
    after = gametree_cli("solve", "tictactoe", "--size", "4", "--k", "3", "--moves", "B2 A1", "--json")
    before = gametree_cli("solve", "--size", "4", "--moves", "B2 A1", "--json", "tictactoe", "--k", "3")
    joined = gametree_cli("solve", "--size=4", "--k=3", "--moves=B2 A1", "-a", "solver", "--json", "tictactoe")
    assert _answer(before) == _answer(after) == _answer(joined)
    assert _answer(before)["moves"] == "B2 A1" and _answer(before)["options"] == {"width": 4, "height": 4, "k": 3}


def test_an_option_value_that_names_a_game_is_a_value(gametree_cli):
    """``--moves nim tictactoe``: nim is the value of --moves (the game is tictactoe, which cannot read it)."""
    out = gametree_cli("solve", "--moves", "nim", "tictactoe")
    one_line_error(out, "move 1 ('nim')", "cannot read 'nim'")
    out = gametree_cli("solve", "--heaps", "connect4", "nim")
    one_line_error(out, "Invalid value for '--heaps': 'connect4'")


def test_tree_and_learn_take_options_before_the_game(gametree_cli, tmp_path):
    target = tmp_path / "t.dot"
    out = gametree_cli("tree", "-o", str(target), "--moves", "B2 A1 C3 A3", "-f", "dot", "tictactoe", "--no-legend")
    assert out.returncode == 0, out.stderr
    assert target.read_text().startswith("digraph") and "wrote" in out.stderr
    out = gametree_cli("learn", "-n5", "--seed", "2", "-o", "-", "--size", "2", "tictactoe")
    assert out.returncode == 0, out.stderr
    table = json.loads(out.stdout)
    assert table["games"] == 5 and table["seed"] == 2 and table["variant"] == "TicTacToe(width=2, height=2, k=2)"


def test_play_takes_options_before_after_or_without_the_game(gametree_cli):
    common = ("--x", "random", "--o", "easy", "--seed", "3", "--games", "4", "--json")
    after = gametree_cli("play", "tictactoe", *common)
    before = gametree_cli("play", *common, "tictactoe")
    without = gametree_cli("play", *common)
    assert after.returncode == 0, after.stderr
    untimed = [json.loads(out.stdout) for out in (before, after, without)]
    for match in untimed:  # (how long each move took differs from run to run)
        for record in match["records"]:
            assert len(record.pop("seconds")) == len(record["moves"])
    assert untimed[0] == untimed[1] == untimed[2]
    # Given twice, the later one counts (as click does after the game's name).
    twice = gametree_cli("play", "--x", "easy", "tictactoe", "--x", "random", "--o", "random", "--json")
    assert json.loads(twice.stdout)["players"] == ["random", "random"]
    # A game's own option without the game's name goes to the default game.
    small = gametree_cli("play", "--size", "2", "--x", "random", "--o", "random", "--seed", "1", "--json")
    assert small.returncode == 0, small.stderr
    assert set(json.loads(small.stdout)["records"][0]["moves"]) <= {"A1", "A2", "B1", "B2"}
    nim = gametree_cli("play", "--x", "random", "--o", "random", "--json", "nim", "--heaps", "1")
    assert json.loads(nim.stdout)["records"][0]["moves"] == ["1:1"]


def test_help_before_the_game_is_the_groups_help(gametree_cli):
    for args in (
        ["solve", "--help"],
        ["solve", "--help", "tictactoe"],
        ["solve", "--moves", "B2", "-h", "tictactoe"],
        ["play", "--x", "random", "--help"],
    ):
        out = gametree_cli(*args)
        assert out.returncode == 0, out.stderr
        assert (
            re.match(rf"Usage: gametree {args[0]} \[OPTIONS\] \[?COMMAND\]? \[ARGS\]\.\.\.\n", out.stdout)
            and "Commands:" in out.stdout
        ), args
        assert "tictactoe" in out.stdout and "--moves" not in out.stdout
    out = gametree_cli("solve", "tictactoe", "--help")
    assert (
        out.stdout.startswith("Usage: gametree solve tictactoe [OPTIONS]")
        and "--moves" in out.stdout
        and "--size" in out.stdout
    )
    out = gametree_cli("play", "--help")
    assert "gametree play tictactoe --help" in " ".join(out.stdout.split())  # where the options are


def test_a_misspelt_or_missing_game_is_one_line(gametree_cli):
    one_line_error(
        gametree_cli("solve", "--size", "4", "tictactoee"),
        "unknown game 'tictactoee'",
        "installed: connect4, dice, dodgem, nim, othello, pig, textbook, tictactoe",
    )
    one_line_error(gametree_cli("tree", "--moves", "B2", "--depth", "2", "tictactoee"), "unknown game 'tictactoee'")
    one_line_error(gametree_cli("solve", "--moves", "B2"), "no game named", "tictactoe")
    one_line_error(gametree_cli("learn", "-n", "5"), "no game named")
    out = gametree_cli("-p", "no:tictactoe", "play", "--x", "random", "--o", "random", "--json")
    one_line_error(
        out,
        "the default, tictactoe, is not installed",
        "installed: connect4, dice, dodgem, nim, othello, pig, textbook",
    )


# -- 2. play --table ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def table_file(gametree_cli: GametreeCli, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tables") / "ttt.json"
    out = gametree_cli("learn", "tictactoe", "-n", "3000", "--seed", "0", "-o", str(path))
    assert out.returncode == 0, out.stderr
    return path


def test_play_table_gives_the_learned_player_its_table(gametree_cli, table_file, tmp_path):
    # --table wins over $GAMETREE_TABLE (here a file that is not there).
    env = {"GAMETREE_TABLE": str(tmp_path / "absent.json")}
    out = gametree_cli(
        "play",
        "--x",
        "learned",
        "--o",
        "random",
        "--table",
        str(table_file),
        "--games",
        "20",
        "--seed",
        "1",
        "--json",
        env=env,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert (
        result["players"] == ["learned", "random"] and result["wins"][0] >= 14
    )  # random wins 58% as X; learned far more
    without = gametree_cli("play", "--x", "learned", "--o", "random", "--json", env=env)
    one_line_error(without, "absent.json")


@pytest.mark.parametrize(
    "content, needle",
    [
        (None, "cannot read the learned table"),
        (b"{not json", "not a learned table (bad JSON"),
        (b"\xff\xfe\x00", "not UTF-8"),
        (b'{"format": "something else"}', "not a learned table"),
        ("directory", "cannot read the learned table"),
    ],
)
def test_play_table_refuses_a_bad_file_in_one_line(gametree_cli, tmp_path, content, needle):
    path = tmp_path / "table.json"
    if content == "directory":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    out = gametree_cli("play", "--o", "learned", "--x", "random", "--table", str(path), "--json")
    one_line_error(out, needle, str(path))


def test_play_table_refuses_another_boards_table_and_players_without_tables(gametree_cli, table_file):
    out = gametree_cli(
        "play",
        "tictactoe",
        "--size",
        "4",
        "--k",
        "3",
        "--o",
        "learned",
        "--x",
        "random",
        "--table",
        str(table_file),
        "--json",
    )
    one_line_error(out, str(table_file), "learned for 'TicTacToe(width=3, height=3, k=3)'")
    out = gametree_cli("play", "--x", "random", "--o", "easy", "--table", str(table_file), "--json")
    assert out.returncode == 2
    one_line_error(out, "--table is for the learned player")


def test_the_learned_player_takes_a_table():
    from gametree.learn import LearnedPlayer, TableReader, learn

    game = gametree.load().game("tictactoe").create()
    table = learn(game, games=50, seed=1)
    player = LearnedPlayer("/nonexistent/table.json")
    assert isinstance(player, TableReader)
    player.use_table(table)
    assert player.table() is table and len(player.values(game, game.initial_state())) == 9


# -- 3. JSON reports the options that made the game ------------------------------------------------
@pytest.mark.parametrize(
    "args, options",
    [
        (["tictactoe"], {"width": 3, "height": 3, "k": 3}),
        (["tictactoe", "--size", "4", "--k", "3", "--moves", "B2 A1 C3 D4 A4 B3"], {"width": 4, "height": 4, "k": 3}),
        (["tictactoe", "--size", "3", "--width", "2"], {"width": 2, "height": 3, "k": 3}),
        (["connect4", "--width", "4", "--height", "4"], {"width": 4, "height": 4, "k": 4}),
        (["nim", "--heaps", " 1, 2"], {"heaps": "1,2", "misere": False}),
    ],
)
def test_solve_json_reports_the_resolved_options(gametree_cli, args, options):
    out = gametree_cli("solve", *args, "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["options"] == options


def test_learned_tables_record_the_resolved_options(gametree_cli):
    out = gametree_cli("learn", "tictactoe", "--size", "2", "-n", "5", "-o", "-")
    assert json.loads(out.stdout)["options"] == {"width": 2, "height": 2, "k": 2}


@pytest.mark.parametrize(
    "name, given",
    [
        ("tictactoe", {}),
        ("tictactoe", {"size": 5, "k": 4}),
        ("tictactoe", {"width": 6, "height": 2}),
        ("connect4", {"width": 5}),
        ("nim", {"heaps": "7 0 2", "misere": True}),
        ("othello", {"size": 6}),
    ],
)
def test_builtin_games_options_recreate_them(name, given):
    spec = gametree.load().game(name)
    game = spec.create(**given)
    assert isinstance(game, Configurable)
    again = spec.create(**game.options())
    assert repr(again) == repr(game) and again.options() == game.options()
    json.dumps(game.options())


def test_resolved_options_fall_back_to_what_was_given():
    from gametree.cli.common import resolved_options

    spec = gametree.load().game("tictactoe")

    class Plain:  # a third-party game without options()
        pass

    assert resolved_options(spec, Plain(), {"size": 4, "width": None, "height": None, "k": 3}) == {"size": 4, "k": 3}

    class DictAttribute:  # an attribute of that name that is no method: not Configurable's options()
        options = {"size": 9}

    assert resolved_options(spec, DictAttribute(), {"size": None, "k": 2}) == {"k": 2}

    class Wrong:
        def options(self) -> object:
            return {"depth": 3}

    with pytest.raises(
        click.ClickException, match=r"game 'tictactoe' is malformed: its options\(\) gave \{'depth': 3\}"
    ):
        resolved_options(spec, Wrong(), {})
    assert resolved_options(spec, spec.create(size=2), {"size": 2}) == {"width": 2, "height": 2, "k": 2}


# -- 4. messages fit the terminal, broken between words ----------------------------------------------
class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        raise io.UnsupportedOperation("no descriptor")


def _fits(text: str, original: str, width: int = 80) -> None:
    """``text`` shows ``original`` in lines of at most ``width`` characters, no word broken."""
    lines = text.rstrip("\n").split("\n")
    assert all(len(line.rstrip()) <= width for line in lines), lines
    assert text.split() == original.split(), (text, original)


def test_wrap_for_terminal_breaks_long_lines_between_words(monkeypatch):
    from gametree.cli.common import wrap_for_terminal

    message = (
        "Error: the alphabeta tree of this position has 622 nodes, more than --max-nodes 400:"
        " start from a later position (--moves), limit the depth (--depth N), or raise --max-nodes"
    )
    assert wrap_for_terminal(message, io.StringIO()) == message  # a pipe or a file: one line
    master, slave = pty.openpty()
    try:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        monkeypatch.delenv("COLUMNS", raising=False)
        with os.fdopen(os.dup(slave), "w") as terminal:
            wrapped = wrap_for_terminal(message + "\n  indented: " + "word " * 30, terminal)
    finally:
        os.close(master)
        os.close(slave)
    _fits(wrapped, message + " indented: " + "word " * 30)
    assert wrapped.count("\n") >= 3 and "\n  word" in wrapped  # the indented line keeps its indent
    assert wrap_for_terminal(message, FakeTerminal()) == message  # no size to fit


def test_error_lines_fit_an_80_column_terminal(gametree_cli, tmp_path):
    args = ("tree", "tictactoe", "--max-nodes", "10", "-o", str(tmp_path / "t.dot"))
    piped = one_line_error(gametree_cli(*args))
    assert len(piped) > 80
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    environ = gametree_cli.env({"COLUMNS": None})
    out = subprocess.run(gametree_cli.argv(*args), stderr=slave, stdout=subprocess.DEVNULL, env=environ, timeout=120)
    os.close(slave)
    shown = b""
    while select.select([master], [], [], 0.2)[0]:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        shown += data
    os.close(master)
    assert out.returncode == 1
    _fits(ANSI.sub("", shown.decode()).replace("\r", ""), piped)  # (without the progress line's cursor controls)


def test_play_messages_fit_an_80_column_terminal(gametree_cli):
    status, shown, _ = on_terminal(gametree_cli, "play", "connect4", "--width", "5", "--height", "5", input="quit\n")
    assert status == 0, shown
    lines = shown.split("\n")
    assert all(len(line.rstrip()) <= 80 for line in lines), [line for line in lines if len(line.rstrip()) > 80]
    start = next(i for i, line in enumerate(lines) if line.startswith("How to play"))
    how = "How to play: type a column number 1-5; the disc drops to the lowest free cell (or hint, undo, help, quit)."
    assert " ".join(lines[start : start + 2]).split() == how.split()


@pytest.mark.parametrize("fancy", [True, False])
def test_terminal_say_breaks_between_words(monkeypatch, fancy):
    from gametree.terminal import Terminal

    monkeypatch.setenv("COLUMNS", "80")
    screen = FakeTerminal()
    note = (
        "Yellow plays 'hard' by default here: 'perfect' would first solve all 42 plies,"
        " which is slow in Python (--o perfect insists)."
    )
    terminal = Terminal(io.StringIO(), screen, fancy=fancy)
    terminal.say(note)
    terminal.say("  MOVE      " + note)
    _fits(ANSI.sub("", screen.getvalue()), note + "  MOVE      " + note)


# -- 5. tree: no markup or binary to a terminal ------------------------------------------------------
@pytest.mark.parametrize("fmt, ending", [(None, ".svg"), ("svg", ".svg"), ("png", ".png"), ("graphml", ".graphml")])
def test_tree_refuses_markup_and_binary_to_a_terminal(gametree_cli, fmt, ending):
    status, shown, stderr = on_terminal(
        gametree_cli, "tree", "tictactoe", "--moves", "B2 A1 C3 A3", *(["-f", fmt] if fmt else [])
    )
    assert status == 2 and shown == ""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and f"-o tree{ending}" in lines[0] and "Traceback" not in stderr, stderr


def test_tree_writes_text_formats_to_a_terminal_and_anything_to_a_pipe(gametree_cli):
    status, shown, stderr = on_terminal(gametree_cli, "tree", "tictactoe", "--moves", "B2 A1 C3 A3", "-f", "dot")
    assert status == 0 and shown.startswith("digraph"), stderr
    out = gametree_cli("tree", "tictactoe", "--moves", "B2 A1 C3 A3", "-f", "graphml")
    assert out.returncode == 0 and "<graphml" in out.stdout, out.stderr
    out = gametree_cli("tree", "tictactoe", "--moves", "B2 A1 C3 A3")
    if out.returncode != 0 and "dot" in out.stderr:
        pytest.skip(f"no dot program for SVG: {out.stderr.strip()}")
    assert out.returncode == 0 and "<svg" in out.stdout, out.stderr
