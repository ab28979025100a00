"""Othello: the rules against a plain independent implementation written here, 4x4 solved against a
brute force of that implementation (the second player wins), and Joel Feinstein's perfect 6x6 line
(1993: White wins 20-16; tests/data/README.md) replayed and solved along the way."""

from __future__ import annotations

import functools
import json
import os
import random
from pathlib import Path

import pytest

from gametree import load
from gametree.game import GameOverError, IllegalMoveError, MoveParseError, checked_play, end_score, play_text
from gametree.search import alphabeta, minimax, search, solver
from gametree.search.values import Margin
from gametree_builtins.games.othello import PASS, Othello, OthelloState, disc_counts

DATA = Path(__file__).parent / "data" / "othello"
#: The slower solves run with GAMETREE_SLOW=1 (as tests/test_strong.py's), and deselect with -m "not slow".
SLOW = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("GAMETREE_SLOW") != "1", reason="seconds each: set GAMETREE_SLOW=1"),
]

DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]

# -- an independent Othello: a board of rows of ".", "B", "W" -----------------------------------
Board = tuple[tuple[str, ...], ...]


def start(n: int) -> Board:
    rows = [["."] * n for _ in range(n)]
    h = n // 2
    rows[h - 1][h - 1] = rows[h][h] = "W"
    rows[h - 1][h] = rows[h][h - 1] = "B"
    return tuple(tuple(r) for r in rows)


def flipped(board: Board, who: str, r: int, c: int) -> list[tuple[int, int]]:
    """The discs a disc of ``who`` on (r, c) turns over (none: not a legal placement)."""
    if board[r][c] != ".":
        return []
    n, other, out = len(board), "W" if who == "B" else "B", []
    for dr, dc in DIRECTIONS:
        run, rr, cc = [], r + dr, c + dc
        while 0 <= rr < n and 0 <= cc < n and board[rr][cc] == other:
            run.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        if run and 0 <= rr < n and 0 <= cc < n and board[rr][cc] == who:
            out += run
    return out


def placements(board: Board, who: str) -> list[tuple[int, int]]:
    n = len(board)
    return [(r, c) for r in range(n) for c in range(n) if flipped(board, who, r, c)]


def place(board: Board, who: str, r: int, c: int) -> Board:
    rows = [list(row) for row in board]
    for rr, cc in flipped(board, who, r, c) + [(r, c)]:
        rows[rr][cc] = who
    return tuple(tuple(row) for row in rows)


def final_margin(board: Board) -> int:
    """Black's margin: discs, the empty squares counted for the winner."""
    b = sum(row.count("B") for row in board)
    w = sum(row.count("W") for row in board)
    empty = len(board) ** 2 - b - w
    return b - w + (empty if b > w else -empty if w > b else 0)


@functools.cache
def brute(board: Board, who: str) -> int:
    """The final margin for ``who``, to move, under perfect play: plain negamax, no pruning."""
    other = "W" if who == "B" else "B"
    mine = placements(board, who)
    if not mine:
        if not placements(board, other):
            margin = final_margin(board)
            return margin if who == "B" else -margin
        return -brute(board, other)  # a pass
    return max(-brute(place(board, who, r, c), other) for r, c in mine)


def board_of(game: Othello, state: OthelloState) -> Board:
    return tuple(tuple({"": ".", "Black": "B", "White": "W"}[cell] for cell in row) for row in game.board_cells(state))


def game_of(size: int) -> Othello:
    game = load().game("othello").create(size=size)
    assert isinstance(game, Othello)
    return game


