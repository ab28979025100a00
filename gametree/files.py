"""Writing files atomically: a reader finds the old content or the new, never a part of either.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "table.json")
>>> write_atomically(path, b'{"games": 1}')
>>> write_atomically(path, b'{"games": 2}')
>>> open(path, "rb").read(), os.listdir(os.path.dirname(path))
(b'{"games": 2}', ['table.json'])
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator

__all__ = ["user_cache_folder", "write_atomically", "write_privately"]

#: How many random names to try before giving up (tempfile.mkstemp tries as many).
_ATTEMPTS = 10_000


def write_atomically(path: str | os.PathLike[str], data: bytes, *, sync: bool = True) -> None:
    """Write ``data`` to ``path`` so that ``path`` holds either its old content or all of ``data``.

    The data go to a new file in the same folder, which is flushed, fsynced and
    then renamed onto ``path`` with :func:`os.replace` (one atomic step on one
    file system).  On any error, a full disk or Ctrl-C included, the temporary
    file is removed, ``path`` is left as it was and the exception propagates.
    A process killed outright (SIGKILL, power loss) may leave a temporary
    ``.NAME.*.tmp`` beside ``path``, but never a truncated ``path``.

    A symlink is written through (the file it names is replaced, the link
    stays).  What is not a regular file (``/dev/null``, ``/dev/stdout``, a
    FIFO) is written to directly, since it cannot be replaced.  A new file gets
    the permissions ``open(path, "w")`` would give it (0o666 less the umask); a
    replaced file keeps its permission bits, though the new file belongs to
    whoever wrote it.

    ``sync=False`` leaves out the two fsyncs: the rename is still atomic for other processes and
    after a kill, but after a power loss the file may be empty or old (for files whose readers
    check them, where a sync would cost more than a lost write).
    """
    target = os.path.realpath(path)
    try:
        old: os.stat_result | None = os.stat(target)
    except OSError:
        old = None  # none yet (or unreachable: then creating the temporary fails and says why)
    if old is not None and not stat.S_ISREG(old.st_mode):
        with open(target, "wb") as stream:
            stream.write(data)
        return
    folder, name = os.path.split(target)
    fd, temporary = _create_beside(folder, name)
    with _removed_on_error(temporary), os.fdopen(fd, "wb") as stream:
        if old is not None and hasattr(os, "fchmod"):
            os.fchmod(stream.fileno(), stat.S_IMODE(old.st_mode))
        stream.write(data)
        stream.flush()
        if sync:
            os.fsync(stream.fileno())
    with _removed_on_error(temporary):
        os.replace(temporary, target)
    if sync:
        _sync_folder(folder)


def write_privately(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` for this user alone: through a new file of mode 0o600 (its folder
    made 0o700 if new), renamed onto ``path``.  Unlike :func:`write_atomically`, whatever is at
    ``path`` is replaced, never written through: a symbolic link or a FIFO there (left by someone
    else, say) gives way to the new file.  The new file is fsynced before the rename, so that
    after a crash ``path`` holds the old content or the new, never an empty or partly written
    file (a file system may make the rename durable before the data renamed); the rename itself
    is not synced (for a cache, where a lost write only costs a miss)."""
    folder, name = os.path.split(os.path.abspath(path))
    os.makedirs(folder, mode=0o700, exist_ok=True)
    fd, temporary = _create_beside(folder, name, 0o600)
    with _removed_on_error(temporary):
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, os.path.join(folder, name))


@contextlib.contextmanager
def _removed_on_error(temporary: str) -> Iterator[None]:
    """Remove ``temporary`` if the block fails (a full disk, Ctrl-C), and let the error through."""
    try:
        yield
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _create_beside(folder: str, name: str, mode: int = 0o666) -> tuple[int, str]:
    """A new, empty file in ``folder`` named after ``name``: its descriptor and path.

    Like :func:`tempfile.mkstemp` (``O_EXCL`` on a random name, never through a link), but
    created with ``mode`` (by default 0o666, so the umask applies, as it does to
    ``open(path, "w")``; mkstemp's files are 0o600 whatever the umask).
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(_ATTEMPTS):
        temporary = os.path.join(
            folder, f".{name[:200]}.{os.urandom(6).hex()}.tmp"
        )  # (a name of 255 bytes leaves no room)
        try:
            return os.open(temporary, flags, mode), temporary
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder} after {_ATTEMPTS:,} tries")


def _sync_folder(folder: str) -> None:
    """Make the rename itself durable (POSIX); where folders cannot be opened or synced, do nothing."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def user_cache_folder() -> str:
    """gametree's folder in the user's cache: ``$GAMETREE_CACHE_DIR``, else ``$XDG_CACHE_HOME/gametree``
    or ``~/.cache/gametree`` (not created here)."""
    return os.environ.get("GAMETREE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "gametree"
    )
