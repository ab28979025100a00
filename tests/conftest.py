from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

from gametree import load
from gametree import Registry


# The entry-point cache of every test and of the commands they start goes to a folder of the
# run's own, not to the user's ~/.cache (XDG_CACHE_HOME for subprocesses that drop GAMETREE_*).
_CACHE = tempfile.mkdtemp(prefix="gametree-test-cache-")
atexit.register(shutil.rmtree, _CACHE, True)
os.environ["GAMETREE_CACHE_DIR"] = os.path.join(_CACHE, "gametree")
os.environ["XDG_CACHE_HOME"] = _CACHE
# No solution store unless a test names one (--store): a search must search, not read earlier tests' answers.
os.environ["GAMETREE_STORE"] = "none"


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


@pytest.fixture
def one_dask_worker():
    """A Dask cluster of one single-threaded worker process and a client of it, the worker up;
    ``interrupt_once_busy()`` then sends this process a Ctrl-C a second after the worker starts
    a task, and ``free_within(seconds)`` waits for the worker to run a new task (how long it took)."""
    import _thread
    import threading
    import time

    distributed = pytest.importorskip("distributed", reason="Dask is an optional extra: pip install 'gametree[dask]'")

    class Worker:
        def interrupt_once_busy(self) -> None:
            def interrupt() -> None:
                deadline = time.monotonic() + 60
                while not any(self.client.processing().values()) and time.monotonic() < deadline:
                    time.sleep(0.05)
                time.sleep(1.0)  # searching
                _thread.interrupt_main()  # as Ctrl-C does

            threading.Thread(target=interrupt, daemon=True).start()

        def free_within(self, seconds: float) -> float:
            started = time.monotonic()
            self.client.submit(int, 1, pure=False).result(timeout=seconds)  # the worker's one thread is free again
            return time.monotonic() - started

    worker = Worker()
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        client.submit(int, 0, pure=False).result(timeout=60)  # the worker is up
        worker.cluster, worker.client = cluster, client
        yield worker
