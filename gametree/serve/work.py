"""The searches of the web application, as jobs a worker process does: every move's value, a
computer player's move, the search tree's explorer page.

A job is a frozen dataclass naming a position by request (game, options, moves) and the
seconds it may take; its answer is a frozen dataclass too (:class:`Analysis`,
:class:`ComputerMove`, :class:`TreePage`) or a :class:`Failure` (a status and one line).
:func:`run_job` does one job with the process's :class:`WorkerContext` (the registry, with
the ``-p`` plugins, and the solution store, opened once a process); :mod:`gametree.serve.pool`
runs it in worker processes, and tests call it directly.

Values come from the tier directories given (``gametree serve --tiers DIR``, :mod:`.tiers`) for
their games and boards, then from the store and the books a game ships (the solver reads them), else
from a search within the job's time: proven values are marked exact; a search cut short by its
time gives its best guess, marked so.  Each move's value is said as the game's kind calls for:
win, draw or loss in so many plies, a margin game's final margin, a game with dice's winning
probability, the payoff of the player moving in a game of more players.
"""

from __future__ import annotations

import collections
import dataclasses
import os
import random
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from ..game import CHANCE, Game, GameError, GameKind, game_kinds
from ..play import Player, chance_move
from ..plugin.manager import load
from ..plugin.registry import AlgorithmSpec, Registry
from ..search import SearchResult, search
from ..search.results import MoveValue
from ..search.table import TranspositionTable
from ..search.values import exact_value, margin_text
from .positions import COMPUTER_PLAYERS_SKIPPED, Catalogue, Made, error_of
from .requests import AnalyseRequest, BadRequest, MoveRequest, PositionRequest
from .tiers import TierShelf

if TYPE_CHECKING:
    from ..search.known import KnownValues
    from ..store import SolutionStore
    from ..tier_book import TierBook

__all__ = [
    "ANALYSERS",
    "Analysis",
    "AnalyseJob",
    "Answer",
    "ComputerMove",
    "Failure",
    "Job",
    "MoveJob",
    "MoveReport",
    "Source",
    "TreeJob",
    "TreePage",
    "WorkerContext",
    "WorkerSetup",
    "add_books",
    "analyser_for",
    "analysis_of",
    "stored_analysis",
    "tier_analysis",
    "move_report",
    "run_job",
]

#: The algorithms an analysis runs, the first that can search the game: the exact solver (two players,
#: win/draw/loss or a margin), retrograde analysis (positions that repeat), value iteration (dice whose
#: positions repeat), expectiminimax (dice), max^n (more players).
ANALYSERS = ("solver", "retrograde", "value-iteration", "expectiminimax", "maxn")
#: Entries of an analysis's transposition table (a worker keeps no table between jobs).
TABLE_ENTRIES = 500_000
#: Computer players a worker keeps between moves (with their tables).
KEPT_PLAYERS = 4
#: The most nodes a tree page shows.
TREE_NODES = 1500

Value = Literal["win", "draw", "loss", "unknown"]
Source = Literal["tiers", "store", "search", "guess", "busy", "timeout", "over", "chance"]


@dataclass(frozen=True, slots=True)
class WorkerSetup:
    """What a worker process needs to start: the ``-p`` plugins, the store's path (None: no store),
    the module path (where ``-p`` modules are found) and the tier directories (``--tiers``)."""

    plugins: tuple[str, ...] = ()
    store: str | None = None
    sys_path: tuple[str, ...] = ()
    tiers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MoveReport:
    """One legal move's value for the player making it.

    ``value``: win, draw or loss (by the sign of a margin or an expected payoff), or unknown (not
    scored in time); ``label``: short, for the board ("W3", "+4", "62%"); ``text``: in words;
    ``exact``: proven (else the search's best guess); ``probability``: the chance of winning (games
    with dice); ``payoff``: the mover's payoff (games of more players)."""

    move: str
    value: Value
    label: str
    text: str
    exact: bool
    score: float | None = None
    plies: int | None = None
    probability: float | None = None
    payoff: float | None = None


@dataclass(frozen=True, slots=True)
class Analysis:
    """Every legal move's value in a position; ``source``: from a tier directory, from the store,
    proven by a search, a search's best guess, or no search at all (the server was busy, or the
    search ran out of time)."""

    moves: tuple[MoveReport, ...]
    value: Value
    text: str
    exact: bool
    source: Source
    algorithm: str
    seconds: float
    to_move: int


