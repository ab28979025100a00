"""Proven values as types: a win, a loss or a draw, and in how many plies.

A search's ``score`` is a number (depth-aware: a faster win scores higher; see
:func:`gametree.win_score`), which a program compares; what it *says* about the
game is one of three typed outcomes, as python-chess's ``Mate(moves)`` says
what a mate score means::

    >>> from gametree import load, solver
    >>> game = load().game("tictactoe").create(size=3)
    >>> solver(game, moves="A1 B1 A2 B2").outcome
    Win(plies=1)
    >>> solver(game).outcome
    Draw(plies=9)

``plies`` counts the moves to the end of the game under perfect play, the
deciding move included (None when the search did not follow the line to the
end: a weak solve, or a line cut short by a time limit).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Draw", "ExactValue", "Loss", "Win", "exact_value"]


@dataclass(frozen=True, slots=True)
class Win:
    """The side to move wins, the game ending after ``plies`` more moves under perfect play."""

    plies: int | None


@dataclass(frozen=True, slots=True)
class Loss:
    """The side to move loses, holding out for ``plies`` more moves under perfect play."""

    plies: int | None


@dataclass(frozen=True, slots=True)
class Draw:
    """Neither side can win; the game lasts ``plies`` more moves under perfect play."""

    plies: int | None


#: What a proven score means.
ExactValue = Win | Loss | Draw


def exact_value(score: float, plies: int | None) -> ExactValue:
    """The outcome a proven ``score`` (from the side to move) means, ``plies`` from the end."""
    if score > 0:
        return Win(plies)
    if score < 0:
        return Loss(plies)
    return Draw(plies)
