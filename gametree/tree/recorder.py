"""Recording the tree a search explored, as a :mod:`networkx` graph.

The fast engine in :mod:`gametree.search` never pays for tracing: recording
uses :class:`TracedEngine`, a subclass whose ``minimax`` and ``alphabeta``
are instrumented copies of the fast ones (same logic, same move order, same
counters) that report to an *observer*.  A test checks that a traced search
gives exactly the same result and statistics as an untraced one.

:class:`TreeRecorder`, the usual observer, fills a ``networkx.DiGraph``: one
node per visit (so transpositions and cache hits show where they happened),
one edge per move tried, and for the moves left untried by a cutoff one edge
each to a placeholder node marked ``pruned``.  Attributes are plain data
(numbers, strings, booleans, None), listed in ``docs/trees.md``.

>>> from gametree import load, play_text
>>> from gametree.tree import capture
>>> game = load().game("tictactoe").create(size=3)
>>> tree = capture(game, play_text(game, "B2 A1 C3 A3 A2 C1"))
>>> tree.visited == tree.result.stats.nodes
True
>>> tree.result.value, tree.pv_moves() == list(tree.result.pv)
('win', True)

``networkx`` and ``graphviz`` are imported only when a tree is captured or drawn.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..search.table import TranspositionTable, table_of
from ..game import Game
from ..search.core import (
    INF,
    SearchResult,
    _best_move,
    _clamp,
    _Counters,
    _Engine,
    _freeze,
    _result,
    _Root,
    _start,
)

from ..plugin import Exporter  # where it lives: plugins import it at every start, without this module

if TYPE_CHECKING:
    import graphviz
    import networkx as nx

__all__ = [
    "Exporter",
    "SearchObserver",
    "SearchTree",
    "TracedEngine",
    "TreeRecorder",
    "TreeTooLargeError",
    "capture",
    "count_nodes",
]

#: What a node's ``kind`` attribute can be.
KINDS = ("searched", "terminal", "heuristic", "cache", "bound")


class TreeTooLargeError(ValueError):
    """The search visits more nodes than the caller allowed."""

    def __init__(self, reached: int, limit: int, exact: bool = False) -> None:
        self.reached, self.limit, self.exact = reached, limit, exact
        count = f"{reached:,} nodes" if exact else f"more than {limit:,} nodes (stopped at node {reached:,})"
        super().__init__(
            f"the search tree has {count}, over the limit of {limit:,}: start from a later position (--moves) "
            "or limit the depth (--depth), or allow more nodes (--max-nodes)"
        )


class SearchObserver(Protocol):
    """What a traced search reports, in order, for every node it visits.

    ``enter`` a node; for each move tried ``child(move)`` then the child's
    whole report; if a cutoff leaves moves untried, ``prune(moves, reason)``;
    finally ``leave``.  ``alpha``/``beta`` are None for plain minimax.
    """

    def enter(self, state: Any, height: int, alpha: float | None, beta: float | None) -> None: ...

    def child(self, move: Any) -> None: ...

    def prune(self, moves: Sequence[Any], reason: str) -> None: ...

    def leave(
        self,
        value: float,
        kind: str,
        bound: str = "exact",
        *,
        window: tuple[float, float] | None = None,
        cache: str | None = None,
        winner: int | None = None,
    ) -> None: ...


def _num(value: float) -> str:
    """A score as people write it: ``3``, ``-0.25``, ``inf``."""
    if value == INF:
        return "inf"
    if value == -INF:
        return "-inf"
    if value == int(value):
        return str(int(value))
    return f"{value:.3g}"


def _bound(value: float, alpha: float, beta: float) -> str:
    """What a fail-soft result tells about the true value, given the window on entry.

    Inside the window it is exact.  (The engine may have narrowed the window
    with the score bound or a cached bound; a result on the narrowed edge is
    still exact, because those bounds hold for the true value.)
    """
    return "upper" if value <= alpha else "lower" if value >= beta else "exact"


class TracedEngine(_Engine):
    """:class:`gametree.search._Engine` with every node reported to an observer.

    ``minimax`` and ``alphabeta`` are copies of the fast methods with observer
    calls added; keep them in step with :mod:`gametree.search`
    (``tests/test_tree.py`` compares the statistics of both on many positions).
    """

    def __init__(self, game: Game[Any, Any], *, observer: SearchObserver, **kwargs: Any) -> None:
        super().__init__(game, **kwargs)
        self.observer = observer

    def minimax(self, state: Any, height: int) -> float:
        c = self.c
        c.nodes += 1
        if height >= len(c.per_depth):
            c.grow(height)
        c.per_depth[height] += 1
        obs = self.observer
        obs.enter(state, height, None, None)
        game = self.game
        out = game.outcome(state)
        if out is not None:
            c.terminals += 1
            score = self.terminal_score(state, out.winner)
            obs.leave(score, "terminal", winner=out.winner)
            return score
        if height >= self.limit:
            c.heuristic += 1
            value = _clamp(self.evaluate(state))
            obs.leave(value, "heuristic")
            return value
        best = -INF
        play = game.play
        for move in game.legal_moves(state):
            obs.child(move)
            value = -self.minimax(play(state, move), height + 1)
            if value > best:
                best = value
        obs.leave(best, "searched")
        return best

    def alphabeta(self, state: Any, alpha: float, beta: float, height: int) -> float:
        c = self.c
        c.nodes += 1
        if height >= len(c.per_depth):
            c.grow(height)
        c.per_depth[height] += 1
        obs = self.observer
        obs.enter(state, height, alpha, beta)
        a_in, b_in = alpha, beta
        game = self.game
        out = game.outcome(state)
        if out is not None:
            c.terminals += 1
            score = self.terminal_score(state, out.winner)
            obs.leave(score, "terminal", winner=out.winner)
            return score
        remaining = self.limit - height
        if remaining <= 0:
            c.heuristic += 1
            value = _clamp(self.evaluate(state))
            obs.leave(value, "heuristic")
            return value

        bound = (self.C + 1 - game.ply(state)) // 2
        if beta > bound:
            beta = bound
            if alpha >= beta:
                obs.leave(beta, "bound", _bound(beta, a_in, b_in), window=(alpha, beta))
                return beta
        if alpha < -bound:
            alpha = -bound
            if alpha >= beta:
                obs.leave(alpha, "bound", _bound(alpha, a_in, b_in), window=(alpha, beta))
                return alpha

        table = self.table
        hash_move = None
        cache: str | None = None
        if table is not None:
            key = self.keyf(state)
            entry = table.get(key)
            cache = "miss"
            if entry is not None:
                lower, upper, hash_move, depth = entry
                cache = "shallow"
                if depth >= remaining:
                    cache = "partial"
                    if lower >= beta:
                        obs.leave(lower, "cache", _bound(lower, a_in, b_in), window=(alpha, beta), cache="hit")
                        return lower
                    if upper <= alpha:
                        obs.leave(upper, "cache", _bound(upper, a_in, b_in), window=(alpha, beta), cache="hit")
                        return upper
                    if lower == upper:
                        obs.leave(lower, "cache", "exact", window=(alpha, beta), cache="hit")
                        return lower
                    if lower > alpha:
                        alpha = lower
                    if upper < beta:
                        beta = upper

        moves = game.legal_moves(state)
        if hash_move is not None and hash_move in moves:
            moves = [hash_move, *(m for m in moves if m != hash_move)]
        play = game.play
        alpha0 = alpha
        best = -INF
        best_move = None
        for move in moves:
            obs.child(move)
            value = -self.alphabeta(play(state, move), -beta, -alpha, height + 1)
            if value > best:
                best = value
                best_move = move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        if move is not moves[-1]:
                            c.cutoffs += 1  # moves were left untried
                            rest = moves[moves.index(move) + 1 :]
                            obs.prune(rest, f"beta cutoff: {_num(value)} >= {_num(beta)}")
                        break

        if height == 0:
            self.root_move = best_move
        if table is not None:
            if best <= alpha0:
                table.put(key, -INF, best, best_move, remaining)
            elif best >= beta:
                table.put(key, best, INF, best_move, remaining)
            else:
                table.put(key, best, best, best_move, remaining)
        obs.leave(best, "searched", _bound(best, a_in, b_in), window=(alpha0, beta), cache=cache)
        return best


class _CountingEngine(_Engine):
    """The fast engine, stopped once it has visited ``cap`` nodes (for :func:`count_nodes`)."""

    cap = 0

    def minimax(self, state: Any, height: int) -> float:
        if self.c.nodes >= self.cap:
            raise _Stop
        return super().minimax(state, height)

    def alphabeta(self, state: Any, alpha: float, beta: float, height: int) -> float:
        if self.c.nodes >= self.cap:
            raise _Stop
        return super().alphabeta(state, alpha, beta, height)


class _Stop(Exception):
    pass


class _NoObserver:
    def enter(self, state: Any, height: int, alpha: float | None, beta: float | None) -> None:
        pass

    def child(self, move: Any) -> None:
        pass

    def prune(self, moves: Sequence[Any], reason: str) -> None:
        pass

    def leave(self, value: float, kind: str, bound: str = "exact", **info: Any) -> None:
        pass


def _drive(engine: _Engine, state: Any, algorithm: str, all_moves: bool, symmetry: bool, obs: SearchObserver) -> _Root:
    """The root of :func:`gametree.search.minimax` / ``alphabeta``, reporting the root node too."""
    game = engine.game
    counters = engine.c
    if algorithm == "minimax" or all_moves:
        counters.nodes += 1
        counters.per_depth[0] += 1
        full = algorithm != "minimax"
        obs.enter(state, 0, -INF if full else None, INF if full else None)
        moves = list(game.legal_moves(state))
        values = []
        for m in moves:
            obs.child(m)
            if full:
                values.append(-engine.exact(game.play(state, m), 1))
            else:
                values.append(-engine.minimax(game.play(state, m), 1))
        obs.leave(max(values), "searched", window=(-INF, INF) if full else None)
        return _Root(moves, values)
    engine.root_move = None
    value = engine.exact(state, 0)
    move = engine.root_move
    if move is None:  # answered from the cache at the root: find the move without counting it
        quiet = _Engine(game, limit=engine.limit, table=engine.table, symmetry=symmetry, counters=_Counters())
        move = _best_move(quiet, state, value)
    return _Root([move], [value])


def count_nodes(
    game: Game[Any, Any],
    state: Any = None,
    *,
    algorithm: str = "alphabeta",
    depth: int | None = None,
    cache: TranspositionTable | bool | None = True,
    symmetry: bool = True,
    all_moves: bool = True,
    limit: int = 2_000_000,
) -> int | None:
    """How many nodes the search (and so its tree) has, or None if more than ``limit``.

    Runs the fast engine with no recording, so asking is cheap.  ``cache``
    works as in :func:`capture`; pass a fresh table (or True) to count what a
    capture with a fresh table would record.
    """
    _check_algorithm(algorithm)
    state = _start(game, state)
    table = table_of(cache) if algorithm != "minimax" else None
    engine = _CountingEngine(game, limit=depth, table=table, symmetry=symmetry, counters=_Counters())
    engine.cap = limit
    try:
        _drive(engine, state, algorithm, all_moves, symmetry, _NoObserver())
    except _Stop:
        return None
    nodes: int = engine.c.nodes
    return nodes if nodes <= limit else None


def _check_algorithm(algorithm: str) -> None:
    if algorithm not in ("minimax", "alphabeta"):
        raise ValueError(f"cannot trace algorithm {algorithm!r}: tree capture supports minimax and alphabeta")


# -- the recorder -------------------------------------------------------------------
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
        self._stack: list[tuple[int, Any, str]] = []  # (node, state, moves from the root)
        self._move: Any = None
        self._order = 0
        self._cells = _board_cells_function(game) if positions else None
        move_cell = getattr(game, "move_cell", None)
        self._move_cell = move_cell if callable(move_cell) else None
        if self._cells is not None:
            for name, key in (("row_labels", "board_rows"), ("column_labels", "board_columns")):
                labels = _labels(game, name)
                if labels:
                    self.graph.graph[key] = labels

    def _new_id(self) -> int:
        node = self._ids
        self._ids += 1
        return node

    def enter(self, state: Any, height: int, alpha: float | None, beta: float | None) -> None:
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
                    try:
                        r, c = self._move_cell(parent_state, self._move)
                        attrs["last"] = f"{int(r)},{int(c)}"
                    except Exception:  # optional member that does not fit
                        pass
        self.graph.add_node(node, **attrs)
        if self._stack:
            self.graph.add_edge(parent, node, move=move_text, order=self._order, pruned=False, reason=None, pv=False)
        self._stack.append((node, state, path))

    def child(self, move: Any) -> None:
        node = self._stack[-1][0]
        self._move = move
        self._order = self.graph.out_degree(node)

    def prune(self, moves: Sequence[Any], reason: str) -> None:
        parent, state, path = self._stack[-1]
        data = self.graph.nodes[parent]
        data["cutoff"] = reason
        order = self.graph.out_degree(parent)
        for move in moves:
            text = self.game.format_move(state, move)
            node = self._new_id()
            self.graph.add_node(
                node, pruned=True, depth=data["depth"] + 1, move=text, moves=f"{path} {text}".strip(), reason=reason, pv=False
            )
            self.graph.add_edge(parent, node, move=text, order=order, pruned=True, reason=reason, pv=False)
            order += 1

    def leave(
        self,
        value: float,
        kind: str,
        bound: str = "exact",
        *,
        window: tuple[float, float] | None = None,
        cache: str | None = None,
        winner: int | None = None,
    ) -> None:
        node, _state, _path = self._stack.pop()
        data = self.graph.nodes[node]
        data.update(value=value, kind=kind, bound=bound, cache=cache, winner=winner)
        if kind == "terminal":
            names = self.game.info.player_names
            data["outcome"] = "draw" if winner is None else f"{names[winner] if winner < len(names) else winner} wins"
        if window is not None:
            data["search_alpha"], data["search_beta"] = window
        else:
            data["search_alpha"], data["search_beta"] = data["alpha"], data["beta"]


def _labels(game: Game[Any, Any], name: str) -> tuple[str, ...]:
    """An optional board-label member (a property or a method with no arguments)."""
    try:
        labels = getattr(game, name, None)
        if callable(labels):
            labels = labels()
        return tuple(str(x) for x in labels) if labels else ()
    except Exception:
        return ()


def _board_cells_function(game: Game[Any, Any]) -> Callable[[Any], dict[str, Any]] | None:
    """If the game draws its board as cells (optional ``board_cells``), a function
    giving the node attributes ``cells`` (rows of strings) and ``highlight``
    (``"row,col"`` cells of a winning line, if the game says)."""
    cells_of = getattr(game, "board_cells", None)
    if not callable(cells_of):
        return None
    winning = getattr(game, "winning_cells", None)

    def attributes(state: Any) -> dict[str, Any]:
        try:
            rows = [[str(cell) for cell in row] for row in cells_of(state)]
        except Exception:  # an optional member that does not fit: fall back to render()
            return {}
        out: dict[str, Any] = {"cells": "\n".join("\t".join(row) for row in rows)}
        if callable(winning):
            try:
                out["highlight"] = " ".join(f"{r},{c}" for r, c in winning(state) or ())
            except Exception:
                pass
        return out

    return attributes


# -- the tree ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class SearchTree:
    """A search result and the tree the search explored.

    ``graph`` is a ``networkx.DiGraph`` (node 0 is the root).  In Jupyter the
    tree displays itself as an SVG diagram.
    """

    result: SearchResult
    graph: nx.DiGraph[int]
    root: int = 0
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def visited(self) -> int:
        """Nodes the search visited (the search's ``stats.nodes``)."""
        return sum(1 for _, pruned in self.graph.nodes(data="pruned") if not pruned)

    def pruned_edges(self) -> list[tuple[int, int]]:
        """Edges to the moves a cutoff left untried."""
        return [(u, v) for u, v, pruned in self.graph.edges(data="pruned") if pruned]

    def pv_nodes(self) -> list[int]:
        """The root and the nodes along the principal variation, as far as the tree goes."""
        nodes = [self.root]
        while True:
            nxt = [v for _, v, pv in self.graph.out_edges(nodes[-1], data="pv") if pv]
            if not nxt:
                return nodes
            nodes.append(nxt[0])

    def pv_moves(self) -> list[str]:
        """The moves of the principal variation marked on the graph."""
        nodes = self.pv_nodes()
        return [self.graph.edges[u, v]["move"] for u, v in zip(nodes, nodes[1:])]

    def to_graphviz(self, **options: Any) -> graphviz.Digraph:
        """The diagram as a ``graphviz.Digraph`` (see :func:`gametree.tree.draw.to_graphviz`)."""
        from .draw import to_graphviz

        return to_graphviz(self, **options)

    def to_dot(self, **options: Any) -> str:
        """Graphviz source text; needs no Graphviz program."""
        return str(self.to_graphviz(**options).source)

    def render(self, format: str = "svg", **options: Any) -> bytes:
        """The diagram drawn by a ``dot`` program (see :func:`gametree.tree.draw.render`)."""
        from .draw import render

        return render(self.to_dot(**options), format)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from .draw import GraphvizMissingError

        text = f"<SearchTree: {self.result.algorithm}, {self.visited} nodes, value {self.result.value}>"
        try:
            svg = self.render("svg").decode("utf-8")
        except GraphvizMissingError as exc:
            return {"text/plain": f"{text}\n{exc}"}
        return {"image/svg+xml": svg, "text/plain": text}

    def __repr__(self) -> str:
        r = self.result
        return f"SearchTree(algorithm={r.algorithm!r}, nodes={self.visited}, value={r.value!r}, score={r.score!r}, pv={' '.join(r.pv)!r})"


def _mark_pv(graph: nx.DiGraph[int], root: int, pv: Sequence[str]) -> int:
    """Flag the nodes and edges of the principal variation; return how many moves were marked."""
    graph.nodes[root]["pv"] = True
    node = root
    for count, move in enumerate(pv):
        nxt = [v for _, v, d in graph.out_edges(node, data=True) if d["move"] == move and not d["pruned"]]
        if not nxt:
            return count
        graph.edges[node, nxt[0]]["pv"] = True
        graph.nodes[nxt[0]]["pv"] = True
        node = nxt[0]
    return len(pv)


def capture(
    game: Game[Any, Any],
    state: Any = None,
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
    _check_algorithm(algorithm)
    state = _start(game, state)
    table = table_of(cache) if algorithm != "minimax" else None
    base = (table.probes, table.hits, table.stores) if table is not None else (0, 0, 0)
    recorder = TreeRecorder(game, max_nodes=max_nodes, positions=positions)
    counters = _Counters()
    engine = TracedEngine(
        game, observer=observer or recorder, limit=depth, table=table, symmetry=symmetry and algorithm != "minimax", counters=counters
    )
    start = time.perf_counter()
    root = _drive(engine, state, algorithm, all_moves, symmetry, observer or recorder)
    stats = _freeze(counters, table, time.perf_counter() - start, base)
    if algorithm == "minimax":
        pv_engine = _Engine(game, limit=depth, table=TranspositionTable(), symmetry=True, counters=_Counters())
    else:
        pv_table = table if table is not None else TranspositionTable()
        pv_engine = _Engine(game, limit=depth, table=pv_table, symmetry=symmetry, counters=_Counters())
    result = _result(algorithm, game, state, root, pv_engine, depth, stats, counters.heuristic > 0, True)
    graph = recorder.graph
    graph.graph.update(
        algorithm=algorithm,
        game=str(getattr(game, "name", type(game).__name__)),
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
        graph.graph["pv_marked"] = _mark_pv(graph, 0, result.pv)
    return SearchTree(result, graph, 0, {"algorithm": algorithm, "depth": depth, "all_moves": all_moves})
