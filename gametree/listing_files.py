"""Keeping a strong build's listing on disk, so that a build stopped while it lists goes on listing.

``gametree book build GAME --all`` first lists every reachable position, ply by ply
(:func:`gametree.search.strong.solve_strongly`), and only then proves and stores them.  A stop
during that listing would lose it all, so each ply is written down as soon as it is listed
(:class:`gametree.search.strong.ListedPly`), beside the store: in the folder
``STORE.listing/all-DIGEST/`` (``DIGEST`` names the game, its options and the build), the file
``ply-N`` holds what ply N's listing found (its classes, their children, the finished ones'
scores) and ``next-N`` the positions at ply N, the next to list (only the newest is kept).  A
rerun reads plies 0 to N - 1 back and lists from ply N on.

Every file is written to a temporary file first and renamed into place
(:func:`gametree.files.write_atomically`), so a stop at any moment, a kill included, leaves
whole files only.  Each file starts with a header: a magic line, the identity of the game and
build (JSON), and the SHA-256 of the rest.  On reading, a file that is damaged, cut short, of
another game or of another format is not used: the build says so in one line and lists from the
start.  The rest is a pickle read back with an unpickler that builds no object but the game's
own state class (and plain integers, strings, tuples and dictionaries), so a file from elsewhere
cannot run code.  The folder is removed once the listing is complete (the build keeps its
progress in the store from then on, :func:`gametree.book.strong_resume`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import json
import operator
import os
import pickle
import shutil
from collections.abc import Callable, Hashable, Iterator
from typing import TYPE_CHECKING, Any, Generic

from .files import write_atomically
from .game import Game, M, S
from .search.strong import ListedPly

if TYPE_CHECKING:
    from .store import GameEntries

__all__ = ["ListingDamaged", "ListingFiles"]

#: The first line of every file (the format's version is in it).
MAGIC = b"gametree strong listing 1\n"


class ListingDamaged(ValueError):
    """A file of the kept listing cannot be used (damaged, cut short, another game's)."""


class ListingFiles(Generic[S]):
    """The listing of one strong build kept in ``folder`` (see the module).

    ``identity`` tells the game and build apart (it is written into every file and checked on
    reading); ``state_type`` is the class of the game's positions, the only class the files may
    hold; ``note`` is told, in one line, when the files cannot be used or written."""

    def __init__(
        self,
        folder: str,
        identity: dict[str, object],
        state_type: type,
        note: Callable[[str], None] = lambda text: None,
    ) -> None:
        self.folder = folder
        self.identity = identity
        self.state_type = state_type
        self.note = note
        #: Whether writing failed once (the listing then goes on without being kept).
        self.failed = False

    @classmethod
    def for_build(
        cls, game: Game[S, M], book: GameEntries, build: str, note: Callable[[str], None] = lambda text: None
    ) -> ListingFiles[S]:
        """The listing files of the strong build ``build`` of ``game`` into ``book``, beside its store."""
        from . import __version__

        kind = type(game.initial_state())
        identity: dict[str, object] = {
            "game": book.name,
            "options": book.options,
            "state": f"{kind.__module__}.{kind.__qualname__}",
            "gametree": __version__,
        }
        return cls.beside(book.store.path, build, identity, kind, note)

    @classmethod
    def beside(
        cls, store_path: str, build: str, identity: dict[str, object], state_type: type, note: Callable[[str], None]
    ) -> ListingFiles[S]:
        """The listing files of build ``build`` of the game ``identity`` names, beside the store
        ``store_path``."""
        full = {"format": MAGIC.decode().strip(), "build": build, **identity}
        digest = hashlib.sha256(json.dumps(full, sort_keys=True, default=repr).encode()).hexdigest()[:16]
        return cls(os.path.join(f"{store_path}.listing", f"{build}-{digest}"), full, state_type, note)

    def kept(self) -> int:
        """How many plies (from ply 0) are kept, as the files on disk show (their contents unread)."""
        try:
            names = set(os.listdir(self.folder))
        except OSError:
            return 0
        best = 0
        for name in names:
            kind, _, number = name.partition("-")
            if kind == "next" and number.isdigit():
                plies = int(number)
                if plies > best and all(f"ply-{p}" in names for p in range(plies)):
                    best = plies
        return best

    def save(self, found: ListedPly[S]) -> None:
        """Keep what the listing found at ply ``found.ply`` (``ply-N``) and the positions at the next
        ply (``next-N+1``, the older ``next`` files removed).  A failure to write is told to
        ``note`` once; the listing then goes on without being kept."""
        if self.failed:
            return
        try:
            parts = (found.count, found.images, found.aliases, found.finished, found.reps)
            self._write(f"ply-{found.ply}", parts)
            self._write(f"next-{found.ply + 1}", self._pack(found.following))
        except (OSError, pickle.PicklingError, TypeError, AttributeError) as exc:
            self.failed = True
            self.note(f"the listing cannot be kept in {self.folder} ({exc}): a stop while listing loses it")
            return
        with contextlib.suppress(OSError):  # (a folder removed meanwhile: nothing to tidy)
            for name in os.listdir(self.folder):
                if name.startswith("next-") and name != f"next-{found.ply + 1}":
                    os.unlink(os.path.join(self.folder, name))

    def load(self) -> Iterator[ListedPly[S]]:
        """The plies kept, from ply 0 on (the last with the positions of the ply after it); none if
        nothing is kept.  A file that cannot be used raises :class:`ListingDamaged` as it is read."""
        plies = self.kept()
        before: dict[Hashable, tuple[Hashable, ...]] = {}
        for ply in range(plies):
            parts = self._read(f"ply-{ply}")
            if not (isinstance(parts, tuple) and len(parts) == 5 and isinstance(parts[0], int)):
                raise ListingDamaged(f"ply-{ply} holds something else")
            count, images, aliases, finished, reps = parts
            if not all(isinstance(part, dict) for part in (images, aliases, finished, reps)):
                raise ListingDamaged(f"ply-{ply} holds something else")
            _share_keys(before, images, aliases)
            following = self._unpack(self._read(f"next-{plies}"), f"next-{plies}") if ply == plies - 1 else {}
            _share_keys(reps, following)
            yield ListedPly(ply, count, images, aliases, finished, reps, following)
            before = reps

    def damaged(self, exc: ListingDamaged) -> None:
        """Tell ``note`` that the kept listing is not used (``exc``: why), and remove it."""
        self.note(f"the listing kept in {self.folder} is not used ({exc}): listing from the start")
        self.clear()

    def clear(self) -> None:
        """Remove the kept listing (and its folder, and the parent folder if it is left empty)."""
        shutil.rmtree(self.folder, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.rmdir(os.path.dirname(self.folder))

    def _pack(self, following: dict[Hashable, S]) -> tuple[str, list[Hashable], list[object]]:
        """The positions at the next ply as plain data where their class allows it (a named tuple's
        fields, a dataclass's): faster to write and read than the objects themselves."""
        plain = _plain_form(self.state_type)
        if plain is None:
            return "states", list(following), list(following.values())
        return "fields", list(following), list(map(plain[0], following.values()))

    def _unpack(self, value: object, name: str) -> dict[Hashable, S]:
        if not (isinstance(value, tuple) and len(value) == 3 and isinstance(value[1], list)):
            raise ListingDamaged(f"{name} holds something else")
        form, keys, states = value
        plain = _plain_form(self.state_type)
        if form == "fields" and plain is not None and isinstance(states, list) and len(states) == len(keys):
            try:
                return dict(zip(keys, map(plain[1], states)))
            except (TypeError, ValueError) as exc:
                raise ListingDamaged(f"{name} holds positions of another shape ({exc})") from None
        if form == "states" and isinstance(states, list) and all(type(s) is self.state_type for s in states):
            return dict(zip(keys, states))
        raise ListingDamaged(f"{name} holds something else")

    def _header(self, name: str) -> bytes:
        return json.dumps({**self.identity, "file": name}, sort_keys=True, default=repr).encode()

    def _write(self, name: str, value: object) -> None:
        os.makedirs(self.folder, exist_ok=True)
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        digest = hashlib.sha256(payload).hexdigest().encode()
        # (not synced: a file a power loss cut short fails its checksum, and the listing starts over)
        data = MAGIC + self._header(name) + b"\n" + digest + b"\n" + payload
        write_atomically(os.path.join(self.folder, name), data, sync=False)

    def _read(self, name: str) -> object:
        path = os.path.join(self.folder, name)
        try:
            with open(path, "rb") as file:
                data = file.read()
        except OSError as exc:
            raise ListingDamaged(f"{name}: {exc.strerror or exc}") from None
        if not data.startswith(MAGIC):
            raise ListingDamaged(f"{name} is not a listing file of this version")
        header, _, rest = data[len(MAGIC) :].partition(b"\n")
        digest, _, payload = rest.partition(b"\n")
        if header != self._header(name):
            raise ListingDamaged(f"{name} is another game's or build's")
        if hashlib.sha256(payload).hexdigest().encode() != digest:
            raise ListingDamaged(f"{name} is damaged (its checksum does not match)")
        try:
            return _Unpickler(io.BytesIO(payload), self.state_type).load()
        except Exception as exc:  # (a pickle the checksum let through but that cannot be read)
            raise ListingDamaged(f"{name} cannot be read ({exc})") from None


def _share_keys(reps: dict[Hashable, tuple[Hashable, ...]], *owners: dict[Hashable, Any]) -> None:
    """Make the children's keys in ``reps`` the very objects that key ``owners`` (the next ply's
    classes and aliases, or its positions), as one listing shares them: read from separate files,
    each would be an object of its own (on 5x4 Connect Four, some 200 MB more)."""
    if not reps:
        return
    same: dict[Hashable, Hashable] = {}
    for owner in owners:
        same.update(zip(owner, owner))
    if not same:
        return
    get = same.get
    for c, children in reps.items():  # (values replaced, no key added: the dict is not resized)
        reps[c] = tuple(map(get, children, children))


def _plain_form(kind: type) -> tuple[Callable[[Any], tuple[object, ...]], Callable[[tuple[Any, ...]], Any]] | None:
    """How to turn a position into a tuple of its fields and back: a named tuple's, or a dataclass's
    whose fields all go to its constructor; None for another class (its objects are pickled)."""
    if issubclass(kind, tuple) and hasattr(kind, "_make") and hasattr(kind, "_fields"):
        make: Callable[[tuple[Any, ...]], Any] = kind._make
        return tuple, make
    if dataclasses.is_dataclass(kind) and all(f.init for f in dataclasses.fields(kind)):
        names = [f.name for f in dataclasses.fields(kind)]
        if len(names) == 1:
            return (lambda s: (getattr(s, names[0]),)), (lambda values: kind(*values))
        return operator.attrgetter(*names), (lambda values: kind(*values))
    return None


class _Unpickler(pickle.Unpickler):
    """Reads plain data and the game's state class only (no other class, no function)."""

    def __init__(self, file: io.BytesIO, allowed: type) -> None:
        super().__init__(file)
        self.allowed = allowed

    def find_class(self, module: str, name: str) -> type:
        if (module, name) == (self.allowed.__module__, self.allowed.__qualname__):
            return self.allowed
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a listing file")
