"""Known values: what search reads of proven positions, and writes back, without knowing the store.

Search never imports the solution store (:mod:`gametree.store`).  It reaches
stored values through :class:`KnownValues`, a small protocol the store's
per-game entries implement (as Pons's solver reaches its opening book through
one ``book.get(P)``), and so does any test double or in-memory container:

- :class:`Remembering` is a :class:`~gametree.search.contract.SearchEngine`
  that answers from known values what they settle and remembers what its
  engine proves, written back by :meth:`Remembering.flush`: read between
  searches, never once per node;
- :func:`stored_result` is the whole solve of a position from known values
  alone, and :func:`record_result` writes what a finished result proves;
- :func:`answer` is the one path of a solve through known values: read, else
  search, then record (serial and parallel solves take it).

Keys are a position's canonical key (the same for its mirror images), as an
integer or a string (:data:`StoreKey`); bounds are :class:`~gametree.search.table.Bound`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Hashable, Sequence
from typing import NamedTuple, ParamSpec, Protocol, TypeVar, cast

from ..game import Game, GameError, M, S, State, capabilities, end_score
from .contract import Counters, EngineName, RootReport, SearchEngine, TableFill
from .results import InconsistentSearch, Root, SearchResult, build_result, stats_of
from .table import Bound

__all__ = [
    "DamagedValues",
    "Known",
    "KnownValues",
    "Remembering",
    "StoreKey",
    "answer",
    "canonical_keyer",
    "known_bounds",
    "origin_of",
    "record_result",
    "storable_key",
    "stored_result",
]

P = ParamSpec("P")
T = TypeVar("T")

#: A position's key where values are kept: an integer of at most 64 bits, or a string.
StoreKey = int | str


class DamagedValues(GameError):
    """Known values that cannot be trusted: they contradict each other (a search through them finds
    no move that keeps a position's value), or their file is damaged.  The message names where they
    are kept and the way out."""


def origin_of(known: object) -> str:
    """How messages name where ``known`` values are kept (their ``origin``, else "the known values")."""
    origin = getattr(known, "origin", None)
    return origin if isinstance(origin, str) else "the known values"


class Known(NamedTuple):
    """What is known of a position: its ``score``, which is exact or a bound (``bound``), and ``best``,
    the key of the position a chosen move keeping the score leads to (None if none was chosen)."""

    score: int
    bound: Bound
    best: StoreKey | None = None


class KnownValues(Protocol):
    """Proven values of one game's positions, by key (the solution store's entries of one game)."""

    @property
    def write_error(self) -> str | None:
        """Why the last :meth:`record` wrote nothing, if it failed (the search goes on regardless)."""
        ...

    def entry(self, key: StoreKey) -> Known | None:
        """What is known of the position with this key, or None."""
        ...

    def record(self, exact: Sequence[tuple[StoreKey, int]], bounds: Sequence[tuple[StoreKey, int, Bound]]) -> int:
        """Keep exact scores and bounds (``Bound.LOWER`` or ``Bound.UPPER``; a known exact score or a
        tighter bound stays); returns how many were given, 0 if they could not be written (then
        :attr:`write_error` says why)."""
        ...


def storable_key(key: Hashable) -> StoreKey | None:
    """A position's key as known values keep it: an integer that fits 64 bits as it is; a string,
    or a tuple of integers and strings, as its ``repr`` (stable from run to run); None for any
    other key (its ``repr`` may change between runs: such positions are not kept)."""
    if isinstance(key, bool):
        return int(key)
    if isinstance(key, int):
        return key if -(1 << 63) <= key < (1 << 63) else repr(key)
    if isinstance(key, str) or (isinstance(key, tuple) and _plain(key)):
        return repr(key)
    return None


def _plain(value: object) -> bool:
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (int, str, bytes))


def canonical_keyer(game: Game[S, M]) -> Callable[[S], StoreKey | None]:
    """A position's key among known values: its canonical key (the same for its mirror images), storable."""
    caps = capabilities(game)
    canonical = caps.symmetric.canonical_key if caps.symmetric is not None else game.key
    return lambda state: storable_key(canonical(state))


def known_bounds(found: Known | None) -> tuple[int | None, int | None]:
    """The lower and upper bounds an entry (or none) proves."""
    if found is None:
        return None, None
    lower = None if found.bound is Bound.UPPER else found.score
    return lower, None if found.bound is Bound.LOWER else found.score


