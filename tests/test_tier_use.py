"""Tier directories used everywhere: the perfect player and hints of ``play --tiers``, ``solve --tiers``,
``Position.solve(tiers=...)``, ``book query``/``book info --tiers`` (docs/tiers.md, "Using the solution").

The oracles: an independent brute-force negamax over every position of 3x3 tic-tac-toe (depth-aware
scores, :func:`gametree.game.end_score` at the ends), and the exact solver without the directory for
4x4 Connect Four."""

from __future__ import annotations

import functools
import io
import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from gametree import Position, load, play_text, solver
from gametree.game import end_score
from gametree.play import play_match
from gametree.session import Seat, Session
from gametree.store.tiers import TierFileError
from gametree.terminal import Terminal
from gametree.tier_book import TierBook, build_tier_book, tier_result

#: The boards: (installed name, options).
BOARDS = {"ttt": ("tictactoe", {}), "c4": ("connect4", {"width": 4, "height": 4})}


@pytest.fixture(scope="session")
def tier_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """3x3 tic-tac-toe's and 4x4 Connect Four's tier directories, built once."""
    root = tmp_path_factory.mktemp("tier-use")
    registry = load()
    for label, (name, options) in BOARDS.items():
        build_tier_book(registry.game(name).create(**options), name, root / label)
    return {label: root / label for label in BOARDS}


def book_of(tier_dirs: dict[str, Path], label: str) -> TierBook:
    name, options = BOARDS[label]
    return TierBook(load().game(name).create(**options), name, tier_dirs[label])


@functools.cache
def _ttt() -> Any:
    return load().game("tictactoe").create()


@functools.cache
def brute(state: Any) -> int:
    """The depth-aware score of a 3x3 tic-tac-toe position for its side to move, by plain negamax."""
    game = _ttt()
    ended = end_score(game, state)
    if ended is not None:
        return ended
    return max(-brute(game.play(state, move)) for move in game.legal_moves(state))


def along_random_games(game: Any, seed: int, games: int) -> list[Any]:
    """Every unfinished position of ``games`` random games from the start."""
    rng, seen = random.Random(seed), []
    for _ in range(games):
        state = game.initial_state()
        while game.outcome(state) is None:
            seen.append(state)
            state = game.play(state, rng.choice(list(game.legal_moves(state))))
    return seen


def test_every_moves_score_and_remoteness_equal_brute_force_on_tictactoe(tier_dirs: dict[str, Path]) -> None:
    book = book_of(tier_dirs, "ttt")
    game = book.game
    for state in along_random_games(game, seed=1, games=12):
        result = tier_result(book, state)
        scores = [-brute(game.play(state, m)) for m in game.legal_moves(state)]
        assert result.score == brute(state) == max(scores)
        assert [mv.score for mv in result.move_values] == scores
        assert result.best_moves == tuple(mv.move for mv, s in zip(result.move_values, scores) if s == max(scores))
        assert result.algorithm == "tiers" and result.from_store and result.proven and result.stats.nodes == 0
        assert len(result.pv) == result.plies_to_end  # the line reaches the end in the remoteness
        for mv in result.move_values:  # a move's remoteness: the plies to the end after it, plus the move
            after = game.play(state, mv.game_move)
            assert mv.plies_to_end == (1 if game.outcome(after) else 1 + tier_result(book, after).plies_to_end)


@pytest.mark.parametrize("label", list(BOARDS))
def test_tier_result_equals_the_solver_without_the_directory(tier_dirs: dict[str, Path], label: str) -> None:
    book = book_of(tier_dirs, label)
    game = book.game
    for state in along_random_games(game, seed=7, games=3)[::2]:
        read = tier_result(book, state)
        searched = solver(game, state, all_moves=True, engine="python")
        assert (read.value, read.winner, read.score, read.plies_to_end) == (
            searched.value,
            searched.winner,
            searched.score,
            searched.plies_to_end,
        )
        assert set(read.best_moves) == set(searched.best_moves)
        solved = {mv.move: (mv.score, mv.plies_to_end) for mv in searched.move_values}
        for mv in read.move_values:
            score, plies = solved[mv.move]
            assert mv.score == score and (plies is None or mv.plies_to_end == plies)


