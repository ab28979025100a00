"""What a search returns, and the one place a :class:`SearchResult` is built.

The engine's algorithms end the same way: the root moves with their values
(a :class:`Root`), the counters frozen into :class:`SearchStats`
(:func:`freeze`), and :func:`build_result`, which names the best moves and
(following the engine) the principal variation.  Monte Carlo and parallel
searches, whose answers come in other shapes, end with the same two
functions underneath: :func:`stats_of` and :func:`assemble`.

A result shows itself in Jupyter as the small HTML summary of :func:`result_html`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Generic, Literal, NamedTuple

from ..game import Game, GameKind, GameOverError, M, Move, S, State, UnsupportedGameError, play_text, refusal
from .contract import Counters, SearchEngine
from .table import UNLIMITED_DEPTH, TranspositionTable
from .values import ExactValue, Margin, exact_value, margin_text

__all__ = [
    "CutShort",
    "InconsistentSearch",
    "MoveValue",
    "assemble",
    "Root",
    "Scored",
    "SearchResult",
    "SearchStats",
    "Value",
    "best_move",
    "build_result",
    "check_game",
    "counted",
    "deepest",
    "freeze",
    "position",
    "principal_variation",
    "proven_score",
    "plies_text",
    "result_html",
    "scores_of",
    "start",
    "stats_of",
    "timed",
    "value_and_winner",
    "whole",
]

#: A position's value for its side to move: proven, or unknown (a heuristic value at a depth limit).
Value = Literal["win", "loss", "draw", "unknown"]

#: Why a search stopped before it did all it was asked: its time was up, or Ctrl-C.
CutShort = Literal["time", "interrupt"]

#: Half-width of the window used to confirm a principal-variation move's value.
EPSILON = 1e-9


@dataclass(frozen=True, slots=True)
class SearchStats:
    """What one search did.  Counters cover the search proper, not PV extraction.

    ``cutoffs`` counts beta cutoffs that left at least one move untried.
    """

    nodes: int
    terminals: int
    heuristic_leaves: int
    cutoffs: int
    cache_probes: int
    cache_hits: int
    cache_stores: int
    max_depth: int
    seconds: float
    nodes_per_second: float
    nodes_per_depth: tuple[int, ...]
    #: Playouts run (Monte Carlo searches only).
    iterations: int | None = None


@dataclass(frozen=True, slots=True)
class MoveValue:
    """The value of one root move, from the point of view of the side that plays it.

    Monte Carlo searches also give the move's ``visits`` and ``mean`` playout
    reward in [-1, 1]; other algorithms leave them None.  ``move`` is the move as
    the game writes it; ``game_move`` the move itself, what ``game.play`` takes (it
    is left out of the command line's JSON, as a game's moves need not be JSON).
    """

    move: str
    score: int | float
    plies_to_end: int | None
    best: bool
    visits: int | None = None
    mean: float | None = None
    game_move: object = dataclasses.field(default=None, repr=False, compare=False)
    #: A game of three or more players: each player's payoff after this move (max^n, paranoid).
    payoffs: tuple[float, ...] | None = None
    #: The exact value (an expected payoff over chance outcomes) when it is a fraction: ``score`` is
    #: then its float (expectiminimax, Star1, Star2 with exact probabilities; JSON writes it "p/q").
    exact: Fraction | None = None


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The answer of a search.

    ``value`` is ``"win"``, ``"loss"`` or ``"draw"`` for the side to move when
    proven, else ``"unknown"`` (a heuristic value at a depth limit: ``score`` is
    then a float in (-1, 1)); a proven ``score`` is an ``int``, and :attr:`outcome`
    says what it means.  ``winner`` is the player (0, 1) who wins under
    perfect play, or None (draw or unknown).  Moves are in the game's notation.
    ``weak`` results (``solver(..., weak=True)``) prove only the value: scores
    are +1, 0 or -1, not how fast, and there is no line to the end.

    A search cut short (``cut_short``: ``"time"`` or ``"interrupt"``) says what
    it proved: ``unscored`` lists the root moves it had no time to score (the
    others' scores are proven), and an exact search whose value was not proven
    in time gives ``score_bounds``, the range ``(low, high)`` proven to hold
    the score, beside its heuristic best guess.

    A margin game's proven (not weak) result has ``margin``: the final margin for
    the side to move under perfect play, which is its ``score`` (each move's score
    is its final margin too); ``value`` is win, loss or draw by its sign, and
    ``plies_to_end`` the length of the principal variation found (a margin does not
    depend on how fast the game ends: another optimal line may be shorter).  A
    depth-limited search of a margin game proves nothing once a heuristic estimate
    was used (they lie among the margins), so it is then ``proven=False``.
    """

    algorithm: str
    to_move: int
    value: Value
    winner: int | None
    score: int | float
    proven: bool
    plies_to_end: int | None
    best_moves: tuple[str, ...]
    move_values: tuple[MoveValue, ...]
    pv: tuple[str, ...]
    depth: int | None
    stats: SearchStats
    weak: bool = False
    unscored: tuple[str, ...] = ()
    score_bounds: tuple[float, float] | None = None
    cut_short: CutShort | None = None
    #: Answered from a solution store, without a search (see :mod:`gametree.store`).
    from_store: bool = False
    #: A game of three or more players: each player's payoff under the search's play (max^n, paranoid;
    #: ``score`` is then the payoff of the player to move).
    payoffs: tuple[float, ...] | None = None
    #: Asked for with ``trace=True``: every node the search entered, leaves included, in the order
    #: entered (what pruning skipped never appears), each named by the game's
    #: :class:`gametree.game.NodeNames` if it has it, else by the moves from the searched position
    #: (space-separated move texts, ``""`` the searched position itself).
    expanded: tuple[str, ...] | None = None
    #: A margin game's proven final margin for the side to move (None: not a margin game, or not proven).
    margin: int | None = None
    #: The exact value as a fraction (an expected payoff over chance outcomes), as for :attr:`MoveValue.exact`.
    exact: Fraction | None = None

    @property
    def best_game_moves(self) -> tuple[object, ...]:
        """The best moves as the game's own moves (what ``game.play`` takes), in the order of
        :attr:`best_moves`, which writes them as text."""
        return tuple(mv.game_move for mv in self.move_values if mv.best)

    def data(self) -> dict[str, object]:
        """The result as plain data for JSON: :func:`dataclasses.asdict` without the game's own moves
        (``MoveValue.game_move``: a game's moves need not be JSON; their text is there)."""
        plain = tuple(dataclasses.replace(mv, game_move=None) for mv in self.move_values)
        data = dataclasses.asdict(dataclasses.replace(self, move_values=plain))
        for value in data["move_values"]:
            del value["game_move"]
            if value["exact"] is not None:
                value["exact"] = str(value["exact"])
        if data["exact"] is not None:
            data["exact"] = str(data["exact"])
        return data

    @property
    def outcome(self) -> ExactValue | None:
        """What the proven score says: :class:`~gametree.search.values.Win`, ``Loss`` or ``Draw``
        with the plies to the end under perfect play, or a margin game's
        :class:`~gametree.search.values.Margin` (None: not proven, a heuristic guess)."""
        if self.margin is not None:
            return Margin(self.margin, self.plies_to_end)
        return exact_value(self.score, self.plies_to_end) if self.proven else None

    def _repr_html_(self) -> str:
        """A small HTML summary for Jupyter (see :func:`result_html`)."""
        return result_html(self)

    def __repr__(self) -> str:
        """One line: ``<SearchResult solver: win in 1 ply (score +4 for player 2, to move); best A2; ...>``."""
        best = " ".join(self.best_moves[:8]) + (" ..." if len(self.best_moves) > 8 else "")
        cut = f"; cut short ({self.cut_short})" if self.cut_short else ""
        return (
            f"<SearchResult {self.algorithm}: {_value_line(self)}; best {best or '-'}; "
            f"{self.stats.nodes:,} nodes in {self.stats.seconds:.3f} s{cut}>"
        )


