"""Monte Carlo tree search (UCT) for any game, with proven-value bounds.

Each iteration walks down the tree by the UCT rule (mean reward plus an
exploration bonus ``c * sqrt(ln N / n)``), adds one new node, scores it by a
random playout (or, with ``depth``, a playout of at most ``depth`` random
moves ended by the game's ``evaluate``) and backs the reward up the path.
Rewards are +1 for a win, -1 for a loss and 0 for a draw, from the point of
view of the side to move; heuristic rewards lie strictly between -1 and 1.

**Solver part** (score-bounded MCTS).  Every node also keeps a lower and an
upper bound on its exact depth-aware score (the core's convention, see
:mod:`gametree.search`).  A game end fixes both bounds; they flow up with the
negamax rule (a node is at least the best of its children's guaranteed
values, at most the best of what they could still be).  The descent never
enters a child that cannot beat what its parent already has, so a proven
result is never searched again, and the final choice never plays a move
proven to lose while another move is not.  When the root's bounds meet, its
exact score is proven and the search stops early.

The result is the core's :class:`gametree.search.SearchResult`: the most
visited root move is the best move (a proven win beats it, a proven loss is
never chosen), the principal variation follows the most visited moves, and
every root move has its ``visits`` and ``mean`` reward.  ``proven`` is True
only when the bounds proved the root's exact score.

>>> from gametree import load, play_text
>>> game = load().game("tictactoe").create(size=3)
>>> result = mcts(game, play_text(game, "A1 B1 A2 B2"), iterations=200, seed=1)
>>> result.best_moves, result.value, result.score
(('A3',), 'win', 3)
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from ..game import CHANCE, Game, GameKind, M, Move, S, State, UnsupportedGameError, capabilities, game_kinds, win_score
from .chance import roll
from .engine import INF, clamp
from .mcts_run import TreeRun, child_for, line_text
from .mcts_vector import VECTOR_KINDS, best_child, grow_vector_tree, vector_result
from .progress import SolveProgress
from .results import MoveValue, SearchResult, assemble, check_game, position, start

__all__ = [
    "MCTS_KINDS",
    "DEFAULT_EXPLORATION",
    "DEFAULT_ITERATIONS",
    "MCTSNode",
    "MCTSPlayer",
    "MCTSRun",
    "choose",
    "Playouts",
    "grow_tree",
    "mcts",
]

#: The exploration constant ``c`` of UCT (rewards are in [-1, 1]).
DEFAULT_EXPLORATION = 1.0
#: Iterations when neither ``iterations`` nor ``time_limit`` is given.
DEFAULT_ITERATIONS = 10_000
#: Mean rewards reported as scores stay strictly inside (-1, 1), like heuristic values.

#: The kinds of game MCTS searches beyond the plain one: those with chance nodes, more players, payoffs
#: that are not zero-sum or a margin go to :mod:`gametree.search.mcts_vector` (a payoff for each player).
MCTS_KINDS: frozenset[GameKind] = VECTOR_KINDS


def _by_vectors(game: Game[Any, Any]) -> bool:
    """Whether ``game`` is searched with a payoff for each player (refusing a kind MCTS cannot search)."""
    check_game(game, "mcts", MCTS_KINDS)
    return bool(game_kinds(game.info))


class MCTSNode:
    """One position in the search tree.

    ``total`` sums the rewards from the point of view of the player who made
    ``move`` (the parent's side to move), so a parent prefers children with a
    high ``total / visits``.  ``lo`` and ``hi`` bound the node's exact score
    for its own side to move; they are equal once it is proven.
    """

    __slots__ = ("state", "move", "ply", "height", "children", "untried", "visits", "total", "lo", "hi")

    def __init__(self, state: State, move: Move, ply: int, height: int) -> None:
        self.state = state
        self.move = move
        self.ply = ply
        self.height = height
        self.children: list[MCTSNode] = []
        self.untried: list[Move] = []
        self.visits = 0
        self.total = 0.0
        self.lo = -INF
        self.hi = INF

    @property
    def proven(self) -> bool:
        return self.lo == self.hi

    @property
    def mean(self) -> float | None:
        """Mean reward for the player who made ``move`` (None before any visit)."""
        return self.total / self.visits if self.visits else None

    def __repr__(self) -> str:
        return f"MCTSNode(move={self.move!r}, visits={self.visits}, mean={self.mean}, bounds=[{self.lo}, {self.hi}])"


#: The tree one search grew and what it counted (see :func:`grow_tree`).
MCTSRun: TypeAlias = TreeRun[MCTSNode]


class _Search:
    """The game's functions bound once, the generator, counters, the tree."""

    def __init__(
        self, game: Game[Any, Any], *, exploration: float, rng: random.Random, depth: int | None, decisive: bool
    ) -> None:
        self.game = game
        caps = capabilities(game)
        threats = caps.threats if decisive else None
        self.win_now: Callable[[Any], bool] | None = threats.immediate_win if threats is not None else None
        self.safe: Callable[[Any], Sequence[Any]] | None = threats.safe_moves if threats is not None else None
        self.C = game.info.max_plies
        self.c = exploration
        self.rng = rng
        self.depth = depth
        evaluate = caps.heuristic.evaluate if caps.heuristic is not None else None
        if depth is not None and evaluate is None:
            raise UnsupportedGameError(
                "playouts cut at a depth need the game's evaluate() heuristic, which this game lacks"
            )
        self.evaluate: Callable[[Any], float] | None = evaluate
        self.nodes = self.terminals = self.heuristic = 0
        self.per_depth = [0] * 64

    def node(self, state: State, move: Move, height: int) -> MCTSNode:
        game = self.game
        ply = game.ply(state)
        node = MCTSNode(state, move, ply, height)
        self.nodes += 1
        if height >= len(self.per_depth):
            self.per_depth.extend([0] * 64)
        self.per_depth[height] += 1
        out = game.outcome(state)
        C = self.C
        if out is not None:
            if out.winner is None:
                node.lo = node.hi = 0
            else:
                magnitude = win_score(C, ply - 1)
                node.lo = node.hi = magnitude if out.winner == game.to_move(state) else -magnitude
            return node
        moves = None
        if self.win_now is not None and height > 0:  # the root keeps every move, to report them all
            if self.win_now(state):
                node.lo = node.hi = win_score(C, ply)  # the best score there is: proven at once
                return node
            moves = self.safe(state)  # type: ignore[misc]
            if not moves:
                node.lo = node.hi = -win_score(C, ply + 1)  # every move lets the opponent win next move
                return node
        if moves is None:
            moves = game.legal_moves(state)
        node.untried = list(reversed(moves))  # popped from the end: best first
        node.lo = -win_score(C, ply + 1)  # lose to the opponent's next move
        node.hi = win_score(C, ply)  # win with this move
        return node

    def bounds(self, node: MCTSNode) -> bool:
        """Recompute ``node``'s bounds from its children; True if they changed."""
        lo = hi = -INF
        for child in node.children:
            if -child.hi > lo:
                lo = -child.hi
            if -child.lo > hi:
                hi = -child.lo
        if node.untried:  # unexpanded moves could still be anything
            ply = node.ply
            lo = max(lo, -win_score(self.C, ply + 1))
            hi = max(hi, win_score(self.C, ply))
        if lo == node.lo and hi == node.hi:
            return False
        node.lo, node.hi = lo, hi
        return True

    def select(self, node: MCTSNode) -> MCTSNode | None:
        """The UCT child among those that could still beat what ``node`` is guaranteed."""
        log_n = math.log(node.visits)
        c = self.c
        floor = node.lo
        best = None
        best_u = -INF
        for child in node.children:
            if -child.lo <= floor:  # proven no better than what we already have
                continue
            n = child.visits
            u = child.total / n + c * math.sqrt(log_n / n)
            if u > best_u:
                best_u, best = u, child
        return best

    def playout(self, state: State) -> float:
        """A random game from ``state``: the reward for the side to move there."""
        game = self.game
        rng = self.rng
        legal, play, outcome, to_move = game.legal_moves, game.play, game.outcome, game.to_move
        win_now, safe = self.win_now, self.safe
        me = to_move(state)
        steps = self.depth if self.depth is not None else -1
        while True:
            out = outcome(state)
            if out is not None:
                self.terminals += 1
                if out.winner is None:
                    return 0.0
                return 1.0 if out.winner == me else -1.0
            if win_now is not None:
                # Decisive moves: a side that can win now does; one that cannot stop the opponent loses.
                if win_now(state):
                    return 1.0 if to_move(state) == me else -1.0
                moves = safe(state)  # type: ignore[misc]
                if not moves:
                    return -1.0 if to_move(state) == me else 1.0
            if steps == 0:
                self.heuristic += 1
                value = float(self.evaluate(state))  # type: ignore[misc]
                value = clamp(value)
                return value if to_move(state) == me else -value
            if win_now is None:
                moves = legal(state)
            state = play(state, moves[int(rng.random() * len(moves))])
            steps -= 1

    def iterate(self, root: MCTSNode) -> None:
        node = root
        path = [root]
        # Selection: down through fully expanded nodes that are not proven.
        while not node.untried and node.children and node.lo != node.hi:
            child = self.select(node)
            if child is None:  # pragma: no cover - cannot happen while the bounds are kept
                break
            node = child
            path.append(node)
        # Expansion and evaluation.
        if node.lo == node.hi:  # pragma: no cover - a proven node is never selected
            reward = 1.0 if node.lo > 0 else -1.0 if node.lo < 0 else 0.0
        else:
            move = node.untried.pop()
            child = self.node(self.game.play(node.state, move), move, node.height + 1)
            node.children.append(child)
            path.append(child)
            if child.lo == child.hi:
                self.terminals += 1
                reward = 1.0 if child.lo > 0 else -1.0 if child.lo < 0 else 0.0
            else:
                reward = self.playout(child.state)
        # Backpropagation: rewards alternate sign; bounds move up while they change.
        changed = True
        for i in range(len(path) - 1, -1, -1):
            n = path[i]
            n.visits += 1
            n.total -= reward  # for the player who moved into n
            reward = -reward
            if changed and i < len(path) - 1:
                changed = self.bounds(n)


@dataclass(frozen=True, slots=True, kw_only=True)
class Playouts:
    """How a Monte Carlo search grows its tree, checked when made.

    It stops after ``iterations`` iterations or ``time_limit`` seconds, whichever
    comes first (:data:`DEFAULT_ITERATIONS` when neither is given), or as soon as
    the root's exact score is proven.  ``exploration``: UCT's constant (default
    :data:`DEFAULT_EXPLORATION`); ``seed`` (an int or a ``random.Random``) makes a
    run with an iteration budget repeatable; ``depth``: playouts cut after this
    many random moves and scored by the game's heuristic; ``decisive``: a playout
    takes a move that wins at once when there is one.
    """

    iterations: int | None = None
    time_limit: float | None = None
    exploration: float | None = None
    seed: int | random.Random | None = None
    depth: int | None = None
    decisive: bool = True

    def __post_init__(self) -> None:
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"iterations must be at least 1, not {self.iterations}")
        if self.time_limit is not None and not self.time_limit > 0:
            raise ValueError(f"the time limit must be positive, not {self.time_limit}")
        if self.exploration is not None and not self.exploration >= 0:
            raise ValueError(f"the exploration constant must be >= 0, not {self.exploration}")


