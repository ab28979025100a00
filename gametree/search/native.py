"""The compiled engine's search as machine code loaded without numba: llvmlite and ctypes only.

numba compiles a game's search (:mod:`gametree.search.kernel`) to machine code, and caches it;
but a process that loads it through numba pays numba's start-up first (``import numba`` and its
target's set-up: about 0.25 s, more than a batch of a thousand easy positions takes to search).
So the process that compiles it (:mod:`gametree.search.native_build`) also keeps the machine code
of a C entry point to it in a file of its own (:func:`path`, beside numba's cache); a later
process loads that object with llvmlite's MCJIT (``import llvmlite.binding``: about 20 ms) and
calls it through ctypes (:func:`load`), never importing numba.  ctypes lets go of the GIL during
the call, as numba's ``nogil`` search does, so the runtime's signal watch still stops a search
on Ctrl-C (it sets the stop word of the work array, which the search looks at every node).

A file is used only if everything it was made from is the same here (:func:`check`): its
object's length and SHA-256, the rules it was compiled for (the ``functions`` of the game's
:class:`gametree.game.CompiledRules`, the table's kind, the board record's layout), Python,
llvmlite's and numba's versions, the CPU's name and features (as numba targets them), and
every source file the compiled code came from (size and modification time, else content).  Any
doubt (a missing, cut, damaged or foreign file, a symbol of the object that cannot be given)
and :func:`load` returns None: the engine then loads numba's code, the reference, as before.
``GAMETREE_NATIVE=0`` turns the native code off.

The object's entry point (made by :mod:`gametree.search.native_build`) is one C function::

    int64 entry(int64 op, void *board, void *table, int64 table_words, void *larger,
                int64 larger_words, void *work, int64 work_words, uint64 a, uint64 b,
                int64 p, int64 height, int64 lo, int64 hi, int64 mode)

``op``: :data:`SEARCH` (the kernel's ``search``), :data:`WIN_NOW`, :data:`REHASH` or
:data:`REHASH_COMPACT` (``p`` the table's bucket bits, ``height`` the compact layout's
``cshift``).  Its external symbols (numba's helpers and the Python C API, on error paths that
a search never takes) are given from this process: numba's two C libraries are loaded as
extension modules by file, without the ``numba`` package.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import glob
import hashlib
import importlib
import importlib.util
import json
import os
import struct
import sys
import threading
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .kernel_layout import Kernel, board_digest
from .native_files import SWITCH, file_stem, folder, kept, switched_on

if TYPE_CHECKING:
    import numpy as np

    from ..game import CompiledRules

__all__ = [
    "FORMAT",
    "REHASH",
    "REHASH_COMPACT",
    "SEARCH",
    "SWITCH",
    "UNFIT_WHEN_MADE",
    "WIN_NOW",
    "Loaded",
    "Native",
    "check",
    "environment",
    "folder",
    "identity",
    "kept",
    "load",
    "path",
    "read",
    "refusal",
    "resolvable",
    "switched_on",
    "undefined_symbols",
    "unfit",
    "write",
]

#: The version of the file's layout (a file of another is refused).
FORMAT = 1
_MAGIC = b"gametree native kernel\n"
#: How :func:`check` begins its answer for a file that records why no native code could be made
#: from these sources here (the process that tried wrote it, so that the next ones do not try again).
UNFIT_WHEN_MADE = "no native code could be made: "
#: The entry point's operations.
SEARCH, WIN_NOW, REHASH, REHASH_COMPACT = range(4)
#: The prefixes of the symbols numba's C libraries give (numba names them so for LLVM).
_HELPERS = {"numba_": "_helperlib", "NRT_": "core/runtime/_nrt_python"}


def identity(rules: CompiledRules, compact: bool, board: np.ndarray) -> dict[str, object] | None:
    """What a native object is compiled for: the rules (their ``functions``, by module and name),
    the table's kind, the board record's layout and, for a search specialised to one board
    (:attr:`gametree.game.CompiledRules.specialise`), the digest of its constants; None when the
    rules' ``functions`` is not a plain module-level function (a closure or a method may give other
    rules under the same name)."""
    f = rules.functions
    if not isinstance(f, types.FunctionType) or f.__closure__ or "<" in f.__qualname__:
        return None
    return {
        "functions": f"{f.__module__}:{f.__qualname__}",
        "file": os.path.abspath(f.__code__.co_filename),
        "compact": compact,
        "board": repr(board.dtype.descr),
        "itemsize": board.dtype.itemsize,
        "specialised": board_digest(board) if rules.specialise else None,
    }


def path(ident: dict[str, object]) -> str:
    """The file of the native object for ``ident`` (:func:`identity`) in this Python."""
    name = f"{ident['functions']}-{'compact' if ident['compact'] else 'wide'}-{ident['board']}"
    if ident.get("specialised"):
        name += f"-{ident['specialised']}"
    digest = hashlib.sha256(name.encode()).hexdigest()[:16]
    return os.path.join(folder(), f"{file_stem(str(ident['functions']))}-{digest}.native")


# -- the environment the code was compiled in ---------------------------------------------------
def _numba_folder() -> str | None:
    """numba's package folder, found without importing numba."""
    try:
        spec = importlib.util.find_spec("numba")
    except (ImportError, ValueError):
        return None
    places = list(spec.submodule_search_locations or ()) if spec is not None else []
    return places[0] if places else None


