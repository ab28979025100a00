"""The ``gametree`` entry points, and the cache file that spares each command importing
``importlib.metadata`` to find them.

:func:`entry_point_list` is the answer; the cache is read back only while nothing
``importlib.metadata`` looks at has changed (:func:`_fingerprint`: the folders of ``sys.path``,
their distributions and each one's ``entry_points.txt``).

>>> ("tictactoe", "gametree_builtins.games.tictactoe") in [(name, value) for name, value, _ in entry_point_list()]
True
"""

from __future__ import annotations

import json
import os
import stat
import sys
import zlib
from typing import TypeAlias

from ..files import user_cache_folder, write_privately
from . import NAME

__all__ = ["entry_point_list"]

#: Bumped when the cache file's layout changes.
_CACHE_FORMAT = 1

#: A cache file larger than this is not read (it holds a few kilobytes).
_CACHE_MAX_BYTES = 1 << 20

#: One distribution of a folder, in a fingerprint: ``[name, time, size, inode]`` of its
#: ``entry_points.txt``, or ``[name]`` if it has none.
_DistPrint: TypeAlias = list[str | int]
#: One entry of ``sys.path``: ``[path]`` if missing, ``[path, time, size]`` for a file (a zip),
#: ``[path, time, [distribution, ...]]`` for a folder.
_PathPrint: TypeAlias = list[str | int | list[_DistPrint]]


def _fingerprint(paths: list[str]) -> list[_PathPrint] | None:
    """What ``importlib.metadata`` looks at to find entry points, with its files' times and sizes.

    For each folder or file of ``paths`` (``sys.path``): a missing one as such; a file (a zip) by its
    time and size; a directory by its time (a distribution installed, removed
    or renamed changes it) and by each ``*.dist-info``/``*.egg-info`` in it with
    the time, size and inode of its ``entry_points.txt`` (an edit in place).
    None when a finder other than the standard path finder (or the
    ``importlib_metadata`` backport's, which searches the same folders and
    which that package puts in its place when imported) could provide
    distributions: what it finds cannot be told from here.
    """
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if finder is PathFinder or getattr(finder, "find_distributions", None) is None:
            continue
        kind = type(finder)
        if (kind.__module__, kind.__qualname__) != ("importlib_metadata", "MetadataPathFinder"):
            return None
    entries: list[_PathPrint] = []
    for where in paths:
        try:
            info = os.stat(where)
        except (OSError, ValueError):
            entries.append([where])
            continue
        if not stat.S_ISDIR(info.st_mode):
            entries.append([where, info.st_mtime_ns, info.st_size])
            continue
        try:
            names = sorted(name for name in os.listdir(where) if name.lower().endswith((".dist-info", ".egg-info")))
        except OSError:
            names = []
        dists: list[_DistPrint] = []
        for name in names:
            try:
                points = os.stat(os.path.join(where, name, "entry_points.txt"))
                dists.append([name, points.st_mtime_ns, points.st_size, points.st_ino])
            except OSError:
                dists.append([name])
        entries.append([where, info.st_mtime_ns, dists])
    return entries


def _cache_path(paths: list[str]) -> str:
    """The cache file of this Python environment (its interpreter and ``paths``)."""
    folder = user_cache_folder()
    environment = "\0".join([sys.executable, *paths])
    return os.path.join(folder, f"entry-points-{zlib.crc32(environment.encode('utf-8', 'surrogatepass')):08x}.json")


def _scan() -> list[tuple[str, str, str]]:
    """``(name, value, "distribution version")`` of each entry point of the group, by name."""
    from importlib.metadata import entry_points

    # "name version" of each distribution, read once: every .name and .version parses its METADATA again.
    labels: dict[int, str] = {}
    found = []
    for ep in sorted(entry_points(group=NAME), key=lambda e: e.name):
        dist = ""
        if ep.dist is not None:
            if id(ep.dist) not in labels:
                labels[id(ep.dist)] = f"{ep.dist.name} {ep.dist.version}"
            dist = labels[id(ep.dist)]
        found.append((ep.name, ep.value, dist))
    return found


def entry_point_list() -> list[tuple[str, str, str]]:
    """The ``gametree`` entry points: ``(name, value, "distribution version")``, by name.

    ``importlib.metadata`` finds them; its answer is kept in a file of the user's
    cache (``$GAMETREE_CACHE_DIR``, else ``$XDG_CACHE_HOME/gametree`` or
    ``~/.cache/gametree``) and read back while nothing it looked at has changed
    (see :func:`_fingerprint`), which spares each command importing it
    (docs/performance-log.md has the cost).  ``GAMETREE_PLUGIN_CACHE=0`` turns the cache off.  A cache that
    cannot be read or written is passed over silently.
    """
    try:  # "" on sys.path is the working folder (gone, if it was deleted: then no cache)
        paths = [entry or os.getcwd() for entry in sys.path]
    except OSError:
        return _scan()
    fingerprint = _fingerprint(paths) if os.environ.get("GAMETREE_PLUGIN_CACHE", "1") != "0" else None
    if fingerprint is None:
        return _scan()
    path = _cache_path(paths)
    try:
        kept = _read_private(path)
        if isinstance(kept, dict) and kept.get("format") == _CACHE_FORMAT and kept.get("fingerprint") == fingerprint:
            entries = kept.get("entry_points")
            # Only a list of [name, value, dist] strings; any other shape is a miss, rewritten below.
            if isinstance(entries, list) and all(
                isinstance(e, list) and len(e) == 3 and all(isinstance(field, str) for field in e) for e in entries
            ):
                return [(name, value, dist) for name, value, dist in entries]
    except (OSError, ValueError, RecursionError, MemoryError):
        pass  # none yet, or unreadable (too deeply nested, say): scan again
    found = _scan()
    try:
        record = {"format": _CACHE_FORMAT, "fingerprint": fingerprint, "entry_points": found}
        write_privately(path, json.dumps(record).encode("utf-8"))
    except OSError:
        pass  # a read-only or full disk: no cache, same answer
    return found


def _read_private(path: str) -> object:
    """The JSON in ``path`` if it is a regular file of this user that nobody else may write (the
    cache names modules to import: a file someone else could have written is not trusted), else
    :class:`OSError`.  Opened without following a symbolic link and without blocking (a FIFO
    there would otherwise hang every command)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        others_may_write = info.st_mode & 0o022 or (hasattr(os, "getuid") and info.st_uid != os.getuid())
        if not stat.S_ISREG(info.st_mode) or others_may_write:
            raise OSError(f"{path}: not a private regular file")
        loaded: object = json.loads(f.read(_CACHE_MAX_BYTES + 1)[:_CACHE_MAX_BYTES])
        return loaded
