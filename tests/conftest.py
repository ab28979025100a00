from __future__ import annotations

import atexit
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gametree import Registry, load
from gametree.tree.headless import CHROMIUM_FLAGS, chromium

# The entry-point cache of every test and of the commands they start goes to a folder of the
# run's own, not to the user's ~/.cache (XDG_CACHE_HOME for subprocesses that drop GAMETREE_*).
# One folder for the whole run, shared by pytest-xdist's workers (they inherit it from the process
# that starts them), so that numba's compiled code made by one worker is loaded by the other
# rather than compiled again; removed by the process that made it.
_CACHE = os.environ.get("GAMETREE_TEST_RUN_CACHE", "")
if not _CACHE or not os.path.isdir(_CACHE):
    _CACHE = os.environ["GAMETREE_TEST_RUN_CACHE"] = tempfile.mkdtemp(prefix="gametree-test-cache-")
    atexit.register(shutil.rmtree, _CACHE, True)
os.environ["GAMETREE_CACHE_DIR"] = os.path.join(_CACHE, "gametree")
os.environ["XDG_CACHE_HOME"] = _CACHE
# No solution store unless a test names one (--store): a search must search, not read earlier tests' answers.
os.environ["GAMETREE_STORE"] = "none"
# A run started as a background job of a shell without job control (``.ci/run &``) inherits SIGINT
# ignored, and so would every command the tests start: their Ctrl-C tests then saw the signal do
# nothing (a book build stopped at its 5th report ran to the end), and ``_thread.interrupt_main``
# does nothing while SIGINT is ignored (the Dask cancel tests waited for hours of search).  The
# run's processes take Ctrl-C as a terminal gives it.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


#: The exact searches every oracle of the suite checks: alpha-beta, and the solver on each engine.
EXACT_SEARCHES = {
    "alphabeta": ("alphabeta", {}),
    "solver-python": ("solver", {"engine": "python"}),
    "solver-compiled": ("solver", {"engine": "compiled"}),
}


@pytest.fixture(params=list(EXACT_SEARCHES))
def exact_search(request: pytest.FixtureRequest) -> tuple[str, dict[str, str]]:
    """``(algorithm, options)`` of each exact search: ``run(game, state, algorithm=algorithm, **options)``."""
    if request.param == "solver-compiled":
        pytest.importorskip("numba")
    return EXACT_SEARCHES[request.param]


@pytest.fixture(scope="session")
def registry() -> Registry:
    return load()


@pytest.fixture(scope="session")
def ttt3(registry):
    return registry.game("tictactoe").create(size=3)


# -- waiting on events ----------------------------------------------------------------------
#: How often :func:`poll` looks again (how often to look, not how long anything takes).
POLL_SECONDS = 0.02


def poll(condition: Callable[[], object], *, bound: float) -> bool:
    """Look at ``condition()`` every :data:`POLL_SECONDS` until it is true (True) or ``bound``
    seconds have passed (False)."""
    deadline = time.monotonic() + bound
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(POLL_SECONDS)  # the polling interval of the suite's one polling loop
    return True


def poll_until(condition: Callable[[], object], what: str, *, bound: float = 120) -> None:
    """Wait until ``condition()`` is true; fail the test, naming ``what``, if it is still false after
    ``bound`` seconds.  For a state another process or thread reaches with no event to wait on (a
    file filled, a process gone): ``bound`` only turns a hang into a failure, it claims nothing
    about speed, so keep it generous (a loaded machine is slow, not broken)."""
    if not poll(condition, bound=bound):
        pytest.fail(f"not seen within {bound:g} s: {what}")


@pytest.fixture(scope="session")
def wait_until() -> Callable[..., None]:
    """:func:`poll_until`: ``wait_until(condition, what, bound=120)``."""
    return poll_until


#: The child of :func:`interrupt_when_searching`: the empty 7x6 board (minutes) on the compiled
#: engine, ``searching`` printed once its nodes are counted (the compiled search lets go of the GIL,
#: so a thread sees them), ``interrupted`` and the report on Ctrl-C, with exit status 130.
_SEARCH_UNTIL_CTRL_C = """
import sys, threading, time
from gametree.search import Solver
from gametree_builtins.games.connect4 import ConnectFour
solver = Solver(ConnectFour(), engine="compiled")
engine = solver.engine  # built and loaded: the search starts at once
{check}

def searching():
    while engine.nodes_now() == 0:
        time.sleep(0.01)  # a polling interval (how often to look), not a guess of how long anything takes
    print("searching", flush=True)

threading.Thread(target=searching, daemon=True).start()
try:
    solver.solve(all_moves=False)
except KeyboardInterrupt:
    print("interrupted"{report}, flush=True)
    sys.exit(130)
print("finished")
"""


