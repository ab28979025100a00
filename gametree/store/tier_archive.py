"""Tier files: a finished tier directory in one file a user can copy (``gametree tiers export``, ``import``).

A tier file (format version :data:`FILE_VERSION`) is a ZIP archive whose comment is
``gametree-tiers-file 1`` and whose members are, in this order, ``header.json`` (the directory's
header, :mod:`gametree.store.tiers` format version 1, every tier solved, no reach marks) and
``tier-NNN.npy`` for every tier, deflated (level 6), nothing else.  Its bytes depend only on the
directory's (the members' dates are fixed).

:func:`open_tier_file` trusts nothing: before a byte is extracted it checks the archive's end
record (the version in its comment; at most :data:`MAX_MEMBERS` members and :data:`MAX_DIRECTORY`
bytes of directory, so that a hostile directory cannot take the memory), every member's name (no
absolute path, no ``..``, no link or directory, only the expected files, each once), the header
(at most :data:`MAX_HEADER` bytes, every field) and each array's declared size against the size
the header gives its tier.  :meth:`TierArchive.extract` then copies each member, counting its
bytes (never more than declared: a compression bomb stops there) and checking its SHA-256.
Every refusal is a :class:`gametree.store.tiers.TierFileError`, one line.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import struct
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .tiers import HEADER, TierFileError, TierHeader, check_header, load_checked, read_header

__all__ = [
    "FILE_FORMAT",
    "FILE_VERSION",
    "MAX_DIRECTORY",
    "MAX_HEADER",
    "MAX_MEMBERS",
    "NPY_HEADER_MAX",
    "TierArchive",
    "export_tier_file",
    "open_tier_file",
]

FILE_FORMAT = "gametree-tiers-file"
FILE_VERSION = 1
#: The largest ``header.json`` read (bytes).
MAX_HEADER = 1 << 20
#: The most members (the header and one file a tier) and bytes of central directory read.
MAX_MEMBERS = 1 + 4096
MAX_DIRECTORY = 1 << 20
#: The most bytes an array file's ``.npy`` header may add to its values.
NPY_HEADER_MAX = (1 << 16) + 16
_COMPRESS_LEVEL = 6
_DATE = (1980, 1, 1, 0, 0, 0)
_BLOCK = 1 << 20
_TIER_NAME = re.compile(r"tier-(\d{3,})\.npy")


def _comment(version: int = FILE_VERSION) -> bytes:
    return f"{FILE_FORMAT} {version}".encode()


@dataclass(frozen=True, slots=True)
class ExportSummary:
    """What :func:`export_tier_file` wrote: ``tiers`` arrays of ``array_bytes`` in a file of ``file_bytes``."""

    tiers: int
    array_bytes: int
    file_bytes: int


def export_tier_file(folder: Path, path: Path) -> ExportSummary:
    """Write the finished tier directory ``folder`` to the tier file ``path`` (atomically: a
    temporary file beside it, renamed).  Each array is checked (size, type, SHA-256) first."""
    header = read_header(folder)
    sizes = header["sizes"]
    if not header["complete"] or len(header["tiers"]) != len(sizes):
        raise TierFileError(
            f"{folder} is not finished ({len(header['tiers'])} of {len(sizes)} tiers solved): run its build again first"
        )
    if header.get("ranking") is not None:
        raise TierFileError(
            f"{folder} is tiered by ply (ranked by its keys): tier files hold only directories of a game's "
            "own tiers in this version; copy the directory itself"
        )
    dtype = _dtype(header["value_bytes"])
    for tier, size in enumerate(sizes):
        load_checked(folder, header["tiers"][str(tier)], size, dtype)
    kept = {**header, "reach": {}}
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise TierFileError(f"cannot write {path}: {exc.strerror or exc}") from None
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as raw:
            with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED, compresslevel=_COMPRESS_LEVEL) as archive:
                archive.comment = _comment()
                archive.writestr(_member(HEADER), json.dumps(kept, indent=1) + "\n")
                total = sum(_add(archive, folder / header["tiers"][str(t)]["file"]) for t in range(len(sizes)))
            raw.flush()
            os.fsync(raw.fileno())
        tmp.chmod(0o644)
        os.replace(tmp, path)
    except OSError as exc:
        raise TierFileError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return ExportSummary(len(sizes), total, path.stat().st_size)


def _member(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, _DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (stat.S_IFREG | 0o644) << 16
    return info


def _add(archive: zipfile.ZipFile, source: Path) -> int:
    size = source.stat().st_size
    info = _member(source.name)
    info.file_size = size
    with source.open("rb") as src, archive.open(info, "w", force_zip64=size > (1 << 30)) as dst:
        for block in iter(lambda: src.read(_BLOCK), b""):
            dst.write(block)
    return size


def _dtype(value_bytes: int) -> Any:
    import numpy as np

    return np.dtype(np.uint8 if value_bytes == 1 else np.uint16)


@dataclass(frozen=True, slots=True)
class TierArchive:
    """A tier file whose structure is checked (see :func:`open_tier_file`); its arrays are not read yet."""

    path: Path
    header: TierHeader
    #: Each member's declared size (bytes), by name.
    members: dict[str, int]

    @property
    def array_bytes(self) -> int:
        return sum(size for name, size in self.members.items() if name != HEADER)

    def extract(self, into: Path) -> None:
        """Write the header and every array into the (new, empty) directory ``into``, each array's
        bytes counted and its SHA-256 checked against the header's (each array's type and size are
        checked when it is loaded: :func:`gametree.store.tiers.load_checked`).  :class:`TierFileError`
        at the first fault (``into`` is left to the caller)."""
        try:
            with zipfile.ZipFile(self.path) as archive:
                for tier in range(len(self.header["sizes"])):
                    entry = self.header["tiers"][str(tier)]
                    self._copy(archive, entry["file"], into / entry["file"], entry["sha256"])
        except TierFileError:
            raise
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, ValueError) as exc:
            raise TierFileError(f"{self.path} is damaged: {_line(exc)}") from None
        except OSError as exc:
            raise TierFileError(f"{self.path} cannot be extracted: {exc.strerror or exc}") from None
        (into / HEADER).write_text(json.dumps(self.header, indent=1) + "\n", encoding="utf-8")

    def _copy(self, archive: zipfile.ZipFile, name: str, target: Path, sha256: str) -> None:
        declared = self.members[name]
        digest = hashlib.sha256()
        count = 0
        with archive.open(name) as src, target.open("xb") as dst:
            while block := src.read(_BLOCK):
                count += len(block)
                if count > declared:
                    raise TierFileError(f"{self.path}: {name} holds more than the {declared:,} bytes it declares")
                digest.update(block)
                dst.write(block)
        if count != declared:
            raise TierFileError(f"{self.path}: {name} holds {count:,} bytes, not the {declared:,} it declares")
        if digest.hexdigest() != sha256:
            raise TierFileError(f"{self.path}: {name} is damaged (its checksum is not the header's)")


def _line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def open_tier_file(path: Path) -> TierArchive:
    """The tier file at ``path``, its structure checked (see the module): :class:`TierFileError` if not."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # (before opening: a FIFO would block the open)
            raise TierFileError(f"{path} is not a regular file")
        with path.open("rb") as raw:
            _check_end(path, raw)
            with zipfile.ZipFile(raw) as archive:
                infos = archive.infolist()
                members = _check_names(path, infos)
                header = _read_header(path, archive, infos)
    except TierFileError:
        raise
    except FileNotFoundError:
        raise TierFileError(f"{path} does not exist") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, ValueError, struct.error) as exc:
        raise TierFileError(f"{path} is damaged: {_line(exc)}") from None
    except OSError as exc:
        raise TierFileError(f"{path} cannot be read: {exc.strerror or exc}") from None
    _check_members(path, header, members)
    return TierArchive(path, header, members)


