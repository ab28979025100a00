"""What a recorded node's value says, for every kind of search (see docs/trees.md).

The engine (minimax, alpha-beta) reports negamax values: each node's value is
for the side to move there.  Searches of chance nodes and of more players tell
the same observer, and may report a node's value from another player's side
(``Exit.player``: Star1 works in the first player's payoff) and each player's
payoff (``Exit.payoffs``).  :func:`settle` writes what a node's exit says onto
its attributes, with its value for the node's ``viewer``: the player to move,
or at a chance node the player who moved into it (the first player at a chance
root).  In a two-player zero-sum game another player's value is its negation
(and its window turns round); with more players the value stays the reporting
player's and ``viewer`` says whose it is.

A chance node's outcomes get their probability from the game
(:func:`chance_outcomes`), so an algorithm reports nothing more for them.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from fractions import Fraction
from typing import Any

from ..game import Game, State, capabilities
from ..search.engine import Exit

__all__ = ["chance_outcomes", "exact_text", "settle"]


def exact_text(value: object) -> str | None:
    """``"7/3"`` for a fraction that is not whole (an exact expectation or probability), else None."""
    if isinstance(value, Fraction) and value.denominator != 1:
        return f"{value.numerator}/{value.denominator}"
    return None


def chance_outcomes(game: Game[Any, Any], state: State) -> dict[str, dict[str, Any]]:
    """A chance node's outcomes by move text: ``probability`` (a float) and, where the game
    gives it exactly, ``probability_text`` ("1/6").  Empty if the game lists none."""
    stochastic = capabilities(game).stochastic
    if stochastic is None:
        return {}
    found: dict[str, dict[str, Any]] = {}
    for move, p in stochastic.chance_outcomes(state):
        attrs: dict[str, Any] = {"probability": float(p)}
        text = exact_text(p)
        if text is not None:
            attrs["probability_text"] = text
        found[game.format_move(state, move)] = attrs
    return found


def _flip(bound: str) -> str:
    return {"lower": "upper", "upper": "lower"}.get(bound, bound)


def settle(data: MutableMapping[str, Any], exit: Exit, players: int) -> None:
    """Write the node's ``exit`` onto its attributes ``data`` (entered with ``alpha``, ``beta``
    and ``viewer``): ``value`` (and ``value_text`` for an exact fraction), ``kind``, ``bound``,
    ``cache``, ``winner``, ``payoffs``, the window searched with (``search_alpha``, ``search_beta``)."""
    alpha, beta = data.get("alpha"), data.get("beta")
    bound = "lower" if exit.kind == "probe" else exit.bound(alpha, beta).label
    value: Any = exit.value
    if exit.payoffs is not None and exit.player is not None and float(exit.payoffs[exit.player]) == float(value):
        value = exit.payoffs[exit.player]  # (exact where the search kept a fraction)
    window = exit.window if exit.window is not None else (alpha, beta)
    viewer = data.get("viewer", 0)
    if exit.player is not None and exit.player != viewer:
        if players == 2:  # (zero-sum: the other player's value is the negation)
            value = -value
            alpha, beta = (-beta if beta is not None else None), (-alpha if alpha is not None else None)
            window = (-window[1] if window[1] is not None else None, -window[0] if window[0] is not None else None)
            if exit.kind != "probe":
                bound = _flip(bound)
        else:
            data["viewer"] = exit.player
    text = exact_text(value)
    data.update(
        value=float(value) if isinstance(value, Fraction) else value,
        kind=exit.kind,
        bound=bound,
        cache=exit.cache,
        winner=exit.winner,
        alpha=_plain(alpha),
        beta=_plain(beta),
        search_alpha=_plain(window[0]),
        search_beta=_plain(window[1]),
    )
    if text is not None:
        data["value_text"] = text
    if exit.payoffs is not None:
        data["payoffs"] = tuple(float(p) for p in exit.payoffs)
        texts = [exact_text(p) for p in exit.payoffs]
        if any(texts):
            data["payoffs_text"] = tuple(t or _number(p) for t, p in zip(texts, exit.payoffs))


def _plain(x: Any) -> Any:
    return float(x) if isinstance(x, Fraction) else x


def _number(x: object) -> str:
    value = float(x)  # type: ignore[arg-type]
    return str(int(value)) if value.is_integer() else f"{value:g}"
