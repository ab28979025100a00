"""Monte Carlo tree search with a payoff for each player: chance nodes, more players, margins.

:func:`gametree.search.montecarlo.mcts` hands a game here when it has chance
nodes, more than two players, payoffs that are not zero-sum, or a margin (the
solver part of plain MCTS proves depth-aware win/draw/loss scores, which
these games do not have).  Every node sums, for each player, the payoffs of
the playouts through it (:func:`gametree.game.payoffs`), so a player's node
is chosen by the UCT rule on *its mover's* mean payoff (the max^n view: each
player maximises their own payoff); a chance node is not chosen but sampled,
each outcome with its probability, and so are the chance moves of a playout.
Payoffs are scaled into [-1, 1] by the game's ``payoff_bounds`` (else by the
largest payoff seen) for the exploration term.

The result's scores are mean payoffs (for the side that plays each move, the
first player's at a chance node), never proven; ``payoffs`` gives each
player's mean payoff after the best move in a game of more than two players.
The principal variation follows the most visited moves and stops at the first
chance node.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from ..game import CHANCE, Game, GameKind, Move, Probability, State, UnsupportedGameError, capabilities, payoffs
from .chance import roll
from .mcts_run import TreeRun, child_for, line_text
from .progress import SolveProgress
from .results import MoveValue, SearchResult

__all__ = ["VECTOR_KINDS", "VectorNode", "VectorRun", "best_child", "grow_vector_tree", "vector_result"]

#: The kinds of game this search handles beyond the plain one.
VECTOR_KINDS = frozenset({GameKind.CHANCE, GameKind.PLAYERS, GameKind.GENERAL_SUM, GameKind.MARGIN})


class VectorNode:
    """One position in the tree: ``totals[p]`` sums player ``p``'s payoffs over the ``visits``
    playouts through it; ``mover`` is the player to move (:data:`~gametree.game.CHANCE` at a
    chance node, None at the end of the game)."""

    __slots__ = ("state", "move", "mover", "children", "untried", "visits", "totals", "final")

    def __init__(self, state: State, move: Move, mover: int | None, players: int) -> None:
        self.state = state
        self.move = move
        self.mover = mover
        self.children: list[VectorNode] = []
        self.untried: list[Move] = []
        self.visits = 0
        self.totals = [0.0] * players
        #: The payoffs at the end of the game (a terminal node), else None.
        self.final: tuple[float, ...] | None = None

    def mean(self, player: int) -> float | None:
        """Player ``player``'s mean payoff through this node (None before any visit)."""
        return self.totals[player] / self.visits if self.visits else None

    def __repr__(self) -> str:
        return f"VectorNode(move={self.move!r}, mover={self.mover}, visits={self.visits}, totals={self.totals})"


#: The tree one search grew and what it counted.
VectorRun: TypeAlias = TreeRun[VectorNode]


class _Grower:
    """The game bound once, the generator, the counters; :meth:`iterate` is one playout."""

    def __init__(self, game: Game[Any, Any], exploration: float, rng: random.Random, depth: int | None) -> None:
        caps = capabilities(game)
        self.game = game
        self.players = game.info.players
        self.c = exploration
        self.rng = rng
        self.depth = depth
        heuristic = caps.heuristic
        if depth is not None and (heuristic is None or self.players != 2):
            raise UnsupportedGameError(
                "playouts cut at a depth need the game's evaluate() heuristic for two players, which this game lacks"
            )
        self.evaluate: Callable[[Any], float] | None = heuristic.evaluate if heuristic is not None else None
        bounds = game.info.payoff_bounds
        self.scale = max(abs(float(bounds[0])), abs(float(bounds[1])), 1e-12) if bounds is not None else 1.0
        self.nodes = self.terminals = self.heuristic = 0
        self.per_depth = [0] * 64

    def sample(self, state: State) -> Any:
        """A chance outcome drawn by its probability."""
        return roll(self.game, state, self.rng)

    def node(self, state: State, move: Move, height: int) -> VectorNode:
        game = self.game
        self.nodes += 1
        if height >= len(self.per_depth):
            self.per_depth.extend([0] * 64)
        self.per_depth[height] += 1
        out = game.outcome(state)
        if out is not None:
            node = VectorNode(state, move, None, self.players)
            node.final = tuple(float(v) for v in payoffs(game, out))
            return node
        mover = game.to_move(state)
        node = VectorNode(state, move, mover, self.players)
        if mover != CHANCE:
            node.untried = list(reversed(game.legal_moves(state)))  # popped from the end: best first
        return node

    def select(self, node: VectorNode) -> VectorNode:
        """The UCT child for the mover: its mean payoff (scaled) plus the exploration bonus."""
        log_n = math.log(node.visits)
        mover, c, scale = node.mover, self.c, self.scale
        assert mover is not None and mover >= 0
        return max(
            node.children,
            key=lambda ch: ch.totals[mover] / (ch.visits * scale) + c * math.sqrt(log_n / ch.visits),
        )

    def playout(self, state: State) -> tuple[float, ...]:
        """A random game from ``state`` (chance's moves drawn by their probabilities): the payoffs."""
        game = self.game
        steps = self.depth if self.depth is not None else -1
        while True:
            out = game.outcome(state)
            if out is not None:
                self.terminals += 1
                return tuple(float(v) for v in payoffs(game, out))
            mover = game.to_move(state)
            if mover == CHANCE:
                state = game.play(state, self.sample(state))
                continue
            if steps == 0:
                assert self.evaluate is not None
                self.heuristic += 1
                guess = max(-1.0, min(1.0, float(self.evaluate(state)))) * self.scale
                return (guess, -guess) if mover == 0 else (-guess, guess)
            moves = game.legal_moves(state)
            state = game.play(state, moves[int(self.rng.random() * len(moves))])
            steps -= 1

    def iterate(self, root: VectorNode) -> None:
        node, path, height = root, [root], 0
        while node.final is None:
            if node.mover == CHANCE:
                move = self.sample(node.state)
                child = next((ch for ch in node.children if ch.move == move), None)
                if child is None:
                    child = self.node(self.game.play(node.state, move), move, height + 1)
                    node.children.append(child)
                    path.append(child)
                    break
            elif node.untried:
                move = node.untried.pop()
                child = self.node(self.game.play(node.state, move), move, height + 1)
                node.children.append(child)
                path.append(child)
                break
            else:
                child = self.select(node)
            node, height = child, height + 1
            path.append(node)
        leaf = path[-1]
        reward = leaf.final if leaf.final is not None else self.playout(leaf.state)
        if leaf.final is not None:
            self.terminals += 1
        for n in path:
            n.visits += 1
            totals = n.totals
            for p, r in enumerate(reward):
                totals[p] += r


