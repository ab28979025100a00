"""Make the native object of a game's compiled search (with numba), for :mod:`gametree.search.native`.

The process that builds a compiled engine through numba (the first, or ``gametree compile``)
calls :func:`save` once numba has the search: it compiles a C entry point (``numba.cfunc``) that
makes numpy views of the pointers it is given (``numba.carray``) and calls the search (or
``win_now``, or a table's rehash), takes the machine code of that entry with everything it calls
(numba links the search's code into it) as an object file for this CPU, and writes it with what
it was made from (:func:`gametree.search.native.write`).  This uses numba's code library and
target machine (``_library``, ``_codegen``: not public), so any failure here only means no
native object: the engines keep loading numba's code.

The sources recorded are the files of every Python function numba compiled into the entry (the
kernel, the rules, whatever they call), the file of the rules' ``functions``, and every module
those import from, transitively (the standard library, numpy, numba and llvmlite left out): a
constant imported from elsewhere is compiled in as its value.
"""

from __future__ import annotations

import ast
import os
import sys
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

import numpy as np
from numba import cfunc
from numba import types as nt
from numba.np import numpy_support

from . import native
from .kernel import Kernel, rehash, rehash_compact

if TYPE_CHECKING:
    from numba.core.codegen import CPUCodeLibrary

    from ..game import CompiledRules, RuleSet

__all__ = ["entry_function", "save", "sources"]

#: Packages whose files are never recorded as sources (their versions are: numba, llvmlite).
_LEFT_OUT = frozenset({"numpy", "numba", "llvmlite"}) | frozenset(sys.stdlib_module_names)

#: numba's view of memory at a pointer as an array (typed here as it is called inside compiled
#: code, with a pointer that Python sees as an int).
carray = cast("Callable[[int, int, object], np.ndarray]", numpy_support.carray)

_I64, _U64, _PTR = nt.int64, nt.uint64, nt.voidptr
#: The entry's C signature (see :mod:`gametree.search.native`).
SIGNATURE = _I64(_I64, _PTR, _PTR, _I64, _PTR, _I64, _PTR, _I64, _U64, _U64, _I64, _I64, _I64, _I64, _I64)


def entry_function(kernel: Kernel, board: np.dtype, name: str) -> Callable[..., int]:
    """The Python function of the entry point over ``kernel`` (numba's), for boards of the record
    ``board``, its qualified name ending in ``name`` (the rules' module and kind, as the kernel's)."""
    search, win_now = kernel.search, kernel.win_now
    wins = win_now is not None

    def entry(
        op: int, gp: int, tp: int, tn: int, lp: int, ln: int, wp: int, wn: int, a: int, b: int, p: int, h: int, lo: int,
        hi: int, mode: int,
    ) -> int:  # fmt: skip
        if op == native.SEARCH:
            g, table, w = carray(gp, 1, board), carray(tp, tn, np.uint64), carray(wp, wn, np.int64)
            return search(g, table, w, a, b, p, h, lo, hi, mode)
        if op == native.WIN_NOW:
            if wins:
                return 1 if win_now(carray(gp, 1, board), a, b) else 0  # type: ignore[misc]
            return 0
        if op == native.REHASH:
            rehash(carray(tp, tn, np.uint64), carray(lp, ln, np.uint64))
        elif op == native.REHASH_COMPACT:
            rehash_compact(carray(tp, tn, np.uint64), carray(lp, ln, np.uint64), p, h)
        return 0

    entry.__qualname__ = f"native_entry__{''.join(c if c.isalnum() else '_' for c in name)}"
    return entry


def sources(functions: Callable[..., object], roots: list[object]) -> list[list[object]]:
    """``[path, size, mtime_ns, sha256]`` of every source file the compiled code of ``roots`` (Python
    functions, numba dispatchers, values they hold) comes from, and of ``functions``'s file (see the module)."""
    files: set[str] = set()
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        py_func = getattr(v, "py_func", None)  # (a numba dispatcher)
        if isinstance(py_func, types.FunctionType):
            stack.append(py_func)
        elif isinstance(v, types.FunctionType):
            files.add(v.__code__.co_filename)
            stack += [cell.cell_contents for cell in v.__closure__ or ()]
            stack += [v.__globals__[n] for n in _code_names(v.__code__) if n in v.__globals__]
        elif isinstance(v, tuple | list):
            stack += list(v)
    files.add(functions.__code__.co_filename)
    return [_stamp(name) for name in sorted(_imported(files))]