@dataclass(frozen=True, slots=True)
class ComputerMove:
    """A computer player's move, how it was chosen, and in how many seconds."""

    move: str
    player: str
    seconds: float


@dataclass(frozen=True, slots=True)
class TreePage:
    """The explorer's page of a search tree of the position."""

    html: str
    algorithm: str
    nodes: int


@dataclass(frozen=True, slots=True)
class Failure:
    """A job that could not be done: the HTTP status and one line."""

    status: int
    message: str


@dataclass(frozen=True, slots=True)
class AnalyseJob:
    request: AnalyseRequest
    #: Seconds the search may take (what is left of the request's budget when a worker takes it up).
    seconds: float


@dataclass(frozen=True, slots=True)
class MoveJob:
    request: MoveRequest
    seconds: float


@dataclass(frozen=True, slots=True)
class TreeJob:
    position: PositionRequest
    seconds: float


Job = AnalyseJob | MoveJob | TreeJob
Answer = Analysis | ComputerMove | TreePage | Failure


@runtime_checkable
class _Solving(Protocol):
    """A player that reads and writes a solution store (the built-in search players)."""

    store: KnownValues | None


@runtime_checkable
class _TierReading(Protocol):
    """A player that reads its moves from a tier directory (the perfect player)."""

    tiers: TierBook | None


class WorkerContext:
    """What a worker process keeps between jobs: the registry (with the ``-p`` plugins) and the store."""

    def __init__(self, setup: WorkerSetup) -> None:
        for entry in reversed(setup.sys_path):
            if entry not in sys.path:
                sys.path.insert(0, entry)
        self.setup = setup
        self.registry: Registry = load(extra=setup.plugins)
        self.catalogue = Catalogue(self.registry)
        self._store: SolutionStore | None = None
        self._shelf: TierShelf | None = None
        #: Computer players kept between moves (by game, options, player and seconds), oldest first.
        self.players: collections.OrderedDict[tuple[object, ...], Player] = collections.OrderedDict()

    def entries(self, made: Made) -> KnownValues | None:
        """The store's entries for ``made``'s game and board (None: no store); the books games ship are
        added by the server as it starts (:func:`add_books`), not by each worker."""
        from ..game import Configurable

        if self.setup.store is None or not isinstance(made.game, Configurable):
            return None
        from ..store import SolutionStore

        if self._store is None:
            self._store = SolutionStore(self.setup.store)
        return self._store.entries_of(made.spec.name, dict(made.game.options()))

    def shelf(self) -> TierShelf:
        """The tier directories (``--tiers``), opened at the first job (the server checked them)."""
        if self._shelf is None:
            self._shelf = TierShelf(self.registry, self.setup.tiers)
        return self._shelf


def add_books(path: str | None, registry: Registry) -> None:
    """Add to the store at ``path`` the books the installed games ship, each once (what the commands do on
    a board's first use), before the workers read it; nothing without a store or where it is read-only."""
    if path is None:
        return
    from ..default_store import add_shipped_books, book_board
    from ..store import SolutionStore

    store = SolutionStore(path)
    try:
        for spec in registry.games.values():
            for shipped in spec.books:
                board = book_board(shipped)
                if board is not None and board[0] == spec.name and not store.readonly:
                    add_shipped_books(store, store.entries_of(spec.name, board[1]), spec, board[1])
    finally:
        store.close()


def analyser_for(registry: Registry, game: Game[Any, Any]) -> AlgorithmSpec | None:
    """The first of :data:`ANALYSERS` installed that can search ``game`` (None: none can)."""
    for name in ANALYSERS:
        spec = registry.algorithms.get(name)
        if spec is not None and spec.refusal(game) is None:
            return spec
    return None


