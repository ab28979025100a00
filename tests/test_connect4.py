"""Connect Four: rules, notation, published values (Pons's sets, small boards) and a brute-force cross-check."""

from __future__ import annotations

import csv
import itertools
import random
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gametree import (
    GameError,
    IllegalMoveError,
    MoveParseError,
    Outcome,
    TranspositionTable,
    alphabeta,
    checked_play,
    load,
    play_text,
    win_score,
)
from gametree.search import run
from gametree.search.compiled import numba_available
from gametree_builtins.games.connect4 import C4State, ConnectFour

#: Published values, kept in the repository (see tests/data/README.md for their sources).
DATA = Path(__file__).resolve().parent / "data" / "connect4"


def sequence_state(game: ConnectFour, columns: list[int]) -> C4State:
    """Play 0-based columns, stopping at the end of the game; the state reached."""
    state = game.initial_state()
    for c in columns:
        if game.outcome(state) is not None:
            break
        if c in game.legal_moves(state):
            state = game.play(state, c)
    return state


# -- options and rules -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"width": 0}, "at least 1"),
        ({"height": -2}, "at least 1"),
        ({"k": 0}, "cannot fit"),
        ({"width": 3, "height": 2, "k": 4}, "cannot fit"),
    ],
)
def test_bad_options_are_a_clear_value_error(options: dict[str, int], message: str) -> None:
    spec = load().game("connect4")
    with pytest.raises(ValueError, match=message):
        spec.create(**options)


def test_registered_with_defaults() -> None:
    game = load().game("connect4").create()
    assert (game.width, game.height, game.k) == (7, 6, 4)
    assert game.info.max_plies == 42
    assert game.legal_moves(game.initial_state())[0] == 3  # centre column first


def test_discs_fall_and_a_full_column_is_explained() -> None:
    game = ConnectFour()
    state = play_text(game, "444444")
    assert game.format_move(state, 3) == "4"
    with pytest.raises(IllegalMoveError, match="column 4 is full"):
        play_text(game, "4", state)
    assert 3 not in game.legal_moves(state)
    with pytest.raises(MoveParseError, match="off the board"):
        game.parse_move(state, "8")
    with pytest.raises(MoveParseError, match="column number"):
        game.parse_move(state, "x")


@pytest.mark.parametrize(
    "moves",
    [
        "4455667",  # horizontal
        "1212121",  # vertical
        "12234334644",  # diagonal up-right: red on 1, 2, 3, 4 at heights 1, 2, 3, 4
        "76654554244",  # its mirror image: diagonal up-left
    ],
)
def test_red_completes_a_line_in_every_direction(moves: str) -> None:
    game = ConnectFour()
    before = play_text(game, moves[:-1])
    assert game.outcome(before) is None and not game.aligned(game.stones(before, 0))
    state = play_text(game, moves)
    out = game.outcome(state)
    assert out is not None and out.winner == 0
    assert game.aligned(game.stones(state, 0)) and not game.aligned(game.stones(state, 1))
    assert game.legal_moves(state) == []


def test_a_full_board_without_a_line_is_a_draw() -> None:
    game = ConnectFour(3, 1, 3)
    state = play_text(game, "123")
    out = game.outcome(state)
    assert out is not None and out.is_draw and game.legal_moves(state) == []
    game = ConnectFour(2, 2, 2)
    state = play_text(game, "122")  # red 1 bottom, yellow 2 bottom, red 2 top: a diagonal of 2
    out = game.outcome(state)
    assert out is not None and out.winner == 0


def test_key_is_current_plus_mask_and_canonical_is_mirror_invariant() -> None:
    game = ConnectFour()
    a = play_text(game, "4453")
    b = play_text(game, "4354")  # the same position, reached in another order
    assert a == b and game.key(a) == game.key(b) == a.current + a.mask
    mirrored = play_text(game, "4435")
    assert game.canonical_key(mirrored) == game.canonical_key(a)
    assert game.key(mirrored) != game.key(a)
    assert sorted(game.symmetries(a)) == sorted([a, mirrored])