class Remembering:
    """A search engine that answers from known values what they hold, and remembers what its
    engine proves at the top of a search (not inside it: known values are read between
    searches, never once per node).

    ``search(state, alpha, beta, height)``: a known exact score is the position's value, a
    fail-soft answer for any window; a known bound answers a window it settles (a lower
    bound at or above ``beta``, an upper one at or below ``alpha``); otherwise the engine
    searches, and what its answer proves (the exact score strictly inside the window, a bound
    at or past an edge) is kept, to be written by :meth:`flush`.  Every other member is the
    engine's, delegated one by one.
    """

    def __init__(self, engine: SearchEngine, known: KnownValues) -> None:
        self.engine = engine
        self.known = known
        self.key = canonical_keyer(engine.game)
        #: What was proven since the last flush: (lower, upper) bounds by key, None where unknown.
        self.pending: dict[StoreKey, tuple[int | None, int | None]] = {}
        #: Positions answered from known values.
        self.hits = 0
        #: Why the last :meth:`flush` wrote nothing, if it failed.
        self.write_error: str | None = None

    # -- the engine's, delegated ----------------------------------------------------------------
    @property
    def name(self) -> EngineName:
        return self.engine.name

    @property
    def game(self) -> Game[S, M]:
        return self.engine.game

    @property
    def max_plies(self) -> int:
        return self.engine.max_plies

    @property
    def limit(self) -> int:
        return self.engine.limit

    @property
    def counters(self) -> Counters:
        return self.engine.counters

    @property
    def root(self) -> RootReport:
        return self.engine.root

    def exact(self, state: State, height: int = 0) -> float:
        return self.search(state, -float("inf"), float("inf"), height)

    def floor(self, p: int) -> int:
        return self.engine.floor(p)

    def wins_now(self, state: State) -> bool:
        return self.engine.wins_now(state)

    def with_room(self, plies: int, function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self.engine.with_room(plies, function, *args, **kwargs)

    def halt(self) -> None:
        self.engine.halt()

    def resume(self) -> None:
        self.engine.resume()

    def nodes_now(self) -> int:
        return self.engine.nodes_now()

    def table_bytes(self) -> int:
        return self.engine.table_bytes()

    def table_counts(self) -> tuple[int, int, int]:
        return self.engine.table_counts()

    def table_fill(self) -> TableFill:
        return self.engine.table_fill()

    # -- known values ---------------------------------------------------------------------------
    def bounds(self, state: State) -> tuple[int | None, int | None]:
        """The lower and upper bounds on ``state``'s score known here (equal: its exact score)."""
        key = self.key(state)
        if key is None:
            return None, None
        lo, hi = self.pending.get(key, (None, None))
        if lo is not None and lo == hi:
            return lo, hi
        known_lo, known_hi = known_bounds(self.known.entry(key))
        lo = known_lo if known_lo is not None and (lo is None or known_lo > lo) else lo
        hi = known_hi if known_hi is not None and (hi is None or known_hi < hi) else hi
        return lo, hi

    def lookup(self, state: State) -> int | None:
        """``state``'s exact score, if known here."""
        lo, hi = self.bounds(state)
        return lo if lo is not None and lo == hi else None

    def remember(self, state: State, score: float, bound: Bound = Bound.EXACT) -> None:
        """Keep what was proven of ``state``: its exact ``score``, or (``bound``) a bound on it."""
        key = self.key(state)
        if key is None or not float(score).is_integer():
            return
        lo, hi = self.pending.get(key, (None, None))
        if bound is not Bound.UPPER and (lo is None or score > lo):
            lo = int(score)
        if bound is not Bound.LOWER and (hi is None or score < hi):
            hi = int(score)
        self.pending[key] = (lo, hi)

    def search(self, state: State, alpha: float, beta: float, height: int = 0) -> float:
        lo, hi = self.bounds(state)
        if lo is not None and (lo == hi or lo >= beta):
            self.hits += 1
            return lo
        if hi is not None and hi <= alpha:
            self.hits += 1
            return hi
        value = self.engine.search(state, alpha, beta, height)
        self.remember(state, value, Bound.LOWER if value >= beta else Bound.UPPER if value <= alpha else Bound.EXACT)
        return value

    def flush(self) -> int:
        """Write what was proven since the last flush; returns how many entries.  Known values that
        cannot be written (a store locked too long, read-only, a full disk) lose them, not the
        search: :attr:`write_error` says why."""
        if not self.pending:
            return 0
        exact: list[tuple[StoreKey, int]] = []
        bounds: list[tuple[StoreKey, int, Bound]] = []
        for key, (lo, hi) in self.pending.items():
            if lo is not None and lo == hi:
                exact.append((key, lo))
            elif lo is not None and (
                lo > 0 or hi is None or hi >= 0
            ):  # (the bound that says more: a win, or at least a draw)
                bounds.append((key, lo, Bound.LOWER))
            elif hi is not None:
                bounds.append((key, hi, Bound.UPPER))
        self.pending.clear()
        written = self.known.record(exact, bounds)
        if self.known.write_error is not None:
            self.write_error = self.known.write_error
        return written


def remember(engine: SearchEngine, state: State, score: float, bound: Bound = Bound.EXACT) -> None:
    """Keep ``state``'s proven ``score`` (or a bound on it) in known values, if ``engine`` searches
    through them (a :class:`Remembering`)."""
    if isinstance(engine, Remembering):
        engine.remember(state, score, bound)


def record_result(known: KnownValues, game: Game[S, M], state: S, result: SearchResult) -> int:
    """Keep what a proven (not weak) search result says: the position's score and each scored move's
    (as its position's score for the side to move there); returns how many entries."""
    if not result.proven or result.weak:
        return 0
    key = canonical_keyer(game)
    items: list[tuple[StoreKey | None, int]] = [(key(state), int(result.score))]
    for mv in result.move_values:
        if float(mv.score).is_integer():
            move = game.parse_move(state, mv.move) if mv.game_move is None else cast(M, mv.game_move)
            items.append((key(game.play(state, move)), -int(mv.score)))
    return known.record([(k, v) for k, v in items if k is not None], [])


def answer(
    known: KnownValues | None,
    game: Game[S, M],
    state: S,
    search: Callable[[], SearchResult],
    *,
    all_moves: bool = True,
    pv: bool = True,
) -> SearchResult:
    """The one path of a solve through known values: the answer from them alone if they hold it
    (:func:`stored_result`), else ``search()``, whose proven result is then recorded."""
    if known is None:
        return search()
    found = stored_result(game, state, known, all_moves=all_moves, pv=pv)
    if found is not None:
        return found
    try:
        result = search()
    except InconsistentSearch as exc:
        # Searches are checked against brute force: values that contradict each other come from the
        # known values (a store edited by hand, damaged, or filled from a forged book).
        where = origin_of(known)
        raise DamagedValues(
            f"{where} holds values that contradict each other ({exc}): it is damaged or was filled from a "
            f"forged book; delete it (a new one is made on the next use) or run with --no-store"
        ) from None
    record_result(known, game, state, result)
    return result


def _exact_of(known: KnownValues, key: StoreKey | None) -> int | None:
    found = None if key is None else known.entry(key)
    return found.score if found is not None and found.bound is Bound.EXACT else None


def stored_result(
    game: Game[S, M], state: S, known: KnownValues, *, all_moves: bool = True, pv: bool = True
) -> SearchResult | None:
    """The solve of ``state`` from known values alone (no search), or None if they lack a value
    that is needed (the position's, and every move's with ``all_moves``) or disagree with each other.

    The principal variation follows known values as far as they go (to the end of the game, or
    where they stop: then ``plies_to_end`` is None).
    """
    started = time.perf_counter()
    key_of = canonical_keyer(game)

    def score_of(s: S) -> int | None:
        ended = end_score(game, s)  # a finished game: its score, stored or not
        return ended if ended is not None else _exact_of(known, key_of(s))

    value = score_of(state)
    if value is None or game.outcome(state) is not None:
        return None
    moves = list(game.legal_moves(state))
    scores: list[int | None] = []
    for m in moves:
        child = score_of(game.play(state, m))
        scores.append(None if child is None else -child)
        if not all_moves and child is not None and -child == value:
            break
    known_moves = [(m, v) for m, v in zip(moves, scores) if v is not None]
    if (all_moves and len(known_moves) < len(moves)) or not known_moves or max(v for _, v in known_moves) != value:
        return None  # (values that disagree with each other are not trusted: the solver searches)
    if all_moves:
        root = Root([m for m, _ in known_moves], [v for _, v in known_moves])
    else:
        root = Root([known_moves[-1][0]], [value])
    result = build_result("solver", game, state, root, None, None, stats_of((), 0.0))
    if pv:
        result = _with_known_lines(game, state, root, value, result, score_of)
    return dataclasses.replace(result, stats=stats_of((), time.perf_counter() - started), from_store=True)


def _with_known_lines(
    game: Game[S, M], state: S, root: Root[M], value: int, result: SearchResult, score_of: Callable[[S], int | None]
) -> SearchResult:
    """``result`` with its principal variation and each move's line length, as far as known values go."""
    best = root.moves[root.values.index(value)]
    line, ended = _known_line(game, state, best, value, score_of)
    texts, s = [], state
    for m in line:
        texts.append(game.format_move(s, m))
        s = game.play(s, m)
    lengths = []  # each move's line to the end, as far as known values follow it
    for m, v, mv in zip(root.moves, root.values, result.move_values):
        other, done = (line, ended) if m == best else _known_line(game, state, m, v, score_of)
        lengths.append(dataclasses.replace(mv, plies_to_end=len(other) if done else None))
    plies = len(line) if ended else None
    return dataclasses.replace(result, pv=tuple(texts), plies_to_end=plies, move_values=tuple(lengths))


def _known_line(
    game: Game[S, M], state: S, first: M, value: float, score_of: Callable[[S], int | None]
) -> tuple[list[M], bool]:
    """Moves keeping ``value`` from ``state`` (first ``first``), each the first in the game's order
    whose known score keeps it; and whether the line reaches the end of the game."""
    line = [first]
    state, value = game.play(state, first), -value
    while game.outcome(state) is None:
        for m in game.legal_moves(state):
            child = score_of(game.play(state, m))
            if child is not None and -child == value:
                break
        else:
            return line, False  # known values stop here
        line.append(m)
        state, value = game.play(state, m), -value
    return line, True
