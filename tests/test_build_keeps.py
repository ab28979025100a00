"""``gametree book build --all`` stopped at any point keeps what it proved, says truthfully what it
kept, and a rerun ends with the same store as an uninterrupted build (issue 34, item 2).  The
build is stopped by its own test hook (``GAMETREE_BUILD_STOP=N:SIGNAL``: the signal at the N-th
progress report), not after a time."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gametree import load
from gametree.book import StrongResume, build_strong, strong_resume
from gametree.build_status import STOP_VARIABLE, StrongBuildStatus
from gametree.listing_files import ListingFiles
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
        else:  # stopped while listing: the plies listed are kept beside the store, and it says which
            listed = re.search(r"listed plies 0-(\d+) kept \(beside the store\); a rerun lists from ply (\d+)", said)
            assert listed is not None and int(listed[2]) == int(listed[1]) + 1, said
            assert _listing(path).kept() == int(listed[2])
        info = gametree_cli("book", "info", "--store", str(path), "--json", check=True)
        assert '"complete": false' in info.stdout.replace("False", "false")
    again = _build(gametree_cli, path)
    assert again.returncode == 0, again.stderr
    # A rerun goes on from the plies kept: it reads them from the store instead of proving them again.
    assert f"({len(reference) - len(kept):,} proved now, {len(kept):,} stored already)" in again.stdout, again.stdout
    assert _entries(path) == reference


def test_a_rerun_lists_only_the_plies_above_those_kept(gametree_cli, tmp_path: Path, reference) -> None:
    path = tmp_path / "b.sqlite"
    assert _build(gametree_cli, path, "38:TERM").returncode != 0
    resume = _resume_point(path)
    assert resume is not None and 0 < resume.ply < len(resume.per_ply) - 1, resume
    assert sum(resume.per_ply) == sum(int(row[2]) for row in reference)  # (their images)
    stages: list[str] = []
    with SolutionStore(path) as store:
        report = build_strong(
            load().game("connect4").create(**OPTIONS),
            store.entries_of("connect4", OPTIONS),
            progress=lambda stage, done, total: stages.append(stage),
        )
    stages = list(dict.fromkeys(stages))
    assert stages == (
        [f"enumerating ply {p}" for p in range(resume.ply)]
        + [f"reading ply {resume.ply}"]
        + [f"scoring ply {p}" for p in range(resume.ply - 1, -1, -1)]
    )
    assert (report.positions, report.had, report.proved) == (
        sum(resume.per_ply),
        resume.kept,
        len(reference) - resume.kept,
    )
    assert _entries(path) == reference


def _listing(path: Path) -> ListingFiles[object]:
    with SolutionStore(path, readonly=True) as store:
        return ListingFiles.for_build(
            load().game("connect4").create(**OPTIONS), store.entries_of("connect4", OPTIONS), "all"
        )


def _resume_point(path: Path) -> StrongResume | None:
    with SolutionStore(path, readonly=True) as store:
        return strong_resume(store.entries_of("connect4", OPTIONS))


def test_time_left_is_for_the_whole_build_and_named_by_stage() -> None:
    status = StrongBuildStatus()
    sizes = {0: 1, 1: 4, 2: 16, 3: 79}
    for ply, size in sizes.items():
        status.progress(f"enumerating ply {ply}", 0, size)
        text = status.text()
        assert status.left() is None and f"listing the positions (1/2), ply {ply}:" in text, text
        assert "unknown until every position is listed" in text, text
        status.progress(f"enumerating ply {ply}", size, size)
    assert status.listed() == 100 and status.listing_left() is None  # (a first build: how many is unknown)
    assert status.listing_since is not None
    status.listing_since -= 4  # 100 positions in 4 s
    rate = status.listing_rate()
    assert rate is not None and 24 < rate < 25.1 and "listed (25/s)" in status.text()
    status.progress("scoring ply 3", 0, 50)  # 50 classes (the rest of the 79 positions: games over)
    status.scoring_since = status.scoring_since - 10  # type: ignore[operator]  # 10 s spent on scoring...
    status.progress("scoring ply 3", 50, 50)  # ... 50 classes scored
    left = status.left()
    assert left is not None and 4.1 < left < 4.3  # 21 positions more (plies 0 to 2) at 5 classes a second
    status.progress("scoring ply 2", 0, 16)
    status.progress("scoring ply 2", 8, 16)
    left = status.left()
    assert left is not None and 13 / 58 * 10 - 0.2 < left < 13 / 58 * 10 + 0.2  # 8 + 5 to go, 58 done
    assert "scoring (2/2) ply 2 (8/16)" in status.text() and "for the whole build" in status.text()


def test_a_resumed_build_says_how_long_its_listing_has_left() -> None:
    status = StrongBuildStatus()
    status.resuming(3, (1, 4, 16, 79, 200))  # plies 3 and 4 kept: list plies 0 to 2, read ply 3
    status.progress("enumerating ply 0", 1, 1)
    status.progress("enumerating ply 1", 4, 4)
    status.progress("enumerating ply 2", 0, 16)
    assert status.listing_since is not None
    status.listing_since -= 1  # 5 positions in 1 s: 95 to go (16 + 79 read)
    left = status.listing_left()
    assert left is not None and 18.5 < left < 19.1
    text = status.text()
    assert "down to ply 3 (plies 3 to 4 kept)" in text and "5 of 100 listed" in text, text
    assert "listing left about 0:00:19, then the scoring" in text, text
    status.progress("reading ply 3", 10, 79)
    assert "reading ply 3's scores kept in the store (10/79)" in status.text()
    status.progress("scoring ply 2", 0, 16)
    assert status.left() is None and "scoring (2/2) ply 2 (0/16)" in status.text()


# The 4x3 build's listing reports twice a ply (its start and its end): report 2N + 1 starts ply N.
@pytest.mark.parametrize("stop", ["3:INT", "12:TERM", "21:KILL", "26:INT"])
def test_a_build_stopped_while_listing_goes_on_listing_from_the_next_ply(
    gametree_cli, tmp_path: Path, reference, stop: str
) -> None:
    path = tmp_path / "b.sqlite"
    assert _build(gametree_cli, path, stop).returncode != 0
    plies = _listing(path).kept()
    at = int(stop.partition(":")[0])
    assert plies == (at - 1) // 2  # every ply whose listing ended before the stop, none more
    stages: list[str] = []
    with SolutionStore(path) as store:
        entries = store.entries_of("connect4", OPTIONS)
        game = load().game("connect4").create(**OPTIONS)
        listing = ListingFiles.for_build(game, entries, "all", note=stages.append)
        build_strong(game, entries, progress=lambda stage, done, total: stages.append(stage), listing=listing)
    stages = list(dict.fromkeys(stages))
    assert stages[:13] == [f"reading listed ply {p}" for p in range(plies)] + [
        f"enumerating ply {p}" for p in range(plies, 13)
    ]
    assert _entries(path) == reference  # row for row as one uninterrupted build
    assert not listing.kept() and not (tmp_path / "b.sqlite.listing").exists()  # (removed once listed)
