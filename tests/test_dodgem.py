"""Dodgem (games/dodgem.py): its rules, its text, and its published values (tests/data/dodgem_values.json)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from gametree import IllegalMoveError, MoveParseError, load, play_text
from gametree.cli import cli
from gametree.search import search
from gametree.search.retrograde import retrograde

PUBLISHED = {
    row["size"]: row["value"]
    for row in json.loads((Path(__file__).parent / "data" / "dodgem_values.json").read_text())["values"]
}


def dodgem(size: int = 3):  # type: ignore[no-untyped-def]
    return load().game("dodgem").create(size=size)


def test_start_and_moves() -> None:
    game = dodgem()
    start = game.initial_state()
    assert game.render(start).splitlines()[:4] == ["3 B . .", "2 B . .", "1 . R R", "  a b c"]
    assert game.info.repeats
    texts = [game.format_move(start, m) for m in game.legal_moves(start)]
    assert sorted(texts) == ["a2E", "a2S", "a3E"]  # a3N would leave over the top edge: only red's way off
    after = play_text(game, "a2S b1N")
    assert sorted(game.format_move(after, m) for m in game.legal_moves(after)) == ["a1E", "a1N", "a3E", "a3S"]


def test_cars_leave_over_the_far_edge_only() -> None:
    game = dodgem()
    state = play_text(game, "a3E b1N b3E b2N")  # blue on c3, red on b3
    assert "c3E" in [game.format_move(state, m) for m in game.legal_moves(state)]
    gone = play_text(game, "a3E b1N b3E b2N c3E")
    assert game.render(gone).splitlines()[-1].startswith("off the board: blue 1, red 0")
    red = play_text(game, "a3E b1N b3E b2N c3E")
    assert "b3N" in [game.format_move(red, m) for m in game.legal_moves(red)]


@pytest.mark.parametrize(
    ("moves", "text", "why"),
    [
        ("", "a3N", "leaves the board only by a forward move"),
        ("", "a2W", "never move left"),
        ("", "b1N", "the other player's car"),
        ("", "b2E", "an empty square"),
        ("a2E", "c1W", "b1 is taken by your own car"),
    ],
)
def test_check_move_says_why(moves: str, text: str, why: str) -> None:
    game = dodgem()
    state = play_text(game, moves)
    with pytest.raises(IllegalMoveError, match=why):
        game.check_move(state, game.parse_move(state, text))


def test_bad_move_text() -> None:
    game = dodgem()
    for text in ("a4E", "z1N", "a2", "a2X", "x" * 500):
        with pytest.raises(MoveParseError, match="square and a direction"):
            game.parse_move(game.initial_state(), text)


def test_no_legal_move_wins() -> None:
    game = dodgem(2)  # one car a side: blue on a2, red on b1
    state = play_text(game, "a2E b1W b2E")  # blue's car is off: red moves (a1N) ...
    state = game.play(state, game.parse_move(state, "a1N"))
    assert game.outcome(state) is not None and game.outcome(state).winner == 0  # ... blue cannot move: blue wins


def test_board_view() -> None:
    game = dodgem()
    state = game.initial_state()
    assert game.board_cells(state) == [["B", "", ""], ["B", "", ""], ["", "R", "R"]]
    assert game.move_cell(state, game.parse_move(state, "a2E")) == (1, 1)


def test_3x3_is_a_first_player_win() -> None:
    assert PUBLISHED[3] == "first player wins"
    result = search("retrograde", dodgem(3))
    assert (result.value, result.winner) == ("win", 0)
    assert len(result.pv) == result.plies_to_end
    state = play_text(dodgem(3), " ".join(result.pv))
    assert dodgem(3).outcome(state).winner == 0


@pytest.mark.slow
def test_4x4_is_a_draw_by_endless_play() -> None:
    assert PUBLISHED[4] == "draw by endless play"
    began = time.perf_counter()
    result = retrograde(dodgem(4))
    assert (result.value, result.plies_to_end) == ("draw", None)
    assert time.perf_counter() - began < 120


@pytest.mark.parametrize("strength", ["perfect", "medium"])
def test_the_computer_plays_dodgem_perfectly(strength: str) -> None:
    # Blue (first) wins 3x3 with perfect play: a perfect blue beats any red, at every search strength.
    out = CliRunner().invoke(
        cli, ["play", "dodgem", "--x", strength, "--o", "random", "--games", "4", "--seed", "3", "--json"]
    )
    assert out.exit_code == 0, out.output
    match = json.loads(out.output)
    assert match["wins"] == [4, 0]
    # ... and the perfect red against a perfect blue loses in the fastest win's 20 plies, no sooner.
    out = CliRunner().invoke(cli, ["play", "dodgem", "--x", "perfect", "--o", "perfect", "--seed", "1", "--json"])
    assert [len(game["moves"]) for game in json.loads(out.output)["records"]] == [20]


def test_solve_falls_back_to_retrograde_and_refuses_too_many_positions_in_one_line() -> None:
    out = CliRunner().invoke(cli, ["solve", "dodgem"])
    assert out.exit_code == 0, out.output
    assert "blue wins in 20 plies" in out.output and "Best moves: a3E" in out.output
    out = CliRunner().invoke(cli, ["solve", "dodgem", "--size", "2"])
    assert out.exit_code == 0, out.output
    out = CliRunner().invoke(cli, ["solve", "dodgem", "--max-positions", "100"])
    assert out.exit_code == 1 and out.output.strip().splitlines()[-1].startswith("Error: more than 100 positions")
    out = CliRunner().invoke(cli, ["solve", "dodgem", "-a", "solver"])
    assert out.exit_code == 1 and "positions that repeat" in out.output and "use -a retrograde" in out.output


@pytest.mark.slow
def test_two_perfect_players_draw_4x4_by_repetition() -> None:
    out = CliRunner().invoke(
        cli, ["play", "dodgem", "--size", "4", "--x", "perfect", "--o", "perfect", "--seed", "1", "--delay", "0"]
    )
    assert out.exit_code == 0, out.output
    assert "a draw by repetition" in out.output and "Draw after" in out.output
