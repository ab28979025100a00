"""Tier files: a tier build's arrays on disk, one ``.npy`` per tier and a JSON header (format version 1).

A directory holds::

    header.json        what the arrays are (below), written again (atomically) after each file
    tier-NNN.npy       tier NNN's values, one ``uint8`` (or ``uint16``) a position, by index
    reach-NNN.npy      tier NNN's reach marks, while the build runs (removed once the tier is solved)

``header.json`` is an object: ``format`` (``"gametree-tiers"``), ``version`` (:data:`VERSION`),
``game`` and ``options`` (the game's name and the options that recreate it), ``value_bytes``
(1 or 2), ``encoding`` (how a value reads, in words), ``sizes`` (each tier's number of
indices), ``tiers`` (for each solved tier, by its number as a string: ``file``, ``sha256`` of
the file, and its counts ``positions``, ``wins``, ``draws``, ``losses``), ``reach`` (the same,
``file`` and ``sha256``, for the reach marks kept) and ``complete`` (every tier solved).

A game without its own ranking (:attr:`gametree.game.GameInfo.adds_one_piece`, tiers by ply:
:mod:`gametree.search.ply_tiers`) is built with ``ranking`` ``"sorted-keys"`` in the header: tier
``t`` then holds the positions of ply ``t``, its index a position's place among the tier's keys
(``game.key``) in increasing order, which ``keys-NNN.npy`` holds (``int64``, one a position; named
in the header's ``keys`` as the tiers are), so every index is a reachable position.

A value is ``outcome << 6 | remoteness`` in one byte (``<< 14`` in two): ``outcome`` 1 a loss,
2 a draw, 3 a win for the side to move, the remoteness the moves to the end under perfect play;
0 is an index no reachable position has.

Every file is written to a temporary name in the directory, flushed and renamed onto its own, the
header last: a build killed at any moment leaves whole files, and the header names only files
that were whole.  A stopped build resumes at its tier: the solved tiers and the reach marks the
header names are read back (checked) instead of being computed again.  Every file read is
checked first (the header's fields, the array's type and size, its checksum): a bad one raises
:class:`TierFileError`, one line.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..game import GameError
from ..search.tiers import TierCounts

__all__ = [
    "FORMAT",
    "HEADER",
    "KILL_VARIABLE",
    "SORTED_KEYS",
    "VERSION",
    "TierDirectory",
    "TierFileError",
    "TierHeader",
    "check_header",
    "digest_of",
    "load_checked",
    "read_header",
]

FORMAT = "gametree-tiers"
VERSION = 1
HEADER = "header.json"
ENCODING = (
    "outcome << 6 | remoteness (1 byte; << 14 in 2): outcome 1 loss, 2 draw, 3 win for the side to move; 0 unreachable"
)
#: Test hook: ``GAMETREE_TIERS_KILL=N`` kills the process (SIGKILL) right after its N-th array file is
#: renamed into place, before the header names it.
KILL_VARIABLE = "GAMETREE_TIERS_KILL"
#: The header's ``ranking`` of a build by ply whose indices are places among sorted keys.
SORTED_KEYS = "sorted-keys"


class TierFileError(GameError, ValueError):
    """A tier directory that cannot be used: missing, of another game, damaged."""


TierHeader = dict[str, Any]


def digest_of(path: Path) -> str:
    """The SHA-256 of the file at ``path`` (hex), read a block at a time."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def _write_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


