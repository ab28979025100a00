"""The Python API (issue 22): argument checks, ``moves=``, search by name, Position, notebook display."""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
import types

import pytest

import gametree
import gametree.search
from gametree import IllegalMoveError, MoveParseError, Position, SearchResult, alphabeta, minimax, play_text
from gametree.search import iterative_deepening, mcts, prepare, run, search, solver

AFTER = "A1 B1 A2 B2"  # X to move wins at once with A3


def _mcts(game, state=None, **options):
    return mcts(game, state, iterations=300, seed=3, **options)


def _by_name(game, state=None, **options):
    return search("alphabeta", game, state, **options)


SEARCHES = [alphabeta, minimax, _mcts, _by_name]


# -- wrong argument types ---------------------------------------------------------------------
@pytest.mark.parametrize("function", SEARCHES)
def test_moves_given_as_the_state_are_a_type_error_naming_state(ttt3, function):
    with pytest.raises(
        TypeError, match=r"^state: expected a state of the game \(TTTState\), not str 'B2' \(.*pass moves='B2'\)"
    ):
        function(ttt3, "B2")


@pytest.mark.parametrize("function", SEARCHES)
def test_a_game_that_is_no_game_is_a_type_error_naming_game(function):
    with pytest.raises(TypeError, match=r"^game: expected a Game .*not str 'tictactoe'"):
        function("tictactoe")


@pytest.mark.parametrize("function", SEARCHES)
def test_moves_must_be_a_string_and_not_beside_a_state(ttt3, function):
    with pytest.raises(TypeError, match=r"^moves: expected a string"):
        function(ttt3, moves=["B2"])
    with pytest.raises(TypeError, match="state or moves, not both"):
        function(ttt3, ttt3.initial_state(), moves="B2")


def test_a_long_wrong_value_is_cut_in_the_message(ttt3):
    with pytest.raises(TypeError) as info:
        alphabeta(ttt3, "x" * 500)
    assert len(str(info.value)) < 300 and "..." in str(info.value)


@pytest.mark.parametrize("function", SEARCHES)
def test_bad_moves_say_which_move(ttt3, function):
    with pytest.raises(MoveParseError, match="Z9"):
        function(ttt3, moves="B2 Z9")
    with pytest.raises(IllegalMoveError):
        function(ttt3, moves="B2 B2")


def test_states_of_the_game_type_are_accepted(registry):
    nim = registry.game("nim").create()
    state = nim.play(nim.initial_state(), nim.legal_moves(nim.initial_state())[0])
    assert alphabeta(nim, state).to_move == 1


# -- moves= ------------------------------------------------------------------------------------
@pytest.mark.parametrize("function", [alphabeta, minimax, _by_name])
def test_moves_give_the_same_result_as_the_state_they_reach(ttt3, function):
    by_moves = function(ttt3, moves=AFTER)
    by_state = function(ttt3, play_text(ttt3, AFTER))
    assert by_moves.best_moves == by_state.best_moves == ("A3",)
    assert by_moves.move_values == by_state.move_values and by_moves.pv == by_state.pv


def test_mcts_with_moves_is_the_same_seeded_search(ttt3):
    a = mcts(ttt3, moves="B2", iterations=200, seed=5)
    b = mcts(ttt3, play_text(ttt3, "B2"), iterations=200, seed=5)
    assert a.move_values == b.move_values and a.to_move == 1


def test_iterative_deepening_takes_moves_and_proves_a_near_win(ttt3):
    result = iterative_deepening(ttt3, moves=AFTER, time_limit=30)
    assert result.proven and result.best_moves == ("A3",) and result.score == 3


def test_solver_takes_moves(ttt3):
    if "moves" not in inspect.signature(solver).parameters:
        pytest.skip("needs solver moves=")
    assert solver(ttt3, moves=AFTER).best_moves == ("A3",)
    with pytest.raises(TypeError, match="^state: "):
        solver(ttt3, "B2")


# -- by name -----------------------------------------------------------------------------------
def test_gametree_search_stays_a_module():
    assert isinstance(gametree.search, types.ModuleType)
    assert callable(gametree.search.prepare) and callable(gametree.search.search)
    assert "search" not in gametree.__all__ and gametree.Position is Position


