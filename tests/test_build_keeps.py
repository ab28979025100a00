"""``gametree book build --all`` stopped at any point keeps what it proved, says truthfully what it
kept, and a rerun ends with the same store as an uninterrupted build (issue 34, item 2).  The
build is stopped by its own test hook (``GAMETREE_BUILD_STOP=N:SIGNAL``: the signal at the N-th
progress report), not after a time."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gametree.build_status import STOP_VARIABLE, StrongBuildStatus
from gametree.store import SolutionStore

BOARD = ("connect4", "--width", "4", "--height", "3")
OPTIONS = {"width": 4, "height": 3, "k": 4}


def _entries(path: Path) -> list[tuple[object, ...]]:
    with SolutionStore(path, readonly=True) as store:
        return [tuple(row) for row in store.entries_of("connect4", OPTIONS).entries()]


def _build(gametree_cli, path: Path, stop: str | None = None):
    return gametree_cli("book", "build", *BOARD, "--all", "--store", str(path), env={STOP_VARIABLE: stop})


@pytest.fixture(scope="module")
def reference(gametree_cli, tmp_path_factory) -> list[tuple[object, ...]]:
    path = tmp_path_factory.mktemp("whole") / "whole.sqlite"
    done = _build(gametree_cli, path)
    assert done.returncode == 0, done.stderr
    entries = _entries(path)
    assert len(entries) > 5000  # every class of 4x3 Connect Four, with its count of positions
    return entries


# The 4x3 build reports 51 times: 26 while enumerating the 13 plies, then 25 while scoring them.
@pytest.mark.parametrize(
    "stop",
    ["5:INT", "33:KILL", "38:TERM", "51:INT"],
    ids=["enumerating", "killed-mid-scoring", "terminated-mid-scoring", "last-report"],
)
def test_a_stopped_build_keeps_what_it_says_and_a_rerun_ends_as_one_build(
    gametree_cli, tmp_path: Path, reference, stop: str
) -> None:
    path = tmp_path / "b.sqlite"
    stopped = _build(gametree_cli, path, stop)
    assert stopped.returncode != 0
    kept = _entries(path) if path.exists() else []
    assert set(kept) <= set(reference)  # what it kept is right
    if stop.endswith("KILL"):
        assert kept  # killed while scoring: the plies scored before are in the store
    else:
        said = next(line for line in stopped.stderr.splitlines() if line.startswith("Interrupted"))
        if kept:
            count = re.search(r"Interrupted: ([\d,]+) positions proven and kept", said)
            assert count is not None and int(count.group(1).replace(",", "")) == len(kept), said
        else:
            assert "nothing was proven yet, nothing is kept" in said, said
        info = gametree_cli("book", "info", "--store", str(path), "--json", check=True)
        assert '"complete": false' in info.stdout.replace("False", "false")
    again = _build(gametree_cli, path)
    assert again.returncode == 0, again.stderr
    assert _entries(path) == reference


def test_time_left_is_for_the_whole_build_and_named_by_stage() -> None:
    status = StrongBuildStatus()
    sizes = {0: 1, 1: 4, 2: 16, 3: 79}
    for ply, size in sizes.items():
        status.progress(f"enumerating ply {ply}", 0, size)
        assert status.left() is None and "enumerating ply" in status.text() and "known once" in status.text()
        status.progress(f"enumerating ply {ply}", size, size)
    status.progress("scoring ply 3", 0, 50)  # 50 classes (the rest of the 79 positions: games over)
    status.scoring_since = status.scoring_since - 10  # type: ignore[operator]  # 10 s spent on scoring...
    status.progress("scoring ply 3", 50, 50)  # ... 50 classes scored
    left = status.left()
    assert left is not None and 4.1 < left < 4.3  # 21 positions more (plies 0 to 2) at 5 classes a second
    status.progress("scoring ply 2", 0, 16)
    status.progress("scoring ply 2", 8, 16)
    left = status.left()
    assert left is not None and 13 / 58 * 10 - 0.2 < left < 13 / 58 * 10 + 0.2  # 8 + 5 to go, 58 done
    assert "scoring ply 2 (8/16)" in status.text() and "for the whole build" in status.text()