class Scored(NamedTuple):
    """A position's score alone and what its search cost: what ``gametree solve --batch`` prints.

    ``weak``: the score is only the sign (+1, 0, -1) of the exact score.  See
    :func:`gametree.search.prepare_scores`.
    """

    score: int | float
    weak: bool
    nodes: int
    seconds: float


class Root(NamedTuple, Generic[M]):
    """The root moves searched and their values (a named tuple: cheaper to build than a frozen dataclass)."""

    moves: list[M]
    values: list[float]


def check_game(game: Game[S, M], algorithm: str = "minimax search", supports: Collection[GameKind] = ()) -> None:
    """Refuse a game ``algorithm`` (which supports the kinds ``supports``) cannot search, in one line
    naming the property that fails (see :func:`gametree.game.refusal`)."""
    why = refusal(algorithm, supports, game)
    if why is not None:
        raise UnsupportedGameError(why)


def start(game: Game[S, M], state: S | None, *, checked: bool = False) -> S:
    """The state to search (the start if None), refused if the game is over; ``checked``: the game was checked
    before."""
    if not checked:
        check_game(game)
    state = game.initial_state() if state is None else state
    if game.outcome(state) is not None:
        raise GameOverError("the game is over: there is nothing to search")
    return state


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def position(game: Game[S, M], state: S | None = None, moves: str | None = None) -> S:
    """The position a search is asked about, its arguments checked: ``state`` (a state of
    ``game``, None for the start), or the start after ``moves`` (move texts, as
    :func:`gametree.play_text` reads them).

    Raises :class:`TypeError` naming the argument for a ``game`` that is no game,
    a ``state`` of another type than the game's states (a string of moves, say),
    ``moves`` that are not a string, or both ``state`` and ``moves``; and what
    :func:`gametree.play_text` raises for a bad move.  Every search starts here.
    """
    if not (hasattr(game, "info") and hasattr(game, "initial_state") and hasattr(game, "legal_moves")):
        raise TypeError(
            f"game: expected a Game (such as load().game('tictactoe').create()), not {type(game).__name__} "
            f"{_shown(game)}"
        )
    if moves is not None:
        if state is not None:
            raise TypeError("give state or moves, not both (moves are played from the start)")
        if not isinstance(moves, str):
            raise TypeError(
                f"moves: expected a string of moves such as 'B2 A1', not {type(moves).__name__} {_shown(moves)}"
            )
        return play_text(game, moves)
    initial = game.initial_state()
    if state is None:
        return initial
    if not isinstance(state, type(initial)) and not isinstance(initial, type(state)):
        hint = f" (for the position after those moves, pass moves={_shown(state)})" if isinstance(state, str) else ""
        raise TypeError(
            f"state: expected a state of the game ({type(initial).__name__}), not {type(state).__name__} "
            f"{_shown(state)}{hint}"
        )
    return state


