"""trio, the built-in three-player game: its rules, text, board, symmetries and registration."""

from __future__ import annotations

import importlib.metadata
import random
from typing import Any

import pytest
from click.testing import CliRunner

from gametree import IllegalMoveError, MoveParseError, load, play_text
from gametree.cli import cli
from gametree.game import capabilities, game_kinds, payoffs

REGISTRY = load()


def trio(**options: int) -> Any:
    return REGISTRY.game("trio").create(**options)


def test_registered_through_an_entry_point_like_any_plugin() -> None:
    names = {ep.name for ep in importlib.metadata.entry_points(group="gametree")}
    assert "trio" in names
    assert REGISTRY.games["trio"].source.endswith("(entry point gametree_builtins.games.trio)")


def test_the_game_declares_three_players_and_its_payoff_bounds() -> None:
    game = trio()
    info = game.info
    assert (game.width, game.height, game.k) == (4, 4, 3)
    assert info.players == 3 and info.player_names == ("X", "O", "Y") and not info.zero_sum
    assert info.payoff_bounds == (0, 1) and info.payoff_sum == 1 and info.max_plies == 16
    assert {kind.name for kind in game_kinds(info)} == {"PLAYERS", "GENERAL_SUM"}
    caps = capabilities(game)
    assert caps.board is not None and caps.payoff_heuristic is not None and caps.symmetric is not None


def test_turns_lines_and_payoffs() -> None:
    game = trio(size=3)
    state = play_text(game, "A1 B1 C1 A2 B2 C2")
    assert game.to_move(state) == 0 and game.outcome(state) is None
    won = play_text(game, "A3", state)
    out = game.outcome(won)
    assert out.winner == 0 and payoffs(game, out) == (1, 0, 0)
    assert game.winning_cells(won) == ((0, 0), (0, 1), (0, 2))
    assert game.legal_moves(won) == []
    # on 4x4, 3 in a row: O's row A2-A4; Y's diagonal B2-C3-D4
    big = trio()
    out = big.outcome(play_text(big, "A1 A2 B2 D1 A3 C3 D2 A4"))
    assert out.winner == 1 and payoffs(big, out) == (0, 1, 0)
    before = play_text(big, "A1 A2 B2 D1 A4 C3 C1 D3")
    assert big.outcome(before) is None
    end = play_text(big, "D4", before)
    assert big.outcome(end).winner == 2 and big.winning_cells(end) == ((1, 1), (2, 2), (3, 3))


def test_a_full_board_is_a_draw_worth_nothing() -> None:
    game = trio(width=3, height=1, k=3)
    end = play_text(game, "A1 A2 A3")
    out = game.outcome(end)
    assert out.winner is None and payoffs(game, out) == (0, 0, 0)


def test_random_games_end_with_one_winner_or_a_full_board() -> None:
    game = trio(size=4)
    rng = random.Random(5)
    for _ in range(200):
        state = game.initial_state()
        while game.outcome(state) is None:
            state = game.play(state, rng.choice(game.legal_moves(state)))
        out = game.outcome(state)
        mover = (state.moves - 1) % 3
        assert out.winner in (None, mover)
        if out.winner is None:
            assert state.moves == 16
        else:  # the winner's marks hold a whole line
            mine = state.marks[out.winner]
            assert any(mine & line == line for line in game.lines)


def test_move_text_and_errors() -> None:
    game = trio()
    start = game.initial_state()
    assert game.parse_move(start, "b3") == 6 == game.parse_move(start, "7")
    assert game.format_move(start, 6) == "B3"
    for bad, message in (("E1", "off the board"), ("17", "off the board"), ("ZZ", "cannot read"), ("", "empty")):
        with pytest.raises(MoveParseError, match=message):
            game.parse_move(start, bad)
    with pytest.raises(IllegalMoveError, match="B3 is already taken"):
        play_text(game, "B3 B3")
    with pytest.raises(ValueError, match="at most 64 cells"):
        trio(size=9)
    with pytest.raises(ValueError, match="--k 5"):
        trio(size=3, k=5)


def test_symmetric_positions_share_their_canonical_key() -> None:
    game = trio()
    state = play_text(game, "A1 B3 D2 C4")
    images = game.symmetries(state)
    assert len(images) == 8 and images[0] == state
    assert len({game.key(s) for s in images}) == 8
    assert len({game.canonical_key(s) for s in images}) == 1
    rectangle = trio(width=4, height=3)
    assert len(rectangle.symmetries(rectangle.initial_state())) == 4


def test_render_and_board_cells() -> None:
    game = trio(size=3)
    state = play_text(game, "A1 B2 C3")
    assert game.board_cells(state) == (("X", "", ""), ("", "O", ""), ("", "", "Y"))
    assert game.render(state).splitlines() == ["   1  2  3", "A  X  .  .", "B  .  O  .", "C  .  .  Y"]


def test_options_recreate_the_game_and_the_cli_builds_it() -> None:
    game = trio(width=5, height=3, k=4)
    assert REGISTRY.game("trio").create(**game.options()).options() == game.options()
    result = CliRunner().invoke(cli, ["solve", "trio", "--size", "3", "-a", "maxn", "--moves", "A1 B2 C3"])
    assert result.exit_code == 0, result.output
    assert "X wins in 4 plies (payoffs X 1, O 0, Y 0)" in result.output
    bad = CliRunner().invoke(cli, ["solve", "trio", "--size", "30", "-a", "maxn"])
    assert bad.exit_code != 0 and "Traceback" not in bad.output and "26" in bad.output


def test_commands_for_two_players_refuse_trio_in_one_line(tmp_path: Any) -> None:
    for args in (["learn", "trio", "--games", "5", "-o", str(tmp_path / "t.json")], ["tree", "trio", "--size", "3"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 1 and "Traceback" not in result.output, result.output
        assert "more than two players" in result.output.strip().splitlines()[-1]
