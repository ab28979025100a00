"""The score range of a search: depth-aware win/draw/loss scores, or a margin game's final margins.

A win/draw/loss game scores a win by how soon it comes (:func:`gametree.win_score`):
at ply ``p`` no score beats winning with the next move.  A margin game
(``GameInfo.margin``) scores a finished game by its final margin for the side to
move (:func:`gametree.game.end_score`), the same at any ply: the range is the
game's ``GameInfo.payoff_bounds``, which such a game must declare (the exact
solver's null-window narrowing bisects that range).

>>> from gametree.game import GameInfo
>>> margin_bound(GameInfo(max_plies=12, margin=True, payoff_bounds=(-16, 16)))
16
>>> top_score(GameInfo(max_plies=9), 4), top_score(GameInfo(max_plies=12, margin=True, payoff_bounds=(-16, 16)), 4)
(3, 16)
"""

from __future__ import annotations

import math

from ..game import GameInfo, GameKind, UnsupportedGameError, win_score

__all__ = ["ENGINE_KINDS", "HEURISTIC_GAP", "estimate_range", "margin_bound", "top_score"]

#: The kinds of game beyond the plain one that the negamax engine's searches (minimax, alpha-beta, the
#: exact solver) support: margin games.
ENGINE_KINDS = frozenset({GameKind.MARGIN})

#: A margin game's heuristic estimates are kept this far inside its margin bounds, so a depth-limited
#: search's value never claims the best or worst margin there is.
HEURISTIC_GAP = 0.001


def margin_bound(info: GameInfo) -> int:
    """The largest final margin of a margin game, either way (scores lie in ``[-bound, bound]``).

    Raises:
        UnsupportedGameError: A margin game without ``payoff_bounds``, in one line.
    """
    bounds = info.payoff_bounds
    if bounds is None:
        raise UnsupportedGameError(
            "a margin game must declare GameInfo.payoff_bounds (the lowest and highest final margin): "
            "the search's score range comes from them"
        )
    # (m, -m): either player's margin lies in [-bound, bound] for the larger of the two ends.
    return math.ceil(max(abs(float(bounds[0])), abs(float(bounds[1]))))


def top_score(info: GameInfo, p: int) -> int:
    """The best score there is for the side to move at ply ``p``: winning with the next move
    (:func:`gametree.win_score`), or a margin game's largest margin."""
    return margin_bound(info) if info.margin else win_score(info.max_plies, p)


def estimate_range(info: GameInfo) -> float:
    """How far from 0 a heuristic estimate may go: strictly inside (-1, 1) for a win/draw/loss game
    (below any proven win or loss), strictly inside the margin bounds for a margin game."""
    if info.margin:
        return margin_bound(info) - HEURISTIC_GAP
    return 0.999
