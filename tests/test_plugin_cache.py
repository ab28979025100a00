"""The cache of entry points: the same answer as importlib.metadata, re-read whenever it could differ.

Distributions are installed as an installer leaves them (a module and a
``*.dist-info`` folder with ``METADATA`` and ``entry_points.txt``) into a
directory on ``sys.path``, after the cache was written.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from gametree import load
from gametree.plugin import entrypoints
from gametree.plugin.entrypoints import entry_point_list

GAME = """
from gametree import hookimpl, GameSpec
from gametree_builtins.games.tictactoe import TicTacToe

@hookimpl
def gametree_register_games(registry):
    registry.add_game(GameSpec(name={name!r}, factory=lambda: TicTacToe(2, 2, 2), summary="2x2"))
"""


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("GAMETREE_CACHE_DIR", str(folder))
    monkeypatch.delenv("GAMETREE_PLUGIN_CACHE", raising=False)
    return folder


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty directory on sys.path, there before the cache is written."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    return folder


def install(site: Path, dist: str, points: dict[str, str]) -> Path:
    for value in points.values():
        (site / f"{value}.py").write_text(GAME.format(name=value.replace("_", "")))
    info = site / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[gametree]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()))
    return info


def from_metadata() -> list[tuple[str, str]]:
    return sorted((ep.name, ep.value) for ep in entry_points(group="gametree"))


def names_values(found: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
    return [(name, value) for name, value, _ in found]


def test_the_second_lookup_is_read_from_the_cache(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = entry_point_list()
    assert names_values(first) == from_metadata()
    assert ("tictactoe", "gametree_builtins.games.tictactoe") in names_values(first)
    assert len(list(cache_dir.glob("entry-points-*.json"))) == 1

    def no_scan() -> None:
        raise AssertionError("scanned again although nothing changed")

    monkeypatch.setattr(entrypoints, "_scan", no_scan)
    assert entry_point_list() == first
    assert load().games["tictactoe"].source == next(f"{d} (entry point {v})" for n, v, d in first if n == "tictactoe")


def test_a_distribution_installed_after_the_cache_was_written_is_found(cache_dir: Path, site: Path) -> None:
    before = entry_point_list()
    install(site, "late_game", {"lategame": "late_game_mod"})
    after = entry_point_list()
    assert ("lategame", "late_game_mod", "late_game 0.1") in after
    assert names_values(after) == from_metadata() != names_values(before)
    assert load().games["lategamemod"].source == "late_game 0.1 (entry point late_game_mod)"


def test_a_removed_distribution_disappears(cache_dir: Path, site: Path) -> None:
    info = install(site, "gone_game", {"gonegame": "gone_game_mod"})
    assert "gonegame" in {name for name, _, _ in entry_point_list()}
    shutil.rmtree(info)
    assert "gonegame" not in {name for name, _, _ in entry_point_list()}


def test_entry_points_edited_in_place_are_read_again(cache_dir: Path, site: Path) -> None:
    """Same folder, same file, same size: only the file's time tells (set explicitly: no sleeping)."""
    info = install(site, "edit_game", {"first": "edit_a"})
    (site / "edit_b.py").write_text(GAME.format(name="editb"))
    assert ("first", "edit_a", "edit_game 0.1") in entry_point_list()
    points = info / "entry_points.txt"
    stamp = points.stat().st_mtime_ns
    with points.open("r+") as f:  # in place: the folder's time does not change
        f.write("[gametree]\nfirst = edit_b\n")
    os.utime(points, ns=(stamp + 10**9, stamp + 10**9))
    assert ("first", "edit_b", "edit_game 0.1") in entry_point_list()


def test_a_corrupt_cache_is_replaced(cache_dir: Path) -> None:
    expected = entry_point_list()
    (path,) = cache_dir.glob("entry-points-*.json")
    path.write_text("{not json")
    assert entry_point_list() == expected
    assert json.loads(path.read_text())["entry_points"] == [list(row) for row in expected]
    path.write_text(json.dumps({"format": 1, "fingerprint": None, "entry_points": "wrong shape"}))
    assert entry_point_list() == expected


