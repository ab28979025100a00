"""Parallel and distributed solving give exactly the single-process answer."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from gametree import alphabeta, play_text, solver
from gametree.runtime.errors import ParallelError
from gametree.search.parallel import solve_parallel, split

if TYPE_CHECKING:
    from conftest import GametreeCli


def _answer(result):
    return (
        result.value,
        result.winner,
        result.score,
        result.best_moves,
        [(mv.move, mv.score, mv.best, mv.plies_to_end) for mv in result.move_values],
    )


def _check_line(game, state, result):
    """The principal variation is legal, ends the game, and ends it as the score says."""
    for text in result.pv:
        state = game.play(state, game.parse_move(state, text))
    out = game.outcome(state)
    assert out is not None and len(result.pv) == result.plies_to_end
    assert out.winner == result.winner


@pytest.fixture(scope="module")
def cases(registry):
    ttt43 = registry.game("tictactoe").create(size=4, k=3)
    c4 = registry.game("connect4").create(width=4, height=4)
    nim = registry.game("nim").create()
    ttt3 = registry.game("tictactoe").create(size=3)
    return [
        (ttt3, ttt3.initial_state()),
        (ttt43, play_text(ttt43, "B2")),
        (c4, c4.initial_state()),
        (nim, nim.initial_state()),
    ]


def test_subproblems_are_distinct_canonical_positions(ttt3):
    # Positions of 3x3 tic-tac-toe up to symmetry after 1, 2, 3 moves: 3, 12, 38.
    assert [len(split(ttt3, ttt3.initial_state(), target=0, ply=p).subproblems) for p in (1, 2, 3)] == [3, 12, 38]
    keys = {ttt3.canonical_key(s) for s in split(ttt3, ttt3.initial_state(), target=0, ply=3).subproblems.values()}
    assert len(keys) == 38
    assert split(ttt3, ttt3.initial_state(), target=10).ply == 2  # the shallowest ply with enough subproblems


@pytest.mark.parametrize("ply", [1, 2, 3])
def test_in_process_split_equals_single_process(cases, ply):
    for game, state in cases:
        for algorithm, single in (("solver", solver), ("alphabeta", alphabeta)):
            result = solve_parallel(game, state, workers=1, algorithm=algorithm, split_ply=ply)
            assert _answer(result) == _answer(single(game, state)), (game, algorithm, ply)
            _check_line(game, state, result)


def test_two_processes_equal_single_process(cases):
    seen = []
    for game, state in cases:
        result = solve_parallel(game, state, workers=2, progress=lambda done, total: seen.append((done, total)))
        assert _answer(result) == _answer(solver(game, state)), game
        _check_line(game, state, result)
    assert seen and all(0 <= done <= total for done, total in seen) and seen[-1][0] == seen[-1][1] > 0


def test_bad_requests(ttt3):
    with pytest.raises(ParallelError, match="exact algorithm"):
        solve_parallel(ttt3, algorithm="mcts")
    with pytest.raises(ParallelError, match="at least 1"):
        solve_parallel(ttt3, workers=0)


def test_dask_cluster_gives_the_same_answer(registry):
    distributed = pytest.importorskip("distributed", reason="Dask is an optional extra: pip install 'gametree[dask]'")
    game = registry.game("connect4").create(width=4, height=4)
    ttt43 = registry.game("tictactoe").create(size=4, k=3)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        result = solve_parallel(game, scheduler=cluster.scheduler_address)
        assert _answer(result) == _answer(solver(game))
        _check_line(game, game.initial_state(), result)
        if importlib.util.find_spec("numba") is not None:  # the workers on the compiled engine
            compiled = solve_parallel(game, scheduler=cluster.scheduler_address, engine="compiled")
            assert _answer(compiled) == _answer(solver(game, engine="python"))
        with distributed.Client(cluster) as client:
            state = play_text(ttt43, "B2 A1")
            assert _answer(solve_parallel(ttt43, state, scheduler=client, algorithm="alphabeta")) == _answer(
                alphabeta(ttt43, state)
            )


@pytest.mark.parametrize("algorithm", ["solver", "alphabeta"])
def test_cancelling_a_dask_solve_stops_the_task_running_on_a_worker(registry, algorithm, one_dask_worker):
    """Ctrl-C in a solve on Dask: the subproblem running on a worker stops (Dask
    cannot interrupt a running function; a thread of the task sees the solve's stop event and
    halts the search engine), and the worker's kept solver, resumed, solves the next position.
    Before, the worker searched on: a subproblem of 7x6 Connect Four kept it busy for more than
    300 s after the cancel on the Python engine (79 s on the compiled one: see the next test)."""
    game = registry.game("connect4").create()
    one_dask_worker.interrupt_once_busy()
    with pytest.raises(KeyboardInterrupt):
        solve_parallel(game, scheduler=one_dask_worker.cluster.scheduler_address, algorithm=algorithm, engine="python")
    one_dask_worker.wait_free()
    late = play_text(game, "4444443333332222")
    again = solve_parallel(game, late, scheduler=one_dask_worker.client, algorithm=algorithm, engine="python")
    assert _answer(again) == _answer(solver(game, late, engine="python"))


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_a_stopped_subproblem_halts_its_engine_and_the_kept_solver_goes_on(registry, engine):
    """What a Dask task does when its solve is cancelled, in this process: ``stopped()`` turns true,
    the search ends with Stopped, and the thread's kept solver (its engine
    resumed) solves the next subproblem.  The engine is built first (numba may compile it)."""
    import functools
    import threading

    from gametree.runtime.stops import Stopped, run_stoppable
    from gametree.search.parallel import WORKER_TABLE_ENTRIES, _solve_task, _Task, _worker_solver

    if engine == "compiled":
        pytest.importorskip("numba")
    game = registry.game("connect4").create()
    state = play_text(game, "4")  # hours of search on the Python engine, minutes on the compiled one
    late = play_text(game, "4444443333332222")
    asked, stop = threading.Event(), threading.Event()
    outcome: list[object] = []

    def stopped() -> bool:
        """The task's question, asked by its watching thread while the work runs."""
        asked.set()
        return stop.is_set()

    def worker() -> None:  # (a Dask worker's thread: its kept solver is per thread)
        _worker_solver(game, WORKER_TABLE_ENTRIES, engine).engine_for(state)
        try:
            task = _Task(game, state, "solver", WORKER_TABLE_ENTRIES, None, engine)
            outcome.append(run_stoppable(functools.partial(_solve_task, task), stopped))
        except BaseException as exc:
            outcome.append(exc)
        outcome.append(_solve_task(_Task(game, late, "solver", WORKER_TABLE_ENTRIES, None, engine)))

    thread = threading.Thread(target=worker, daemon=True)
    thread.start()
    assert asked.wait(120)  # the search is under way (its engine was built first) and its watcher asks
    stop.set()
    # A hang guard, not a speed claim: the search, not halted, would run for minutes to hours; the
    # outcome below (Stopped) shows it ended because it was halted.
    thread.join(120)
    assert not thread.is_alive()
    assert isinstance(outcome[0], Stopped), outcome
    assert outcome[1].score == solver(game, late, engine="python").score


