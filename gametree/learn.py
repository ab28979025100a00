"""Learning position statistics from random self-play.

The classic approach (generalised to any game): play many games of random
moves, and for every position met count how many of those games went through
it and how many each side went on to win.  A position is filed under its
canonical key (the game's ``canonical_key`` when it has one, else ``key``),
so symmetric positions share their statistics.  The :class:`LearnedPlayer`
then picks the move leading to the position with the best record for it.

Games are independent: game ``i`` draws its moves from a generator seeded by
the master seed and ``i`` alone (:func:`game_seed`), so a table does not
depend on how the games were split between worker processes, and merged
partial tables (sums of counts) equal a single-process run exactly.

The table file is JSON::

    {"format": "gametree-learned-table", "version": 1,
     "game": "tictactoe", "options": {"size": 3}, "variant": "TicTacToe(width=3, height=3, k=3)",
     "games": 10000, "seed": 0, "key": "canonical_key",
     "positions": {"<key>": [games, wins of the first player, wins of the second player], ...}}

Keys are written as ``repr(key)`` (an int's decimal digits for the built-in
games); draws are ``games - wins0 - wins1``.

>>> from gametree import load
>>> game = load().game("tictactoe").create(size=3)
>>> table = learn(game, games=200, seed=1)
>>> table.stats(game, game.initial_state())[0]   # every game starts from the empty board
200
>>> learn(game, games=200, seed=1, workers=2).positions == table.positions
True
"""

from __future__ import annotations

import json
import math
import os
import random
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from .files import write_atomically
from .game import Game, GameError, GameKind, M, S, capabilities
from .play import PlayError
from .search.results import check_game

__all__ = [
    "DEFAULT_TABLE",
    "FORMAT",
    "LearnedPlayer",
    "LearnedTable",
    "TableError",
    "TableReader",
    "game_seed",
    "learn",
    "play_random_games",
]

FORMAT = "gametree-learned-table"
VERSION = 1
#: Where ``gametree learn`` writes and the ``learned`` player reads, unless told otherwise.
DEFAULT_TABLE = "gametree-learned.json"
#: The environment variable naming the table the ``learned`` player reads.
TABLE_ENV = "GAMETREE_TABLE"


class TableError(GameError):
    """A table file that cannot be read, or that was learned for another game."""


