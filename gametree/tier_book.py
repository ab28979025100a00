"""Tier books: a tier build kept in a directory (:mod:`gametree.store.tiers`), built, queried, described.

- :func:`build_tier_book` solves a tiered game into a directory, tier by tier, resuming a stopped
  build where it stopped (:func:`gametree.search.tiers.solve_tiers`); a game without tiers of its
  own that declares ``GameInfo.adds_one_piece`` is tiered by ply (:mod:`gametree.search.ply_tiers`);
- :class:`TierBook` reads one (memory-mapped, each tier checked when first used) and answers a
  position's value and remoteness and every move's (:meth:`TierBook.answer`);
- :func:`tier_result`: the same answer as the :class:`gametree.search.results.SearchResult` the
  exact solver gives (``algorithm="tiers"``), read from the arrays without a search;
- :func:`tier_info`: the positions and bytes of each tier.
"""

from __future__ import annotations

import dataclasses
import random
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from .game import Configurable, Game, UnsupportedGameError, capabilities, game_name, win_score
from .search.ply_tiers import by_ply_refusal, list_plies, score_plies
from .search.results import MoveValue, SearchResult, assemble, start, stats_of
from .search.tiers import (
    TierCounts,
    TierProgress,
    TierSolution,
    TierValue,
    decode,
    solve_tiers,
    tier_rules,
    value_bytes,
)
from .store.tiers import SORTED_KEYS, TierDirectory, TierFileError, load_checked, read_header

__all__ = [
    "TIERS",
    "TierAnswer",
    "TierBook",
    "TierInfo",
    "TierMove",
    "TierPlayer",
    "build_tier_book",
    "preference",
    "tier_info",
    "tier_result",
    "tier_score",
]

#: The ``algorithm`` of a :class:`SearchResult` read from a tier directory (no search).
TIERS = "tiers"


def _options(game: Game[Any, Any]) -> dict[str, Any]:
    return game.options() if isinstance(game, Configurable) else {}


def build_tier_book(
    game: Game[Any, Any],
    name: str,
    folder: Path,
    *,
    progress: TierProgress | None = None,
    should_stop: Callable[[], bool] | None = None,
    workers: int = 1,
    scheduler: str | None = None,
) -> TierSolution:
    """Solve ``game`` (installed as ``name``) into ``folder``; a build stopped before resumes at its
    tier.  ``workers`` processes (or the workers of the Dask cluster at ``scheduler``, which must
    see ``folder``) share each tier.  A game without tiers of its own is tiered by ply if it declares
    ``GameInfo.adds_one_piece`` (in this process: ``workers`` and ``scheduler`` are refused)."""
    if capabilities(game).tiered is None:
        why = by_ply_refusal(game)
        if why is not None:
            raise UnsupportedGameError(why)
        if workers > 1 or scheduler is not None:
            raise TierFileError(f"{game_name(game)} is tiered by ply, in one process: drop --workers and --scheduler")
        plies = list_plies(game, progress)
        _check_room(folder, plies.sizes, value_bytes(game) + 8)  # (a value and a key a position)
        keyed = TierDirectory(folder, name, _options(game), plies.sizes, value_bytes(game), ranking=SORTED_KEYS)
        return score_plies(game, plies, keyed, progress=progress, should_stop=should_stop)
    _, tiers = tier_rules(game)
    _check_room(folder, tiers.sizes, value_bytes(game))
    store = TierDirectory(folder, name, _options(game), tiers.sizes, value_bytes(game))
    return solve_tiers(game, store, progress=progress, should_stop=should_stop, workers=workers, scheduler=scheduler)


def _check_room(folder: Path, sizes: tuple[int, ...], width: int) -> None:
    """:class:`TierFileError` when the disk under ``folder`` cannot hold the build: every tier's
    reach marks, then its values (the marks of a solved tier are removed), so the sum of the tiers
    and one more tier at most; the files a stopped build kept there count as room."""
    needed = (sum(sizes) + max(sizes)) * width
    existing = folder if folder.exists() else next((p for p in folder.parents if p.exists()), Path("."))
    kept = sum(p.stat().st_size for p in folder.glob("*.npy")) if folder.is_dir() else 0
    free = shutil.disk_usage(existing).free + kept
    if needed > free:
        raise TierFileError(
            f"the build needs about {needed / 1e9:,.1f} GB of disk under {existing}, "
            f"which has {free / 1e9:,.1f} GB free"
        )


@dataclass(frozen=True, slots=True)
class TierMove:
    """A move (as text) and its value for the side that plays it."""

    move: str
    value: TierValue


@dataclass(frozen=True, slots=True)
class TierAnswer:
    """A position's value for the side to move and every legal move's, from a tier book."""

    value: TierValue
    moves: tuple[TierMove, ...]


class _Positions(Protocol):
    """Where a position is in a tier directory: ``(tier, index)``."""

    def tier_position(self, state: Any) -> tuple[int, int]: ...


