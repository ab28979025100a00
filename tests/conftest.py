from __future__ import annotations

import pytest

from gametree import load
from gametree.plugin import Registry


@pytest.fixture(scope="session")
def registry() -> Registry:
    return load()


@pytest.fixture(scope="session")
def ttt3(registry):
    return registry.game("tictactoe").create(size=3)
