"""The tree of a Monte Carlo search, drawn like the engine's trees.

>>> from gametree import load, play_text
>>> game = load().game("tictactoe").create(size=3)
>>> tree = capture_mcts(game, play_text(game, "A1 B1 A2 B2"), iterations=20, seed=1)
>>> tree.result.algorithm, tree.graph.number_of_nodes() == tree.result.stats.nodes
('mcts', True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..game import Game, M, S, game_name
from ..search.montecarlo import MCTSNode, Playouts, grow_tree, result_of
from .board import board_attributes, board_labels, last_move_cell
from .model import SearchTree, TreeTooLargeError, mark_pv

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["capture_mcts"]


def capture_mcts(
    game: Game[S, M],
    state: S | None = None,
    *,
    iterations: int = 100,
    exploration: float | None = None,
    seed: int | None = None,
    depth: int | None = None,
    max_nodes: int | None = None,
    positions: bool = True,
) -> SearchTree:
    """Run a Monte Carlo search and return its tree for :mod:`gametree.tree.draw` and the exporters.

    One graph node per tree node (at most ``iterations + 1``), with the
    attributes of :mod:`gametree.tree` (``value`` is the exact score when
    proven, else the mean reward, both for the side to move) and ``visits``,
    ``mean``, ``lower``, ``upper`` and ``proven``.  The principal variation
    (most visits) is marked.  ``max_nodes`` refuses a budget whose tree
    could hold more nodes than that.

    >>> from gametree import load, play_text
    >>> game = load().game("tictactoe").create(size=3)
    >>> tree = capture_mcts(game, play_text(game, "B2 A1 C3 A3"), iterations=30, seed=0)
    >>> stats = tree.result.stats
    >>> tree.graph.number_of_nodes() == stats.nodes, tree.graph.nodes[0]["visits"] == stats.iterations
    (True, True)
    >>> tree.result.value, tree.pv_moves() == list(tree.result.pv)  # proven before the 30 iterations ran out
    ('draw', True)
    """
    import networkx as nx

    if max_nodes is not None and iterations + 1 > max_nodes:
        raise TreeTooLargeError(iterations + 1, max_nodes, exact=True)
    outcome = grow_tree(game, state, Playouts(iterations=iterations, exploration=exploration, seed=seed, depth=depth))
    result = result_of(game, outcome, depth)
    graph: nx.DiGraph[int] = nx.DiGraph()
    _add_nodes(graph, game, outcome.root, positions)
    graph.graph.update(
        algorithm="mcts",
        game=game_name(game),
        players=tuple(game.info.player_names),
        depth=depth,
        cache=False,
        all_moves=True,
        to_move=result.to_move,
        value=result.value,
        score=result.score,
        pv=" ".join(result.pv),
        nodes=result.stats.nodes,
        cutoffs=0,
        iterations=outcome.iterations,
    )
    graph.graph["pv_marked"] = mark_pv(graph, 0, result.pv)
    return SearchTree(result, graph, 0, {"algorithm": "mcts", "depth": depth, "iterations": iterations, "seed": seed})


def _add_nodes(graph: nx.DiGraph[int], game: Game[Any, Any], root: MCTSNode, positions: bool) -> None:
    """One graph node per tree node, numbered from 0 (the root) in depth-first order, children in
    the order they were added, and an edge from each parent; with ``positions``, the boards too."""
    cells = board_attributes(game) if positions else None
    if cells is not None:
        graph.graph.update(board_labels(game))
    move_cell = last_move_cell(game)
    ids = 0
    stack: list[tuple[MCTSNode, int | None, Any, str, int]] = [(root, None, None, "", 0)]
    while stack:
        node, parent, parent_state, path, order = stack.pop()
        me = ids
        ids += 1
        text = game.format_move(parent_state, node.move) if parent is not None else None
        here = f"{path} {text}".strip() if text else path
        attrs = _node_attributes(game, node, me, text, here)
        if positions:
            attrs["position"] = game.render(node.state)
            if cells is not None:
                attrs.update(cells(node.state))
                if parent is not None and move_cell is not None:
                    attrs["last"] = move_cell(parent_state, node.move)
        graph.add_node(me, **attrs)
        if parent is not None:
            graph.add_edge(parent, me, move=text, order=order, pruned=False, reason=None, pv=False, visits=node.visits)
        for i in range(len(node.children) - 1, -1, -1):
            stack.append((node.children[i], me, node.state, here, i))


def _node_attributes(game: Game[Any, Any], node: MCTSNode, me: int, text: str | None, here: str) -> dict[str, Any]:
    """The attributes of :mod:`gametree.tree` for the tree node ``node`` (graph node ``me``, reached
    by the move ``text`` and the moves ``here``), with the search's own: visits, mean and bounds."""
    names = game.info.player_names
    to_move = game.to_move(node.state)
    over = game.outcome(node.state)
    proven = node.lo == node.hi
    mean_for_mover = -(node.total / node.visits) if node.visits else None  # for the side to move here
    attrs: dict[str, Any] = {
        "visit": me + 1,
        "pruned": False,
        "depth": node.height,
        "ply": node.ply,
        "to_move": to_move,
        "player": names[to_move] if to_move < len(names) else str(to_move),
        "move": text,
        "moves": here,
        "alpha": None,
        "beta": None,
        "pv": False,
        "cutoff": None,
        "value": node.lo if proven else (mean_for_mover if mean_for_mover is not None else 0.0),
        "kind": "terminal" if over is not None else "searched",
        "bound": "exact" if proven else "estimate",
        "cache": None,
        "winner": over.winner if over is not None else None,
        "visits": node.visits,
        "mean": mean_for_mover,
        "lower": node.lo,
        "upper": node.hi,
        "proven": proven,
    }
    if over is not None:
        attrs["outcome"] = "draw" if over.winner is None else f"{names[over.winner]} wins"
    return attrs
