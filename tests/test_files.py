"""``gametree.files.write_atomically`` (and ``write_privately``).

A failed write leaves the old file as it was, and no temporary file.
"""

from __future__ import annotations

import errno
import os
import stat
import sys

import pytest

from gametree.files import write_atomically, write_privately

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions, symlinks and devices")


def test_writes_a_new_file_and_replaces_an_old_one(tmp_path):
    path = tmp_path / "out.json"
    write_atomically(path, b"first")
    assert path.read_bytes() == b"first"
    write_atomically(str(path), b"second, longer than the first")
    assert path.read_bytes() == b"second, longer than the first"
    write_atomically(path, b"")
    assert path.read_bytes() == b""
    assert os.listdir(tmp_path) == ["out.json"]


def _failing(exc: BaseException):
    def fail(*args, **kwargs):
        raise exc

    return fail


@pytest.mark.parametrize(
    "target, exc",
    [
        ("replace", OSError(errno.EXDEV, "Invalid cross-device link")),
        ("fsync", OSError(errno.ENOSPC, "No space left on device")),  # a full disk shows at the latest here
        ("fsync", KeyboardInterrupt()),  # Ctrl-C (or a SIGTERM turned into an exception) while writing
    ],
)
def test_a_failure_midway_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch, target, exc):
    path = tmp_path / "table.json"
    path.write_bytes(b"the old table")
    monkeypatch.setattr(os, target, _failing(exc))
    with pytest.raises(type(exc)):
        write_atomically(path, b"the new table" * 1000)
    assert path.read_bytes() == b"the old table"
    assert os.listdir(tmp_path) == ["table.json"]


def test_data_that_cannot_be_written_leaves_the_old_file(tmp_path):
    path = tmp_path / "table.json"
    path.write_bytes(b"the old table")
    with pytest.raises(TypeError):
        write_atomically(path, "text, not bytes")  # type: ignore[arg-type]  # the write itself raises, after the temporary exists
    assert path.read_bytes() == b"the old table"
    assert os.listdir(tmp_path) == ["table.json"]


def test_a_missing_folder_or_a_folder_as_target_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        write_atomically(tmp_path / "no" / "such" / "folder.json", b"x")
    (tmp_path / "folder").mkdir()
    with pytest.raises(OSError):
        write_atomically(tmp_path / "folder", b"x")
    assert sorted(os.listdir(tmp_path)) == ["folder"] and os.listdir(tmp_path / "folder") == []


@posix_only
def test_permissions_follow_the_umask_or_the_old_file(tmp_path):
    old = os.umask(0o027)
    try:
        write_atomically(tmp_path / "new.svg", b"x")
    finally:
        os.umask(old)
    assert (
        stat.S_IMODE(os.stat(tmp_path / "new.svg").st_mode) == 0o640
    )  # as open(path, "w") would make it, not mkstemp's 0o600
    kept = tmp_path / "kept.json"
    kept.write_bytes(b"old")
    kept.chmod(0o604)
    write_atomically(kept, b"new")
    assert kept.read_bytes() == b"new" and stat.S_IMODE(os.stat(kept).st_mode) == 0o604


@posix_only
def test_a_symlink_is_written_through(tmp_path):
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "table.json"
    real.write_bytes(b"old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_atomically(link, b"new")
    assert link.is_symlink() and real.read_bytes() == b"new"
    assert os.listdir(tmp_path / "real") == ["table.json"]


@posix_only
def test_a_device_is_written_directly(monkeypatch):
    # /dev/null cannot be replaced (and must not be): it is written to as before.
    monkeypatch.setattr(os, "replace", _failing(AssertionError("a device must not be replaced")))
    write_atomically(os.devnull, b"into the void")


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="names an open file by /proc/self/fd")
@pytest.mark.parametrize("write", [write_atomically, write_privately])
def test_the_data_are_on_disk_before_the_rename(tmp_path, monkeypatch, write):
    """The new file is fsynced before it is renamed onto the path (else a crash could leave the
    path empty on a file system that makes the rename durable first): the plugin cache too."""
    path = tmp_path / "cache.json"
    events = []
    fsync, replace = os.fsync, os.replace

    def fsync_noted(fd):
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        fsync(fd)

    def replace_noted(source, target):
        events.append(("replace", os.fspath(source)))
        replace(source, target)

    monkeypatch.setattr(os, "fsync", fsync_noted)
    monkeypatch.setattr(os, "replace", replace_noted)
    write(path, b"new")
    (temporary,) = [name for what, name in events if what == "replace"]
    assert events.index(("fsync", temporary)) < events.index(("replace", temporary)), events
    assert path.read_bytes() == b"new"
