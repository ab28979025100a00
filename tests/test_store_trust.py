"""Issue 32, the store and book files: nothing read is trusted (F5, F6, F10), a damaged store is
reported as such (F5, F12), SQLite's own error on a full disk (F8), a read-only store can be read
(F9).  Each test failed on 0413957; every error is one line naming the file, never ``unexpected``."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gametree import load
from gametree.book import positions_up_to
from gametree.cli import main
from gametree.store import SolutionStore, StoreError, import_book

TTT = {"width": 3, "height": 3, "k": 3}
SHIPPED = Path(__file__).resolve().parents[1] / "games" / "books" / "connect4-7x6.book"


def run(*argv: str) -> tuple[int, str, str]:
    """``gametree ARGV`` in this process, as the console script handles errors."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return code, out.getvalue(), err.getvalue()


def one_error(code: int, err: str, *names: str) -> str:
    """The one ``Error:`` line of a failed command, which names ``names`` (and nothing unexpected)."""
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and lines[0].startswith("Error: "), (code, err)
    assert "unexpected" not in err and "Traceback" not in err, err
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


def write_book(
    path: Path, lines: list[str], *, game: str = "tictactoe", options: object = None, version: int = 2
) -> str:
    header = {
        "format": "gametree-book",
        "version": version,
        "game": game,
        "options": TTT if options is None else options,
    }
    text = "\n".join([json.dumps(header), *lines]) + "\n"
    path.write_bytes(gzip.compress(text.encode("utf-8", "surrogatepass")))
    return str(path)