class TierDirectory:
    """A :class:`gametree.search.tiers.TierStore` in a directory (see the module for the format).

    ``game`` and ``options`` name the game; ``sizes`` and ``value_bytes`` are the build's.  An
    existing directory must hold the same game, options, sizes and width (else
    :class:`TierFileError`): its finished files are used again.  ``ranking``: :data:`SORTED_KEYS`
    for a build by ply (:meth:`keep_keys`), None for the game's own ranking."""

    def __init__(
        self,
        folder: Path,
        game: str,
        options: Mapping[str, Any],
        sizes: tuple[int, ...],
        value_bytes: int,
        *,
        ranking: str | None = None,
    ) -> None:
        self.folder = folder
        self.dtype = np.dtype(np.uint8 if value_bytes == 1 else np.uint16)
        self._writes = 0
        expected: TierHeader = {
            "format": FORMAT,
            "version": VERSION,
            "game": game,
            "options": dict(options),
            "value_bytes": value_bytes,
            "encoding": ENCODING,
            "sizes": list(sizes),
            "tiers": {},
            "reach": {},
            "complete": False,
        }
        if ranking is not None:
            expected.update(ranking=ranking, keys={})
        if (folder / HEADER).exists():
            found = read_header(folder)
            for field in ("game", "options", "value_bytes", "sizes", "ranking"):
                if found.get(field) != expected.get(field):
                    raise TierFileError(
                        f"{folder} holds tiers of another build ({field} {found[field]!r}, not {expected[field]!r}): "
                        "choose another --out"
                    )
            self.header = found
        else:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise TierFileError(f"cannot make {folder}: {exc.strerror}") from None
            self.header = expected
            self._save_header()

    # -- the TierStore protocol ------------------------------------------------------------------
    def holds(self, kind: str, tier: int) -> bool:
        return str(tier) in self.header["reach" if kind == "reach" else "tiers"]

    def reach(self, tier: int) -> np.ndarray | None:
        entry = self.header["reach"].get(str(tier))
        return None if entry is None else self._load(tier, entry)

    def keep_reach(self, tier: int, marks: np.ndarray) -> None:
        self.header["reach"][str(tier)] = self._write(f"reach-{tier:03d}.npy", marks)
        self._save_header()

    def solved(self, tier: int) -> np.ndarray | None:
        entry = self.header["tiers"].get(str(tier))
        return None if entry is None else self._load(tier, entry)

    def keep_solved(self, tier: int, values: np.ndarray, counts: TierCounts) -> None:
        self._solved(tier, self._write(f"tier-{tier:03d}.npy", values), counts)

    def _solved(self, tier: int, entry: dict[str, Any], counts: TierCounts) -> None:
        entry.update(positions=counts.positions, wins=counts.wins, draws=counts.draws, losses=counts.losses)
        self.header["tiers"][str(tier)] = entry
        gone = self.header["reach"].pop(str(tier), None)
        self.header["complete"] = len(self.header["tiers"]) == len(self.header["sizes"])
        self._save_header()
        if gone is not None:
            with contextlib.suppress(OSError):
                (self.folder / gone["file"]).unlink()

    def keep_keys(self, tier: int, keys: np.ndarray) -> None:
        """Keep the sorted keys of ``tier`` (a build by ply: :data:`SORTED_KEYS`)."""
        self.header["keys"][str(tier)] = self._write(f"keys-{tier:03d}.npy", keys, np.dtype(np.int64))
        self._save_header()

    def counts(self, tier: int) -> TierCounts | None:
        entry = self.header["tiers"].get(str(tier))
        if entry is None:
            return None
        size = self.header["sizes"][tier]
        return TierCounts(tier, size, entry["positions"], entry["wins"], entry["draws"], entry["losses"])

    # -- the TierFiles protocol (workers write files) -------------------------------------------------
    def path(self, kind: str, tier: int) -> Path:
        return self.folder / f"{kind}-{tier:03d}.npy"

    def scratch(self, kind: str, tier: int) -> Path:
        path = self.path(kind, tier)
        return path.with_name(path.name + ".tmp")

    def adopt(self, kind: str, tier: int, counts: TierCounts | None) -> None:
        scratch = self.scratch(kind, tier)
        with scratch.open("rb+") as f:
            os.fsync(f.fileno())
        entry = self._adopt(self.path(kind, tier).name)
        if counts is None:
            self.header["reach"][str(tier)] = entry
            self._save_header()
        else:
            self._solved(tier, entry, counts)

    # -- files -----------------------------------------------------------------------------------
    def _write(self, name: str, array: np.ndarray, dtype: np.dtype[Any] | None = None) -> dict[str, Any]:
        tmp = (self.folder / name).with_name(name + ".tmp")
        with tmp.open("wb") as f:
            np.save(f, np.ascontiguousarray(array, dtype=dtype or self.dtype))
            f.flush()
            os.fsync(f.fileno())
        return self._adopt(name)

    def _adopt(self, name: str) -> dict[str, Any]:
        """Checksum the finished temporary file of ``name`` and rename it onto ``name``."""
        path = self.folder / name
        tmp = path.with_name(name + ".tmp")
        digest = digest_of(tmp)
        os.replace(tmp, path)
        self._writes += 1
        kill_at = os.environ.get(KILL_VARIABLE, "")
        if kill_at.isdigit() and self._writes == int(kill_at):
            os.kill(os.getpid(), signal.SIGKILL)
        return {"file": name, "sha256": digest}

    def _load(self, tier: int, entry: Mapping[str, Any]) -> np.ndarray:
        return load_checked(self.folder, entry, self.header["sizes"][tier], self.dtype)

    def _save_header(self) -> None:
        _write_atomically(self.folder / HEADER, (json.dumps(self.header, indent=1) + "\n").encode())