def test_an_unwritable_cache_folder_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(
        "GAMETREE_CACHE_DIR", str(blocker / "cache")
    )  # a folder inside a file cannot be made, even by root
    assert names_values(entry_point_list()) == from_metadata()
    assert names_values(entry_point_list()) == from_metadata()


def test_the_cache_can_be_turned_off(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAMETREE_PLUGIN_CACHE", "0")
    assert names_values(entry_point_list()) == from_metadata()
    assert not cache_dir.exists()


def test_a_finder_that_provides_distributions_bypasses_the_cache(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Finder:
        def find_spec(self, *args: object) -> None:
            return None

        def find_distributions(self, *args: object) -> list[object]:
            return []

    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    assert entrypoints._fingerprint(sys.path) is None
    assert names_values(entry_point_list()) == from_metadata()
    assert not cache_dir.exists()


def test_a_warm_start_does_not_import_importlib_metadata(tmp_path: Path) -> None:
    """Nor pathlib, which importlib.metadata imports and gametree does not need to solve (5 ms).

    Counted from when the command starts: in an editable install, setuptools' import hook has
    already imported pathlib as Python started (that costs every Python program, not gametree)."""
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from gametree.cli import main\n"
        "try:\n    main(['solve', 'tictactoe', '--size', '3', '--json'])\n"
        "except SystemExit:\n    pass\n"
        "print([m for m in ('importlib.metadata', 'pathlib') if m in sys.modules and m not in before])\n"
    )
    env = {**os.environ, "GAMETREE_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("GAMETREE_PLUGIN_CACHE", None)
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        for _ in range(2)
    ]
    first, second = (run.stdout.strip().splitlines()[-1] for run in runs)
    assert first.startswith("['importlib.metadata'") and second == "[]"
    assert json.loads(runs[1].stdout.splitlines()[0])["value"] == "draw"


def test_the_importlib_metadata_backport_keeps_the_cache(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Importing the backport (dask does) swaps the standard path finder for its own, which searches
    the same folders: the cache still serves."""
    backport = pytest.importorskip("importlib_metadata")
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, backport.MetadataPathFinder()])
    assert entrypoints._fingerprint(sys.path) is not None
    assert names_values(entry_point_list()) == from_metadata()
    assert len(list(cache_dir.glob("entry-points-*.json"))) == 1


def test_a_deleted_working_folder_only_means_no_cache(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ "" on sys.path stands for the working folder; when it is gone, plugins are still found."""

    def gone() -> str:
        raise FileNotFoundError("the working folder was deleted")

    monkeypatch.setattr(sys, "path", ["", *sys.path])
    monkeypatch.setattr(os, "getcwd", gone)
    assert names_values(entry_point_list()) == from_metadata()
    assert not cache_dir.exists()


def _the_cache(folder: Path) -> Path:
    files = list(folder.glob("entry-points-*.json"))
    assert len(files) == 1, files
    return files[0]


def test_a_cache_others_may_write_is_not_trusted(cache_dir: Path) -> None:
    """A cache file writable by the group or others could have been written by someone else to
    hide games or import any module: it is read as a miss and rewritten privately."""
    first = entry_point_list()
    path = _the_cache(cache_dir)
    kept = json.loads(path.read_text())
    kept["entry_points"] = []  # what an attacker would write: every game hidden
    path.write_text(json.dumps(kept))
    os.chmod(path, 0o666)
    assert entry_point_list() == first
    assert path.stat().st_mode & 0o077 == 0  # rewritten for this user alone


def test_a_fifo_or_a_link_at_the_cache_path_is_replaced_not_waited_on(cache_dir: Path, tmp_path: Path) -> None:
    first = entry_point_list()
    path = _the_cache(cache_dir)
    path.unlink()
    os.mkfifo(path)  # opening it for reading would wait for a writer forever
    assert entry_point_list() == first
    assert path.is_file() and not path.is_symlink()
    target = tmp_path / "elsewhere.json"
    target.write_text("{}")
    path.unlink()
    path.symlink_to(target)
    assert entry_point_list() == first
    assert not path.is_symlink() and target.read_text() == "{}"  # the link replaced, its target untouched
