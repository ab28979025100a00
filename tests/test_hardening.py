"""Faults from the reliability audit: bounded output, bad input and broken caches or plugins
give one clear line and a non-zero exit (or a warning), never a traceback or a hang."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from gametree import display
from gametree.search.results import MoveValue, SearchResult, SearchStats

if TYPE_CHECKING:
    from conftest import CliResult


# F5: the move table of print_result is bounded; --json keeps every row.

ROWS = getattr(display, "MAX_MOVE_ROWS", 200)


def _many_moves_result(count: int) -> SearchResult:
    stats = SearchStats(
        nodes=count,
        terminals=0,
        heuristic_leaves=0,
        cutoffs=0,
        cache_probes=0,
        cache_hits=0,
        cache_stores=0,
        max_depth=1,
        seconds=0.1,
        nodes_per_second=1.0,
        nodes_per_depth=(1, count),
        iterations=10,
    )
    moves = tuple(
        MoveValue(move=f"m{i}", score=i / count - 0.5, plies_to_end=None, best=i == count - 1, visits=1, mean=0.0)
        for i in range(count)
    )
    return SearchResult(
        algorithm="mcts",
        to_move=0,
        value="unknown",
        winner=None,
        score=0.5,
        proven=False,
        plies_to_end=None,
        best_moves=(f"m{count - 1}",),
        move_values=moves,
        pv=(f"m{count - 1}",),
        depth=None,
        stats=stats,
    )


def test_print_result_bounds_the_move_table(registry, capsys, monkeypatch):
    from rich.table import Table

    game = registry.game("nim").create(heaps="3,4")
    count = 20_000
    laid_out: list[tuple[object, ...]] = []  # the rows rich is given: the work of printing grows with them
    add_row = Table.add_row

    def recorded(table: Table, *cells: Any, **options: Any) -> None:
        laid_out.append(cells)
        add_row(table, *cells, **options)

    monkeypatch.setattr(Table, "add_row", recorded)
    display.print_result(game, game.initial_state(), _many_moves_result(count))
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) < ROWS + 50, len(lines)
    assert len(laid_out) == ROWS, len(laid_out)  # not all 20,000 moves, cut afterwards
    rows = [line for line in lines if " m" in line and "│" in line]
    assert len(rows) == ROWS
    # The best rows, best first, as before.
    assert rows[0].split()[1] == f"m{count - 1}" and rows[-1].split()[1] == f"m{count - ROWS}"
    left_out = [line for line in lines if "not shown" in line]
    assert len(left_out) == 1 and f"{count - ROWS:,} more moves" in left_out[0] and "--json" in left_out[0]


def test_print_result_small_tables_are_whole(registry, capsys):
    game = registry.game("nim").create(heaps="3,4")
    display.print_result(game, game.initial_state(), _many_moves_result(ROWS))
    out = capsys.readouterr().out
    assert "not shown" not in out and "m0 " in out


def test_solve_with_many_moves_is_bounded_but_json_is_whole(gametree_cli):
    args = ("solve", "nim", "--heaps", "3000,7", "-a", "mcts", "--iterations", "10")
    out = gametree_cli(*args)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert len(text.splitlines()) < ROWS + 50
    assert f"{3007 - ROWS:,} more moves not shown" in text and "--json" in text
    data = json.loads(gametree_cli(*args, "--json").stdout)
    assert len(data["move_values"]) == 3007


# F16: bytes that are not UTF-8 on stdin, decoded strictly: one error line, exit 1.


def _strict_env(**extra: str) -> dict[str, str]:
    return {"PYTHONIOENCODING": "utf-8:strict", **extra}


def _one_error_line(out: CliResult) -> str:
    err = out.stderr
    assert out.returncode == 1, (out.returncode, err)
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), err
    return lines[0]


def test_batch_stdin_with_invalid_utf8_is_one_error_line(gametree_cli):
    for env in (None, _strict_env()):
        line = _one_error_line(gametree_cli("solve", "connect4", "--batch", "-", input=b"\xff\xfe\n", env=env))
        assert "cannot read" in line and "decode" in line


def test_play_stdin_with_invalid_utf8_is_one_error_line(gametree_cli):
    line = _one_error_line(gametree_cli("play", "tictactoe", input=b"\xff\xfe\n", env=_strict_env()))
    assert "cannot read the input" in line and "decode" in line
    # After a good move, too (the first line is read and played, the second is not text).
    line = _one_error_line(gametree_cli("play", "tictactoe", input=b"B2\n\xff\n", env=_strict_env()))
    assert "cannot read the input" in line


def test_terminal_ask_raises_play_error_on_undecodable_input():
    import io

    import pytest

    from gametree.play import PlayError
    from gametree.terminal import Terminal

    stdin = io.TextIOWrapper(io.BytesIO(b"\xff\xfe\n"), encoding="utf-8", errors="strict")
    ui = Terminal(stdin, io.StringIO(), fancy=False)
    with pytest.raises(PlayError, match="cannot read the input"):
        ui.ask("move: ")


# F19: a malformed plugin cache (too deeply nested, wrong shapes, non-string fields) is a miss, rewritten.


def _cache_file(folder) -> object:
    files = sorted(folder.glob("entry-points-*.json"))
    assert len(files) == 1, files
    return files[0]


def test_deeply_nested_cache_file_is_a_miss_and_rewritten(gametree_cli, tmp_path):
    folder = tmp_path / "cache"
    env = {"GAMETREE_CACHE_DIR": str(folder), "GAMETREE_PLUGIN_CACHE": None}
    first = gametree_cli("games", env=env)
    assert first.returncode == 0, first.stderr
    cache = _cache_file(folder)
    cache.write_text("[" * 100_000)
    out = gametree_cli("games", env=env)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and out.stdout == first.stdout
    kept = json.loads(cache.read_text())  # valid JSON again
    assert isinstance(kept, dict) and kept["entry_points"]


def test_malformed_cache_shapes_are_misses(tmp_path, monkeypatch):
    import pytest

    from gametree.plugin.entrypoints import entry_point_list

    folder = tmp_path / "cache"
    monkeypatch.setenv("GAMETREE_CACHE_DIR", str(folder))
    monkeypatch.delenv("GAMETREE_PLUGIN_CACHE", raising=False)
    right = entry_point_list()
    cache = _cache_file(folder)
    good = json.loads(cache.read_text())
    assert right and entry_point_list() == right  # read back from the cache
    bad = [
        "[" * 100_000,
        "[]",
        "3",
        json.dumps({**good, "entry_points": 5}),
        json.dumps({**good, "entry_points": {"a": 1}}),
        json.dumps({**good, "entry_points": [[1, 2, 3]]}),
        json.dumps({**good, "entry_points": [["a", "b"]]}),
        json.dumps({**good, "entry_points": [["a", "b", None]]}),
        json.dumps({**good, "entry_points": ["abc"]}),
        json.dumps({k: v for k, v in good.items() if k != "entry_points"}),
    ]
    for text in bad:
        cache.write_text(text)
        try:
            assert entry_point_list() == right, text[:60]
        except RecursionError:  # pragma: no cover - the fault itself
            pytest.fail("RecursionError escaped")
        assert json.loads(cache.read_text()) == good, text[:60]


# F9: a plugin that never finishes its import or its registration is given up, with one line.


def test_a_plugin_that_loops_forever_is_given_up(gametree_cli, tmp_path):
    (tmp_path / "loops_at_import.py").write_text("while True:\n    pass\n")
    (tmp_path / "loops_in_hook.py").write_text(
        "from gametree import hookimpl\n\n@hookimpl\ndef gametree_register_games(registry):\n"
        "    while True:\n        pass\n"
    )
    for module, what in (("loops_at_import", "its import"), ("loops_in_hook", "its hook gametree_register_games")):
        # (the helper's timeout fails the test if it hangs)
        out = gametree_cli("-p", module, "games", path=tmp_path, env={"GAMETREE_PLUGIN_SECONDS": "1"})
        lines = out.stderr.strip().splitlines()
        assert out.returncode == 1 and len(lines) == 1, out.stderr
        assert lines[0].startswith(f"Error: -p {module}: ") and f"{what} did not finish within 1 s" in lines[0], lines


EOF_PLUGIN = """
from gametree import GameSpec, hookimpl
from gametree_builtins.games.tictactoe import TicTacToe


