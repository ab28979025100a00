"""The compiled engine: the same answers as the Python engine, chosen as asked, within its memory,
cached on disk, stopped by Ctrl-C.  (The published and brute-force oracles run on both engines
through the ``exact_search`` fixture; this file checks what is particular to the choice.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import interrupt_when_searching
from gametree import TranspositionTable, UnsupportedGameError, load, play_text
from gametree.search import Solver, run
from gametree.search.compiled import AUTO_PLIES, CompiledEngine, engines_of, use_compiled
from gametree.search.engine import Engine
from gametree_builtins.games.connect4 import ConnectFour

if TYPE_CHECKING:
    from collections.abc import Callable

    from conftest import GametreeCli

pytest.importorskip("numba")


def same_answers(game, state=None, **options) -> None:  # type: ignore[no-untyped-def]
    """Both engines: the same score, best moves, every move's score and line length, and principal variation."""
    python = run(game, state, algorithm="solver", engine="python", **options)
    compiled = run(game, state, algorithm="solver", engine="compiled", **options)
    assert (compiled.value, compiled.score, compiled.best_moves, compiled.pv, compiled.plies_to_end) == (
        python.value,
        python.score,
        python.best_moves,
        python.pv,
        python.plies_to_end,
    )
    assert [(m.move, m.score, m.plies_to_end, m.best) for m in compiled.move_values] == [
        (m.move, m.score, m.plies_to_end, m.best) for m in python.move_values
    ]
    assert compiled.stats.nodes == sum(compiled.stats.nodes_per_depth) > 0


@pytest.mark.parametrize(
    ("width", "height", "k"), [(4, 4, 4), (5, 4, 4), (4, 5, 4), (5, 4, 3), (3, 5, 3), (6, 3, 4), (4, 4, 2)]
)
def test_connect4_empty_boards_give_the_same_answers(width: int, height: int, k: int) -> None:
    same_answers(ConnectFour(width, height, k))


@pytest.mark.parametrize(
    "options",
    [{"all_moves": False}, {"weak": True}, {"weak": True, "all_moves": False}, {"symmetry": False}, {"cache": False}],
)
def test_the_solvers_modes_give_the_same_answers(options: dict[str, object]) -> None:
    same_answers(ConnectFour(5, 4), **options)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=0, max_size=18))
def test_random_6x4_positions_give_the_same_answers(columns: list[int]) -> None:
    game = ConnectFour(6, 4)
    state = game.initial_state()
    for c in columns:
        if game.outcome(state) is not None:
            return
        if c in game.legal_moves(state):
            state = game.play(state, c)
    if game.outcome(state) is None:
        same_answers(game, state)


def test_auto_runs_short_searches_on_python_and_long_ones_compiled() -> None:
    game = ConnectFour(5, 4)  # 20 plies
    solver = Solver(game)
    assert isinstance(solver.engine_for(play_text(game, "3" * 4)), Engine)  # 16 plies left
    # The solver's own searches probe on Python within the node budget first (by the work, not the plies).
    assert isinstance(solver.engine_for(game.initial_state(), probe=True), Engine)
    assert solver.work is not None and not solver.work.handed_over
    solver.work.exhausted()  # (as when a probe crosses the budget)
    assert isinstance(solver.engine_for(game.initial_state(), probe=True), CompiledEngine)
    assert isinstance(solver.engine_for(play_text(game, "3" * 4)), CompiledEngine)  # built: its cost is paid
    assert not use_compiled(game, "auto", AUTO_PLIES)
    assert not use_compiled(game, "python", 40)