def grow_tree(
    game: Game[S, M],
    state: S | None = None,
    playouts: Playouts = Playouts(),
    *,
    moves: str | None = None,
    progress: SolveProgress | None = None,
) -> MCTSRun:
    """Grow a search tree from ``state`` as ``playouts`` says; the tree itself, for players and
    drawings.  ``moves`` and ``progress`` are :func:`mcts`'s."""
    iterations, time_limit, seed = playouts.iterations, playouts.time_limit, playouts.seed
    c = DEFAULT_EXPLORATION if playouts.exploration is None else playouts.exploration
    state = start(game, position(game, state, moves))
    if iterations is None and time_limit is None:
        iterations = DEFAULT_ITERATIONS
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    search = _Search(game, exploration=c, rng=rng, depth=playouts.depth, decisive=playouts.decisive)
    if progress is not None:  # (the node count is read live, as the playouts go on)
        progress.engine, progress.phase = "python", "playouts"
        progress.count = lambda: search.nodes
    started = time.perf_counter()
    deadline = started + time_limit if time_limit is not None else INF
    budget = iterations if iterations is not None else -1
    root = search.node(state, None, 0)
    done = 0
    iterate = search.iterate
    clock = time.perf_counter
    while done != budget and root.lo != root.hi:
        iterate(root)
        done += 1
        if deadline != INF and clock() >= deadline:
            break
    seconds = time.perf_counter() - started
    return MCTSRun(root, done, search.nodes, search.terminals, search.heuristic, seconds, search.per_depth)