# -- command line ---------------------------------------------------------------------------
def test_cli_workers_equal_one_process(gametree_cli):
    base = ("solve", "tictactoe", "--size", "4", "--k", "3", "--moves", "B2 A1", "--json")
    single = json.loads(gametree_cli(*base).stdout)
    out = gametree_cli(*base, "--workers", "2", "--split-ply", "2")
    assert out.returncode == 0, out.stderr
    both = json.loads(out.stdout)
    for field in ("value", "winner", "score", "best_moves", "plies_to_end"):
        assert both[field] == single[field], field
    assert [(m["move"], m["score"]) for m in both["move_values"]] == [
        (m["move"], m["score"]) for m in single["move_values"]
    ]


@pytest.mark.parametrize(
    "args, needle",
    [
        (("--workers", "2", "-a", "mcts"), "exact algorithm"),
        (("--workers", "2", "--depth", "2"), "--depth"),
        (
            (
                "--split-ply",
                "2",
            ),
            "--split-ply needs",
        ),
        (
            (
                "--workers",
                "0",
            ),
            "--workers",
        ),
    ],
)
def test_cli_bad_parallel_flags_are_one_line(gametree_cli, args, needle):
    out = gametree_cli("solve", "tictactoe", *args)
    assert out.returncode == 2 and needle in out.stderr and "Traceback" not in out.stderr


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