@pytest.mark.parametrize("how", ["solve", "score"])
def test_a_probe_past_its_node_budget_hands_the_search_over_exactly(how: str) -> None:
    """5x4 Connect Four from the empty board takes the Python engine about 30,000 nodes: with a
    budget of 2,000 the probe stops, and the compiled engine gives the answer, the same."""
    game = ConnectFour(5, 4)
    expected = run(game, algorithm="solver", engine="python", all_moves=False)
    solver = Solver(game)
    assert solver.work is not None
    solver.work.budget = 2_000
    if how == "solve":
        result = solver.solve(all_moves=False)
        assert (result.score, result.best_moves, result.pv) == (expected.score, expected.best_moves, expected.pv)
        assert result.stats.nodes == sum(result.stats.nodes_per_depth) > 0  # the compiled engine's search alone
    else:
        assert solver.score().score == expected.score
    assert solver.work.handed_over and isinstance(solver.engine, CompiledEngine)


def test_a_solve_that_scores_every_move_does_not_probe() -> None:
    """Scoring every move after the value, a probe that ran out would start again: such a solve
    chooses by the plies left (and Ctrl-C while the moves are scored keeps what was proven)."""
    game = ConnectFour(5, 4)
    solver = Solver(game)
    assert solver.work is not None
    solver.solve(play_text(game, "33"), pv=False)
    assert isinstance(solver.engine, CompiledEngine) and solver.work.nodes == 0


def test_an_engine_asked_for_from_outside_is_chosen_by_the_plies_left_and_never_stops_on_the_budget() -> None:
    """The parallel solver's workers search with the engine they ask for (no probe): the compiled
    one for a long search, as before; the Python one, even after a probe, is unbounded."""
    game = ConnectFour(5, 4)
    solver = Solver(game)
    state = play_text(game, "33")  # 18 plies left
    assert solver.work is not None
    expected = solver.score(state).score  # a probe, within the budget
    assert isinstance(solver.engine, Engine) and not solver.work.handed_over
    solver.work.budget = solver.work.nodes + 1  # a next probe could search 1 node
    engine = solver.engine_for(play_text(game, "3" * 4))  # 16 plies left: Python, unbounded
    assert isinstance(engine, Engine)
    assert engine.exact(state) == expected
    assert isinstance(solver.engine_for(state), CompiledEngine)  # 18 plies left, no probe: compiled


def test_a_probe_within_its_budget_stays_on_python_and_a_batch_projects_its_work() -> None:
    game = ConnectFour(5, 4)
    state = play_text(game, "33")  # 18 plies left, a few thousand nodes
    solver = Solver(game)
    assert solver.work is not None
    scored = solver.score(state)
    assert isinstance(solver.engine, Engine) and solver.work.nodes == scored.nodes > 0
    assert not solver.work.handed_over
    batch = Solver(game)
    batch.expect(10_000)  # so many positions like this one: past the budget
    assert batch.score(state).score == scored.score
    assert isinstance(batch.engine_for(state), CompiledEngine)
    python = Solver(game, engine="python")
    python.expect(10_000)
    python.score(state)
    assert python.work is None and isinstance(python.engine, Engine)


def test_compiled_where_it_cannot_be_is_a_one_line_error() -> None:
    registry = load()
    with pytest.raises(UnsupportedGameError, match="no compiled rules"):
        Solver(registry.game("nim").create(), engine="compiled")
    big = ConnectFour(10, 10)  # 110 bits: no compiled rules for this board
    with pytest.raises(UnsupportedGameError, match="for this board"):
        Solver(big, engine="compiled")
    assert engines_of(big) == (("python",), "no compiled rules for this board")
    assert engines_of(ConnectFour()) == (("compiled", "python"), "")
    with pytest.raises(ValueError, match="depth limit"):
        run(ConnectFour(5, 4), algorithm="solver", engine="compiled", depth=3)


def test_auto_falls_back_to_python_where_there_are_no_compiled_rules() -> None:
    big = ConnectFour(9, 7)  # 9 * 8 = 72 bits
    assert isinstance(Solver(big).engine_for(big.initial_state()), Engine)