def deepest(per_depth: tuple[int, ...]) -> int:
    """The deepest height with a node (0 if none), without looking at every height."""
    zeros = per_depth.count(0)
    size = len(per_depth)
    if zeros == size:
        return 0
    first = 0 if per_depth[0] else next(i for i, n in enumerate(per_depth) if n)
    # The heights searched are one run from the first: a node's parent is counted one higher up.
    end = per_depth.index(0, first) if zeros > first else size
    if zeros != first + size - end:  # not one run after all (a caller counting its own way)
        return max(i for i, n in enumerate(per_depth) if n)
    return end - 1


def stats_of(
    per_depth: Sequence[int],
    seconds: float,
    *,
    nodes: int | None = None,
    terminals: int = 0,
    heuristic: int = 0,
    cutoffs: int = 0,
    table: tuple[int, int, int] = (0, 0, 0),
    iterations: int | None = None,
) -> SearchStats:
    """:class:`SearchStats` from nodes counted by height (``nodes``: their sum unless given) and
    the other counts; ``table``: the transposition table's probes, hits and stores."""
    counted = tuple(per_depth)
    last = deepest(counted)
    total = sum(counted) if nodes is None else nodes
    # Positional, in field order: keywords cost a microsecond more per search.
    return SearchStats(
        total,
        terminals,
        heuristic,
        cutoffs,
        *table,
        last,
        seconds,
        total / seconds if seconds > 0 else 0.0,
        counted[: last + 1],
        iterations,
    )


