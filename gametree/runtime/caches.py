"""The processor's memory caches, as the system describes them (Linux's sysfs; elsewhere unknown).

The compiled engine sizes its table by them (:func:`gametree.search.compiled.default_compiled_bytes`):
a probe of a table that stays in the cache costs a fraction of one that waits for memory.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

__all__ = ["largest_cache_bytes", "parse_sysfs_size"]

#: Where Linux lists the first processor's caches: one folder a cache, with its ``level``, ``type``
#: and ``size`` (``32768K``).
CACHES = Path("/sys/devices/system/cpu/cpu0/cache")

_SIZE = re.compile(r"^\s*(\d{1,9})\s*([KMG]?)\s*$")
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_sysfs_size(text: str) -> int | None:
    """A size as sysfs writes it (``32768K``, ``1M``, ``512``), in bytes; None if it is not one.

    >>> parse_sysfs_size("32768K"), parse_sysfs_size("1M"), parse_sysfs_size("lots")
    (33554432, 1048576, None)
    """
    m = _SIZE.match(text)
    return int(m[1]) * _UNITS[m[2]] if m else None


@functools.cache
def largest_cache_bytes(folder: Path = CACHES) -> int | None:
    """The largest data (or unified) cache of the first processor in bytes, usually the last
    level's, shared by its cores; None where the system does not say (not Linux, a container that
    hides sysfs, a size that is not a size)."""
    sizes = []
    try:
        entries = sorted(folder.glob("index*"))
        for entry in entries:
            if (entry / "type").read_text().strip() == "Instruction":
                continue
            size = parse_sysfs_size((entry / "size").read_text())
            if size:
                sizes.append(size)
    except (OSError, UnicodeDecodeError):
        return None
    return max(sizes) if sizes else None
