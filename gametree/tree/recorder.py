"""Recording the tree a search explored, through the engine's observer.

The engine (:mod:`gametree.search.engine`) reports every node to an
observer; :class:`TreeRecorder`, the usual one, fills a ``networkx.DiGraph``:
one node per visit (so transpositions and cache hits show where they
happened), one edge per move tried, and for the moves left untried by a cutoff
one edge each to a placeholder node marked ``pruned``.  The observed search is
the same search as an unobserved one (a test checks that both give the same
result and statistics).

>>> from gametree import load, play_text
>>> from gametree.tree import capture
>>> game = load().game("tictactoe").create(size=3)
>>> tree = capture(game, play_text(game, "B2 A1 C3 A3 A2 C1"))
>>> tree.visited == tree.result.stats.nodes
True
>>> tree.result.value, tree.pv_moves() == list(tree.result.pv)
('win', True)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from ..game import Game, M, Move, S, State, game_name
from ..search.classic import root_search
from ..search.engine import INF, Engine, Exit, SearchObserver
from ..search.margins import ENGINE_KINDS
from ..search.results import Root, build_result, check_game, freeze, start
from ..search.table import TranspositionTable, table_of
from .board import board_attributes, board_labels, last_move_cell
from .model import SearchTree, TreeTooLargeError, mark_pv

if TYPE_CHECKING:
    import networkx as nx
    from typing_extensions import Unpack

__all__ = ["NodeLimit", "TreeRecorder", "TreeSearch", "capture", "check_algorithm", "count_nodes", "observed_root"]


def check_algorithm(algorithm: str) -> None:
    """Refuse an algorithm whose tree cannot be captured this way."""
    if algorithm not in ("minimax", "alphabeta"):
        raise ValueError(f"cannot trace algorithm {algorithm!r}: tree capture supports minimax and alphabeta")


def observed_root(engine: Engine, state: State, all_moves: bool) -> Root[Move]:
    """The root of :func:`gametree.minimax` / ``alphabeta``, with the root node reported too."""
    obs = engine.observer
    if not engine.prune or all_moves:
        assert obs is not None
        game = engine.game
        engine.counters.per_depth[0] += 1
        obs.enter(state, 0, -INF if engine.prune else None, INF if engine.prune else None)
        moves = list(game.legal_moves(state))
        values = []
        for m in moves:
            obs.child(m)
            values.append(-engine.exact(game.play(state, m), 1))
        obs.leave(Exit(max(values), "searched", window=(-INF, INF) if engine.prune else None))
        return Root(moves, values)
    return root_search(engine, state)


class NodeLimit:
    """An observer that only counts, and stops the search past ``limit`` nodes (:class:`TreeTooLargeError`)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.visits = 0

    def enter(self, state: State, height: int, alpha: float | None, beta: float | None) -> None:
        self.visits += 1
        if self.visits > self.limit:
            raise TreeTooLargeError(self.visits, self.limit)

    def child(self, move: Move) -> None:
        pass

    def prune(self, moves: Sequence[Move], reason: str) -> None:
        pass

    def leave(self, exit: Exit) -> None:
        pass


class TreeSearch(TypedDict, total=False):
    """The search options of :func:`capture`, as :func:`count_nodes` takes them."""

    algorithm: str
    depth: int | None
    cache: TranspositionTable | bool | None
    symmetry: bool
    all_moves: bool


def count_nodes(
    game: Game[S, M], state: S | None = None, *, limit: int = 2_000_000, **search: Unpack[TreeSearch]
) -> int | None:
    """How many nodes the search (and so its tree) has, or None if more than ``limit``.

    Runs the search observed only by a counter, so asking is cheap, and stops
    at the limit.  ``cache`` works as in :func:`capture`; pass a fresh table
    (or True) to count what a capture with a fresh table would record.
    """
    algorithm = search.get("algorithm", "alphabeta")
    check_algorithm(algorithm)
    check_game(game, algorithm, ENGINE_KINDS)  # (margin games too: the engine scores them)
    state = start(game, state, checked=True)
    table = table_of(search.get("cache", True)) if algorithm != "minimax" else None
    counter = NodeLimit(limit)
    engine = Engine(
        game,
        depth=search.get("depth"),
        table=table,
        symmetry=search.get("symmetry", True),
        prune=algorithm != "minimax",
        observer=counter,
    )
    try:
        observed_root(engine, state, search.get("all_moves", True))
    except TreeTooLargeError:
        return None
    return engine.counters.nodes


