"""The compiled rules of tic-tac-toe and of the tutorial's Hexapawn: the compiled engine solves as the Python one.

Each position is solved by both engines, exactly, weakly and for the best
move alone.  Scores, best moves, every move's score and plies to the end, and
the principal variation (the first optimal move in the game's order at each
step) must be the same; each line is also checked to be optimal move by move.
The best move found alone may be any of the best (each engine's search finds
its own), with a line as long.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from gametree import RuleSet, play_text, win_score
from gametree.game import IncompleteCapabilityError
from gametree.search import Solver

pytest.importorskip("numba")

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "example-plugin"


@pytest.fixture(scope="module")
def hexapawn() -> Any:
    """The tutorial's plugin module, imported from docs/example-plugin as in test_third_party."""
    sys.path.insert(0, str(EXAMPLE))  # (the compiled engine imports gametree_hexapawn_rules from there too)
    import gametree_hexapawn

    yield gametree_hexapawn
    sys.path.remove(str(EXAMPLE))
    for name in ("gametree_hexapawn", "gametree_hexapawn_rules"):
        sys.modules.pop(name, None)


def assert_optimal_line(game: Any, state: Any, pv: tuple[str, ...], score: float, reference: Solver) -> None:
    """Every move of ``pv`` keeps the value (as the Python engine scores the positions on the way),
    and the line ends the game with that score."""
    for text in pv:
        assert reference.score(state).score == score, f"{game.render(state)}\nhas not the score {score}"
        state = game.play(state, game.parse_move(state, text))
        score = -score
    out = game.outcome(state)
    assert out is not None, "the line does not reach the end of the game"
    magnitude = 0 if out.winner is None else win_score(game.info.max_plies, game.ply(state) - 1)
    assert score == (magnitude if out.winner == game.to_move(state) else -magnitude)


def values(result: Any) -> list[tuple[str, float, int | None, bool]]:
    return [(m.move, m.score, m.plies_to_end, m.best) for m in result.move_values]


def assert_same_solutions(game: Any, moves: str = "") -> None:
    state = play_text(game, moves)
    reference = Solver(game, engine="python")
    compiled = Solver(game, engine="compiled")
    # Exactly, every move.
    want, got = reference.solve(state), compiled.solve(state)
    assert (got.score, got.best_moves, values(got)) == (want.score, want.best_moves, values(want))
    assert got.pv == want.pv and len(want.pv) == want.plies_to_end
    assert_optimal_line(game, state, got.pv, got.score, reference)
    # Weakly, every move: the values' signs alone, and the first best move as the line.
    weak, got = reference.solve(state, weak=True), compiled.solve(state, weak=True)
    assert (got.score, got.best_moves, values(got), got.pv) == (weak.score, weak.best_moves, values(weak), weak.pv)
    assert [m.score for m in weak.move_values] == [(v > 0) - (v < 0) for v in (m.score for m in want.move_values)]
    # The best move alone: one of the best, with its line.
    one, got = reference.solve(state, all_moves=False), compiled.solve(state, all_moves=False)
    assert got.score == one.score == want.score
    assert got.best_moves[0] in want.best_moves and len(got.best_moves) == 1
    assert len(got.pv) == len(one.pv)
    assert_optimal_line(game, state, got.pv, got.score, reference)
    # Weakly, the best move alone.
    one, got = reference.solve(state, weak=True, all_moves=False), compiled.solve(state, weak=True, all_moves=False)
    assert got.score == one.score == weak.score
    assert got.best_moves[0] in weak.best_moves and len(got.best_moves) == 1


@pytest.mark.parametrize(
    "width, height, k, moves",
    [
        (3, 3, 3, ""),
        (4, 3, 3, ""),
        (4, 4, 3, ""),
        (4, 4, 4, ""),
        (5, 4, 4, ""),
        (3, 3, 3, "A1 B2"),
        (4, 4, 4, "B2 C3 A1"),
        (5, 4, 4, "B3 C3 B2"),
        (4, 4, 2, ""),  # k = 2 and k = 5: the rules' general line search (3 and 4 have their own)
        (6, 2, 5, ""),
        (7, 5, 3, "D3"),  # over 32 cells: the key's two words are not packed into one
        (6, 1, 3, "A3"),  # one row
    ],
)
def test_tictactoe_compiled_solves_as_python(registry, width: int, height: int, k: int, moves: str) -> None:
    game = registry.game("tictactoe").create(width=width, height=height, k=k)
    assert_same_solutions(game, moves)


