"""The perfect player with a solution store never takes a slower win than one it can prove in
time (issue 34, item 9: after A1 B2 C3 C2 B1 it once played C1, a win in 3, instead of A2, a win
at once, with a store shared with other runs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gametree.book import build_play_book
from gametree.search.known import canonical_keyer
from gametree.search.perfect import PerfectMover
from gametree.search.solver import Solver
from gametree.search.table import Bound
from gametree.store import SolutionStore
from gametree.store.sqlite import GameEntries

MOVES = "A1 B2 C3 C2 B1"  # O to move: A2 wins at once, C1 in 3, A3 and B3 lose


def _brute(game, state) -> dict[str, int]:
    """Each move's depth-aware score by plain minimax (the independent check): a win scores
    more the sooner it comes, as the solver's scores do (only their order matters here)."""

    def value(s, depth: int) -> int:
        outcome = game.outcome(s)
        if outcome is not None:
            return 0 if outcome.winner is None else -(100 - depth)  # the player to move has lost
        return max(-value(game.play(s, m), depth + 1) for m in game.legal_moves(s))

    return {game.format_move(state, m): -value(game.play(state, m), 1) for m in game.legal_moves(state)}


def _weak_here(game, state, book: GameEntries) -> None:
    Solver(game, engine="python", store=book).solve(state, weak=True, all_moves=False, pv=False)


def _exact_here(game, state, book: GameEntries) -> None:
    Solver(game, engine="python", store=book).solve(state, all_moves=True, pv=False)


def _weak_from_the_start(game, state, book: GameEntries) -> None:
    Solver(game, engine="python", store=book).solve(game.initial_state(), weak=True, all_moves=True, pv=False)


def _play_book(game, state, book: GameEntries) -> None:  # another run's book for O's play, every move chosen
    build_play_book(game, book, seconds=0.0, players=(1,), engine="python")


def _slow_win_chosen(game, state, book: GameEntries) -> None:
    """Weak entries (a win, no faster than the slowest) with the slower win C1 chosen, as a
    --for-play build that met this position would leave them."""
    key = canonical_keyer(game)
    slow = game.play(state, game.parse_move(state, "C1"))
    book.put_bounds([(key(state), 1, Bound.LOWER), (key(slow), -1, Bound.UPPER)])
    book.choose_many([(key(state), key(slow))])


STATES: dict[str, list[Callable[..., None]]] = {
    "empty": [],
    "weak": [_weak_here],
    "exact": [_exact_here],
    "weak from the start": [_weak_from_the_start],
    "play book": [_play_book],
    "slow win chosen": [_slow_win_chosen],
    "weak, then slow win chosen": [_weak_here, _slow_win_chosen],
    "slow win chosen, then exact": [_slow_win_chosen, _exact_here],
    "everything": [_weak_from_the_start, _play_book, _slow_win_chosen, _weak_here, _exact_here],
}


@pytest.mark.parametrize("writers", list(STATES.values()), ids=list(STATES))
def test_the_perfect_player_wins_at_once_whatever_the_store_holds(ttt3, tmp_path: Path, writers) -> None:
    state = ttt3.initial_state()
    for move in MOVES.split():
        state = ttt3.play(state, ttt3.parse_move(state, move))
    brute = _brute(ttt3, state)
    fastest = {m for m, v in brute.items() if v == max(brute.values())}
    assert fastest == {"A2"} and brute["C1"] > 0  # the position of the issue: two wins, one faster
    with SolutionStore(tmp_path / "shared.sqlite") as store:
        book = store.entries_of("tictactoe", {"size": 3})
        for write in writers:
            write(ttt3, state, book)
        for engine in ("python", "auto"):
            choice = PerfectMover(ttt3, store=book, engine=engine).choose(state)
            assert set(choice.moves) == fastest, (engine, choice)