@pytest.fixture(scope="module")
def ttt_book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The strong solution of 3x3 tic-tac-toe, exported (765 entries)."""
    folder = tmp_path_factory.mktemp("book")
    assert run("book", "build", "tictactoe", "--all", "--store", str(folder / "s.sqlite"))[0] == 0
    assert (
        run("book", "export", "tictactoe", "-o", str(folder / "ttt.book"), "--store", str(folder / "s.sqlite"))[0] == 0
    )
    return folder / "ttt.book"


def book_lines(path: Path) -> list[str]:
    return gzip.decompress(path.read_bytes()).decode().splitlines()


def dump(path: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]], list[tuple[object, ...]]]:
    db = sqlite3.connect(path)
    try:
        return tuple(  # type: ignore[return-value]
            sorted(db.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
            for table in ("games", "positions", "builds")
        )
    finally:
        db.close()


# -- F5: a book is checked before it is trusted ---------------------------------------------------


def test_a_correct_book_imports_and_is_checked_against_its_moves(tmp_path: Path, ttt_book: Path) -> None:
    code, _, err = run("book", "import", str(ttt_book), "--store", str(tmp_path / "s.sqlite"))
    assert code == 0, err
    assert "imported 765 entries" in err and "627 positions reached from the start, 627 of them against all" in err
    with SolutionStore(tmp_path / "s.sqlite") as store:
        entries = dict((k, v) for k, v, *_ in store.entries_of("tictactoe", TTT).entries())
    game = load().game("tictactoe").create()
    assert entries[game.canonical_key(game.initial_state())] == 0  # (3x3 is a draw)


def test_a_book_with_rewritten_scores_is_refused_and_the_store_left_as_it_was(tmp_path: Path, ttt_book: Path) -> None:
    store = tmp_path / "s.sqlite"
    assert run("book", "build", "tictactoe", "--plies", "2", "--store", str(store))[0] == 0
    before = dump(store)
    lines = book_lines(ttt_book)
    forged = [lines[0]] + [" ".join([f[0], "1" if f[1] == "0" else f[1], *f[2:]]) for f in map(str.split, lines[1:])]
    path = write_book(tmp_path / "forged.book", forged[1:], version=1)
    error = one_error(*run("book", "import", path, "--store", str(store))[::2], path)
    assert "contradicts its moves" in error and "left as it was" in error
    assert dump(store) == before
    code, out, err = run("solve", "tictactoe", "--store", str(store), "--best-only")
    assert code == 0 and "draw" in out, err


def test_a_refused_book_leaves_no_new_store_behind(tmp_path: Path) -> None:
    path = write_book(tmp_path / "start.book", ["0 1 1"])
    one_error(*run("book", "import", path, "--store", str(tmp_path / "new.sqlite"))[::2], path)
    assert not any(p.name.startswith("new.sqlite") for p in tmp_path.iterdir())


def test_a_wrong_entry_whose_moves_are_not_in_the_book_is_proven_again(tmp_path: Path) -> None:
    # The start alone, scored as a win for X: no move of it is in the book, so the solver proves it again.
    path = write_book(tmp_path / "start.book", ["0 1 1"])
    error = one_error(*run("book", "import", path, "--store", str(tmp_path / "s.sqlite"))[::2], f"{path}:2:")
    assert "scores 0 (proven again now), not score 1" in error
    path = write_book(tmp_path / "right.book", ["0 0 1"])
    code, _, err = run("book", "import", path, "--store", str(tmp_path / "s.sqlite"))
    assert code == 0 and "1 proven again" in err, err


@pytest.mark.parametrize(
    ("lines", "header", "line", "words"),
    [
        (["0 0 1"], {"game": "chess", "options": {}}, 1, "not installed"),
        (["0 0 1"], {"options": {"width": -5, "height": 3, "k": 3}}, 1, "refuses the book's options"),
        (["0 0 1"], {"options": {"width": 3}}, 1, "not the board's own"),
        (["0 0 -99999999"], {}, 2, "count of images"),
        (["0 0 0"], {}, 2, "count of images"),
        ([f"0 {2**70} 1"], {}, 2, "not an integer of at most 64 bits"),
        ([f"{2**70} 0 1"], {}, 2, "key"),
        (['"\\ud800" 0 1'], {}, 2, "lone surrogate"),
        (['"\udc80" 0 1'], {}, 2, "not UTF-8"),
        (['"abc" 0 1'], {}, 2, "its keys are integers"),
        (["0 6 1"], {}, 2, "out of tictactoe's range"),
        (["0 0 1", "4 0 4", "0 0 1"], {}, 4, "given twice (first on line 2)"),
        (["0 0 1 7 null"], {}, 2, "kind of an entry"),
        (["0 1 3 1 null"], {}, 2, "a bound stands for one position"),
        (["0 0 1 0 99"], {}, 2, "chosen move"),
        (["0 1.5 1"], {}, 2, "score"),
        (["[" * 50_000 + " 0 1"], {}, 2, "key"),
        (["0 0"], {}, 2, "not 'key score images"),
        ([""], {}, 2, "not 'key score images"),
    ],
)
def test_a_bad_line_is_one_error_with_its_number(
    tmp_path: Path, lines: list[str], header: dict[str, object], line: int, words: str
) -> None:
    store = tmp_path / "s.sqlite"
    assert run("book", "build", "tictactoe", "--plies", "1", "--store", str(store))[0] == 0
    before = dump(store)
    path = write_book(tmp_path / "bad.book", lines, **header)  # type: ignore[arg-type]
    error = one_error(*run("book", "import", path, "--store", str(store))[::2], f"{path}:{line}:")
    assert words in error
    assert dump(store) == before


def test_a_store_whose_values_contradict_each_other_is_reported_as_damaged(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    assert run("book", "build", "tictactoe", "--all", "--store", str(store))[0] == 0
    db = sqlite3.connect(store)
    with db:
        db.execute("UPDATE positions SET score = 1 WHERE score = 0")  # (by hand: every draw a win)
    db.close()
    for argv in (["solve", "tictactoe"], ["solve", "tictactoe", "--moves", "B2"]):
        error = one_error(*run(*argv, "--store", str(store))[::2], str(store), "--no-store")
        assert "contradict each other" in error and "AssertionError" not in error
    assert "draw" in run("solve", "tictactoe", "--no-store", "--best-only")[1]


def test_a_store_entry_of_a_bad_kind_is_damage(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    assert run("solve", "tictactoe", "--store", str(store), "--best-only")[0] == 0
    db = sqlite3.connect(store)
    with db:
        db.execute("UPDATE positions SET bound = 7, score = 'x'")
    db.close()
    one_error(*run("solve", "tictactoe", "--store", str(store))[::2], str(store), "is damaged")


@pytest.mark.parametrize(
    "edit",
    ["UPDATE positions SET images = -99999999", "UPDATE positions SET images = 'x'", "UPDATE builds SET seconds = 'x'"],
)
def test_a_store_with_counts_out_of_range_is_reported_as_damaged(tmp_path: Path, edit: str) -> None:
    store = tmp_path / "s.sqlite"
    assert run("book", "build", "tictactoe", "--plies", "1", "--store", str(store))[0] == 0
    db = sqlite3.connect(store)
    with db:
        db.execute(edit)
    db.close()
    one_error(*run("book", "info", "--store", str(store))[::2], str(store), "is damaged")


def test_a_store_whose_options_are_not_json_is_reported_as_damaged(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    assert run("solve", "tictactoe", "--store", str(store), "--best-only")[0] == 0
    db = sqlite3.connect(store)
    with db:
        db.execute("UPDATE games SET options = '{not json'")
    db.close()
    error = one_error(*run("book", "info", "--store", str(store))[::2], str(store), "is damaged")
    assert "not a JSON object" in error and "JSONDecodeError" not in error


# -- the shipped books ----------------------------------------------------------------------------


def test_the_shipped_book_passes_the_whole_check_and_its_checksum_is_recorded(tmp_path: Path) -> None:
    from gametree.book_check import BookChecker, recorded_digest
    from gametree.store import book_digest

    assert recorded_digest(str(SHIPPED)) == book_digest(str(SHIPPED))
    checker = BookChecker(load().games)
    started = time.perf_counter()
    with SolutionStore(tmp_path / "s.sqlite") as store:
        _, count = import_book(store, str(SHIPPED), vetter=checker)  # (no digest: the whole check)
    took = time.perf_counter() - started
    assert count == 5648 and checker.report is not None and checker.report.walked > 5000
    assert took < 10, took  # (0.3 s here; the first use of a store trusts the checksum instead)


def test_a_shipped_book_that_does_not_match_its_checksum_is_checked_whole(tmp_path: Path, ttt_book: Path) -> None:
    from gametree.book_check import BookChecker, recorded_digest
    from gametree.store import book_digest

    lines = book_lines(ttt_book)
    forged = write_book(
        tmp_path / "t.book", [" ".join([f[0], "1" if f[1] == "0" else f[1], f[2]]) for f in map(str.split, lines[1:])]
    )
    Path(forged + ".sha256").write_text("0" * 64 + "  t.book\n")
    with SolutionStore(tmp_path / "s.sqlite") as store:
        with pytest.raises(StoreError, match="contradicts its moves"):
            import_book(store, forged, vetter=BookChecker(load().games), trusted_digest=recorded_digest(forged))
        Path(forged + ".sha256").write_text(book_digest(forged) + "  t.book\n")  # (recorded: trusted)
        _, count = import_book(store, forged, vetter=BookChecker(load().games), trusted_digest=recorded_digest(forged))
    assert count == 765


# -- F6: a book is streamed, with bounds ----------------------------------------------------------


@pytest.mark.parametrize("filler", [b"0" * (1 << 20), b"\n" * (1 << 20), b"0 0 1\n" * (1 << 17)])
def test_a_compressed_bomb_is_refused_in_bounded_memory(tmp_path: Path, filler: bytes) -> None:
    """About 1 MB of gzip that holds 1 GiB (one member of 1 MiB, a thousand times over)."""
    header = json.dumps({"format": "gametree-book", "version": 1, "game": "tictactoe", "options": TTT})
    path = tmp_path / "bomb.book"
    path.write_bytes(gzip.compress(header.encode() + b"\n", mtime=0) + gzip.compress(filler, mtime=0) * 1024)
    assert path.stat().st_size < 2 << 20
    code = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
        "from gametree.cli import main; main(sys.argv[1:])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "book", "import", str(path), "--store", str(tmp_path / "s.sqlite")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    one_error(done.returncode, done.stderr, str(path))


def test_a_book_larger_than_the_bound_is_refused(
    tmp_path: Path, ttt_book: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gametree.store.files as files

    monkeypatch.setattr(files, "MAX_BOOK_BYTES", 1000)
    error = one_error(*run("book", "import", str(ttt_book), "--store", str(tmp_path / "s.sqlite"))[::2], str(ttt_book))
    assert "more than 1,000 bytes once decompressed" in error


# -- F12: damaged pages ---------------------------------------------------------------------------


@pytest.mark.parametrize(("offset", "size"), [(3 * 4096, 4 * 4096), (100, 300)])  # (entries; the schema)
def test_a_store_with_damaged_pages_says_so_in_every_command(tmp_path: Path, offset: int, size: int) -> None:
    store = tmp_path / "s.sqlite"
    assert run("book", "build", "tictactoe", "--all", "--store", str(store))[0] == 0
    with open(store, "r+b") as stream:
        stream.seek(offset)
        stream.write(b"\xa5" * size)
    for argv in (
        ["book", "info"],
        ["book", "export", "tictactoe", "-o", str(tmp_path / "out.book")],
        ["solve", "tictactoe"],
    ):
        error = one_error(*run(*argv, "--store", str(store))[::2], str(store), "is damaged", "--no-store")
        assert "DatabaseError" not in error


# -- F8: a full disk ------------------------------------------------------------------------------


def test_a_full_store_reports_sqlites_own_error(tmp_path: Path) -> None:
    with SolutionStore(tmp_path / "s.sqlite") as store:
        entries = store.entries_of("tictactoe", TTT)
        entries.put_many([(0, 0)])
        pages = store.db.execute("PRAGMA page_count").fetchone()[0]
        store.db.execute(f"PRAGMA max_page_count = {pages}")  # (the disk is full now)
        with pytest.raises(StoreError, match="database or disk is full") as caught:
            entries.put_many([(k, 0) for k in range(1, 20_000)])
        assert "rollback" not in str(caught.value) and str(store.path) in str(caught.value)
        assert entries.record([(k, 0) for k in range(1, 20_000)], []) == 0
        assert entries.write_error is not None and "database or disk is full" in entries.write_error
        assert entries.get(0) == 0 and entries.get(5) is None  # (the store as it was)


def _in_own_mount(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``script`` (sh) in a mount namespace of its own, as root there (``unshare -rm``), in ``tmp_path``."""
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode:
        pytest.skip("no unshare -rm here (user and mount namespaces)")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env
    )


