"""The built-in algorithms by name, and running or preparing any algorithm.

>>> from gametree import load
>>> from gametree.search import run
>>> game = load().game("tictactoe").create(size=3)
>>> run(game, algorithm="solver", all_moves=False).score
0
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..game import Game
from . import exact
from .classic import alphabeta, minimax
from .montecarlo import mcts
from .results import Scored, SearchResult, scores_of

__all__ = ["ALGORITHMS", "prepare", "prepare_scores", "run"]

solver = exact.solver
#: Algorithms by name.  Plugins can add more through ``gametree_register_algorithms``.
ALGORITHMS: dict[str, Callable[..., SearchResult]] = {"minimax": minimax, "alphabeta": alphabeta, "solver": solver, "mcts": mcts}
#: Algorithms that set themselves up once for many positions.
_PREPARE: dict[Callable[..., SearchResult], Callable[..., Callable[[Any], SearchResult]]] = {solver: exact.prepare}
_PREPARE_SCORES: dict[Callable[..., SearchResult], Callable[..., Callable[[Any], Scored]]] = {solver: exact.prepare_scores}


def run(game: Game[Any, Any], state: Any = None, *, algorithm: str = "alphabeta", **options: Any) -> SearchResult:
    """Run a search by algorithm name: ``run(game, state, algorithm="solver", weak=True)``."""
    try:
        function = ALGORITHMS[algorithm]
    except KeyError:
        raise ValueError(f"unknown algorithm {algorithm!r} (choose from {', '.join(sorted(ALGORITHMS))})") from None
    return function(game, state, **options)


def prepare(function: Callable[..., SearchResult], game: Game[Any, Any], **options: Any) -> Callable[[Any], SearchResult]:
    """``function`` bound to ``game`` and ``options``, for many positions in a row.

    ``prepare(solver, game, cache=table)(state)`` is ``solver(game, state, cache=table)``.
    An algorithm that can set itself up once for many positions offers its own
    ``function.prepare(game, **options)`` (the solver does); any other is just bound.
    """
    own = _PREPARE.get(function) or getattr(function, "prepare", None)
    if own is not None:
        return own(game, **options)  # type: ignore[no-any-return]
    return functools.partial(function, game, **options)


def prepare_scores(function: Callable[..., SearchResult], game: Game[Any, Any], **options: Any) -> Callable[[Any], Scored]:
    """As :func:`prepare`, for when only each position's score matters: the callable returns :class:`Scored`.

    An algorithm that can prove a score without building a whole
    :class:`SearchResult` (best move, statistics by depth) offers its own
    ``prepare_scores`` (the solver does); any other is prepared with
    ``all_moves=False, pv=False`` and its results cut down.
    """
    own = _PREPARE_SCORES.get(function) or getattr(function, "prepare_scores", None)
    if own is not None:
        return own(game, **options)  # type: ignore[no-any-return]
    return scores_of(prepare(function, game, **{**options, "all_moves": False, "pv": False}))
