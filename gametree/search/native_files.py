"""Where the compiled search's native objects are kept (:mod:`gametree.search.native`) and how their
files are named, without numpy, llvmlite or numba: ``auto``'s guess of what loading the compiled
engine will cost (:func:`gametree.search.compiled.break_even_nodes`) looks here before any of them
is imported (numpy alone is about 45 ms of a process that may then search on Python only)."""

from __future__ import annotations

import glob
import os
import sys
from typing import TYPE_CHECKING

from .compile_state import cache_folder

if TYPE_CHECKING:
    from ..game import CompiledRules

__all__ = ["SWITCH", "file_stem", "folder", "kept", "switched_on"]

#: The environment switch: ``GAMETREE_NATIVE=0`` turns the native code off (numba's is used).
SWITCH = "GAMETREE_NATIVE"


def switched_on() -> bool:
    """Whether the native code may be used (unless ``GAMETREE_NATIVE=0``)."""
    return os.environ.get(SWITCH, "1").strip() != "0"


def folder() -> str:
    """Where the native objects are kept: ``native`` beside numba's cache folder."""
    return os.path.join(os.path.dirname(cache_folder()), "native")


def file_stem(functions: str) -> str:
    """The start of the names of the files of the rules ``functions`` (``module:name``) in this Python."""
    return "".join(c if c.isalnum() else "_" for c in functions) + f".{sys.implementation.cache_tag}"


def kept(rules: CompiledRules) -> bool:
    """Whether a native object of ``rules`` (of any table or board) is kept here: a look at the
    folder's names, nothing read or checked."""
    f = rules.functions
    pattern = os.path.join(glob.escape(folder()), f"{file_stem(f'{f.__module__}:{f.__qualname__}')}-*.native")
    return bool(glob.glob(pattern))
