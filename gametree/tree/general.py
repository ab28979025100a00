"""Recording the tree of a search that is not the engine's: chance nodes, more players.

Expectiminimax, Star1, Star2, max^n and paranoid (and a searcher of your own)
take an optional ``observer`` and tell it every node as the engine does
(``enter``, ``child``, ``prune``, ``leave``; see docs/trees.md for what each
call carries).  :func:`capture_search` runs such a search with a
:class:`~gametree.tree.recorder.TreeRecorder` as its observer and returns the
:class:`~gametree.tree.SearchTree`, drawn and explored like an alpha-beta tree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..game import Game, S, game_name
from ..search.engine import SearchObserver
from ..search.results import SearchResult
from .model import SearchTree, TreeTooLargeError, mark_pv
from .recorder import NodeLimit, TreeRecorder

__all__ = ["OBSERVED", "ObservedSearch", "capture_search", "count_search", "describe", "observed_search"]

#: A search told of every node: called with the observer, it returns the search's result.
ObservedSearch = Callable[[SearchObserver], SearchResult]

#: The registered algorithms, beside minimax and alpha-beta, whose search takes an ``observer``.
OBSERVED = ("expectiminimax", "star1", "star2", "maxn", "paranoid")


def observed_search(
    game: Game[S, Any], state: S, algorithm: str, *, depth: int | None = None, all_moves: bool = False
) -> ObservedSearch:
    """The registered ``algorithm`` (one of :data:`OBSERVED`) searching ``state``, told of every node
    by the observer it is called with; the game is refused first, in one line, if the algorithm cannot
    search it."""
    from ..search.algorithms import ALGORITHMS
    from ..search.results import check_game

    spec = ALGORITHMS.get(algorithm)
    if algorithm not in OBSERVED or spec is None:
        raise ValueError(f"cannot trace algorithm {algorithm!r}: this build does not have it")
    check_game(game, algorithm, spec.supports)
    function = spec.search

    def search(observer: SearchObserver) -> SearchResult:
        return function(game, state, depth=depth, all_moves=all_moves, observer=observer)

    return search


def count_search(search: ObservedSearch, limit: int) -> int | None:
    """How many nodes ``search`` visits, or None if more than ``limit`` (it stops there)."""
    counter = NodeLimit(limit)
    try:
        search(counter)
    except TreeTooLargeError:
        return None
    return counter.visits


def capture_search(
    game: Game[S, Any],
    search: ObservedSearch,
    *,
    max_nodes: int | None = None,
    positions: bool = True,
    options: dict[str, Any] | None = None,
) -> SearchTree:
    """Run ``search`` with a recorder as its observer and return the tree it explored.

    ``options`` are the search's options as the tree keeps them (``depth``, ``all_moves``).
    Raises :class:`~gametree.tree.TreeTooLargeError` past ``max_nodes`` visited nodes.
    """
    recorder = TreeRecorder(game, max_nodes=max_nodes, positions=positions)
    result = search(recorder)
    options = dict(options or {})
    graph = recorder.graph
    graph.graph.update(describe(game, result, options))
    if graph.number_of_nodes():
        graph.graph["pv_marked"] = mark_pv(graph, 0, result.pv)
    return SearchTree(result, graph, 0, {"algorithm": result.algorithm, **options})


def describe(game: Game[Any, Any], result: SearchResult, options: dict[str, Any]) -> dict[str, Any]:
    """The graph attributes of a recorded tree (docs/trees.md): the search and the kind of game."""
    info = game.info
    stats = result.stats
    return {
        "algorithm": result.algorithm,
        "game": game_name(game),
        "players": tuple(info.player_names[: info.players])
        + tuple(f"player {i + 1}" for i in range(len(info.player_names), info.players)),
        "player_count": info.players,
        "margin": info.margin,
        "chance": not info.deterministic,
        "depth": options.get("depth"),
        "cache": bool(options.get("cache", False)),
        "all_moves": bool(options.get("all_moves", False)),
        "to_move": result.to_move,
        "value": result.value,
        "score": result.score,
        "pv": " ".join(result.pv),
        "nodes": stats.nodes,
        "cutoffs": stats.cutoffs,
    }