class EOFGame(TicTacToe):
    def legal_moves(self, state):
        raise EOFError("the rules file ended early")


@hookimpl
def gametree_register_games(registry):
    registry.add_game(GameSpec(name="eofgame", factory=EOFGame, summary="raises EOFError"))
"""


def test_an_eof_error_from_a_plugin_is_an_error_not_ctrl_c(gametree_cli, tmp_path):
    """Issue 32, F7: an EOFError that is not the end of a person's input (which the session handles
    where it reads) was reported as Ctrl-C ('interrupted', exit 130), hidden even with GAMETREE_DEBUG."""
    (tmp_path / "eofgame.py").write_text(EOF_PLUGIN)
    done = gametree_cli("-p", "eofgame", "solve", "eofgame", "--no-store", "--engine", "python", path=tmp_path)
    assert done.returncode == 1, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("Error: unexpected EOFError: the rules file ended early (raised in legal_moves, ")
    assert "interrupted" not in done.stderr
    debug = gametree_cli(
        "-p",
        "eofgame",
        "solve",
        "eofgame",
        "--no-store",
        "--engine",
        "python",
        path=tmp_path,
        env={"GAMETREE_DEBUG": "1"},
    )
    assert debug.returncode == 1 and "Traceback" in debug.stderr and "EOFError" in debug.stderr