def move_report(game: Game[Any, Any], result: SearchResult, mv: MoveValue) -> MoveReport:
    """``mv``'s value said for the kind of ``game`` (see :class:`MoveReport`)."""
    exact = result.proven and mv.move not in result.unscored
    guess = "" if exact else " (best guess)"
    info = game.info
    if mv.move in result.unscored:
        return MoveReport(mv.move, "unknown", "?", "not scored in time", False)
    score = float(mv.score)
    value: Value = "win" if score > 0 else "loss" if score < 0 else "draw"
    if info.players > 2 or mv.payoffs is not None:
        mover = result.to_move
        paid = float(mv.payoffs[mover]) if mv.payoffs is not None else score
        return MoveReport(
            mv.move,
            value,
            f"{paid:.2g}",
            f"payoff {paid:.3g} for the mover{guess}",
            exact,
            score,
            mv.plies_to_end,
            payoff=paid,
        )
    if not info.deterministic:
        p = (score + 1) / 2
        said = f"{100 * p:.0f}%"
        return MoveReport(
            mv.move, value, said, f"wins with probability {p:.3f}{guess}", exact, score, mv.plies_to_end, probability=p
        )
    if not exact:
        return MoveReport(mv.move, value, f"~{score:+.2g}", f"estimate {score:+.3g}{guess}", False, score)
    if info.margin:
        margin = int(mv.score)
        return MoveReport(mv.move, value, f"{margin:+d}", margin_text(margin), True, score, mv.plies_to_end)
    outcome = exact_value(mv.score, mv.plies_to_end)
    plies = mv.plies_to_end
    letter = value[0].upper()
    label = letter if value == "draw" or plies is None else f"{letter}{plies}"
    return MoveReport(mv.move, value, label, outcome.text, True, score, plies)


def _position_text(game: Game[Any, Any], result: SearchResult) -> str:
    """The position's value for the side to move, in words."""
    if not result.proven:
        return "not proven in time: best guesses"
    if game.info.players > 2 and result.payoffs is not None:
        return "payoffs " + ", ".join(f"{name} {p:.3g}" for name, p in zip(game.info.player_names, result.payoffs))
    if not game.info.deterministic:
        return f"wins with probability {(float(result.score) + 1) / 2:.3f}"
    outcome = result.outcome
    return outcome.text if outcome is not None else result.value


def _analyse(context: WorkerContext, job: AnalyseJob) -> Analysis:
    started = time.perf_counter()
    made = context.catalogue.make(job.request.position)
    game, state = made.game, made.state
    if game.outcome(state) is not None:
        return Analysis((), "unknown", "the game is over", True, "over", "", 0.0, game.to_move(state))
    if game.to_move(state) == CHANCE:
        return Analysis((), "unknown", "chance is to move: the dice decide", True, "chance", "", 0.0, CHANCE)
    from_tiers = tier_analysis(context.shelf(), made)
    if from_tiers is not None:
        return from_tiers
    spec = analyser_for(context.registry, game)
    if spec is None:
        raise BadRequest(f"no installed algorithm can analyse {made.spec.name}", 422)
    options: dict[str, Any] = {}
    if "time_limit" in spec.takes:
        options["time_limit"] = max(0.05, job.seconds)
    if "analysis_time" in spec.takes:
        options["analysis_time"] = max(0.05, job.seconds)
    if "store" in spec.takes:
        options["store"] = context.entries(made)
    if "cache" in spec.takes:
        options["cache"] = TranspositionTable(TABLE_ENTRIES)
    result = search(spec.name, game, state, **options)
    return analysis_of(game, result, time.perf_counter() - started)


def analysis_of(game: Game[Any, Any], result: SearchResult, seconds: float) -> Analysis:
    """The :class:`Analysis` a search's ``result`` gives."""
    moves = tuple(move_report(game, result, mv) for mv in result.move_values)
    exact = result.proven and not result.unscored
    source: Source = "store" if result.from_store else "search" if result.proven else "guess"
    text = _position_text(game, result)
    return Analysis(moves, result.value, text, exact, source, result.algorithm, seconds, result.to_move)


def tier_analysis(shelf: TierShelf, made: Made) -> Analysis | None:
    """The analysis of ``made``'s position from its tier directory in ``shelf`` (``source``
    ``"tiers"``: every move's exact value and remoteness), else None (:meth:`TierShelf.result`)."""
    started = time.perf_counter()
    result = shelf.result(made)
    if result is None:
        return None
    return dataclasses.replace(analysis_of(made.game, result, time.perf_counter() - started), source="tiers")


def stored_analysis(made: Made, known: KnownValues) -> Analysis | None:
    """The analysis of ``made``'s position from the store alone (every move's exact value stored), else None."""
    from ..search.known import stored_result

    game, state = made.game, made.state
    if game.outcome(state) is not None or game.to_move(state) == CHANCE or game_kinds(game.info) - {GameKind.MARGIN}:
        return None
    started = time.perf_counter()
    result = stored_result(game, state, known)
    return None if result is None else analysis_of(game, result, time.perf_counter() - started)


