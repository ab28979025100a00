"""Long work is never silent and stays exact: the solver's value first, then each move's score
as it is proven, time limits that keep it exact, progress a display can read, Ctrl-C that keeps
what was proven (issue 22)."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import signal
import threading
import time
from typing import TYPE_CHECKING

import pytest

from gametree import play_text
from gametree.search import solver
from gametree.search.progress import SolveProgress
from gametree.session import Seat, Session
from gametree.terminal import Terminal

if TYPE_CHECKING:
    from conftest import GametreeCli

ENGINES = [
    "python",
    pytest.param(
        "compiled", marks=pytest.mark.skipif(not __import__("importlib").util.find_spec("numba"), reason="needs numba")
    ),
]


@pytest.fixture(scope="module")
def ttt44(registry):
    return registry.game("tictactoe").create(size=4, k=3)


@pytest.mark.parametrize("engine", ENGINES)
def test_root_first_then_every_move_as_it_is_proven(registry, engine):
    game = registry.game("tictactoe").create(size=3)
    state = play_text(game, "A1")
    events: list[tuple[str, object]] = []
    progress = SolveProgress(
        on_root=lambda p: events.append(("root", (p.score, p.best, len(p.scored), p.low, p.high))),
        on_move=lambda p, move, score: events.append(("move", (move, score))),
    )
    result = solver(game, state, engine=engine, progress=progress)
    full = solver(game, state, engine=engine)
    assert result.move_values == full.move_values and (result.unscored, result.cut_short) == ((), None)
    # The root's value and a best move come first, before any move is scored...
    assert events[0] == ("root", (result.score, result.best_moves[0], 0, result.score, result.score))
    # ... then every move once, the best move first, each with its proven score.
    scored = [value for kind, value in events[1:] if kind == "move"]
    assert scored[0] == (result.best_moves[0], result.score)
    assert sorted(scored) == sorted((mv.move, mv.score) for mv in result.move_values)
    # (the compiled engine's lines of play count too: after the statistics, which count the searches)
    assert progress.phase == "done" and progress.nodes() >= result.stats.nodes > 0


@pytest.mark.parametrize("engine", ENGINES)
def test_analysis_time_keeps_what_was_proven_and_lists_the_rest(ttt44, engine):
    """No time at all for the moves: the best move's score (proven with the root) and nothing else."""
    state = play_text(ttt44, "B2")
    full = solver(ttt44, state, engine=engine)
    cut = solver(ttt44, state, engine=engine, analysis_time=0.0)
    assert cut.proven and (cut.score, cut.value, cut.cut_short) == (full.score, full.value, "time")
    assert [mv.move for mv in cut.move_values] == [cut.best_moves[0]] and cut.best_moves[0] in full.best_moves
    assert sorted(cut.unscored + (cut.best_moves[0],)) == sorted(mv.move for mv in full.move_values)
    # The line of play of the best move is still followed to the end.
    assert cut.pv == full.pv[: len(cut.pv)] or len(cut.pv) == len(full.pv)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_time_limit_proven_in_time_is_the_exact_answer(ttt44, engine):
    state = play_text(ttt44, "B2 C3")
    full = solver(ttt44, state, engine=engine)
    timed = solver(ttt44, state, engine=engine, time_limit=60)
    assert (timed.proven, timed.score, timed.move_values, timed.best_moves, timed.cut_short) == (
        True,
        full.score,
        full.move_values,
        full.best_moves,
        None,
    )


def test_out_of_time_a_best_guess_with_the_proven_range(registry):
    """5x5 k=4 (a draw) cannot be proven in 0.2 s on the Python engine: the answer is iterative
    deepening's guess, unproven, with the range the solver proved before the time ran out."""
    game = registry.game("tictactoe").create(size=5, k=4)
    result = solver(game, engine="python", time_limit=0.2)
    assert (result.proven, result.value, result.algorithm, result.cut_short) == (False, "unknown", "solver", "time")
    assert result.score_bounds is not None and result.score_bounds[0] <= 0 <= result.score_bounds[1]
    assert -1 < result.score < 1 and result.depth >= 1 and result.best_moves and len(result.move_values) == 25


def _sampled(progress: SolveProgress, search):
    """``search()``'s result, and the node counts another thread read from ``progress`` every 10 ms meanwhile."""
    seen: list[int] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.01):
            seen.append(progress.nodes())

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        return search(), seen
    finally:
        done.set()
        sampler.join()


