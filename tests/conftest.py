from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

from gametree import load
from gametree.plugin import Registry


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
