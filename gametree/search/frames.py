"""Room on CPython's frame stack for deep recursive searches: a workaround, measured and switchable.

The Python engine recurses one frame per ply.  CPython 3.11 keeps Python frames
in chunks of 16 KiB and frees a chunk as soon as the frame at its base returns,
so a recursion that crosses from one chunk into the next at a busy depth maps
and unmaps a chunk on every call there: empty 6x5 Connect Four took 2.1 times
as long when its search happened to start a few frames deeper, and 7x5 164 s
against 105 s (docs/performance-log.md, 24 November 2026).  Where the boundary
falls depends on everything below the search, so it is moved out of the way:
:func:`spacious` calls through a frame too large for any ordinary chunk (its
local variables make it so: its code is given thousands of unused ones), so
CPython gives it a chunk of its own, and the recursion runs in the room after it.

``GAMETREE_SPACIOUS=0`` turns the workaround off (a plain call), to measure it or
should a Python version make it pointless.  Other implementations get a plain call.

This module also holds the recursion budget of a search: one frame per ply.
"""

from __future__ import annotations

import functools
import os
import sys
import types
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from ..game import UnsupportedGameError

__all__ = [
    "RECURSION_MARGIN",
    "SPACIOUS_PLIES",
    "SPACIOUS_SLOTS",
    "enabled",
    "make_spacious",
    "max_search_plies",
    "spacious",
    "too_deep",
]

P = ParamSpec("P")
T = TypeVar("T")

#: Frame slots (8 bytes each) of :func:`spacious`'s frame: 40 KiB, which no ordinary chunk of
#: CPython's frame stack (16 KiB) can hold, so that it starts a 64 KiB chunk of its own.
SPACIOUS_SLOTS = 5000
#: Searches with more plies left than this run through :func:`spacious`.
SPACIOUS_PLIES = 16
#: Frames of Python's recursion limit kept for what is not one node per ply: the callers below
#: a search (the command line, a driver, a test runner, :func:`spacious`) and the calls a node
#: makes into the game and an observer (only for the message of :func:`too_deep`).
RECURSION_MARGIN = 200


def enabled() -> bool:
    """Whether :func:`spacious` makes room (CPython, and ``GAMETREE_SPACIOUS`` is not ``0``)."""
    return sys.implementation.name == "cpython" and os.environ.get("GAMETREE_SPACIOUS", "1") != "0"


def _spacious(function: Callable[..., object], *args: object) -> object:
    """The body of :func:`make_spacious`'s function (its frame made large there)."""
    return function(*args)


@functools.cache
def make_spacious() -> Callable[..., object]:
    """A function ``(function, *args) -> function(*args)`` whose frame starts a chunk of CPython's
    frame stack, with room after it for about 45 nested node frames (see the module).

    Its code is :func:`_spacious`'s with :data:`SPACIOUS_SLOTS` more local variables, none of
    them used (``CodeType.replace``): a frame's size is its code's locals and stack.  (Compiling
    source that names as many variables took about 7 ms a process, a short search's time.)"""
    code = _spacious.__code__
    names = code.co_varnames + tuple(f"_{i}" for i in range(SPACIOUS_SLOTS))
    large = code.replace(co_varnames=names, co_nlocals=len(names))
    made: Callable[..., object] = types.FunctionType(large, _spacious.__globals__, "spacious")
    return made


def spacious(function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``function(*args)`` with room on CPython's frame stack (made on first use: compiling it
    costs more than a short search); a plain call when the workaround is off."""
    if kwargs or not enabled():
        return function(*args, **kwargs)
    result: T = make_spacious()(function, *args)  # type: ignore[assignment]  # (it returns function's result)
    return result


def max_search_plies() -> int:
    """How many plies deep a search may recurse here (one frame per ply): Python's recursion
    limit less :data:`RECURSION_MARGIN`."""
    return sys.getrecursionlimit() - RECURSION_MARGIN


def too_deep(plies: int, depth: int | None) -> UnsupportedGameError:
    """The one-line error for a search that recursed deeper than Python allows (one frame per ply);
    ``plies``: how deep it could go; ``depth``: its depth limit (None: to the end of the game)."""
    budget = max_search_plies()
    if depth is not None:
        return UnsupportedGameError(
            f"depth {depth} is too deep: Python's recursion limit allows a search about {budget:,} plies deep"
        )
    return UnsupportedGameError(
        f"this game is too large for a search to the end: it can last {plies:,} more plies, and Python's "
        f"recursion limit allows a search about {budget:,} plies deep; search it with a depth limit "
        "(gametree solve -a alphabeta --depth N)"
    )
