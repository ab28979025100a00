"""m,n,k tic-tac-toe: rules, notation, symmetries, known values."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gametree import IllegalMoveError, MoveParseError, TranspositionTable, alphabeta, solver
from gametree.game import GameOverError, play_text


def make(registry, **options):
    return registry.game("tictactoe").create(**options)


@st.composite
def positions(draw, game, max_moves=None):
    """A random legal position reached by random moves."""
    state = game.initial_state()
    limit = game.cells if max_moves is None else max_moves
    for _ in range(draw(st.integers(0, limit))):
        moves = game.legal_moves(state)
        if not moves:
            break
        state = game.play(state, draw(st.sampled_from(moves)))
    return state


def test_empty_board_values(registry):
    assert alphabeta(make(registry, size=3)).value == "draw"
    r = alphabeta(make(registry, size=4, k=3))
    assert (r.value, r.winner, r.score, r.plies_to_end) == ("win", 0, 6, 5)
    assert set(r.best_moves) == {"B2", "B3", "C2", "C3"}


def test_classic_3x3_first_moves_all_draw(registry):
    r = alphabeta(make(registry, size=3))
    assert {mv.move for mv in r.move_values} == {f"{row}{col}" for row in "ABC" for col in "123"}
    assert all(mv.score == 0 and mv.plies_to_end == 9 for mv in r.move_values)


def test_notation(registry):
    g = make(registry, size=3)
    s = g.initial_state()
    assert g.parse_move(s, "a1") == g.parse_move(s, " A1 ") == g.parse_move(s, "1") == 0
    assert g.parse_move(s, "C3") == g.parse_move(s, "9") == 8
    assert g.format_move(s, 5) == "B3"
    for bad, reason in [
        ("", "empty"),
        ("D1", "off the board"),
        ("A4", "off the board"),
        ("10", "off the board"),
        ("0", "off the board"),
        ("hello", "cannot read"),
        ("1A", "cannot read"),
    ]:
        with pytest.raises(MoveParseError, match=reason):
            g.parse_move(s, bad)


def test_illegal_moves_name_the_problem(registry):
    g = make(registry, size=3)
    with pytest.raises(IllegalMoveError, match="B2 is already taken"):
        play_text(g, "B2 5")
    with pytest.raises(GameOverError, match="already over"):
        play_text(g, "A1 B1 A2 B2 A3 C3")


def test_board_validation(registry):
    for options, message in [
        ({"size": 0}, "at least one cell"),
        ({"size": 3, "k": 4}, "cannot fit"),
        ({"size": 30}, "between 1 and 26"),
        ({"size": 3, "k": 0}, "cannot fit"),
    ]:
        with pytest.raises(ValueError, match=message):
            make(registry, **options)


def test_rectangles_and_large_boards(registry):
    g = make(registry, width=5, height=3, k=3)
    assert (g.width, g.height, g.k) == (5, 3, 3) and len(g.symmetries(g.initial_state())) == 4
    assert len(make(registry, size=4).symmetries(g.initial_state())) == 8
    big = make(registry, size=10, k=5)
    s = play_text(big, "A1 J10 E5 F6")
    assert big.format_move(s, big.parse_move(s, "J10")) == "J10"
    assert len(big.legal_moves(s)) == 96
    # A 10x10, k=5 win is detected: five in a row along a diagonal.
    s = play_text(big, "A1 A10 B2 B10 C3 C10 D4 D10 E5")
    assert big.outcome(s).winner == 0


def test_win_detection_in_every_direction(registry):
    g = make(registry, size=4, k=3)
    for moves, winner in [
        ("A1 D4 A2 D3 A3", 0),
        ("B1 A1 D4 A2 C4 A3", 1),
        ("A1 D4 B1 D3 C1", 0),
        ("A3 D4 B2 D3 C1", 0),
        ("D4 A1 A4 B2 B4 C3", 1),
    ]:
        assert g.outcome(play_text(g, moves)).winner == winner, moves


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_symmetries_preserve_value_and_key(registry, data):
    g = make(registry, size=3)
    state = data.draw(positions(g))
    images = g.symmetries(state)
    assert len({g.canonical_key(i) for i in images}) == 1
    if g.outcome(state) is None:
        table = TranspositionTable()
        scores = {alphabeta(g, i, cache=table, symmetry=False, all_moves=False, pv=False).score for i in images}
        assert len(scores) == 1
    else:
        assert {g.outcome(i) for i in images} == {g.outcome(state)}


@settings(max_examples=40, deadline=None)
@given(
    st.data(), st.sampled_from([(1, 1, 1), (3, 3, 3), (2, 2, 2), (4, 4, 3), (5, 3, 3), (3, 5, 3), (4, 4, 4), (5, 5, 4)])
)
def test_canonical_key_is_symmetric_on_other_boards(registry, data, shape):
    w, h, k = shape
    g = make(registry, width=w, height=h, k=k)
    state = data.draw(positions(g, max_moves=8))
    images = g.symmetries(state)
    assert len({g.canonical_key(i) for i in images}) == 1
    assert g.canonical_key(state) == min(g.key(i) for i in images)


@settings(max_examples=60, deadline=None)
@given(st.data(), st.sampled_from([(3, 3), (4, 4), (10, 10), (7, 2)]))
def test_move_text_round_trips(registry, data, shape):
    w, h = shape
    g = make(registry, width=w, height=h, k=2)
    state = data.draw(positions(g, max_moves=5))
    for move in g.legal_moves(state):
        text = g.format_move(state, move)
        assert g.parse_move(state, text) == move
        assert g.parse_move(state, text.lower()) == move
        assert g.parse_move(state, str(move + 1)) == move


def test_heuristic_is_bounded_and_sided(registry):
    g = make(registry, size=4)
    s = play_text(g, "B2 A1 B3")  # X has two in the middle row; O to move
    assert -1 < g.evaluate(s) < 0
    s = g.play(s, g.parse_move(s, "D4"))
    assert 0 < g.evaluate(s) < 1


def test_empty_4x4_k4_is_a_draw(registry):
    result = solver(make(registry, size=4), all_moves=False)
    assert (result.value, result.score, result.plies_to_end) == ("draw", 0, 16)


@settings(max_examples=80, deadline=None)
@given(st.data(), st.sampled_from([(3, 3, 3), (4, 4, 3), (5, 4, 4), (6, 2, 2)]))
def test_solver_helpers_agree_with_the_rules(registry, data, shape):
    w, h, k = shape
    g = make(registry, width=w, height=h, k=k)
    state = data.draw(positions(g))
    if g.outcome(state) is not None:
        return
    legal = g.legal_moves(state)
    wins_now = [
        m
        for m in legal
        if g.outcome(g.play(state, m)) is not None and g.outcome(g.play(state, m)).winner == g.to_move(state)
    ]
    assert g.immediate_win(state) == bool(wins_now)
    if wins_now:
        return
    safe = set(g.safe_moves(state))
    really_safe = {m for m in legal if g.outcome(g.play(state, m)) is not None or not g.immediate_win(g.play(state, m))}
    assert safe == really_safe
    assert g.has_safe_move(state) == bool(really_safe)


@settings(max_examples=40, deadline=None)
@given(st.data(), st.sampled_from([(3, 3, 3), (4, 3, 3)]))
def test_check_move_rejects_exactly_the_illegal_moves(registry, data, shape):
    """checked_play trusts check_move, so it must be complete."""
    w, h, k = shape
    g = make(registry, width=w, height=h, k=k)
    state = data.draw(positions(g))
    if g.outcome(state) is not None:
        return
    legal = set(g.legal_moves(state))
    for move in range(g.cells):
        try:
            g.check_move(state, move)
            accepted = True
        except IllegalMoveError:
            accepted = False
        assert accepted == (move in legal)


@pytest.mark.parametrize("move", [9, 10, 999, -1, -9, -10])
def test_check_move_rejects_cells_off_the_board(registry, move):
    """F22: checked_play trusts check_move, so a cell outside 0..cells-1 must be an IllegalMoveError
    (9 was accepted and played onto bit 9; -1 was a negative-shift ValueError)."""
    from gametree.game import checked_play

    g = make(registry, size=3)
    for state in (g.initial_state(), play_text(g, "B2 A1")):
        with pytest.raises(IllegalMoveError, match=r"off the board \(cells are 1\.\.9\)"):
            g.check_move(state, move)
        with pytest.raises(IllegalMoveError, match="off the board"):
            checked_play(g, state, move)


def test_option_errors_do_not_repeat_huge_numbers():
    from click.testing import CliRunner

    from gametree.cli import cli

    for args in (["--width", "9" * 100], ["--k", "-" + "9" * 100], ["--size", "-" + "9" * 100]):
        result = CliRunner().invoke(cli, ["solve", "tictactoe", *args])
        assert result.exit_code == 2 and "(100 digits)" in result.output and "9" * 20 not in result.output, (
            result.output
        )
