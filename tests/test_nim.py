"""Nim against the theory (Bouton; the misere exception) and an independent brute force."""

from __future__ import annotations

import itertools
from functools import cache, reduce
from operator import xor

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from gametree import (
    IllegalMoveError,
    MoveParseError,
    Outcome,
    TranspositionTable,
    load,
    play_text,
)
from gametree.search import run
from gametree_builtins.games.nim import Nim, NimState


def side_to_move_loses(heaps: tuple[int, ...], misere: bool) -> bool:
    """The theory.  Normal play: the XOR of the heaps is 0.  Misere: the same,
    except when no heap has 2 or more objects, where the side to move loses
    exactly when an odd number of heaps hold one object (each move then takes
    one whole heap, and whoever takes the last one loses)."""
    if misere and max(heaps) <= 1:
        return sum(heaps) % 2 == 1
    return reduce(xor, heaps, 0) == 0


def test_the_misere_rule_matches_a_direct_game_count() -> None:
    # Misere with all heaps <= 1: n ones, one taken per move; the player who takes the last loses.
    for n in range(0, 6):
        # the side to move takes ones number 1, 3, 5, ...: it takes the last one iff n is odd
        assert side_to_move_loses((1,) * n + (0,), misere=True) == (n % 2 == 1)


@pytest.mark.parametrize("misere", [False, True])
def test_every_position_up_to_four_heaps_of_five(misere: bool) -> None:
    """All 6**4 - 1 positions with up to 4 heaps of up to 5 objects (zeros make fewer heaps).

    They are all reachable from heaps 5,5,5,5, so one game and one shared
    cache serve them all; each is searched at its own ply, as if reached from there.
    The value of every move is checked too: it wins exactly when it leaves a
    position that the theory says is lost for the opponent."""
    game = Nim("5,5,5,5", misere=misere)
    table = TranspositionTable()
    checked = 0
    for heaps in itertools.product(range(6), repeat=4):
        if not any(heaps):
            continue
        state = NimState(heaps, 20 - sum(heaps))
        result = run(game, state, algorithm="alphabeta", cache=table, pv=False)
        loses = side_to_move_loses(heaps, misere)
        assert result.value == ("loss" if loses else "win"), heaps
        assert result.winner == (1 - game.to_move(state) if loses else game.to_move(state))
        for mv in result.move_values:
            after = game.play(state, game.parse_move(state, mv.move)).heaps
            wins = not any(after) and not misere or (any(after) and side_to_move_loses(after, misere))
            assert (mv.score > 0) == wins, (heaps, mv)
        checked += 1
    assert checked == 6**4 - 1


@pytest.mark.parametrize("misere", [False, True])
def test_solver_on_every_position_up_to_heap_order(misere: bool) -> None:
    """The fast solver on every position up to 4 heaps of up to 5, heaps in increasing order."""
    game = Nim("5,5,5,5", misere=misere)
    table = TranspositionTable()
    for heaps in itertools.combinations_with_replacement(range(6), 4):
        if not any(heaps):
            continue
        state = NimState(heaps, 20 - sum(heaps))
        result = run(game, state, algorithm="solver", cache=table, all_moves=False, pv=False)
        assert result.value == ("loss" if side_to_move_loses(heaps, misere) else "win"), heaps
        weak = run(game, state, algorithm="solver", weak=True, cache=table, all_moves=False)
        assert (weak.value, weak.score) == (result.value, 1 if result.value == "win" else -1), heaps
        if weak.value == "win":  # the move it names leaves the opponent a lost position
            after = game.play(state, game.parse_move(state, weak.best_moves[0]))
            assert game.outcome(after) == Outcome(game.to_move(state)) or side_to_move_loses(after.heaps, misere), heaps


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("heaps", ["1", "4", "1,1", "2,2", "1,2", "1,2,3", "3,4,5", "1,1,1", "5,0,5", "2,3,1,1"])
def test_games_of_any_number_of_heaps_from_the_start(heaps: str, misere: bool) -> None:
    game = load().game("nim").create(heaps=heaps, misere=misere)
    result = run(game, algorithm="solver", all_moves=False)
    start = tuple(int(h) for h in heaps.split(","))
    assert result.value == ("loss" if side_to_move_loses(start, misere) else "win")
    end = play_text(game, " ".join(result.pv))  # the principal variation is a legal game to the end
    assert game.outcome(end) == Outcome(result.winner)
    assert len(result.pv) == result.plies_to_end


