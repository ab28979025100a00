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
    assert learn(ttt3, games=3000, seed=7, workers=2, name="tictactoe", options={"size": 3}).to_json() == table.to_json()
    assert learn(ttt3, games=3000, seed=7, workers=3, name="tictactoe", options={"size": 3}).positions == table.positions
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


def _gametree(*args, **kwargs):
    return subprocess.run([sys.executable, "-c", "from gametree.cli import main; main()", *args], capture_output=True, text=True, timeout=120, **kwargs)


def test_cli_learn_workers_and_play(tmp_path):
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    a = _gametree("learn", "tictactoe", "--games", "400", "--seed", "3", "-o", str(one))
    b = _gametree("learn", "tictactoe", "--games", "400", "--seed", "3", "--workers", "2", "-o", str(two))
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert one.read_bytes() == two.read_bytes() and "400 random games" in a.stderr
    data = json.loads(one.read_text())
    assert data["games"] == 400 and data["variant"] == "TicTacToe(width=3, height=3, k=3)"
    out = _gametree("learn", "tictactoe", "--games", "50", "-o", "-")
    assert json.loads(out.stdout)["games"] == 50
    play = _gametree("play", "tictactoe", "--x", "learned", "--o", "random", "--games", "3", "--json", env={**os.environ, "GAMETREE_TABLE": str(one)})
    assert play.returncode == 0, play.stderr
    assert json.loads(play.stdout)["games"] == 3
    bad = _gametree("learn", "tictactoe", "--games", "0")
    assert bad.returncode == 2 and "--games" in bad.stderr