@pytest.mark.parametrize("label", list(BOARDS))
def test_the_perfect_player_from_tiers_wins_fastest_and_loses_slowest(tier_dirs: dict[str, Path], label: str) -> None:
    book = book_of(tier_dirs, label)
    game = book.game
    perfect = load().players["perfect"]()
    perfect.tiers = book
    rng = random.Random(3)
    for state in along_random_games(game, seed=11, games=4):
        if label == "ttt":
            best = max(-brute(game.play(state, m)) for m in game.legal_moves(state))
            keeping = {
                game.format_move(state, m) for m in game.legal_moves(state) if -brute(game.play(state, m)) == best
            }
        else:  # the exact solver without the directory
            keeping = set(solver(game, state, all_moves=True, engine="python").best_moves)
        chosen = perfect.choose(game, state, rng)
        assert game.format_move(state, chosen) in keeping
        assert perfect.last is not None and perfect.last.how == "tiers" and set(perfect.last.moves) == keeping
    # From the start, against a random player: it never loses (tic-tac-toe and 4x4 Connect Four are draws).
    match = play_match(game, [perfect, load().players["random"]()], games=6, seed=5, names=("perfect", "random"))
    assert match.wins[1] == 0


def test_the_perfect_player_searches_a_tier_the_directory_lacks(tier_dirs: dict[str, Path], tmp_path: Path) -> None:
    folder = tmp_path / "partial"
    shutil.copytree(tier_dirs["ttt"], folder)
    header = json.loads((folder / "header.json").read_text())
    del header["tiers"]["0"]  # a build stopped before its last (backward) tier: the start is not answered
    header["complete"] = False
    (folder / "header.json").write_text(json.dumps(header))
    game = _ttt()
    book = TierBook(game, "tictactoe", folder)
    assert not book.covers(game.initial_state()) and book.covers(play_text(game, "B2"))
    perfect = load().players["perfect"]()
    perfect.tiers = book
    perfect.choose(game, game.initial_state(), random.Random(1))
    assert perfect.last is not None and perfect.last.how != "tiers"
    perfect.choose(game, play_text(game, "B2"), random.Random(1))
    assert perfect.last is not None and perfect.last.how == "tiers"
    with pytest.raises(TierFileError, match="no tier 0"):
        tier_result(book, game.initial_state())


def test_hints_show_every_moves_value_and_remoteness_from_the_directory(tier_dirs: dict[str, Path]) -> None:
    book = book_of(tier_dirs, "ttt")
    game = book.game
    out = io.StringIO()
    human = load().players["human"]()
    session = Session(game, (Seat("human", human), Seat("human", human)), Terminal(io.StringIO(), out, fancy=False))
    session.tiers = book
    state = play_text(game, "A1 B1 A2 B2")
    session.show_hint(state)
    shown = out.getvalue()
    assert "from the tier directory" in shown
    lines = {line.split()[0]: line for line in shown.splitlines()[1:] if line.strip()}
    assert "win in 1 move" in lines["A3"] and "(best)" in lines["A3"]
    assert "draw in 5 moves" in lines["B3"]
    for move in ("C1", "C3", "C2"):
        assert "loss in 2 moves" in lines[move]


