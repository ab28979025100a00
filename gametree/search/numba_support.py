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
   The folder is checked first (:func:`repair_cache`): numba fails on a damaged
   file of its cache (an empty or cut index, data that is no pickle) with
   ``UnpicklingError`` or ``EOFError`` on every compiled search until the file
   is deleted, so a damaged entry is removed, with a one-line note, and compiled again.

This module does not import numba at import time: :func:`use_cache_folder` must
run before numba is first imported, and the rest imports it when called.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import pickletools
import re
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, TypeVar, cast

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "QUIET_COMPILE_INTERRUPTS",
    "STABLE_IDS",
    "compiled_as",
    "damaged_cache_entries",
    "quiet_compile_interrupts",
    "repair_cache",
    "stabilise",
    "stable_id",
    "switched_on",
    "use_cache_folder",
]

F = TypeVar("F", bound="Callable[..., object]")

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


def compiled_as(name: str) -> Callable[[F], F]:
    """``njit(cache=True, nogil=True)``, the function's qualified name first made to end in ``name``
    (e.g. the rules' module and the search's kind), so that its compiled code has symbols of its own.

    numba names a function's code by its qualified name and a number counted in the process that
    compiles it, and a record's type (the board's constants) by another such number: the same
    closure compiled for two games in two processes could get the same names, and once both were
    loaded from numba's cache into one process, one game's search called the other's node
    (seen: Connect Four after tic-tac-toe searched 8 nodes, its root's move garbage).  With the
    game in the name, names of different rules never meet.  For every closure compiled per game."""
    from numba import njit

    def compile_(function: F) -> F:
        function.__qualname__ = f"{function.__qualname__}__{re.sub(r'[^0-9A-Za-z]+', '_', name)}"
        return cast("F", njit(cache=True, nogil=True)(function))

    return compile_


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
    where), for numba in this process and in any process started from it, and :func:`repair_cache`
    it.  (A ``NUMBA_CACHE_DIR`` of the user's is not checked: it may hold the caches of other
    programs, much larger, which would be read at every start.)"""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    os.environ["NUMBA_CACHE_DIR"] = folder
    if "numba" in sys.modules:  # numba reads the variable when it is imported: tell it now
        import numba

        numba.config.CACHE_DIR = folder  # type: ignore[attr-defined]
    repair_cache(folder)


#: The endings of numba's cache files: an index (``NAME.pyXY.nbi``: numba's version, then a pickle of
#: the source's stamp and the data file of each signature) and data (``NAME.pyXY.N.nbc``: a pickle).
INDEX, DATA = ".nbi", ".nbc"


def _pickles_whole(data: bytes, count: int) -> bool:
    """Whether ``data`` is ``count`` whole pickles one after another (their opcodes read, nothing
    built), with nothing after them."""
    stream = io.BytesIO(data)
    try:
        for _ in range(count):
            for _ in pickletools.genops(stream):
                pass
    except Exception:  # a cut or garbled pickle: ValueError, or anything its parser meets
        return False
    return stream.tell() == len(data) and len(data) > 0


def _entry(name: str) -> str:
    """The function a cache file belongs to: its name without ``.N.nbc`` or ``.nbi``."""
    base = name[: -len(DATA)] if name.endswith(DATA) else name[: -len(INDEX)]
    head, _, number = base.rpartition(".")
    return head if name.endswith(DATA) and number.isdigit() else base


def damaged_cache_entries(folder: str) -> dict[str, list[str]]:
    """The damaged entries of numba's cache in ``folder`` (a function's index and data files, by the
    folder they are in and the function's part of their names): an entry with a file that is
    empty or not whole pickles.  Unreadable files are left to numba."""
    damaged: dict[str, list[str]] = {}
    for directory, _, names in os.walk(folder):
        for name in names:
            if not name.endswith((INDEX, DATA)):
                continue
            try:
                with open(os.path.join(directory, name), "rb") as file:
                    data = file.read()
            except OSError:
                continue
            if not _pickles_whole(data, 2 if name.endswith(INDEX) else 1):
                damaged.setdefault(directory, []).append(_entry(name))
    return damaged


def repair_cache(folder: str) -> list[str]:
    """Remove the damaged entries of numba's cache in ``folder`` (:func:`damaged_cache_entries`:
    every index and data file of each, so that numba compiles the function again and rewrites
    them), with a one-line note on standard error; the files removed."""
    removed: list[str] = []
    for directory, entries in damaged_cache_entries(folder).items():
        for name in sorted(os.listdir(directory)):
            if name.endswith((INDEX, DATA)) and _entry(name) in entries:
                with contextlib.suppress(FileNotFoundError):  # (another process removed it first)
                    os.remove(os.path.join(directory, name))
                    removed.append(os.path.join(directory, name))
    if removed:
        print(
            f"note: removed {len(removed)} damaged file{'s' if len(removed) != 1 else ''} from the compiled "
            f"engine's cache in {folder}; compiling them again (a few seconds)",
            file=sys.stderr,
        )
    return removed
