"""How fast this machine runs Python at the moment: a fixed loop, timed.

Shared virtual machines have spells in which everything runs 1.2 to 1.8 times
slower for minutes at a time, so a wall time alone cannot tell a slower
program from a slower machine.  The benchmarks print this check before and
after their runs: when it is slower than usual, so are their figures.  The
loop is the interpreter's everyday work (a ``for`` over a range, an ``&`` and
an in-place add); its usual value on the reference machine is in
docs/performance.md.
"""

from __future__ import annotations

import time

#: Steps of the loop: about 40 ms on the reference machine at its usual speed.
STEPS = 1_000_000


def speed_check(repeat: int = 5) -> float:
    """Milliseconds for :data:`STEPS` steps of a fixed pure-Python loop, the fastest of ``repeat`` runs."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        total = 0
        for i in range(STEPS):
            total += i & 7
        best = min(best, time.perf_counter() - start)
    return 1000 * best


def report(when: str, repeat: int = 5) -> str:
    """A line for a benchmark's output: ``when`` ("before the runs", ...) and the check's time."""
    return (
        f"machine speed check {when}: {speed_check(repeat):.0f} ms for a fixed {STEPS:,}-step Python loop"
        f" (the fastest of {repeat})"
    )
