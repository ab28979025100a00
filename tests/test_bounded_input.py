"""Input that is not what it claims (issue 32): a store path that is no regular file, endless or binary
batches, empty file names and sizes. Each is refused in one line, without reading on or hanging."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import GametreeCli


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


def test_a_fifo_a_folder_or_a_device_is_no_store(gametree_cli: GametreeCli, tmp_path) -> None:
    """SQLite would block for ever opening a FIFO (and ignore Ctrl-C): it is refused before it is opened."""
    fifo = tmp_path / "f.sqlite"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "a FIFO"), (tmp_path, "a folder"), ("/dev/null", "not a regular file")):
        for args in (("book", "info"), ("solve", "tictactoe")):
            done = gametree_cli(*args, "--store", str(path), timeout=120)
            assert done.returncode == 1, done.stderr
            assert _one_line(done.stderr) == f"Error: {path} is {kind}, not a gametree store: give --store a file"


def test_a_batch_of_endless_or_binary_input_is_refused_at_once(gametree_cli: GametreeCli, monkeypatch) -> None:
    done = gametree_cli("solve", "tictactoe", "--batch", "/dev/zero", "--no-store", timeout=120)
    assert done.returncode == 1
    assert _one_line(done.stderr) == "Error: /dev/zero:1: a line of more than 1,048,576 characters: not a line of moves"
    # An endless stream of short lines is bounded by the batch's size (here made small, in this process).
    from click.testing import CliRunner

    from gametree.cli import solve as solve_command
    from gametree.cli.root import cli

    monkeypatch.setattr(solve_command, "MAX_BATCH_CHARACTERS", 1000)
    result = CliRunner().invoke(cli, ["solve", "tictactoe", "--batch", "-", "--no-store"], input="A1\n" * 400)
    assert result.exit_code == 1
    assert "<stdin>: more than 1,000 characters: split the batch into smaller files" in result.output
    fine = CliRunner().invoke(cli, ["solve", "tictactoe", "--batch", "-", "--no-store"], input="A1\n" * 300)
    assert fine.exit_code == 0, fine.output


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (("solve", "tictactoe", "--store", ""), "'--store'"),
        (("book", "info", "--store", " "), "'--store'"),
        (("solve", "tictactoe", "--no-store", "--cache-size", ""), "--cache-size"),
        (("tree", "tictactoe", "--moves", "A1 B2 C3", "-o", ""), "'-o' / '--output'"),
    ],
)
def test_an_empty_file_name_or_size_is_refused(gametree_cli: GametreeCli, args: tuple[str, ...], flag: str) -> None:
    """Before: --store '' used the default store, --cache-size '' the default size, -o '' said
    'cannot write : Is a directory'."""
    done = gametree_cli(*args)
    assert done.returncode == 2
    assert _one_line(done.stderr).startswith(f"Error: Invalid value for {flag}")
