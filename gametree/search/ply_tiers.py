"""The generic default tiering: tiers by ply, for games whose every move adds one piece.

A game without a :class:`gametree.game.Tiered` (no perfect hash of its own) that declares
:attr:`gametree.game.GameInfo.adds_one_piece` and whose ``key`` is a distinct integer from 0 to
2**63 - 1 for each position is solved into the same arrays as the tier solver's
(:mod:`gametree.search.tiers`: one value a position, the outcome for the side to move and its
remoteness), in Python:

1. **forward** (:func:`list_plies`): the positions of each ply, listed from the start, each tier
   ranked by its sorted keys (a position's index is its place among them: every index is a
   reachable position);
2. **backward** (:func:`score_plies`), from the last ply to the first: each position's value from
   its children's, found in the next tier by ``numpy.searchsorted`` of their keys: the fastest win,
   the slowest loss, the fastest draw, as the compiled kernel scores them.

It costs Python's time and memory (every position is kept as a state while the build runs), so
it is for boards of a few million positions at most; a game with its own tiers is built by the
compiled solver.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..game import Game, UnsupportedGameError, game_name
from .tier_kernel import DRAW, LOSS, WIN
from .tiers import TierCounts, TierProgress, TierSolution, TiersStopped, TierStore, value_bytes

__all__ = ["KeyedTierStore", "Plies", "by_ply_refusal", "list_plies", "score_plies"]

#: The largest key a tier by ply can hold (keys are ``int64``).
MAX_KEY = (1 << 63) - 1
#: The most positions a build by ply lists (each kept as a Python state while it runs: 4x4
#: tic-tac-toe's 9,722,011 took 1.6 GB), so that a board too big for it is refused, not a swap storm.
MAX_POSITIONS = 20_000_000
#: Positions between two progress reports (and stop checks).
REPORT_EVERY = 1 << 14


class KeyedTierStore(TierStore, Protocol):
    """A :class:`TierStore` that also keeps each tier's sorted keys (a build by ply)."""

    def keep_keys(self, tier: int, keys: np.ndarray) -> None:
        """Keep the sorted keys of ``tier``."""
        ...


@dataclass(frozen=True, slots=True)
class Plies:
    """Every reachable position by ply: ``keys[t]`` the sorted keys of ply ``t`` (``int64``),
    ``states[t]`` its positions in the same order."""

    keys: tuple[np.ndarray, ...]
    states: tuple[tuple[Any, ...], ...]

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(len(k) for k in self.keys)


def by_ply_refusal(game: Game[Any, Any]) -> str | None:
    """Why ``game`` cannot be tiered by ply (one line), or None."""
    name, info = game_name(game), game.info
    if not info.adds_one_piece:
        return (
            f"{name} has no tiers: it neither has its own (gametree.game.Tiered) nor declares GameInfo.adds_one_piece"
        )
    if not info.deterministic or info.players != 2 or info.margin or info.repeats:
        return f"the tier solver builds two-player win/draw/loss games without chance: not {name}"
    return None


def _key(game: Game[Any, Any], state: Any) -> int:
    key = game.key(state)
    if not isinstance(key, int) or isinstance(key, bool) or not 0 <= key <= MAX_KEY:
        raise UnsupportedGameError(
            f"{game_name(game)}'s keys are not integers from 0 to 2**63 - 1 (here {key!r}): it cannot be tiered by ply"
        )
    return key


def list_plies(
    game: Game[Any, Any], progress: TierProgress | None = None, *, max_positions: int = MAX_POSITIONS
) -> Plies:
    """Every reachable position of ``game``, ply by ply, each ply sorted by key (the forward pass);
    more than ``max_positions`` is an :class:`UnsupportedGameError`."""
    why = by_ply_refusal(game)
    if why is not None:
        raise UnsupportedGameError(why)
    start = game.initial_state()
    level: dict[int, Any] = {_key(game, start): start}
    keys: list[np.ndarray] = []
    states: list[tuple[Any, ...]] = []
    listed = 0
    while level:
        ordered = np.fromiter(level, dtype=np.int64, count=len(level))
        ordered.sort()
        keys.append(ordered)
        states.append(tuple(level[int(k)] for k in ordered))
        following: dict[int, Any] = {}
        for state in states[-1]:
            if game.outcome(state) is not None:
                continue
            for move in game.legal_moves(state):
                child = game.play(state, move)
                following.setdefault(_key(game, child), child)
        listed += len(level)
        if listed + len(following) > max_positions:
            raise UnsupportedGameError(
                f"{game_name(game)} has more than {max_positions:,} positions: too many to tier by ply in Python "
                "(give the game tiers of its own: gametree.game.Tiered)"
            )
        if progress is not None:
            progress(f"list ply {len(keys) - 1}", listed, listed + len(following))
        level = following
    if len(keys) > game.info.max_plies + 1:
        raise UnsupportedGameError(f"{game_name(game)} has games longer than its max_plies ({game.info.max_plies})")
    return Plies(tuple(keys), tuple(states))


