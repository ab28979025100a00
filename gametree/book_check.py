"""A book checked against its game before the store trusts it (``gametree book import``, shipped books).

:class:`BookChecker` is the :class:`gametree.store.files.BookVetter` that
:func:`gametree.store.import_book` asks:

- the header: the game is installed, its :class:`~gametree.plugin.registry.GameSpec` accepts the
  options, and they are the board's own (``options()``), so that the store finds the entries;
- each line: the key is of the kind the game's keys are (an integer, or a string that is the
  ``repr`` of a key), the score within the game's bounds (a win/draw/loss score of at most
  ``(max_plies + 1) // 2``, a margin within ``payoff_bounds``);
- the values, once the book is staged: from the start, every position whose entry is known (the
  book's or the store's) is walked, ply by ply, and each entry is checked against what its moves
  lead to: the score within the bounds for its ply, consistent with its children's entries and
  with the ends of games (the best move's value is the position's), a chosen move leading to a
  position one move away.  Where every child is known (a complete book, a strong solution) this
  proves the entry from the ends of games up.  Then a sample of the entries whose children are
  not all known, the deepest first, is proven again by the solver, each within
  :data:`PROOF_SECONDS`.  The whole check stops after :data:`CHECK_SECONDS`; :attr:`BookChecker.report`
  says how far it got.
"""

from __future__ import annotations

import ast
import random
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .game import Game, GameError, GameKind, end_score, game_kinds, win_score
from .plugin.registry import GameSpec, game_of_file
from .search.known import Known, StoreKey, canonical_keyer
from .search.table import Bound
from .store import StoreError
from .store.files import BookEntry, Lookup, game_identity

__all__ = ["CHECK_SECONDS", "PROOF_SAMPLE", "PROOF_SECONDS", "BookChecker", "CheckReport", "recorded_digest"]

#: Seconds the check of a book's values may take at most (the walk, then the proofs).
CHECK_SECONDS = 3.0
#: Entries the solver proves again, at most.
PROOF_SAMPLE = 8
#: Seconds for one such proof (a proof not done by then is skipped).
PROOF_SECONDS = 0.5
#: An interval of scores; None: unbounded on that side.
Interval = tuple[float, float]
_INF = float("inf")


def recorded_digest(path: str) -> str | None:
    """The SHA-256 recorded for the shipped book at ``path`` when it was made: the first word of
    ``PATH.sha256`` (as ``sha256sum`` writes it), or None if there is none.  A shipped book whose
    file has that checksum is not checked again (it comes with the plugin's code, and checking
    the 7x6 Connect Four book would cost seconds at each new store); any other is checked whole."""
    try:
        with open(path + ".sha256", encoding="ascii") as stream:
            words = stream.read(200).split()
    except (OSError, UnicodeDecodeError):
        return None
    return words[0].lower() if words else None


@dataclass(frozen=True, slots=True)
class CheckReport:
    """How far the check of a book's values got: ``walked`` positions reached from the start,
    ``against_moves`` of them checked against all their moves' values (complete: proven from the
    ends of the games), ``proved`` entries proven again by the solver (``unproved``: not within
    their time), in ``seconds``; ``finished``: the walk reached every position it could."""

    walked: int = 0
    against_moves: int = 0
    proved: int = 0
    unproved: int = 0
    seconds: float = 0.0
    finished: bool = True


