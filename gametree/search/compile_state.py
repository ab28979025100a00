"""Whether a game's compiled engine is ready, how long compiling it takes, and saying so while it compiles.

numba compiles a game's engine once (one engine serves every board of the game) and keeps
it in its on-disk cache (:func:`cache_folder`); a later process
loads it in about half a second.  Compiling takes seconds (10 to 25 on a laptop), which
looked like a hung search.  This module:

- remembers, in a file beside numba's cache (``compiled.json``), which games' engines are
  compiled there (with the modification times of the code they were compiled from, so that
  changed code counts as not compiled) and how long each compile took;
- tells, before a compile starts, in one line on standard error (:data:`notify`, which a live
  display points above its line), ``compiling the engine for GAME, once: about N s``, N
  the last compile measured for the game (else for any game, else :data:`FIRST_GUESS`);
- says what is being compiled now (:func:`now`) for a live display's line.

:func:`gametree.search.compiled.use_compiled` asks :func:`ready` to let ``auto`` search on the
Python engine while the compiled one is not ready and a search's time budget is shorter than
the compile.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..files import user_cache_folder
from ..game import Compilable, CompiledRules, Game, game_name

__all__ = [
    "FIRST_GUESS",
    "LOADED",
    "Compiling",
    "cache_folder",
    "compiling",
    "estimate",
    "game_id",
    "loaded",
    "notices_to",
    "notify",
    "now",
    "ready",
]

#: Seconds a compile is said to take before one was measured here (15 to 25 s measured on a
#: 2-core machine: tic-tac-toe 10.9 s, Connect Four 23 s with a loaded machine).
FIRST_GUESS = 20.0
#: A build of the engine shorter than this loaded numba's cache: nothing was compiled.
LOADED = 3.0


@dataclass(frozen=True, slots=True)
class Compiling:
    """A compile under way: of ``what``, started at ``started`` (:func:`time.perf_counter`), said
    to take about ``estimate`` seconds."""

    what: str
    estimate: float
    started: float

    def text(self) -> str:
        """``compiling the engine for GAME, once: 3 s of about 20 s``."""
        return f"compiling the engine for {self.what}, once: {time.perf_counter() - self.started:.0f} s of about " + (
            f"{self.estimate:.0f} s"
        )


def _to_stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


#: Where the line said before a compile goes (standard error; :func:`gametree.live.live` points it
#: above its live line while one shows).
notify: Callable[[str], None] = _to_stderr


@contextlib.contextmanager
def notices_to(sink: Callable[[str], None]) -> Iterator[None]:
    """Within the block, a compile's notice goes to ``sink`` (from whichever thread compiles: a
    sink that shows it at once must be safe to call from another thread; a terminal with a prompt
    queues it instead, see :meth:`gametree.terminal.Terminal.post`)."""
    global notify
    before = notify
    notify = sink
    try:
        yield
    finally:
        notify = before


_built: set[str] = set()
_now: Compiling | None = None


def game_id(game: Game[object, object], rules: CompiledRules | None = None) -> str:
    """The name a game's compiled engine is remembered by: its class, and for rules specialised to
    one board (:attr:`gametree.game.CompiledRules.specialise`: a search of its own) that board's
    constants, by digest.  ``rules``: the compiled rules the engine is built from (by default the
    game's own)."""
    kind = type(game)
    ident = f"{kind.__module__}.{kind.__qualname__}"
    if rules is None and isinstance(game, Compilable):
        rules = game.compiled_rules()
    if rules is not None and rules.specialise:
        ident += f"[{hashlib.sha256(repr(rules.board).encode()).hexdigest()[:12]}]"
    return ident


def _stamp(game: Game[object, object]) -> list[float]:
    """The modification times of the code a game's engine is compiled from (the kernel, the game's module)."""
    import inspect

    files = [os.path.join(os.path.dirname(__file__), "kernel.py")]
    with contextlib.suppress(TypeError, OSError):
        files.append(inspect.getfile(type(game)))
    stamps = []
    for path in files:
        with contextlib.suppress(OSError):
            stamps.append(os.path.getmtime(path))
    return stamps


def cache_folder() -> str:
    """Where numba keeps the compiled engines: ``numba`` in gametree's user cache folder."""
    return os.path.join(user_cache_folder(), "numba")


def _ledger_path() -> str:
    return os.path.join(cache_folder(), "compiled.json")


def _times_path() -> str:
    return os.path.join(user_cache_folder(), "compile-times.json")


def _read(path: str) -> dict[str, object]:
    try:
        with open(path, encoding="utf-8") as stream:
            data = json.load(stream)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: str, data: dict[str, object]) -> None:
    with contextlib.suppress(OSError):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temporary = f"{path}.{os.getpid()}"
        with open(temporary, "w", encoding="utf-8") as stream:
            json.dump(data, stream)
        os.replace(temporary, path)