def score_plies(
    game: Game[Any, Any],
    plies: Plies,
    store: KeyedTierStore,
    *,
    progress: TierProgress | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> TierSolution:
    """Each position's value, from the last ply to the first, kept tier by tier in ``store`` with
    the tiers' keys (the backward pass); tiers the store holds already are read back (a resumed
    build).  ``should_stop`` is asked between tiers and every :data:`REPORT_EVERY` positions
    (:class:`TiersStopped`: the finished tiers are kept)."""
    started = time.perf_counter()
    width = value_bytes(game)
    shift = 6 if width == 1 else 14
    dtype = np.uint8 if width == 1 else np.uint16
    total = sum(plies.sizes)
    done = 0
    after: np.ndarray | None = None
    found: list[TierCounts] = []
    finished: list[int] = []
    for tier in range(len(plies.keys) - 1, -1, -1):
        if store.holds("tier", tier):
            kept, counts = store.solved(tier), store.counts(tier)
            if kept is None or counts is None:
                raise RuntimeError(f"tier {tier} is held but cannot be read")
            after, done = np.asarray(kept), done + len(kept)
            found.append(counts)
            finished.append(tier)
            continue
        if should_stop is not None and should_stop():
            raise TiersStopped(tuple(finished))
        store.keep_keys(tier, plies.keys[tier])
        values = np.zeros(len(plies.keys[tier]), dtype=dtype)
        nxt = plies.keys[tier + 1] if tier + 1 < len(plies.keys) else np.zeros(0, dtype=np.int64)
        for i, state in enumerate(plies.states[tier]):
            values[i] = _value(game, state, nxt, after, shift)
            if (i + 1) % REPORT_EVERY == 0:
                if progress is not None:
                    progress(f"solve ply {tier}", done + i + 1, total)
                if should_stop is not None and should_stop():
                    raise TiersStopped(tuple(finished))
        done += len(values)
        if progress is not None:
            progress(f"solve ply {tier}", done, total)
        outcomes = values.astype(np.int64) >> shift
        counts = TierCounts(
            tier,
            len(values),
            len(values),
            int(np.count_nonzero(outcomes == WIN)),
            int(np.count_nonzero(outcomes == DRAW)),
            int(np.count_nonzero(outcomes == LOSS)),
        )
        store.keep_solved(tier, values, counts)
        found.append(counts)
        finished.append(tier)
        after = values
    return TierSolution(game_name(game), tuple(reversed(found)), width, time.perf_counter() - started)


def _value(game: Game[Any, Any], state: Any, nxt: np.ndarray, after: np.ndarray | None, shift: int) -> int:
    """``state``'s value code from its children's in the next tier (keys ``nxt``, values ``after``)."""
    ended = game.outcome(state)
    if ended is not None:
        if ended.winner is None:
            return DRAW << shift
        return (WIN if ended.winner == game.to_move(state) else LOSS) << shift
    moves = game.legal_moves(state)
    if not moves or after is None:
        raise UnsupportedGameError(f"{game_name(game)}: a position goes on without a legal move")
    child_keys = np.fromiter((_key(game, game.play(state, m)) for m in moves), dtype=np.int64, count=len(moves))
    places = np.searchsorted(nxt, child_keys)
    codes = after[places].astype(np.int64)
    low = (1 << shift) - 1
    outcomes, left = codes >> shift, (codes & low) + 1
    if np.any(outcomes == LOSS):
        return (WIN << shift) | int(left[outcomes == LOSS].min())
    if np.any(outcomes == DRAW):
        return (DRAW << shift) | int(left[outcomes == DRAW].min())
    return (LOSS << shift) | int(left.max())