@pytest.mark.parametrize(
    "width, height, moves", [(3, 3, ""), (3, 3, "b1-b2"), (4, 3, ""), (4, 4, ""), (4, 4, "a1-a2 d4-d3"), (5, 5, "")]
)
def test_hexapawn_compiled_solves_as_python(hexapawn: Any, width: int, height: int, moves: str) -> None:
    assert_same_solutions(hexapawn.Hexapawn(width, height), moves)


def test_compiled_rules_only_for_boards_they_cover(registry, hexapawn: Any) -> None:
    tictactoe = registry.game("tictactoe")
    assert tictactoe.create(size=9).compiled_rules() is None  # 81 cells
    assert tictactoe.create(size=8).compiled_rules() is not None  # 64
    assert tictactoe.create(width=13, height=5, k=4).compiled_rules() is None  # 65
    assert hexapawn.Hexapawn(8, 8).compiled_rules() is None  # 64 cells and the ply: more than a word
    assert hexapawn.Hexapawn(7, 8).compiled_rules() is not None
    rules = hexapawn.Hexapawn().compiled_rules()
    assert rules.no_moves == -1 and (rules.board.width, rules.board.height) == (3, 3)
    assert rules.functions().win_now is None and not rules.functions().threat_aware  # every move searched


def test_half_a_threat_pair_is_refused() -> None:
    """``win_now`` without ``safe_moves`` (or the other way round) is an error, as half of the
    Python side's ThreatAware is, not rules silently searched without threats."""

    def moves(g: object, a: int, b: int, out: object) -> int:
        return 0

    def win_now(g: object, a: int, b: int) -> bool:
        return False

    def safe_moves(g: object, a: int, b: int, out: object, ordered: bool, p: int) -> int:
        return 0

    def play(g: object, a: int, b: int, m: int) -> tuple[int, int]:
        return a, b

    plain = dict(moves=moves, play=play, ends=moves, key=play)
    with pytest.raises(IncompleteCapabilityError, match="has win_now but not safe_moves"):
        RuleSet(**plain, win_now=win_now)  # type: ignore[arg-type]
    with pytest.raises(IncompleteCapabilityError, match="has safe_moves but not win_now"):
        RuleSet(**plain, safe_moves=safe_moves)  # type: ignore[arg-type]
    assert RuleSet(**plain, win_now=win_now, safe_moves=safe_moves).threat_aware  # type: ignore[arg-type]
    assert not RuleSet(**plain).threat_aware  # type: ignore[arg-type]


def test_board_constants_are_one_record_type_per_game(registry, hexapawn: Any) -> None:
    """Every board of a game gives the compiled search the same record type (one compiled search
    serves them all); the fields are the rules' names, the tuples padded."""
    from gametree.search.kernel import board_constants

    boards = {
        "connect4": [{"width": 7, "height": 6}, {"width": 4, "height": 4, "k": 3}],
        "tictactoe": [{"size": 3}, {"width": 7, "height": 5, "k": 4}],
    }
    for game, sizes in boards.items():
        records = [board_constants(registry.game(game).create(**size).compiled_rules().board) for size in sizes]
        assert records[0].dtype == records[1].dtype and len(records[0]) == 1
    hexes = [board_constants(hexapawn.Hexapawn(w, h).compiled_rules().board) for w, h in ((3, 3), (5, 4))]
    assert hexes[0].dtype == hexes[1].dtype
    c4 = board_constants(registry.game("connect4").create().compiled_rules().board)[0]
    assert (int(c4["width"]), int(c4["k"]), list(c4["order"][:8])) == (7, 4, [3, 2, 4, 1, 5, 0, 6, 0])
    with pytest.raises(TypeError, match="NamedTuple"):
        board_constants((1, 2))


def test_each_rules_module_reads_the_constants_its_game_gives(hexapawn: Any) -> None:
    """The rules' view of the board's constants (a Protocol of numpy words) names the fields of the
    game's NamedTuple, no more, no less."""
    import gametree_hexapawn_rules

    from gametree_builtins.games import connect4, connect4_rules, tictactoe, tictactoe_rules

    assert list(connect4_rules.Board.__annotations__) == list(connect4.C4Board._fields)
    assert list(tictactoe_rules.Board.__annotations__) == list(tictactoe.TTTBoard._fields)
    assert list(gametree_hexapawn_rules.Board.__annotations__) == list(hexapawn.HexBoard._fields)