class BookChecker:
    """The checks of a book against the games in ``games`` (a registry's, by name)."""

    def __init__(self, games: Mapping[str, GameSpec], *, seconds: float = CHECK_SECONDS, seed: int = 0) -> None:
        self.games = games
        self.seconds = seconds
        self.seed = seed
        #: What the last :meth:`verify` did (None before one).
        self.report: CheckReport | None = None
        self.game: Game[Any, Any] | None = None
        self.name = ""
        self.key_type: type = int
        self.low, self.high = -_INF, _INF

    # -- the header and the lines ---------------------------------------------------------------
    def begin(self, path: str, name: str, options: dict[str, Any]) -> None:
        where = f"{path}:1: "
        game = game_of_file(
            self.games, name, options, StoreError, holding=f"{where}a book of", at=where, whose="the book's"
        )
        identity = game_identity(game)
        if identity is not None and identity != options:
            raise StoreError(
                f"{path}:1: the options {str(options)[:120]} are not the board's own ({identity}): "
                "the store would not find these entries"
            )
        start_key = canonical_keyer(game)(game.initial_state())
        if start_key is None:
            raise StoreError(f"{path}:1: {name}'s positions have keys a store cannot keep")
        self.game, self.name, self.key_type = game, name, type(start_key)
        info = game.info
        if info.margin and info.payoff_bounds is not None:
            self.low, self.high = float(info.payoff_bounds[0]), float(info.payoff_bounds[1])
        elif not info.margin:
            self.high = float(win_score(info.max_plies, 0))
            self.low = -self.high
        else:
            self.low, self.high = -_INF, _INF

    def check(self, entry: BookEntry) -> str | None:
        for what, key in (("key", entry.key), ("chosen move's key", entry.best)):
            if key is not None and not self._key_fits(key):
                kind = "integers" if self.key_type is int else "strings"
                return f"the {what} {str(key)[:40]!r} is not one of {self.name}'s (its keys are {kind})"
        if not self.low <= entry.score <= self.high:
            return f"the score {entry.score} is out of {self.name}'s range ({self.low:g} to {self.high:g})"
        return None

    def _key_fits(self, key: StoreKey) -> bool:
        if type(key) is not self.key_type:
            return False
        if isinstance(key, int):
            return True
        try:  # a string key is the repr of a string, or of a tuple of plain values
            value = ast.literal_eval(key)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return False
        return isinstance(value, (str, tuple))

    # -- the values -----------------------------------------------------------------------------
    def verify(self, path: str, lookup: Lookup) -> str | None:
        game = self.game
        if game is None:
            raise RuntimeError("BookChecker.verify before begin")  # pragma: no cover
        if game_kinds(game.info) - {GameKind.MARGIN}:
            # Chance, more players, repeats: a position's value is not the best of its children's
            # negated; such a book is checked line by line only.
            self.report = CheckReport(finished=False)
            return None
        walk = _Walk(game, lookup, time.perf_counter() + self.seconds)
        why = walk.run()
        proved = unproved = 0
        if why is None:
            why, proved, unproved = self._prove_sample(walk)
        self.report = CheckReport(
            walk.walked, walk.complete, proved, unproved, time.perf_counter() - walk.started, walk.finished
        )
        return why

    def _prove_sample(self, walk: _Walk) -> tuple[str | None, int, int]:
        """Prove again a sample of the entries the walk could not check against all their moves."""
        from .search.solver import Solver

        game = self.game
        assert game is not None
        candidates = sorted(walk.open, key=lambda item: -game.ply(item[0]))[: 4 * PROOF_SAMPLE]
        sample = random.Random(self.seed).sample(candidates, min(PROOF_SAMPLE, len(candidates)))
        proved = unproved = 0
        for state, known, line in sample:
            left = walk.deadline - time.perf_counter()
            if left <= 0.05:
                unproved += 1
                continue
            try:
                solver = Solver(game, engine="python", store=None)
                result = solver.solve(state, all_moves=False, pv=False, time_limit=min(PROOF_SECONDS, left))
            except GameError:  # (a game the solver does not take)
                unproved += 1
                continue
            if not result.proven:
                unproved += 1
                continue
            proved += 1
            score = int(result.score)
            lo, hi = _interval(known)
            if not lo <= score <= hi:
                return (
                    (
                        f"{line}: the position after {walk.moves_to(state) or 'no moves'} scores {score} "
                        f"(proven again now), not {_says(known)} as the book says"
                    ),
                    proved,
                    unproved,
                )
        return None, proved, unproved


