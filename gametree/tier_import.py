"""``gametree tiers import``: a tier file (:mod:`gametree.store.tier_archive`) made a tier directory, trusting nothing.

:func:`import_tier_file` checks, in this order, and writes nothing before the first four pass:

1. the file's structure (:func:`gametree.store.tier_archive.open_tier_file`: version, member
   names and kinds, header fields, declared sizes against the header's);
2. the game: installed, its options accepted by the game itself and the board's own, its tiers of
   the sizes and width the header gives (a file of another board cannot pass);
3. the disk: the declared bytes fit in the free space under the target;
4. the target: an existing one is refused unless ``force``.

Then every array is extracted into a new temporary directory beside the target (bytes counted,
SHA-256 checked, loaded back), each tier's counts are counted again from its array and compared
with the header's, and a sample of each tier's positions (:data:`SAMPLE` a tier, the start
always) is checked against the game: a finished position's value is its outcome, any other's the
best of its moves' values.  Only then is the directory renamed into place (with ``force``, the
old one is moved aside first and removed after).  On any failure the temporary directory is
removed: nothing is left behind.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .game import Configurable, Game, GameError, capabilities
from .plugin.registry import GameSpec, game_of_file
from .search.tiers import TierValue, count_tier, tier_rules, value_bytes
from .store.tier_archive import TierArchive, open_tier_file
from .store.tiers import TierFileError
from .tier_book import TierBook, preference

__all__ = ["SAMPLE", "ImportSummary", "checked_game", "default_folder", "import_tier_file"]

#: Positions of each tier whose value is checked against their moves' on import.
SAMPLE = 64
#: Tiers of at most this many indices have their reachable ones listed to draw the sample from.
_LISTED = 1 << 16
#: Room kept free on the disk beyond the declared bytes.
_MARGIN = 1 << 20


@dataclass(frozen=True, slots=True)
class ImportSummary:
    """An imported tier file: the game, its directory, its positions and array bytes, the positions checked."""

    game: str
    options: dict[str, Any]
    directory: str
    tiers: int
    positions: int
    array_bytes: int
    checked: int


def checked_game(archive: TierArchive, games: Mapping[str, GameSpec]) -> Game[Any, Any]:
    """The game of ``archive``, made by its installed plugin from the header's options, after the
    game accepts them and its tiers are the header's (:class:`TierFileError` if not)."""
    header, path = archive.header, archive.path
    name, options = header["game"], header["options"]
    game = game_of_file(
        games, name, options, TierFileError, holding=f"{path} holds tiers of", at=f"{path}: ", whose="the file's"
    )
    own = game.options() if isinstance(game, Configurable) else {}
    if own != options:
        raise TierFileError(f"{path}: the options {str(options)[:120]} are not the board's own ({own})")
    try:
        _, tiers = tier_rules(game)
    except GameError as exc:
        raise TierFileError(f"{path}: {exc}") from None
    if list(tiers.sizes) != header["sizes"] or value_bytes(game) != header["value_bytes"]:
        raise TierFileError(f"{path}: its tiers are not those of {name} {options} (another board, or a forged header)")
    return game


