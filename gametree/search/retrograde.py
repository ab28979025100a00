"""Retrograde analysis: the exact value of a two-player win/draw/loss game whose positions may repeat.

A depth-first search need not end on a game whose positions come back (Dodgem's
cars can shuffle sideways for ever).  Retrograde analysis works the other way:

1. enumerate every position reachable from the searched one (each once, by
   :meth:`Game.key`), at most ``max_positions`` of them, with its children;
2. build each position's list of predecessors;
3. resolve from the finished positions backwards, in order of distance: a
   position is a **win** as soon as one child is lost for its side to move
   there (the opponent), and a **loss** once every child is won for the
   opponent (a counter of unresolved children per position says when);
4. the positions never resolved are **draws**: the side to move can always
   avoid losing, and cannot force a win.

Remoteness (moves to the end under perfect play, :attr:`MoveValue.plies_to_end`):
a win's is its fastest win, a loss's its slowest loss; the backward pass goes
in order of distance, so the first child that makes a position a win gives its
fastest win and the last child that makes it a loss its slowest loss.  A draw's
remoteness is the fewest moves to a finished drawn game along drawn positions
(both sides keeping the draw), and None when no drawn line ends: a **draw by
endless play**.  In a game without repeats every draw ends (tic-tac-toe's empty
board: 9 plies).

Scores follow the solver's where they can: a game without repeats gets
depth-aware scores (:func:`gametree.game.win_score`), so the result equals
the solver's; in a game whose positions repeat, the ply of a position says
nothing about its value, and scores are +1 (win), 0 (draw) and -1 (loss), the
remoteness telling fast from slow.

>>> from gametree import load
>>> result = retrograde(load().game("tictactoe").create(size=3))
>>> result.value, result.plies_to_end, result.stats.nodes
('draw', 9, 5478)
"""

from __future__ import annotations

import time
from array import array
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass, replace
from typing import Generic

from ..game import Game, GameError, GameKind, M, S, win_score
from .progress import SolveProgress
from .results import MoveValue, SearchResult, assemble, check_game, start, stats_of

__all__ = [
    "DEFAULT_MAX_POSITIONS",
    "RETROGRADE_KINDS",
    "RetrogradeMover",
    "Solution",
    "TooManyPositions",
    "retrograde",
    "solve_graph",
]

#: What retrograde analysis supports beyond the plain game: positions that repeat.
RETROGRADE_KINDS = frozenset({GameKind.REPEATS})
#: How many positions it enumerates unless told otherwise (Dodgem takes about 560 bytes a position:
#: about 1.1 GB at this limit).
DEFAULT_MAX_POSITIONS = 2_000_000
#: The longest principal variation shown of a draw by endless play (it stops where a position repeats).
PV_LIMIT = 200

_UNKNOWN, _WIN, _LOSS, _DRAW = 0, 1, 2, 3


class TooManyPositions(GameError, ValueError):
    """More positions are reachable than the analysis was allowed to enumerate."""


@dataclass(frozen=True, slots=True)
class Solution:
    """Every position reachable from the searched one (index 0), solved.

    ``value[i]`` is ``"win"``, ``"loss"`` or ``"draw"`` for the side to move at position
    ``i``; ``remoteness[i]`` its moves to the end under perfect play (-1: a draw by endless
    play); ``children[offsets[i]:offsets[i + 1]]`` the positions after its legal moves, in
    the game's order of moves.
    """

    states: list[Hashable]
    index: dict[Hashable, int]
    codes: bytearray
    remoteness: array[int]
    children: array[int]
    offsets: array[int]
    terminals: int
    per_depth: tuple[int, ...]

    def value(self, i: int) -> str:
        return ("unknown", "win", "loss", "draw")[self.codes[i]]

    def kids(self, i: int) -> array[int]:
        return self.children[self.offsets[i] : self.offsets[i + 1]]


def _enumerate(
    game: Game[S, M], root: S, max_positions: int, progress: SolveProgress | None
) -> tuple[list[S], dict[Hashable, int], array[int], array[int], bytearray, list[int]]:
    """Breadth-first from ``root``: the positions, their index by key, the children (flat, with
    offsets), the value of the finished ones and the number of positions at each distance."""
    states: list[S] = [root]
    index: dict[Hashable, int] = {game.key(root): 0}
    children: array[int] = array("q")
    offsets: array[int] = array("q", [0])
    codes = bytearray()
    depth_of: array[int] = array("q", [0])
    per_depth = [1]
    if progress is not None:
        progress.count = states.__len__
        progress.phase = "root"
    play, key_of, find, add = game.play, game.key, index.get, children.append  # (the hot loop's lookups)
    i = 0
    while i < len(states):
        state = states[i]
        outcome = game.outcome(state)
        if outcome is not None:
            mover = game.to_move(state)
            codes.append(_DRAW if outcome.winner is None else _WIN if outcome.winner == mover else _LOSS)
        else:
            codes.append(_UNKNOWN)
            d = depth_of[i] + 1
            before = len(states)
            for move in game.legal_moves(state):
                child = play(state, move)
                key = key_of(child)
                j = find(key)
                if j is None:
                    j = len(states)
                    if j >= max_positions:
                        raise TooManyPositions(
                            f"more than {max_positions:,} positions are reachable: retrograde analysis"
                            " holds them all in memory (some hundred bytes each); raise --max-positions to go on"
                        )
                    index[key] = j
                    states.append(child)
                add(j)
            if len(states) > before:
                depth_of.extend([d] * (len(states) - before))
                if d == len(per_depth):
                    per_depth.append(0)
                per_depth[d] += len(states) - before
        offsets.append(len(children))
        i += 1
    return states, index, children, offsets, codes, per_depth