class _SortedKeys:
    """The positions of a build by ply (:data:`gametree.store.tiers.SORTED_KEYS`): tier ``ply``,
    index the key's place among the tier's sorted keys (each tier's keys checked when first used)."""

    def __init__(self, game: Game[Any, Any], folder: Path, header: dict[str, Any]) -> None:
        self.game, self.folder, self.header = game, folder, header
        self._keys: dict[int, np.ndarray] = {}

    def tier_position(self, state: Any) -> tuple[int, int]:
        tier = self.game.ply(state)
        keys = self._keys.get(tier)
        if keys is None:
            entry = self.header["keys"].get(str(tier)) if 0 <= tier < len(self.header["sizes"]) else None
            if entry is None:
                raise TierFileError(f"{self.folder} has no keys of ply {tier} (an unfinished build: run it again)")
            keys = self._keys[tier] = load_checked(self.folder, entry, self.header["sizes"][tier], np.dtype(np.int64))
        key = self.game.key(state)
        index = int(np.searchsorted(keys, key)) if isinstance(key, int) and 0 <= key < 1 << 63 else len(keys)
        if index == len(keys) or int(keys[index]) != key:
            raise TierFileError(f"{self.folder}: this position is not among ply {tier}'s (another game's directory?)")
        return tier, index


class TierBook:
    """A tier directory of ``game`` (installed as ``name``), read-only: one of another game, other
    options or other tier sizes is a :class:`TierFileError` here.  A build not finished yet answers
    the positions of the tiers it solved (:meth:`covers`)."""

    def __init__(self, game: Game[Any, Any], name: str, folder: Path) -> None:
        header = read_header(folder)
        if header["game"] != name or header["options"] != _options(game):
            raise TierFileError(f"{folder} holds {header['game']} {header['options']}, not {name} {_options(game)}")
        tiered: _Positions
        if header.get("ranking") == SORTED_KEYS:  # (tiers by ply: the sizes are the build's)
            tiered = _SortedKeys(game, folder, header)
        else:
            own = capabilities(game).tiered
            if own is None:
                raise TierFileError(f"{game_name(game)} has no tiers")
            sizes = [own.tier_size(t) for t in range(own.tier_count())]
            if header["sizes"] != sizes:
                raise TierFileError(
                    f"{folder} was built with other tier sizes than this version of {name}'s: build it again"
                )
            tiered = own
        self.game, self.tiered, self.folder, self.header = game, tiered, folder, header
        self.width = int(header["value_bytes"])
        self._arrays: dict[int, np.ndarray] = {}

    def tier(self, tier: int) -> np.ndarray:
        """Tier ``tier``'s values (memory-mapped, its file checked when first read)."""
        return self._tier(tier)

    def _tier(self, tier: int) -> np.ndarray:
        array = self._arrays.get(tier)
        if array is None:
            entry = self.header["tiers"].get(str(tier))
            if entry is None:
                raise TierFileError(f"{self.folder} has no tier {tier} (an unfinished build: run it again)")
            dtype = np.dtype(np.uint8 if self.width == 1 else np.uint16)
            array = self._arrays[tier] = load_checked(self.folder, entry, self.header["sizes"][tier], dtype)
        return array

    def covers(self, state: object) -> bool:
        """Whether the directory answers ``state`` (its tier is solved: the next one is too, as tiers
        are solved from the last)."""
        if self.header.get("ranking") == SORTED_KEYS:
            return str(self.game.ply(state)) in self.header["tiers"]
        tier, _ = self.tiered.tier_position(state)
        return str(tier) in self.header["tiers"]

    def value(self, state: object) -> TierValue:
        """The value of ``state`` for its side to move."""
        tier, index = self.tiered.tier_position(state)
        found = decode(int(self._tier(tier)[index]), self.width)
        if found is None:
            raise TierFileError(f"{self.folder}: position {tier}/{index} is not marked reachable (a damaged book?)")
        return found

    def answer(self, state: object) -> TierAnswer:
        """The value of ``state`` and of each legal move (the value the move leads to, for its player)."""
        moves = []
        for move in self.game.legal_moves(state):
            after = self.value(self.game.play(state, move))
            flipped = {"win": "loss", "loss": "win", "draw": "draw"}[after.outcome]
            moves.append(TierMove(self.game.format_move(state, move), TierValue(flipped, after.remoteness + 1)))
        return TierAnswer(self.value(state), tuple(moves))


def tier_score(value: TierValue, ply: int, max_plies: int) -> int:
    """The exact solver's depth-aware score (:func:`gametree.game.win_score`) of ``value``, the value
    of a position after ``ply`` moves of a game of at most ``max_plies``: the game-ending move is
    move number ``ply + remoteness``."""
    if value.outcome == "draw":
        return 0
    won = win_score(max_plies, ply + value.remoteness - 1)
    return won if value.outcome == "win" else -won