def test_a_full_disk_reports_sqlites_own_error(tmp_path: Path) -> None:
    (tmp_path / "mnt").mkdir()
    done = _in_own_mount(
        "mount -t tmpfs -o size=100k tmpfs mnt && "
        "gametree book build connect4 --width 4 --height 4 --plies 6 --store mnt/s.sqlite",
        tmp_path,
    )
    one_error(done.returncode, done.stderr, "mnt/s.sqlite", "database or disk is full")
    assert "rollback" not in done.stderr


# -- F9: a read-only store ------------------------------------------------------------------------


def test_a_store_opened_read_only_is_read_and_not_written(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with SolutionStore(path) as store:
        store.entries_of("tictactoe", TTT).put_many([(0, 0)])
    with SolutionStore(path, readonly=True) as store:
        entries = store.entries_of("tictactoe", TTT)
        assert entries.get(0) == 0 and [g.name for g in store.games()] == ["tictactoe"]
        assert entries.record([(5, 1)], []) == 0 and "read-only" in (entries.write_error or "")
        with pytest.raises(StoreError, match="is read-only"):
            import_book(store, str(SHIPPED))


def _unprivileged(*argv: str) -> tuple[int, str, str]:
    """``gametree ARGV`` in a process that file permissions bind: as root, without the capabilities that
    override them (``setpriv``), so that the test runs in CI too (where tests run as root)."""
    command = [str(Path(sys.executable).with_name("gametree")), *argv]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root, and no setpriv to drop the capabilities that override file permissions")
        drop = "-dac_override,-dac_read_search"
        command = ["setpriv", f"--bounding-set={drop}", f"--inh-caps={drop}", *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if "setpriv:" in done.stderr:
        pytest.skip(f"setpriv cannot drop capabilities here: {done.stderr.strip()}")
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("folder_mode, file_mode", [(0o555, 0o444), (0o555, 0o644), (0o755, 0o444)])
def test_a_store_in_a_read_only_folder_or_file_is_read(
    tmp_path: Path, ttt_book: Path, folder_mode: int, file_mode: int
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    store = folder / "s.sqlite"
    assert run("book", "import", str(ttt_book), "--store", str(store))[0] == 0
    store.chmod(file_mode)
    folder.chmod(folder_mode)
    try:
        code, out, err = _unprivileged("book", "info", "--store", str(store))
        assert code == 0 and "765 entries" in out, err
        code, out, err = _unprivileged("solve", "tictactoe", "--moves", "B2", "--store", str(store))
        assert code == 0 and "from the solution store" in out + err, err
        error = one_error(*_unprivileged("book", "import", str(ttt_book), "--store", str(store))[::2], str(store))
        assert "is read-only" in error and "not a gametree store" not in error
    finally:
        folder.chmod(0o755)


def test_a_store_on_a_read_only_file_system_is_read(tmp_path: Path, ttt_book: Path) -> None:
    (tmp_path / "mnt").mkdir()
    assert run("book", "import", str(ttt_book), "--store", str(tmp_path / "s.sqlite"))[0] == 0
    done = _in_own_mount(
        "mount -t tmpfs tmpfs mnt && cp s.sqlite mnt/ && mount -o remount,ro mnt && "
        "gametree book info --store mnt/s.sqlite && "
        "gametree solve tictactoe --moves C3 --store mnt/s.sqlite && "
        f"gametree book import {ttt_book} --store mnt/s.sqlite",
        tmp_path,
    )
    assert "765 entries" in done.stdout and "answered from the solution store" in done.stdout + done.stderr
    error = one_error(done.returncode, done.stderr, "mnt/s.sqlite", "is read-only", "read-only file system")
    assert "not a gametree store" not in error


def test_positions_of_a_correct_opening_book_pass(tmp_path: Path) -> None:
    """A Connect Four 4x4 book of every position up to ply 4: its deepest entries have no moves in
    the book, so a sample of them is proven again."""
    store = tmp_path / "s.sqlite"
    assert (
        run("book", "build", "connect4", "--width", "4", "--height", "4", "--plies", "4", "--store", str(store))[0] == 0
    )
    out = tmp_path / "c4.book"
    argv = ["book", "export", "connect4", "--width", "4", "--height", "4", "-o", str(out), "--store", str(store)]
    assert run(*argv)[0] == 0
    game = load().game("connect4").create(width=4, height=4)
    code, _, err = run("book", "import", str(out), "--store", str(tmp_path / "other.sqlite"))
    assert code == 0, err
    assert f"{sum(len(layer) for layer in positions_up_to(game, 4))} positions reached" in err
    assert "8 proven again" in err, err
