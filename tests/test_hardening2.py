"""Faults of issue 32, round two: worker processes that outlive a killed command (F3, F11), plugin
time limits for C calls (F15), a damaged numba cache (F13), out of memory (F16), sizes and counts
beyond the documented limits (F14).  Each test failed on the main branch before the fix."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
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
        ("learn", "tictactoe", "--games", "100000000", "--workers", "2", "-o", "{table}"),
    ],
)
def test_workers_die_quietly_with_a_killed_command(
    gametree_cli: GametreeCli,
    wait_until: Callable[..., None],
    tmp_path: Path,
    command: tuple[str, ...],
    request: pytest.FixtureRequest,
) -> None:
    """F3, F11: after SIGKILL of the command, its workers (and the fork server, the resource tracker)
    end within seconds, print nothing (no BrokenPipeError, no leaked-semaphore warning), and the
    ``pymp-*`` folder is gone from the (private) temporary folder."""
    # A short private folder: the fork server's socket lives there, and a Unix socket's path
    # is short (a deeper folder makes the workers start by spawn: see the next test).
    temporary = Path(tempfile.mkdtemp(prefix="gt-", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(temporary, ignore_errors=True))
    args = [
        a.replace("{store}", str(tmp_path / "book.sqlite")).replace("{table}", str(tmp_path / "t.json"))
        for a in command
    ]
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


def test_workers_start_where_the_temporary_folder_is_too_deep_for_a_socket(
    gametree_cli: GametreeCli, tmp_path: Path
) -> None:
    """A TMPDIR whose path leaves no room for the fork server's Unix socket ("AF_UNIX path too
    long", an unexpected OSError before) starts the workers by spawn instead."""
    from gametree.runtime.processes import SOCKET_PATH_LIMIT

    deep = tmp_path / ("d" * max(1, SOCKET_PATH_LIMIT - len(str(tmp_path))))
    deep.mkdir()
    done = gametree_cli(
        "solve", "tictactoe", "--moves", "A1", "--no-store", "--workers", "2", "--json", env={"TMPDIR": str(deep)}
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["score"] == 0


# -- F14: sizes and counts: the units the docs use, and bounds on what would never end ---------------
@pytest.mark.parametrize(
    ("size", "entries"), [("1TB", 1 << 40), ("1TiB", 1 << 40), ("1 tib", 1 << 40), ("512GiB", 1 << 39)]
)
def test_cache_size_takes_the_documented_limit_in_its_units(size: str, entries: int) -> None:
    """F14: docs/limits.md gives 1 TiB as the limit, yet --cache-size 1TB was refused."""
    from gametree.search.table import BYTES_PER_ENTRY, parse_cache_size

    assert parse_cache_size(size).max_entries == entries // BYTES_PER_ENTRY
    # KB .. TB count in 1024s, as KiB .. TiB do (and as gametree always read 256MB).
    assert parse_cache_size("256MB").max_entries == parse_cache_size("256MiB").max_entries == (256 << 20) // 200


@pytest.mark.parametrize("size", ["1.01TB", "1025GiB", "2TB", "1t", "6G"])
def test_cache_size_above_the_limit_is_one_clear_line(gametree_cli: GametreeCli, size: str) -> None:
    out = gametree_cli("solve", "tictactoe", "--cache-size", size, "--no-store")
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "at most 1 TiB (1TB, 1024GB" in lines[0], out.stderr


def test_cache_size_of_the_limit_runs(gametree_cli: GametreeCli) -> None:
    out = gametree_cli("solve", "tictactoe", "--cache-size", "1TB", "--no-store", "--engine", "python", "--json")
    assert out.returncode == 0, out.stderr
    assert '"value": "draw"' in out.stdout.replace('"value":"draw"', '"value": "draw"')


@pytest.mark.parametrize("games", ["1000000001", "100000000000000000000", "9" * 4000])
def test_learn_refuses_more_games_than_its_bound(gametree_cli: GametreeCli, tmp_path: Path, games: str) -> None:
    """F14: ``learn -n 1e20`` (written out) was accepted and never ended."""
    out = gametree_cli("learn", "tictactoe", "-n", games, "-o", str(tmp_path / "t.json"), timeout=60)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "at most 1,000,000,000 games" in lines[0] and len(lines[0]) < 250, out.stderr
    assert not (tmp_path / "t.json").exists()


# -- F16: out of memory is one clear line --------------------------------------------------------------
HUNGRY_PLUGIN = """
from gametree import GameSpec, hookimpl
from gametree_builtins.games.tictactoe import TicTacToe


class Hungry(TicTacToe):
    def legal_moves(self, state):
        raise MemoryError("Unable to allocate 8.00 EiB for an array")


@hookimpl
def gametree_register_games(registry):
    registry.add_game(GameSpec(name="hungry", factory=Hungry, summary="runs out of memory"))
"""


def test_out_of_memory_is_one_clear_line(gametree_cli: GametreeCli, tmp_path: Path) -> None:
    """F16: a search that runs out of memory printed ``unexpected MemoryError: `` and nothing more."""
    (tmp_path / "hungry.py").write_text(HUNGRY_PLUGIN)
    out = gametree_cli("-p", "hungry", "solve", "hungry", "--no-store", "--engine", "python", path=tmp_path)
    assert out.returncode == 1, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("Error: out of memory (Unable to allocate 8.00 EiB for an array): try a smaller")
    assert "--cache-size" in lines[0] and "--workers" in lines[0] and "unexpected" not in lines[0]


def test_out_of_memory_in_the_search_itself(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """F16, in this process: the search (any algorithm's) raising a bare MemoryError, as Python's does."""
    import gametree.cli.solve
    from gametree.cli import main

    def starved(*args: object, **options: object) -> None:
        raise MemoryError

    monkeypatch.setattr(gametree.cli.solve, "_run", starved)  # where solve calls the algorithm's search
    with pytest.raises(SystemExit) as ended:
        main(["solve", "tictactoe", "--no-store", "--engine", "python"])
    assert ended.value.code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "Error: out of memory: try a smaller --cache-size, a smaller board or position, fewer games or fewer --workers"
    ]


def test_out_of_memory_while_the_error_is_looked_at(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Memory so short that looking at the error runs out too (seen under a real limit: the chain of
    errors is walked with a set): the prepared line, once the work is gone, never a traceback."""
    import gametree.cli.root
    import gametree.cli.solve
    from gametree.cli import main

    def starved(*args: object, **options: object) -> None:
        raise MemoryError

    def no_room(exc: BaseException) -> None:
        raise MemoryError

    monkeypatch.setattr(gametree.cli.solve, "_run", starved)
    monkeypatch.setattr(gametree.cli.root, "_interrupt_in", no_room)
    with pytest.raises(SystemExit) as ended:
        main(["solve", "tictactoe", "--no-store", "--engine", "python"])
    assert ended.value.code == 1
    err = capfd.readouterr().err.strip().splitlines()
    assert err == [
        "Error: out of memory: try a smaller --cache-size, a smaller board or position, fewer games or fewer --workers"
    ]


#: The command with its address space limited to what it uses after start-up plus ARGV[1] megabytes.
LIMITED = """
import resource, sys
from gametree.cli import main
with open("/proc/self/status") as f:
    used = next(int(line.split()[1]) for line in f if line.startswith("VmSize:")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (used + (int(sys.argv[1]) << 20),) * 2)
main(sys.argv[2:])
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the address space's size from /proc")
def test_out_of_memory_under_a_real_limit(tmp_path: Path) -> None:
    """F16 for real: ``learn`` keeps every position it meets; with 30 MB to spare it runs out within
    seconds (Python's MemoryError, no message of its own), and says so in one line."""
    table = tmp_path / "t.json"
    argv = [sys.executable, "-c", LIMITED, "30", "learn", "connect4", "-n", "1000000", "-o", str(table)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith("Error: out of memory") and "fewer games" in lines[0], lines
    assert not table.exists()


# -- F13: a damaged numba cache is repaired, with a note, not an error on every compiled solve ---------
def test_repair_cache_removes_the_damaged_entries_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import pickle

    from gametree.search.numba_support import repair_cache

    folder = tmp_path / "numba" / "games_0123"
    folder.mkdir(parents=True)

    def index(name: str) -> None:
        (folder / f"{name}.py311.nbi").write_bytes(pickle.dumps("0.68.1") + pickle.dumps((1.0, {"k": "d"})))

    for good in ("rules.play-10", "rules.key-20"):
        index(good)
        (folder / f"{good}.py311.1.nbc").write_bytes(pickle.dumps((b"\x00" * 100, "library")))
    index("rules.moves-30")
    (folder / "rules.moves-30.py311.1.nbc").write_bytes(b"")  # empty data: its index goes too
    (folder / "rules.moves-30.py311.2.nbc").write_bytes(pickle.dumps("fine, but of a damaged entry"))
    (folder / "rules.win-40.py311.nbi").write_bytes(pickle.dumps("0.68.1"))  # cut after numba's version
    (folder / "rules.win-40.py311.1.nbc").write_bytes(pickle.dumps("data"))
    (folder / "rules.safe-50.py311.nbi").write_bytes(b"\x80\x05garbage, not a pickle")
    (folder / "rules.safe-50.py311.1.nbc").write_bytes(pickle.dumps("x")[:-3])  # cut short
    (folder / "notes.txt").write_bytes(b"")  # not numba's: left alone

    removed = repair_cache(str(tmp_path / "numba"))
    left = sorted(p.name for p in folder.iterdir())
    assert left == [
        "notes.txt",
        "rules.key-20.py311.1.nbc",
        "rules.key-20.py311.nbi",
        "rules.play-10.py311.1.nbc",
        "rules.play-10.py311.nbi",
    ]
    assert len(removed) == 7
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("note: removed 7 damaged files from the compiled engine's cache in ")
    assert repair_cache(str(tmp_path / "numba")) == [] and capsys.readouterr().err == ""  # whole now: quiet


@pytest.fixture(scope="module")
def compiled_tictactoe(gametree_cli: GametreeCli, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder with compiled tic-tac-toe in numba's cache (copied from this run's cache when a
    test compiled it already, else compiled here, once for the module)."""
    import shutil

    pytest.importorskip("numba")
    cache = tmp_path_factory.mktemp("compiled")
    ours = Path(os.environ["GAMETREE_CACHE_DIR"]) / "numba"
    # (tic-tac-toe's rules and its search: the tier solver's tests compile the rules and another search)
    kernel = "search_*/kernel.build.*tictactoe_rules*.nbc"
    if any(ours.glob("games_*/tictactoe_rules.key-*.nbi")) and any(ours.glob(kernel)):
        shutil.copytree(ours, cache / "numba")
        return cache
    out = gametree_cli(
        "solve",
        "tictactoe",
        "--engine",
        "compiled",
        "--no-store",
        env={"GAMETREE_CACHE_DIR": str(cache), "NUMBA_CACHE_DIR": None},
    )
    assert out.returncode == 0, out.stderr
    return cache


@pytest.mark.parametrize("damage", ["empty index", "garbage data"])
def test_a_damaged_numba_cache_is_rebuilt_with_a_note(
    gametree_cli: GametreeCli, compiled_tictactoe: Path, tmp_path: Path, damage: str
) -> None:
    """F13: a zero-length index or garbage data in numba's cache gave ``unexpected EOFError`` (or
    ``UnpicklingError``) on every compiled solve until the folder was deleted."""
    import shutil

    cache = tmp_path / "cache"
    shutil.copytree(compiled_tictactoe, cache)
    if damage == "empty index":
        victim = next((cache / "numba").glob("games_*/tictactoe_rules.key-*.nbi"))
        victim.write_bytes(b"")
    else:
        victim = next((cache / "numba").glob("search_*/*.1.nbc"))
        victim.write_bytes(os.urandom(3000))
    env = {"GAMETREE_CACHE_DIR": str(cache), "NUMBA_CACHE_DIR": None}
    out = gametree_cli("solve", "tictactoe", "--engine", "compiled", "--no-store", "--json", env=env)
    assert out.returncode == 0, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("note: removed ") and "damaged file" in lines[0], out.stderr
    assert '"value": "draw"' in out.stdout
    again = gametree_cli("solve", "tictactoe", "--engine", "compiled", "--no-store", "--json", env=env)
    assert again.returncode == 0 and again.stderr == "" and '"value": "draw"' in again.stdout, again.stderr


# -- F15: the plugin time limit holds for a C call that Python cannot interrupt ----------------------
@pytest.mark.skipif(not hasattr(os, "fork"), reason="the watchdog is a forked process")
@pytest.mark.parametrize(
    ("module", "source", "what"),
    [
        (
            "stuck_in_hook",
            "from gametree import hookimpl\n\n@hookimpl\ndef gametree_register_games(registry):\n"
            "    sum(range(10**11))\n",
            "its hook gametree_register_games",
        ),
        ("stuck_at_import", "sum(range(10**11))\n", "its import"),
    ],
)
def test_a_plugin_stuck_in_a_c_call_is_stopped_in_time(
    gametree_cli: GametreeCli, tmp_path: Path, module: str, source: str, what: str
) -> None:
    """F15: ``GAMETREE_PLUGIN_SECONDS=3 gametree -p M solve tictactoe`` with one long C call in M ran
    until killed (the timer signal's handler runs only between bytecodes)."""
    import time

    (tmp_path / f"{module}.py").write_text(source)
    start = time.monotonic()
    out = gametree_cli(
        "-p",
        module,
        "solve",
        "tictactoe",
        "--no-store",
        path=tmp_path,
        env={"GAMETREE_PLUGIN_SECONDS": "2"},
        timeout=60,
    )
    took = time.monotonic() - start
    assert out.returncode == 1, (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith(f"Error: -p {module}: PluginTimeout: {what} did not finish within 2 s"), lines
    assert out.stdout == ""
    assert took < 2 + 1 + 5, took  # the limit, the grace, and the start-up of a loaded machine


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the watchdog is a forked process")
def test_an_installed_plugin_stuck_in_a_c_call_stops_the_command_naming_it(
    gametree_cli: GametreeCli, tmp_path: Path
) -> None:
    """F15 for an entry-point plugin: it cannot be given up while the rest goes on (its C call holds
    the GIL), so the command ends, with one line naming it and its distribution."""
    source = "from gametree import hookimpl\n\n@hookimpl\ndef gametree_register_players(registry):\n"
    (tmp_path / "stuck_ep.py").write_text(source + "    sum(range(10**11))\n")
    info = tmp_path / "stuck_ep-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: stuck_ep\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[gametree]\nstuck_ep = stuck_ep\n")
    out = gametree_cli("games", path=tmp_path, env={"GAMETREE_PLUGIN_SECONDS": "2"}, timeout=60)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 1 and len(lines) == 1, (out.returncode, out.stderr)
    assert lines[0].startswith("Error: plugin stuck_ep (from stuck_ep 0.1"), lines
    assert "PluginTimeout: its hook gametree_register_players did not finish within 2 s" in lines[0]


def test_the_watchdog_leaves_quick_plugins_and_signals_alone(gametree_cli: GametreeCli) -> None:
    """The watchdog of the loading phase ends with it: a normal command runs as before, and SIGHUP
    afterwards is Python's again (``terminated``, 129), not the loading phase's immediate exit."""
    out = gametree_cli("solve", "tictactoe", "--no-store", "--json", env={"GAMETREE_PLUGIN_SECONDS": "5"})
    assert out.returncode == 0 and out.stderr == "", out.stderr
    code = (
        "import os, signal\n"
        "from gametree.plugin.limits import time_limited, watched\n"
        "seen = []\n"
        "signal.signal(signal.SIGHUP, lambda *_: seen.append(1))\n"
        "with watched():\n"
        "    with time_limited('a quick hook'):\n"
        "        pass\n"
        "os.kill(os.getpid(), signal.SIGHUP)\n"
        "print('handled' if seen else 'lost')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "handled\n", (done.returncode, done.stderr)
