"""Limits on the command line's input: absurd numbers, huge tokens and failing plugins give a
one-line error and a non-zero exit, never a traceback, a fork bomb or corrupted ``--json`` output."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import click
import pytest
from click.testing import CliRunner

from gametree import MoveParseError, Option, load, play_text
from gametree.cli.common import click_option
from gametree.search.montecarlo import MCTSPlayer
from gametree.search.table import BYTES_PER_ENTRY, parse_cache_size

if TYPE_CHECKING:
    from conftest import CliResult, GametreeCli

HUGE = "9" * 5000  # over the interpreter's 4,300-digit limit of int()


def assert_one_line_error(out: CliResult, *needles: str) -> str:
    """A non-zero exit with exactly one ``Error:`` line (containing ``needles``) and no traceback; that line."""
    assert out.returncode != 0, out.stdout
    assert "Traceback" not in out.stderr, out.stderr[-2000:]
    errors = [line for line in out.stderr.splitlines() if line.startswith("Error")]
    assert len(errors) == 1, out.stderr[-2000:]
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]


# -- F8: --workers has a maximum ----------------------------------------------------------------
def test_workers_has_a_maximum_named_in_the_error(gametree_cli):
    from gametree.runtime.processes import max_workers

    limit = max_workers()
    assert limit >= 8 and limit >= 4 * (os.cpu_count() or 1)
    out = gametree_cli("solve", "tictactoe", "--workers", "1000000000")
    assert out.returncode == 2
    assert_one_line_error(out, "--workers", f"at most {limit}")
    out = gametree_cli("solve", "tictactoe", "--workers", str(limit + 1), "--moves", "A1 B1 A2 B2")
    assert_one_line_error(out, "--workers", f"at most {limit}")


# -- F10: --cache-size has a minimum and a maximum, however written -------------------------------
@pytest.mark.parametrize("text", ["1", "0", "1.9", "0kb", "0.0001MB", "0GB", "0.001k"])
def test_cache_size_under_two_entries_is_refused_in_every_unit(text):
    with pytest.raises(ValueError, match="at least 2 entries") as caught:
        parse_cache_size(text)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("text", ["9" * 400, "9" * 5000, "1" + "0" * 30 + "GB", "2000GB", "1025GB", "6G", "1e3"])
def test_cache_size_beyond_the_maximum_or_unreadable_is_a_value_error(text):
    with pytest.raises(ValueError) as caught:
        parse_cache_size(text)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 200


def test_cache_size_limits_are_documented_and_inclusive():
    from gametree.search.table import MAX_CACHE_BYTES

    assert MAX_CACHE_BYTES == 1 << 40
    assert parse_cache_size("1024GB").max_entries == MAX_CACHE_BYTES // BYTES_PER_ENTRY
    assert parse_cache_size("2").max_entries == 2
    assert parse_cache_size("1kb").max_entries == 1024 // BYTES_PER_ENTRY
    assert parse_cache_size("2M").max_entries == 2_000_000
    with pytest.raises(ValueError, match="at most 1 TiB"):
        parse_cache_size(f"{MAX_CACHE_BYTES // BYTES_PER_ENTRY + 1}")


@pytest.mark.parametrize("size", ["9" * 400, "0kb", "1"])
def test_cache_size_errors_on_the_command_line(gametree_cli, size):
    out = gametree_cli("solve", "tictactoe", "--cache-size", size)
    assert out.returncode == 2
    assert_one_line_error(out, "--cache-size")


# -- A game refusing its own options is a usage error: exit 2, as click's checks of the same line ---------
#: Each command that takes a game's options, with what else it needs to get as far as making the game
#: ({tmp}: a folder of the test's own; nothing is written there, the game is refused first).
GAME_OPTION_COMMANDS = {
    ("solve",): [],
    ("play",): ["--x", "random", "--o", "random"],
    ("tree",): ["-o", "{tmp}/t.dot"],
    ("learn",): ["--games", "1", "-o", "{tmp}/t.json"],
    ("book", "build"): ["--plies", "1", "--store", "{tmp}/s.sqlite"],
    ("book", "export"): ["-o", "{tmp}/b.gz", "--store", "{tmp}/s.sqlite"],
    ("show",): [],
    ("tiers", "build"): ["--out", "{tmp}/t.tiers"],
    ("tiers", "query"): ["--out", "{tmp}/t.tiers"],
    ("book", "query"): ["--tiers", "{tmp}/t.tiers"],
}


def run_in_process(argv: list[str]) -> tuple[int, str]:
    """``gametree ARGV`` in this process, as the console script handles errors: exit status, standard error."""
    import contextlib
    import io

    from gametree.cli import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exc:
            return (exc.code if isinstance(exc.code, int) else 1), err.getvalue()
    return 0, err.getvalue()


def test_every_command_taking_game_options_is_listed():
    """GAME_OPTION_COMMANDS holds every command built per game (a GameGroup), wherever it is."""
    from gametree.cli import GameGroup, cli

    def groups(command: click.Command, path: tuple[str, ...]):  # type: ignore[no-untyped-def]
        if isinstance(command, GameGroup):
            yield path
        elif isinstance(command, click.Group):
            for name, sub in command.commands.items():
                yield from groups(sub, (*path, name))

    assert set(groups(cli, ())) == set(GAME_OPTION_COMMANDS)


@pytest.mark.parametrize("command", sorted(GAME_OPTION_COMMANDS), ids=" ".join)
@pytest.mark.parametrize(
    "game_args, message",
    [
        (["tictactoe", "--k", "9"], "Error: Invalid value for '--k': 9 cannot fit on a 3x3 board (1 <= k <= 3)"),
        (["connect4", "--width", "100000", "--height", "1"], "Error: Invalid value for '--width': must be at most 100"),
        (["connect4", "--height", "99999999999999999999"], "Error: Invalid value for '--height': must be at most 100"),
        (["nim", "--heaps", "1,x"], "Error: Invalid value for '--heaps': '1,x': 'x' is not a heap size"),
        (["nim", "--heaps", "2000000"], "Error: Invalid value for '--heaps': a heap holds at most 1,000,000 objects"),
        (
            ["tictactoe", "--size", "27"],
            "Error: tictactoe: board 27x27: width and height must be between 1 and 26",
        ),  # names no one option
    ],
)
def test_a_game_refusing_its_options_is_a_usage_error(tmp_path, command, game_args, message):
    """Exit 2 with one line naming the option and the command's help, for every command that takes
    game options, as for the values click itself refuses (``--workers -3``, ``--width x``); was exit 1."""
    extra = [arg.replace("{tmp}", str(tmp_path)) for arg in GAME_OPTION_COMMANDS[command]]
    code, err = run_in_process([*command, *game_args, *extra])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, (code, err)
    assert lines[0].startswith(message) and lines[0].endswith(
        f"(see 'gametree {' '.join(command)} {game_args[0]} --help')"
    ), lines[0]
    assert not list(tmp_path.iterdir())  # refused before any file or store was made


@pytest.mark.parametrize("command", [["solve"], ["tree", "-f", "dot"]])
def test_an_illegal_move_is_still_exit_1(command):
    """Moves are no option values: an illegal one is an error of the input, exit 1."""
    code, err = run_in_process([*command, "tictactoe", "--moves", "B2 B2"])
    assert code == 1 and err.strip() == "Error: move 2 ('B2'): B2 is already taken", err


# -- F11: huge move tokens ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "game, moves",
    [
        ("nim", f"1:{HUGE}"),
        ("nim", f"{HUGE}:1"),
        ("tictactoe", HUGE),
        ("tictactoe", f"A{HUGE}"),
        ("connect4", f"1 {HUGE}"),
    ],
)
def test_a_move_number_over_4300_digits_is_a_one_line_error(gametree_cli, game, moves):
    line = assert_one_line_error(gametree_cli("solve", game, "--moves", moves), "move")
    assert len(line) < 300  # the token is shortened, not echoed whole


@pytest.mark.parametrize("game", ["nim", "tictactoe", "connect4"])
@pytest.mark.parametrize("token", ["?" * 1_000_000, "7" * 1_000_000, "A" + "1" * 1_000_000, "1:" + "2" * 1_000_000])
def test_a_huge_bad_token_gives_a_short_message(game, token):
    spec = load().game(game)
    with pytest.raises(MoveParseError) as caught:
        play_text(spec.create(), f"1 {token}" if game == "connect4" else token)
    message = str(caught.value)
    assert len(message) < 300 and "..." in message, message[:300]


def test_a_huge_bad_token_in_a_batch_gives_a_short_line(gametree_cli):
    out = gametree_cli("solve", "tictactoe", "--batch", "-", input="?" * 1_000_000 + "\n")
    line = assert_one_line_error(out, "<stdin>:1", "...")
    assert len(line) < 300


class _IntParsingGame:
    """A third-party game whose parse_move calls int() and lets its ValueError escape."""

    def __init__(self) -> None:
        self.inner = load().game("nim").create()

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def parse_move(self, state: object, text: str) -> object:
        return (0, int(text))


def test_play_text_turns_a_games_value_error_into_a_short_move_parse_error():
    game = _IntParsingGame()
    with pytest.raises(MoveParseError, match=r"^move 1 \('9{57}\.\.\.'\): ") as caught:
        play_text(game, HUGE)
    assert len(str(caught.value)) < 300
    with pytest.raises(MoveParseError, match=r"^move 2 \('x'\): invalid literal"):
        play_text(game, "1 x")


# -- F13: --delay ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "delay, needle",
    [("inf", "finite"), ("nan", "finite"), ("1e308", "0<=x<=60"), ("61", "0<=x<=60"), ("-1", "0<=x<=60")],
)
def test_play_refuses_absurd_delays(gametree_cli, delay, needle):
    out = gametree_cli("play", "tictactoe", "--x", "random", "--o", "random", "--json", "--delay", delay)
    assert out.returncode == 2
    assert_one_line_error(out, "--delay", needle)


def test_play_accepts_a_delay_up_to_a_minute(gametree_cli):
    out = gametree_cli("play", "tictactoe", "--x", "random", "--o", "random", "--seed", "1", "--json", "--delay", "60")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["game"] == "tictactoe"


# -- F14: NaN and infinity in float options ----------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ["--time-limit", "nan"],
        ["--time-limit", "inf"],
        ["--time-limit", "1e400"],
        ["-a", "mcts", "--exploration", "nan"],
        ["-a", "mcts", "--exploration", "inf"],
        ["-a", "mcts", "--exploration", "-inf"],
    ],
)
def test_solve_refuses_non_finite_numbers(gametree_cli, args):
    out = gametree_cli("solve", "tictactoe", "--moves", "B2", *args)
    assert out.returncode == 2
    assert_one_line_error(out, args[-2], "finite")


@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize(
    "args, needle", [(["--exploration", "-1"], "exploration"), (["--iterations", "0"], "iterations")]
)
def test_an_algorithm_refusing_an_option_value_is_a_one_line_error(gametree_cli, args, needle, batch):
    more = ["--batch", "-"] if batch else ["--moves", "B2"]
    out = gametree_cli("solve", "tictactoe", "-a", "mcts", *args, *more, input="B2\n" if batch else None)
    assert_one_line_error(out, needle)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN", "1e999"])
def test_every_declared_float_option_refuses_non_finite_numbers(value):
    """A game's or algorithm's float option (as solve, play and tree offer them) is finite."""

    @click.command()
    @click_option(Option("ratio", float, 0.5, "a ratio"))
    def command(ratio: float | None) -> None:
        click.echo(repr(ratio))

    refused = CliRunner().invoke(command, ["--ratio", value])
    assert refused.exit_code == 2 and "finite" in refused.output
    accepted = CliRunner().invoke(command, ["--ratio", "0.25"])
    assert accepted.exit_code == 0 and accepted.output.strip() == "0.25"


# -- F15: GAMETREE_MCTS_SECONDS ------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["abc", "-1", "0", "nan", "inf", "1e999"])
def test_mcts_seconds_from_the_environment_must_be_a_positive_number(monkeypatch, value):
    monkeypatch.setenv("GAMETREE_MCTS_SECONDS", value)
    with pytest.raises(ValueError, match="GAMETREE_MCTS_SECONDS") as caught:
        MCTSPlayer()
    assert "\n" not in str(caught.value)


def test_mcts_seconds_from_the_environment(monkeypatch):
    monkeypatch.setenv("GAMETREE_MCTS_SECONDS", "0.25")
    assert MCTSPlayer().seconds == 0.25
    monkeypatch.setenv("GAMETREE_MCTS_SECONDS", " ")  # set but empty: the default
    assert MCTSPlayer().seconds == 1.0
    monkeypatch.delenv("GAMETREE_MCTS_SECONDS")
    assert MCTSPlayer().seconds == 1.0
    monkeypatch.setenv("GAMETREE_MCTS_SECONDS", "abc")
    assert MCTSPlayer(0.5).seconds == 0.5  # given explicitly: the environment is not read


@pytest.mark.parametrize("value", ["abc", "-1", "0", "nan"])
def test_play_reports_a_bad_mcts_seconds_in_one_line(gametree_cli, value):
    out = gametree_cli(
        "play", "tictactoe", "--x", "mcts", "--o", "random", "--json", env={"GAMETREE_MCTS_SECONDS": value}
    )
    assert_one_line_error(out, "GAMETREE_MCTS_SECONDS", "mcts")


# -- S4: a -p plugin that fails is an error ------------------------------------------------------------
def test_a_dash_p_module_that_cannot_be_imported_is_an_error(gametree_cli):
    out = gametree_cli("-p", "no_such_module_xyz", "games", "--json")
    assert out.stdout == ""
    assert_one_line_error(out, "no_such_module_xyz", "ModuleNotFoundError")
    out = gametree_cli("-p", "no_such_module_xyz", "solve", "tictactoe", "--moves", "A1 B1 A2 B2")
    assert_one_line_error(out, "no_such_module_xyz")


def test_a_dash_p_module_that_raises_on_import_or_in_its_hook_is_an_error(gametree_cli, tmp_path):
    (tmp_path / "raises_on_import.py").write_text("raise RuntimeError('broken on purpose')\n")
    (tmp_path / "raises_in_hook.py").write_text(
        "from gametree import hookimpl\n\n@hookimpl\ndef gametree_register_games(registry):\n"
        "    raise RuntimeError('hook broken on purpose')\n"
    )
    out = gametree_cli("-p", "raises_on_import", "games", path=tmp_path)
    assert_one_line_error(out, "raises_on_import", "broken on purpose")
    out = gametree_cli("-p", "raises_in_hook", "games", path=tmp_path)
    assert_one_line_error(out, "raises_in_hook", "hook broken on purpose")


def install_entry_point(folder, name: str, source: str) -> None:
    """A distribution ``name`` 0.1 in ``folder`` (put it on the path) with one plugin module, found by
    the real entry-point loader."""
    (folder / f"{name}.py").write_text(source)
    info = folder / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[gametree]\n{name} = {name}\n")


def test_a_broken_entry_point_plugin_stays_a_warning(gametree_cli, tmp_path):
    install_entry_point(tmp_path, "broken_ep", "raise RuntimeError('broken on purpose')\n")
    out = gametree_cli("games", "--json", path=tmp_path)
    assert out.returncode == 0, out.stderr
    assert [e["name"] for e in json.loads(out.stdout)["errors"]] == ["broken_ep"]
    assert "warning: plugin broken_ep" in out.stderr
    # -p no:NAME still switches a plugin off without complaint.
    out = gametree_cli("-p", "no:broken_ep", "games", "--json", path=tmp_path)
    assert out.returncode == 0 and json.loads(out.stdout)["errors"] == []


# -- S1: plugins cannot write to standard output ----------------------------------------------------
CHATTY = """
from gametree import hookimpl