def test_split_moves_compact_and_wide() -> None:
    assert ConnectFour().split_moves("4453") == ["4", "4", "5", "3"]
    assert ConnectFour().split_moves(" 4 4 5 3 ") == ["4", "4", "5", "3"]
    wide = ConnectFour(12, 6)
    assert wide.split_moves("10 11 3") == ["10", "11", "3"]
    state = play_text(wide, "10 11 3")
    assert state.moves == 3 and wide.parse_move(state, "12") == 11


def test_board_display_members() -> None:
    game = ConnectFour()
    state = play_text(game, "4453")
    red, yellow = game.info.player_names
    cells = game.board_cells(state)
    assert len(cells) == 6 and all(len(row) == 7 for row in cells)
    assert cells[-1][3] == red and cells[-2][3] == yellow and cells[-1][4] == red and cells[-1][2] == yellow
    assert sum(cell != "" for row in cells for cell in row) == 4
    assert game.row_labels == ("6", "5", "4", "3", "2", "1") and game.column_labels == tuple("1234567")
    assert game.move_cell(state, 3) == (3, 3)  # third disc in column 4 lands on row 3 from the bottom
    assert game.move_cell(state, 0) == (5, 0)
    assert game.winning_cells(state) == ()
    won = play_text(game, "4455667")
    assert game.winning_cells(won) == ((5, 3), (5, 4), (5, 5), (5, 6))
    text = game.render(state)
    assert text.splitlines()[-1].split() == list("1234567") and text.count(".") == 42 - 4


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=42))
def test_evaluate_stays_inside_the_open_interval(columns: list[int]) -> None:
    game = ConnectFour()
    state = sequence_state(game, columns)
    if game.outcome(state) is None:
        assert -1 < game.evaluate(state) < 1


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from([(7, 6, 4), (5, 4, 3), (4, 4, 2), (3, 2, 3)]),
    # Mostly columns (some off the narrow boards), now and then a malformed move.
    st.lists(st.sampled_from([*"1234567" * 4, "8", "0", "x", "²", ""]), max_size=45),
)
def test_replay_is_playing_the_moves_one_by_one(board: tuple[int, int, int], texts: list[str]) -> None:
    """The fast ``replay`` of a move sequence reaches the same state, or fails where the slow path fails;
    from the start, and from the position half-way (columns part-filled already)."""
    game = ConnectFour(*board)
    state = game.initial_state()
    half, middle = len(texts) // 2, None
    try:
        for number, text in enumerate(texts):
            if number == half:
                middle = state
            state = checked_play(game, state, game.parse_move(state, text))
    except GameError:
        with pytest.raises(GameError):
            game.replay(game.initial_state(), texts)
        if middle is not None:
            with pytest.raises(GameError):
                game.replay(middle, texts[half:])
        return
    assert game.replay(game.initial_state(), texts) == state
    assert play_text(game, "".join(texts)) == state
    if middle is not None:
        assert game.replay(middle, texts[half:]) == state


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from([(7, 6, 4), (5, 4, 3), (4, 4, 3), (4, 3, 2)]),
    st.lists(st.integers(0, 6), max_size=42),
    st.integers(0, 3),
)
def test_replay_refuses_moves_after_the_end(board: tuple[int, int, int], columns: list[int], extra: int) -> None:
    """Columns that never overflow, continued past the end of the game: replay fails exactly when one by one does."""
    game = ConnectFour(*board)
    filled = [0] * game.width
    texts = []
    for c in columns:
        c %= game.width
        if filled[c] < game.height:
            filled[c] += 1
            texts.append(str(c + 1))
    state = game.initial_state()
    end = None
    for number, text in enumerate(texts):
        if game.outcome(state) is not None:
            end = number
            break
        state = game.play(state, int(text) - 1)
    if end is None:
        assert game.replay(game.initial_state(), texts) == state
    else:
        assert game.replay(game.initial_state(), texts[:end]) == state
        for stop in range(end + 1, min(len(texts), end + 1 + extra) + 1):  # one move too many, or more
            with pytest.raises(GameError):
                game.replay(game.initial_state(), texts[:stop])