def ready(game: Game[object, object], rules: CompiledRules | None = None) -> bool:
    """Whether the game's compiled engine (of ``rules``: see :func:`game_id`) is built in this
    process or compiled in the cache."""
    ident = game_id(game, rules)
    return ident in _built or _read(_ledger_path()).get(ident) == _stamp(game)


def loaded(game: Game[object, object], rules: CompiledRules | None = None) -> None:
    """Remember that the game's engine is built in this process (its native code loaded, without numba)."""
    _built.add(game_id(game, rules))


def estimate(game: Game[object, object]) -> float:
    """Seconds compiling the game's engine is expected to take: the last compile measured of this
    game, else the longest of any game, else :data:`FIRST_GUESS`."""
    times = {k: v for k, v in _read(_times_path()).items() if isinstance(v, (int, float))}
    found = times.get(game_id(game))
    if found is not None:
        return float(found)
    return float(max(times.values(), default=FIRST_GUESS))


def now() -> Compiling | None:
    """The compile under way in this process, if any."""
    return _now


@contextlib.contextmanager
def _one_at_a_time(ident: str, waiting: Callable[[], None]) -> Iterator[None]:
    """Hold an exclusive lock on a file of the cache folder named after the engine ``ident`` while
    it is built, so that processes that meet one engine at once (``--workers``, a test run's
    workers, two commands) compile it once: the others call ``waiting`` (to say so), wait, then
    load its code from numba's cache.  Nothing where the file cannot be made or locked (a
    read-only folder, no ``fcntl``)."""
    try:
        import fcntl
    except ImportError:  # (not on Windows)
        yield
        return
    name = "".join(c if c.isalnum() else "_" for c in ident)
    try:
        os.makedirs(cache_folder(), exist_ok=True)
        handle = open(os.path.join(cache_folder(), f"building-{name}.lock"), "a")  # noqa: SIM115 (closed below)
    except OSError:
        yield
        return
    with handle:
        with contextlib.suppress(OSError):  # (released when the file is closed, or the process ends)
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # another process builds it now
                waiting()
                fcntl.flock(handle, fcntl.LOCK_EX)
        yield


@contextlib.contextmanager
def compiling(game: Game[object, object], rules: CompiledRules | None = None) -> Iterator[None]:
    """Around the build of a game's compiled engine: says so first if it is not :func:`ready`
    (see the module), and remembers it (and how long a compile took) once built.  Whether it is
    ready is asked once no other process builds it (:func:`_one_at_a_time`), so a process that
    waited for another's compile says it waits, then loads it without saying it compiles.
    ``rules``: as :func:`game_id`'s."""
    global _now
    ident = game_id(game, rules)
    if ident in _built:
        yield
        return
    what = game_name(game)
    fresh, started, compiled = False, time.perf_counter(), ready(game, rules)

    def waiting() -> None:  # (another process holds the lock: compiling it, or loading it when it is compiled)
        if not compiled:
            notify(f"waiting while another process compiles the engine for {what} (then loading it from the cache)")

    try:
        with _one_at_a_time(ident, waiting):
            fresh, started = not ready(game, rules), time.perf_counter()
            if fresh:
                guess = estimate(game)
                notify(
                    f"compiling the engine for {what}, once: about {guess:.0f} s "
                    f"(later runs load it; 'gametree compile' compiles every game ahead of time)"
                )
                _now = Compiling(what, guess, started)
            yield
            _built.add(ident)
            ledger = _read(_ledger_path())  # (written before the lock is let go: a process waiting finds it ready)
            if ledger.get(ident) != (stamp := _stamp(game)):  # (not rewritten by every process that loads it)
                ledger[ident] = stamp
                _write(_ledger_path(), ledger)
    finally:
        _now = None
    took = time.perf_counter() - started
    if fresh and took >= LOADED:
        times = _read(_times_path())
        times[ident] = round(took, 1)
        _write(_times_path(), times)