def _predecessors(size: int, children: array[int], offsets: array[int]) -> tuple[array[int], array[int]]:
    """The predecessor lists, flat: ``preds[starts[j]:starts[j + 1]]`` are the positions with child ``j``
    (once per move that leads there)."""
    counts = array("q", bytes(8 * (size + 1)))
    for j in children:
        counts[j + 1] += 1
    for j in range(size):
        counts[j + 1] += counts[j]
    starts = array("q", counts)
    preds = array("q", bytes(8 * len(children)))
    fill = array("q", counts)
    for i in range(size):
        for k in range(offsets[i], offsets[i + 1]):
            j = children[k]
            preds[fill[j]] = i
            fill[j] += 1
    return preds, starts


def solve_graph(
    game: Game[S, M], root: S, max_positions: int = DEFAULT_MAX_POSITIONS, progress: SolveProgress | None = None
) -> Solution:
    """Enumerate and solve every position reachable from ``root`` (see the module's text).

    Raises:
        TooManyPositions: More than ``max_positions`` positions are reachable.
    """
    states, index, children, offsets, codes, per_depth = _enumerate(game, root, max_positions, progress)
    size = len(states)
    preds, starts = _predecessors(size, children, offsets)
    movers = bytearray(game.to_move(s) & 1 for s in states)
    remoteness = array("q", [-1]) * size
    unresolved = array("q", (offsets[i + 1] - offsets[i] for i in range(size)))
    queue = deque(i for i in range(size) if codes[i] in (_WIN, _LOSS))
    terminals = sum(1 for i in range(size) if codes[i] != _UNKNOWN)
    for i in range(size):
        if codes[i] != _UNKNOWN:
            remoteness[i] = 0
    while queue:  # in order of remoteness: a FIFO of positions resolved one move further each time
        j = queue.popleft()
        far = remoteness[j] + 1
        for k in range(starts[j], starts[j + 1]):
            i = preds[k]
            if codes[i] != _UNKNOWN:
                continue
            # Good for the parent: the child is lost for an opponent to move there, or won for the same player.
            if codes[j] == (_WIN if movers[i] == movers[j] else _LOSS):
                codes[i], remoteness[i] = _WIN, far
                queue.append(i)
            else:
                unresolved[i] -= 1
                if unresolved[i] == 0:
                    codes[i], remoteness[i] = _LOSS, far
                    queue.append(i)
    _draws(codes, remoteness, preds, starts)
    return Solution(list(states), index, codes, remoteness, children, offsets, terminals, tuple(per_depth))


def _draws(codes: bytearray, remoteness: array[int], preds: array[int], starts: array[int]) -> None:
    """The positions left unresolved are draws: those with a drawn line to a finished drawn game get
    the fewest moves to it as remoteness (breadth-first back from the finished draws), the others
    stay at -1 (draws by endless play)."""
    queue = deque(i for i in range(len(codes)) if codes[i] == _DRAW)
    while queue:
        j = queue.popleft()
        for k in range(starts[j], starts[j + 1]):
            i = preds[k]
            if codes[i] == _UNKNOWN:
                codes[i], remoteness[i] = _DRAW, remoteness[j] + 1
                queue.append(i)
    for i in range(len(codes)):
        if codes[i] == _UNKNOWN:
            codes[i] = _DRAW  # (remoteness -1: endless play)


def _score(game: Game[S, M], ply: int, code: int, plies: int) -> int:
    """The score of a position ``ply`` moves into the game, for its side to move: depth-aware in a game
    without repeats (as the solver's), else +1, 0 or -1."""
    if code == _DRAW:
        return 0
    won = win_score(game.info.max_plies, ply + plies - 1) if not game.info.repeats else 1
    return won if code == _WIN else -won


def _rank(mine: int, plies: int | None) -> tuple[int, int]:
    """How good a move is for its mover (higher is better), from its value for the mover and its plies
    to the end: a win, the faster the better; a draw; a loss, the slower the better."""
    if mine == _WIN:
        return (2, -(plies or 0))
    if mine == _DRAW:
        return (1, 0)
    return (0, plies or 0)


def _after(solution: Solution, game: Game[S, M], state: S, move: M) -> tuple[int, int | None]:
    """The value of ``move`` at ``state`` for its mover (``_WIN``, ``_DRAW`` or ``_LOSS``) and its plies
    to the end under perfect play (None: a draw by endless play)."""
    j = solution.index[game.key(game.play(state, move))]
    child, near = solution.codes[j], solution.remoteness[j]
    same = game.to_move(state) == game.to_move(solution.states[j])  # type: ignore[arg-type]
    mine = child if same or child == _DRAW else _WIN + _LOSS - child
    return mine, None if near < 0 else near + 1