@pytest.mark.parametrize(
    ("size", "most"), [("1MB", 1 << 20), ("64kb", 64 << 10), ("2", 2 * 200)]
)  # (2 entries of the Python table's 200 bytes)
def test_the_compiled_table_keeps_within_the_cache_size(size: str, most: int) -> None:
    from gametree.search.table import parse_cache_size

    game = ConnectFour(6, 5)
    solver = Solver(game, cache=parse_cache_size(size), engine="compiled")
    result = solver.solve(all_moves=False, pv=False)
    assert result.score == 0
    engine = solver.engine
    assert isinstance(engine, CompiledEngine)
    assert 0 < engine.table_bytes() <= most


def test_the_default_table_grows_with_the_work(monkeypatch: pytest.MonkeyPatch) -> None:
    from gametree.search import compiled

    monkeypatch.setattr(compiled, "default_compiled_bytes", lambda: 64 << 20)  # (a machine's large cache)
    game = ConnectFour()
    solver = Solver(game, cache=TranspositionTable(), engine="compiled")
    late = play_text(game, "4444433332222211111")  # 23 plies left: a small table
    solver.solve(late, all_moves=False, pv=False)
    small = solver.engine.table_bytes()  # type: ignore[union-attr]
    solver.solve(play_text(game, "44444333"), all_moves=False, pv=False)  # 34 plies left: larger
    assert solver.engine.table_bytes() > small  # type: ignore[union-attr]
    assert (
        solver.solve(late, all_moves=False, pv=False).score
        == run(game, late, algorithm="solver", engine="python", all_moves=False).score
    )


def test_cli_engine_option(gametree_cli: GametreeCli) -> None:
    python = gametree_cli("solve", "connect4", "--width", "5", "--height", "4", "--json", "--engine", "python")
    compiled = gametree_cli("solve", "connect4", "--width", "5", "--height", "4", "--json", "--engine", "compiled")
    assert python.returncode == compiled.returncode == 0, (python.stderr, compiled.stderr)
    a, b = json.loads(python.stdout), json.loads(compiled.stdout)
    game = ConnectFour(5, 4)
    for result, engine in ((a, "python"), (b, "compiled")):  # each run on the engine asked for
        assert result.pop("stats")["nodes"] == run(game, algorithm="solver", engine=engine).stats.nodes
    assert a == b
    state = play_text(game, "3")
    for engine in ("python", "compiled"):
        out = gametree_cli(
            *f"solve connect4 --width 5 --height 4 --batch - --json --engine {engine}".split(), input="3\n"
        )
        assert json.loads(out.stdout)["nodes"] == Solver(game, engine=engine).score(state).nodes, out.stderr
    assert gametree_cli("solve", "connect4", "-a", "minimax", "--depth", "2", "--engine", "python").returncode == 0
    refused = gametree_cli("solve", "nim", "--engine", "compiled")
    assert refused.returncode == 1 and refused.stderr.strip().splitlines() == [
        "Error: Nim on heaps 3,4,5 has no compiled rules: use --engine python (or auto)"
    ]
    wrong = gametree_cli("solve", "connect4", "-a", "minimax", "--engine", "compiled")
    assert wrong.returncode == 2 and "--engine compiled does not apply to --algorithm minimax" in wrong.stderr
    games = json.loads(gametree_cli("games", "--json").stdout)
    assert {g["name"]: g["engines"] for g in games["games"]}["nim"] == ["python"]
    assert {g["name"]: g["engines"] for g in games["games"]}["connect4"] == ["compiled", "python"]