def _code_names(code: types.CodeType) -> list[str]:
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += _code_names(const)
    return names


def _module_file(name: str) -> str | None:
    module = sys.modules.get(name)
    found = getattr(module, "__file__", None)
    if name.split(".")[0] in _LEFT_OUT or not isinstance(found, str) or not found.endswith(".py"):
        return None
    return os.path.abspath(found)


def _imported(files: set[str]) -> set[str]:
    """``files`` and the files of the modules they import (``import x``, ``from x import y``),
    transitively, leaving out :data:`_LEFT_OUT`."""
    by_file: dict[str, str] = {}
    for module_name, module in list(sys.modules.items()):
        found = getattr(module, "__file__", None)
        if isinstance(found, str):
            by_file[os.path.abspath(found)] = module_name
    done: set[str] = set()
    todo = [os.path.abspath(f) for f in files]
    while todo:
        name = todo.pop()
        if name in done:
            continue
        done.add(name)
        owner = by_file.get(name, "")
        package = owner if name.endswith("__init__.py") else owner.rpartition(".")[0]
        with open(name, encoding="utf-8") as stream:
            tree = ast.parse(stream.read())
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            for target in targets:
                source = _module_file(target)
                if source is not None and source not in done:
                    todo.append(source)
    return done


def _stamp(name: str) -> list[object]:
    import hashlib

    stat = os.stat(name)
    with open(name, "rb") as stream:
        digest = hashlib.sha256(stream.read()).hexdigest()
    return [name, stat.st_size, stat.st_mtime_ns, digest]


def save(rules: CompiledRules, functions: RuleSet, compact: bool, kernel: Kernel, board: np.ndarray) -> str | None:
    """Compile the native entry over numba's ``kernel`` of ``functions`` (the rules of ``rules``) and
    write its file (:func:`gametree.search.native.path`); None when written, else why not.  When the
    entry cannot serve (or compiling it failed), the file records why, without code, so that later
    processes do not compile it again until a source, the environment or the identity changes."""
    ident = native.identity(rules, compact, board)
    if ident is None:
        return "the rules' functions are not a module-level function"
    kind = "threats" if functions.threat_aware else "margin" if functions.score is not None else "plain"
    name = f"{functions.moves.__module__}:{kind}{':compact' if compact else ''}"
    if ident["specialised"]:
        name += f":board_{ident['specialised']}"
    python = entry_function(kernel, board.dtype, name)
    try:  # (first, before the second of compiling: sources a loader could not check mean no file)
        recorded = sources(rules.functions, [python])
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        return f"its sources cannot be read: {exc}"
    environment = native.environment()
    code, entry, unfit = b"", "", None
    try:
        compiled = cfunc(SIGNATURE, cache=False)(python)
        library = getattr(compiled, "_library")  # noqa: B009 (numba's code library of the entry: not public)
        codegen = library._codegen
        entry = compiled.native_name
        if (codegen._get_host_cpu_name(), codegen._tm_features) != (environment["cpu"], environment["features"]):
            unfit = "numba targets another CPU than the one the loader would name"
        else:
            code, unfit = _object(library)
    except Exception as exc:  # noqa: BLE001 (numba's internals changed, or its compiler failed: recorded)
        unfit = f"{type(exc).__name__}: {exc}"
    header: dict[str, object] = {
        "identity": ident,
        "environment": environment,
        "sources": recorded,
        "entry": entry,
        "rules": {"win_now": kernel.win_now is not None, "score": functions.score is not None},
        "unfit": unfit,
    }
    native.write(native.path(ident), header, b"" if unfit else code)
    return unfit


def _object(library: CPUCodeLibrary) -> tuple[bytes, str | None]:
    """The object code of numba's code ``library`` for this CPU, and why it cannot serve (None: it can)."""
    module = library._final_module
    if ".const.picklebuf." in str(module):
        # A place where the search raises (numba keeps its exception as a pickle): called through the
        # entry, the error would only be printed and the call return 0; numba's path raises it.
        return b"", "the search can raise an exception: kept on numba's path, which raises it"
    code = bytes(library._codegen._tm.emit_object(module))
    symbols = native.undefined_symbols(code)
    if symbols is None:
        return code, "the object is not one the loader reads"
    missing = [name for name, address in native.resolvable(symbols).items() if address is None]
    if missing:
        return code, f"the object needs symbols the loader cannot give: {', '.join(missing[:3])}"
    return code, None
