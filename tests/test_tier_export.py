"""Tier files (``gametree tiers export``/``import``): the round trip gives the same bytes and answers; every
bad file (damaged, cut short, of another version or game, hostile names, huge sizes, a compression bomb,
forged values) is refused in one line, exit 1, leaving nothing behind."""

from __future__ import annotations

import json
import os
import shutil
import struct
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from gametree import load
from gametree.cli import cli
from gametree.store.tier_archive import MAX_HEADER, open_tier_file
from gametree.store.tiers import digest_of
from gametree.tier_book import build_tier_book, tier_info


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3x3 tic-tac-toe's tier directory."""
    folder = tmp_path_factory.mktemp("tiers") / "ttt"
    build_tier_book(load().game("tictactoe").create(), "tictactoe", folder)
    return folder


@pytest.fixture(scope="module")
def exported(built: Path) -> Path:
    path = built.parent / "ttt.zip"
    result = run("tiers", "export", str(built), str(path))
    assert result.exit_code == 0, result.output
    return path


def run(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.output
    return result


def arrays(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("tier-*.npy"))}


def test_the_round_trip_gives_the_same_bytes_and_answers(
    gametree_cli: Any, built: Path, exported: Path, tmp_path: Path
) -> None:
    out = tmp_path / "copy"
    result = gametree_cli("tiers", "import", str(exported), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "5,478 positions in 10 tiers" in result.stdout
    assert arrays(out) == arrays(built) and len(arrays(out)) == 10
    assert sorted(p.name for p in out.iterdir()) == ["header.json", *sorted(arrays(built))]
    for moves in ("", "A1 B1 A2 B2", "B2 A1 C3"):
        query = ("tiers", "query", "tictactoe", "--moves", moves, "--json", "--out")
        assert run(*query, str(out)).output == run(*query, str(built)).output
    again = tmp_path / "again.zip"
    assert run("tiers", "export", str(out), str(again)).exit_code == 0
    assert again.read_bytes() == exported.read_bytes()  # (an export depends on the arrays alone)


def test_info_reads_a_tier_files_header_alone(built: Path, exported: Path, tmp_path: Path) -> None:
    path = tmp_path / "damaged.zip"
    data = bytearray(exported.read_bytes())
    at = data.index(b"tier-006.npy") + 200  # inside tier 6's compressed bytes
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))
    result = run("tiers", "info", str(path), "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    assert found["positions"] == 5478 and found["file_bytes"] == len(data)
    assert [t["positions"] for t in found["tiers"]] == [1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78]
    assert found["bytes"] == sum(p.stat().st_size for p in built.glob("tier-*.npy"))
    assert "not checked until imported" in run("tiers", "info", str(path)).output
    refused = run("tiers", "import", str(path), "--out", str(tmp_path / "x"))  # (the arrays are read here)
    assert refused.exit_code == 1 and "damaged" in refused.output


def test_an_existing_target_is_replaced_only_with_force(exported: Path, tmp_path: Path) -> None:
    out = tmp_path / "ttt"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    refused = run("tiers", "import", str(exported), "--out", str(out))
    assert refused.exit_code == 1 and "exists" in refused.output and "--force" in refused.output
    assert (out / "mine.txt").read_text() == "keep me"
    assert run("tiers", "import", str(exported), "--out", str(out), "--force").exit_code == 0
    assert not (out / "mine.txt").exists() and tier_info(out).positions == 5478
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ttt"]


def test_the_default_target_is_the_builds(exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert run("tiers", "import", str(exported)).exit_code == 0
    assert tier_info(tmp_path / "tictactoe-height3-k3-width3.tiers").complete


# -- bad files -------------------------------------------------------------------------------------
Members = list[tuple[str, bytes]]


def members_of(path: Path) -> Members:
    with zipfile.ZipFile(path) as archive:
        return [(i.filename, archive.read(i)) for i in archive.infolist()]


def rewrite(path: Path, members: Members, comment: bytes = b"gametree-tiers-file 1") -> None:
    with warnings.catch_warnings(), zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        warnings.simplefilter("ignore")  # (zipfile warns of a name written twice: one of the cases)
        archive.comment = comment
        for name, data in members:
            archive.writestr(name, data)


def edit_header(members: Members, change: Callable[[dict[str, Any]], None]) -> Members:
    header = json.loads(members[0][1])
    change(header)
    return [("header.json", json.dumps(header).encode()), *members[1:]]


def _foreign(header: dict[str, Any]) -> None:
    header["game"] = "chess"


def _bad_options(header: dict[str, Any]) -> None:
    header["options"]["width"] = -5


def _other_board(header: dict[str, Any]) -> None:
    header["options"] = {"width": 4, "height": 4, "k": 4}


def _huge_sizes(header: dict[str, Any]) -> None:
    header["sizes"][6] = 10**15


def _unfinished(header: dict[str, Any]) -> None:
    del header["tiers"]["9"]
    header["complete"] = False


def _sneaky_file(header: dict[str, Any]) -> None:
    header["tiers"]["3"]["file"] = "../tier-003.npy"


def _symlink(path: Path, members: Members) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.comment = b"gametree-tiers-file 1"
        for name, data in members:
            archive.writestr(name, data)
        link = zipfile.ZipInfo("tier-010.npy")
        link.external_attr = 0o120777 << 16
        archive.writestr(link, "/etc/passwd")


def _patch_declared_size(path: Path, name: str, size: int) -> None:
    """Make the archive declare ``size`` bytes for ``name`` (its local and central headers)."""
    data = bytearray(path.read_bytes())
    encoded = name.encode()
    for signature, field in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = 0
        while (at := data.find(signature, at)) >= 0:
            name_at = at + (30 if signature == b"PK\x03\x04" else 46)
            if data[name_at : name_at + len(encoded)] == encoded:
                data[at + field : at + field + 4] = struct.pack("<L", size)
            at += 4
    path.write_bytes(bytes(data))


def bad_file(kind: str, good: Path, path: Path) -> None:  # noqa: C901 (one case a branch)
    members = members_of(good)
    tier6 = dict(members)["tier-006.npy"]
    header_changes = {
        "foreign game": _foreign,
        "options the game refuses": _bad_options,
        "options of another board": _other_board,
        "huge declared tier size": _huge_sizes,
        "unfinished build": _unfinished,
        "header naming a path out": _sneaky_file,
    }
    if kind in header_changes:
        rewrite(path, edit_header(members, header_changes[kind]))
    elif kind == "corrupt":
        data = bytearray(good.read_bytes())
        data[data.index(b"tier-007.npy") + 300] ^= 0x55
        path.write_bytes(bytes(data))
    elif kind == "truncated":
        path.write_bytes(good.read_bytes()[: good.stat().st_size * 2 // 3])
    elif kind == "not a zip":
        path.write_bytes(os.urandom(5000))
    elif kind == "wrong version":
        rewrite(path, members, comment=b"gametree-tiers-file 2")
    elif kind == "another zip":
        rewrite(path, members, comment=b"")
    elif kind in ("absolute name", "climbing name", "extra member", "directory member", "member twice"):
        extra = {
            "absolute name": "/tmp/tier-003.npy",
            "climbing name": "../tier-003.npy",
            "extra member": "notes.txt",
            "directory member": "tier-010.npy/",
            "member twice": "tier-003.npy",
        }[kind]
        rewrite(path, [*members, (extra, b"x")])
    elif kind == "symlink member":
        _symlink(path, members)
    elif kind == "missing member":
        rewrite(path, [m for m in members if m[0] != "tier-004.npy"])
    elif kind == "huge header":
        rewrite(path, [("header.json", b" " * (MAX_HEADER + 1) + members[0][1]), *members[1:]])
    elif kind == "huge declared member":
        rewrite(path, members)
        _patch_declared_size(path, "tier-006.npy", 4_000_000_000)
    elif kind == "compression bomb":
        # tier 6's member inflates to 200 MB of zeros, but declares tier 6's true size
        bomb = [(n, d if n != "tier-006.npy" else b"\0" * 200_000_000) for n, d in members]
        rewrite(path, bomb)
        _patch_declared_size(path, "tier-006.npy", len(tier6))
    elif kind == "forged values":
        # the empty board a draw in 8, not 9: the header's checksum made to match (counts unchanged)
        values = np.load(good.parent / "ttt" / "tier-000.npy")
        values[0] -= 1
        forged = path.parent / "tier-000.npy"
        np.save(forged, values)

        def sign(header: dict[str, Any]) -> None:
            header["tiers"]["0"]["sha256"] = digest_of(forged)

        changed = [(n, d if n != "tier-000.npy" else forged.read_bytes()) for n, d in edit_header(members, sign)]
        forged.unlink()
        rewrite(path, changed)
    else:
        raise AssertionError(kind)


BAD = {
    "corrupt": "damaged",
    "truncated": "not a tier file",
    "not a zip": "not a tier file",
    "wrong version": "version 2; this gametree reads 1",
    "another zip": "without its mark",
    "foreign game": "'chess', which is not installed",
    "options the game refuses": "refuses the file's options",
    "options of another board": "not those of tictactoe",
    "huge declared tier size": "values take 1,000,000,000,000,000 bytes",
    "unfinished build": "not that of a finished build",
    "header naming a path out": "damaged (a field",
    "absolute name": "is an absolute path",
    "climbing name": "is a path out of the folder",
    "extra member": "is not a file of a tier directory",
    "directory member": "is not a regular file",
    "member twice": "is there twice",
    "symlink member": "is a link",
    "missing member": "lacks tier-004.npy",
    "huge header": "declares",
    "huge declared member": "tier-006.npy declares 4,000,000,000 bytes",
    "compression bomb": "tier-006.npy",
    "forged values": "position 0/0 holds draw in 8, but its moves give draw in 9",
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_bad_file_is_refused_in_one_line_leaving_nothing(kind: str, exported: Path, tmp_path: Path) -> None:
    folder = tmp_path / "here"
    folder.mkdir()
    path = folder / "bad.zip"
    bad_file(kind, exported, path)
    before = sorted(os.listdir(folder))
    result = run("tiers", "import", str(path), "--out", str(folder / "out"))
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1, result.output
    assert BAD[kind] in result.output
    assert sorted(os.listdir(folder)) == before  # no directory, no temporary file left


def test_a_bomb_is_stopped_at_its_declared_size(exported: Path, tmp_path: Path) -> None:
    path = tmp_path / "bomb.zip"
    bad_file("compression bomb", exported, path)
    assert path.stat().st_size < 1_000_000  # (200 MB inflated)
    archive = open_tier_file(path)
    assert archive.array_bytes < 100_000
    import tracemalloc

    tracemalloc.start()
    (tmp_path / "out").mkdir()
    with pytest.raises(Exception, match="damaged"):
        archive.extract(tmp_path / "out")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20_000_000
    assert sum(p.stat().st_size for p in (tmp_path / "out").iterdir()) < 100_000


def test_a_file_the_disk_cannot_hold_is_refused_before_anything_is_written(
    exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Tiny:
        free = 10_000

    monkeypatch.setattr(shutil, "disk_usage", lambda path: Tiny)
    result = run("tiers", "import", str(exported), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1 and "bytes free: refused" in result.output
    assert os.listdir(tmp_path) == []


def test_export_refuses_an_unfinished_directory(built: Path, tmp_path: Path) -> None:
    folder = tmp_path / "part"
    shutil.copytree(built, folder)
    header = json.loads((folder / "header.json").read_text())
    del header["tiers"]["0"]
    header["complete"] = False
    (folder / "header.json").write_text(json.dumps(header))
    result = run("tiers", "export", str(folder), str(tmp_path / "t.zip"))
    assert result.exit_code == 1 and "not finished (9 of 10 tiers solved)" in result.output
    assert not (tmp_path / "t.zip").exists() and sorted(os.listdir(tmp_path)) == ["part"]


def test_a_zip64_tier_file_reads_back(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files over 4 GB (6x5 Connect Four's) need ZIP64 end records: written here by lowering zipfile's limit."""
    with monkeypatch.context() as patched:
        patched.setattr(zipfile, "ZIP64_LIMIT", 1000)
        assert run("tiers", "export", str(built), str(tmp_path / "t.zip")).exit_code == 0
    data = bytearray((tmp_path / "t.zip").read_bytes())
    assert b"PK\x06\x06" in data  # (a ZIP64 end record)
    end = data.rindex(b"PK\x05\x06")
    data[end + 8 : end + 12] = b"\xff" * 4  # the classic record's counts saturated: the ZIP64 record's are read
    (tmp_path / "t.zip").write_bytes(bytes(data))
    assert run("tiers", "import", str(tmp_path / "t.zip"), "--out", str(tmp_path / "out")).exit_code == 0
    assert arrays(tmp_path / "out") == arrays(built)
    record = data.rindex(b"PK\x06\x06")
    data[record + 32 : record + 40] = struct.pack("<Q", 10**6)  # a ZIP64 record declaring a million members
    (tmp_path / "t.zip").write_bytes(bytes(data))
    refused = run("tiers", "import", str(tmp_path / "t.zip"), "--out", str(tmp_path / "again"))
    assert refused.exit_code == 1 and "declares 1,000,000 members" in refused.output


def test_a_fifo_or_a_directory_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.zip")
    for path in (tmp_path / "fifo.zip", tmp_path):
        result = run("tiers", "import", str(path), "--out", str(tmp_path / "out"))
        assert result.exit_code == 1 and "is not a regular file" in result.output
    assert not (tmp_path / "out").exists()