class _Walk:
    """The positions reached from the start through known entries, each checked against its moves."""

    def __init__(self, game: Game[Any, Any], lookup: Lookup, deadline: float) -> None:
        self.game = game
        self.lookup = lookup
        self.key = canonical_keyer(game)
        self.started = time.perf_counter()
        self.deadline = deadline
        self.walked = self.complete = 0
        self.finished = True
        #: Entries of the book whose moves are not all known: (state, entry, line), for the proofs.
        self.open: list[tuple[Any, Known, int]] = []
        self.parents: dict[StoreKey, tuple[Any, Any]] = {}

    def run(self) -> str | None:
        game = self.game
        start = game.initial_state()
        queue: deque[Any] = deque([start] if game.outcome(start) is None else [])
        seen = {self.key(start)}
        while queue:
            if self.walked % 256 == 0 and time.perf_counter() > self.deadline:
                self.finished = False
                break
            state = queue.popleft()
            found = self.lookup(self.key(state))  # type: ignore[arg-type]
            if found is None:
                continue
            self.walked += 1
            why = self._check(state, found[0], found[1], queue, seen)
            if why is not None:
                return why
        return None

    def _check(self, state: Any, known: Known, line: int | None, queue: deque[Any], seen: set[Any]) -> str | None:
        """Check one entry against its ply's bounds and its moves' values; queue its known children."""
        game = self.game
        lo, hi = _interval(known)
        low, high = _ply_bounds(game, game.ply(state))
        if line is not None and (lo > high or hi < low):
            return f"{line}: {self._named(state, known)} is impossible at ply {game.ply(state)} ({low:g} to {high:g})"
        best_lo, best_hi = -_INF, -_INF  # the position's value is the best of -child
        chosen_ok, child_keys, lines = known.best is None, set(), []
        for move in game.legal_moves(state):
            child = game.play(state, move)
            key = self.key(child)
            child_keys.add(key)
            ended = end_score(game, child)
            found = None if ended is not None or key is None else self.lookup(key)
            if ended is not None:
                c_lo, c_hi = float(ended), float(ended)
            elif found is None or key is None:
                c_lo, c_hi = -_INF, _INF
            else:
                c_lo, c_hi = _interval(found[0])
                lines.append(found[1])
                if key not in seen:
                    seen.add(key)
                    self.parents[key] = (state, move)
                    queue.append(child)
            best_lo, best_hi = max(best_lo, -c_hi), max(best_hi, -c_lo)
            if key == known.best:
                chosen_ok = -c_lo >= lo  # (the move can keep the value)
        blamed = line if line is not None else next((n for n in lines if n is not None), None)
        if blamed is None:
            return None  # (the store's own entries: not the book's to answer for)
        if lo > best_hi or hi < best_lo:
            between = f"between {best_lo:g} and {best_hi:g}" if best_lo != best_hi else f"{best_lo:g}"
            whose = "" if line is not None else "the store's "  # (the book's entries of its moves disagree with it)
            return f"{blamed}: {whose}{self._named(state, known)} contradicts its moves, whose best is {between}"
        if not chosen_ok and line is not None:
            why = "leads to no position one move away" if known.best not in child_keys else "does not keep the value"
            return f"{line}: the chosen move of {self._named(state, known)} {why}"
        if best_hi < _INF:
            self.complete += 1
        elif line is not None:
            self.open.append((state, known, line))
        return None

    def _named(self, state: Any, known: Known) -> str:
        return f"the entry of the position after {self.moves_to(state) or 'no moves'} ({_says(known)})"

    def moves_to(self, state: Any) -> str:
        """The moves from the start to ``state`` as the walk reached it."""
        texts: list[str] = []
        key = self.key(state)
        while key in self.parents and len(texts) < 200:
            parent, move = self.parents[key]
            texts.append(self.game.format_move(parent, move))
            key = self.key(parent)
        return " ".join(reversed(texts))


def _interval(known: Known) -> Interval:
    """The scores an entry allows."""
    lo = -_INF if known.bound is Bound.UPPER else float(known.score)
    return lo, _INF if known.bound is Bound.LOWER else float(known.score)


def _says(known: Known) -> str:
    return {Bound.EXACT: "score", Bound.LOWER: "at least", Bound.UPPER: "at most"}[known.bound] + f" {known.score}"


def _ply_bounds(game: Game[Any, Any], ply: int) -> Interval:
    """The scores a position at ``ply`` can have: a win by its own next move at best, a loss by the
    opponent's reply at worst (win/draw/loss games; margins: unbounded here)."""
    if game.info.margin:
        return -_INF, _INF
    plies = game.info.max_plies
    return -float(win_score(plies, ply + 1)), float(win_score(plies, ply))
