"""A strong build's listing kept beside the store (gametree.listing_files): a stop while listing
keeps the plies listed, a rerun reads them back, and a damaged or foreign file is not used (one
line says so, and the listing starts over); and the whole build's time left estimated while the
first listing runs (gametree.build_status, issue 34)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pickle
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from gametree import load
from gametree.book import build_strong
from gametree.build_status import SCORING_SHARE, StrongBuildStatus, estimate_positions
from gametree.game import capabilities
from gametree.listing_files import MAGIC, ListingDamaged, ListingFiles
from gametree.search.strong import ListedPly
from gametree.store import SolutionStore

OPTIONS = {"width": 4, "height": 3, "k": 4}
COUNTS = json.loads((Path(__file__).parent / "data" / "strong_counts.json").read_text(encoding="utf-8"))


def _c4(**options: int) -> Any:
    return load().game("connect4").create(**{**OPTIONS, **options})


def _build(path: Path, stop_at: int | None = None, notes: list[str] | None = None) -> list[str]:
    """Build 4x3 Connect Four into ``path`` in this process (Ctrl-C as the listing of ply
    ``stop_at`` starts); the stages it went through."""
    stages: list[str] = []

    def progress(stage: str, done: int, total: int) -> None:
        stages.append(stage)
        if stage == f"enumerating ply {stop_at}":
            raise KeyboardInterrupt

    with SolutionStore(path) as store:
        entries = store.entries_of("connect4", OPTIONS)
        listing = ListingFiles.for_build(_c4(), entries, "all", note=(notes if notes is not None else []).append)
        try:
            build_strong(_c4(), entries, progress=progress, listing=listing)
        except KeyboardInterrupt:
            pass
    return list(dict.fromkeys(stages))


def _rows(path: Path) -> list[tuple[object, ...]]:
    with SolutionStore(path, readonly=True) as store:
        return [tuple(row) for row in store.entries_of("connect4", OPTIONS).entries()]


def _folder(path: Path) -> Path:
    (folder,) = Path(f"{path}.listing").iterdir()
    return folder


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> list[tuple[object, ...]]:
    path = tmp_path_factory.mktemp("whole") / "whole.sqlite"
    _build(path)
    assert not Path(f"{path}.listing").exists()  # (nothing left behind by a whole build)
    return _rows(path)


def test_the_plies_listed_before_a_stop_are_read_back_not_listed_again(tmp_path: Path, reference) -> None:
    path = tmp_path / "b.sqlite"
    _build(path, stop_at=6)
    folder = _folder(path)
    assert sorted(os.listdir(folder)) == ["next-6"] + [f"ply-{p}" for p in range(6)]  # (one frontier: the newest)
    assert _rows(path) == []  # nothing proven yet
    notes: list[str] = []
    stages = _build(path, notes=notes)
    assert notes == []
    assert stages[:13] == [f"reading listed ply {p}" for p in range(6)] + [f"enumerating ply {p}" for p in range(6, 13)]
    assert _rows(path) == reference


def _damage_payload(file: Path) -> None:
    data = bytearray(file.read_bytes())
    data[-3] ^= 0xFF
    file.write_bytes(bytes(data))


def _foreign_header(file: Path) -> None:
    data = file.read_bytes()
    header, _, rest = data[len(MAGIC) :].partition(b"\n")
    other = json.loads(header)
    other["options"] = {"width": 5, "height": 3, "k": 4}
    file.write_bytes(MAGIC + json.dumps(other, sort_keys=True).encode() + b"\n" + rest)


def _code_in_pickle(file: Path) -> None:
    """A payload with a valid checksum that would run ``os.system`` if unpickled freely."""
    data = file.read_bytes()
    header, _, _ = data[len(MAGIC) :].partition(b"\n")
    payload = pickle.dumps((1, {}, {}, {}, os.system), protocol=4)  # (pickles a reference: never called here)
    file.write_bytes(MAGIC + header + b"\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)


def _truncated(file: Path) -> None:
    file.write_bytes(file.read_bytes()[:-10])


def _other_format(file: Path) -> None:
    file.write_bytes(b"gametree strong listing 0\n" + file.read_bytes()[len(MAGIC) :])


@pytest.mark.parametrize(
    ("spoil", "why"),
    [
        (_damage_payload, "ply-2 is damaged (its checksum does not match)"),
        (_truncated, "ply-2 is damaged"),
        (_foreign_header, "ply-2 is another game's or build's"),
        (_code_in_pickle, "ply-2 cannot be read (posix.system is not allowed in a listing file)"),
        (_other_format, "ply-2 is not a listing file of this version"),
    ],
)
def test_a_damaged_or_foreign_file_is_not_used_and_the_listing_starts_over(
    tmp_path: Path, reference, spoil, why: str
) -> None:
    path = tmp_path / "b.sqlite"
    _build(path, stop_at=6)
    spoil(_folder(path) / "ply-2")
    notes: list[str] = []
    stages = _build(path, notes=notes)
    assert len(notes) == 1 and why in notes[0] and "listing from the start" in notes[0], notes
    assert "\n" not in notes[0]
    after = stages[stages.index("reading listed ply 1") + 1 :]  # (plies 0 and 1 read, then dropped)
    assert after[:13] == [f"enumerating ply {p}" for p in range(13)]
    assert _rows(path) == reference


def test_a_missing_frontier_means_the_plies_before_it_only(tmp_path: Path, reference) -> None:
    # A kill between writing ply-5 and next-6 leaves next-5 (the older frontier) in place.
    path = tmp_path / "b.sqlite"
    _build(path, stop_at=6)
    folder = _folder(path)
    (folder / "next-6").unlink()
    listing = ListingFiles.for_build(_c4(), SolutionStore(path).entries_of("connect4", OPTIONS), "all")
    assert listing.kept() == 0  # no frontier for any ply: nothing usable
    stages = _build(path)
    assert stages[0] == "enumerating ply 0" and _rows(path) == reference


def test_a_listing_that_cannot_be_written_is_said_once_and_the_build_goes_on(tmp_path: Path, reference) -> None:
    path = tmp_path / "b.sqlite"
    Path(f"{path}.listing").write_text("a file where the folder goes")
    notes: list[str] = []
    _build(path, notes=notes)
    assert len(notes) == 1 and "the listing cannot be kept" in notes[0], notes
    assert _rows(path) == reference


def test_the_cli_says_what_it_kept_and_the_rerun_goes_on(gametree_cli, tmp_path: Path) -> None:
    path = tmp_path / "b.sqlite"
    board = ("book", "build", "connect4", "--width", "4", "--height", "3", "--all", "--store", str(path))
    stopped = gametree_cli(*board, env={"GAMETREE_BUILD_STOP": "14:TERM"})
    assert stopped.returncode != 0 and stopped.returncode != -signal.SIGKILL
    assert re.search(r"listed plies 0-5 kept \(beside the store\); a rerun lists from ply 6\.", stopped.stderr)
    again = gametree_cli(*board, "--json", check=True)
    assert json.loads(again.stdout)["positions"] == 12031 and again.stderr == ""  # (nothing but the JSON)


# -- the estimate while listing ------------------------------------------------------------------


def _tiers(game: Any) -> list[int]:
    tiered = capabilities(game).tiered
    assert tiered is not None
    return [tiered.tier_size(t) for t in range(tiered.tier_count())]


@pytest.mark.parametrize(("width", "height"), [(4, 4), (5, 4)])
def test_the_estimate_by_tier_sizes_comes_near_the_real_count_and_bounds_it(width: int, height: int) -> None:
    entry = next(e for e in COUNTS["connect4"] if (e["width"], e["height"]) == (width, height))
    real = entry["per_ply_computed"]  # (their sum is the published count: tests/test_strong.py checks it)
    total = sum(real)
    tiers = _tiers(_c4(width=width, height=height))
    last = width * height
    for k in range(len(real)):
        found = estimate_positions(real[: k + 1], last, tiers)
        assert found is not None and found.counted == k
        assert found.upper == sum(real[: k + 1]) + sum(tiers[k + 1 :]) and found.upper >= total
        if k >= 6:  # (the shallow plies say little: their estimates may be off by more)
            assert 0.95 * total <= found.total <= 1.4 * total, (k, found)
    assert estimate_positions(real, last, tiers).total == total  # (every ply counted: the count itself)


def test_the_estimate_by_growth_per_ply_needs_five_plies_and_comes_within_a_factor_two() -> None:
    real = COUNTS["connect4"][1]["per_ply_computed"]  # 5x4
    assert [estimate_positions(real[: k + 1], 20) for k in range(4)] == [None] * 4
    for k in range(8, 20):
        found = estimate_positions(real[: k + 1], 20)
        assert found is not None and found.upper is None
        assert 0.9 * sum(real) <= found.total <= 2 * sum(real), (k, found)


def test_the_estimate_by_growth_follows_the_growth_it_saw() -> None:
    # Counts doubling every ply, the doubling steady: every ply to come doubles again.
    found = estimate_positions([1, 2, 4, 8, 16], 7)
    assert found is not None and found.total == 31 + 32 + 64 + 128
    # The growth halving over two plies (x4, x4, x2, x2 ...): it goes on shrinking by sqrt(1/2) a ply.
    found = estimate_positions([1, 4, 16, 32, 64], 5)
    assert found is not None and found.total == 117 + round(64 * 2 * 0.5**0.5)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_line_gives_an_estimate_of_the_whole_build_from_the_start_and_what_it_rests_on() -> None:
    game = _c4(width=5, height=4)
    clock = FakeClock()
    status = StrongBuildStatus(20, _tiers(game), clock=clock)
    real = COUNTS["connect4"][1]["per_ply_computed"]
    status.progress("enumerating ply 0", 0, 1)
    assert "time left: estimated once the listing has a rate (~5.6M positions, at most 5.6M" in status.text()
    status.progress("enumerating ply 0", 1, 1)
    clock.now += 0.001
    assert "left about 3:35:30 for the whole build (an estimate" in status.text()  # (5.6M at 1,000/s, x2.3)
    for ply in range(12):
        status.progress(f"enumerating ply {ply}", real[ply], real[ply])
    status.progress("enumerating ply 12", 100_000, real[12])
    clock.now += 10.0
    listed = sum(real[:12]) + 100_000
    assert status.listed() == listed
    found = estimate_positions(real[:13], 20, _tiers(game))
    assert found is not None
    rate = listed / (clock.now - 100.0)  # (the listing began at 100 s)
    seconds, used = status.estimated_left()
    assert used == found
    assert seconds == pytest.approx((found.total - listed) / rate + SCORING_SHARE * found.total / rate)
    text = status.text()
    assert "left about" in text and "for the whole build (an estimate: ~" in text, text
    assert f"at most {found.upper / 1e6:.1f}M by the tier sizes; plies 13-20 extrapolated by the tier sizes" in text
    assert f"scoring taken as {SCORING_SHARE:g}x the listing" in text, text


def test_without_tiers_the_line_says_the_estimate_rests_on_the_growth_per_ply() -> None:
    clock = FakeClock()
    status = StrongBuildStatus(9, None, clock=clock)
    for ply, size in enumerate([1, 9, 72]):
        status.progress(f"enumerating ply {ply}", size, size)
    assert "not estimated yet (too few plies listed)" in status.text()
    for ply, size in enumerate([1, 9, 72, 252, 756], start=0):
        status.progress(f"enumerating ply {ply}", size, size)
    clock.now += 1.0
    assert "extrapolated by the growth per ply" in status.text() and "at most" not in status.text()


def test_a_build_reading_a_kept_listing_rates_only_what_it_lists() -> None:
    clock = FakeClock()
    status = StrongBuildStatus(9, None, clock=clock)
    for ply, size in enumerate([1, 9, 72, 252]):
        status.progress(f"reading listed ply {ply}", size, size)
    assert "reading ply 3 of the listing a stopped build kept" in status.text()
    status.progress("enumerating ply 4", 0, 756)
    status.progress("enumerating ply 4", 100, 756)
    clock.now += 2.0
    assert status.listing_rate() == 50.0  # 100 listed in 2 s (the 334 read not counted)


def _build_4x4(tmp_path: Path) -> tuple[str, ...]:
    """``book build --all`` of 4x4 Connect Four into a store in ``tmp_path``."""
    store = str(tmp_path / "b.sqlite")
    return ("book", "build", "connect4", "--width", "4", "--height", "4", "--all", "--store", store)


def test_on_a_terminal_the_line_shows_the_estimate_and_ctrl_c_keeps_the_listing(gametree_cli, tmp_path: Path) -> None:
    # 5x4, not 4x4: 4x4's listing can end within the half second before the live line shows
    # (gametree.live.SHOW_AFTER), and the whole build within a second; 5x4's listing takes seconds.
    store = str(tmp_path / "b.sqlite")
    board = ("book", "build", "connect4", "--width", "5", "--height", "4", "--all", "--store", store)
    command = gametree_cli.watched(*board)
    command.expect(lambda shown: "for the whole build (an estimate: ~" in shown, "the estimate on the live line")
    assert re.search(
        r"listing the positions \(1/2\), ply \d+: [\d,]+ listed .* · left about \d:\d\d:\d\d", command.shown
    )
    # What the estimate rests on (the plies counted so far extrapolated by the tier sizes, or, on a
    # fast run whose first estimate shows at the last ply, every ply counted); the line may wrap.
    unwrapped = command.shown.replace("\r\n", "")
    assert re.search(
        r"at most [\d.]+[kM] by the tier sizes; "
        r"(plies [\d-]+ extrapolated by the tier sizes|every ply counted); scoring taken as",
        unwrapped,
    ), unwrapped[-600:]
    command.interrupt()
    code, out, shown = command.finish()
    assert code != 0 and out == ""
    said = re.search(r"Interrupted while the positions were being listed: listed plies 0-(\d+) kept", shown)
    kept = re.search(r"Interrupted: ([\d,]+) positions proven and kept", shown)  # (if Ctrl-C came after the listing)
    # (and on a fast run, after the whole build: 4x4 takes about a second)
    done = re.search(r"Interrupted after the build was done: its [\d,]+ positions are proven and kept", shown)
    assert said or kept or done, shown[-1000:]


def test_with_json_a_terminal_shows_no_live_line(gametree_cli, tmp_path: Path) -> None:
    board = _build_4x4(tmp_path)
    # Stopped near the end of the listing (report 36 of its 39), past the live line's half second.
    command = gametree_cli.watched(*board, "--json", env={"GAMETREE_BUILD_STOP": "36:INT"})
    code, out, shown = command.finish()
    assert code != 0 and out == ""
    assert "listing the positions" not in shown and "estimate" not in shown, shown
    assert shown.lstrip().startswith("Interrupted while the positions were being listed: listed plies 0-14 kept"), shown


@dataclasses.dataclass(frozen=True)
class Cell:
    x: int
    y: int


class Box:
    def __init__(self, n: int) -> None:
        self.n = n

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Box) and other.n == self.n

    def __hash__(self) -> int:
        return self.n


@pytest.mark.parametrize(("kind", "make"), [(Cell, lambda i: Cell(i, -i)), (Box, Box)], ids=["dataclass", "other"])
def test_positions_of_any_class_are_kept_and_read_back_in_order(tmp_path: Path, kind: type, make) -> None:
    listing: ListingFiles[Any] = ListingFiles(str(tmp_path / "l"), {"game": "toy"}, kind)
    following = {(i * 7) % 11: make(i) for i in range(11)}
    listing.save(ListedPly(0, 1, {0: 1}, {}, {}, {0: tuple(following)}, following))
    (read,) = listing.load()
    assert read.following == following and list(read.following) == list(following)
    assert (read.count, read.images, read.reps) == (1, {0: 1}, {0: tuple(following)})
    other: ListingFiles[Any] = ListingFiles(str(tmp_path / "l"), {"game": "toy"}, Cell if kind is Box else Box)
    with pytest.raises(ListingDamaged):  # (the files name another class of positions)
        list(other.load())


def _stopper(at: int) -> Any:
    """A progress callback that raises KeyboardInterrupt (Ctrl-C) at its ``at``-th report."""
    seen = 0

    def progress(stage: str, done: int, total: int) -> None:
        nonlocal seen
        seen += 1
        if seen == at:
            raise KeyboardInterrupt

    return progress


# The listing reports twice a ply: report 2N + 1 as ply N starts, 2N + 2 as it ends (before it is kept).
@pytest.mark.parametrize("at", [1, 2, 3, 8, 15, 16, 25, 26])
def test_a_build_stopped_at_a_report_of_its_listing_ends_as_one_build(tmp_path: Path, reference, at: int) -> None:
    path = tmp_path / "b.sqlite"
    with SolutionStore(path) as store:
        entries = store.entries_of("connect4", OPTIONS)
        listing = ListingFiles.for_build(_c4(), entries, "all")
        with pytest.raises(KeyboardInterrupt):
            build_strong(_c4(), entries, progress=_stopper(at), listing=listing)
        kept = (at - 1) // 2
        assert listing.kept() == kept
        if kept > 2:  # stopped again while the plies kept are read back: they stay kept
            with pytest.raises(KeyboardInterrupt):
                build_strong(_c4(), entries, progress=_stopper(2), listing=listing)
            assert listing.kept() == kept
        build_strong(_c4(), entries, listing=listing)
    assert _rows(path) == reference


def test_ctrl_c_after_the_build_is_done_says_that_everything_is_kept(monkeypatch, tmp_path: Path) -> None:
    """A Ctrl-C that comes once the last position is proven (a short build is done in a second)
    says so, not a bare 'interrupted'."""
    from click.testing import CliRunner

    from gametree.cli import book, cli

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(book, "_print_build", interrupted)
    store = str(tmp_path / "b.sqlite")
    result = CliRunner().invoke(cli, ["book", "build", "tictactoe", "--size", "3", "--all", "--store", store])
    assert isinstance(result.exception, KeyboardInterrupt) or result.exit_code != 0
    said = re.search(r"Interrupted after the build was done: its ([\d,]+) positions are proven and kept", result.output)
    assert said is not None and int(said.group(1).replace(",", "")) > 0, result.output