def freeze(
    counters: Counters, table: TranspositionTable | None, seconds: float, base: tuple[int, int, int]
) -> SearchStats:
    """The counters of one search as :class:`SearchStats`; ``base``: the table's counts before it."""
    return counted(counters, seconds, base, (table.probes, table.hits, table.stores) if table is not None else base)


def counted(
    counters: Counters, seconds: float, before: tuple[int, int, int], after: tuple[int, int, int]
) -> SearchStats:
    """The counters of one search as :class:`SearchStats`, with the table's probes, hits and stores
    counted ``before`` and ``after`` it (an engine's ``table_counts()``)."""
    table = (after[0] - before[0], after[1] - before[1], after[2] - before[2])
    return stats_of(
        counters.per_depth,
        seconds,
        terminals=counters.terminals,
        heuristic=counters.heuristic,
        cutoffs=counters.cutoffs,
        table=table,
    )


class InconsistentSearch(AssertionError):
    """A search whose values contradict each other (no move keeps the position's value): a bug, or
    known values (a solution store) that were damaged or forged; :func:`gametree.search.known.answer`
    reports the latter as :class:`gametree.search.known.DamagedValues`."""


def best_move(engine: SearchEngine, state: State, value: float, height: int = 0) -> Any:
    """The first move of ``state`` (in the game's order) that keeps its ``value``: the child's
    value, confirmed with a narrow window around ``-value``, is exactly ``-value``.  None if a
    depth-limited engine finds none (its table holds heuristic values of other depths)."""
    game = engine.game
    target = -value
    lo, hi = target - EPSILON, target + EPSILON
    # The first in the game's order, whatever the engine's table holds: both engines give the same line.
    for move in game.legal_moves(state):
        got = engine.search(game.play(state, move), lo, hi, height + 1)
        if lo < got < hi:
            return move
    if engine.limit < UNLIMITED_DEPTH:
        # Depth-limited: a table kept from deeper searches (a later iteration cut short, an earlier
        # search of a transposition) may hold heuristic values of another depth than ``value``'s.
        return None
    raise InconsistentSearch("no move keeps the value: the search is inconsistent")


def principal_variation(engine: SearchEngine, state: State, first: Move, value: float) -> tuple[list[Any], bool]:
    """Follow moves that keep ``value`` from ``state`` (whose best move is ``first``).

    Returns the moves and whether the line reaches the end of the game.  Each
    step confirms a child's value with a narrow window around it, so every
    move on the line is really optimal under the depth-aware scores.
    """
    game = engine.game
    line = [first]
    state = game.play(state, first)
    value = -value
    height = 1
    while True:
        if game.outcome(state) is not None:
            return line, True
        if height >= engine.limit:
            return line, False
        move = best_move(engine, state, value, height)
        if move is None:  # (depth-limited, with a table of deeper searches: the line ends here)
            return line, False
        line.append(move)
        state, value, height = game.play(state, move), -value, height + 1


def value_and_winner(score: float, me: int, proven: bool) -> tuple[Value, int | None]:
    """The value and the winner of a root score for player ``me``."""
    if not proven:
        return "unknown", None
    if score > 0:
        return "win", me
    if score < 0:
        return "loss", 1 - me
    return "draw", None


def proven_score(game: Game[S, M], heuristic: bool, score: float) -> bool:
    """Whether a search's score proves the value: always without heuristic leaves; with them only
    a win or a loss of a win/draw/loss game (its estimates lie inside (-1, 1)), never a margin
    game's score (its estimates lie among its margins)."""
    return not heuristic or (abs(score) >= 1 and not game.info.margin)


def whole(score: float, proven: bool) -> int | float:
    """A proven score as the whole number it is (an ``int``); a heuristic one as it is."""
    return int(score) if proven and float(score).is_integer() else score


def assemble(
    algorithm: str,
    game: Game[S, M],
    state: S,
    score: float,
    proven: bool,
    plies_to_end: int | None,
    best_moves: tuple[str, ...],
    move_values: tuple[MoveValue, ...],
    pv: tuple[str, ...],
    depth: int | None,
    stats: SearchStats,
    weak: bool = False,
) -> SearchResult:
    """A :class:`SearchResult`, its side to move, value and winner derived from ``score``."""
    me = game.to_move(state)
    value, winner = value_and_winner(score, me, proven)
    score = whole(score, proven)
    # Positional, in field order: keywords cost a microsecond more per result.
    result = SearchResult(
        algorithm, me, value, winner, score, proven, plies_to_end, best_moves, move_values, pv, depth, stats, weak
    )
    if game.info.margin and proven and not weak:
        return dataclasses.replace(result, margin=int(score))
    return result