@pytest.mark.parametrize("engine", ENGINES)
def test_progress_counts_nodes_while_the_search_runs(registry, engine):
    """Another thread sees the node count grow during one search (the compiled engine runs without
    holding the interpreter lock, and counts in an array the display reads)."""
    # About half a second of search on each engine.
    game = (
        registry.game("tictactoe").create(width=5, height=4, k=4)
        if engine == "python"
        else registry.game("connect4").create(width=6, height=5)
    )
    progress = SolveProgress()
    result, seen = _sampled(progress, lambda: solver(game, engine=engine, all_moves=False, progress=progress))
    growing = [n for n in seen if 0 < n <= result.stats.nodes]
    assert len(set(growing)) >= 2 and growing == sorted(growing), (seen[:20], result.stats.nodes)


@pytest.fixture
def ctrl_c():
    """Ctrl-C raises KeyboardInterrupt here, even in a run started with SIGINT ignored (a background job)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("engine", ENGINES)
def test_ctrl_c_while_moves_are_scored_keeps_what_was_proven(registry, engine, ctrl_c, wait_until):
    """interruptible: Ctrl-C (SIGINT, while a move other than the best is searched) ends the scoring of
    the moves only."""
    game = registry.game("tictactoe").create(width=6, height=5, k=4)  # its moves take seconds to score
    progress = SolveProgress()

    def interrupt_while_a_move_is_searched() -> None:  # (from another thread, as a terminal's Ctrl-C comes)
        wait_until(lambda: progress.current is not None, "a move being scored")
        searched = progress.nodes()
        wait_until(lambda: progress.nodes() > searched, "the move's search counting nodes")
        signal.raise_signal(signal.SIGINT)

    threading.Thread(target=interrupt_while_a_move_is_searched, daemon=True).start()
    # (analysis_time: should Ctrl-C not come, the test fails in 30 s instead of running for an hour)
    result = solver(game, engine=engine, interruptible=True, progress=progress, analysis_time=30)
    assert (result.proven, result.score, result.cut_short) == (True, 10, "interrupt")
    assert result.unscored and len(result.move_values) + len(result.unscored) == 30
    assert {mv.move for mv in result.move_values} == {move for move, _ in progress.scored}
    assert all(mv.score <= 10 for mv in result.move_values) and "C3" in result.best_moves


def test_cli_batch_keep_going_reports_bad_lines_and_solves_the_rest(gametree_cli, registry, tmp_path):
    batch = tmp_path / "positions.txt"
    batch.write_text("B2\nZ9\nA1 B1\nB2 B2\nC3, x\nA1 B2\n")
    out = gametree_cli("solve", "tictactoe", "--batch", str(batch), "--keep-going")
    assert out.returncode == 1
    game = registry.game("tictactoe").create(size=3)
    assert out.stdout.splitlines() == [
        f"{moves} {solver(game, play_text(game, moves)).score}" for moves in ("B2", "A1 B1", "A1 B2")
    ]
    errors = [line for line in out.stderr.splitlines() if line.startswith("Error:")]
    assert [line.split(":")[2] for line in errors] == ["2", "4", "5"] and all(str(batch) in line for line in errors)
    assert "3 positions" in out.stderr and "3 bad lines skipped" in out.stderr
    stop = gametree_cli("solve", "tictactoe", "--batch", str(batch))
    assert stop.returncode == 1 and stop.stdout.splitlines() == ["B2 0"] and f"{batch}:2:" in stop.stderr


def test_cli_json_interrupted_is_partial_and_exits_130(gametree_cli, registry):
    if (
        __import__("importlib").util.find_spec("numba") is not None
    ):  # numba's cache made here, for the command's first search
        solver(registry.game("tictactoe").create(width=6, height=5, k=4), engine="compiled", all_moves=False)
    # The live progress (--progress: on a terminal, beside --json) says when the value is proven and
    # the moves are being scored (about 10 s of work): then Ctrl-C.
    args = ("solve", "tictactoe", "--width", "6", "--height", "5", "--k", "4", "--analysis-time", "0")
    command = gametree_cli.watched(*args, "--json", "--progress")
    command.expect(lambda shown: "scoring moves" in shown, "the live progress scoring the moves")
    command.interrupt()
    status, out, err = command.finish(timeout=60)
    assert status == 130, err
    data = json.loads(out)
    assert (data["score"], data["cut_short"]) == (10, "interrupt") and data["unscored"], data


def _in_terminal(gametree_cli: GametreeCli, *args: str, seconds: float = 60) -> str:
    """What ``gametree ARGS`` writes to a pseudo-terminal (standard output and error together)."""
    leader, follower = pty.openpty()
    process = gametree_cli.popen(*args, stdin=follower, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    chunks = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the other end closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        elif process.poll() is not None:
            break
    process.wait(timeout=10)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


def test_cli_on_a_terminal_board_first_then_value_then_live_progress_then_table(gametree_cli):
    text = _in_terminal(
        gametree_cli, "solve", "tictactoe", "--width", "6", "--height", "5", "--k", "4", "--analysis-time", "1.5"
    )
    board, proven, result = text.find("A . . . . . ."), text.find("Proven in"), text.find("Result:")
    assert 0 <= board < proven < result, text[-3000:]
    assert "scoring moves" in text[proven:result]  # the live display, on standard error
    assert "Partial:" in text[result:] and "not scored" in text[result:]


def test_cli_no_progress_off_a_terminal_and_with_json(gametree_cli):
    out = gametree_cli("solve", "tictactoe", "--width", "6", "--height", "5", "--k", "4", "--best-only", "--json")
    assert out.returncode == 0 and out.stderr == "" and json.loads(out.stdout)["score"] == 10


def _session(game, seats, text: str, **options) -> tuple[Session, str]:
    out = io.StringIO()
    session = Session(game, seats, Terminal(stdin=io.StringIO(text), stdout=out, fancy=False), seed=1, **options)
    session.play_games()
    return session, out.getvalue()


def test_hint_on_a_big_board_is_a_best_guess_within_its_time(registry):
    game = registry.game("connect4").create()
    human = registry.players["human"]()
    session, text = _session(
        game, (Seat("human", human), Seat("random", registry.players["random"]())), "hint\nquit\n", hint_seconds=0.3
    )
    assert "Not proven in 0.3 s" in text and "Best guess:" in text and session.ended == "quit"
    small = registry.game("connect4").create(width=4, height=4)
    _, text = _session(small, (Seat("human", human), Seat("random", registry.players["random"]())), "hint\nquit\n")
    assert "Under perfect play" in text and text.count("draw") == 4


def test_ctrl_c_during_hint_or_the_computers_move_returns_to_the_prompt(registry, ttt3, monkeypatch):
    human = registry.players["human"]()

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Session, "hint", stopped)
    session, text = _session(ttt3, (Seat("human", human), Seat("random", registry.players["random"]())), "hint\nquit\n")
    assert "Hint stopped." in text and session.ended == "quit"

    class Slow:
        """A computer player stopped by Ctrl-C the first time it thinks."""

        human = False
        calls = 0

        def choose(self, game, state, rng):
            Slow.calls += 1
            if Slow.calls == 1:
                raise KeyboardInterrupt
            return next(iter(game.legal_moves(state)))

    session, text = _session(ttt3, (Seat("human", human), Seat("slow", Slow())), "B2\nA1\nquit\n")
    assert "your last move is taken back" in text and "Took back B2." in text and session.ended == "quit"
    # The game went on from before B2: A1 was played, then the computer's reply.
    assert Slow.calls == 2


def test_mcts_reports_its_nodes_as_it_goes(registry):
    from gametree.search import mcts

    game = registry.game("connect4").create(width=5, height=4)
    progress = SolveProgress()
    result, seen = _sampled(progress, lambda: mcts(game, iterations=20_000, seed=1, progress=progress))
    growing = [n for n in seen if 0 < n <= result.stats.nodes]
    assert len(set(growing)) >= 2 and growing == sorted(growing) and progress.phase == "done", (
        seen[:10],
        result.stats.nodes,
    )


@pytest.mark.parametrize("name", ["alphabeta", "minimax"])
def test_alphabeta_and_minimax_report_their_progress_too(registry, name):
    from gametree.search import search

    game = registry.game("tictactoe").create(size=3)
    seen: list[tuple[str, float, int]] = []
    progress = SolveProgress(on_move=lambda p, move, score: seen.append((move, score, p.nodes())))
    result = search(name, game, moves="A1", progress=progress)
    assert [(move, score) for move, score, _ in seen] == [(mv.move, mv.score) for mv in result.move_values]
    counts = [nodes for _, _, nodes in seen]
    assert counts == sorted(counts) and counts[-1] == result.stats.nodes and progress.engine == "python"


def test_a_time_limit_bounds_the_lines_of_play_too(registry):
    """The value is proven at once (the store holds it), the line to the end of 6x5 Connect Four
    would take minutes on the Python engine: past the time limit, the answer comes without it
    (seen in 'play' hints on 7x6: 10 s for a hint given 1.5 s)."""
    from gametree.search import Solver
    from gametree.search.known import canonical_keyer
    from gametree.store import MemoryEntries

    game = registry.game("connect4").create(width=6, height=5)
    book = MemoryEntries("connect4", game.options())
    key, start = canonical_keyer(game), game.initial_state()
    book.put_many(
        [(key(start), 0), (key(game.play(start, game.parse_move(start, "3"))), 0)]
    )  # (6x5 is a draw; so is every first move)
    # (every move asked for: the store cannot answer alone, and the other moves' scores use up the time)
    result = Solver(game, engine="python", store=book).solve(time_limit=0.5)
    assert (result.proven, result.score, result.pv, result.plies_to_end, result.cut_short) == (
        True,
        0,
        ("3",),
        None,
        "time",
    )
