"""A fast exact solver: alpha-beta tuned for proving game values.

The engine's negamax (:mod:`gametree.search.engine`) driven the way Pascal
Pons's Connect Four solver drives it, kept game-agnostic:

- **null-window narrowing**: the exact score comes from a sequence of
  null-window searches that bisect the range of possible scores (biased
  towards 0, where most positions are decided);
- **score bounds from the moves left**: no score can beat winning with the
  next move, nor be worse than losing to the opponent's next move;
- **immediate wins and forced blocks**: for a game that is
  :class:`gametree.game.ThreatAware` the engine's threat-aware strategy never
  searches a position one move from the end, never plays a move the opponent
  punishes at once, and settles a position by "has it a safe move?" when the
  window asks no more (with :class:`gametree.game.FastThreats`, from its
  parent, child by child, without entering it);
- a bounds transposition table keyed by the canonical (symmetric) key.

Without the helpers it still works on any game, with the bounds and narrowing.
A margin game's range is its margin bounds (:mod:`gametree.search.margins`).
"""

from __future__ import annotations

from typing import Protocol

from ..game import State
from .contract import SearchEngine
from .engine import INF
from .margins import top_score
from .progress import SolveProgress

__all__ = ["DIRECT_RANGE", "FULL_WINDOW_RANGE", "Narrowing", "exact_score"]

#: An exact solve of a position whose score range is at most this wide (about as many moves
#: left) is one search with the whole range as its window: near the end of a game that costs
#: fewer nodes than the null-window probes that would narrow the range (measured in
#: docs/performance-log.md; wider ranges cost more on the middle-game set).
FULL_WINDOW_RANGE = 16

#: A weak solve of a position whose score range is at most this wide gets the draw questions
#: at once ("better than a draw?", "at least a draw?"); a wider range first gets the two
#: probes half-way to each end (the top first): fast wins and losses are the cheap ones to prove.
DIRECT_RANGE = 16


class Narrowing(Protocol):
    """An engine's ``narrow``, where it has one: the whole narrowing below for a strong score, no
    bound known, in one call (:meth:`gametree.search.compiled.CompiledEngine.narrow`): the same
    searches, the same result."""

    def __call__(self, state: State, lo: int, hi: int, direct: bool) -> int: ...


def _half(x: float) -> float:
    """x / 2 rounded towards zero (as in C), to bias narrowing towards 0 (scores are whole numbers)."""
    return -(-x // 2) if x < 0 else x // 2


def exact_score(
    engine: SearchEngine,
    state: State,
    height: int = 0,
    at_least: float | None = None,
    weak: bool = False,
    progress: SolveProgress | None = None,
) -> float:
    """The exact score of ``state`` by null-window searches of ``engine`` (see :func:`_exact_score`),
    with room on the frame stack for all of them; ``progress`` is told each narrowing of the range."""
    plies = engine.max_plies - engine.game.ply(state)
    return engine.with_room(plies, _exact_score, engine, state, height, at_least, weak, progress)


def _exact_score(
    engine: SearchEngine, state: State, height: int, at_least: float | None, weak: bool, progress: SolveProgress | None
) -> float:
    """The exact score of ``state`` by null-window searches of ``engine``.

    Pascal Pons's bisection biased towards 0 for the first two probes
    (half-way to each end: cheap, and they settle fast wins and losses;
    the top end first, where Pons takes the bottom: a fast win proved
    settles the bottom half at once, and the side to move wins more often
    than it loses), then straight against a draw (above 0? at least 0?), where most
    positions of drawish games are decided, then bisection again.  Near
    the end of a game (a score range of at most ``FULL_WINDOW_RANGE``)
    one search with the whole range as its window replaces them.
    ``at_least`` is a known lower bound; the first probe then asks
    whether the score is above it.

    ``weak``: only the sign matters (win, draw or loss): the narrowing
    stops as soon as the bounds settle it, and the result has the right
    sign but is only a bound on the score.  Stopping early beats cutting
    the range to [-1, 1]: a fast win is proved with far fewer nodes than
    just any win.

    Afterwards ``engine.root.move`` is a move proved to score at least the
    result (None if no probe proved one).
    """
    game = engine.game
    root = engine.root
    root.move = None
    if game.outcome(state) is not None or engine.wins_now(state):
        return engine.search(state, -INF, INF, height)
    found = None

    def probe(alpha: float, beta: float) -> float:
        nonlocal found
        root.clear()
        r = engine.search(state, alpha, beta, height)
        if r > alpha and root.improved:
            found = root.move  # it made the probe fail high (or land inside): it scores at least r
        if progress is not None:  # what this probe proved, with the bounds before it
            progress.narrowed(max(lo, r) if r > alpha else lo, min(hi, r) if r < beta else hi)
        return r

    p = game.ply(state)
    # Bounds on the score (whole numbers; floats by type, as the searches return them).
    hi: float = top_score(game.info, p)
    lo: float = engine.floor(p)
    narrow: Narrowing | None = getattr(engine, "narrow", None)  # (an isinstance check of a Protocol costs µs)
    if narrow is not None and not weak and at_least is None and progress is None and height == 0:
        # The same searches, all in compiled code (it sets root.move).
        return narrow(state, int(lo), int(hi), bool(hi - lo <= DIRECT_RANGE or game.info.margin))
    probes = 0
    try:
        if hi - lo <= DIRECT_RANGE or game.info.margin:
            # Straight to "better than a draw?" and "at least a draw?" (a margin game too: no margin is
            # cheap to prove the way a fast win is; 7% fewer nodes on Othello, docs/performance-log.md).
            probes = 2
        if at_least is not None and at_least > lo:
            lo = at_least
            probes = 2  # the known bound replaces the two wide probes
            if weak and lo > 0:
                return lo
            if lo < hi:
                r = probe(lo, lo + 1)
                if r <= lo:
                    return lo
                lo = r
        if not weak and 0 < hi - lo <= FULL_WINDOW_RANGE:
            r = probe(lo, hi)
            # Fail-soft: inside the window, the score; at or past an edge, that edge (a true bound).
            return lo if r <= lo else hi if r >= hi else r
        med: float
        while lo < hi:
            probes += 1
            if probes > 2 and lo <= 0 < hi:
                med = 0  # better than a draw?
            elif probes > 2 and lo <= -1 < hi:
                med = -1  # at least a draw?
            else:
                med = lo + (hi - lo) // 2
                # Half-way to the top before the bottom (see docs/performance-log.md).
                if med >= 0 and _half(hi) > med:
                    med = _half(hi)
                elif med <= 0 and _half(lo) < med:
                    med = _half(lo)
            r = probe(med, med + 1)
            if r <= med:
                hi = r
            else:
                lo = r
            if weak and (lo > 0 or hi < 0):
                return lo if lo > 0 else hi
        return lo
    finally:
        root.move = found