def build_result(
    algorithm: str,
    game: Game[S, M],
    state: S,
    root: Root[Any],
    lines: SearchEngine | None,
    depth: int | None,
    stats: SearchStats,
    *,
    heuristic: bool = False,
    weak: bool = False,
    move_lines: bool = True,
) -> SearchResult:
    """The result of a search whose root moves got ``root.values``.

    ``lines``: the engine that follows the principal variation and (unless not
    ``move_lines``) each move's line to the end (None: no line beyond the best
    move).  ``heuristic``: some value came from a depth limit (then only a win
    or loss is proven).
    """
    fmt = game.format_move
    if len(root.moves) == 1 and lines is None:  # one root move and no line to follow: the short way
        move, score = root.moves[0], root.values[0]
        text = fmt(state, move)
        proven = proven_score(game, heuristic, score)
        return assemble(
            algorithm,
            game,
            state,
            score,
            proven,
            None,
            (text,),
            (MoveValue(text, whole(score, proven), None, True, game_move=move),),
            (text,),
            depth,
            stats,
            weak,
        )
    best_value = max(root.values)
    texts = [fmt(state, m) for m in root.moves]
    best = root.values.index(best_value)
    if lines is not None:
        pv_raw, ended = principal_variation(lines, state, root.moves[best], best_value)
    else:
        pv_raw, ended = [root.moves[best]], False
    proven = proven_score(game, heuristic, best_value)
    plies = len(pv_raw) if ended else None

    def plies_of(i: int, move: Move, v: float) -> int | None:
        if i == best:
            return plies
        if not ended or lines is None or not move_lines:
            return None
        line, done = principal_variation(lines, state, move, v)
        return len(line) if done else None

    move_values = tuple(
        MoveValue(
            move=text,
            score=whole(v, proven_score(game, heuristic, v)),
            plies_to_end=plies_of(i, m, v),
            best=v == best_value,
            game_move=m,
        )
        for i, (m, v, text) in enumerate(zip(root.moves, root.values, texts))
    )
    pv_text = [texts[best]]
    s = state
    for previous, m in zip(pv_raw, pv_raw[1:]):
        s = game.play(s, previous)
        pv_text.append(fmt(s, m))
    best_moves = tuple(text for text, v in zip(texts, root.values) if v == best_value)
    return assemble(
        algorithm, game, state, best_value, proven, plies, best_moves, move_values, tuple(pv_text), depth, stats, weak
    )


def timed(result: SearchResult, started: float) -> SearchResult:
    """``result`` reporting all the time since ``started`` (a :func:`time.perf_counter` time): the
    lines of play followed after the search too (its nodes per second stay the search's own)."""
    return dataclasses.replace(result, stats=dataclasses.replace(result.stats, seconds=time.perf_counter() - started))


def scores_of(solve: Callable[[S], SearchResult]) -> Callable[[S], Scored]:
    """``solve`` with its results cut down to :class:`Scored`."""

    def scored(state: S) -> Scored:
        result = solve(state)
        return Scored(result.score, result.weak, result.stats.nodes, result.stats.seconds)

    return scored


# -- how a result shows itself in Jupyter ------------------------------------------------------
# Here, beside the result, so that search imports nothing of the notebook layer (gametree.notebook
# draws positions); every text is escaped, and the markup uses inline styles only.

#: At most this many move rows in a result's HTML table (the result itself holds them all).
MAX_MOVE_ROWS = 60

_TABLE = "border-collapse:collapse;font-size:90%"
_CELL = "border:1px solid #ccc;padding:1px 6px"
_NOTE = "color:#666;font-size:90%"


def _esc(value: object) -> str:
    import html  # (only for notebooks: not at every start-up)

    return html.escape(str(value), quote=True)


def _q(style: str) -> str:
    return f'"{_esc(style)}"'


