"""Compiled searches specialised to one board (CompiledRules.specialise): the standard Connect Four
board gets a search of its own, its constants folded into the code; it must search exactly as the
search every board shares, and its compiled code must never be taken for another board's."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gametree import CompiledRules, play_text
from gametree.search import Solver, compile_state
from gametree.search.compiled import compiled_rules
from gametree.search.kernel_layout import board_constants, board_digest
from gametree_builtins.games.connect4 import ConnectFour

pytest.importorskip("numba")

DATA = Path(__file__).parent / "data" / "connect4"


def shared_search(game: ConnectFour) -> ConnectFour:
    """``game`` with its compiled rules asking for the search every board shares."""
    rules = game.compiled_rules()
    assert rules is not None
    game.compiled_rules = lambda: dataclasses.replace(rules, specialise=False)  # type: ignore[method-assign]
    return game


def test_only_the_standard_board_is_specialised() -> None:
    assert compiled_rules(ConnectFour()).specialise  # type: ignore[union-attr]
    for other in (ConnectFour(6, 5), ConnectFour(5, 4), ConnectFour(6, 7), ConnectFour(7, 6, 5)):
        assert not compiled_rules(other).specialise, other  # type: ignore[union-attr]


def test_the_specialised_search_searches_as_the_shared_one() -> None:
    """Pons's middle-game positions (published scores, tests/data/connect4/README) and a few from the
    empty board's first moves: the same scores and the same nodes, position after position, each
    engine keeping its table."""
    rows = [line.split() for line in (DATA / "pons_middle_easy.txt").read_text().splitlines() if line.strip()][:60]
    rows += [["4444433322", None], ["44444333", None], ["4444433", None]]
    special, shared = Solver(ConnectFour(), engine="compiled"), Solver(shared_search(ConnectFour()), engine="compiled")
    game = ConnectFour()
    for moves, published in rows:
        state = play_text(game, moves)
        a, b = special.score(state), shared.score(state)
        assert (int(a.score), a.nodes) == (int(b.score), b.nodes), moves
        if published is not None:
            assert int(a.score) == int(published), moves
    assert special.engine.rules.specialise and not shared.engine.rules.specialise  # type: ignore[union-attr]


def test_specialised_code_has_names_and_files_of_its_own() -> None:
    from gametree.search import native

    standard = compiled_rules(ConnectFour())
    assert standard is not None
    board = board_constants(standard.board)
    shared = dataclasses.replace(standard, specialise=False)
    assert native.identity(standard, True, board) != native.identity(shared, True, board)
    assert native.path(native.identity(standard, True, board)) != native.path(native.identity(shared, True, board))  # type: ignore[arg-type]
    # another board specialised too: other constants, another file
    tall = compiled_rules(ConnectFour(6, 7))
    assert tall is not None
    tall_board = board_constants(tall.board)
    assert board_digest(tall_board) != board_digest(board)
    other = native.identity(dataclasses.replace(tall, specialise=True), True, tall_board)
    assert native.path(other) != native.path(native.identity(standard, True, board))  # type: ignore[arg-type]
    # the compile ledger: the standard board's engine is remembered apart, the shared one once for all
    assert compile_state.game_id(ConnectFour()) != compile_state.game_id(ConnectFour(6, 5))
    assert compile_state.game_id(ConnectFour(6, 5)) == compile_state.game_id(ConnectFour(5, 4))


def test_gametree_compile_builds_the_standard_boards_search_and_the_shared_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Which engines ``gametree compile`` builds (recorded, not compiled: the engines themselves are
    compiled by the other tests): for Connect Four the 7x6 board's own search and the one every
    other board shares, each with and without a table; for tic-tac-toe, whose boards share one."""
    from click.testing import CliRunner

    from gametree.cli.root import cli
    from gametree.search import compiled

    built: list[tuple[bool, bool]] = []

    class Recorded:
        def __init__(self, game: object, rules: CompiledRules, table: object = None) -> None:
            built.append((rules.specialise, table is not None))

    monkeypatch.setattr(compiled, "CompiledEngine", Recorded)
    done = CliRunner().invoke(cli, ["compile", "connect4"])
    assert done.exit_code == 0 and done.output.startswith("connect4: compiled"), done.output
    assert sorted(built) == [(False, False), (False, True), (True, False), (True, True)]
    built.clear()
    done = CliRunner().invoke(cli, ["compile", "tictactoe"])
    assert done.exit_code == 0 and sorted(built) == [(False, False), (False, True)], done.output