def tier_result(book: TierBook, state: Any, *, pv: bool = True, all_moves: bool = True) -> SearchResult:
    """``state``'s answer from ``book`` as the exact solver gives it (every move scored, its
    remoteness as ``plies_to_end``, the best moves those of the best score: the fastest win, the
    slowest loss, any drawing move), ``algorithm`` :data:`TIERS` and ``from_store``; no search.

    ``pv``: follow the first best move (in the game's order) to the end, as the solver's line does
    (it reads the tiers along it); else the line is the first best move.  A finished game is a
    :class:`gametree.game.GameOverError`, a tier the directory lacks a :class:`TierFileError`."""
    game = book.game
    started = time.perf_counter()
    root = start(game, state, checked=True)
    ply, plies = game.ply(root), game.info.max_plies
    moves = list(game.legal_moves(root))
    found = book.answer(root)
    # A move's value (for its player, the move counted) scores as the position's value would.
    scores = [tier_score(m.value, ply, plies) for m in found.moves]
    best = max(scores)
    move_values = tuple(
        MoveValue(m.move, score, m.value.remoteness, score == best, game_move=move)
        for score, m, move in zip(scores, found.moves, moves)
    )
    line, answer, after = [], found, root
    while True:  # the first move (in the game's order) keeping the value and its remoteness
        index = next(i for i, m in enumerate(answer.moves) if m.value == answer.value)
        line.append(answer.moves[index].move)
        after = game.play(after, list(game.legal_moves(after))[index])
        if not pv or game.outcome(after) is not None:
            break
        answer = book.answer(after)
    stats = stats_of((), time.perf_counter() - started)
    best_moves = tuple(mv.move for mv in move_values if mv.best)
    if not all_moves:
        move_values = tuple(mv for mv in move_values if mv.best)
    result = assemble(
        TIERS, game, root, best, True, found.value.remoteness, best_moves, move_values, tuple(line), None, stats
    )
    return dataclasses.replace(result, from_store=True)


def preference(value: TierValue) -> tuple[int, int]:
    """How good ``value`` is for its side, as a sort key (larger is better): a win, the faster the
    better; a draw; a loss, the slower the better."""
    if value.outcome == "win":
        return (2, -value.remoteness)
    if value.outcome == "draw":
        return (1, -value.remoteness)
    return (0, value.remoteness)


class TierPlayer:
    """A perfect player (a :class:`gametree.play.Player`) reading a :class:`TierBook`: it keeps the
    position's value, winning as fast and losing as slowly as it can (ties broken by ``rng``)."""

    human = False

    def __init__(self, book: TierBook) -> None:
        self.book = book

    def choose(self, game: Game[Any, Any], state: Any, rng: random.Random) -> Any:
        moves = list(game.legal_moves(state))
        values = self.book.answer(state).moves
        best = max(preference(m.value) for m in values)
        return rng.choice([move for move, m in zip(moves, values) if preference(m.value) == best])


@dataclass(frozen=True, slots=True)
class TierInfo:
    """What a tier directory holds: its game, whether every tier is solved, each tier's counts
    (``None`` for a tier not solved yet) and bytes on disk, and how many tiers' reach marks are kept."""

    game: str
    options: dict[str, Any]
    complete: bool
    tiers: tuple[tuple[TierCounts | None, int], ...]
    #: Tiers whose reach marks are kept (a build under way: the forward pass got that far).
    marked: int = 0
    #: The size of the tier file described (0: a directory).
    file_bytes: int = 0

    @property
    def positions(self) -> int:
        return sum(c.positions for c, _ in self.tiers if c is not None)

    @property
    def bytes(self) -> int:
        return sum(b for _, b in self.tiers)


def tier_info(folder: Path) -> TierInfo:
    """The counts and bytes of each tier of the directory ``folder``, or of the tier file
    ``folder`` (:mod:`gametree.store.tier_archive`: its bytes as the file declares them, before
    compression); the header only: no array is read."""
    if folder.is_file():
        from .store.tier_archive import open_tier_file

        archive = open_tier_file(folder)
        entries = archive.header["tiers"]
        listed = tuple(
            (_counts(t, size, entries[str(t)]), archive.members[entries[str(t)]["file"]])
            for t, size in enumerate(archive.header["sizes"])
        )
        return TierInfo(archive.header["game"], archive.header["options"], True, listed, 0, folder.stat().st_size)
    header = read_header(folder)
    rows: list[tuple[TierCounts | None, int]] = []
    for tier, size in enumerate(header["sizes"]):
        entry = header["tiers"].get(str(tier))
        if entry is None:
            rows.append((None, 0))
            continue
        path = folder / entry["file"]
        rows.append((_counts(tier, size, entry), path.stat().st_size if path.exists() else 0))
    return TierInfo(header["game"], header["options"], bool(header["complete"]), tuple(rows), len(header["reach"]))


def _counts(tier: int, size: int, entry: dict[str, Any]) -> TierCounts:
    return TierCounts(tier, size, entry["positions"], entry["wins"], entry["draws"], entry["losses"])