def choose(node: MCTSNode) -> MCTSNode | None:
    """The child to play: most visits, but a proven best win first and never a
    proven loss (nor a move proven worse than another) while there is a choice."""
    children = node.children
    if not children:
        return None
    sure = max(-ch.hi for ch in children)  # the best score some move guarantees
    if sure > 0:  # a proven win: play the best proven one
        return max((ch for ch in children if -ch.hi == sure), key=lambda ch: ch.visits)
    candidates = [ch for ch in children if -ch.lo >= sure]  # not proven worse than another move
    hopeful = [ch for ch in candidates if -ch.lo >= 0]  # not proven to lose
    if hopeful:
        candidates = hopeful
    else:  # every move loses: lose as slowly as possible
        slowest = max(-ch.lo for ch in candidates)
        candidates = [ch for ch in candidates if -ch.lo == slowest]
    return max(candidates, key=lambda ch: (ch.visits, ch.total / ch.visits if ch.visits else -INF))


def principal_variation(root: MCTSNode) -> list[MCTSNode]:
    """The nodes chosen by :func:`choose` from the root down, as far as the tree goes."""
    line = []
    node: MCTSNode | None = choose(root)
    while node is not None:
        line.append(node)
        node = choose(node)
    return line


def _plies_to_end(C: int, ply: int, score: float) -> int | None:
    """How many moves a proven win or loss takes from a position at ``ply``, from its score."""
    if not isinstance(score, int) or score == 0:
        return None
    # The game-ending move comes after n moves, (C + 1 - n) // 2 == |score|, n of the winner's parity.
    winner_parity = ply & 1 if score > 0 else (ply + 1) & 1
    for n in (C + 1 - 2 * abs(score), C - 2 * abs(score)):
        if n >= ply and n & 1 == winner_parity:
            return n - ply + 1
    return None