def _file_digest(name: str) -> str | None:
    try:
        with open(name, "rb") as stream:
            return hashlib.sha256(stream.read()).hexdigest()
    except OSError:
        return None


@functools.cache
def _llvm() -> types.ModuleType:
    """llvmlite's binding, its native target set up."""
    llvm = importlib.import_module("llvmlite.binding")  # (llvmlite ships no type information)
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm


def _host() -> tuple[str, str]:
    """The CPU's name and features as numba targets them (its ``NUMBA_CPU_NAME`` and
    ``NUMBA_CPU_FEATURES`` first)."""
    llvm = _llvm()
    name = os.environ.get("NUMBA_CPU_NAME") or llvm.get_host_cpu_name()
    features = os.environ.get("NUMBA_CPU_FEATURES")
    if features is None:
        try:
            features = llvm.get_host_cpu_features().flatten()
        except RuntimeError:
            features = ""
    return name, features


def environment() -> dict[str, str | None]:
    """What the machine code depends on besides its sources: Python, llvmlite, numba (its version
    file's digest), the CPU (name and features, as numba targets them)."""
    llvmlite = importlib.import_module("llvmlite")
    numba = _numba_folder()
    cpu, features = _host()
    return {
        "python": sys.version,
        "cache_tag": sys.implementation.cache_tag,
        "llvmlite": str(llvmlite.__version__),
        "numba": _file_digest(os.path.join(numba, "_version.py")) if numba else None,
        "cpu": cpu,
        "features": features,
    }


# -- the file -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Native:
    """A native object file's parts: its header (what it was made from) and the object code."""

    header: dict[str, Any]
    code: bytes


def write(name: str, header: dict[str, object], code: bytes) -> None:
    """Write the file ``name`` atomically (a temporary file renamed over it): ``header`` (with the
    object's length and digest added) and the object ``code``."""
    header = {**header, "format": FORMAT, "bytes": len(code), "sha256": hashlib.sha256(code).hexdigest()}
    text = json.dumps(header, sort_keys=True).encode()
    os.makedirs(os.path.dirname(name), exist_ok=True)
    temporary = f"{name}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        with open(temporary, "wb") as stream:
            stream.write(_MAGIC + struct.pack("<Q", len(text)) + text + code)
        os.replace(temporary, name)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def read(name: str) -> Native | str:
    """The file ``name`` read and its integrity checked (layout, length, digest), or why not."""
    try:
        with open(name, "rb") as stream:
            data = stream.read()
    except OSError as exc:
        return f"cannot read it ({exc.strerror or exc})"
    start = len(_MAGIC) + 8
    if len(data) < start or not data.startswith(_MAGIC):
        return "not a native kernel file"
    (size,) = struct.unpack_from("<Q", data, len(_MAGIC))
    try:
        header = json.loads(data[start : start + size])
    except ValueError:
        return "its header is damaged"
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        return "another layout"
    code = data[start + size :]
    if header.get("bytes") != len(code) or header.get("sha256") != hashlib.sha256(code).hexdigest():
        return "its object code is cut or damaged"
    return Native(header, code)


def _sources_unchanged(sources: object) -> str | None:
    """Why the recorded sources (``[path, size, mtime_ns, sha256]`` each) differ from the files
    now, or None: a file of the same size and time is taken as the same, else its content is compared."""
    if not isinstance(sources, list) or not sources:
        return "no sources recorded"
    for entry in sources:
        if not (isinstance(entry, list) and len(entry) == 4):
            return "its sources are damaged"
        name, size, mtime, digest = entry
        try:
            stat = os.stat(name)
        except (OSError, TypeError, ValueError):
            return f"{name} is gone"
        if (stat.st_size, stat.st_mtime_ns) != (size, mtime) and _file_digest(name) != digest:
            return f"{name} changed"
    return None


