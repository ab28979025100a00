"""Size limits, checked with the real command: a board too large to build (F6) or to search to
the end (F12) is a one-line error and a non-zero exit, never a traceback, a memory blow-up or a
RecursionError.  Each command runs in a fresh interpreter with capped memory, so that a lost
limit fails the test instead of eating the machine."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import CliResult, GametreeCli

#: Address space of each command (the 100x100 board and an interpreter need well under 1 GiB).
MEMORY_CAP = 2 << 30


def _cap_memory() -> None:  # pragma: no cover - runs in the child
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def capped(gametree_cli: GametreeCli, *args: str, input: str | None = None) -> CliResult:
    """The real command line in a fresh interpreter with capped memory (on POSIX)."""
    return gametree_cli(*args, input=input, preexec_fn=_cap_memory if os.name == "posix" else None)


def one_line_error(out: CliResult) -> str:
    """The one ``Error:`` line of a command that failed cleanly."""
    assert out.returncode != 0, out.stdout[-2000:]
    assert "Traceback" not in out.stderr and "RecursionError" not in out.stderr, out.stderr[-2000:]
    errors = [line for line in out.stderr.splitlines() if line.startswith("Error")]
    assert len(errors) == 1, out.stderr[-2000:]
    return errors[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--width", "100000", "--height", "1", "--k", "1"], "Invalid value for '--width': must be at most 100"),
        (["--width", "1000000", "--height", "1000"], "Invalid value for '--width': must be at most 100"),
        (["--height", "99999999999999999999"], "Invalid value for '--height': must be at most 100"),
        (["--width", "0"], "Invalid value for '--width': must be at least 1"),
        (["--height", "-3"], "Invalid value for '--height': must be at least 1"),
        (["--k", "0"], "Invalid value for '--k': 0 cannot fit on a 7x6 board"),
        (["--k", "8"], "Invalid value for '--k': 8 cannot fit on a 7x6 board"),
    ],
)
def test_connect4_board_limits_are_one_line_errors(gametree_cli: GametreeCli, args: list[str], message: str) -> None:
    """F6: refused before anything is built, as tic-tac-toe and Nim refuse theirs: a usage error
    (exit 2, as click's own checks), naming the option and the command's help."""
    out = capped(gametree_cli, "solve", "connect4", *args)
    error = one_line_error(out)
    assert (
        out.returncode == 2
        and error.startswith(f"Error: {message}")
        and error.endswith("(see 'gametree solve connect4 --help')")
    ), error


def test_connect4_100x100_to_the_end_is_refused_and_a_depth_limit_is_searched(gametree_cli: GametreeCli) -> None:
    """F12: the board is legal, but a search to the end would recurse 10,000 plies deep."""
    error = one_line_error(capped(gametree_cli, "solve", "connect4", "--width", "100", "--height", "100"))
    assert "too large for a search to the end" in error and "--depth" in error
    out = capped(
        gametree_cli,
        "solve",
        "connect4",
        "--width",
        "100",
        "--height",
        "100",
        "-a",
        "alphabeta",
        "--depth",
        "1",
        "--best-only",
    )
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr[-2000:]


def test_play_connect4_100x100_hint_is_a_message_and_the_game_goes_on(gametree_cli: GametreeCli) -> None:
    """F12 in ``gametree play``: 'hint' (a full solve) says why it cannot, and the game goes on."""
    out = capped(
        gametree_cli, "play", "connect4", "--width", "100", "--height", "100", "--o", "random", input="hint\nquit\n"
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Traceback" not in out.stderr and "RecursionError" not in out.stderr, out.stderr[-2000:]
    # The hint's exact solve recurses until Python's limit says no, or its 1.5 s run out first
    # (then it gives a best guess): which comes first depends on the machine's speed.
    hints = [line for line in out.stdout.splitlines() if "No hint" in line or "Not proven in" in line]
    assert len(hints) == 1, out.stdout[-2000:]
    assert "too large for a search to the end" in hints[0] or "Best guess" in hints[0], hints[0]
    assert out.stdout.rstrip().endswith("Goodbye.")


def test_play_connect4_100x100_against_perfect_is_a_one_line_error(gametree_cli: GametreeCli) -> None:
    """F12 in ``gametree play``: the 'perfect' player cannot solve the board: a one-line error."""
    out = capped(
        gametree_cli, "play", "connect4", "--width", "100", "--height", "100", "--o", "perfect", input="50\nquit\n"
    )
    error = one_line_error(out)
    assert "too large for a search to the end" in error
