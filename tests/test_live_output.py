"""The live line on a terminal where standard output and standard error are the same (tmux, a
plain terminal): what is printed while it shows goes above it, never onto it (issue 34, item 5)."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time

#: Control codes: a line erased (rich clears its live line with it), the cursor moved.
ERASE = re.compile(rb"\x1b\[2K")


def _on_a_terminal(cli, *args: str, bound: float = 300) -> bytes:
    """Run ``gametree ARGS`` with standard output and standard error on one pseudo-terminal, as
    in tmux, and return every byte the terminal got."""
    import pty

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 200, 0, 0))
    process = cli.popen(
        *args,
        env={"COLUMNS": None, "LINES": None, "TERM": "xterm-256color"},
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    os.close(follower)
    raw = b""
    deadline = time.monotonic() + bound  # a hang guard, not a speed claim
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if not ready:
            if process.poll() is not None:
                break
            continue
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        raw += data
    process.kill()
    process.wait()
    os.close(leader)
    return raw


def test_the_proven_line_and_the_result_start_on_a_clean_line(gametree_cli) -> None:
    # 6x4 Connect Four on the Python engine: long enough (about a second) for the live line to show.
    raw = _on_a_terminal(
        gametree_cli,
        "solve",
        "connect4",
        "--width",
        "6",
        "--height",
        "4",
        "--no-store",
        "--best-only",
        "--engine",
        "python",
    )
    assert b"proving the value" in raw, raw[-2000:]  # the live line was shown (else the test shows nothing)
    for text in (b"Proven in", b"Red to move."):
        at = raw.index(text)
        before = raw[:at]
        # Right before it: the start of a line, or the live line erased (with the cursor codes after it).
        tail = re.sub(rb"(\x1b\[[0-9;?]*[A-Za-z])+$", b"", before)
        assert tail.endswith((b"\n", b"\r")) or ERASE.search(before[len(tail) :]), before[-300:]