#: CPU time a worker has used when it counts as at work: forked from the pool's server, a worker
#: uses next to none until it takes a subproblem (then all it gets, searching).
AT_WORK_SECONDS = 1.0


def _cpu_seconds(pid: int) -> float:
    """The CPU time ``pid`` has used (user and system, from /proc; 0 once it is gone): the work it did,
    which a loaded machine makes take longer, not smaller."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime (fields 14, 15 of stat)


def _assert_gone(pids: set[int], wait_until: Callable[..., None]) -> None:
    """The processes ``pids`` end (a hang guard of 120 s: they are asked to stop at once)."""
    wait_until(lambda: not any(_alive(pid) for pid in pids), f"the workers {sorted(pids)} ended")


def _kill_group(proc: subprocess.Popen[str]) -> None:
    """Whatever is left of the command's session, after a test."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _start_with_workers(
    gametree_cli: GametreeCli, wait_until: Callable[..., None], args: list[str], **options: Any
) -> tuple[subprocess.Popen[str], set[int]]:
    """The command in a session of its own, once its pool's two workers (the forkserver's
    children) are up and at work (each has used :data:`AT_WORK_SECONDS` of CPU time); the process
    and the workers' ids.  ``options`` go to :class:`subprocess.Popen`."""
    proc = gametree_cli.popen(
        *args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, **options
    )
    workers: set[int] = set()

    def two_workers_at_work() -> bool:
        nonlocal workers
        if proc.poll() is not None:
            return True  # (ended: the caller's check that it runs says so)
        workers = {w for child in _children(proc.pid) for w in _children(child)}
        return len(workers) >= 2 and all(_cpu_seconds(w) >= AT_WORK_SECONDS for w in workers)

    wait_until(two_workers_at_work, "two workers at work")
    return proc, workers


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc to find the worker processes")
def test_ctrl_c_stops_the_workers_cleanly(gametree_cli, wait_until):
    # A solve that takes far longer than the test: interrupt it once the workers are busy.
    proc, _ = _start_with_workers(
        gametree_cli,
        wait_until,
        ["solve", "connect4", "--workers", "2", "--json"],
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # (not ignored, as in a background job)
    )
    try:
        assert proc.poll() is None, proc.communicate()
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
        out, err = proc.communicate(timeout=60)
    finally:
        _kill_group(proc)
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err and out == ""


#: The lines a process says when it compiles the engine, or waits for another that does (compile_state).
COMPILE_NOTICES = ("compiling the engine for ", "waiting while another process compiles the engine for ")


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc to find the worker processes")
@pytest.mark.parametrize(
    "command",
    [
        ("solve", "connect4", "--workers", "2", "--json"),
        ("learn", "tictactoe", "--games", "100000000", "--workers", "2", "-o", "{out}"),
    ],
)
def test_sigterm_to_the_parent_ends_its_workers_too(gametree_cli, wait_until, tmp_path, command):
    """SIGTERM (or SIGHUP) to the command alone, as a service manager sends it: the command stops
    its workers, says so in one line and exits 128 + 15; no worker is left running."""
    proc, workers = _start_with_workers(
        gametree_cli, wait_until, [a.replace("{out}", str(tmp_path / "table.json")) for a in command]
    )
    try:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        descendants = workers | _children(proc.pid)  # the workers, the forkserver, the resource tracker
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 128 + signal.SIGTERM, err
        # (blank lines, and the workers' notices of a first compile when no test met the engine before: not the stop's)
        said = [line for line in err.splitlines() if line.strip() and not line.startswith(COMPILE_NOTICES)]
        assert said == ["terminated"] and out == "", err
        _assert_gone(descendants, wait_until)
        assert not (tmp_path / "table.json").exists()
    finally:
        _kill_group(proc)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc to find the worker processes")
