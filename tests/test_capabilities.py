"""The optional members of the built-in and example games, as named capabilities."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import gametree
from gametree.game import IllegalMoveError, capabilities, checked_play, play_text

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "example-plugin"

ALL = (
    "symmetric",
    "images",
    "heuristic",
    "threats",
    "fast_threats",
    "replayable",
    "checker",
    "splitter",
    "help",
    "board",
    "compiled",
)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("connect4", (*ALL, "tiered")),
        (
            "tictactoe",
            ("symmetric", "images", "heuristic", "threats", "checker", "help", "board", "compiled", "tiered"),
        ),
        ("nim", ("symmetric", "checker", "help")),
        ("othello", ("symmetric", "images", "heuristic", "checker", "help", "board", "compiled")),
    ],
)
def test_builtin_games_capabilities(name, expected):
    game = gametree.load().game(name).create()
    caps = capabilities(game)
    assert caps.names() == expected
    for field in expected:
        assert getattr(caps, field) is game  # each capability is the game itself, typed


def test_example_plugin_capabilities(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    from gametree_hexapawn import Hexapawn

    assert capabilities(Hexapawn()).names() == ("symmetric", "heuristic", "checker", "help", "board", "compiled")
    monkeypatch.delitem(sys.modules, "gametree_hexapawn", raising=False)


def test_move_checks_follow_the_game_at_hand():
    """checked_play and play_text remember the last game's move tools: switching games must not mix them up."""
    nim = gametree.load().game("nim").create()

    class PlainNim(type(nim)):  # type: ignore[misc]
        check_move = None  # no MoveChecker: the generic check on legal_moves

    plain = PlainNim()
    state = nim.initial_state()
    for _ in range(2):
        with pytest.raises(IllegalMoveError, match="heap 1 has only 3 objects"):
            checked_play(nim, state, (0, 4))
        with pytest.raises(IllegalMoveError, match="^illegal move 1:4$"):
            checked_play(plain, state, (0, 4))
    connect4 = gametree.load().game("connect4").create()
    tictactoe = gametree.load().game("tictactoe").create()
    for _ in range(2):
        assert connect4.ply(play_text(connect4, "4453")) == 4  # split_moves and replay
        assert tictactoe.ply(play_text(tictactoe, "B2 A1")) == 2


def test_capabilities_are_worked_out_once_per_game(registry) -> None:
    from gametree.game import capabilities

    first, second = registry.game("nim").create(), registry.game("nim").create()
    assert capabilities(first) is capabilities(first)
    assert capabilities(second).symmetric is second and capabilities(second).names() == capabilities(first).names()