def import_tier_file(
    path: Path, out: Path | None, games: Mapping[str, GameSpec], *, force: bool = False, seed: int = 0
) -> ImportSummary:
    """Import the tier file ``path`` into the directory ``out`` (default: ``GAME-OPTIONS.tiers``
    in the current folder, as ``tiers build`` names it); see the module for the checks."""
    archive = open_tier_file(path)
    game = checked_game(archive, games)
    header = archive.header
    target = out if out is not None else default_folder(header["game"], header["options"])
    if target.exists() or target.is_symlink():
        if not force:
            raise TierFileError(f"{target} exists: choose another --out, or --force to replace it")
        if not target.is_dir() or target.is_symlink():
            raise TierFileError(f"{target} exists and is not a directory: not replaced")
    parent = target.absolute().parent
    if not parent.is_dir():
        raise TierFileError(f"cannot write {target}: {parent} is not a directory")
    needed = archive.array_bytes + _MARGIN
    free = shutil.disk_usage(parent).free
    if needed > free:
        raise TierFileError(
            f"{path} declares {archive.array_bytes:,} bytes of arrays; {parent} has {free:,} bytes free: refused"
        )
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".import", dir=parent))
    except OSError as exc:
        raise TierFileError(f"cannot write {target}: {exc.strerror or exc}") from None
    try:
        archive.extract(staging)
        checked = _check_values(game, header["game"], staging, path, seed)
        _put_in_place(staging, target)
    except OSError as exc:
        raise TierFileError(f"cannot write {target}: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    positions = sum(int(e["positions"]) for e in header["tiers"].values())
    return ImportSummary(
        header["game"], header["options"], str(target), len(header["sizes"]), positions, archive.array_bytes, checked
    )


def default_folder(name: str, options: Mapping[str, Any]) -> Path:
    """Where ``tiers build``, ``query`` and ``import`` keep a game's tiers by default."""
    shown = "-".join(f"{k}{v}" for k, v in sorted(options.items()))
    return Path(f"{name}-{shown}.tiers" if shown else f"{name}.tiers")


def _put_in_place(staging: Path, target: Path) -> None:
    staging.chmod(0o755)  # (mkdtemp's is 0o700)
    if not target.exists():
        os.rename(staging, target)
        return
    aside = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.absolute().parent))
    os.rename(target, aside / "old")
    try:
        os.rename(staging, target)
    except OSError:
        os.rename(aside / "old", target)  # (put the old one back)
        raise
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def _check_values(game: Game[Any, Any], name: str, folder: Path, path: Path, seed: int) -> int:
    """Each tier's counts counted again, and a sample of its positions checked against the game:
    how many positions were checked (:class:`TierFileError` at the first that fails)."""
    book = TierBook(game, name, folder)
    tiered = capabilities(game).tiered
    assert tiered is not None  # (checked_game made sure)
    rng = random.Random(seed)
    checked = 0
    shift = 6 if book.width == 1 else 14
    for tier in range(len(book.header["sizes"])):
        values = book.tier(tier)  # (its checksum, type and size checked again)
        entry = book.header["tiers"][str(tier)]
        counts = count_tier(tier, values, shift)
        header_counts = (entry["positions"], entry["wins"], entry["draws"], entry["losses"])
        stray = int(np.count_nonzero(values)) - counts.positions  # (marks or garbage, not values)
        if (counts.positions, counts.wins, counts.draws, counts.losses) != header_counts or stray:
            raise TierFileError(f"{path}: the header's counts of tier {tier} are not those of its array")
        for index in _sample(values, rng):
            _check_position(game, book, path, tiered.tier_unrank(tier, index), (tier, index))
            checked += 1
    return checked


def _sample(values: np.ndarray, rng: random.Random) -> list[int]:
    """Up to :data:`SAMPLE` reachable indices of a tier, at random (all of a smaller tier); tier 0's
    one.  A large tier is sampled by drawing indices (at most 64 times the sample), never by listing
    its reachable ones (8 bytes each)."""
    size = values.shape[0]
    if size <= _LISTED:
        reachable = [int(i) for i in np.flatnonzero(values)]
        return reachable if len(reachable) <= SAMPLE else sorted(rng.sample(reachable, SAMPLE))
    picked: set[int] = set()
    for _ in range(64 * SAMPLE):
        index = rng.randrange(size)
        if values[index]:
            picked.add(index)
            if len(picked) == SAMPLE:
                break
    return sorted(picked)


def _check_position(game: Game[Any, Any], book: TierBook, path: Path, state: object, where: tuple[int, int]) -> None:
    try:
        found = book.value(state)
        over = game.outcome(state)
        if over is not None:
            outcome = "draw" if over.winner is None else ("win" if over.winner == game.to_move(state) else "loss")
            expected = TierValue(outcome, 0)
        else:
            expected = max((m.value for m in book.answer(state).moves), key=preference)
    except TierFileError:
        raise TierFileError(
            f"{path}: position {where[0]}/{where[1]} or one of its children is not marked reachable: "
            "the file's values are wrong"
        ) from None
    if found != expected:
        raise TierFileError(
            f"{path}: position {where[0]}/{where[1]} holds {found.outcome} in {found.remoteness}, but its moves "
            f"give {expected.outcome} in {expected.remoteness}: the file's values are wrong"
        )