# -- rules ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [4, 6, 8])
def test_the_rules_match_the_independent_implementation(size: int) -> None:
    game = game_of(size)
    rng = random.Random(size)
    for _ in range(3 if size == 8 else 6):
        state = game.initial_state()
        while True:
            board, who = board_of(game, state), "BW"[game.to_move(state)]
            legal = game.legal_moves(state)
            expected = placements(board, who)
            assert sorted(divmod(m, size) for m in legal if m != PASS) == expected
            if not expected:
                other = placements(board, "W" if who == "B" else "B")
                assert legal == ([PASS] if other else [])
            if not legal:
                assert game.outcome(state) is not None
                assert end_score(game, state) == (final_margin(board) if who == "B" else -final_margin(board))
                break
            assert game.outcome(state) is None
            move = rng.choice(legal)
            after = checked_play(game, state, move)
            if move != PASS:
                assert board_of(game, after) == place(board, who, *divmod(move, size))
            state = after


def test_the_start_and_move_text() -> None:
    game = game_of(8)
    state = game.initial_state()
    assert sorted(game.format_move(state, m) for m in game.legal_moves(state)) == ["c4", "d3", "e6", "f5"]
    assert game.render(state).splitlines()[4] == "4 . . . W B . . ."
    after = play_text(game, "d3 c5")
    assert disc_counts(game, after) == (3, 3) and game.to_move(after) == 0
    assert game.parse_move(state, " D3 ") == game.parse_move(state, "d3") == 2 * 8 + 3
    assert game.parse_move(state, "PASS") == PASS


@pytest.mark.parametrize(
    ("moves", "text", "why"),
    [
        ("", "d4", "d4 is taken"),
        ("", "a1", "a1 outflanks no disc"),
        ("", "pass", "you cannot pass: you have a move"),
    ],
)
def test_illegal_moves_say_why(moves: str, text: str, why: str) -> None:
    game = game_of(8)
    state = play_text(game, moves)
    with pytest.raises(IllegalMoveError, match=why):
        checked_play(game, state, game.parse_move(state, text))


@pytest.mark.parametrize("text", ["i1", "a9", "a0", "d", "d33", "", "pas"])
def test_unreadable_moves(text: str) -> None:
    game = game_of(8)
    with pytest.raises(MoveParseError, match="column letter and row number"):
        game.parse_move(game.initial_state(), text)


@pytest.mark.parametrize("size", [2, 3, 5, 10, 0, -4])
def test_bad_sizes_are_refused(size: int) -> None:
    with pytest.raises(ValueError, match="even board side from 4 to 8"):
        Othello(size)


def test_symmetric_positions_share_their_key() -> None:
    game = game_of(6)
    state = play_text(game, "c2 b4 c5 d2")
    images = game.symmetries(state)
    assert len({game.key(s) for s in images}) == 8
    assert len({game.canonical_key(s) for s in images}) == 1
    for image in images:  # images play alike: the same number of moves, the same value
        assert len(game.legal_moves(image)) == len(game.legal_moves(state))


def test_a_pass_and_the_end() -> None:
    game = game_of(4)
    # 4x4 under perfect play ends with two empty squares that neither side can fill.
    result = solver(game, engine="python")
    state = game.initial_state()
    for text in result.pv:
        state = play_text(game, text, state)
    assert game.outcome(state) is not None and game.legal_moves(state) == []
    with pytest.raises(GameOverError):
        checked_play(game, state, PASS)
    black, white = disc_counts(game, state)
    assert black + white == 14 and (black, white) == (3, 11)  # 11-3, the 2 empty squares go to White: 13-3


# -- values ---------------------------------------------------------------------------------------
def test_4x4_is_a_win_for_the_second_player_by_the_brute_force_margin() -> None:
    game = game_of(4)
    expected = brute(start(4), "B")
    assert expected == -10  # White wins 11-3, and the 2 empty squares: by 10
    for result in (solver(game, engine="python"), alphabeta(game)):
        assert result.proven and result.score == result.margin == expected
        assert result.value == "loss" and result.winner == 1
        assert result.outcome == Margin(-10, result.plies_to_end)
    after = play_text(game, "b1 a1")  # (minimax from the start visits 224,821 nodes: seconds)
    assert minimax(game, after).score == brute(board_of(game, after), "B") == -10
    by_move = {mv.move: mv.score for mv in solver(game, engine="python").move_values}
    state = game.initial_state()
    for move in game.legal_moves(state):
        r, c = divmod(move, 4)
        assert by_move[game.format_move(state, move)] == -brute(place(start(4), "B", r, c), "W")