def interrupt_when_searching(check: str = "", report: str = "") -> tuple[int, str, str]:
    """Run a child that solves the empty 7x6 board on the compiled engine (``check``: a line run once
    its engine is built; ``report``: expressions printed after ``interrupted``), send it Ctrl-C once
    its search is under way, and return its exit status, standard output and standard error."""
    code = _SEARCH_UNTIL_CTRL_C.format(check=check, report=f", {report}" if report else "")
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # (not ignored, as in a background job)
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "searching"
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    return child.returncode, out, err


# -- the command line in a subprocess -------------------------------------------------------
@dataclass(frozen=True)
class CliResult:
    """One finished run of the ``gametree`` command: its arguments, exit status and output (text)."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


def _text(data: bytes) -> str:
    """Output as text, read as ``subprocess.run(text=True)`` reads it (universal newlines), but never
    failing on a byte that is not UTF-8 (a test of a bad input may see it echoed)."""
    return data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


class GametreeCli:
    """The ``gametree`` command, run as a user runs it: the console script's own call
    (``from gametree.cli import main; main()``) in a fresh interpreter of this Python.

    Its environment is this process's (so the run's cache folder and ``GAMETREE_STORE=none``
    from the top of this file), less every other ``GAMETREE_*`` variable (the user's settings: a
    test states the ones it needs in ``env``; a value None removes a variable), with ``path``
    first on ``PYTHONPATH`` (a folder of plugins or of a fake package)."""

    #: The variables named ``GAMETREE_*`` a command keeps: this run's cache folder and store.
    KEPT = ("GAMETREE_CACHE_DIR", "GAMETREE_STORE")

    def argv(self, *args: str) -> list[str]:
        """The command line of ``gametree ARGS`` (for a test that starts the process itself)."""
        return [sys.executable, "-c", "from gametree.cli import main; main()", *args]

    def env(self, env: Mapping[str, str | None] | None = None, *, path: Path | str | None = None) -> dict[str, str]:
        """The environment of a command (see the class)."""
        environment = {k: v for k, v in os.environ.items() if not k.startswith("GAMETREE_") or k in self.KEPT}
        if path is not None:
            environment["PYTHONPATH"] = os.pathsep.join([str(path), *filter(None, [environment.get("PYTHONPATH")])])
        for name, value in (env or {}).items():
            if value is None:
                environment.pop(name, None)
            else:
                environment[name] = value
        return environment

    def __call__(
        self,
        *args: str,
        input: str | bytes | None = None,
        env: Mapping[str, str | None] | None = None,
        path: Path | str | None = None,
        cwd: Path | str | None = None,
        timeout: float = 300,
        check: bool = False,
        preexec_fn: Callable[[], object] | None = None,
    ) -> CliResult:
        """Run ``gametree ARGS`` to its end, ``input`` on its standard input (none: empty), and
        return what it gave.  ``timeout``: seconds after which the command is killed and the test
        fails (a hang, not a speed claim); ``check``: fail unless it exits 0."""
        done = subprocess.run(
            self.argv(*args),
            input=input.encode() if isinstance(input, str) else input,
            capture_output=True,
            env=self.env(env, path=path),
            cwd=cwd,
            timeout=timeout,
            preexec_fn=preexec_fn,
        )
        result = CliResult(tuple(args), done.returncode, _text(done.stdout), _text(done.stderr))
        if check:
            assert result.returncode == 0, result.stderr
        return result

    def popen(
        self, *args: str, env: Mapping[str, str | None] | None = None, path: Path | str | None = None, **options: Any
    ) -> subprocess.Popen[Any]:
        """``gametree ARGS`` started and left running; ``options`` go to :class:`subprocess.Popen`."""
        return subprocess.Popen(self.argv(*args), env=self.env(env, path=path), **options)

    def watched(self, *args: str, env: Mapping[str, str | None] | None = None) -> WatchedCommand:
        """``gametree ARGS`` started with its standard error on a pseudo-terminal, where it shows its
        live progress (see :class:`WatchedCommand`)."""
        return WatchedCommand(self, args, env)


#: A terminal's colour and cursor codes, and rich's.
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


class WatchedCommand:
    """A running command whose standard error is a pseudo-terminal (200 columns), so that it
    shows what it is doing there as it would to a person (``gametree solve``'s live progress),
    and whose standard output is a pipe.  :meth:`expect` waits for a pattern on the terminal: the
    event a test acts on (the search is under way, the value is proven), instead of a sleep.
    Ctrl-C is not ignored in the child (as it is in a background job)."""

    def __init__(self, cli: GametreeCli, args: tuple[str, ...], env: Mapping[str, str | None] | None) -> None:
        import fcntl
        import pty
        import struct
        import termios

        self.leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 200, 0, 0))
        self.process = cli.popen(
            *args,
            env={"COLUMNS": None, "LINES": None, "TERM": "xterm-256color", **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=follower,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        os.close(follower)
        self.raw = b""

    @property
    def shown(self) -> str:
        """What the terminal got so far, without its control codes."""
        return ANSI.sub("", self.raw.decode("utf-8", "replace"))

    def _read(self, wait: float) -> bool:
        """Add what the terminal has to :attr:`raw`, waiting up to ``wait`` seconds for some;
        False once the command has closed it."""
        ready, _, _ = select.select([self.leader], [], [], wait)
        if not ready:
            return True
        try:
            data = os.read(self.leader, 65536)
        except OSError:  # the command ended: the terminal is closed
            return False
        self.raw += data
        return bool(data)

    def expect(self, found: Callable[[str], bool], what: str, *, bound: float = 120) -> None:
        """Wait until ``found(shown)``; fail naming ``what`` if the command ends first or it is not
        seen within ``bound`` seconds (a hang guard, not a speed claim)."""
        deadline = time.monotonic() + bound
        while not found(self.shown):
            if time.monotonic() > deadline or not self._read(0.2):
                self.process.kill()
                self.process.wait()
                pytest.fail(f"not seen: {what}; the terminal so far:\n{self.shown[-3000:]}")

    def interrupt(self) -> None:
        """Ctrl-C, as a terminal sends it."""
        self.process.send_signal(signal.SIGINT)

    def finish(self, timeout: float = 60) -> tuple[int, str, str]:
        """Wait for the command to end (kill it and fail after ``timeout`` seconds): its exit status,
        standard output and everything the terminal showed (control codes removed)."""
        try:
            out, _ = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:  # pragma: no cover - the hang a test is about
            self.process.kill()
            raise
        finally:
            while self._read(0.2):
                pass
            os.close(self.leader)
        return self.process.returncode, _text(out), self.shown


@pytest.fixture(scope="session")
def gametree_cli() -> GametreeCli:
    """The ``gametree`` command in a subprocess: ``gametree_cli("solve", "tictactoe", input=..., env=...)``
    gives a :class:`CliResult`; see :class:`GametreeCli`."""
    return GametreeCli()


# -- Dask -----------------------------------------------------------------------------------
@pytest.fixture
def one_dask_worker() -> Iterator[Any]:
    """A Dask cluster of one single-threaded worker process and a client of it, the worker up;
    ``interrupt_once_busy()`` then sends this process a Ctrl-C once the worker runs a task, and
    ``wait_free()`` waits for the worker's one thread to run a new task."""
    import _thread
    import threading

    distributed = pytest.importorskip("distributed", reason="Dask is an optional extra: pip install 'gametree[dask]'")

    def executing(dask_worker: Any) -> int:  # (runs in the worker, on its event loop)
        return int(dask_worker.state.executing_count)

    class Worker:
        cluster: Any  # distributed.LocalCluster
        client: Any  # distributed.Client
        #: Whether the worker was seen running a task before the Ctrl-C (None: not yet known).
        busy: bool | None = None
        #: Why asking the worker whether it runs a task failed, if it did.
        asking: Exception | None = None

        def interrupt_once_busy(self) -> None:
            """Ctrl-C (to this process) once the worker runs one of the work's tasks: the worker's
            own count of tasks executing, not a guess of how long the task takes to start.  Sent
            after 120 s all the same (so that the test ends), and :meth:`wait_free` then fails."""

            def interrupt() -> None:
                try:
                    self.busy = poll(lambda: any(self.client.run(executing).values()), bound=120)  # (a hang guard)
                except Exception as exc:  # noqa: BLE001 (asking the worker failed: the Ctrl-C still comes, the test fails)
                    self.busy, self.asking = False, exc
                finally:
                    _thread.interrupt_main()  # as Ctrl-C does (always: else the work runs on for hours)

            threading.Thread(target=interrupt, daemon=True).start()

        def wait_free(self) -> None:
            """The worker's one thread runs a new task (so the task it ran was halted): fails after
            120 s.  That bound is a hang guard, not a speed claim: a task that is not halted keeps
            the worker busy for far longer (more than 300 s for the tests' subproblems)."""
            assert self.busy, f"the Ctrl-C came before the worker was seen running a task ({self.asking!r})"
            self.client.submit(int, 1, pure=False).result(timeout=120)

    worker = Worker()
    cluster_of_one = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster_of_one as cluster, distributed.Client(cluster) as client:
        client.submit(int, 0, pure=False).result(timeout=60)  # the worker is up
        worker.cluster, worker.client = cluster, client
        yield worker


# -- the distribution's Chromium, driven by Playwright (the explorer's and the web app's pages) ----------
CHROMIUM = chromium()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for a test module; the test skips without Playwright or Chromium."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium, or set GAMETREE_CHROMIUM)")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS))
        yield browser
        browser.close()
