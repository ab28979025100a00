"""A compiled table in memory shared by the worker processes of one parallel solve.

Workers that solve neighbouring subproblems meet the same positions again and
again (every column of Connect Four's empty board leads into the same middle
game); with one table between them, what one worker proved the other finds
instead of searching it again (the idea of "lazy SMP" in chess programs).

It is sound because a compact table's entry is one 64-bit word, written and
read whole (:func:`gametree.search.kernel`'s probe reads each word once): an
entry a worker reads always names its key exactly (its check bits and its
bucket) and holds bounds proven for that key, whichever process stored it.
Two processes storing at once can only lose an entry (one replaces the
other), never make a wrong one.  The table of two-word keys keeps an entry in
three words, so it is never shared.

The memory is an anonymous file (Linux's ``memfd_create``): it has no name in
any file system, so nothing is left behind when the parent is killed, and it is
freed once the last process holding it ends.  Workers open it through the
parent's ``/proc/PID/fd/FD``.  Where that cannot be done (no ``memfd_create``,
``/proc`` not readable), each worker keeps a table of its own, as before:
sharing saves work, and no answer depends on it.

>>> with shared_memory(1 << 20) as shared:
...     words = shared.attach() if shared is not None else None
>>> shared is None or (words is not None and len(words) == (1 << 20) // 8 and not words.any())
True
"""

from __future__ import annotations

import contextlib
import mmap
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__ = ["SharedTable", "shared_memory"]


@dataclass(frozen=True, slots=True)
class SharedTable:
    """Where a worker finds the table's memory, and its size in bytes (sent with each task)."""

    path: str
    size: int
    #: Tells this table from a later one whose file got the same number.
    token: str

    def attach(self) -> np.ndarray | None:
        """The table's words (``uint64``), mapped into this process; None if they cannot be (the
        caller then keeps a table of its own)."""
        import numpy as np

        flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
        try:
            fd = os.open(self.path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        try:
            if os.fstat(fd).st_size != self.size or self.size <= 0 or self.size % 8:
                return None  # not the memory the parent made (checked, not trusted)
            memory = mmap.mmap(fd, self.size, flags=flags)
        except (OSError, ValueError):
            return None
        finally:
            os.close(fd)
        return np.frombuffer(memory, dtype=np.uint64)


@contextlib.contextmanager
def shared_memory(size: int) -> Iterator[SharedTable | None]:
    """Zeroed memory of ``size`` bytes that this process's workers may share while the block runs
    (None where it cannot be made).  The pages are taken as they are first written."""
    create = getattr(os, "memfd_create", None)
    proc = f"/proc/{os.getpid()}/fd"
    if create is None or not os.path.isdir(proc):
        yield None
        return
    try:
        fd = create("gametree-table", getattr(os, "MFD_CLOEXEC", 0))
    except OSError:
        yield None
        return
    try:
        os.ftruncate(fd, size)
    except OSError:
        os.close(fd)
        yield None
        return
    try:
        yield SharedTable(f"{proc}/{fd}", size, secrets.token_hex(8))
    finally:
        os.close(fd)
