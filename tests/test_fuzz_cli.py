"""Property-based fuzzing of the command line: whatever the arguments, no traceback; an error is one
``Error:`` line and a non-zero exit.

Every command, every game, and their options with values that are huge, negative, zero, NaN,
infinite, empty, non-ASCII or not numbers at all, beside small valid ones.  The commands run in
this process (``gametree.cli.main(argv)``, which handles errors as the console script does), so
a few hundred fit in well under a minute.  Valid values are kept small (boards of at most 3x3,
a few games, no worker processes) so that a command that is accepted also finishes quickly.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gametree.cli import main

if TYPE_CHECKING:
    from conftest import GametreeCli

#: Values that must be refused cleanly wherever a number or a name is expected (or accepted).
WILD = [
    "",
    "-1",
    "0",
    "-0",
    "1.5",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "1e400",
    "9" * 400,
    "x",
    "é",
    "💥",
    "--",
    "3,",
    ",,",
    "\t",
    "A1" * 300,
]
SMALL = ["1", "2", "3"]
#: About as often a small valid value as a wild one: most command lines have several values, and
#: some should be accepted and run.
value = st.sampled_from(SMALL * 6 + WILD)
small_or_wild = value

GAME_OPTIONS = {
    "tictactoe": ["--size", "--width", "--height", "--k"],
    "connect4": ["--width", "--height", "--k"],
    "nim": ["--heaps"],
}
#: Options of each command (beside the game's), each with the values it is fuzzed with.
COMMAND_OPTIONS: dict[str, dict[str, st.SearchStrategy[str]]] = {
    "solve": {
        "--moves": st.sampled_from(["A1", "B2 A1", "1", "1 2", "zz", "", "💥", "9" * 400]),
        "--algorithm": st.sampled_from(["solver", "alphabeta", "minimax", "mcts", "nope", ""]),
        "--depth": value,
        "--time-limit": st.sampled_from(["0.1"] * 10 + WILD),
        "--cache-size": st.sampled_from(["1000", "2M", "1MB"] * 4 + ["1025GB", "0kb", *WILD]),
        "--engine": st.sampled_from(["auto", "python", "compiled", "gpu", ""]),
        "--workers": st.sampled_from(["0", "-1", "99999999", "x", "nan"]),
        "--split-ply": value,
        "--iterations": st.sampled_from(["5"] * 10 + WILD),
        "--exploration": st.sampled_from(["1.0"] * 10 + WILD),
        "--seed": value,
    },
    "tree": {
        "--moves": st.sampled_from(["A1", "A1 B2", "1", "zz", "", "💥"]),
        "--algorithm": st.sampled_from(["alphabeta", "minimax", "mcts", "nope"]),
        "--depth": value,
        "--max-nodes": st.sampled_from(["50"] * 10 + WILD),
        "-f": st.sampled_from(["dot", "json", "graphml", "nope", ""]),
        "--iterations": st.sampled_from(["5"] * 10 + WILD),
    },
    "play": {
        "--x": st.sampled_from(["random", "easy", "perfect", "human", "nope", ""]),
        "--o": st.sampled_from(["random", "easy", "perfect", "nope", ""]),
        "--games": st.sampled_from(["1", "2"] * 5 + WILD),
        "--delay": st.sampled_from(["0"] * 10 + WILD),
        "--seed": value,
        "--moves": st.sampled_from(["A1", "1", "zz", "", "💥"]),
        "--engine": st.sampled_from(["auto", "python", "compiled", "gpu"]),
    },
    "learn": {
        "--games": st.sampled_from(["1", "5"] * 5 + WILD),
        "--seed": value,
        "--workers": st.sampled_from(["0", "-1", "99999999", "x"]),
    },
}
#: Flags without a value.
FLAGS = {
    "solve": ["--best-only", "--weak", "--no-cache", "--no-symmetry", "--json"],
    "tree": ["--json"],
    "play": ["--json"],
    "learn": ["--json"],
}


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from(sorted(COMMAND_OPTIONS)))
    game = draw(st.sampled_from([*sorted(GAME_OPTIONS), "nosuchgame", ""]))
    argv = [command, game]
    # The board's size first, always given for Connect Four (its default 7x6 would search for hours).
    for option in GAME_OPTIONS.get(game, []):
        if game == "connect4" and option != "--k" or draw(st.booleans()):
            argv += [
                option,
                draw(small_or_wild if option != "--heaps" else st.sampled_from(["1,2", "3", "0", "1," * 70, *WILD])),
            ]
    options = COMMAND_OPTIONS[command]
    for option in draw(st.lists(st.sampled_from(sorted(options)), max_size=4, unique=True)):
        argv += [option, draw(options[option])]
    argv += draw(st.lists(st.sampled_from(FLAGS[command]), max_size=2, unique=True))
    return argv


def run_in_process(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _stdin(""):
        try:
            main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return code, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _stdin(text: str):  # type: ignore[no-untyped-def]
    import sys

    saved = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(command_lines())
def test_any_command_line_is_an_answer_or_one_error_line(
    tmp_path_factory: pytest.TempPathFactory, argv: list[str]
) -> None:
    if argv[0] in ("tree", "learn"):  # their output goes to a file of the test's own
        argv += ["-o", str(Path(tmp_path_factory.mktemp("out")) / ("out." + ("json" if argv[0] == "learn" else "dot")))]
    code, out, err = run_in_process(argv)
    assert "Traceback" not in out + err, (argv, err)
    assert code in (0, 1, 2), (argv, code, err)
    if code != 0:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), (argv, err)


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "tictactoe", "--size", "x" * 100_000],
        ["solve", "nim", "--heaps", "x" * 100_000],
        ["solve", "tictactoe", "--width", "9" * 300],
        ["solve", "connect4", "--cache-size", "x" * 100_000],
    ],
)
def test_a_huge_bad_value_is_not_repeated_in_full(argv: list[str]) -> None:
    code, out, err = run_in_process(argv)
    lines = err.strip().splitlines()
    assert code in (1, 2) and len(lines) == 1 and len(lines[0]) < 300, (code, len(err))


# -- --batch from binary and endless input (issue 32) --------------------------------------------------
#: Lines a batch may hold besides garbage: moves, a position and its expected value, blanks.
BATCH_LINES = [b"A1", b"A1 B2", b"B2 A1 C3", b"", b"  ", b"zz", b"A1 A1", b"A1 B2 = 0", b"\xff\xfe", "💥".encode()]


@st.composite
def batch_files(draw: st.DrawFn) -> bytes:
    parts = draw(st.lists(st.one_of(st.sampled_from(BATCH_LINES), st.binary(max_size=120)), max_size=8))
    separator = draw(st.sampled_from([b"\n", b"\r\n", b"\0", b"\n\n"]))
    return separator.join(parts)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch_files(), st.sampled_from([(), ("--keep-going",), ("--json",), ("--keep-going", "--json")]))
def test_a_batch_of_any_bytes_is_answers_or_error_lines(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, flags: tuple[str, ...]
) -> None:
    batch = Path(tmp_path_factory.mktemp("batch")) / "batch.txt"
    batch.write_bytes(data)
    code, out, err = run_in_process(["solve", "tictactoe", "--batch", str(batch), "--no-store", *flags])
    assert "Traceback" not in out + err and "unexpected" not in err, (data, err)
    assert code in (0, 1), (data, code, err)
    lines = err.strip().splitlines()
    if code != 0 and "--keep-going" not in flags:
        assert len(lines) == 1 and lines[0].startswith("Error: "), (data, err)
    if code == 0:
        assert "Error" not in err, (data, err)


def _endless(kind: str, seed: int) -> Iterator[bytes]:
    """An endless stream of ``kind``: NUL bytes, random bytes, random short text lines, one line again
    and again."""
    import random

    rng = random.Random(seed)
    while True:
        if kind == "zeros":
            yield bytes(65536)
        elif kind == "random bytes":
            yield rng.randbytes(65536)
        elif kind == "random text lines":
            yield "".join(rng.choice("ABC123 \n") for _ in range(4096)).encode()
        else:
            yield b"A1 B2\n" * 10000


@contextlib.contextmanager
def _piped_stdin(chunks: Iterator[bytes]) -> Iterator[None]:
    """Standard input read from a pipe that a thread fills from ``chunks`` until the reader closes it."""
    import os
    import sys
    import threading

    read, write = os.pipe()

    def fill() -> None:
        with open(write, "wb", buffering=0) as pipe:
            with contextlib.suppress(BrokenPipeError, OSError):
                for chunk in chunks:
                    pipe.write(chunk)

    writer = threading.Thread(target=fill, daemon=True)
    writer.start()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(open(read, "rb"), encoding="utf-8")
    try:
        yield
    finally:
        sys.stdin.close()  # (the writer then meets a broken pipe and stops)
        sys.stdin = saved
        writer.join(10)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["zeros", "random bytes", "random text lines", "one line again"]), st.integers(0, 2**32))
def test_a_batch_from_endless_input_ends_with_one_error_line(kind: str, seed: int) -> None:
    """Endless input on standard input through a pipe: refused in one line, in bounded time (the
    bounds made small here, so that each example reads little; the real ones are tested below)."""
    import time

    from gametree.cli import solve as solve_command

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solve_command, "MAX_BATCH_CHARACTERS", 200_000)
        patch.setattr(solve_command, "MAX_BATCH_LINES", 5_000)
        patch.setattr(solve_command, "MAX_BATCH_LINE", 10_000)
        start = time.monotonic()
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _piped_stdin(_endless(kind, seed)):
            with pytest.raises(SystemExit) as ended:
                main(["solve", "tictactoe", "--batch", "-", "--no-store"])
        took = time.monotonic() - start
    lines = err.getvalue().strip().splitlines()
    assert ended.value.code == 1 and len(lines) == 1 and lines[0].startswith("Error: "), (kind, err.getvalue())
    assert "Traceback" not in err.getvalue() and "unexpected" not in lines[0]
    assert took < 30, took  # (a hang guard: each reads at most 200,000 characters)


@pytest.mark.parametrize("kind", ["zeros", "random bytes", "one line again"])
def test_the_real_batch_bounds_stop_endless_input_through_a_pipe(
    gametree_cli: GametreeCli, kind: str, tmp_path: Path
) -> None:
    """The command itself, its standard input an endless stream through a pipe: one line, exit 1, with
    the real bounds (a stream of short lines took 2 minutes and 3 GB before MAX_BATCH_LINES)."""
    import subprocess
    import sys
    import threading

    # The peak is measured by a small launcher: a process forked from this (large) test process
    # would report this process's peak as its own (ru_maxrss survives fork and exec).
    launcher = (
        "import resource, subprocess, sys; code = subprocess.call(sys.argv[2:]); "
        "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); sys.exit(code)"
    )
    peak_file = tmp_path / "peak"
    argv = [sys.executable, "-c", launcher, str(peak_file), *gametree_cli.argv("solve", "tictactoe", "--batch", "-")]
    proc = subprocess.Popen(
        [*argv, "--no-store"],
        env=gametree_cli.env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None

    def fill() -> None:
        with contextlib.suppress(BrokenPipeError, OSError):
            for chunk in _endless(kind, 1):
                proc.stdin.write(chunk)  # type: ignore[union-attr]

    writer = threading.Thread(target=fill, daemon=True)
    writer.start()
    guard = threading.Timer(120, proc.kill)  # (a hang guard)
    guard.start()
    try:
        proc.wait()
        out, err = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
    finally:
        guard.cancel()
        if proc.returncode is None:
            proc.kill()
            proc.wait()
    lines = err.decode().strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1 and lines[0].startswith("Error: "), err
    assert out == b""
    peak = int(peak_file.read_text())
    assert peak < 1_000_000, peak  # kilobytes: under 1 GB (3 GB before)


#: Tokens a generated book's lines are made of: valid keys and numbers beside wild ones.
BOOK_TOKENS = [
    "0",
    "1",
    "-1",
    "4",
    "null",
    '"k"',
    '"(1, 2)"',
    '"\\ud800"',
    "\udc80",
    str(2**63),
    str(2**70),
    "-" + str(2**70),
    "1.5",
    "nan",
    "1e5",
    "[" * 40,
    "{}",
    "💥",
    "",
    "x" * 300,
]
BOOK_HEADERS = [
    {"format": "gametree-book", "version": 1, "game": "tictactoe", "options": {"width": 3, "height": 3, "k": 3}},
    {"format": "gametree-book", "version": 2, "game": "tictactoe", "options": {"width": 3, "height": 3, "k": 3}},
    {"format": "gametree-book", "version": 2, "game": "nim", "options": {"heaps": "1,2"}},
    {"format": "gametree-book", "version": 2, "game": "chess", "options": {}},
    {"format": "gametree-book", "version": 2, "game": "tictactoe", "options": {"width": -5}},
    {"format": "gametree-book", "version": 3, "game": "tictactoe", "options": {}},
    {"format": "other"},
    [],
]


#: Valid values of each field of a book line (``key score images kind best``).
BOOK_FIELDS = [["0", "1", "4", "16"], ["0", "1", "-1", "2"], ["1", "4"], ["0", "1", "-1"], ["null", "0", "4"]]


@st.composite
def book_lines(draw: st.DrawFn) -> str:
    """A line of a book: mostly well formed, each field valid or (about one in five) wild."""
    if draw(st.integers(0, 9)) == 0:
        return " ".join(draw(st.lists(st.sampled_from(BOOK_TOKENS), max_size=6)))
    fields = BOOK_FIELDS[: draw(st.sampled_from([3, 5]))]
    return " ".join(
        draw(st.sampled_from(BOOK_TOKENS)) if draw(st.integers(0, 4)) == 0 else draw(st.sampled_from(valid))
        for valid in fields
    )


@st.composite
def book_files(draw: st.DrawFn) -> bytes:
    """A book file: a header (mostly a valid one), lines mostly well formed, gzip-compressed (or cut
    short, or not compressed at all)."""
    import gzip
    import json

    headers = [json.dumps(h) for h in BOOK_HEADERS] + ["{", "", "💥" * 10]
    header = draw(st.sampled_from(headers[:2] * 6 + headers))
    lines = draw(st.lists(book_lines(), max_size=12))
    text = "\n".join([header, *lines]).encode("utf-8", "surrogatepass")
    data = gzip.compress(text, mtime=0)
    cut = draw(st.sampled_from(["whole"] * 8 + ["cut", "plain"]))
    return data[: len(data) // 2] if cut == "cut" else text if cut == "plain" else data


def _book(*lines: str, game: str = "tictactoe", options: str = '{"width": 3, "height": 3, "k": 3}') -> bytes:
    import gzip

    header = f'{{"format": "gametree-book", "version": 2, "game": "{game}", "options": {options}}}'
    return gzip.compress("\n".join([header, *lines]).encode("utf-8", "surrogatepass"), mtime=0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(book_files())
# The faults the reliability audit met (F5, F10), always tried beside the generated files.
@example(_book(f"0 {2**70} 1"))
@example(_book(f"{2**70} 0 1"))
@example(_book('"\\ud800" 0 1'))
@example(_book("0 0 -99999999"))
@example(_book("0 1 1", "4 1 4"))
@example(_book("0 0 1", game="chess", options="{}"))
@example(_book("0 0 1", options='{"width": -5, "height": 3, "k": 3}'))
def test_book_import_of_any_file_is_an_answer_or_one_error_line(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    folder = Path(tmp_path_factory.mktemp("book"))
    (folder / "f.book").write_bytes(data)
    code, out, err = run_in_process(["book", "import", str(folder / "f.book"), "--store", str(folder / "s.sqlite")])
    assert "Traceback" not in out + err and "unexpected" not in err, err
    assert code in (0, 1), (code, err)
    if code != 0:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), err