@pytest.mark.parametrize("moves", ["12121213", "121212134"])
def test_replay_sees_a_game_that_ended_earlier(moves: str) -> None:
    """Red's column 1 wins on move 7; one more move leaves Red to move, two leave Red as the last mover."""
    game = ConnectFour()
    with pytest.raises(GameError):
        game.replay(game.initial_state(), list(moves))
    assert game.replay(game.initial_state(), list(moves[:7])).won


_SHARED_GAMES: dict[tuple[int, int, int], ConnectFour] = {}


@settings(max_examples=120, deadline=None)
@given(st.sampled_from([(7, 6, 4), (5, 4, 3), (4, 4, 2), (6, 5, 5)]), st.lists(st.integers(0, 6), max_size=30))
def test_solver_helpers_and_threat_masks_agree_with_the_rules(board: tuple[int, int, int], columns: list[int]) -> None:
    """immediate_win, safe_moves (and unordered), has_safe_move, has_safe_reply and the stored threat masks,
    checked by playing every move.

    One game per board for all examples, as in a search: its memos answer from earlier positions.
    """
    game = _SHARED_GAMES.setdefault(board, ConnectFour(*board))
    state = sequence_state(game, [c % game.width for c in columns])
    if game.outcome(state) is not None:
        return
    assert state.mine == game.threats(state.current, state.mask)
    assert state.theirs == game.threats(state.current ^ state.mask, state.mask)
    moves = game.legal_moves(state)
    assert sorted(moves) == [c for c in range(game.width) if not state.mask & game._top_bit[c]]

    def wins_now(s: C4State) -> bool:
        return any(game.outcome(game.play(s, m)) == Outcome(game.to_move(s)) for m in game.legal_moves(s))

    assert game.immediate_win(state) == wins_now(state)
    if game.immediate_win(state):
        assert game.outcome(game.play(state, moves[0])) == Outcome(game.to_move(state))  # the win is tried first
        return
    safe = game.safe_moves(state)
    assert len(safe) == len(set(safe))
    expected = {m for m in moves if game.outcome(game.play(state, m)) is not None or not wins_now(game.play(state, m))}
    assert set(safe) == expected
    assert game.has_safe_move(state) == bool(expected)
    assert moves[: len(safe)] == list(safe)  # legal_moves puts the safe moves first, in the same order
    unordered = game.safe_moves_unordered(state)
    assert sorted(unordered) == sorted(safe) and len(unordered) == len(safe)
    assert list(unordered) == sorted(unordered, key=game.order.index)  # centre first
    for move in moves:
        assert game.has_safe_reply(state, move) == game.has_safe_move(game.play(state, move))
    for move in safe:  # has the opponent (who cannot win at once) a move after which we cannot win at once?
        child = game.play(state, move)
        replies = [game.play(child, m) for m in game.legal_moves(child)]
        assert game.has_safe_reply(state, move) == any(game.outcome(r) is not None or not wins_now(r) for r in replies)


@pytest.mark.parametrize("board", [(7, 6, 4), (6, 5, 4), (5, 4, 3)])
def test_late_in_the_game_moves_that_fill_a_column_come_first(board: tuple[int, int, int]) -> None:
    """Past ``_order_late`` plies, safe_moves (and legal_moves) put the moves into the top row first,
    then centre first."""
    game = ConnectFour(*board)
    rng = random.Random(7)
    checked = 0
    for _ in range(300):
        state = game.initial_state()
        while game.outcome(state) is None and not game.immediate_win(state):
            safe = game.safe_moves(state)
            if state.moves >= game._order_late and len(safe) > 1:
                filling = [m for m in safe if game.move_cell(state, m)[0] == 0]
                assert list(safe) == filling + sorted(set(safe) - set(filling), key=game.order.index)
                assert game.legal_moves(state)[: len(safe)] == list(safe)
                checked += bool(filling) and len(filling) < len(safe)
            state = game.play(state, rng.choice(safe or game.legal_moves(state)))
    assert checked >= 20  # positions with both kinds of moves were met


def test_a_move_two_cells_below_a_threat_of_the_mover_comes_first() -> None:
    """No safe move here makes a threat; a disc in column 7 lands two cells below one of the mover's
    threat cells, so the opponent can never take the cell between: column 7 first, then centre first."""
    game = ConnectFour()
    state = play_text(game, "376551166642")
    landing = (state.mask + game._bottom_bit[6]) & game._column_mask[6]
    assert landing << 2 & state.mine and not landing << 1 & state.mine
    assert list(game.safe_moves(state)) == [6, 3, 2, 4, 1, 5, 0]
    assert game.legal_moves(state)[:7] == [6, 3, 2, 4, 1, 5, 0]