def check(native: Native, ident: dict[str, object]) -> str | None:
    """Why the object must not be loaded here for ``ident``, or None: another identity, another
    environment, a changed source, a symbol it needs that cannot be given."""
    header = native.header
    if header.get("identity") != ident:
        return "compiled for other rules, table or board"
    if header.get("environment") != environment():
        return "compiled in another environment (Python, llvmlite, numba or CPU)"
    if ident["file"] not in {entry[0] for entry in header.get("sources") or () if isinstance(entry, list) and entry}:
        return "the rules' module is not among its sources"
    changed = _sources_unchanged(header.get("sources"))
    if changed is not None:
        return changed
    if header.get("unfit"):  # (made where no native code could be: a mark, so that no process tries again)
        return f"{UNFIT_WHEN_MADE}{header['unfit']}"
    symbols = undefined_symbols(native.code)
    if symbols is None:
        return "its object code is not an ELF object this loader reads"
    missing = [name for name, address in resolvable(symbols).items() if address is None]
    if missing:
        return f"symbols it needs cannot be given: {', '.join(missing[:3])}"
    facts = header.get("rules")
    if not isinstance(facts, dict) or not isinstance(header.get("entry"), str):
        return "its header is damaged"
    return None


# -- the object's external symbols ------------------------------------------------------------------
def undefined_symbols(code: bytes) -> list[str] | None:
    """The undefined symbols of an ELF64 little-endian relocatable object (None: not one)."""
    try:
        if code[:4] != b"\x7fELF" or code[4] != 2 or code[5] != 1:
            return None
        shoff, _, _, _, _, shentsize, shnum = struct.unpack_from("<QIHHHHH", code, 0x28)
        sections = [struct.unpack_from("<IIQQQQIIQQ", code, shoff + i * shentsize) for i in range(shnum)]
        names: list[str] = []
        for _, kind, _, _, offset, size, link, _, _, entsize in sections:
            if kind != 2 or entsize != 24:  # SHT_SYMTAB
                continue
            strings_at = sections[link][4]
            for at in range(offset + 24, offset + size, 24):  # (the first symbol is the null one)
                name_at, info, _, shndx = struct.unpack_from("<IBBH", code, at)
                if shndx == 0 and name_at:  # SHN_UNDEF
                    end = code.index(b"\0", strings_at + name_at)
                    names.append(code[strings_at + name_at : end].decode())
        return sorted(set(names))
    except (struct.error, IndexError, ValueError, UnicodeDecodeError):
        return None


@functools.cache
def _helper_table(library: str) -> dict[str, int]:
    """The function addresses one of numba's C libraries offers (its ``c_helpers``), the library
    loaded as an extension module from its file, without the ``numba`` package (empty: not found)."""
    numba = _numba_folder()
    found = sorted(glob.glob(os.path.join(numba, f"{library}.*.so"))) if numba else []
    if not found:
        return {}
    name = "numba." + library.replace("/", ".")
    spec = importlib.util.spec_from_file_location(name, found[0])
    if spec is None or spec.loader is None:
        return {}
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    table = getattr(module, "c_helpers", {})
    return {str(k): int(v) for k, v in table.items()} if isinstance(table, dict) else {}


def resolvable(symbols: Iterable[str]) -> dict[str, int | None]:
    """The address in this process of each symbol (None: not found): numba's helpers and its
    runtime's functions from its C libraries, anything else (the Python C API, the C library)
    from the process itself."""
    found: dict[str, int | None] = {}
    for symbol in symbols:
        address: int | None = None
        for prefix, library in _HELPERS.items():
            if symbol.startswith(prefix):
                address = _helper_table(library).get(symbol[len(prefix) :])
                break
        else:
            with contextlib.suppress(ValueError):
                address = ctypes.addressof(ctypes.c_char.in_dll(ctypes.pythonapi, symbol))
        found[symbol] = address
    return found


# -- loading ----------------------------------------------------------------------------------------
_Entry = Callable[..., int]
_ENTRY_TYPE = ctypes.CFUNCTYPE(
    ctypes.c_int64,
    ctypes.c_int64,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_int64,
    ctypes.c_void_p,
    ctypes.c_int64,
    ctypes.c_void_p,
    ctypes.c_int64,
    ctypes.c_uint64,
    ctypes.c_uint64,
    ctypes.c_int64,
    ctypes.c_int64,
    ctypes.c_int64,
    ctypes.c_int64,
    ctypes.c_int64,
)
_lock = threading.Lock()
#: Objects loaded in this process, by their digest: the entry and what must stay alive for it.
_loaded: dict[str, tuple[_Entry, tuple[object, ...]]] = {}
#: Why the last :func:`load` of each file returned None (for tests and ``--verbose`` reports).
_refusals: dict[str, str] = {}


