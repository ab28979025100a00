"""Strong solutions: the exact score of every position reachable from the start.

:func:`solve_strongly` works in two passes over the game, game-agnostic through
the :class:`gametree.game.Game` protocol:

1. **forward enumeration, ply by ply**: the positions reachable from the start
   (or a given position) by legal moves, never past a finished game, each
   counted once however many move orders reach it (positions are told apart by
   ``game.key``, so mirror images count as two, as John Tromp counts them);
2. **backward induction (retrograde analysis)**: from the last ply to the
   first, a finished position gets the engine's terminal score and any other
   the best of its children's scores negated.  Positions equivalent under the
   game's symmetries (the same canonical key) are scored once.

The scores are the exact scores of the rest of the core: depth-aware for a
win/draw/loss game, the final margin for a margin game (``GameInfo.margin``:
Othello's disc difference); for every position they equal what
:func:`gametree.search.solver` proves for it.

Every reachable position is held in memory at once (one representative state
per canonical key), so this is for small boards: 4x4 Connect Four has 161,029
positions, 5x4 3,945,711.  ``max_positions`` stops a game that is too large
before the memory runs out.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Generic

from ..game import Game, GameKind, M, S, UnsupportedGameError, capabilities, end_score, game_name, win_score
from .margins import margin_bound
from .results import check_game, position

__all__ = ["DEFAULT_MAX_POSITIONS", "ListedPly", "Progress", "Resume", "StrongSolution", "solve_strongly"]

#: Refuse to go on once this many positions are enumerated (a few GB of memory in Python).
DEFAULT_MAX_POSITIONS = 50_000_000

#: ``progress(stage, done, total)``: ``stage`` is ``"enumerating ply N"`` (``done`` of the ``total``
#: positions at ply N expanded) or ``"scoring ply N"`` (``done`` of the ``total`` classes at ply N scored).
Progress = Callable[[str, int, int], None]

#: ``keep(keys, scores, images, ply)``: the classes ``keys`` are proven (their scores in ``scores``, their
#: positions' counts in ``images``): first every finished position (``ply`` None), then each ply's classes,
#: the last ply first.
Keep = Callable[[list[Hashable], dict[Hashable, int], dict[Hashable, int], int | None], None]

#: How many positions pass between two progress reports and checks of ``max_positions`` (a power of two, less one).
_EVERY = (1 << 14) - 1


@dataclass(frozen=True, slots=True)
class Resume:
    """Where a strong solve stopped before goes on from: every finished position and every class
    from ``ply`` on were proven already (and kept), and ``scores(canonical keys)`` tells the scores
    of the unfinished classes at ``ply`` (all of them at once: one that it leaves out is not known,
    and the solve raises ``LookupError``)."""

    ply: int
    scores: Callable[[list[Hashable]], Mapping[Hashable, int]]


@dataclass(frozen=True, slots=True)
class ListedPly(Generic[S]):
    """What the listing (the forward pass) found at one ply, all a later solve needs to go on
    listing from the next ply without listing this one again.

    ``count`` positions are at ``ply``; ``images`` counts them by class (canonical key, in the
    order the listing met them), ``aliases`` maps each position's key that is not its class's
    key to it, ``finished`` holds the finished classes' scores, ``reps`` each unfinished class's
    children (their ``game.key``, in move order), and ``following`` the positions at the next
    ply by key (the listing's frontier: a solve going on reads only the last ply's)."""

    ply: int
    count: int
    images: dict[Hashable, int]
    aliases: dict[Hashable, Hashable]
    finished: dict[Hashable, int]
    reps: dict[Hashable, tuple[Hashable, ...]]
    following: dict[Hashable, S] = field(default_factory=dict)


#: ``listed(ply)``: called as soon as the listing of a ply ends, with what it found (to keep it).
Listed = Callable[[ListedPly[S]], None]


@dataclass(frozen=True, slots=True)
class StrongSolution:
    """Every reachable position of a game, proven.

    ``per_ply[i]`` is the number of distinct positions reachable ``i`` plies
    after the start (mirror images counted apart, finished positions
    included); ``positions`` is their sum.  ``scores`` maps each canonical key
    (``canonical_key`` of a symmetric game, else ``game.key``) to the exact
    depth-aware score of its positions for the side to move, and ``images``
    to how many reachable positions share that key (they add up to
    ``positions``).  ``seconds`` is the wall time of the whole solve.
    """

    per_ply: tuple[int, ...]
    positions: int
    scores: dict[Hashable, int]
    images: dict[Hashable, int]
    seconds: float


def solve_strongly(
    game: Game[S, M],
    state: S | None = None,
    *,
    symmetry: bool = True,
    progress: Progress | None = None,
    max_positions: int = DEFAULT_MAX_POSITIONS,
    keep: Keep | None = None,
    resume: Resume | None = None,
    listed: Listed[S] | None = None,
    relist: Iterable[ListedPly[S]] = (),
) -> StrongSolution:
    """Prove every position reachable from ``state`` (default: the start).

    Args:
        game: A two-player, zero-sum, deterministic, perfect-information game,
            won, drawn or lost or ending with a margin (others raise
            :class:`gametree.game.UnsupportedGameError`).
        state: Where to start (None: the start); a finished position is
            solved as it is (one position).
        symmetry: Key the scores by the game's canonical key when it has one
            (:class:`gametree.game.Symmetric`), scoring equivalent positions once.
        progress: Called now and then as ``progress(stage, done, total)``,
            ``stage`` being ``"enumerating ply N"`` or ``"scoring ply N"``.
        max_positions: Raise :class:`gametree.game.UnsupportedGameError` as soon
            as more positions than this are enumerated.
        keep: Called with what is proven as soon as it is (see :data:`Keep`), so
            that a caller can keep it before the whole solve ends.
        resume: Go on from a solve stopped after it kept the plies from
            ``resume.ply`` on (see :class:`Resume`): the positions are enumerated
            up to that ply only (its classes' scores read, with the stage
            ``"reading ply N"``), the shallower plies scored and kept, and the
            finished positions not kept again.  The solution then holds
            ``per_ply`` and ``scores`` up to that ply only.
        listed: Called with what the listing found at each ply as soon as that
            ply is listed (:class:`ListedPly`), so that a caller can keep it.
        relist: What an earlier listing of the same game from the same position
            found at plies 0, 1, ... N (as ``listed`` was given them; only the last
            one's ``following`` is read): the listing goes on from ply N + 1
            (each ply read reported with the stage ``"reading listed ply N"``).

    Returns:
        The :class:`StrongSolution`.

    >>> from gametree import load
    >>> solved = solve_strongly(load().game("tictactoe").create(size=3))
    >>> solved.positions, solved.per_ply[:4]
    (5478, (1, 9, 72, 252))
    """
    started = time.perf_counter()
    check_game(game, "the strong solver", (GameKind.MARGIN,))
    state = position(game, state)
    caps = capabilities(game)
    canonical = caps.symmetric.canonical_key if symmetry and caps.symmetric is not None else None
    # Millions of new tuples and states, none in a reference cycle: the cyclic garbage collector
    # would walk all of them again and again as they pile up, for nothing.
    collecting = gc.isenabled()
    gc.disable()
    try:
        layers, aliases, per_ply, scores, images = _enumerate(
            game, state, canonical, progress, max_positions, resume, (listed, relist)
        )
        if keep is not None and resume is None:
            keep(list(scores), scores, images, None)  # the finished positions
        _score(game, game.ply(state), layers, aliases, scores, progress, keep, images)
    finally:
        if collecting:
            gc.enable()
    return StrongSolution(tuple(per_ply), sum(per_ply), scores, images, time.perf_counter() - started)


def _enumerate(
    game: Game[S, M],
    state: S,
    canonical: Callable[[S], Hashable] | None,
    progress: Progress | None,
    max_positions: int,
    resume: Resume | None = None,
    listing: tuple[Listed[S] | None, Iterable[ListedPly[S]]] = (None, ()),
) -> tuple[
    list[dict[Hashable, tuple[Hashable, ...]]],
    dict[Hashable, Hashable],
    list[int],
    dict[Hashable, int],
    dict[Hashable, int],
]:
    """The forward pass: ``(layers, aliases, per_ply, scores, images)``.

    ``layers[i]`` maps the canonical key of each class of unfinished positions
    ``i`` plies after ``state`` to the keys (``game.key``) of the children of
    one of its positions, in the game's move order; ``aliases`` maps each key
    that is not its position's canonical key to that canonical key (so the
    backward pass neither plays a move nor computes a key again); ``scores``
    holds the finished positions' scores already.  With ``resume``, the positions at
    ``resume.ply`` are not expanded: their scores are read (:func:`_read_boundary`).
    ``listing``: who is told of each ply listed, and the plies an earlier listing kept
    (read instead of listed again).
    """
    listed, relist = listing
    ply = game.ply(state)
    layers: list[dict[Hashable, tuple[Hashable, ...]]] = []
    aliases: dict[Hashable, Hashable] = {}
    per_ply: list[int] = []
    scores: dict[Hashable, int] = {}
    images: dict[Hashable, int] = {}
    frontier: dict[Hashable, S] = {game.key(state): state}
    for kept in relist:
        if kept.ply != ply:
            raise ValueError(f"the listing kept has ply {kept.ply} where ply {ply} was due")
        per_ply.append(kept.count)
        _merge(kept, layers, aliases, scores, images)
        frontier = kept.following
        if progress is not None:
            progress(f"reading listed ply {ply}", kept.count, kept.count)
        ply += 1
    counted = sum(per_ply)  # positions up to the frontier's ply
    while frontier:
        depth = len(per_ply)
        size = len(frontier)
        per_ply.append(size)
        if resume is not None and ply >= resume.ply:
            _read_boundary(game, frontier, canonical, resume, aliases, scores, progress)
            break
        counted += size
        if counted > max_positions:
            raise UnsupportedGameError(_too_many(max_positions, depth))
        found = _list_ply(game, ply, frontier, canonical, progress, (counted, max_positions, depth))
        _merge(found, layers, aliases, scores, images)
        frontier = found.following
        if listed is not None:
            listed(found)
        del found  # (its dictionaries of the ply's classes: merged, their memory freed)
        ply += 1
    return layers, aliases, per_ply, scores, images


def _merge(
    found: ListedPly[S],
    layers: list[dict[Hashable, tuple[Hashable, ...]]],
    aliases: dict[Hashable, Hashable],
    scores: dict[Hashable, int],
    images: dict[Hashable, int],
) -> None:
    """Add what the listing found at one ply to what it found at the plies before."""
    layers.append(found.reps)
    aliases.update(found.aliases)
    scores.update(found.finished)
    if images.keys().isdisjoint(found.images):  # (a class never spans two plies in the usual games)
        images.update(found.images)
    else:
        for c, n in found.images.items():
            images[c] = images.get(c, 0) + n


def _list_ply(
    game: Game[S, M],
    ply: int,
    frontier: dict[Hashable, S],
    canonical: Callable[[S], Hashable] | None,
    progress: Progress | None,
    limit: tuple[int, int, int],
) -> ListedPly[S]:
    """List the positions at ``ply`` (the ``frontier``): their classes, the finished ones' scores,
    the others' children, and the positions at the next ply.  ``limit``: the positions counted up to
    this ply, ``max_positions`` and the depth (to refuse a game too large as soon as it shows)."""
    outcome, legal, play, key, to_move = game.outcome, game.legal_moves, game.play, game.key, game.to_move
    counted, max_positions, depth = limit
    stage = f"enumerating ply {ply}"
    size = len(frontier)
    magnitude = win_score(game.info.max_plies, ply - 1)  # a game that ended with the move to this ply
    margin = _margin_of(game)
    images: dict[Hashable, int] = {}
    aliases: dict[Hashable, Hashable] = {}
    finished: dict[Hashable, int] = {}
    reps: dict[Hashable, tuple[Hashable, ...]] = {}
    following: dict[Hashable, S] = {}
    for done, (k, s) in enumerate(frontier.items()):
        if not done & _EVERY:
            if counted + len(following) > max_positions:
                raise UnsupportedGameError(_too_many(max_positions, depth + 1))
            if progress is not None:
                progress(stage, done, size)
        if canonical is None:
            c = k
        else:
            c = canonical(s)
            if c != k:
                aliases[k] = c
        images[c] = images.get(c, 0) + 1
        ended = outcome(s)
        if ended is not None:
            finished[c] = _ended_score(ended.winner, to_move(s), magnitude) if margin is None else margin(s)
            continue
        if c in reps:  # an image of a class met before: its children are counted, not kept
            for m in legal(s):
                child = play(s, m)
                ck = key(child)
                if ck not in following:
                    following[ck] = child
            continue
        children = []
        for m in legal(s):
            child = play(s, m)
            ck = key(child)
            children.append(ck)
            if ck not in following:
                following[ck] = child
        if not children:
            raise ValueError(f"{game_name(game)}: an unfinished position at ply {ply} has no legal move")
        reps[c] = tuple(children)
    if progress is not None:
        progress(stage, size, size)
    return ListedPly(ply, size, images, aliases, finished, reps, following)


def _margin_of(game: Game[S, M]) -> Callable[[S], int] | None:
    """A margin game's score of a finished position (its final margin for the side to move:
    :func:`gametree.game.end_score`); None for a win/draw/loss game (scored by :func:`_ended_score`)."""
    if not game.info.margin:
        return None
    return lambda s: end_score(game, s) or 0  # (finished: never None; a margin of 0 is a draw)


def _ended_score(winner: int | None, mover: int, magnitude: int) -> int:
    """A finished position's score for ``mover``, the side to move there (``magnitude``: a win's)."""
    return 0 if winner is None else magnitude if winner == mover else -magnitude


def _read_boundary(
    game: Game[S, M],
    frontier: dict[Hashable, S],
    canonical: Callable[[S], Hashable] | None,
    resume: Resume,
    aliases: dict[Hashable, Hashable],
    scores: dict[Hashable, int],
    progress: Progress | None,
) -> None:
    """The scores of the positions at ``resume.ply`` (the ``frontier``), proven before: a finished
    one's from its outcome, the others' from ``resume.scores``."""
    ply = resume.ply
    stage = f"reading ply {ply}"
    magnitude = win_score(game.info.max_plies, ply - 1)
    margin = _margin_of(game)
    wanted: dict[Hashable, None] = {}
    for done, (k, s) in enumerate(frontier.items()):
        if progress is not None and not done & _EVERY:
            progress(stage, done, len(frontier))
        c = k if canonical is None else canonical(s)
        if c != k:
            aliases[k] = c
        ended = game.outcome(s)
        if ended is not None:
            scores[c] = _ended_score(ended.winner, game.to_move(s), magnitude) if margin is None else margin(s)
        else:
            wanted[c] = None
    known = resume.scores(list(wanted))
    if any(c not in known for c in wanted):
        raise LookupError(f"the score of a position at ply {ply} is not known: it cannot be resumed there")
    scores.update((c, known[c]) for c in wanted)
    if progress is not None:
        progress(stage, len(frontier), len(frontier))


def _score(
    game: Game[S, M],
    first_ply: int,
    layers: list[dict[Hashable, tuple[Hashable, ...]]],
    aliases: dict[Hashable, Hashable],
    scores: dict[Hashable, int],
    progress: Progress | None,
    keep: Keep | None = None,
    images: dict[Hashable, int] | None = None,
) -> None:
    """The backward pass: each class of unfinished positions gets the best of its children's
    scores, negated, the last ply first; ``layers`` are emptied on the way (their memory freed).
    Each ply's classes go to ``keep`` (with ``images``) once scored."""
    C = game.info.max_plies
    largest = margin_bound(game.info) if game.info.margin else None
    canon = aliases.get
    for depth in range(len(layers) - 1, -1, -1):
        reps = layers[depth]
        layers[depth] = {}
        ply = first_ply + depth
        stage = f"scoring ply {ply}"
        total = len(reps)
        # Winning with the next move (a margin game: its largest margin): no score is higher.
        top = win_score(C, ply) if largest is None else largest
        for done, (c, children) in enumerate(reps.items()):
            if progress is not None and not done & _EVERY:
                progress(stage, done, total)
            best = -top - 1
            for ck in children:
                value = -scores[canon(ck, ck)]
                if value > best:
                    best = value
                    if value >= top:
                        break
            scores[c] = best
        if keep is not None:
            keep(list(reps), scores, images or {}, ply)
        if progress is not None:
            progress(stage, total, total)


def _too_many(limit: int, depth: int) -> str:
    return (
        f"more than {limit:,} reachable positions within {depth} plies: too many to solve strongly in memory "
        f"(max_positions={limit:,})"
    )