def test_search_by_name_runs_each_algorithm(ttt3):
    state = play_text(ttt3, AFTER)
    for name, options in [
        ("solver", {}),
        ("alphabeta", {"depth": 3}),
        ("minimax", {}),
        ("mcts", {"iterations": 300, "seed": 1}),
    ]:
        result = search(name, ttt3, state, **options)
        assert result.algorithm == name and result.best_moves == ("A3",), name


def test_unknown_algorithm_lists_the_choices(ttt3):
    choices = "alphabeta, expectiminimax, maxn, mcts, minimax, paranoid, retrograde, solver, star1"
    with pytest.raises(ValueError, match=rf"unknown algorithm 'nope' \(choose from {choices}"):
        search("nope", ttt3)
    with pytest.raises(ValueError, match="choose from"):
        prepare("nope", ttt3)
    with pytest.raises(TypeError, match="^algorithm: expected a name"):
        search(alphabeta, ttt3)


def test_an_option_the_algorithm_does_not_take_is_named_with_the_ones_it_does(ttt3):
    with pytest.raises(
        TypeError, match=r"^minimax takes no option 'cache' \(its options: all_moves, depth, progress, pv, trace\)"
    ):
        search("minimax", ttt3, cache=False)
    with pytest.raises(TypeError, match=r"^mcts takes no option 'weak' \(its options: .*iterations.*seed"):
        prepare("mcts", ttt3, weak=True)


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("alphabeta", {"depth": "3"}, "alphabeta option depth: expected an int or None, not str '3'"),
        ("alphabeta", {"depth": True}, "alphabeta option depth: expected an int or None, not bool"),
        ("alphabeta", {"pv": 1}, "alphabeta option pv: expected True or False, not int 1"),
        ("mcts", {"iterations": 2.5}, "mcts option iterations: expected int or None, not float"),
        ("mcts", {"exploration": "1"}, "mcts option exploration: expected a number or None, not str"),
    ],
)
def test_option_values_of_the_wrong_type_are_named(ttt3, name, options, message):
    with pytest.raises(TypeError, match="^" + re.escape(message)):
        search(name, ttt3, **options)
    with pytest.raises(TypeError, match="^" + re.escape(message)):
        prepare(name, ttt3, **options)


def test_right_option_types_pass(ttt3):
    import random

    assert search("mcts", ttt3, moves=AFTER, iterations=50, exploration=1, seed=random.Random(1)).best_moves == ("A3",)
    assert search("alphabeta", ttt3, moves=AFTER, time_limit=5, cache=None).best_moves == ("A3",)


def test_prepare_binds_game_and_options(ttt3):
    state = play_text(ttt3, AFTER)
    solve = prepare("alphabeta", ttt3, all_moves=False, pv=False)
    result = solve(state)
    assert result.best_moves == ("A3",) and result.pv == ("A3",) and len(result.move_values) == 1


def test_a_plugin_spec_is_searched_by_spec(ttt3, registry):
    spec = registry.algorithms["minimax"]
    assert search(spec, ttt3, moves=AFTER).best_moves == ("A3",)


def test_run_is_still_the_older_search(ttt3):
    assert run(ttt3, play_text(ttt3, AFTER), algorithm="alphabeta").best_moves == ("A3",)
    assert run(ttt3, moves=AFTER, algorithm="minimax").best_moves == ("A3",)


# -- public signatures -------------------------------------------------------------------------
@pytest.mark.parametrize("function", [alphabeta, minimax, mcts, iterative_deepening, search, solver])
def test_public_searches_have_documented_typed_keyword_options(function):
    params = list(inspect.signature(function).parameters.values())
    doc = inspect.getdoc(function) or ""
    assert "\nArgs:\n" in doc
    for p in params:
        assert not p.name.startswith("_") and p.name != "deadline", p.name
        if p.kind is p.VAR_KEYWORD:
            assert "**options:" in doc
            continue
        assert p.annotation is not p.empty, p.name
        assert re.search(rf"^    {p.name}: \S", doc, re.M), f"{function.__name__} does not document {p.name}"
        if p.name not in ("algorithm", "game", "state"):
            assert p.kind is p.KEYWORD_ONLY, p.name


def test_prepare_documents_its_arguments():
    doc = inspect.getdoc(prepare) or ""
    for name in ("algorithm", "game", "**options"):
        assert re.search(rf"^    {re.escape(name)}: \S", doc, re.M), name


