"""Perfect moves in bounded time: a solution store first, then a proof of the value, then exact scores.

A perfect player must never give away what a position is worth (a win stays a
win, a draw a draw) and should win as fast, and lose as slowly, as it can.  The
first part needs a proof, the second exact scores, which cost far more.
:class:`PerfectMover` chooses a move in this order:

1. from the solution store (:func:`stored_choice`), without a search, when its
   exact scores prove which moves are best;
2. else the value: from the store, when its bounds prove a move keeping the value
   (what ``gametree book build --for-play`` stores for the positions that take
   long to prove), else by a weak solve (win, draw or loss, and a move keeping
   it), however long it takes: the value is never guessed;
3. then, in what is left of its ``seconds``, by an exact solve of every move
   (reading the store's bounds); if that ends in time, at random among the moves
   of the best exact score, else the move of step 2.

So it never gives away a value, and it never takes a slower win (or a faster
loss) than one an exact solve proves within ``seconds``: a stored move that only
keeps the value is played only where exact scores take longer than that.  While
the compiled engine is not compiled yet (``auto``), a position with nothing stored
first gets exact scores within ``seconds`` on the Python engine: one they settle is
played as above; else the engine starts compiling in a background thread
(:mod:`gametree.search.background`) and the move is the best guess of a search with
the game's heuristic (``how="guess"``: not proven, it may give the value away), so a
move never waits on numba's compile.  Once the compile is done, moves are perfect as above.

>>> from gametree import load
>>> game = load().game("tictactoe").create(size=3)
>>> mover = PerfectMover(game, engine="python")
>>> choice = mover.choose(game.initial_state())
>>> choice.value, choice.exact, sorted(choice.moves)[:3]
(0, True, ['A1', 'A2', 'A3'])
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ..game import Game, M, S, State, capabilities, end_score
from . import background, compile_state
from .compiled import EngineChoice, use_compiled
from .known import Known, KnownValues, StoreKey, canonical_keyer, known_bounds
from .solver import Solver
from .table import TranspositionTable

__all__ = ["Choice", "PERFECT_SECONDS", "PerfectMover", "moves_to", "stored_choice"]

#: Seconds a perfect move may take for exact scores once the value is proven (see the module).
PERFECT_SECONDS = 1.5

How = Literal["store", "exact", "keeps", "guess", "tiers"]


@dataclass(frozen=True, slots=True)
class Choice:
    """A perfect player's choice: any of ``moves`` (as the game writes them).

    ``value``: the position's exact score when ``exact``, else its sign (+1 a win,
    0 a draw, -1 a loss), which every move of ``moves`` keeps.  ``how``: from the
    store, by exact scores, or by a weak proof (a move keeping the value); ``"guess"``
    (while the compiled engine compiles in the background, see the module): nothing is
    proven, ``moves`` are the heuristic's best guess and ``value`` the sign of its
    estimate; ``"tiers"``: read from a tier directory (:mod:`gametree.tier_book`), exact.
    """

    moves: tuple[str, ...]
    value: int
    exact: bool
    how: How
    seconds: float


KeyOf = Callable[[S], StoreKey | None]


def _entry(book: KnownValues, key_of: KeyOf[S], state: S) -> Known | None:
    key = key_of(state)
    return None if key is None else book.entry(key)


def _bounds(game: Game[S, M], book: KnownValues, key_of: KeyOf[S], state: S) -> tuple[int | None, int | None]:
    """What the store (or the end of the game) proves of ``state``'s score: lower and upper bounds."""
    ended = end_score(game, state)
    if ended is not None:
        return ended, ended
    return known_bounds(_entry(book, key_of, state))


def moves_to(game: Game[S, M], state: S, best: StoreKey | None) -> list[M]:
    """The moves from ``state`` to the position stored under the key ``best``, or to one of its
    symmetric images (a game's canonical key may tell images apart deep in the game: Connect
    Four's does, so a move chosen in one position is found again in its mirror image)."""
    key_of = canonical_keyer(game)
    images = capabilities(game).images
    found = []
    for m in game.legal_moves(state):
        child = game.play(state, m)
        if key_of(child) == best or (images is not None and any(key_of(t) == best for t in images.symmetries(child))):
            found.append(m)
    return found