print("chatty: imported")

@hookimpl
def gametree_register_games(registry):
    print("chatty: registering games")

@hookimpl
def gametree_register_players(registry):
    print("chatty: registering players")
"""


@pytest.mark.parametrize(
    "args",
    [
        ("solve", "tictactoe", "--moves", "A1 B1 A2 B2", "--json"),
        ("games", "--json"),
        ("play", "tictactoe", "--x", "random", "--o", "random", "--seed", "1", "--json"),
    ],
)
def test_a_plugin_printing_does_not_corrupt_json_output(gametree_cli, tmp_path, args):
    (tmp_path / "chatty.py").write_text(CHATTY)
    out = gametree_cli("-p", "chatty", *args, path=tmp_path)
    assert out.returncode == 0, out.stderr
    json.loads(out.stdout)  # nothing but the result
    for line in ("chatty: imported", "chatty: registering games", "chatty: registering players"):
        assert line in out.stderr


_BUGGY = """
from gametree import GameInfo, GameSpec, Outcome, hookimpl


class Buggy:
    info = GameInfo(max_plies=3)

    def initial_state(self):
        return 0

    def to_move(self, state):
        return state % 2

    def ply(self, state):
        return state

    def legal_moves(self, state):
        if state == 1:
            raise RuntimeError("a bug in the game, on purpose")
        return [0, 1]

    def play(self, state, move):
        return state + 1

    def outcome(self, state):
        return Outcome(None) if state == 3 else None

    def key(self, state):
        return state

    def parse_move(self, state, text):
        return int(text)

    def format_move(self, state, move):
        return str(move)

    def render(self, state):
        return str(state)