def refusal(name: str) -> str | None:
    """Why the last :func:`load` of the file ``name`` did not load it (None: it did, or was not asked)."""
    return _refusals.get(name)


def _engine(native: Native) -> _Entry:
    """The object loaded into an MCJIT engine of its own (once a process), its entry as a ctypes function."""
    digest = str(native.header["sha256"])
    with _lock:
        if digest in _loaded:
            return _loaded[digest][0]
        llvm = _llvm()
        symbols = resolvable(undefined_symbols(native.code) or ())
        for symbol, address in symbols.items():
            if address is not None:
                llvm.add_symbol(symbol, address)
        cpu, features = _host()
        machine = llvm.Target.from_default_triple().create_target_machine(
            cpu=cpu, features=features, reloc="static", codemodel="jitdefault", jit=True
        )
        module = llvm.parse_assembly("")
        engine = llvm.create_mcjit_compiler(module, machine)
        engine.add_object_file(llvm.ObjectFileRef.from_data(native.code))
        engine.finalize_object()
        address = engine.get_function_address(str(native.header["entry"]))
        if not address:
            raise LookupError("the entry point is not in the object")
        entry: _Entry = _ENTRY_TYPE(address)
        _loaded[digest] = (entry, (engine, machine, module))
        return entry


@dataclass(frozen=True, slots=True)
class Loaded:
    """A native kernel: its functions (as numba's, :class:`gametree.search.kernel_layout.Kernel`)
    and what the rules it was compiled from give (``score``: a margin game's final score)."""

    kernel: Kernel
    score: bool
    file: str


def _data(array: np.ndarray) -> int:
    return int(array.ctypes.data)


def _kernel(entry: _Entry, win_now: bool) -> Kernel:
    """The entry's operations as the functions of a :class:`Kernel` (numpy arrays in, as numba's)."""

    def search(
        board: np.ndarray, table: np.ndarray, w: np.ndarray, a: int, b: int, p: int, h: int, lo: int, hi: int, mode: int
    ) -> int:
        arrays = (_data(board), _data(table), len(table), None, 0, _data(w), len(w))
        return entry(SEARCH, *arrays, a, b, p, h, lo, hi, mode)

    def wins(board: np.ndarray, a: int, b: int) -> bool:
        return entry(WIN_NOW, _data(board), None, 0, None, 0, None, 0, a, b, 0, 0, 0, 0, 0) != 0

    def rehash(table: np.ndarray, larger: np.ndarray) -> None:
        entry(REHASH, None, _data(table), len(table), _data(larger), len(larger), None, 0, 0, 0, 0, 0, 0, 0, 0)

    def rehash_compact(table: np.ndarray, larger: np.ndarray, bits: int, cshift: int) -> None:
        sizes = (_data(table), len(table), _data(larger), len(larger))
        entry(REHASH_COMPACT, None, *sizes, None, 0, 0, 0, bits, cshift, 0, 0, 0)

    return Kernel(search, wins if win_now else None, rehash, rehash_compact)


def unfit(rules: CompiledRules, compact: bool, board: np.ndarray) -> str | None:
    """Why there is no native object of ``rules`` fit to load here (see :func:`load`), or None."""
    ident = identity(rules, compact, board)
    if ident is None:
        return "the rules' functions are not a module-level function"
    try:
        native = read(path(ident))
        return native if isinstance(native, str) else check(native, ident)
    except Exception as exc:  # noqa: BLE001 (any doubt: unfit)
        return f"{type(exc).__name__}: {exc}"


def load(rules: CompiledRules, compact: bool, board: np.ndarray) -> Loaded | None:
    """The native kernel of ``rules`` (with the compact table or not, for boards of ``board``'s record
    layout), if its file is there and fit to load here (:func:`check`); else None (see :func:`refusal`)."""
    if not switched_on():
        return None
    ident = identity(rules, compact, board)
    if ident is None:
        return None
    name = path(ident)
    try:
        native = read(name)
        why = native if isinstance(native, str) else check(native, ident)
        if why is not None or isinstance(native, str):
            _refusals[name] = why or "unreadable"
            return None
        entry = _engine(native)
    except Exception as exc:  # noqa: BLE001 (any doubt: numba's code instead)
        _refusals[name] = f"{type(exc).__name__}: {exc}"
        return None
    _refusals.pop(name, None)
    facts = native.header["rules"]
    return Loaded(_kernel(entry, bool(facts.get("win_now"))), bool(facts.get("score")), name)
