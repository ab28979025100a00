"""What the compiled engine does around numba and CPython, each in one place, with a switch to turn it off.

Three workarounds, none needed for correct results; each is measured in
docs/performance-log.md (26 November 2026) and listed in
docs/limits.md:

1. **Stable cache keys** (:func:`compiled_as`, :func:`closure_digest`;
   ``GAMETREE_NUMBA_STABLE_KEYS=0`` turns them off).  numba keys the on-disk
   cache of a closure (the compiled search closes over the rules' functions)
   by its variables, pickled; a numba dispatcher pickles with an identity drawn
   at random in each process, and more that is not the same from one process
   to the next, so every process compiled the search again (Connect Four's:
   16 s) and added an entry to numba's index.  The closures compiled per game
   key their cache by a digest of their code and of what it depends on instead,
   through a subclass of numba's ``FunctionCache`` (its ``_index_key`` is not
   public): if numba changes it, only the cache misses.
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
import hashlib
import io
import os
import pickletools
import re
import sys
import types
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "QUIET_COMPILE_INTERRUPTS",
    "STABLE_KEYS",
    "closure_digest",
    "compiled_as",
    "damaged_cache_entries",
    "quiet_compile_interrupts",
    "repair_cache",
    "switched_on",
    "use_cache_folder",
]

F = TypeVar("F", bound="Callable[..., object]")

#: The environment switches: "0" turns a workaround off.
STABLE_KEYS = "GAMETREE_NUMBA_STABLE_KEYS"
QUIET_COMPILE_INTERRUPTS = "GAMETREE_QUIET_COMPILE_INTERRUPTS"


def switched_on(switch: str) -> bool:
    """Whether the workaround of the environment variable ``switch`` is on (it is unless set to 0)."""
    return os.environ.get(switch, "1").strip() != "0"


# -- 1. stable cache keys ----------------------------------------------------------------------
class _Unstable(Exception):
    """A value :func:`closure_digest` cannot describe the same way in every process."""


def closure_digest(function: Callable[..., object]) -> str | None:
    """A digest of everything the compiled code of the Python function ``function`` depends on
    besides its own bytecode: the values of its closure and of the globals its code names, and of
    every function among them, its code (bytecode, constants, names) and what it depends on, the
    same in every process; None when a value is of a kind this does not know (numba's own key is
    used then).  Functions are named by their module and qualified name, arrays by their type,
    shape and bytes, numbers and strings by their repr."""
    digest = hashlib.sha256()
    seen: dict[int, int] = {}
    keep: list[object] = []  # (what was seen stays alive, so that no id is reused meanwhile)

    def feed(*parts: object) -> None:
        for part in parts:
            digest.update(f"{len(str(part))}:{part};".encode())

    def code_names(code: types.CodeType) -> list[str]:
        names = list(code.co_names)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                names += code_names(const)
        return names

    def code(c: types.CodeType) -> None:
        feed("code", c.co_code.hex(), c.co_names, c.co_varnames, c.co_freevars, c.co_argcount)
        for const in c.co_consts:
            if isinstance(const, types.CodeType):
                code(const)
            else:
                value(const)

    def python_function(f: types.FunctionType) -> None:
        if id(f) in seen:
            feed("again", seen[id(f)])
            return
        seen[id(f)] = len(seen)
        keep.append(f)
        feed("function", f.__module__, f.__qualname__)
        code(f.__code__)
        for const in f.__defaults__ or ():
            value(const)
        for name in dict.fromkeys(code_names(f.__code__)):
            if name in f.__globals__:
                feed("global", name)
                value(f.__globals__[name])
        for name, cell in zip(f.__code__.co_freevars, f.__closure__ or (), strict=True):
            feed("cell", name)
            value(cell.cell_contents)

    def value(v: object) -> None:
        from numba.core.dispatcher import Dispatcher
        from numba.core.types import Type

        if v is None or isinstance(v, bool | int | float | complex | str | bytes):
            feed(type(v).__name__, repr(v))
        elif isinstance(v, Dispatcher):
            feed("dispatcher", sorted((k, repr(o)) for k, o in v.targetoptions.items()))
            python_function(v.py_func)
        elif isinstance(v, types.FunctionType):
            python_function(v)
        elif isinstance(v, types.ModuleType):
            feed("module", v.__name__)
        elif isinstance(v, tuple | list):
            feed(type(v).__name__, len(v))
            for item in v:
                value(item)
        elif isinstance(v, np.ndarray):
            feed("array", v.dtype.str, v.dtype.descr, v.shape, np.ascontiguousarray(v).tobytes().hex())
        elif isinstance(v, np.generic):
            feed("scalar", v.dtype.str, repr(v.item()))
        elif isinstance(v, type) and v.__module__ in ("builtins", "numpy") or isinstance(v, Type):
            feed("type", getattr(v, "__module__", ""), str(v))
        elif isinstance(v, np.dtype):
            feed("dtype", v.str, v.descr)
        else:
            raise _Unstable(type(v).__qualname__)

    import numpy as np

    try:
        python_function(cast("types.FunctionType", function))
    except _Unstable:
        return None
    return digest.hexdigest()


@functools.cache
def _stable_key_cache() -> type:
    """numba's cache of a function's compiled code, keyed by :func:`closure_digest` instead of
    numba's pickle of the closure's values (see the module docstring); built once numba is
    imported."""
    from numba.core.caching import FunctionCache

    class StableKeyCache(FunctionCache):
        def _index_key(self, sig: object, codegen: Any) -> tuple[object, ...]:
            closure = closure_digest(self._py_func)
            if closure is None:
                return cast("tuple[object, ...]", super()._index_key(sig, codegen))  # type: ignore[no-untyped-call]
            code = hashlib.sha256(self._py_func.__code__.co_code).hexdigest()
            return (sig, codegen.magic_tuple(), (code, closure))

    return StableKeyCache


def compiled_as(name: str) -> Callable[[F], F]:
    """``njit(cache=True, nogil=True)``, for a closure compiled per game (over the rules'
    functions): its qualified name first made to end in ``name`` (e.g. the rules' module and the
    search's kind), so that its compiled code has symbols of its own, and its on-disk cache keyed
    by :func:`closure_digest` (unless ``GAMETREE_NUMBA_STABLE_KEYS=0``).

    numba names a function's code by its qualified name and a number counted in the process that
    compiles it, and a record's type (the board's constants) by another such number: the same
    closure compiled for two games in two processes could get the same names, and once both were
    loaded from numba's cache into one process, one game's search called the other's node
    (seen: Connect Four after tic-tac-toe searched 8 nodes, its root's move garbage).  With the
    game in the name, names of different rules never meet."""
    from numba import njit

    def compile_(function: F) -> F:
        function.__qualname__ = f"{function.__qualname__}__{re.sub(r'[^0-9A-Za-z]+', '_', name)}"
        dispatcher = njit(cache=True, nogil=True)(function)
        if switched_on(STABLE_KEYS):
            setattr(dispatcher, "_cache", _stable_key_cache()(dispatcher.py_func))  # noqa: B010 (numba's, not public)
        return cast("F", dispatcher)

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