def test_a_batch_that_says_its_deepest_position_sizes_the_table_once_with_the_same_answers_and_nodes() -> None:
    """``Solver.expect(positions, deepest)``: the compiled table is made at once as large as the
    deepest position would grow it (no table moved into a larger one position by position); the
    scores and node counts are those of the table grown as the positions come."""
    game = ConnectFour()
    lines = [line.split() for line in (Path(__file__).parent / "data" / "connect4" / "pons_middle_easy.txt").open()]
    sample = [(moves, int(score)) for moves, score in lines[:30]]
    deepest = game.info.max_plies - min(len(moves) for moves, _ in sample)
    grown, sized = Solver(game, engine="compiled"), Solver(game, engine="compiled")
    sized.expect(len(sample), deepest)
    sizes = set()
    answers: dict[str, list[tuple[int, int]]] = {"grown": [], "sized": []}
    for moves, published in sample:
        for name, solver in (("grown", grown), ("sized", sized)):
            scored = solver.score(play_text(game, moves))
            assert scored.score == published
            answers[name].append((scored.score, scored.nodes))
        sizes.add(sized.engine.table_bytes())  # type: ignore[union-attr]
    assert answers["sized"] == answers["grown"]
    assert sizes == {grown.engine.table_bytes()}  # type: ignore[union-attr]  # (one size from the first search on)
    reserved = CompiledEngine(game, game.compiled_rules(), table=TranspositionTable())  # type: ignore[arg-type]
    reserved.reserve(deepest)
    assert reserved.table_bytes() == sized.engine.table_bytes()  # type: ignore[union-attr]
    limited = CompiledEngine(game, game.compiled_rules(), table=TranspositionTable(max_entries=100))  # type: ignore[arg-type]
    limited.reserve(42)  # (within the memory asked for: 100 entries of the Python table's 200 bytes)
    assert 0 < limited.table_bytes() <= 100 * 200


def test_batch_and_workers_use_the_compiled_engine(gametree_cli: GametreeCli, tmp_path: Path) -> None:
    with open(os.path.join(os.path.dirname(__file__), "data", "connect4", "pons_middle_easy.txt")) as f:
        sample = f.read().splitlines()[:40]
    batch = tmp_path / "middle.txt"
    batch.write_text("\n".join(sample) + "\n")
    out = gametree_cli("solve", "connect4", "--batch", str(batch), "--engine", "compiled")
    assert out.returncode == 0 and "40/40 matched" in out.stderr, out.stderr
    parallel = gametree_cli(
        "solve", "connect4", "--width", "5", "--height", "4", "--workers", "2", "--engine", "compiled", "--json"
    )
    single = run(ConnectFour(5, 4), algorithm="solver", engine="python")
    assert parallel.returncode == 0, parallel.stderr
    data = json.loads(parallel.stdout)
    assert (data["score"], [m["score"] for m in data["move_values"]]) == (
        single.score,
        [m.score for m in single.move_values],
    )


_CACHED = textwrap.dedent(
    """
    from gametree.search import Solver
    from gametree.search.compiled import CompiledEngine
    from gametree_builtins.games.tictactoe import TicTacToe
    solver = Solver(TicTacToe(4, 4, 3), engine="compiled")
    print(solver.solve(all_moves=False).score)
    engine = solver.engine
    assert isinstance(engine, CompiledEngine)
    print(sum(engine.search_kernel.stats.cache_hits.values()), sum(engine.search_kernel.stats.cache_misses.values()))
    """
)