def _shown(value: object, limit: int = 60) -> str:
    """A value read from a table file as an error shows it: ``repr`` (so control characters such as
    terminal escapes are escaped), cut to about ``limit`` characters; containers by their size."""
    if (
        isinstance(value, list)
        and len(value) <= 5
        and all(v is None or isinstance(v, (bool, int, float)) for v in value)
    ):
        text = repr(value)
    elif isinstance(value, list):
        return f"a list of {len(value):,} item{'' if len(value) == 1 else 's'}"
    elif isinstance(value, dict):
        return f"an object of {len(value):,} item{'' if len(value) == 1 else 's'}"
    else:
        text = repr(value[: limit + 1] if isinstance(value, str) else value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _printable(text: str) -> str:
    """``text`` with characters that are not printable (escapes, newlines) written as Python escapes."""
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class _BadNumber(ValueError):
    """A number in a table file that no table holds (raised from inside :func:`json.loads`)."""


def _reject_constant(name: str) -> float:
    raise _BadNumber(f"{name} is not a count")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _BadNumber(f"the number {text[:30]} is too large")  # 1e400 would read as infinity
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # beyond sys.get_int_max_str_digits()
        raise _BadNumber(f"a number of {len(text):,} digits") from None


#: The fields of a table file and their JSON types (``bool`` is not an ``int`` here).
_FIELDS: dict[str, tuple[type, str]] = {
    "game": (str, "a string"),
    "options": (dict, "an object"),
    "variant": (str, "a string"),
    "games": (int, "a whole number"),
    "seed": (int, "a whole number"),
    "key": (str, "a string"),
    "positions": (dict, "an object"),
}


def game_seed(seed: int, index: int) -> str:
    """The seed of game ``index`` under master ``seed`` (a string: ``random`` hashes it with SHA-512)."""
    return f"gametree-learn:{seed}:{index}"


def _key_function(game: Game[S, M]) -> tuple[Callable[[S], Hashable], str]:
    """The function positions are filed under, and its name: ``canonical_key`` if the game is
    :class:`~gametree.game.Symmetric`, else ``key``.  Asked once per game, not per position."""
    symmetric = capabilities(game).symmetric
    if symmetric is not None:
        return symmetric.canonical_key, "canonical_key"
    return game.key, "key"


def play_random_games(game: Game[S, M], seed: int, indices: Iterable[int]) -> dict[str, list[int]]:
    """Play the games numbered ``indices`` with random moves; counts per position key.

    Each value is ``[games through the position, wins of player 0, wins of player 1]``.
    """
    keyf, _ = _key_function(game)
    legal, play, outcome = game.legal_moves, game.play, game.outcome
    start = game.initial_state()
    counts: dict[str, list[int]] = {}
    for index in indices:
        rng = random.Random(game_seed(seed, index))
        state = start
        seen = [repr(keyf(state))]
        while (out := outcome(state)) is None:
            moves = legal(state)
            state = play(state, moves[int(rng.random() * len(moves))])
            seen.append(repr(keyf(state)))
        slot = 0 if out.winner is None else out.winner + 1
        for key in seen:
            entry = counts.get(key)
            if entry is None:
                entry = counts[key] = [0, 0, 0]
            entry[0] += 1
            if slot:
                entry[slot] += 1
    return counts


def merge_counts(into: dict[str, list[int]], more: dict[str, list[int]]) -> dict[str, list[int]]:
    """Add the counts of ``more`` into ``into`` (in place) and return it."""
    for key, (n, w0, w1) in more.items():
        entry = into.get(key)
        if entry is None:
            into[key] = [n, w0, w1]
        else:
            entry[0] += n
            entry[1] += w0
            entry[2] += w1
    return into


@dataclass
class LearnedTable:
    """Position statistics learned from random games (see the module docstring for the file format)."""

    game: str
    options: dict[str, Any]
    variant: str
    games: int
    seed: int
    key: str
    positions: dict[str, list[int]] = field(default_factory=dict)

    def stats(self, game: Game[S, M], state: S) -> tuple[int, int, int]:
        """``(games, wins of player 0, wins of player 1)`` through ``state`` (zeros if never met)."""
        keyf, _ = _key_function(game)
        return self._counts(keyf, state)

    def _counts(self, keyf: Callable[[S], Hashable], state: S) -> tuple[int, int, int]:
        """:meth:`stats` with the game's key function already found (a player asks once per game)."""
        n, w0, w1 = self.positions.get(repr(keyf(state)), (0, 0, 0))
        return n, w0, w1

    def to_json(self) -> str:
        data = {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "options": self.options,
            "variant": self.variant,
            "games": self.games,
            "seed": self.seed,
            "key": self.key,
            "positions": dict(sorted(self.positions.items())),
        }
        return json.dumps(data, separators=(",", ":")) + "\n"

    def save(self, path: str | Path) -> None:
        """Write the table to ``path`` atomically: if anything fails, an old file there is kept as it was."""
        write_atomically(path, self.to_json().encode("utf-8"))

    @classmethod
    def from_json(cls, text: str, source: str = "table") -> LearnedTable:
        """The table in ``text``; a one-line :class:`TableError` naming ``source`` for anything that is not
        a valid table (bad JSON, nesting too deep for the parser, non-finite or overlong numbers, wrong types
        or shapes, negative counts or more wins than games)."""
        source = _printable(source)
        try:
            data = json.loads(text, parse_float=_finite_float, parse_int=_integer, parse_constant=_reject_constant)
        except _BadNumber as exc:
            raise TableError(f"{source}: not a learned table ({exc})") from None
        except RecursionError:
            raise TableError(f"{source}: not a learned table (nested too deeply)") from None
        except ValueError as exc:  # json.JSONDecodeError: its message gives the place, not the text
            raise TableError(f"{source}: not a learned table (bad JSON: {_printable(str(exc))[:120]})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise TableError(
                f'{source}: not a learned table (no "format": "{FORMAT}"); write one with \'gametree learn\''
            )
        version = data.get("version")
        if type(version) is not int or version != VERSION:
            raise TableError(f"{source}: table version {_shown(version)}, this gametree reads version {VERSION}")
        for name, (kind, described) in _FIELDS.items():
            if name not in data:
                raise TableError(f"{source}: malformed learned table (no {name!r})")
            if type(data[name]) is not kind:
                raise TableError(
                    f"{source}: malformed learned table ({name!r} is {_shown(data[name])}, not {described})"
                )
        if data["games"] < 0:
            raise TableError(f"{source}: malformed learned table ('games' is {_shown(data['games'])}, not a count)")
        positions: dict[str, list[int]] = {}
        for key, counts in data["positions"].items():
            if not (
                type(counts) is list
                and len(counts) == 3
                and all(type(c) is int and c >= 0 for c in counts)
                and counts[1] + counts[2] <= counts[0]
            ):
                raise TableError(
                    f"{source}: malformed learned table (position {_shown(key)} holds {_shown(counts)}, "
                    "not three counts [games, wins0, wins1] with wins0 + wins1 <= games)"
                )
            positions[key] = [counts[0], counts[1], counts[2]]
        return cls(data["game"], data["options"], data["variant"], data["games"], data["seed"], data["key"], positions)

    @classmethod
    def load(cls, path: str | Path) -> LearnedTable:
        """The table in the file ``path``; a one-line :class:`TableError` naming the file if it cannot be
        read or is not a valid table (see :meth:`from_json`)."""
        shown = _printable(str(path))
        try:
            raw = Path(path).read_bytes()
        except OSError as exc:
            raise TableError(
                f"cannot read the learned table {shown}: {exc.strerror or exc}; write one with 'gametree learn "
                f"GAME -o {shown}'"
            ) from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TableError(
                f"{shown}: not a learned table (not UTF-8 text: byte 0x{raw[exc.start]:02x} at offset {exc.start:,})"
            ) from None
        return cls.from_json(text, str(path))

    def check(self, game: Game[S, M]) -> None:
        """Raise :class:`TableError` unless the table was learned for this very game (same variant)."""
        if self.variant != repr(game):
            raise TableError(
                f"this table was learned for {_shown(self.variant, 120)}, not for {_shown(repr(game), 120)}: "
                "learn one with 'gametree learn'"
            )


def _chunks(games: int, pieces: int) -> list[range]:
    size = max(1, -(-games // pieces))
    return [range(start, min(games, start + size)) for start in range(0, games, size)]


def _learn_chunk(task: tuple[Game[S, M], int, int, int]) -> tuple[int, dict[str, list[int]]]:
    game, seed, start, stop = task
    return stop - start, play_random_games(game, seed, range(start, stop))


def learn(
    game: Game[S, M],
    *,
    games: int,
    seed: int = 0,
    workers: int = 1,
    name: str = "",
    options: dict[str, Any] | None = None,
    progress: Callable[[int], None] | None = None,
) -> LearnedTable:
    """Play ``games`` random games and count, per position, games and wins for each side.

    With ``workers > 1`` the games run in that many processes and the partial
    tables are merged; the result is identical to ``workers=1``.
    ``progress(n)`` is called as each batch of ``n`` games finishes.
    ``name`` and ``options`` (the game's registry name and options) are
    stored in the table for people to read.
    """
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, not {games}")
    # Two players' wins are counted, and random moves are no dice: refuse other kinds in one line.
    check_game(game, "learn", (GameKind.MARGIN,))
    from .runtime.processes import workers_limit_message

    problem = workers_limit_message(workers)
    if problem is not None:
        raise ValueError(f"the number of workers must be {problem}")
    _, key_kind = _key_function(game)
    pieces = 1 if workers == 1 and progress is None else max(workers * 8, min(100, games // 1000))
    tasks = [(game, seed, r.start, r.stop) for r in _chunks(games, pieces)]
    counts: dict[str, list[int]] = {}
    if workers == 1:
        for task in tasks:
            done, part = _learn_chunk(task)
            merge_counts(counts, part)
            if progress is not None:
                progress(done)
    else:
        from .runtime.processes import WorkerWatch, process_pool, watched

        with process_pool(workers, preload=(__name__,)) as pool:
            for done, part in watched(pool.imap_unordered(_learn_chunk, tasks), WorkerWatch()):
                merge_counts(counts, part)
                if progress is not None:
                    progress(done)
    return LearnedTable(name or type(game).__name__, dict(options or {}), repr(game), games, seed, key_kind, counts)


@runtime_checkable
class TableReader(Protocol):
    """A player that plays from a learned table: ``gametree play --table FILE`` loads the
    file and gives it the table (see :class:`LearnedPlayer`)."""

    def use_table(self, table: LearnedTable) -> None:
        """Play from ``table`` (already loaded and checked) instead of the one it would read."""
        ...


class LearnedPlayer:
    """Plays the move leading to the position with the best learned record.

    A move's value for the player ``p`` making it is ``(wins_p - wins_other)
    / (games + 1)`` over the random games that went through the position it
    leads to (the ``+ 1`` pulls rarely seen positions towards 0); a move that
    ends the game is worth exactly 1 (win), 0 (draw) or -1.  Ties are broken
    at random.  The table is read from ``table`` (a path or a
    :class:`LearnedTable`; ``gametree play --table FILE`` gives it through
    :meth:`use_table`), else from ``$GAMETREE_TABLE``, else from
    ``gametree-learned.json`` in the current directory, on the first move.
    """

    human = False

    def __init__(self, table: str | Path | LearnedTable | None = None) -> None:
        self._source = table
        self._table: LearnedTable | None = table if isinstance(table, LearnedTable) else None
        #: The game the table was last checked against, and that game's key function.
        self._checked: tuple[Game[Any, Any], Callable[[Any], Hashable]] | None = None

    def use_table(self, table: LearnedTable) -> None:
        """Play from ``table`` from now on (a :class:`TableReader`)."""
        self._source, self._table, self._checked = table, table, None

    def table(self) -> LearnedTable:
        if self._table is None:
            source = self._source
            path = source if isinstance(source, (str, Path)) and source else os.environ.get(TABLE_ENV) or DEFAULT_TABLE
            self._table = LearnedTable.load(path)
        return self._table

    def values(self, game: Game[S, M], state: S) -> list[tuple[M, float]]:
        """Every legal move with its learned value for the side to move."""
        table = self.table()
        checked = self._checked
        if checked is None or checked[0] is not game:
            table.check(game)
            checked = self._checked = (game, _key_function(game)[0])
        keyf = checked[1]
        me = game.to_move(state)
        out = []
        for move in game.legal_moves(state):
            after = game.play(state, move)
            end = game.outcome(after)
            if end is not None:
                value = 0.0 if end.winner is None else 1.0 if end.winner == me else -1.0
            else:
                n, w0, w1 = table._counts(keyf, after)
                mine, theirs = (w0, w1) if me == 0 else (w1, w0)
                value = (mine - theirs) / (n + 1)
            out.append((move, value))
        return out

    def choose(self, game: Game[S, M], state: S, rng: random.Random) -> M:
        try:
            values = self.values(game, state)
        except TableError as exc:
            raise PlayError(str(exc)) from None
        best = max(v for _, v in values)
        return rng.choice([m for m, v in values if v == best])