def _check_end(path: Path, raw: IO[bytes]) -> None:
    """The end record: a ZIP with this format's comment and version, a directory of sane size."""
    size = raw.seek(0, os.SEEK_END)
    tail_size = min(size, 22 + 0xFFFF)
    raw.seek(size - tail_size)
    tail = raw.read(tail_size)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        raise TierFileError(f"{path} is not a tier file (not a ZIP archive, or cut short)")
    entries, directory, _, comment_size = struct.unpack("<10xHLLH", tail[at : at + 22])
    comment = tail[at + 22 : at + 22 + comment_size]
    found = re.fullmatch(rb"gametree-tiers-file (\d{1,9})", comment)
    if found is None:
        raise TierFileError(f"{path} is not a gametree tier file (a ZIP archive without its mark)")
    if int(found[1]) != FILE_VERSION:
        raise TierFileError(f"{path} is a tier file of version {int(found[1])}; this gametree reads {FILE_VERSION}")
    if entries == 0xFFFF or directory == 0xFFFFFFFF:  # ZIP64: the counts are in the ZIP64 end record
        position = size - tail_size + at - 20
        raw.seek(max(position, 0))
        locator = raw.read(20)
        if position < 0 or locator[:4] != b"PK\x06\x07":
            raise TierFileError(f"{path} is damaged (its ZIP64 end record is missing)")
        raw.seek(struct.unpack("<8xQ4x", locator)[0])
        record = raw.read(56)
        if len(record) != 56 or record[:4] != b"PK\x06\x06":
            raise TierFileError(f"{path} is damaged (its ZIP64 end record is missing)")
        entries, directory = struct.unpack("<32xQQ8x", record)
    if entries > MAX_MEMBERS or directory > MAX_DIRECTORY:
        raise TierFileError(
            f"{path} declares {entries:,} members in {directory:,} bytes of directory "
            f"(at most {MAX_MEMBERS:,} in {MAX_DIRECTORY:,}): not a tier file"
        )