class NoPlayer:
    def choose(self, game, state, rng):
        return game.legal_moves(state)[0]


@hookimpl
def gametree_register_games(registry):
    registry.add_game(GameSpec(name="buggy", factory=Buggy))


@hookimpl
def gametree_register_players(registry):
    registry.add_player("nohuman", NoPlayer)
"""


def test_a_bug_in_a_plugins_code_is_one_line_naming_where(gametree_cli: GametreeCli, tmp_path: Path) -> None:
    """An exception nobody expected, here from a game's legal_moves: one line that says what and
    in which file and function it was raised (the plugin's), and how to see the traceback."""
    (tmp_path / "buggy_plugin.py").write_text(_BUGGY)
    out = gametree_cli("-p", "buggy_plugin", "solve", "buggy", path=tmp_path)
    line = assert_one_line_error(
        out,
        "unexpected RuntimeError: a bug in the game, on purpose",
        "in legal_moves",
        "buggy_plugin.py:",
        "GAMETREE_DEBUG=1",
    )
    assert out.returncode == 1, line
    debug = gametree_cli("-p", "buggy_plugin", "solve", "buggy", path=tmp_path, env={"GAMETREE_DEBUG": "1"})
    assert "Traceback" in debug.stderr and "a bug in the game, on purpose" in debug.stderr
    player = gametree_cli("-p", "buggy_plugin", "play", "tictactoe", "--x", "nohuman", "--o", "random", path=tmp_path)
    assert_one_line_error(player, "player nohuman (from ", "buggy_plugin", "needs a 'human' attribute")


def test_drawing_that_takes_too_long_is_stopped_with_one_line(gametree_cli: GametreeCli, tmp_path: Path) -> None:
    """The drawing program is given GAMETREE_RENDER_SECONDS (default 120 s), then stopped."""
    out = gametree_cli(
        "tree",
        "tictactoe",
        "--moves",
        "A1 B2 C3",
        "-o",
        str(tmp_path / "t.svg"),
        env={"GAMETREE_RENDER_SECONDS": "0.001"},
    )
    assert_one_line_error(out, "took more than 0.001 s to draw the svg", "-f dot")
    assert not (tmp_path / "t.svg").exists()


IMPOSTOR = """
from gametree import GameSpec, hookimpl
from gametree_builtins.games.nim import Nim


@hookimpl
def gametree_register_games(registry):
    registry.add_game(GameSpec(name="tictactoe", factory=Nim, summary="not tic-tac-toe at all"))
"""


def test_an_installed_plugin_cannot_take_a_built_in_games_name(gametree_cli, tmp_path):
    """Issue 32, F4: an entry-point plugin registering 'tictactoe' won when it loaded first, and the
    warning blamed the built-in plugin as failed. The built-ins register first: the impostor is the
    one refused, by name."""
    install_entry_point(tmp_path, "impostor", IMPOSTOR)
    games = gametree_cli("games", "--json", path=tmp_path)
    assert games.returncode == 0, games.stderr
    errors = json.loads(games.stdout)["errors"]
    assert [e["name"] for e in errors] == ["impostor"], errors
    assert "'tictactoe' is registered twice" in errors[0]["error"] and "impostor" in errors[0]["error"]
    solved = gametree_cli("solve", "tictactoe", "--size", "3", "--no-store", "--json", path=tmp_path)
    assert solved.returncode == 0 and json.loads(solved.stdout)["value"] == "draw"  # (tic-tac-toe, not Nim)
    assert "impostor" in solved.stderr
