"""The compiled search's machine code loaded without numba (gametree/search/native.py): the same
scores and nodes as numba's code (the reference) and the Python engine, on Pascal Pons's sets and
other games; a damaged, cut or foreign file refused (numba's code instead, the file made again);
Ctrl-C still stops a long search; a process that runs it never imports numba."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import interrupt_when_searching
from gametree.search import Solver, native, run
from gametree.search.compiled import BYTES_PER_COMPACT_ENTRY, CompiledEngine, compiled_rules, native_wanted
from gametree.search.kernel_layout import board_constants
from gametree_builtins.games.connect4 import ConnectFour
from gametree_builtins.games.othello import Othello
from gametree_builtins.games.tictactoe import TicTacToe

pytest.importorskip("numba")
pytest.importorskip("llvmlite")

DATA = Path(__file__).parent / "data" / "connect4"


def pons(name: str, count: int) -> list[tuple[str, int]]:
    """The first ``count`` positions of Pons's set ``name`` with their published scores
    (tests/data/connect4/README: from http://blog.gamesolver.org/solving-connect-four/02-test-protocol/)."""
    rows = [line.split() for line in (DATA / f"pons_{name}_easy.txt").read_text().splitlines() if line.strip()]
    return [(moves, int(score)) for moves, score in rows[:count]]


def native_engine(game: object) -> CompiledEngine:
    """A compiled engine of ``game`` on the native code (built through numba first if its file is not there yet)."""
    rules = compiled_rules(game)  # type: ignore[arg-type]
    assert rules is not None
    engine = CompiledEngine(game, rules, table=Solver(game).table)  # type: ignore[arg-type]
    if engine.native_file is None:  # (numba's code: it saved the native object, which the next engine loads)
        engine = CompiledEngine(game, rules, table=Solver(game).table)  # type: ignore[arg-type]
    assert engine.native_file is not None
    return engine


def play(game: ConnectFour, moves: str) -> object:
    state = game.initial_state()
    for c in moves:
        state = game.play(state, int(c) - 1)
    return state


_SCORES = textwrap.dedent(
    """
    import json, sys
    from gametree.search import Solver
    from gametree_builtins.games.connect4 import ConnectFour
    game = ConnectFour()
    solver = Solver(game, engine="compiled")
    out = []
    for moves in sys.argv[1:]:
        state = game.initial_state()
        for c in moves:
            state = game.play(state, int(c) - 1)
        r = solver.score(state)
        out.append([int(r.score), r.nodes])
    print(json.dumps({"native": solver.engine.native_file is not None, "numba": "numba" in sys.modules, "out": out}))
    """
)


@pytest.mark.parametrize("name", ["middle", "end"])
def test_pons_sets_native_equals_numba_and_the_published_scores(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process on the native code (numba never imported) scores Pons's positions as published, with
    numba's node counts (the reference: the same machine code, reached through numba)."""
    native_engine(ConnectFour())
    rows = pons(name, 150)
    done = subprocess.run(
        [sys.executable, "-c", _SCORES, *(moves for moves, _ in rows)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["native"] and not answer["numba"]
    monkeypatch.setenv(native.SWITCH, "0")
    solver = Solver(ConnectFour(), engine="compiled")
    reference = []
    for moves, _ in rows:
        r = solver.score(play(ConnectFour(), moves))
        reference.append([int(r.score), r.nodes])
    assert solver.engine.native_file is None
    assert answer["out"] == reference
    assert [score for score, _ in answer["out"]] == [score for _, score in rows]


def test_pons_positions_native_equals_the_python_engine() -> None:
    """Every move's score of a few of Pons's positions: the native engine gives the Python engine's answers."""
    native_engine(ConnectFour())
    game = ConnectFour()
    for moves, score in pons("end", 4) + pons("middle", 2):
        state = play(game, moves)
        python = run(game, state, algorithm="solver", engine="python")
        compiled = run(game, state, algorithm="solver", engine="compiled")
        assert (compiled.score, compiled.best_moves, compiled.pv) == (python.score, python.best_moves, python.pv)
        assert [(m.move, m.score) for m in compiled.move_values] == [(m.move, m.score) for m in python.move_values]
        assert int(compiled.score) == score


@pytest.mark.parametrize("game", [TicTacToe(), TicTacToe(4, 3, 3), Othello(6), ConnectFour(5, 4)], ids=repr)
def test_other_games_native_equal_the_python_engine(game: object) -> None:
    """Tic-tac-toe (plain rules), Othello (a margin game with its own finish; 6x6 after 20 moves, the
    first legal one each time), a small Connect Four: the native engine's every move's score is the
    Python engine's."""
    engine = native_engine(game)
    assert engine.native_file is not None
    state = game.initial_state()  # type: ignore[attr-defined]
    while isinstance(game, Othello) and game.ply(state) < 20:
        state = game.play(state, game.legal_moves(state)[0])
    python = run(game, state, algorithm="solver", engine="python")  # type: ignore[arg-type]
    compiled = run(game, state, algorithm="solver", engine="compiled")  # type: ignore[arg-type]
    assert (compiled.score, compiled.best_moves) == (python.score, python.best_moves)
    assert [(m.move, m.score) for m in compiled.move_values] == [(m.move, m.score) for m in python.move_values]


def _tamper(path: str, how: str) -> None:
    data = Path(path).read_bytes()
    loaded = native.read(path)
    assert isinstance(loaded, native.Native)
    header = {k: v for k, v in loaded.header.items() if k not in ("format", "bytes", "sha256")}
    if how == "truncated":
        Path(path).write_bytes(data[: len(data) - 1000])
    elif how == "garbage":
        Path(path).write_bytes(b"\0" * 300)
    elif how == "flipped":  # one byte of the machine code changed
        Path(path).write_bytes(data[:-200] + bytes([data[-200] ^ 0xFF]) + data[-199:])
    elif how == "foreign cpu":
        native.write(path, {**header, "environment": {**header["environment"], "cpu": "another-cpu"}}, loaded.code)
    elif how == "other rules":
        native.write(
            path,
            {**header, "identity": {**header["identity"], "compact": not header["identity"]["compact"]}},
            loaded.code,
        )
    elif how == "changed source":
        sources = [[name, size + 1, mtime, "0" * 64] for name, size, mtime, _ in header["sources"]]
        native.write(path, {**header, "sources": sources}, loaded.code)
    elif how == "not an object":  # a well-formed file whose code is no ELF object
        native.write(path, header, b"this is no object code" * 10)
    elif how == "unknown symbol":  # an object needing a symbol no library here gives
        code = loaded.code.replace(b"numba_gil_ensure", b"numba_gil_ENSURE")
        assert code != loaded.code
        native.write(path, header, code)
    else:
        raise AssertionError(how)


@pytest.mark.parametrize(
    "how",
    [
        "truncated",
        "garbage",
        "flipped",
        "foreign cpu",
        "other rules",
        "changed source",
        "not an object",
        "unknown symbol",
    ],
)
def test_a_bad_native_file_is_refused(how: str) -> None:
    """A cut, damaged or foreign file, or one made from other sources, is not loaded (and says why)."""
    game = TicTacToe(4, 3, 3)
    engine = native_engine(game)
    path = engine.native_file
    assert path is not None
    whole = Path(path).read_bytes()
    board = board_constants(engine.rules.board)
    compact = engine.entry_bytes == BYTES_PER_COMPACT_ENTRY
    assert native.load(engine.rules, compact, board) is not None
    try:
        _tamper(path, how)
        assert native.load(engine.rules, compact, board) is None
        assert native.refusal(path)
    finally:
        Path(path).write_bytes(whole)
    assert native.load(engine.rules, compact, board) is not None


def test_a_refused_file_falls_back_to_numba_and_is_made_again() -> None:
    """An engine whose native file is refused runs numba's code, with the right answers, and saves the
    file again, which the next engine loads."""
    game = TicTacToe(4, 3, 3)
    path = native_engine(game).native_file
    assert path is not None
    _tamper(path, "truncated")
    rules = compiled_rules(game)
    assert rules is not None
    engine = CompiledEngine(game, rules, table=Solver(game).table)
    assert engine.native_file is None
    python = run(game, algorithm="solver", engine="python", all_moves=False)
    assert Solver(game, engine="compiled").solve(all_moves=False).score == python.score
    again = CompiledEngine(game, rules, table=Solver(game).table)
    assert again.native_file == path, native.refusal(path)


def test_switched_off_the_native_code_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    native_engine(TicTacToe())
    monkeypatch.setenv(native.SWITCH, "0")
    rules = compiled_rules(TicTacToe())
    assert rules is not None
    assert CompiledEngine(TicTacToe(), rules).native_file is None


def test_ctrl_c_stops_a_native_search() -> None:
    """The empty 7x6 board (minutes) on the native code: Ctrl-C stops it, as it stops numba's."""
    native_engine(ConnectFour())
    returncode, out, err = interrupt_when_searching(
        check='assert engine.native_file is not None and "numba" not in sys.modules', report='"numba" in sys.modules'
    )
    assert returncode == 130, err
    assert out.strip() == "interrupted False"


_THEN_NUMBA = textwrap.dedent(
    """
    import os, sys
    from gametree.search import Solver, run
    from gametree_builtins.games.connect4 import ConnectFour
    from gametree_builtins.games.tictactoe import TicTacToe
    solver = Solver(ConnectFour(5, 4), engine="compiled")
    first = solver.solve(all_moves=False).score
    assert solver.engine.native_file is not None and "numba" not in sys.modules
    os.environ["GAMETREE_NATIVE"] = "0"  # then a numba engine in the same process
    other = Solver(TicTacToe(4, 3, 3), engine="compiled")
    second = other.solve(all_moves=False).score
    assert other.engine.native_file is None and "numba" in sys.modules
    again = solver.solve(all_moves=False).score
    print(first, second, again)
    """
)


def test_numba_after_the_native_code_in_one_process() -> None:
    """numba imported after the native code loaded its C libraries by file: both run."""
    native_engine(ConnectFour(5, 4))
    native_engine(TicTacToe(4, 3, 3))
    done = subprocess.run([sys.executable, "-c", _THEN_NUMBA], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    c4 = run(ConnectFour(5, 4), algorithm="solver", engine="python", all_moves=False).score
    ttt = run(TicTacToe(4, 3, 3), algorithm="solver", engine="python", all_moves=False).score
    assert done.stdout.split() == [str(int(c4)), str(int(ttt)), str(int(c4))]


def test_the_file_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    """write: a temporary file renamed over the old one; read gives back header and code."""
    path = str(tmp_path / "x.native")
    native.write(path, {"identity": {}, "rules": {}}, b"code")
    loaded = native.read(path)
    assert isinstance(loaded, native.Native) and loaded.code == b"code"
    assert os.listdir(tmp_path) == ["x.native"]
    assert native.read(str(tmp_path / "missing.native")) == "cannot read it (No such file or directory)"


def test_a_search_that_can_raise_gets_no_native_code(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Through the C entry an exception would only be printed: a kernel with a place that raises is
    kept on numba's path; its file records why, so that no later process compiles the entry again."""
    from numba import njit

    from gametree.search import kernel, native_build

    @njit
    def search(board, table, w, a, b, p, h, lo, hi, mode):  # type: ignore[no-untyped-def]
        if mode == 7:
            raise ValueError("a search that can raise")
        return 0

    monkeypatch.setattr(native, "folder", lambda: str(tmp_path))  # (not the run's tic-tac-toe file)
    rules = compiled_rules(TicTacToe(3, 3, 2))
    assert rules is not None
    board = board_constants(rules.board)
    fake = kernel.Kernel(search, None, kernel.rehash, kernel.rehash_compact)
    why = native_build.save(rules, rules.functions(), True, fake, board)
    assert why is not None and "raise" in why
    assert native.load(rules, True, board) is None
    assert (native.unfit(rules, True, board) or "").startswith(native.UNFIT_WHEN_MADE)
    assert not native_wanted(rules, True, board)


_THREADS = textwrap.dedent(
    """
    import sys, threading
    from gametree.search import Solver
    from gametree_builtins.games.connect4 import ConnectFour
    from gametree_builtins.games.tictactoe import TicTacToe
    barrier, scores, files = threading.Barrier(4), {}, set()

    def solve(i):
        game = ConnectFour(5, 4) if i % 2 else TicTacToe(4, 3, 3)
        barrier.wait()  # (all four load and search at once: one MCJIT engine an object, the GIL let go)
        solver = Solver(game, engine="compiled")
        scores[i] = int(solver.solve(all_moves=False).score)
        files.add(solver.engine.native_file)

    threads = [threading.Thread(target=solve, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert None not in files and len(files) == 2 and "numba" not in sys.modules, files
    print(*(scores[i] for i in range(4)))
    """
)


def test_threads_load_and_search_at_once() -> None:
    """Four threads load two native objects and search them at once: each gives its game's score."""
    native_engine(ConnectFour(5, 4))
    native_engine(TicTacToe(4, 3, 3))
    done = subprocess.run([sys.executable, "-c", _THREADS], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    c4 = int(run(ConnectFour(5, 4), algorithm="solver", engine="python", all_moves=False).score)
    ttt = int(run(TicTacToe(4, 3, 3), algorithm="solver", engine="python", all_moves=False).score)
    assert done.stdout.split() == [str(ttt), str(c4), str(ttt), str(c4)]


def test_a_background_compile_writes_no_native_code(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A background compile (gametree.search.background) runs in a daemon thread, which the
    interpreter's exit does not wait for: its process writes no native file (that long call into
    LLVM, cut off by the exit, crashed a process in CI); the next process that builds it does."""
    from gametree.search import background, compiled

    monkeypatch.setattr(native, "folder", lambda: str(tmp_path))
    monkeypatch.setattr(compiled, "NO_NATIVE_FROM", set())
    game = ConnectFour(5, 4)
    rules = compiled_rules(game)
    assert rules is not None
    board = board_constants(rules.board)
    assert native_wanted(rules, True, board)  # (no file in the folder)
    monkeypatch.setattr(background, "_threads", {})
    monkeypatch.setattr(background.compile_state, "ready", lambda game, rules=None: False)
    assert background.compile_in_background(game) or background.failure(game) is None
    background._threads[background.compile_state.game_id(game)].join(120)
    assert background.failure(game) is None
    later = CompiledEngine(game, rules)  # (the same process, after it: writes none either)
    assert later.native_file is None and os.listdir(tmp_path) == []
    assert later.exact(game.initial_state()) == 0
