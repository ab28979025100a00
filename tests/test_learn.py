"""Learning from random self-play: statistics, determinism across workers, the table file, the player."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from gametree import play_text
from gametree.learn import LearnedPlayer, LearnedTable, TableError, game_seed, learn, merge_counts, play_random_games
from gametree.play import PlayError, play_match


@pytest.fixture(scope="module")
def table(ttt3):
    return learn(ttt3, games=3000, seed=7, name="tictactoe", options={"size": 3})


def test_same_table_for_any_number_of_workers(ttt3, table):
    assert (
        learn(ttt3, games=3000, seed=7, workers=2, name="tictactoe", options={"size": 3}).to_json() == table.to_json()
    )
    assert (
        learn(ttt3, games=3000, seed=7, workers=3, name="tictactoe", options={"size": 3}).positions == table.positions
    )
    assert learn(ttt3, games=3000, seed=8).positions != table.positions  # the seed matters


def test_partial_tables_merge_to_the_whole(ttt3):
    whole = play_random_games(ttt3, 3, range(500))
    parts = [play_random_games(ttt3, 3, range(a, b)) for a, b in ((300, 500), (0, 120), (120, 300))]
    merged: dict = {}
    for part in parts:
        merge_counts(merged, part)
    assert merged == whole


def test_counts_follow_the_games(ttt3, table):
    n, w0, w1 = table.stats(ttt3, ttt3.initial_state())
    assert n == 3000 and w0 + w1 <= n
    # Random 3x3 tic-tac-toe: X wins about 58.5% of games, O 28.8%, 12.7% are drawn.
    assert abs(w0 / n - 0.585) < 0.04 and abs(w1 / n - 0.288) < 0.04
    # Symmetric positions share one entry: X in any corner is the same position.
    corners = {table.stats(ttt3, play_text(ttt3, cell)) for cell in ("A1", "A3", "C1", "C3")}
    assert len(corners) == 1
    # Every game passes through exactly one position after one move.
    first = {ttt3.canonical_key(play_text(ttt3, cell)) for cell in ("A1", "A2", "B2")}
    assert sum(table.positions[repr(k)][0] for k in first) == 3000
    # Replaying game 0 from its own seed: its final position was counted with its winner.
    rng = random.Random(game_seed(7, 0))
    state = ttt3.initial_state()
    while ttt3.outcome(state) is None:
        moves = ttt3.legal_moves(state)
        state = ttt3.play(state, moves[int(rng.random() * len(moves))])
    n_end, w0_end, w1_end = table.stats(ttt3, state)
    winner = ttt3.outcome(state).winner
    assert n_end >= 1 and (w0_end, w1_end) == ((n_end, 0) if winner == 0 else (0, n_end) if winner == 1 else (0, 0))


def test_table_file_round_trip_and_errors(ttt3, registry, table, tmp_path):
    path = tmp_path / "t.json"
    table.save(path)
    again = LearnedTable.load(path)
    assert again == table and json.loads(path.read_text())["game"] == "tictactoe"
    with pytest.raises(TableError, match="cannot read"):
        LearnedTable.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text('{"format": "something else"}')
    with pytest.raises(TableError, match="not a learned table"):
        LearnedTable.load(tmp_path / "bad.json")
    with pytest.raises(TableError, match="learned for"):
        table.check(registry.game("tictactoe").create(size=4))


def test_learned_player_wins_now_and_beats_random(ttt3, registry, table):
    player = LearnedPlayer(table)
    state = play_text(ttt3, "A1 B1 A2 B2")
    assert ttt3.format_move(state, player.choose(ttt3, state, random.Random(0))) == "A3"
    values = dict(player.values(ttt3, state))
    assert values[ttt3.parse_move(state, "A3")] == 1.0 and all(-1 <= v <= 1 for v in values.values())
    random_player = registry.players["random"]()
    first = play_match(ttt3, (player, random_player), games=40, seed=1)
    second = play_match(ttt3, (random_player, player), games=40, seed=2)
    assert first.wins[0] > 3 * first.wins[1] and second.wins[1] > second.wins[0]


def test_learned_player_errors_are_play_errors(ttt3, registry, table, tmp_path):
    with pytest.raises(PlayError, match="cannot read"):
        LearnedPlayer(tmp_path / "none.json").choose(ttt3, ttt3.initial_state(), random.Random(0))
    big = registry.game("tictactoe").create(size=4)
    with pytest.raises(PlayError, match="learned for"):
        LearnedPlayer(table).choose(big, big.initial_state(), random.Random(0))


def test_cli_learn_workers_and_play(gametree_cli, tmp_path):
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    a = gametree_cli("learn", "tictactoe", "--games", "400", "--seed", "3", "-o", str(one))
    b = gametree_cli("learn", "tictactoe", "--games", "400", "--seed", "3", "--workers", "2", "-o", str(two))
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert one.read_bytes() == two.read_bytes() and "400 random games" in a.stderr
    data = json.loads(one.read_text())
    assert data["games"] == 400 and data["variant"] == "TicTacToe(width=3, height=3, k=3)"
    out = gametree_cli("learn", "tictactoe", "--games", "50", "-o", "-")
    assert json.loads(out.stdout)["games"] == 50
    play = gametree_cli(
        "play",
        "tictactoe",
        "--x",
        "learned",
        "--o",
        "random",
        "--games",
        "3",
        "--json",
        env={"GAMETREE_TABLE": str(one)},
    )
    assert play.returncode == 0, play.stderr
    assert json.loads(play.stdout)["games"] == 3
    bad = gametree_cli("learn", "tictactoe", "--games", "0")
    assert bad.returncode == 2 and "--games" in bad.stderr


# ---------------------------------------------------------------------------------------------
# Reliability: bad table files, escaping what they contain, atomic writes, the --workers maximum.

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX resource limits")

_VALID = {
    "format": "gametree-learned-table",
    "version": 1,
    "game": "tictactoe",
    "options": {"size": 3},
    "variant": "TicTacToe(width=3, height=3, k=3)",
    "games": 2,
    "seed": 0,
    "key": "canonical_key",
    "positions": {"0": [2, 1, 0], "1": "@@"},
}


def _table_bytes(raw: str = "[1, 1, 0]", **changes) -> bytes:
    """A table file with ``changes`` to its fields and ``raw`` JSON text as the value of position "1"."""
    return json.dumps({**_VALID, **changes}).replace('"@@"', raw).encode()


_DEEP = "[" * 100_000 + "]" * 100_000

BAD_TABLES = {
    "deeply nested": _DEEP.encode(),
    "deeply nested position": _table_bytes(_DEEP),
    "not UTF-8": _table_bytes() + b"\xff",
    "not UTF-8 inside a string": _table_bytes(variant="TicTacToe").replace(b"TicTacToe", b"Tic\xffTac"),
    "1e400 (inf)": _table_bytes("[1e400, 0, 0]"),
    "-1e400 games": _table_bytes().replace(b'"games": 2', b'"games": -1e400'),
    "NaN": _table_bytes("[NaN, 0, 0]"),
    "Infinity": _table_bytes("[Infinity, 0, 0]"),
    "a 5000-digit number": _table_bytes("[" + "9" * 5000 + ", 0, 0]"),
    "a float count": _table_bytes("[1.5, 1, 0]"),
    "a boolean count": _table_bytes("[true, 0, 0]"),
    "four counts": _table_bytes("[1, 0, 0, 7]"),
    "two counts": _table_bytes("[1, 0]"),
    "a negative count": _table_bytes("[-5, 9, 0]"),
    "more wins than games": _table_bytes("[1, 1, 1]"),
    "a string for counts": _table_bytes('"x"'),
    "positions a list": _table_bytes(positions=[[2, 1, 0]]),
    "options a list": _table_bytes(options=[[1, 2]]),
    "version true": _table_bytes(version=True),
    "games a string": _table_bytes(games="2"),
    "variant a number": _table_bytes(variant=3),
    "no variant": json.dumps({k: v for k, v in _VALID.items() if k not in ("variant", "positions")}).encode(),
    "a list": b"[]",
    "empty": b"",
}


def test_the_valid_example_table_loads(tmp_path):
    path = tmp_path / "ok.json"
    path.write_bytes(_table_bytes())
    assert LearnedTable.load(path).positions == {"0": [2, 1, 0], "1": [1, 1, 0]}


@pytest.mark.parametrize("content", BAD_TABLES.values(), ids=BAD_TABLES.keys())
def test_a_bad_table_is_one_table_error_naming_the_file(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(TableError) as caught:
        LearnedTable.load(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and message.isprintable() and len(message) < 300, message


@pytest.mark.parametrize("name", ["deeply nested", "not UTF-8", "1e400 (inf)", "more wins than games"])
def test_the_learned_player_reports_a_bad_table_in_one_line(gametree_cli, tmp_path, name):
    path = tmp_path / "bad.json"
    path.write_bytes(BAD_TABLES[name])
    done = gametree_cli(
        "play",
        "tictactoe",
        "--x",
        "learned",
        "--o",
        "random",
        "--games",
        "1",
        "--json",
        env={"GAMETREE_TABLE": str(path)},
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("Error: ") and str(path) in done.stderr, done.stderr


_EVIL = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202e"  # a window title, clear screen, an 8-bit CSI, right-to-left override


def test_strings_from_a_table_are_escaped_in_errors(gametree_cli, tmp_path, registry):
    path = tmp_path / "evil.json"
    path.write_bytes(_table_bytes(version=_EVIL * 40))
    with pytest.raises(TableError) as caught:
        LearnedTable.load(path)
    assert (
        caught.value.args[0].isprintable()
        and "\\x1b]0;pwned\\x07" in str(caught.value)
        and len(str(caught.value)) < len(str(path)) + 150
    )
    path.write_bytes(
        _table_bytes().replace(b'"1":', json.dumps(_EVIL * 40).encode() + b":").replace(b"[1, 1, 0]", b"[1, 2, 0]")
    )
    with pytest.raises(TableError) as caught:
        LearnedTable.load(path)
    assert (
        str(caught.value).isprintable()
        and "\\x1b" in str(caught.value)
        and len(str(caught.value)) < len(str(path)) + 200
    )
    path.write_bytes(_table_bytes(variant=_EVIL))
    table = LearnedTable.load(path)
    with pytest.raises(TableError) as caught:
        table.check(registry.game("tictactoe").create(size=3))
    assert str(caught.value).isprintable() and "learned for '\\x1b]0;pwned" in str(caught.value)
    # And through the command line, where click strips colour codes but not a window-title sequence.
    done = gametree_cli(
        "play", "tictactoe", "--x", "learned", "--o", "random", "--games", "1", env={"GAMETREE_TABLE": str(path)}
    )
    assert done.returncode == 1 and "\x1b" not in done.stderr and "\x07" not in done.stderr, repr(done.stderr)
    assert done.stderr.count("\n") == 1, done.stderr


def _limit_file_size(limit: int):
    """A ``preexec_fn``: files the child writes stop at ``limit`` bytes with EFBIG, as on a full disk."""

    def preexec() -> None:
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    return preexec


@posix_only
def test_cli_learn_keeps_the_old_table_when_the_disk_fills(gametree_cli, tmp_path):
    path = tmp_path / "t.json"
    assert gametree_cli("learn", "tictactoe", "--games", "20", "-o", str(path)).returncode == 0
    old = path.read_bytes()
    assert 0 < len(old) < 4096
    done = gametree_cli("learn", "tictactoe", "--games", "400", "-o", str(path), preexec_fn=_limit_file_size(4096))
    assert (
        done.returncode == 1
        and done.stderr.startswith(f"Error: cannot write {path}: ")
        and done.stderr.count("\n") == 1
    ), done.stderr
    assert path.read_bytes() == old and os.listdir(tmp_path) == ["t.json"]


@posix_only
def test_save_keeps_the_old_table_when_the_disk_fills(tmp_path):
    path = tmp_path / "t.json"
    path.write_text("the old table")
    script = (
        "import sys\n"
        "from gametree import load\n"
        "from gametree.learn import learn\n"
        "game = load().game('tictactoe').create(size=3)\n"
        "try:\n"
        "    learn(game, games=400).save(sys.argv[1])\n"
        "except OSError as exc:\n"
        "    print(exc.errno)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limit_file_size(4096),
    )
    assert done.returncode == 0 and done.stdout.strip() == str(__import__("errno").EFBIG), done.stderr + done.stdout
    assert path.read_text() == "the old table" and os.listdir(tmp_path) == ["t.json"]


def test_save_keeps_the_old_table_when_serialising_fails(tmp_path, table):
    path = tmp_path / "t.json"
    table.save(path)
    old = path.read_bytes()
    broken = LearnedTable(**{**table.__dict__, "options": {"size": object()}})
    with pytest.raises(TypeError):
        broken.save(path)
    assert path.read_bytes() == old and os.listdir(tmp_path) == ["t.json"]


def test_cli_learn_failed_replace_is_one_line_and_keeps_the_old_table(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from gametree.cli import cli

    path = tmp_path / "t.json"
    path.write_text("the old table")

    def no_replace(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", no_replace)
    result = CliRunner().invoke(cli, ["learn", "tictactoe", "--games", "50", "-o", str(path)], catch_exceptions=False)
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == f"Error: cannot write {path}: Permission denied"
    assert path.read_text() == "the old table" and os.listdir(tmp_path) == ["t.json"]


def _max_workers() -> int:
    from gametree.runtime.processes import max_workers

    assert max_workers() == max(8, 4 * (os.cpu_count() or 1))
    return max_workers()


def test_learn_refuses_more_workers_than_the_maximum(ttt3):
    limit = _max_workers()
    with pytest.raises(ValueError, match=f"at most {limit}"):
        learn(ttt3, games=1, workers=limit + 1)


def test_cli_learn_workers_maximum_is_one_line(gametree_cli, tmp_path):
    limit = _max_workers()
    done = gametree_cli(
        "learn", "tictactoe", "--games", "1", "--workers", str(limit + 1), "-o", str(tmp_path / "t.json")
    )
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error")]
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert len(errors) == 1 and "--workers" in errors[0] and f"at most {limit}" in errors[0], done.stderr
    assert not (tmp_path / "t.json").exists()