def _child_score(child: MCTSNode) -> float:
    """A root move's score for the side playing it: exact when proven, else its mean reward."""
    if child.lo == child.hi:
        return -child.lo
    return clamp(child.total / child.visits) if child.visits else 0.0


def result_of(game: Game[Any, Any], outcome: MCTSRun, depth: int | None = None) -> SearchResult:
    """The :class:`SearchResult` of a run: move values with visits and means, the PV by visits."""
    root = outcome.root
    state = root.state
    fmt = game.format_move
    C = game.info.max_plies
    best = choose(root)
    assert best is not None, "a run adds at least one node"
    values = []
    for move in game.legal_moves(state):
        child = child_for(root.children, move)
        if child is None:  # never expanded
            values.append(MoveValue(fmt(state, move), 0.0, None, False, 0, None, game_move=move))
            continue
        move_score = _child_score(child)
        values.append(
            MoveValue(
                move=fmt(state, move),
                score=move_score,
                plies_to_end=_plies_to_end(C, root.ply, move_score) if child.lo == child.hi else None,
                best=child is best,
                visits=child.visits,
                mean=child.total / child.visits if child.visits else None,
                game_move=move,
            )
        )
    pv_nodes = principal_variation(root)
    proven = root.lo == root.hi
    if proven:
        score: float = root.lo
        plies = _plies_to_end(C, root.ply, score)
        if plies is None and pv_nodes and game.outcome(pv_nodes[-1].state) is not None:
            plies = len(pv_nodes)
    else:
        score = _child_score(best)
        if best.lo == best.hi:  # a proven move, but the root's other moves are not all settled
            score = clamp(score)
        plies = None
    best_moves = (fmt(state, best.move),)
    pv = line_text(game, state, pv_nodes)
    return assemble("mcts", game, state, score, proven, plies, best_moves, tuple(values), pv, depth, outcome.stats())


def mcts(
    game: Game[S, M],
    state: S | None = None,
    *,
    moves: str | None = None,
    iterations: int | None = None,
    time_limit: float | None = None,
    exploration: float | None = None,
    seed: int | random.Random | None = None,
    depth: int | None = None,
    all_moves: bool = True,
    pv: bool = True,
    progress: SolveProgress | None = None,
) -> SearchResult:
    """Monte Carlo tree search (UCT) with proven-value bounds.

    The work stops after ``iterations`` or ``time_limit``, whichever comes
    first, or as soon as the root's exact score is proven.

    Args:
        game: The game.
        state: The position to search (default: the start).
        moves: Instead of ``state``, the moves from the start, such as ``"B2 A1"``.
        iterations: Iterations to run (default :data:`DEFAULT_ITERATIONS`
            unless ``time_limit`` is given).
        time_limit: Seconds to search for.
        exploration: UCT's exploration constant ``c`` (default
            :data:`DEFAULT_EXPLORATION`).
        seed: An int or a ``random.Random``: makes the random playouts repeatable.
        depth: Cut playouts after this many random moves and score the
            position with the game's ``evaluate`` (0: no playout at all).
        all_moves: Accepted for compatibility: every root move is always reported.
        pv: Accepted for compatibility: the principal variation costs nothing.
        progress: Filled as the search goes, for a live display (nodes:
            :class:`gametree.search.progress.SolveProgress`).

    Raises:
        TypeError: ``game``, ``state`` or ``moves`` is of the wrong type.
        ValueError: ``iterations``, ``time_limit`` or ``exploration`` is out of range.
    """
    state = position(game, state, moves)
    if _by_vectors(game):
        return _mcts_vectors(game, state, Playouts(
            iterations=iterations, time_limit=time_limit, exploration=exploration, seed=seed, depth=depth
        ), progress)  # fmt: skip
    state = start(game, state)
    playouts = Playouts(iterations=iterations, time_limit=time_limit, exploration=exploration, seed=seed, depth=depth)
    searched = grow_tree(game, state, playouts, progress=progress)
    if progress is not None:
        progress.phase = "done"
    return result_of(game, searched, depth)