def read_header(folder: Path) -> TierHeader:
    """The header of the tier directory ``folder``, checked (:class:`TierFileError` if it is not one)."""
    path = folder / HEADER
    try:
        header = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TierFileError(f"{folder} is not a tier directory (no {HEADER})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TierFileError(f"{path} cannot be read: {str(exc).splitlines()[0]}") from None
    return check_header(header, str(path))


def check_header(header: object, where: str) -> TierHeader:
    """``header`` (parsed JSON) if it is a tier header of this version with every field of its
    type, else :class:`TierFileError` naming ``where`` (the file it comes from)."""
    path = where
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise TierFileError(f"{path} is not a gametree tier header")
    if header.get("version") != VERSION:
        raise TierFileError(f"{path} has format version {header.get('version')!r}; this gametree reads {VERSION}")
    sizes = header.get("sizes")
    well_formed = (
        isinstance(header.get("game"), str)
        and isinstance(header.get("options"), dict)
        and header.get("value_bytes") in (1, 2)
        and isinstance(sizes, list)
        and all(isinstance(s, int) and s >= 0 for s in sizes)
        and isinstance(header.get("tiers"), dict)
        and isinstance(header.get("reach"), dict)
        and all(_entry_ok(k, v, len(sizes)) for part in ("tiers", "reach") for k, v in header[part].items())
        and header.get("ranking", SORTED_KEYS) == SORTED_KEYS
        and isinstance(header.get("keys", {}), dict)
        and ("ranking" not in header or "keys" in header)
        and all(_entry_ok(k, v, len(sizes)) for k, v in header.get("keys", {}).items())
        and all(isinstance(v.get(n), int) for v in header["tiers"].values() for n in _COUNTS)
    )
    if not well_formed:
        raise TierFileError(f"{path} is damaged (a field is missing or of the wrong type)")
    return header


_COUNTS = ("positions", "wins", "draws", "losses")


def _entry_ok(key: object, entry: object, tiers: int) -> bool:
    return (
        isinstance(key, str)
        and key.isascii()
        and key.isdigit()
        and int(key) < tiers
        and isinstance(entry, dict)
        and isinstance(entry.get("file"), str)
        and "/" not in entry["file"]
        and isinstance(entry.get("sha256"), str)
    )


def load_checked(folder: Path, entry: Mapping[str, Any], size: int, dtype: np.dtype[Any]) -> np.ndarray:
    """The array ``entry`` names in ``folder``, memory-mapped, after its checksum, type and size are checked."""
    path = folder / str(entry["file"])
    try:
        digest = digest_of(path)
    except OSError as exc:
        raise TierFileError(f"{path} cannot be read: {exc.strerror or exc}") from None
    if digest != entry["sha256"]:
        raise TierFileError(f"{path} is damaged (its checksum is not the header's)")
    try:
        array: np.ndarray = np.load(path, mmap_mode="r", allow_pickle=False)
    except OSError as exc:
        raise TierFileError(f"{path} cannot be read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise TierFileError(f"{path} is not an array file: {str(exc).splitlines()[0]}") from None
    if array.dtype != dtype or array.shape != (size,):
        raise TierFileError(f"{path} holds {array.dtype} x {array.shape}, not {dtype} x ({size},)")
    return array