def stored_choice(game: Game[S, M], state: S, book: KnownValues) -> Choice | None:
    """The move(s) a perfect player can take from the store alone, or None.

    A position stored with a chosen move (``best``, what ``gametree book build
    --for-play`` stores) gets that move (or its mirror images).  Otherwise, with
    the position's exact score stored: every move whose exact score is stored and
    equals it (a random one of them is as good as any).  Else, from bounds: in a
    won position, the first move (in the game's order) proven to win; in a drawn
    one, the first proven to draw at least; in a lost one, the first whose position
    is stored (with none stored, None: a search may find the slowest loss).
    """
    started = time.perf_counter()
    key_of = canonical_keyer(game)
    entry = _entry(book, key_of, state)
    lo, hi = known_bounds(entry)
    if entry is None:
        return None
    moves = list(game.legal_moves(state))
    children = [_bounds(game, book, key_of, game.play(state, m)) for m in moves]
    # A move's score is minus its position's: bounds swap.
    scores = [(None if c_hi is None else -c_hi, None if c_lo is None else -c_lo) for c_lo, c_hi in children]

    def done(picked: list[M], value: int, exact: bool) -> Choice:
        return Choice(
            tuple(game.format_move(state, m) for m in picked), value, exact, "store", time.perf_counter() - started
        )

    chosen = moves_to(game, state, entry.best) if entry.best is not None else []
    if chosen:
        m_lo, m_hi = scores[moves.index(chosen[0])]
        if lo is not None and lo == hi and m_lo == m_hi == lo:
            return done(chosen, lo, True)
        return done(chosen, (entry.score > 0) - (entry.score < 0), False)
    for m_lo, _ in scores:  # the position is worth at least each move
        if m_lo is not None and (lo is None or m_lo > lo):
            lo = m_lo
    if lo is not None and lo == hi:
        best = [m for m, (m_lo, m_hi) in zip(moves, scores) if m_lo == m_hi == lo]
        if best:
            return done(best, lo, True)
    if lo is not None and lo > 0:
        wins = [m for m, (m_lo, _) in zip(moves, scores) if m_lo is not None and m_lo > 0]
        return done(wins[:1], 1, False) if wins else None
    if lo is not None and lo == 0 and hi == 0:
        draws = [m for m, (m_lo, _) in zip(moves, scores) if m_lo is not None and m_lo >= 0]
        return done(draws[:1], 0, False) if draws else None
    if hi is not None and hi < 0:
        stored = [m for m, (c_lo, c_hi) in zip(moves, children) if c_lo is not None or c_hi is not None]
        return done(stored[:1], -1, False) if stored else None
    return None


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


class PerfectMover:
    """Perfect moves for one game, as the module says; one solver and table for all of them.

    ``store``: the solution store's entries of the game (read, and written with what
    is proven); ``seconds``: the time for exact scores after the value is proven.
    """

    def __init__(
        self,
        game: Game[Any, Any],
        *,
        store: KnownValues | None = None,
        seconds: float = PERFECT_SECONDS,
        engine: EngineChoice = "auto",
        table: TranspositionTable | None = None,
    ) -> None:
        self.game = game
        self.store = store
        self.seconds = seconds
        self.solver = Solver(game, cache=table if table is not None else True, engine=engine, store=store)

    def _would_compile(self, state: State) -> bool:
        """Whether a search of ``state`` without a time limit would wait on numba compiling the engine
        (``auto``, the engine not compiled yet, a search long enough for the compiled engine)."""
        game = self.game
        plies = game.info.max_plies - game.ply(state)
        return (
            self.solver.choice == "auto"
            and not compile_state.ready(game)
            and use_compiled(game, "auto", plies)
            and not use_compiled(game, "auto", plies, budget=self.seconds)
        )

    def choose(self, state: State) -> Choice:
        """The moves to choose from in ``state`` (not a finished game)."""
        game = self.game
        stored = stored_choice(game, state, self.store) if self.store is not None else None
        if stored is not None and stored.exact:  # the store proves the best exact score: nothing faster exists
            return stored
        started = time.perf_counter()
        weak = None
        if stored is None and self._would_compile(state) and background.failure(game) is None:
            # No waiting on numba: exact scores within its time on the Python engine first (a position they
            # settle needs no compile); else the engine compiles in a background thread (for the moves to
            # come) and this move is the heuristic's guess.
            exact = self.solver.solve(state, all_moves=True, pv=False, time_limit=self.seconds)
            took = time.perf_counter() - started
            if exact.proven and exact.best_moves:
                return Choice(tuple(exact.best_moves), int(exact.score), True, "exact", took)
            background.compile_in_background(game)
            moves = exact.best_moves or tuple(game.format_move(state, m) for m in game.legal_moves(state))[:1]
            return Choice(tuple(moves), _sign(exact.score), False, "guess", took)
        if stored is None:  # the value, proven however long it takes
            weak = self.solver.solve(state, weak=True, all_moves=False, pv=False)
        # Exact scores in the time left: a stored move keeping the value may win slower (or lose
        # faster) than the best move, which only exact scores tell.
        left = self.seconds - (time.perf_counter() - started)
        if left > 0:
            exact = self.solver.solve(state, all_moves=True, pv=False, time_limit=left)
            if exact.proven and exact.best_moves:
                return Choice(tuple(exact.best_moves), int(exact.score), True, "exact", time.perf_counter() - started)
        if stored is not None:
            return stored
        assert weak is not None
        return Choice(tuple(weak.best_moves), _sign(weak.score), False, "keeps", time.perf_counter() - started)
