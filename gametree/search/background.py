"""Compiling a game's compiled engine in a background thread, so that no move waits on numba.

A perfect player's move (:class:`gametree.search.perfect.PerfectMover`) in a position the
Python engine cannot settle within its time would wait for numba to compile the engine (10
to 60 s, once a machine).  Instead, :func:`compile_in_background` starts the compile in a
daemon thread (once per game and process) and the move is answered on the Python engine in
its time; once the thread is done, :func:`gametree.search.compile_state.ready` says so and
later moves use the compiled engine (loaded in this process already: no second compile).

The compile goes through :func:`gametree.search.compile_state.compiling` as any other: its
notice (``compiling the engine for GAME, once: about N s``) is said when it starts.  A compile
that fails (numba broken) is remembered by :func:`failure` and not tried again; moves stay on
the Python engine.
"""

from __future__ import annotations

import threading

from ..game import Game
from . import compile_state

__all__ = ["compile_in_background", "compiling_now", "failure"]

_threads: dict[str, threading.Thread] = {}
_failures: dict[str, str] = {}
_lock = threading.Lock()


def _build(game: Game[object, object], ident: str) -> None:
    from .compiled import CompiledEngine, compiled_rules

    try:
        rules = compiled_rules(game)
        if rules is not None:
            CompiledEngine(game, rules, keep_native=False)  # (the process may end while it runs)
    except Exception as exc:  # noqa: BLE001 (a thread has no caller to raise to: remembered, moves stay on Python)
        _failures[ident] = f"{type(exc).__name__}: {exc}"


def compile_in_background(game: Game[object, object]) -> bool:
    """Start compiling ``game``'s engine in a daemon thread unless it is ready, under way or failed
    before; whether a compile is under way now."""
    if compile_state.ready(game):
        return False
    ident = compile_state.game_id(game)
    with _lock:
        if ident in _failures:
            return False
        thread = _threads.get(ident)
        if thread is None:
            thread = threading.Thread(target=_build, args=(game, ident), name=f"compile {ident}", daemon=True)
            _threads[ident] = thread
            thread.start()
    return thread.is_alive()


def compiling_now(game: Game[object, object]) -> bool:
    """Whether a background compile of ``game``'s engine is under way."""
    thread = _threads.get(compile_state.game_id(game))
    return thread is not None and thread.is_alive()


def failure(game: Game[object, object]) -> str | None:
    """Why the background compile of ``game``'s engine failed, if it did."""
    return _failures.get(compile_state.game_id(game))