# -- notation round trips (hypothesis) ---------------------------------------------
@settings(max_examples=80, deadline=None)
@given(st.sampled_from([(7, 6), (4, 4), (12, 3), (10, 2)]), st.lists(st.integers(0, 11), max_size=30))
def test_move_text_round_trips(board: tuple[int, int], columns: list[int]) -> None:
    game = ConnectFour(*board, k=min(4, max(board)))
    state = game.initial_state()
    texts = []
    for c in columns:
        if game.outcome(state) is not None:
            break
        if c >= game.width or c not in game.legal_moves(state):
            continue
        text = game.format_move(state, c)
        assert game.parse_move(state, text) == c
        texts.append(text)
        state = game.play(state, c)
    joined = "".join(texts) if game.width <= 9 else " ".join(texts)
    assert game.split_moves(joined) == texts
    again = play_text(game, joined)
    assert again == state and game.key(again) == game.key(state)


# -- a brute-force oracle written independently of the game module --------------------
def brute_force(width: int, height: int, k: int):  # type: ignore[no-untyped-def]
    """Plain recursive negamax over columns-of-tuples, with the depth-aware score."""
    cells = width * height

    def wins(cols: tuple[tuple[int, ...], ...], c: int, r: int, p: int) -> bool:
        def mine(cc: int, rr: int) -> bool:
            return 0 <= cc < width and 0 <= rr < len(cols[cc]) and cols[cc][rr] == p

        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = 1
            for sign in (1, -1):
                cc, rr = c + sign * dc, r + sign * dr
                while mine(cc, rr):
                    run += 1
                    cc, rr = cc + sign * dc, rr + sign * dr
            if run >= k:
                return True
        return False

    @cache
    def move_values(cols: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, int], ...]:
        n = sum(map(len, cols))
        p = n % 2
        out = []
        for c in range(width):
            if len(cols[c]) < height:
                new = cols[:c] + (cols[c] + (p,),) + cols[c + 1 :]
                if wins(new, c, len(cols[c]), p):
                    out.append((c, (cells + 1 - n) // 2))
                else:
                    out.append((c, -value(new)))
        return tuple(out)

    def value(cols: tuple[tuple[int, ...], ...]) -> int:
        values = move_values(cols)
        return max(v for _, v in values) if values else 0

    def columns_of(sequence: list[int]) -> tuple[tuple[int, ...], ...]:
        cols: list[tuple[int, ...]] = [()] * width
        for n, c in enumerate(sequence):
            cols[c] = cols[c] + (n % 2,)
        return tuple(cols)

    return value, move_values, columns_of


@pytest.mark.parametrize(
    ("width", "height", "k", "depth"),  # k = 1, 2, 3, 5 use the general threat code, k = 4 the unrolled one
    [
        (4, 4, 3, 3),
        (3, 4, 3, 4),
        (5, 3, 3, 3),
        (4, 4, 4, 2),
        (3, 3, 2, 3),
        (5, 2, 5, 3),
        (2, 5, 5, 4),
        (6, 1, 3, 4),
        (3, 2, 1, 1),
    ],
)
def test_every_short_line_matches_brute_force(width: int, height: int, k: int, depth: int) -> None:
    """Every position up to ``depth`` moves in: the root score and every move's score."""
    game = ConnectFour(width, height, k)
    value, move_values, columns_of = brute_force(width, height, k)
    searches = [("alphabeta", {}), ("solver", {"engine": "python"})]
    if numba_available():
        searches.append(("solver", {"engine": "compiled"}))
    tables = [TranspositionTable() for _ in searches]
    checked = 0
    for length in range(depth + 1):
        for sequence in itertools.product(range(width), repeat=length):
            state = game.initial_state()
            ok = True
            for c in sequence:
                if game.outcome(state) is not None or c not in game.legal_moves(state):
                    ok = False
                    break
                state = game.play(state, c)
            if not ok or game.outcome(state) is not None:
                continue
            expected = dict(move_values(columns_of(list(sequence))))
            for (algorithm, options), table in zip(searches, tables):
                result = run(game, state, algorithm=algorithm, cache=table, **options)
                assert result.score == max(expected.values()), (algorithm, options, sequence)
                got = {game.parse_move(state, mv.move): mv.score for mv in result.move_values}
                assert got == expected, (algorithm, options, sequence)
            checked += 1
    assert checked > 0


# -- mirror symmetry (hypothesis) ------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=5, max_size=14))
def test_mirror_preserves_values(columns: list[int]) -> None:
    game = ConnectFour(5, 4, 4)
    state = sequence_state(game, columns)
    if game.outcome(state) is not None:
        return
    mirrored = game.symmetries(state)[-1]  # the mirror image (the state itself if symmetric)
    if state.moves < game.symmetric_plies:
        assert game.canonical_key(mirrored) == game.canonical_key(state) == min(game.key(state), game.key(mirrored))
    else:  # deep positions are keyed as they are (still one key per position)
        assert game.canonical_key(state) == game.key(state)
    plain = alphabeta(game, state, cache=TranspositionTable(), symmetry=False)
    mirror = alphabeta(game, mirrored, cache=TranspositionTable(), symmetry=False)
    assert plain.score == mirror.score and plain.plies_to_end == mirror.plies_to_end
    by_column = {mv.move: mv.score for mv in plain.move_values}
    assert {str(game.width + 1 - int(mv.move)): mv.score for mv in mirror.move_values} == by_column
    with_symmetry = alphabeta(game, state, cache=TranspositionTable(), symmetry=True)
    assert with_symmetry.score == plain.score


# -- published data ----------------------------------------------------------------------
def pons_sample(name: str, step: int) -> list[tuple[str, int]]:
    lines = [line.split() for line in (DATA / name).read_text().splitlines() if line.strip()]
    return [(moves, int(score)) for moves, score in lines[::step]]


@pytest.mark.parametrize("name", ["pons_end_easy.txt", "pons_middle_easy.txt"])
def test_pons_positions_have_the_published_score(name: str, exact_search: tuple[str, dict[str, str]]) -> None:
    """Pons's 7x6 test sets: his exact score; all 1000 positions of each on the compiled engine,
    every 20th (50) on the Python solver, every 40th with alpha-beta."""
    algorithm, options = exact_search
    game = ConnectFour()
    table = TranspositionTable()
    sample = pons_sample(name, 1 if options.get("engine") == "compiled" else 20 if algorithm == "solver" else 40)
    assert len(sample) >= 25
    wrong = []
    for moves, expected in sample:
        result = run(
            game, play_text(game, moves), algorithm=algorithm, cache=table, all_moves=False, pv=False, **options
        )
        if result.score != expected:
            wrong.append((moves, expected, result.score))
    assert wrong == []


def test_has_safe_reply_along_pons_games() -> None:
    """``has_safe_reply`` is ``has_safe_move`` of the position after the move, at every position of
    every 20th game of both sets (threats of the mover far from the move included)."""
    game = ConnectFour()
    checked = 0
    for name in ("pons_end_easy.txt", "pons_middle_easy.txt"):
        for moves, _ in pons_sample(name, 20):
            state = game.initial_state()
            for text in moves:
                if not game.immediate_win(state):
                    for move in game.legal_moves(state):
                        assert game.has_safe_reply(state, move) == game.has_safe_move(game.play(state, move)), (
                            moves,
                            move,
                        )
                        checked += 1
                state = game.play(state, int(text) - 1)
    assert checked > 10_000


@pytest.mark.parametrize("engine", ["python", "compiled"])
@pytest.mark.parametrize("name", ["pons_end_easy.txt", "pons_middle_easy.txt"])
def test_pons_positions_weak(name: str, engine: str) -> None:
    """Every 20th position again, solved weakly: the sign of his score, and a best move that keeps it."""
    if engine == "compiled":
        pytest.importorskip("numba")
    game = ConnectFour()
    table = TranspositionTable()
    wrong = []
    for moves, expected in pons_sample(name, 20):
        state = play_text(game, moves)
        result = run(game, state, algorithm="solver", weak=True, all_moves=False, cache=table, engine=engine)
        sign = (expected > 0) - (expected < 0)
        after = game.play(state, game.parse_move(state, result.best_moves[0]))
        end = game.outcome(after)
        if end is not None:  # the move ends the game: a win, or a draw on the last cell
            kept = sign == (0 if end.winner is None else 1 if end.winner == game.to_move(state) else -1)
        else:
            kept = (
                -run(game, after, algorithm="solver", weak=True, all_moves=False, cache=table, engine=engine).score
                == sign
            )
        if result.score != sign or not kept:
            wrong.append((moves, expected, result.score, result.best_moves))
    assert wrong == []


def small_boards() -> list[dict[str, str]]:
    with (DATA / "small_boards.csv").open() as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize(("width", "height"), [(4, 4), (5, 4), (4, 5)])
def test_small_boards_match_published_results(
    width: int, height: int, exact_search: tuple[str, dict[str, str]]
) -> None:
    algorithm, options = exact_search
    row = next(r for r in small_boards() if (int(r["width"]), int(r["height"])) == (width, height))
    result = run(ConnectFour(width, height), algorithm=algorithm, all_moves=False, **options)
    assert result.winner == {"first": 0, "second": 1, "draw": None}[row["winner"]]
    assert result.plies_to_end + 0 == int(row["last_move"])  # from the empty board: move number = plies
    assert result.score == int(row["empty_board_score"])
    if result.winner is not None:
        assert abs(result.score) == win_score(width * height, int(row["last_move"]) - 1)


# -- the batch command reads Pons's files as they are ------------------------------------
def test_batch_command_reads_pons_files(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from gametree.cli import cli

    lines = (DATA / "pons_end_easy.txt").read_text().splitlines()[:12]
    good = tmp_path / "good.txt"
    good.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(cli, ["solve", "connect4", "--batch", str(good)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == lines
    assert "12/12 matched" in result.stderr and "nodes per position" in result.stderr

    moves, score = lines[0].split()
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join([f"{moves} {int(score) + 1}", *lines[1:3]]) + "\n")
    result = CliRunner().invoke(cli, ["solve", "connect4", "--batch", str(bad)])
    assert result.exit_code == 1 and "2/3 matched" in result.stderr


def test_cli_rejects_bad_board_in_one_line() -> None:
    from click.testing import CliRunner

    from gametree.cli import cli

    result = CliRunner().invoke(cli, ["solve", "connect4", "--width", "3", "--height", "2", "--k", "4"])
    assert result.exit_code != 0
    assert "cannot fit" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(cli, ["solve", "connect4", "--moves", "4444444"])
    assert result.exit_code != 0 and "column 4 is full" in result.output


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"width": 101}, "--width must be at most 100"),
        ({"height": 101}, "--height must be at most 100"),
        ({"width": 101, "height": 101, "k": 0}, "--width must be at most 100"),
        ({"height": 99999999999999999999}, "--height must be at most 100"),
        ({"width": 10**4000, "height": 10**4000}, "--width must be at most 100"),
    ],
)
def test_boards_over_the_maximum_are_refused_before_any_allocation(options: dict[str, int], message: str) -> None:
    """F6: the board has a documented maximum (MAX_SIDE), checked first: no bitboard of the
    requested size is built (a height of 10**20 was an OverflowError from ``1 << height``;
    100000x1, which took 6 GB, is run in a memory-capped process in tests/test_limits.py).
    The message does not echo the value (10**4000 has 4001 digits)."""
    from gametree_builtins.games import connect4

    spec = load().game("connect4")
    with pytest.raises(ValueError, match=message) as caught:
        spec.create(**options)
    text = str(caught.value)
    assert connect4.MAX_SIDE == 100 and "between 1 and 100" in text
    assert "\n" not in text and len(text) < 200


def test_the_largest_board_is_accepted() -> None:
    game = load().game("connect4").create(width=100, height=100, k=4)
    assert game.info.max_plies == 10_000
    state = play_text(game, "50 51 50 51 50")
    assert game.legal_moves(state)[0] == 49  # the block of the vertical three
