"""Proven values as types: a win, a loss or a draw, and in how many plies; a margin game's final margin.

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

A margin game's proven value is a :class:`Margin`: the final margin for the
side to move under perfect play (its ``plies``: the length of the principal
variation found, one of the optimal lines, since a margin does not depend on
how fast the game ends).  Each value says itself in words (``text``)::

    >>> Margin(4, 12).text, Margin(-2, None).text, Win(3).text, Draw(9).text
    ('wins by 4', 'loses by 2', 'wins in 3 plies', 'draw')
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Draw", "ExactValue", "Loss", "Margin", "Win", "exact_value", "margin_text"]


@dataclass(frozen=True, slots=True)
class Win:
    """The side to move wins, the game ending after ``plies`` more moves under perfect play."""

    plies: int | None

    @property
    def text(self) -> str:
        return "wins" + _in(self.plies)


@dataclass(frozen=True, slots=True)
class Loss:
    """The side to move loses, holding out for ``plies`` more moves under perfect play."""

    plies: int | None

    @property
    def text(self) -> str:
        return "loses" + _in(self.plies)


@dataclass(frozen=True, slots=True)
class Draw:
    """Neither side can win; the game lasts ``plies`` more moves under perfect play."""

    plies: int | None

    @property
    def text(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class Margin:
    """A margin game's value: the side to move ends ``margin`` ahead under perfect play (behind when
    negative; 0 a draw), on a line of ``plies`` more moves (None: the line was not followed)."""

    margin: int
    plies: int | None

    @property
    def text(self) -> str:
        """``"wins by 4"``, ``"loses by 4"`` or ``"draw"``."""
        return margin_text(self.margin)


#: What a proven score means.
ExactValue = Win | Loss | Draw | Margin


def _in(plies: int | None) -> str:
    return "" if plies is None else f" in {plies} plies"


def margin_text(margin: float) -> str:
    """A final margin for the side to move in words: ``"wins by 4"``, ``"loses by 4"`` or ``"draw"``."""
    if margin > 0:
        return f"wins by {margin:g}"
    if margin < 0:
        return f"loses by {-margin:g}"
    return "draw"


def exact_value(score: float, plies: int | None) -> ExactValue:
    """The outcome a proven ``score`` (from the side to move) means, ``plies`` from the end."""
    if score > 0:
        return Win(plies)
    if score < 0:
        return Loss(plies)
    return Draw(plies)