def test_4x4_positions_against_the_brute_force() -> None:
    game = game_of(4)
    rng = random.Random(4)
    for _ in range(6):
        state = game.initial_state()
        while game.outcome(state) is None:
            expected = brute(board_of(game, state), "BW"[game.to_move(state)])
            if rng.random() < 0.5:
                assert search("solver", game, state, engine="python").score == expected
            else:
                assert search("alphabeta", game, state).score == expected
            state = game.play(state, rng.choice(game.legal_moves(state)))


def test_depth_limited_othello_is_a_guess() -> None:
    game = game_of(6)
    result = alphabeta(game, depth=3)
    assert not result.proven and result.margin is None and result.best_moves
    assert -36 < result.score < 36


# -- Feinstein's 6x6 line -------------------------------------------------------------------------
def feinstein_line() -> list[str]:
    """The published line on 6x6 (board squares b2-g7 of an 8x8 diagram, shifted to a1-f6), with the pass
    the published numbering leaves implicit (Black has no move before White's 31st disc)."""
    data = json.loads((DATA / "feinstein_6x6.json").read_text())
    moves = [f"{chr(ord(m[0]) - 1)}{int(m[1]) - 1}" for m in data["moves"]]
    return moves[: data["pass_before"] - 1] + ["pass"] + moves[data["pass_before"] - 1 :]


def positions_along(game: Othello) -> list[OthelloState]:
    states = [game.initial_state()]
    for text in feinstein_line():
        states.append(checked_play(game, states[-1], game.parse_move(states[-1], text)))
    return states


def test_feinstein_line_replays_to_white_20_16() -> None:
    game = game_of(6)
    states = positions_along(game)
    assert game.outcome(states[-1]) is not None
    assert disc_counts(game, states[-1]) == (16, 20)
    assert end_score(game, states[-1]) == (-4 if game.to_move(states[-1]) == 0 else 4)


def _solved_to_the_margin(game: Othello, state: OthelloState) -> None:
    result = search("solver", game, state, all_moves=False, engine="python")
    white_wins_by_4 = 4 if game.to_move(state) == 1 else -4
    assert result.proven and result.score == result.margin == white_wins_by_4


@pytest.mark.parametrize("ply", range(18, 33))
def test_feinstein_positions_from_move_18_are_solved_to_the_margin(ply: int) -> None:
    game = game_of(6)
    _solved_to_the_margin(game, positions_along(game)[ply])


@pytest.mark.parametrize("ply", [pytest.param(ply, marks=SLOW) for ply in range(14, 18)])
def test_feinstein_positions_before_move_18(ply: int) -> None:
    game = game_of(6)
    _solved_to_the_margin(game, positions_along(game)[ply])


def test_a_parallel_solve_gives_the_same_margins() -> None:
    from gametree.search.parallel import solve_parallel

    game = game_of(4)
    single = solver(game, engine="python")
    result = solve_parallel(game, workers=2, engine="python")
    assert result.proven and result.score == result.margin == single.score == -10
    assert [(m.move, m.score) for m in result.move_values] == [(m.move, m.score) for m in single.move_values]