def _move(context: WorkerContext, job: MoveJob) -> ComputerMove:
    request = job.request
    if request.player in COMPUTER_PLAYERS_SKIPPED:
        raise BadRequest(f"player {request.player!r} is not a computer player the page offers")
    factory = context.registry.players.get(request.player)
    if factory is None:
        known = ", ".join(n for n in context.registry.players if n not in COMPUTER_PLAYERS_SKIPPED)
        raise BadRequest(f"unknown player {request.player!r} (installed: {known})", 404)
    made = context.catalogue.make(request.position)
    game, state = made.game, made.state
    if game.outcome(state) is not None:
        raise BadRequest("the game is over", 409)
    started = time.perf_counter()
    if game.to_move(state) == CHANCE:  # (the dice roll, whoever is asked: drawn with its probability)
        rolled = chance_move(game, state, random.Random(request.seed))
        return ComputerMove(game.format_move(state, rolled), "chance", time.perf_counter() - started)
    seconds = f"{max(0.05, job.seconds / 2):.2f}"
    key = (request.position.game, request.position.options, request.player, seconds)
    player = context.players.pop(key, None)
    if player is None:
        os.environ["GAMETREE_MCTS_SECONDS"] = seconds  # (read when the player is made)
        os.environ["GAMETREE_PERFECT_SECONDS"] = seconds
        try:
            made_player = factory()
        except (ValueError, GameError) as exc:
            raise BadRequest(f"player {request.player}: {exc}", 422) from None
        if not isinstance(made_player, Player) or made_player.human:
            raise BadRequest(f"player {request.player} (from {factory.source}) is no computer player", 422)
        player = made_player
        if isinstance(player, _Solving):
            player.store = context.entries(made)
    if isinstance(player, _TierReading):  # (the perfect player: its board's tier directory, if given)
        player.tiers = context.shelf().book_for(made)
    context.players[key] = player  # (kept, the last few: its tables serve the game's next moves)
    while len(context.players) > KEPT_PLAYERS:
        context.players.popitem(last=False)
    move = player.choose(game, state, random.Random(request.seed))
    text = game.format_move(state, move)
    return ComputerMove(text, request.player, time.perf_counter() - started)


#: Depths a tree page tries, deepest first, until the tree fits in :data:`TREE_NODES` (None: to the end).
TREE_DEPTHS = (None, 8, 6, 4, 3, 2, 1)


def _tree(context: WorkerContext, job: TreeJob) -> TreePage:
    from ..tree import TreeTooLargeError, capture
    from ..tree.explorer import explorer_html
    from ..tree.general import OBSERVED, capture_search, observed_search

    made = context.catalogue.make(job.position)
    game, state = made.game, made.state
    if game.outcome(state) is not None:
        raise BadRequest("the game is over: there is no tree to search", 409)
    title = f"{made.spec.name} after {' '.join(made.moves) or 'no moves'}"
    kinds = game_kinds(game.info)
    if not kinds or kinds == {GameKind.MARGIN}:  # (alpha-beta's: the engine's tree)
        for depth in TREE_DEPTHS:
            try:
                tree = capture(game, state, algorithm="alphabeta", depth=depth, max_nodes=TREE_NODES)
            except TreeTooLargeError:
                continue
            return TreePage(explorer_html(tree, title=title), "alphabeta", tree.graph.number_of_nodes())
        raise BadRequest("even a one-ply search tree of this position is too large to show", 422)
    for name in ("expectiminimax", "maxn"):  # (games with dice; games of more players)
        spec = context.registry.algorithms.get(name)
        if name not in OBSERVED or spec is None or spec.refusal(game) is not None:
            continue
        for depth in TREE_DEPTHS:
            search = observed_search(game, state, name, depth=depth)
            try:
                tree = capture_search(game, search, max_nodes=TREE_NODES, options={"depth": depth, "cache": False})
            except TreeTooLargeError:
                continue
            return TreePage(explorer_html(tree, title=title), name, tree.graph.number_of_nodes())
    raise BadRequest(f"the explorer has no search tree for {made.spec.name}: " + ", ".join(sorted(kinds)), 422)


def run_job(context: WorkerContext, job: Job) -> Answer:
    """Do ``job``; a refused request or an error is a :class:`Failure`, never an exception."""
    try:
        if isinstance(job, AnalyseJob):
            return _analyse(context, job)
        if isinstance(job, MoveJob):
            return _move(context, job)
        return _tree(context, job)
    except BadRequest as exc:
        return Failure(exc.status, exc.message)
    except GameError as exc:
        return Failure(422, error_of(exc))
    except Exception as exc:  # noqa: BLE001 (a plugin's game or player failing: one line, never a traceback)
        return Failure(500, error_of(exc))