def grow_vector_tree(
    game: Game[Any, Any],
    state: State,
    *,
    iterations: int | None,
    time_limit: float | None,
    exploration: float,
    rng: random.Random,
    depth: int | None = None,
    progress: SolveProgress | None = None,
) -> VectorRun:
    """Grow the tree from ``state`` (a checked position that is not over) for ``iterations``
    iterations or ``time_limit`` seconds, whichever comes first (one of them is given)."""
    grower = _Grower(game, exploration, rng, depth)
    if progress is not None:
        progress.engine, progress.phase = "python", "playouts"
        progress.count = lambda: grower.nodes
    started = time.perf_counter()
    deadline = started + time_limit if time_limit is not None else math.inf
    budget = iterations if iterations is not None else -1
    root = grower.node(state, None, 0)
    done = 0
    while done != budget:
        grower.iterate(root)
        done += 1
        if deadline != math.inf and time.perf_counter() >= deadline:
            break
    seconds = time.perf_counter() - started
    return VectorRun(root, done, grower.nodes, grower.terminals, grower.heuristic, seconds, grower.per_depth)


def best_child(node: VectorNode) -> VectorNode | None:
    """The most visited child of a player's node (its mover's mean payoff breaks ties), or None."""
    if not node.children or node.mover is None or node.mover < 0:
        return None
    mover = node.mover
    return max(node.children, key=lambda ch: (ch.visits, ch.totals[mover] / ch.visits if ch.visits else -math.inf))


def vector_result(game: Game[Any, Any], run: VectorRun, depth: int | None = None) -> SearchResult:
    """The :class:`SearchResult` of a run: each root move's (or chance outcome's) visits and mean payoff."""
    root = run.root
    state, fmt = root.state, game.format_move
    mover = root.mover
    assert mover is not None, "a run starts from a position that is not over"
    me = 0 if mover == CHANCE else mover  # whose payoffs the scores are
    best = best_child(root)
    moves = [m for m, _ in _outcomes(game, state)] if mover == CHANCE else list(game.legal_moves(state))
    many = game.info.players > 2
    values = []
    for move in moves:
        child = child_for(root.children, move)
        mean = child.mean(me) if child is not None else None
        values.append(
            MoveValue(
                fmt(state, move),
                mean if mean is not None else 0.0,
                None,
                child is best and best is not None,
                visits=child.visits if child is not None else 0,
                mean=mean,
                game_move=move,
                payoffs=_means(child) if many and child is not None and child.visits else None,
            )
        )
    line: list[VectorNode] = []
    node = best
    while node is not None:
        line.append(node)
        node = best_child(node)
    overall = best if best is not None else root
    score = overall.mean(me) or 0.0
    return SearchResult(
        "mcts",
        mover,
        "unknown",
        None,
        score,
        False,
        None,
        (fmt(state, best.move),) if best is not None else (),
        tuple(values),
        line_text(game, state, line),
        depth,
        run.stats(),
        payoffs=_means(overall) if many else None,
    )


def _outcomes(game: Game[Any, Any], state: State) -> Sequence[tuple[Any, Probability]]:
    stochastic = capabilities(game).stochastic
    if stochastic is None:
        raise UnsupportedGameError("the game has a chance node but no chance_outcomes()")
    return stochastic.chance_outcomes(state)


def _means(node: VectorNode) -> tuple[float, ...]:
    return tuple(total / node.visits for total in node.totals)