def _check_names(path: Path, infos: list[zipfile.ZipInfo]) -> dict[str, int]:
    """Each member's declared size by name, after its name and kind are checked."""
    members: dict[str, int] = {}
    for info in infos:
        name = info.filename
        shown = json.dumps(name[:80])
        mode = info.external_attr >> 16
        parts = re.split(r"[/\\]", name)
        if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
            why = "an absolute path"
        elif ".." in parts:
            why = "a path out of the folder"
        elif stat.S_ISLNK(mode):
            why = "a link"
        elif info.is_dir() or stat.S_IFMT(mode) not in (0, stat.S_IFREG):
            why = "not a regular file"
        elif name != HEADER and not _TIER_NAME.fullmatch(name):
            why = "not a file of a tier directory"
        elif name in members:
            why = "there twice"
        elif info.flag_bits & 0x1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            why = "encrypted or compressed in a way tier files are not"
        else:
            members[name] = info.file_size
            continue
        raise TierFileError(f"{path}: the member {shown} is {why}: refused")
    return members


def _read_header(path: Path, archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo]) -> TierHeader:
    if not infos or infos[0].filename != HEADER:
        raise TierFileError(f"{path}: its first member is not {HEADER}: not a tier file")
    if infos[0].file_size > MAX_HEADER:
        raise TierFileError(f"{path}: its {HEADER} declares {infos[0].file_size:,} bytes (at most {MAX_HEADER:,})")
    with archive.open(infos[0]) as stream:
        data = stream.read(MAX_HEADER + 1)
    if len(data) > MAX_HEADER:
        raise TierFileError(f"{path}: its {HEADER} is longer than {MAX_HEADER:,} bytes")
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise TierFileError(f"{path}: its {HEADER} is not JSON: {_line(exc)}") from None
    return check_header(parsed, f"{path}:{HEADER}")


def _check_members(path: Path, header: TierHeader, members: dict[str, int]) -> None:
    """The header names a finished build whose tier files are the members, each of a declared size
    that its tier's size gives (the values, and an ``.npy`` header of at most :data:`NPY_HEADER_MAX`)."""
    sizes = header["sizes"]
    if (
        header["reach"]
        or not header["complete"]
        or sorted(header["tiers"], key=int) != [str(t) for t in range(len(sizes))]
    ):
        raise TierFileError(f"{path}: its header is not that of a finished build")
    expected = {HEADER}
    for tier, size in enumerate(sizes):
        entry = header["tiers"][str(tier)]
        name = f"tier-{tier:03d}.npy"
        if entry["file"] != name:
            raise TierFileError(
                f"{path}: its header names {json.dumps(entry['file'][:80])} for tier {tier}, not {name}"
            )
        expected.add(name)
        values = size * header["value_bytes"]
        declared = members.get(name)
        if declared is not None and not values < declared <= values + NPY_HEADER_MAX:
            raise TierFileError(
                f"{path}: {name} declares {declared:,} bytes, but tier {tier}'s {size:,} values take {values:,} bytes "
                "(and a header of at most 64 KiB)"
            )
        counts = [entry[c] for c in ("positions", "wins", "draws", "losses")]
        if min(counts) < 0 or counts[0] != sum(counts[1:]) or counts[0] > size:
            raise TierFileError(f"{path}: its header's counts of tier {tier} are impossible")
    missing = sorted(expected - set(members))
    extra = sorted(set(members) - expected)
    if missing or extra:
        what = (
            f"lacks {', '.join(missing[:3])}"
            if missing
            else f"holds {', '.join(extra[:3])}, which its header does not name"
        )
        raise TierFileError(f"{path} {what}")
