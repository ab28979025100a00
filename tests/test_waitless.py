"""No computer move waits on numba's compile (issue 34, item 1): while the compiled engine is not
compiled, the perfect player compiles it in a background thread and answers within its time on the
Python engine, with a move marked ``guess`` where nothing was proven in that time."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gametree import load
from gametree.game import CompiledRules, Game
from gametree.search import compile_state
from gametree.search.perfect import PerfectMover

pytest.importorskip("numba")

#: How long the test's stand-in for numba's compile blocks at most (a real first compile: 15 to 60 s).
BLOCKED = 30.0


@pytest.fixture
def slow_compile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Nothing compiled (a fresh cache folder, nothing built in this process), and compiling an engine
    blocks until the event is set (at most :data:`BLOCKED` s), then fails: no real compile runs."""
    monkeypatch.setenv("GAMETREE_CACHE_DIR", str(tmp_path / "fresh"))
    monkeypatch.setattr(compile_state, "_built", set())
    monkeypatch.setattr(compile_state, "notify", lambda text: None)
    release = threading.Event()

    @contextlib.contextmanager
    def blocked(game: Game[object, object], rules: CompiledRules | None = None) -> Iterator[None]:
        release.wait(BLOCKED)
        raise RuntimeError("the test's compile is never done")
        yield  # (a generator: a context manager)

    monkeypatch.setattr(compile_state, "compiling", blocked)
    with contextlib.suppress(ImportError):  # (main before this change has no background compile)
        from gametree.search import background

        monkeypatch.setattr(background, "_threads", {})
        monkeypatch.setattr(background, "_failures", {})
    yield release
    release.set()


def test_a_perfect_move_answers_within_its_time_while_the_engine_compiles(slow_compile: threading.Event) -> None:
    """The empty 6x5 board: its value takes the Python engine minutes; the move comes within 1 s (and
    a generous margin) instead of after the compile, marked as a guess, and the compile goes on."""
    game = load().game("connect4").create(width=6, height=5)
    assert not compile_state.ready(game)
    mover = PerfectMover(game, seconds=1.0)
    started = time.perf_counter()
    choice = mover.choose(game.initial_state())
    took = time.perf_counter() - started
    assert took < 1.0 + 9.0, f"the move waited {took:.1f} s (the compile blocks {BLOCKED:.0f} s)"
    from gametree.search import background

    assert (choice.how, choice.exact) == ("guess", False)
    legal = {game.format_move(game.initial_state(), m) for m in game.legal_moves(game.initial_state())}
    assert choice.moves and set(choice.moves) <= legal
    assert background.compiling_now(game)  # the compile goes on behind the move
    slow_compile.set()
    for _ in range(100):
        if not background.compiling_now(game):
            break
        time.sleep(0.05)
    assert background.failure(game) == "RuntimeError: the test's compile is never done"
    assert not background.compile_in_background(game)  # a failed compile is not tried again


def test_a_position_python_settles_in_time_is_still_played_exactly(slow_compile: threading.Event) -> None:
    """A 6x5 position where Red wins (three in a row on the bottom, open at both ends): the Python
    engine scores every move within the time, so the move is exact (the fastest win), not a guess,
    and it does not wait on the compile either."""
    game = load().game("connect4").create(width=6, height=5)
    state = game.initial_state()
    for column in "33443322":
        state = game.play(state, game.parse_move(state, column))
    mover = PerfectMover(game, seconds=2.0, engine="auto")
    assert mover._would_compile(state)  # (22 plies left: auto would compile for a search without a time limit)
    started = time.perf_counter()
    choice = mover.choose(state)
    assert time.perf_counter() - started < 2.0 + 9.0
    truth = PerfectMover(game, seconds=60.0, engine="python").choose(state)
    assert (choice.how, choice.exact) == ("exact", True) and truth.exact
    assert (choice.value, set(choice.moves)) == (truth.value, set(truth.moves))


def test_gametree_play_with_a_fresh_cache_moves_at_once_and_says_which_moves_are_guesses(
    gametree_cli, tmp_path: Path
) -> None:
    """The command of issue 34 on a 6x5 board: nothing compiled (fresh cache folders), the perfect
    player's first moves come within its time (0.5 s here) while the engine compiles in the
    background, each marked as a guess; on main the first move waited for the whole compile."""
    started = time.perf_counter()
    done = gametree_cli(
        *("play", "connect4", "--width", "6", "--height", "5", "--x", "random", "--o", "perfect"),
        *("--seed", "3", "--delay", "0", "--no-store"),
        env={
            "GAMETREE_CACHE_DIR": str(tmp_path / "gametree"),
            "XDG_CACHE_HOME": str(tmp_path / "xdg"),
            "GAMETREE_PERFECT_SECONDS": "0.5",
        },
        timeout=120,
        check=True,
    )
    took = time.perf_counter() - started
    assert "Yellow (perfect) plays" in done.stdout and "wins after" in done.stdout
    assert "(a guess, not proven: the engine is still compiling)" in done.stdout
    assert "compiling the engine for 6x5 Connect Four" in done.stderr + done.stdout
    assert took < 40, f"the game took {took:.0f} s: a move waited on the compile"


def test_nothing_before_the_compile_notice_imports_numpy() -> None:
    """The first-compile notice comes before numba's and numpy's imports (numpy alone took 47-80 ms
    of the ~0.2 s before it, imported by the pig plugin and value iteration at load): loading gametree,
    its CLI and every installed plugin imports no numpy."""
    import subprocess
    import sys

    code = "import sys, gametree.cli; from gametree import load; load(); print('numpy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr


def test_the_live_line_shows_a_compile_only_to_a_search_that_waits_on_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """While the engine compiles in the background, a hint's search on Python shows its own progress;
    a search waiting for the compiled engine shows the compile."""
    from gametree.live import solve_text
    from gametree.search.progress import SolveProgress

    monkeypatch.setattr(compile_state, "_now", compile_state.Compiling("6x5 Connect Four", 20.0, time.perf_counter()))
    waiting, on_python = SolveProgress(), SolveProgress()
    on_python.engine = "python"
    assert solve_text(waiting).startswith("compiling the engine for 6x5 Connect Four, once: ")
    assert "compiling" not in solve_text(on_python) and "nodes" in solve_text(on_python)