@pytest.mark.parametrize(
    "command",
    [
        ("solve", "connect4", "--workers", "2", "--engine", "python", "--json"),
        ("learn", "tictactoe", "--games", "100000000", "--workers", "2", "-o", "{out}"),
    ],
)
def test_a_worker_killed_ends_the_command_with_one_line(gametree_cli, wait_until, tmp_path, command):
    """A worker killed from outside (as the out-of-memory killer does) takes its task with it: the
    command notices, stops the other workers and says so in one line, instead of waiting forever."""
    proc, workers = _start_with_workers(
        gametree_cli, wait_until, [a.replace("{out}", str(tmp_path / "table.json")) for a in command]
    )
    try:
        assert proc.poll() is None, proc.communicate()
        os.kill(min(workers), signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 1, err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"Error: worker process {min(workers)} died"), err
        _assert_gone(workers, wait_until)
        assert not (tmp_path / "table.json").exists()
    finally:
        _kill_group(proc)


def test_an_address_that_is_no_dask_scheduler_is_one_error_within_the_timeout(registry, monkeypatch):
    """A port that accepts connections and never answers (a web server, a silent socket) kept the
    Dask client waiting for minutes; now it is an error after SCHEDULER_TIMEOUT seconds."""
    pytest.importorskip("distributed")
    import socket

    from gametree.runtime import cluster

    monkeypatch.setattr(cluster, "SCHEDULER_TIMEOUT", 1.0)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(5)
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]:d}"
        # The error that SCHEDULER_TIMEOUT ran out (its message names the 1 s), not Dask's own after minutes.
        with pytest.raises(ParallelError, match="no Dask scheduler answered at .* within 1 s"):
            solve_parallel(registry.game("tictactoe").create(size=3), scheduler=address)


@pytest.mark.parametrize("address", ["tls://127.0.0.1:1", "inproc://x"])
def test_unusable_scheduler_addresses_are_one_line(gametree_cli, address):
    pytest.importorskip("distributed")
    out = gametree_cli("solve", "tictactoe", "--size", "3", "--scheduler", address)
    lines = out.stderr.strip().splitlines()
    assert (
        out.returncode == 1
        and len(lines) == 1
        and lines[0].startswith(f"Error: cannot reach the Dask scheduler at {address}: ")
    )


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_scheduler_killed_mid_solve_is_one_line(gametree_cli, wait_until, tmp_path):
    """The Dask scheduler dies while gametree waits for its answers: one line, exit 1, no traceback."""
    distributed = pytest.importorskip("distributed")
    import socket

    with socket.socket() as probe:  # a free port for the scheduler
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    scheduler = subprocess.Popen(
        [*dask, "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-dashboard"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    solve = None
    try:
        solve = gametree_cli.popen(
            "solve",
            "connect4",
            "--engine",
            "python",
            "--scheduler",
            address,
            "--json",
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        # Connected, the subproblems sent: the scheduler has them on its worker (the solve takes far longer).
        with distributed.Client(address, timeout="120s") as watcher:
            wait_until(
                lambda: solve.poll() is not None or any(watcher.processing().values()), "a subproblem on the worker"
            )
        assert solve.poll() is None, solve.communicate()
        scheduler.kill()
        out, err = solve.communicate(timeout=90)
        lines = err.strip().splitlines()
        assert solve.returncode == 1 and len(lines) == 1 and "Dask scheduler" in lines[0], err
        assert "Traceback" not in err and out == ""
    finally:
        for proc in (solve, worker, scheduler):
            if proc is not None:
                proc.kill()
                proc.wait()
