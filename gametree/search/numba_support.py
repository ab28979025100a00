"""What the compiled engine does around numba and CPython, each in one place, with a switch to turn it off.

Three workarounds, none needed for correct results; each is measured in
docs/performance-log.md (26 November 2026) and listed in
docs/limits.md:

1. **Stable dispatcher identities** (:func:`stable_id`, :func:`stabilise`;
   ``GAMETREE_NUMBA_STABLE_IDS=0`` turns them off).  numba keys the on-disk
   cache of a closure (the compiled search closes over the rules' functions)
   by its variables, pickled; a numba dispatcher pickles with an identity drawn
   at random in each process, so without a fixed one every process compiles
   the search again (Connect Four's: 16 s) and adds an entry to numba's index.
   The identity is set through numba's ``_set_uuid``, which is not public: if
   it is missing, or the identity was drawn already, only the cache misses.
2. **Quiet interrupts while compiling** (:func:`quiet_compile_interrupts`;
   ``GAMETREE_QUIET_COMPILE_INTERRUPTS=0`` turns it off).  While numba
   compiles, llvmlite calls back into Python (its object cache); a Ctrl-C that
   lands in such a callback is dropped by Python with "Exception ignored ...
   Traceback" on standard error.  The compiled engine's watching thread has
   counted the signal all the same (its first search stops on it), so that
   traceback only alarms: it is kept off the screen.
3. **The cache folder** (:func:`use_cache_folder`; setting ``NUMBA_CACHE_DIR``
   turns it off: numba then caches where that says).  numba caches compiled
   code beside the source, which an installed package may not write to; the
   compiled engine's code goes to gametree's own cache folder instead, so that
   a process after the first loads it (about half a second) instead of compiling it.

This module does not import numba at import time: :func:`use_cache_folder` must
run before numba is first imported, and the rest imports it when called.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "QUIET_COMPILE_INTERRUPTS",
    "STABLE_IDS",
    "quiet_compile_interrupts",
    "stabilise",
    "stable_id",
    "switched_on",
    "use_cache_folder",
]

#: The environment switches: "0" turns a workaround off.
STABLE_IDS = "GAMETREE_NUMBA_STABLE_IDS"
QUIET_COMPILE_INTERRUPTS = "GAMETREE_QUIET_COMPILE_INTERRUPTS"


def switched_on(switch: str) -> bool:
    """Whether the workaround of the environment variable ``switch`` is on (it is unless set to 0)."""
    return os.environ.get(switch, "1").strip() != "0"


# -- 1. stable dispatcher identities ----------------------------------------------------------
def stable_id(dispatcher: object, name: str) -> None:
    """Give a numba dispatcher the fixed identity ``gametree:NAME`` (unique in the process), so that
    the compiled code of a closure over it is found again in numba's on-disk cache by the next
    process.  Nothing where the identity was drawn already, for what is not a dispatcher, or
    with ``GAMETREE_NUMBA_STABLE_IDS=0``."""
    if not switched_on(STABLE_IDS):
        return
    set_uuid: Callable[[str], None] | None = getattr(dispatcher, "_set_uuid", None)  # numba's, not public
    if set_uuid is None:
        return
    try:
        set_uuid(f"gametree:{name}")
    except AssertionError:  # drawn already: this process's cache keys use that one
        pass


def stabilise(function: object) -> None:
    """:func:`stable_id` for every dispatcher among the globals of ``function``'s module (a closure's
    variables pickle with the globals their functions use), named after it."""
    from numba.core.dispatcher import Dispatcher

    if not isinstance(function, Dispatcher):
        return
    namespace = function.py_func.__globals__
    module = namespace.get("__name__", "")
    for name, value in list(namespace.items()):
        if isinstance(value, Dispatcher):
            stable_id(value, f"{module}.{name}")


# -- 2. quiet interrupts while compiling -------------------------------------------------------
@contextlib.contextmanager
def quiet_compile_interrupts() -> Iterator[None]:
    """While the block runs (numba compiling): a KeyboardInterrupt that Python drops in a callback
    is not reported on standard error; every other unraisable exception is, as before.  Nothing
    with ``GAMETREE_QUIET_COMPILE_INTERRUPTS=0``."""
    if not switched_on(QUIET_COMPILE_INTERRUPTS):
        yield
        return
    previous = sys.unraisablehook

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous


# -- 3. the cache folder -----------------------------------------------------------------------
@functools.cache
def use_cache_folder(folder: str) -> None:
    """Point numba's on-disk cache at ``folder`` (once a process; unless ``NUMBA_CACHE_DIR`` says
    where), for numba in this process and in any process started from it."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    os.environ["NUMBA_CACHE_DIR"] = folder
    if "numba" in sys.modules:  # numba reads the variable when it is imported: tell it now
        import numba

        numba.config.CACHE_DIR = folder  # type: ignore[attr-defined]