def _score(value: float) -> str:
    if float(value).is_integer():
        return f"{int(value):+d}" if value else "0"
    return f"{value:+.3f}"


def _outcome(result: SearchResult, move: MoveValue) -> str:
    """A move's outcome for the side that plays it: only a whole (proven) score says one."""
    if result.margin is not None:  # (a margin game's proven result: every move's score is proven)
        return margin_text(move.score)
    unproven = not float(move.score).is_integer() or (not result.proven and abs(move.score) < 1)
    return "?" if unproven else "win" if move.score > 0 else "loss" if move.score < 0 else "draw"


def _value_line(result: SearchResult) -> str:
    side = f"player {result.to_move + 1}"
    if not result.proven:
        bounds = result.score_bounds  # set by an exact search cut short
        proven = f"; score proven in [{_score(bounds[0])}, {_score(bounds[1])}]" if bounds is not None else ""
        return f"unknown for {side}, to move (score {_score(result.score)}, not proven{proven})"
    plies = "" if result.plies_to_end is None else f" in {plies_text(result.plies_to_end)}"
    weak = "; weak solve: who wins, not how fast" if result.weak else ""
    if result.margin is not None:
        return f"{margin_text(result.margin)}{plies} (margin {_score(result.score)} for {side}, to move)"
    return f"{result.value}{plies} (score {_score(result.score)} for {side}, to move{weak})"


def plies_text(plies: int) -> str:
    """``"1 ply"``, ``"3 plies"``."""
    return f"{plies} ply" if plies == 1 else f"{plies} plies"


def _stats_line(result: SearchResult) -> str:
    stats = result.stats
    parts = [f"{stats.nodes:,} nodes", f"{stats.seconds:.3f} s"]
    if stats.iterations is not None:
        parts.append(f"{stats.iterations:,} iterations")
    else:
        parts.append(f"{stats.cutoffs:,} cutoffs")
        if stats.cache_probes:
            parts.append(f"{stats.cache_hits:,} of {stats.cache_probes:,} cache probes hit")
    if result.depth is not None:
        parts.append(f"depth {result.depth}")
    return ", ".join(parts)


def result_html(result: SearchResult) -> str:
    """A search result as a small HTML summary: its value, a table of the moves (best first),
    the best moves, the principal variation and what the search cost."""
    monte_carlo = any(mv.visits is not None for mv in result.move_values)
    heads = ["move", "score", "outcome", "plies to end"] + (["visits", "mean"] if monte_carlo else [])
    rows = [f"<tr>{''.join(f'<th style={_q(_CELL)}>{h}</th>' for h in heads)}</tr>"]
    ordered = sorted(result.move_values, key=lambda mv: -mv.score)
    for mv in ordered[:MAX_MOVE_ROWS]:
        cells = [mv.move, _score(mv.score), _outcome(result, mv), "-" if mv.plies_to_end is None else mv.plies_to_end]
        if monte_carlo:
            cells += [f"{mv.visits or 0:,}", "-" if mv.mean is None else f"{mv.mean:+.3f}"]
        weight = "font-weight:bold;" if mv.best else ""
        rows.append(f"<tr style={_q(weight)}>{''.join(f'<td style={_q(_CELL)}>{_esc(c)}</td>' for c in cells)}</tr>")
    notes = []
    if len(ordered) > MAX_MOVE_ROWS:
        notes.append(f"{len(ordered) - MAX_MOVE_ROWS:,} more moves not shown")
    unscored = result.unscored  # moves a search cut short did not score
    if unscored:
        notes.append(f"not scored (cut short): {' '.join(unscored)}")
    parts = [
        f"<div><b>{_esc(result.algorithm)}</b>: {_esc(_value_line(result))}</div>",
        f"<table style={_q(_TABLE)}>{''.join(rows)}</table>",
        *(f"<div style={_q(_NOTE)}>{_esc(note)}</div>" for note in notes),
        f"<div>best: <code>{_esc(' '.join(result.best_moves))}</code>; line: "
        f"<code>{_esc(' '.join(result.pv))}</code></div>",
        f"<div style={_q(_NOTE)}>{_esc(_stats_line(result))}</div>",
    ]
    return f'<div class="gametree-result">{"".join(parts)}</div>'