class TreeRecorder:
    """An observer that builds a ``networkx.DiGraph`` of the search.

    Node ids are integers in visit order (0 is the root); a move left untried
    by a cutoff gets a placeholder node (``pruned=True``) after its visit.
    ``max_nodes`` stops the search with :class:`TreeTooLargeError` once more
    nodes than that are visited.  ``positions`` stores ``game.render(state)``
    on every node (needed to draw boards).
    """

    def __init__(self, game: Game[Any, Any], *, max_nodes: int | None = None, positions: bool = True) -> None:
        import networkx as nx

        self.game = game
        self.graph: nx.DiGraph[int] = nx.DiGraph()
        self.max_nodes = max_nodes
        self.positions = positions
        self.visits = 0
        self._ids = 0
        self._stack: list[tuple[int, State, str]] = []  # (node, state, moves from the root)
        self._move: Move = None
        self._order = 0
        self._cells = board_attributes(game) if positions else None
        self._move_cell = last_move_cell(game)
        if self._cells is not None:
            self.graph.graph.update(board_labels(game))

    def _new_id(self) -> int:
        node = self._ids
        self._ids += 1
        return node

    def enter(self, state: State, height: int, alpha: float | None, beta: float | None) -> None:
        self.visits += 1
        if self.max_nodes is not None and self.visits > self.max_nodes:
            raise TreeTooLargeError(self.visits, self.max_nodes)
        game = self.game
        node = self._new_id()
        move_text: str | None = None
        path = ""
        if self._stack:
            parent, parent_state, parent_path = self._stack[-1]
            move_text = game.format_move(parent_state, self._move)
            path = f"{parent_path} {move_text}".strip()
        to_move = game.to_move(state)
        names = game.info.player_names
        attrs: dict[str, Any] = {
            "visit": self.visits,
            "pruned": False,
            "depth": height,
            "ply": game.ply(state),
            "to_move": to_move,
            "player": names[to_move] if to_move < len(names) else str(to_move),
            "move": move_text,
            "moves": path,
            "alpha": alpha,
            "beta": beta,
            "pv": False,
            "cutoff": None,
        }
        if self.positions:
            attrs["position"] = game.render(state)
            if self._cells is not None:
                attrs.update(self._cells(state))
                if move_text is not None and self._move_cell is not None:
                    attrs["last"] = self._move_cell(parent_state, self._move)
        self.graph.add_node(node, **attrs)
        if self._stack:
            self.graph.add_edge(parent, node, move=move_text, order=self._order, pruned=False, reason=None, pv=False)
        self._stack.append((node, state, path))

    def child(self, move: Move) -> None:
        node = self._stack[-1][0]
        self._move = move
        self._order = self.graph.out_degree(node)

    def prune(self, moves: Sequence[Move], reason: str) -> None:
        parent, state, path = self._stack[-1]
        data = self.graph.nodes[parent]
        data["cutoff"] = reason
        order = self.graph.out_degree(parent)
        for move in moves:
            text = self.game.format_move(state, move)
            node = self._new_id()
            self.graph.add_node(
                node,
                pruned=True,
                depth=data["depth"] + 1,
                move=text,
                moves=f"{path} {text}".strip(),
                reason=reason,
                pv=False,
            )
            self.graph.add_edge(parent, node, move=text, order=order, pruned=True, reason=reason, pv=False)
            order += 1

    def leave(self, exit: Exit) -> None:
        value, kind, window, cache, winner, _ = exit
        node, _state, _path = self._stack.pop()
        data = self.graph.nodes[node]
        bound = exit.bound(data["alpha"], data["beta"]).label
        data.update(value=value, kind=kind, bound=bound, cache=cache, winner=winner)
        if kind == "terminal":
            names = self.game.info.player_names
            data["outcome"] = "draw" if winner is None else f"{names[winner] if winner < len(names) else winner} wins"
        if window is not None:
            data["search_alpha"], data["search_beta"] = window
        else:
            data["search_alpha"], data["search_beta"] = data["alpha"], data["beta"]


def capture(
    game: Game[S, M],
    state: S | None = None,
    *,
    algorithm: str = "alphabeta",
    depth: int | None = None,
    cache: TranspositionTable | bool | None = True,
    symmetry: bool = True,
    all_moves: bool = True,
    max_nodes: int | None = None,
    positions: bool = True,
    observer: SearchObserver | None = None,
) -> SearchTree:
    """Search ``state`` like :func:`gametree.minimax` / :func:`gametree.alphabeta`
    with the same options, and record the tree the search explored.

    ``all_moves=True`` (the default, as ``gametree solve`` does) searches every
    root move with a full window to get all their exact values;
    ``all_moves=False`` runs one alpha-beta search from the root, as textbooks
    draw it.  ``cache`` is ignored by minimax.  Raises
    :class:`TreeTooLargeError` once more than ``max_nodes`` nodes are visited.
    ``observer`` replaces the recorder (its graph is then empty).
    """
    check_algorithm(algorithm)
    check_game(game, algorithm, ENGINE_KINDS)  # (margin games too: the engine scores them)
    state = start(game, state, checked=True)
    table = table_of(cache) if algorithm != "minimax" else None
    base = (table.probes, table.hits, table.stores) if table is not None else (0, 0, 0)
    recorder = TreeRecorder(game, max_nodes=max_nodes, positions=positions)
    engine = Engine(
        game, depth=depth, table=table, symmetry=symmetry, prune=algorithm != "minimax", observer=observer or recorder
    )
    started = time.perf_counter()
    root = observed_root(engine, state, all_moves)
    stats = freeze(engine.counters, table, time.perf_counter() - started, base)
    lines = Engine(
        game,
        depth=depth,
        table=table if table is not None else TranspositionTable(),
        symmetry=symmetry or algorithm == "minimax",
    )
    result = build_result(algorithm, game, state, root, lines, depth, stats, heuristic=engine.counters.heuristic > 0)
    graph = recorder.graph
    graph.graph.update(
        algorithm=algorithm,
        game=game_name(game),
        players=tuple(game.info.player_names),
        depth=depth,
        cache=table is not None,
        all_moves=all_moves,
        to_move=result.to_move,
        value=result.value,
        score=result.score,
        pv=" ".join(result.pv),
        nodes=stats.nodes,
        cutoffs=stats.cutoffs,
    )
    if graph.number_of_nodes():
        graph.graph["pv_marked"] = mark_pv(graph, 0, result.pv)
    return SearchTree(result, graph, 0, {"algorithm": algorithm, "depth": depth, "all_moves": all_moves})