# -- the command line -----------------------------------------------------------------------------
def test_solve_othello_on_the_command_line(gametree_cli) -> None:  # type: ignore[no-untyped-def]
    done = gametree_cli("solve", "othello", "--size", "4", "--no-store", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["score"] == data["margin"] == -10 and data["value"] == "loss" and data["winner"] == 1
    table = gametree_cli("solve", "othello", "--size", "4", "--no-store")
    assert "White wins by 10" in table.stdout and "loses by 10" in table.stdout
    compiled = gametree_cli("solve", "othello", "--size", "4", "--no-store", "--engine", "compiled")
    assert compiled.returncode != 0 and "no compiled rules for this board" in compiled.stderr
    odd = gametree_cli("solve", "othello", "--size", "5")
    assert odd.returncode != 0 and "even board side" in odd.stderr and "Traceback" not in odd.stderr


# -- the compiled engine --------------------------------------------------------------------------
numba = pytest.importorskip("numba", reason="the compiled engine needs numba")


def test_the_compiled_pass_is_the_rules_pass() -> None:
    from gametree_builtins.games import othello, othello_rules

    assert othello.COMPILED_PASS == othello_rules.PASS


def test_one_record_type_for_every_board_and_the_rules_read_its_fields() -> None:
    from gametree.search.kernel import board_constants
    from gametree_builtins.games import othello, othello_rules

    rules = [game_of(size).compiled_rules() for size in (6, 8)]
    records = [board_constants(r.board) for r in rules if r is not None]
    assert len(records) == 2 and records[0].dtype == records[1].dtype
    assert game_of(4).compiled_rules() is None  # (4x4: the Python engine is faster than loading compiled code)
    assert list(othello_rules.Board.__annotations__) == list(othello.OthelloBoard._fields)


def test_compiled_6x6_endings_equal_the_brute_force() -> None:
    from gametree.search.solver import Solver

    game = game_of(6)
    fast = Solver(game, engine="compiled")
    rng = random.Random(66)
    for _ in range(12):
        state = game.initial_state()
        while game.outcome(state) is None and sum(disc_counts(game, state)) < 36 - rng.randint(1, 8):
            state = game.play(state, rng.choice(game.legal_moves(state)))
        if game.outcome(state) is None:
            assert fast.score(state).score == brute(board_of(game, state), "BW"[game.to_move(state)])


@pytest.mark.parametrize("size", [6, 8])
def test_compiled_equals_python_on_many_positions(size: int) -> None:
    """Random positions (12 or fewer empty squares on 6x6, 10 on 8x8), their value and every move's, with passes
    and ends."""
    from gametree.search.solver import Solver

    game = game_of(size)
    fast, slow = Solver(game, engine="compiled"), Solver(game, engine="python")
    rng = random.Random(size)
    seen = 0
    for _ in range(12 if size == 6 else 6):
        state = game.initial_state()
        empties = rng.randint(1, 12 if size == 6 else 10)
        while game.outcome(state) is None:
            if size * size - disc_counts(game, state)[0] - disc_counts(game, state)[1] <= empties:
                break
            state = game.play(state, rng.choice(game.legal_moves(state)))
        if game.outcome(state) is not None:
            continue
        a, b = fast.solve(state), slow.solve(state)
        assert (a.score, a.best_moves, a.pv) == (b.score, b.best_moves, b.pv)
        assert [mv.score for mv in a.move_values] == [mv.score for mv in b.move_values]
        assert a.stats.nodes > 0
        seen += 1
    assert seen >= (8 if size == 6 else 4)


@pytest.mark.parametrize("ply", [pytest.param(10, marks=SLOW), 12, 14, 16, 18, 20, 24, 28])
def test_compiled_feinstein_positions(ply: int) -> None:
    """The compiled engine solves the line from move 12 on (a second at most; move 10: about 15 s) to White's
    margin."""
    game = game_of(6)
    state = positions_along(game)[ply]
    result = search("solver", game, state, all_moves=False, pv=False, engine="compiled")
    assert result.proven and result.score == (4 if game.to_move(state) == 1 else -4)


@pytest.mark.parametrize("size", [6, 8])
def test_compiled_moves_come_in_the_python_games_order(size: int) -> None:
    """Both engines order moves alike (fastest first with its weights, parity with few empty squares), so
    their searches and principal variations agree; every legal move is there once."""
    import numpy as np

    from gametree.search.kernel import board_constants
    from gametree_builtins.games import othello_rules

    game = game_of(size)
    rules = game.compiled_rules()
    assert rules is not None
    g = board_constants(rules.board)[0]
    out = np.zeros(64, dtype=np.int64)
    rng = random.Random(size + 100)
    checked = 0
    for _ in range(6):
        state = game.initial_state()
        while game.outcome(state) is None:
            legal = game.legal_moves(state)
            n = othello_rules.moves(g, np.uint64(state.mine), np.uint64(state.theirs), out)
            compiled = [PASS if m == othello_rules.PASS else int(m) for m in out[:n]]
            assert compiled == legal
            assert sorted(legal) == sorted(set(legal))
            checked += len(legal) > 2
            state = game.play(state, rng.choice(legal))
    assert checked > 20


@pytest.mark.parametrize("size", [6, 8])
def test_finish_bounds_the_brute_force_margin_in_every_window(size: int) -> None:
    """``othello_rules.finish`` (the end solved without table) on random positions with 0 to ``finish_empties``
    empty squares, with passes and early ends: a fail-soft value for each window, against the brute force."""
    import numpy as np

    from gametree.search.kernel import board_constants
    from gametree_builtins.games import othello_rules

    game = game_of(size)
    rules = game.compiled_rules()
    assert rules is not None
    g = board_constants(rules.board)[0]
    most = int(g["finish_empties"])
    assert 4 <= most <= othello_rules.MAX_FINISH
    big, first = np.uint64(game.full), game.initial_state()
    done, _ = othello_rules.finish(g, np.uint64(first.mine), np.uint64(first.theirs), 0, 1)
    assert not done  # (too many empty squares: the engine searches it)
    rng = random.Random(size + 7)
    seen = set()
    for _ in range(40 if size == 6 else 16):
        state, empties = game.initial_state(), rng.randint(0, most)
        while game.outcome(state) is None and size * size - sum(disc_counts(game, state)) > empties:
            state = game.play(state, rng.choice(game.legal_moves(state)))
        a, b = np.uint64(state.mine), np.uint64(state.theirs)
        left = int(np.uint64(big & ~(a | b))).bit_count()
        exact = brute(board_of(game, state), "BW"[game.to_move(state)])
        seen.add((left, game.outcome(state) is not None))
        for lo in (exact - 3, exact - 1, exact, exact + 1, -100):
            hi = lo + rng.choice((1, 2, 5, 200))
            done, v = othello_rules.finish(g, a, b, lo, hi)
            assert done
            if v <= lo:
                assert exact <= v
            elif v >= hi:
                assert exact >= v
            else:
                assert exact == v
    assert len({left for left, _ in seen}) >= most - 1  # (most counts of empty squares were met)


def test_finish_is_for_margin_rules() -> None:
    from gametree.game import IncompleteCapabilityError, RuleSet
    from gametree_builtins.games import othello_rules

    r = othello_rules.RULES
    with pytest.raises(IncompleteCapabilityError, match="finish but not score"):
        RuleSet(moves=r.moves, play=r.play, ends=r.ends, key=r.key, finish=r.finish)
    with pytest.raises(IncompleteCapabilityError, match="table_use but not score"):
        RuleSet(moves=r.moves, play=r.play, ends=r.ends, key=r.key, table_use=r.table_use)


def test_table_use_by_empty_squares() -> None:
    """No table for small searches, child probes first for large ones (the thresholds of the board)."""
    import numpy as np

    from gametree.search.kernel import board_constants
    from gametree_builtins.games import othello_rules

    game = game_of(6)
    rules = game.compiled_rules()
    assert rules is not None
    g = board_constants(rules.board)[0]
    low, high = int(g["table_empties"]), int(g["etc_empties"])
    assert int(g["finish_empties"]) < low < high
    full = (1 << 36) - 1
    for empties in range(37):
        a = np.uint64(full >> empties)  # (the position need not be reachable: only its empty squares count)
        use = othello_rules.table_use(g, a, np.uint64(0))
        assert use == (0 if empties <= low else 2 if empties >= high else 1)