# -- exact depth-aware scores against an independent brute force ------------------------
def brute_scores(heaps: tuple[int, ...], misere: bool) -> dict[tuple[int, int], int]:
    """Every root move's depth-aware score, by plain recursion (no game module)."""
    total = sum(heaps)

    @cache
    def value(h: tuple[int, ...], n: int) -> int:
        return max(move_score(h, n, i, c) for i in range(len(h)) for c in range(1, h[i] + 1))

    def move_score(h: tuple[int, ...], n: int, i: int, c: int) -> int:
        after = h[:i] + (h[i] - c,) + h[i + 1 :]
        if not any(after):  # this move ends the game, with n moves before it
            magnitude = (total + 1 - n) // 2
            return -magnitude if misere else magnitude
        return -value(after, n + 1)

    return {(i, c): move_score(heaps, 0, i, c) for i in range(len(heaps)) for c in range(1, heaps[i] + 1)}


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("heaps", [(3,), (1, 2), (2, 2), (1, 2, 3), (3, 1, 2), (2, 2, 3), (1, 1, 1, 2), (4, 3, 1)])
def test_exact_scores_match_brute_force(heaps: tuple[int, ...], misere: bool) -> None:
    game = Nim(",".join(map(str, heaps)), misere)
    expected = brute_scores(heaps, misere)
    for algorithm in ("alphabeta", "solver", "minimax"):
        result = run(game, algorithm=algorithm)
        got = {game.parse_move(game.initial_state(), mv.move): mv.score for mv in result.move_values}
        assert got == expected, algorithm
        assert result.score == max(expected.values())


# -- keys --------------------------------------------------------------------------------
def test_key_includes_the_ply_and_canonical_key_ignores_heap_order() -> None:
    game = Nim("3,4,5")
    s = game.initial_state()
    one_step = game.play(s, (1, 2))  # 3,2,5 after 1 move
    two_steps = game.play(game.play(s, (1, 1)), (1, 1))  # 3,2,5 after 2 moves
    assert one_step.heaps == two_steps.heaps
    assert game.key(one_step) != game.key(two_steps)
    assert game.canonical_key(one_step) != game.canonical_key(two_steps)
    permuted = NimState((5, 3, 2), one_step.moves)
    assert game.canonical_key(permuted) == game.canonical_key(one_step)
    assert game.key(permuted) != game.key(one_step)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=2, max_size=4).filter(any), st.randoms(use_true_random=False))
def test_permuted_heaps_have_the_same_value_and_valid_moves(heaps: list[int], rnd) -> None:  # type: ignore[no-untyped-def]
    """A shared cache keyed by sorted heaps must still give moves legal in each ordering."""
    shuffled = heaps[:]
    rnd.shuffle(shuffled)
    table = TranspositionTable()
    results = []
    for order in (heaps, shuffled):
        game = Nim(",".join(map(str, order)))
        result = run(game, algorithm="alphabeta", cache=table)
        state = game.initial_state()
        for text in result.pv:  # every move of the line is legal in this ordering
            state = play_text(game, text, state)
        assert game.outcome(state) == Outcome(result.winner)
        results.append(result)
    assert results[0].score == results[1].score and results[0].plies_to_end == results[1].plies_to_end


# -- notation and options ----------------------------------------------------------------
def test_moves_are_heap_colon_count() -> None:
    game = Nim("3,4,5")
    s = game.initial_state()
    assert game.parse_move(s, " 2:3 ") == (1, 3)
    assert game.format_move(s, (1, 3)) == "2:3"
    assert play_text(game, "1:3 2:4 3:1").heaps == (0, 0, 4)
    for text, message in (
        ("x", "HEAP:COUNT"),
        ("2", "HEAP:COUNT"),
        ("4:1", "no heap 4"),
        ("0:1", "no heap 0"),
        ("1:0", "at least one"),
    ):
        with pytest.raises(MoveParseError, match=message):
            game.parse_move(s, text)
    with pytest.raises(IllegalMoveError, match="heap 1 has only 3 objects"):
        play_text(game, "1:4")
    with pytest.raises(IllegalMoveError, match="heap 1 is empty"):
        play_text(game, "1:3 2:1 1:1")


@pytest.mark.parametrize("heaps", ["", "a,b", "0,0", "-1,2", "1.5"])
def test_bad_heaps_are_a_clear_error(heaps: str) -> None:
    with pytest.raises(ValueError, match="--heaps"):
        load().game("nim").create(heaps=heaps)


def test_game_info_and_outcomes() -> None:
    game = Nim("2,3")
    assert game.info.max_plies == 5
    end = play_text(game, "1:2 2:3")  # the second player takes the last object
    assert game.outcome(end) == Outcome(1) and game.legal_moves(end) == []
    misere = Nim("2,3", misere=True)
    assert misere.outcome(play_text(misere, "1:2 2:3")) == Outcome(0)
    assert "heap 1: || (2)" in game.render(game.initial_state())


def test_cli_solves_nim() -> None:
    from gametree.cli import cli

    runner = CliRunner()
    result = runner.invoke(cli, ["solve", "nim", "--heaps", "1,2,3", "--json"])
    assert result.exit_code == 0, result.output
    assert '"value": "loss"' in result.stdout  # 1 ^ 2 ^ 3 == 0
    result = runner.invoke(cli, ["solve", "nim", "--heaps", "1,1,1", "--misere", "--json"])
    assert result.exit_code == 0 and '"value": "loss"' in result.stdout
    result = runner.invoke(cli, ["solve", "nim", "--heaps", "1,1,1", "--json"])
    assert result.exit_code == 0 and '"value": "win"' in result.stdout
    result = runner.invoke(cli, ["solve", "nim", "--heaps", "3,x"])
    assert result.exit_code != 0 and "--heaps" in result.output and "Traceback" not in result.output
