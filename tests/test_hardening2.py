"""Faults of issue 32, round two: worker processes that outlive a killed command (F3, F11), plugin
time limits for C calls (F15), a damaged numba cache (F13), out of memory (F16), sizes and counts
beyond the documented limits (F14).  Each test failed on the main branch before the fix."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable

    from conftest import GametreeCli


# -- F3, F11: workers die with a command killed outright, quietly, leaving no pymp-* folder ----------
def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    return {int(e) for e in os.listdir("/proc") if e.isdigit() and (_stat(int(e)) or ["", "0"])[1] == str(pid)}


def _alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def _cpu_seconds(pid: int) -> float:
    fields = _stat(pid)
    return 0.0 if fields is None else (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc to find the worker processes")
@pytest.mark.parametrize(
    "command",
    [
        ("solve", "connect4", "--engine", "python", "--no-store", "--workers", "2"),
        ("book", "build", "connect4", "--plies", "6", "--engine", "python", "--workers", "2", "--store", "{store}"),
    ],
)
def test_workers_die_quietly_with_a_killed_command(
    gametree_cli: GametreeCli, wait_until: Callable[..., None], tmp_path: Path, command: tuple[str, ...]
) -> None:
    """F3, F11: after SIGKILL of the command, its workers (and the fork server, the resource tracker)
    end within seconds, print nothing (no BrokenPipeError, no leaked-semaphore warning), and the
    ``pymp-*`` folder is gone from the (private) temporary folder."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    args = [a.replace("{store}", str(tmp_path / "book.sqlite")) for a in command]
    proc = gametree_cli.popen(
        *args, env={"TMPDIR": str(temporary)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    workers: set[int] = set()

    def at_work() -> bool:
        nonlocal workers
        if proc.poll() is not None:
            return True
        workers = {w for child in _children(proc.pid) for w in _children(child)}
        return len(workers) >= 2 and all(_cpu_seconds(w) >= 0.3 for w in workers)

    try:
        wait_until(at_work, "two workers at work")
        assert proc.poll() is None, proc.communicate()
        assert [p.name for p in temporary.iterdir()][0].startswith("pymp-")  # (what must go)
        descendants = workers | _children(proc.pid)  # the workers, the fork server, the resource tracker
        proc.kill()
        proc.wait()
        wait_until(lambda: not any(_alive(pid) for pid in descendants), "every worker gone", bound=15)
        wait_until(lambda: not list(temporary.iterdir()), "the pymp-* folder removed", bound=15)
        _, err = proc.communicate(timeout=15)  # (ends once every process that shares the pipe is gone)
        assert err == b"", err.decode(errors="replace")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
