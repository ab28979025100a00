"""The built-in algorithms, registered through the plugin hook like any plugin's; running or
preparing an algorithm by name or spec.

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

from ..game import Game, State
from ..hookspecs import hookimpl
from ..plugin import AlgorithmSpec, Option, Registry
from . import exact
from .classic import alphabeta, minimax
from .montecarlo import DEFAULT_EXPLORATION, DEFAULT_ITERATIONS, mcts
from .results import Scored, SearchResult, scores_of

__all__ = ["ALGORITHMS", "gametree_register_algorithms", "prepare", "prepare_scores", "run", "spec_of"]

_CLASSIC = frozenset({"depth", "time_limit", "cache", "symmetry", "all_moves", "pv"})

#: The built-in algorithms by name.
ALGORITHMS: dict[str, AlgorithmSpec] = {
    spec.name: spec
    for spec in (
        AlgorithmSpec(
            "solver",
            exact.solver,
            "exact and fastest: null-window narrowing, threat pruning, a bounds table",
            takes=_CLASSIC | {"weak", "engine"},
            prepare=exact.prepare,
            prepare_scores=exact.prepare_scores,
            exact=True,
        ),
        AlgorithmSpec("alphabeta", alphabeta, "alpha-beta negamax with a bounds table", takes=_CLASSIC, exact=True),
        AlgorithmSpec("minimax", minimax, "plain minimax: every node, no pruning (the teaching baseline)", takes=frozenset({"depth", "all_moves", "pv"})),
        AlgorithmSpec(
            "mcts",
            mcts,
            "Monte Carlo tree search (UCT) with proven-value bounds",
            takes=frozenset({"depth", "time_limit", "all_moves", "pv"}),
            options=(
                Option("iterations", int, None, f"Monte Carlo iterations (default {DEFAULT_ITERATIONS} unless --time-limit)."),
                Option("exploration", float, None, f"UCT exploration constant (default {DEFAULT_EXPLORATION})."),
                Option("seed", int, None, "Seed for the random playouts."),
            ),
        ),
    )
}


@hookimpl
def gametree_register_algorithms(registry: Registry) -> None:
    """The built-in algorithms, through the same hook as a plugin's."""
    for spec in ALGORITHMS.values():
        registry.add_algorithm(spec)


def spec_of(algorithm: AlgorithmSpec | str | Callable[..., SearchResult]) -> AlgorithmSpec:
    """The spec of an algorithm given by spec, by built-in name, or by its search function
    (a function that is no built-in gets a spec that takes every option)."""
    if isinstance(algorithm, AlgorithmSpec):
        return algorithm
    if isinstance(algorithm, str):
        try:
            return ALGORITHMS[algorithm]
        except KeyError:
            raise ValueError(f"unknown algorithm {algorithm!r} (choose from {', '.join(sorted(ALGORITHMS))})") from None
    for spec in ALGORITHMS.values():
        if spec.search is algorithm:
            return spec
    return AlgorithmSpec(getattr(algorithm, "__name__", "algorithm"), algorithm)


def run(game: Game[Any, Any], state: State | None = None, *, algorithm: AlgorithmSpec | str = "alphabeta", **options: Any) -> SearchResult:
    """Run a search by algorithm name or spec: ``run(game, state, algorithm="solver", weak=True)``."""
    result: SearchResult = spec_of(algorithm).search(game, state, **options)
    return result


def prepare(algorithm: AlgorithmSpec | str | Callable[..., SearchResult], game: Game[Any, Any], **options: Any) -> Callable[[Any], SearchResult]:
    """The algorithm bound to ``game`` and ``options``, for many positions in a row.

    ``prepare("solver", game, cache=table)(state)`` is ``solver(game, state, cache=table)``.
    An algorithm that can set itself up once for many positions says so in its
    spec (``AlgorithmSpec.prepare``; the solver does); any other is just bound.
    """
    spec = spec_of(algorithm)
    if spec.prepare is not None:
        return spec.prepare(game, **options)
    return functools.partial(spec.search, game, **options)


def prepare_scores(algorithm: AlgorithmSpec | str | Callable[..., SearchResult], game: Game[Any, Any], **options: Any) -> Callable[[Any], Scored]:
    """As :func:`prepare`, for when only each position's score matters: the callable returns :class:`Scored`.

    An algorithm that can prove a score without building a whole
    :class:`SearchResult` (best move, statistics by depth) says so in its spec
    (``AlgorithmSpec.prepare_scores``; the solver does); any other is prepared
    with ``all_moves=False, pv=False`` and its results cut down.
    """
    spec = spec_of(algorithm)
    if spec.prepare_scores is not None:
        return spec.prepare_scores(game, **options)
    return scores_of(prepare(spec, game, **{**options, "all_moves": False, "pv": False}))