# -- notebook display --------------------------------------------------------------------------
def test_a_result_shows_itself_as_html(ttt3):
    result = alphabeta(ttt3, moves=AFTER)
    page = result._repr_html_()
    assert "win in 1 ply (score +3 for player 1, to move)" in page
    assert page.count("<tr") == 1 + len(result.move_values)  # a head row and one row a move
    assert '<td style="border:1px solid #ccc;padding:1px 6px">A3</td>' in page
    assert ">loss</td>" in page and ">win</td>" in page
    assert f"{result.stats.nodes:,} nodes" in page


def test_result_html_escapes_text_and_marks_unproven_moves(ttt3):
    result = mcts(ttt3, iterations=30, seed=1)
    moves = tuple(dataclasses.replace(mv, move=f"<{mv.move}&>") for mv in result.move_values)
    page = dataclasses.replace(
        result, algorithm="<script>", move_values=moves, best_moves=("<b>",), pv=("<i>",)
    )._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "&lt;b&gt;" in page and "&lt;i&gt;" in page and "<b>" in page  # our own bold tag, not the move's
    assert "&lt;A1&amp;&gt;" in page
    assert not result.proven and ">?</td>" in page and ">win</td>" not in page and "iterations" in page


def test_search_results_stay_plain_json_data(ttt3):
    result = mcts(ttt3, moves="B2", iterations=20, seed=1)
    data = dataclasses.asdict(result)
    back = json.loads(json.dumps(data))  # the CLI's --json: no object the encoder refuses
    assert back["move_values"][0]["move"] == result.move_values[0].move and back["stats"]["nodes"] == result.stats.nodes
    assert "_repr_html_" not in data and set(data) == {f.name for f in dataclasses.fields(SearchResult)}


# -- Position ----------------------------------------------------------------------------------
def test_position_plays_lists_moves_and_searches(ttt3):
    start = Position.start(ttt3)
    assert start.state == ttt3.initial_state() and len(start.moves) == 9 and start.to_move == 0
    p = start.play("A1 B1").play("A2").play("B2")
    assert p == Position.after(ttt3, AFTER) and hash(p) == hash(Position.after(ttt3, AFTER))
    assert set(p.moves) == {"A3", "B3", "C1", "C2", "C3"} and p.outcome is None
    assert p.solve().best_moves == ("A3",)
    assert p.search("minimax").best_moves == ("A3",)
    assert p.search("mcts", iterations=200, seed=1).algorithm == "mcts"
    over = p.play("A3")
    assert over.outcome == gametree.Outcome(0) and over.moves == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.state = start.state  # type: ignore[misc]


def test_position_checks_its_arguments(ttt3):
    with pytest.raises(TypeError, match="^state: .*pass moves='B2'"):
        Position(ttt3, "B2")
    with pytest.raises(TypeError, match="^state: .*Position.start"):
        Position(ttt3, None)
    with pytest.raises(TypeError, match="^game: "):
        Position.start("tictactoe")
    with pytest.raises(TypeError, match="^moves: "):
        Position.start(ttt3).play(5)
    with pytest.raises(IllegalMoveError):
        Position.after(ttt3, "B2").play("B2")
    with pytest.raises(TypeError, match="takes no option"):
        Position.start(ttt3).search("minimax", cache=True)


def test_position_text_is_the_games_picture(ttt3):
    p = Position.after(ttt3, "B2 A1")
    assert str(p) == ttt3.render(p.state)


def test_position_html_draws_the_board_with_labels_and_the_winning_line(ttt3):
    p = Position.after(ttt3, "A1 B1 A2 B2 A3")
    page = p._repr_html_()
    cells = re.findall(r'<rect [^>]*fill="([^"]*)"', page)
    assert len(cells) == 9
    marks = re.findall(r'font-weight="bold">([^<]*)</text>', page)
    assert marks == ["X", "X", "X", "O", "O"]
    assert [fill == "#ffe082" for fill in cells] == [True, True, True] + [False] * 6  # the winning line is lit
    for label in ("A", "B", "C", "1", "2", "3"):
        assert f">{label}</text>" in page
    assert ">X has won</div>" in page
    assert "to move" in Position.start(ttt3)._repr_html_()


def test_a_position_without_a_board_shows_its_text(registry):
    nim = registry.game("nim").create()
    p = Position.start(nim)
    page = p._repr_html_()
    import html

    assert f"<pre>{html.escape(str(p))}</pre>" in page and "<table" not in page