def test_play_with_tiers_at_the_terminal_and_as_a_match(gametree_cli: Any, tier_dirs: dict[str, Path]) -> None:
    folder = str(tier_dirs["ttt"])
    env = {"GAMETREE_STORE": "none"}
    out = gametree_cli("play", "tictactoe", "--tiers", folder, "--seed", "2", input="A1\nhint\nquit\n", env=env)
    assert out.returncode == 0, out.stderr
    assert "from the tier directory" in out.stdout and "in 7 moves" in out.stdout
    out = gametree_cli(
        "play", "tictactoe", "--tiers", folder, "--x", "random", "--o", "perfect", "--games", "5", "--json", env=env
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["wins"][0] == 0


@pytest.mark.parametrize(
    "args",
    [
        ("play", "tictactoe", "--size", "4", "--k", "3", "--x", "perfect", "--o", "random", "--json"),
        ("play", "connect4", "--width", "4", "--height", "4"),
        ("solve", "tictactoe", "--size", "4"),
        ("book", "query", "tictactoe", "--size", "4"),
    ],
)
def test_a_directory_of_another_game_or_board_is_a_one_line_error(
    gametree_cli: Any, tier_dirs: dict[str, Path], args: tuple[str, ...]
) -> None:
    out = gametree_cli(*args, "--tiers", str(tier_dirs["ttt"]), input="B2\nquit\n", env={"GAMETREE_STORE": "none"})
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1 and "--tiers:" in out.stderr and "holds tictactoe" in out.stderr
    assert out.stdout == ""  # before play (or anything) starts


def test_a_missing_directory_is_a_one_line_error(gametree_cli: Any, tmp_path: Path) -> None:
    out = gametree_cli("solve", "tictactoe", "--tiers", str(tmp_path / "none"))
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and "not a tier directory" in out.stderr


@pytest.mark.parametrize(("label", "moves"), [("ttt", "A1 B1 A2 B2"), ("ttt", "B2"), ("c4", "1 2 2")])
def test_solve_with_tiers_equals_solve_without(
    gametree_cli: Any, tier_dirs: dict[str, Path], label: str, moves: str
) -> None:
    name, options = BOARDS[label]
    flags = [f"--{k}={v}" for k, v in options.items()]
    env = {"GAMETREE_STORE": "none"}
    read = gametree_cli("solve", name, *flags, "--moves", moves, "--tiers", str(tier_dirs[label]), "--json", env=env)
    searched = gametree_cli("solve", name, *flags, "--moves", moves, "--json", env=env)
    assert read.returncode == 0 and searched.returncode == 0, read.stderr + searched.stderr
    a, b = json.loads(read.stdout), json.loads(searched.stdout)
    assert a["algorithm"] == "tiers" and a["from_store"] and a["stats"]["nodes"] == 0
    for field in ("game", "options", "moves", "to_move", "value", "winner", "score", "proven", "plies_to_end"):
        assert a[field] == b[field], field
    assert set(a["best_moves"]) == set(b["best_moves"])
    assert {m["move"]: m["score"] for m in a["move_values"]} == {m["move"]: m["score"] for m in b["move_values"]}
    text = gametree_cli("solve", name, *flags, "--moves", moves, "--tiers", str(tier_dirs[label]), env=env)
    assert text.returncode == 0 and "answered from the tier directory" in text.stdout


def test_solve_with_tiers_refuses_search_flags_and_a_finished_game(
    gametree_cli: Any, tier_dirs: dict[str, Path]
) -> None:
    folder = str(tier_dirs["ttt"])
    out = gametree_cli("solve", "tictactoe", "--tiers", folder, "--depth", "2")
    assert out.returncode == 2 and "drop --depth" in out.stderr and "Traceback" not in out.stderr
    out = gametree_cli("solve", "tictactoe", "--tiers", folder, "--moves", "A1 B1 A2 B2 A3")
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and "game is over" in out.stderr


#: Every ``gametree solve`` flag that means nothing with ``--tiers``, as given and as the error names it.
REFUSED_WITH_TIERS = [
    (["--depth", "2"], "--depth"),
    (["--time-limit", "1"], "--time-limit"),
    (["--analysis-time", "1"], "--analysis-time"),
    (["--analysis-time", "3"], "--analysis-time"),  # (its default, given all the same)
    (["--cache-size", "2M"], "--cache-size"),
    (["--no-cache"], "--no-cache"),
    (["--no-symmetry"], "--no-symmetry"),
    (["--weak"], "--weak"),
    (["--engine", "python"], "--engine"),
    (["--trace"], "--trace"),
    (["--no-trace"], "--no-trace"),
    (["-a", "solver"], "--algorithm"),
    (["--iterations", "5"], "--iterations"),
    (["--seed", "1"], "--seed"),
    (["--store", "x.sqlite"], "--store"),
    (["--no-store"], "--no-store"),
    (["--batch", "-"], "--batch"),
    (["--keep-going"], "--keep-going"),
    (["--progress"], "--progress"),
    (["--no-progress"], "--no-progress"),
    (["--workers", "2"], "--workers"),
    (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler"),
    (["--split-ply", "2"], "--split-ply"),
]


@pytest.mark.parametrize(
    ("flags", "named"), REFUSED_WITH_TIERS, ids=[n + "=" + "".join(f[1:]) for f, n in REFUSED_WITH_TIERS]
)
def test_solve_with_tiers_refuses_each_flag_of_a_search_by_name(
    tier_dirs: dict[str, Path], flags: list[str], named: str
) -> None:
    from click.testing import CliRunner

    from gametree.cli.root import cli

    args = ["solve", "tictactoe", "--tiers", str(tier_dirs["ttt"]), "--moves", "B2", *flags]
    out = CliRunner().invoke(cli, args, input="B2\n")
    assert out.exit_code == 2, out.output
    error = [line for line in out.output.splitlines() if line.startswith("Error:")]
    assert error == [f"Error: --tiers reads the answer without a search: drop {named}"]


def test_solve_with_tiers_names_every_refused_flag_in_one_line(gametree_cli: Any, tier_dirs: dict[str, Path]) -> None:
    folder = str(tier_dirs["ttt"])
    out = gametree_cli(
        "solve", "tictactoe", "--tiers", folder, "--cache-size", "2M", "--no-store", "--analysis-time", "0"
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "drop --analysis-time, --cache-size, --no-store" in out.stderr.splitlines()[-1]
    # The game's own options and --json, --moves, --best-only are not refused.
    ok = gametree_cli("solve", "tictactoe", "--size", "3", "--tiers", folder, "--moves", "B2", "--best-only", "--json")
    assert ok.returncode == 0, ok.stderr


@pytest.mark.parametrize("moves", ["", "B2", "A1 B1 A2 B2", "A1 B2 C3"])
def test_solve_with_tiers_best_only_lists_only_the_best_moves_values(tier_dirs: dict[str, Path], moves: str) -> None:
    from click.testing import CliRunner

    from gametree.cli.root import cli

    folder = str(tier_dirs["ttt"])
    base = ["solve", "tictactoe", "--tiers", folder, "--moves", moves, "--json"]
    every = json.loads(CliRunner().invoke(cli, base).output)
    best = json.loads(CliRunner().invoke(cli, [*base, "--best-only"]).output)
    game = _ttt()
    state = Position.of("tictactoe", moves).state
    top = max(-brute(game.play(state, m)) for m in game.legal_moves(state))
    expected = {game.format_move(state, m) for m in game.legal_moves(state) if -brute(game.play(state, m)) == top}
    assert {m["move"] for m in best["move_values"]} == set(best["best_moves"]) == expected
    assert all(m["best"] and m["score"] == top for m in best["move_values"])
    assert len(every["move_values"]) == len(list(game.legal_moves(state)))
    for field in ("value", "score", "plies_to_end", "best_moves", "pv"):
        assert best[field] == every[field], field


def test_position_solve_reads_a_tier_directory(tier_dirs: dict[str, Path]) -> None:
    position = Position.of("connect4", "1 2", width=4, height=4)
    read = position.solve(tiers=tier_dirs["c4"])
    searched = position.solve(store=None, show=False)
    assert read.algorithm == "tiers" and read.outcome == searched.outcome
    assert read.move_values == searched.move_values  # (each move's text, score, remoteness and best mark)
    book = book_of(tier_dirs, "c4")
    assert position.solve(tiers=book).move_values == read.move_values
    with pytest.raises(TierFileError, match="not connect4"):
        Position.of("connect4", "1 2").solve(tiers=tier_dirs["c4"])
    with pytest.raises(TierFileError, match="not this game"):
        Position.of("tictactoe", "B2").solve(tiers=book)
    with pytest.raises(TypeError, match="drop depth"):
        position.solve(tiers=book, depth=3, all_moves=False)
    best = position.solve(tiers=book, all_moves=False)
    assert best.move_values == tuple(m for m in read.move_values if m.best) and best.best_moves == read.best_moves
    assert position.solve(tiers=book, pv=False).pv == read.pv[:1]


def test_book_query_and_info_are_the_tiers_commands(gametree_cli: Any, tier_dirs: dict[str, Path]) -> None:
    folder = str(tier_dirs["ttt"])
    for json_flag in ((), ("--json",)):
        book = gametree_cli("book", "query", "tictactoe", "--tiers", folder, "--moves", "A1 B1 A2 B2", *json_flag)
        tiers = gametree_cli("tiers", "query", "tictactoe", "--out", folder, "--moves", "A1 B1 A2 B2", *json_flag)
        assert book.returncode == tiers.returncode == 0 and book.stdout == tiers.stdout
        book = gametree_cli("book", "info", "--tiers", folder, *json_flag)
        tiers = gametree_cli("tiers", "info", folder, *json_flag)
        assert book.returncode == tiers.returncode == 0 and book.stdout == tiers.stdout
    answer = json.loads(gametree_cli("book", "query", "tictactoe", "--tiers", folder, "--moves", "B2", "--json").stdout)
    assert answer["value"] == {"outcome": "draw", "remoteness": 8}
    assert json.loads(gametree_cli("book", "info", "--tiers", folder, "--json").stdout)["positions"] == 5478


def test_a_directory_built_with_other_tier_sizes_is_refused(
    gametree_cli: Any, tier_dirs: dict[str, Path], tmp_path: Path
) -> None:
    folder = tmp_path / "resized"
    shutil.copytree(tier_dirs["ttt"], folder)
    header = json.loads((folder / "header.json").read_text())
    header["sizes"][9] += 1  # (as a game whose perfect hash changed would have it)
    (folder / "header.json").write_text(json.dumps(header))
    with pytest.raises(TierFileError, match="other tier sizes"):
        TierBook(_ttt(), "tictactoe", folder)
    out = gametree_cli("play", "tictactoe", "--tiers", str(folder), "--x", "perfect", "--o", "random", "--json")
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and "other tier sizes" in out.stderr