def _best_child(solution: Solution, game: Game[S, M], i: int) -> tuple[M, int] | None:
    """The first move (in the game's order) at position ``i`` that keeps its value and follows its remoteness,
    with the position it leads to; None at the end of the game."""
    state = solution.states[i]
    code, far = solution.codes[i], solution.remoteness[i]
    for move in game.legal_moves(state):  # type: ignore[arg-type]
        j = solution.index[game.key(game.play(state, move))]  # type: ignore[arg-type]
        same = game.to_move(state) == game.to_move(solution.states[j])  # type: ignore[arg-type]
        child, near = solution.codes[j], solution.remoteness[j]
        if code == _DRAW:
            if child == _DRAW and (far < 0 or near == far - 1):
                return move, j
        elif child == (code if same else _WIN + _LOSS - code) and near == far - 1:
            return move, j
    return None


def _line(solution: Solution, game: Game[S, M]) -> tuple[str, ...]:
    """The principal variation from the searched position, following the remoteness; a draw by endless play's
    stops where a position comes back (or after :data:`PV_LIMIT` moves)."""
    line: list[str] = []
    seen = {0}
    i = 0
    while len(line) < PV_LIMIT:
        step = _best_child(solution, game, i)
        if step is None:
            break
        move, j = step
        line.append(game.format_move(solution.states[i], move))  # type: ignore[arg-type]
        if j in seen:
            break
        seen.add(j)
        i = j
    return tuple(line)


def retrograde(
    game: Game[S, M],
    state: S | None = None,
    *,
    all_moves: bool = True,
    pv: bool = True,
    progress: SolveProgress | None = None,
    max_positions: int | None = None,
) -> SearchResult:
    """Solve ``state`` (default: the start) by retrograde analysis of every position reachable from it.

    Every root move gets its value and remoteness (``all_moves=False``: only the best moves are
    listed, as the other algorithms do; the analysis costs the same).  ``max_positions`` bounds the positions enumerated
    (default :data:`DEFAULT_MAX_POSITIONS`).

    Raises:
        TooManyPositions: More positions are reachable than ``max_positions``.
        UnsupportedGameError: Chance, more players or margins.
    """
    check_game(game, "retrograde", RETROGRADE_KINDS)
    root = start(game, state, checked=True)
    limit = DEFAULT_MAX_POSITIONS if max_positions is None else max_positions
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"max_positions must be a whole number of positions, 1 or more, not {limit!r}")
    began = time.perf_counter()
    solution = solve_graph(game, root, limit, progress)
    ply = game.ply(root)
    scored: list[tuple[str, M, int, int | None, tuple[int, int]]] = []
    for move in game.legal_moves(root):
        mine, plies = _after(solution, game, root, move)
        scored.append(
            (game.format_move(root, move), move, _score(game, ply, mine, plies or 0), plies, _rank(mine, plies))
        )
    top = max(rank for *_, rank in scored)
    values = tuple(
        MoveValue(text, score, plies, rank == top, game_move=move)
        for text, move, score, plies, rank in scored
        if all_moves or rank == top
    )
    code, far = solution.codes[0], solution.remoteness[0]
    plies_to_end = None if far < 0 else far
    stats = stats_of(solution.per_depth, time.perf_counter() - began, terminals=solution.terminals)
    result = assemble(
        "retrograde",
        game,
        root,
        _score(game, ply, code, far),
        True,
        plies_to_end,
        tuple(mv.move for mv in values if mv.best),
        values,
        _line(solution, game) if pv else (),
        None,
        stats,
    )
    if progress is not None:
        progress.phase = "done"
    return replace(result, stats=replace(stats, nodes=len(solution.states)))


class RetrogradeMover(Generic[S, M]):
    """The perfect player of a game whose positions repeat: it solves every position reachable from the
    first one it is asked about, once, then answers each later position from that solution (solving
    again only from a position outside it).  It wins fastest, loses slowest, and keeps a draw."""

    def __init__(self, game: Game[S, M], max_positions: int = DEFAULT_MAX_POSITIONS) -> None:
        check_game(game, "retrograde", RETROGRADE_KINDS)
        self.game = game
        self.max_positions = max_positions
        self.solution: Solution | None = None

    def best_moves(self, state: S) -> list[M]:
        """Every move of ``state`` that is best: the fastest win, else a draw, else the slowest loss.

        Raises:
            GameOverError: The game is over.
            TooManyPositions: More positions are reachable than ``max_positions``.
        """
        game = self.game
        root = start(game, state, checked=True)
        if self.solution is None or game.key(root) not in self.solution.index:
            self.solution = solve_graph(game, root, self.max_positions)
        solution = self.solution
        ranked = [(_rank(*_after(solution, game, root, move)), move) for move in game.legal_moves(root)]
        top = max(rank for rank, _ in ranked)
        return [move for rank, move in ranked if rank == top]