def _mcts_vectors(
    game: Game[S, M], state: S, playouts: Playouts, progress: SolveProgress | None = None
) -> SearchResult:
    """:func:`mcts` of a game with chance, more players or a margin (:mod:`gametree.search.mcts_vector`)."""
    state = start(game, state, checked=True)
    iterations = playouts.iterations
    if iterations is None and playouts.time_limit is None:
        iterations = DEFAULT_ITERATIONS
    seed = playouts.seed
    run = grow_vector_tree(
        game,
        state,
        iterations=iterations,
        time_limit=playouts.time_limit,
        exploration=DEFAULT_EXPLORATION if playouts.exploration is None else playouts.exploration,
        rng=seed if isinstance(seed, random.Random) else random.Random(seed),
        depth=playouts.depth,
        progress=progress,
    )
    if progress is not None:
        progress.phase = "done"
    return vector_result(game, run, playouts.depth)


class MCTSPlayer:
    """A ``gametree play`` player: Monte Carlo tree search for ``seconds`` a move.

    ``seconds`` defaults to ``$GAMETREE_MCTS_SECONDS`` (unset or empty: 1); a value that is
    not a finite number above 0 is a one-line :class:`ValueError`.  Playouts are
    cut at once by the game's ``evaluate`` heuristic when it has one (a new
    node is scored by the heuristic, which is the strongest setting at a second a move on
    Connect Four), else they are random games played to the end.  The
    search is seeded from the game loop's generator.
    """

    human = False

    def __init__(
        self,
        seconds: float | None = None,
        *,
        iterations: int | None = None,
        depth: int | None | str = "auto",
        exploration: float | None = None,
    ) -> None:
        if seconds is None and iterations is None:
            import os

            text = os.environ.get("GAMETREE_MCTS_SECONDS", "").strip() or "1"
            try:
                seconds = float(text)
            except ValueError:
                seconds = math.nan
            if not (math.isfinite(seconds) and seconds > 0):
                shown = text if len(text) <= 60 else text[:57] + "..."
                raise ValueError(
                    f"GAMETREE_MCTS_SECONDS={shown!r}: expected the seconds per move, a number above 0 (e.g. 0.5)"
                )
        self.seconds = seconds
        self.iterations = iterations
        self.depth = depth
        self.exploration = exploration

    def choose(self, game: Game[S, M], state: S, rng: random.Random) -> Any:
        if game.to_move(state) == CHANCE:  # (asked where chance moves: roll the die)
            return roll(game, state, rng)
        if _by_vectors(game):  # chance, more players, margins: the payoff of each player
            run = grow_vector_tree(
                game,
                state,
                iterations=self.iterations,
                time_limit=self.seconds,
                exploration=DEFAULT_EXPLORATION if self.exploration is None else self.exploration,
                rng=random.Random(rng.getrandbits(64)),
                depth=None if isinstance(self.depth, str) else self.depth,  # (auto: random playouts to the end)
            )
            picked = best_child(run.root)
            assert picked is not None, "a run adds at least one node"
            return picked.move
        depth = self.depth
        if depth == "auto":
            depth = 0 if capabilities(game).heuristic is not None else None
        settings = Playouts(
            iterations=self.iterations,
            time_limit=self.seconds,
            exploration=self.exploration,
            seed=rng.getrandbits(64),
            depth=depth,  # type: ignore[arg-type]
        )
        tree = grow_tree(game, state, settings)
        best = choose(tree.root)
        assert best is not None, "a run adds at least one node"
        return best.move