def test_two_processes_at_once_compile_once_and_the_other_loads_it_from_the_disk_cache(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Two processes that meet the engine at once in an empty cache folder: one compiles it, the
    other waits for it (compile_state's lock) and loads its code from numba's cache.  Without the
    lock both compile; without keys of their own (numba_support.closure_digest) the second
    compiles again (stop 39's CI failure)."""
    env = {**os.environ, "GAMETREE_CACHE_DIR": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    started = [
        subprocess.Popen(
            [sys.executable, "-c", _CACHED], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        for _ in range(2)
    ]
    done = [p.communicate(timeout=300) for p in started]
    assert [p.returncode for p in started] == [0, 0], [err for _, err in done]
    # (the score of 4x4 tic-tac-toe, 3 in a row: a first-player win; then cache hits and misses)
    found = sorted(out.split()[1:] for out, _ in done)
    assert found == [["0", "1"], ["1", "0"]], ([err for _, err in done], sorted(os.listdir(tmp_path / "numba")))
    assert os.path.isdir(tmp_path / "numba")
    # Only the one that compiles says it compiles; the other says it waits (if it came while the lock was held).
    said = [err for _, err in done]
    assert sum("compiling the engine" in err for err in said) == 1, said
    assert all("another process compiles" not in err for err in said if "compiling the engine" in err), said


def test_ctrl_c_stops_a_compiled_search() -> None:
    """The search runs in compiled code, where Python's own handler cannot run; it stops anyway."""
    returncode, out, err = interrupt_when_searching()
    assert returncode == 130, err
    assert out.strip() == "interrupted"


def test_without_a_working_numba_everything_runs_on_python(gametree_cli: GametreeCli, tmp_path: Path) -> None:
    """A numba that cannot be imported (here, one that raises): auto searches on the Python
    engine and gives the same answer; asking for the compiled engine is a one-line error."""
    (tmp_path / "numba").mkdir()
    (tmp_path / "numba" / "__init__.py").write_text("raise ImportError('numba broken on purpose')\n")
    auto = gametree_cli("solve", "connect4", "--width", "5", "--height", "4", "--json", path=tmp_path)
    assert auto.returncode == 0, auto.stderr
    assert (
        json.loads(auto.stdout)["score"]
        == run(ConnectFour(5, 4), algorithm="solver", engine="python", all_moves=False).score
    )
    compiled = gametree_cli("solve", "connect4", "--width", "5", "--height", "4", "--engine", "compiled", path=tmp_path)
    assert compiled.returncode == 1
    assert compiled.stderr.strip().splitlines() == [
        "Error: the compiled engine cannot be loaded (numba broken on purpose): use --engine python"
    ]


_CALLBACK = textwrap.dedent(
    """
    import ctypes
    from gametree.search.numba_support import quiet_compile_interrupts

    @ctypes.CFUNCTYPE(None)
    def callback():  # as llvmlite's object-cache callback, when Ctrl-C lands in it
        raise KeyboardInterrupt

    with quiet_compile_interrupts():
        callback()
    print("inside: quiet", flush=True)
    callback()  # outside: Python's own report
    """
)


def test_a_ctrl_c_landing_in_a_callback_of_numbas_compiler_prints_no_traceback() -> None:
    """CI saw it: Ctrl-C while numba compiled the engine printed 'Exception ignored on calling
    ctypes callback function ... Traceback' (the search then stopped, as it should).  While an
    engine is built, such a dropped KeyboardInterrupt is kept off standard error."""
    out = subprocess.run([sys.executable, "-c", _CALLBACK], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout == "inside: quiet\n", out.stderr
    assert out.stderr.count("Exception ignored") == 1 and "KeyboardInterrupt" in out.stderr  # (the call outside only)
    env = {**os.environ, "GAMETREE_QUIET_COMPILE_INTERRUPTS": "0"}  # the switch that turns it off
    loud = subprocess.run([sys.executable, "-c", _CALLBACK], capture_output=True, text=True, timeout=60, env=env)
    assert loud.returncode == 0 and loud.stderr.count("Exception ignored") == 2


def _closure_over(function: Callable[[int], int], constant: object) -> Callable[[int], object]:
    def closure(x: int) -> object:
        return function(x) + constant  # type: ignore[operator]

    return closure


def test_the_cache_key_of_a_closure_follows_its_code_and_values_not_the_process() -> None:
    """numba keys the on-disk cache of a closure by a pickle of its variables, which differs from
    one process to the next (a dispatcher's random identity): the compiled closures are keyed by
    :func:`closure_digest` instead, which must change with anything their code depends on."""
    import numpy as np
    from numba import njit

    from gametree.search.numba_support import closure_digest

    def double(x: int) -> int:
        return 2 * x

    def triple(x: int) -> int:
        return 3 * x

    def key(function: Callable[[int], int], constant: object) -> str | None:
        return closure_digest(_closure_over(function, constant))

    same = key(njit(double), 1)
    assert same is not None and same == key(njit(double), 1)
    assert same != key(njit(triple), 1)  # other code
    assert same != key(njit(double), 2)  # another value
    assert same != key(njit(double), np.int32(1))  # another type
    assert key(njit(double), np.arange(3)) != key(njit(double), np.arange(4))
    assert key(njit(double), object()) is None  # (numba's own key then)
