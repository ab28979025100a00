"""The exact solver: proven values, best moves and lines, set up once per game.

:class:`Solver` chooses the engine for each position (the Python reference, or
the compiled one where the game has compiled rules and the search is long
enough to pay for loading it), drives it with the null-window narrowing of
:func:`gametree.search.exact.exact_score`, reads and writes known values
(:mod:`gametree.search.known`) when it is given them, and bounds its work by
time: a value not proven in time gives way to a heuristic best guess, marked so.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..game import Game, M, Move, S, State, UnsupportedGameError
from ..runtime.alarm import Alarm
from .classic import alphabeta
from .compiled import CompiledEngine, EngineChoice, break_even_nodes, compiled_rules, use_compiled
from .contract import SearchEngine, SearchTimeout
from .engine import Engine
from .exact import exact_score
from .known import KnownValues, Remembering, answer, remember
from .margins import ENGINE_KINDS, top_score
from .probe import NodeBudget, ProbeExhausted, WorkTally
from .progress import SolveProgress
from .results import (
    CutShort,
    Root,
    Scored,
    SearchResult,
    SearchStats,
    best_move,
    build_result,
    check_game,
    counted,
    deepest,
    position,
    scores_of,
    start,
    timed,
    whole,
)
from .table import Bound, TranspositionTable, table_of

if TYPE_CHECKING:
    from .shared_table import SharedTable

__all__ = ["EXACT_SHARE", "Solver", "prepare", "prepare_scores", "search_stats", "solver"]

#: The share of a time limit the solver spends proving the value; if that is not enough, the
#: rest goes to iterative deepening with the game's heuristic for a best guess.
EXACT_SHARE = 0.75


class Solver:
    """The exact solver bound to one game and one transposition table.

    ``Solver(game, cache=table).solve(state)`` is ``solver(game, state, cache=table)``.
    Built once, it solves many positions in a row (``gametree solve --batch``, a
    player's moves) without setting its search up again for each one; they all
    share the table.  Not for two threads at once.
    """

    def __init__(
        self,
        game: Game[Any, Any],
        *,
        cache: TranspositionTable | bool | None = True,
        symmetry: bool = True,
        engine: EngineChoice = "auto",
        store: KnownValues | None = None,
        shared: SharedTable | None = None,
    ) -> None:
        check_game(game, "solver", ENGINE_KINDS)
        #: The compiled engine's table shared with other processes (gametree.search.shared_table).
        self.shared = shared
        self.game = game
        #: The solution store's entries of this game (:class:`gametree.search.known.KnownValues`): read before
        #: searching, and what is proven is written to it.
        self.store = store
        #: Why the last write to the store failed, if it did.
        self.store_error: str | None = None
        self._lines_stored: Remembering | None = None
        self.table = table_of(cache)
        self.symmetry = symmetry
        self.choice = engine
        use_compiled(game, engine, game.info.max_plies)  # "compiled" that cannot be: say so now
        # (a budget only where the compiled engine can search: reading its flag costs a Python node a few per cent)
        probes = engine == "auto" and compiled_rules(game) is not None
        #: ``auto``: the Python engine's work so far (None: no probe), and its node budget (gametree.search.probe).
        self.work = WorkTally(functools.partial(break_even_nodes, game)) if probes else None
        self._budget = NodeBudget() if probes else None
        self._python: Engine | None = None
        self._compiled: CompiledEngine | None = None
        #: Follows lines to the end for principal variations, without counting (built on first use).
        self._lines: Engine | None = None
        #: The most plies left of the positions a batch will solve (:meth:`expect`; None: not said).
        self._deepest: int | None = None

    @property
    def engine(self) -> SearchEngine:
        """The engine of the last search (before any: the engine a search of the start would use)."""
        if self._compiled is not None:
            return self._compiled
        if self._python is not None:
            return self._python
        return self.engine_for(self.game.initial_state())

    def engine_for(self, state: State, budget: float | None = None, *, probe: bool = False) -> SearchEngine:
        """The engine that searches ``state``: the compiled one once built (its start-up is paid),
        else as :func:`gametree.search.compiled.use_compiled` says for the plies left and the time
        ``budget`` of the search.  ``probe`` (this solver's own searches, which handle
        :class:`~gametree.search.probe.ProbeExhausted`): ``auto`` then searches on the Python
        engine first, within the node budget of :mod:`gametree.search.probe` (armed here), until
        the work says the compiled engine pays."""
        if self._compiled is not None:
            return self._compiled
        game = self.game
        plies = game.info.max_plies - game.ply(state)
        if self.choice != "python" and use_compiled(game, self.choice, plies, budget):
            if not (probe and self.work is not None and not self.work.handed_over):
                compiled = self._compiled_engine()
                if compiled is not None:
                    return compiled
                probe = False
        else:
            probe = False
        if self._python is None:
            self._python = Engine(game, table=self.table, symmetry=self.symmetry, threats=True, stop=self._budget)
        if self._budget is not None:
            if probe and self.work is not None:
                self._budget.arm(self.work.left())
            else:
                self._budget.disarm()
        return self._python

    def _compiled_engine(self) -> CompiledEngine | None:
        """The compiled engine, built now (None: it cannot be loaded, and ``auto`` goes on in Python)."""
        rules = compiled_rules(self.game)
        assert rules is not None  # (use_compiled said so)
        try:
            self._compiled = CompiledEngine(
                self.game, rules, table=self.table, symmetry=self.symmetry, shared=self.shared
            )
            if self._deepest is not None:
                self._compiled.reserve(self._deepest)
            return self._compiled
        except ImportError as exc:  # numba (or the rules' module) is there but broken
            if self.choice == "compiled":
                raise UnsupportedGameError(
                    f"the compiled engine cannot be loaded ({exc}): use --engine python"
                ) from None
            self.choice = "python"  # auto: the Python engine, from now on
            return None

    def _probing(self, raw: SearchEngine) -> bool:
        """Whether ``raw`` searches within ``auto``'s node budget."""
        return raw is self._python and self._budget is not None and self._budget.armed

    def _probed(self, raw: SearchEngine, nodes: int) -> None:
        """A search on ``raw`` finished after ``nodes`` nodes: counted against the budget if it was a probe."""
        if self.work is not None and self._probing(raw):
            self.work.add(nodes)
        if self._budget is not None:
            self._budget.disarm()  # (the engine is the caller's again, unbounded, until the next probe)

    def _handed_over(self) -> None:
        """The Python engine's search crossed the budget: the compiled engine from now on."""
        assert self.work is not None and self._budget is not None
        self.work.exhausted()
        self._budget.disarm()
        if self._python is not None:
            self._python.resume()

    def expect(self, positions: int, deepest: int | None = None) -> None:
        """The caller will solve this many positions with this solver (a batch): ``auto`` hands
        over to the compiled engine as soon as the work so far projects past the budget for all.
        ``deepest``: the most plies left of any of them, if known: the compiled engine's table is
        then sized for it once (:meth:`CompiledEngine.reserve`), not grown position by position."""
        if self.work is not None:
            self.work.expect(positions)
        self._deepest = deepest
        if deepest is not None and self._compiled is not None:
            self._compiled.reserve(deepest)

    def solve(
        self,
        state: State | None = None,
        *,
        moves: str | None = None,
        all_moves: bool = True,
        pv: bool = True,
        weak: bool = False,
        time_limit: float | None = None,
        analysis_time: float | None = None,
        interruptible: bool = False,
        progress: SolveProgress | None = None,
    ) -> SearchResult:
        """Solve ``state`` (default: the start; or the start after ``moves``): see :func:`solver`.

        The root's value and a best move are proven first; then (``all_moves``)
        each move's score, the best move's first.  ``time_limit``: seconds for the
        whole solve (see :func:`solver`); ``analysis_time``: seconds at most for
        scoring the moves once the root is proven.  ``interruptible``: Ctrl-C
        while the moves are scored ends that stage, and the result keeps what was
        proven (``cut_short="interrupt"``).  ``progress`` is filled as the solve
        goes (:class:`gametree.search.progress.SolveProgress`).
        """
        game = self.game
        state = start(
            game, position(game, state, moves), checked=True
        )  # (the game was checked when the solver was built)
        if time_limit is not None and weak:
            raise ValueError("weak solving proves the value; it does not combine with a time limit")
        watch = progress if progress is not None else SolveProgress()
        began = time.perf_counter()  # (a time limit counts from here: building the engine is in it)
        deadline = None if time_limit is None else began + time_limit

        def search() -> SearchResult:
            while True:
                # (a probe only for the value and a best move: scoring every move after it, a probe that
                # ran out would start again, and Ctrl-C while the moves are scored keeps what was proven)
                raw = self.engine_for(state, time_limit, probe=not all_moves or weak)
                # Through the known values, if any: what they hold is not searched again, what is proven goes to them.
                engine: SearchEngine = Remembering(raw, self.store) if self.store is not None else raw
                try:
                    result = self._solve(
                        state, raw, engine, all_moves, pv, weak, deadline, analysis_time, interruptible, watch
                    )
                    self._probed(raw, result.stats.nodes)
                    return result
                except ProbeExhausted:
                    self._handed_over()  # and again, on the compiled engine
                finally:
                    self._flush(engine)

        # The one path of a solve through known values (as the parallel solve's): all of it from them, with no
        # engine to build, else the search, whose result is recorded.  A weak solve proves less than they hold.
        result = answer(None if weak else self.store, game, state, search, all_moves=all_moves, pv=pv)
        watch.phase = "done"
        return result

    def _solve(
        self,
        state: State,
        raw: SearchEngine,
        engine: SearchEngine,
        all_moves: bool,
        pv: bool,
        weak: bool,
        deadline: float | None,
        analysis_time: float | None,
        interruptible: bool,
        watch: SolveProgress,
    ) -> SearchResult:
        game = self.game
        counters = engine.counters
        counters.reset()
        watch.engine = raw.name
        watch.count, watch.table_bytes = engine.nodes_now, engine.table_bytes
        watch.narrowed(engine.floor(game.ply(state)), top_score(game.info, game.ply(state)))
        base = engine.table_counts()
        started = time.perf_counter()
        alarm = Alarm(engine.halt)
        cut: CutShort | None = None
        unscored: tuple[str, ...] = ()
        try:
            if weak:
                watch.phase = "root"
                root = self._weak_root(engine, state, all_moves)
            else:
                # An exact answer has EXACT_SHARE of a time limit; a best guess the rest.
                alarm.at(None if deadline is None else started + EXACT_SHARE * (deadline - started))
                watch.phase = "root"
                try:
                    value, move = self._root(engine, state, watch)
                except SearchTimeout:
                    if deadline is None:  # halted from outside (engine.halt()), not by a time limit: no guess wanted
                        raise
                    alarm.cancel()
                    engine.resume()
                    return self._best_guess(state, watch, started, deadline, all_moves=all_moves, pv=pv)
                remember(engine, state, value)
                remember(engine, game.play(state, move), -value)  # (it keeps the value)
                watch.proven(value, game.format_move(state, move))
                root = Root([move], [value])
                if all_moves:
                    watch.phase = "moves"
                    ends = [
                        t
                        for t in (deadline, None if analysis_time is None else time.perf_counter() + analysis_time)
                        if t is not None
                    ]
                    alarm.at(min(ends) if ends else None)
                    root, cut = self._score_moves(engine, state, value, move, watch, interruptible)
                    unscored = tuple(game.format_move(state, m) for m in game.legal_moves(state) if m not in root.moves)
        finally:
            alarm.cancel()
            engine.resume()
        stats = search_stats(engine, time.perf_counter() - started, base)
        lines: SearchEngine | None = self._line_engine(raw) if pv and not weak else None
        if lines is raw:
            lines = engine  # (through the store too)
        elif lines is not None and self.store is not None:
            lines = self._lines_stored = Remembering(lines, self.store)
        watch.phase = "lines"
        # Cut short: the line of the best move only (each move's line to the end costs searches too).
        # A time limit bounds the lines too: past it, the moves and their scores without lines.
        line_alarm = Alarm(lines.halt) if lines is not None and deadline is not None else None
        try:
            if line_alarm is not None:
                line_alarm.at(deadline)
            result = build_result("solver", game, state, root, lines, None, stats, weak=weak, move_lines=cut is None)
        except SearchTimeout:
            result = build_result("solver", game, state, root, None, None, stats, weak=weak)
            cut = cut or "time"
        finally:
            if line_alarm is not None:
                line_alarm.cancel()
                assert lines is not None
                lines.resume()
        watch.phase = "done"
        # The reported time covers all the work, the lines too; nodes per second the searches alone.
        return dataclasses.replace(timed(result, started), unscored=unscored, cut_short=cut)

    def _flush(self, engine: SearchEngine) -> None:
        """Write to the store what the last solve proved (its searches and its lines)."""
        for stored in (engine, self._lines_stored):
            if isinstance(stored, Remembering):
                stored.flush()
                if stored.write_error is not None:
                    self.store_error = stored.write_error
        self._lines_stored = None

    def _root(self, engine: SearchEngine, state: State, watch: SolveProgress) -> tuple[float, Move]:
        """The root's exact score and a move proved to have it."""
        game = self.game
        value = exact_score(engine, state, progress=watch)
        move = engine.root.move  # proved by the last probe that raised the score to ``value``
        if move is None:
            if value <= engine.floor(game.ply(state)):  # the lowest score there is: every move has it
                move = next(iter(game.legal_moves(state)))
            else:
                move = best_move(engine, state, value)
        return value, move

    def _score_moves(
        self, engine: SearchEngine, state: State, value: float, best: Move, watch: SolveProgress, interruptible: bool
    ) -> tuple[Root[Move], CutShort | None]:
        """Every move's exact score, knowing none beats ``value`` and ``best`` has it; stopped
        by a halt of the engine (the time is up) or (``interruptible``) by Ctrl-C."""
        game = self.game
        moves = list(game.legal_moves(state))
        watch.total = len(moves)
        scores: dict[int, float] = {}
        cut: CutShort | None = None
        try:  # (Ctrl-C anywhere in the loop, not only inside a search, keeps what was proven)
            for i, m in enumerate(moves):
                if m == best:
                    scores[i] = value
                    remember(engine, game.play(state, m), -value)
                    watch.moved(game.format_move(state, m), value)
            for i, m in enumerate(moves):
                if i not in scores:
                    watch.current = text = game.format_move(state, m)
                    child = game.play(state, m)
                    score = -exact_score(engine, child, 1, at_least=-value)
                    scores[i] = score
                    remember(engine, child, -score)
                    watch.moved(text, score)
        except SearchTimeout:
            cut = "time"
        except KeyboardInterrupt as exc:
            if not interruptible or type(exc) is not KeyboardInterrupt:  # (a termination signal ends the run)
                raise
            cut = "interrupt"
        done = sorted(scores)
        return Root([moves[i] for i in done], [scores[i] for i in done]), cut

    def _best_guess(
        self, state: State, watch: SolveProgress, started: float, deadline: float | None, *, all_moves: bool, pv: bool
    ) -> SearchResult:
        """Out of time before the root's value was proven: what was proven (the window on the
        score) and the best guess of iterative deepening with the game's heuristic in the time left."""
        assert deadline is not None
        watch.phase = "heuristic"
        engine = self.engine
        exact_nodes = tuple(engine.counters.per_depth[: deepest(tuple(engine.counters.per_depth)) + 1])
        left = max(0.0, deadline - time.perf_counter())
        guess = alphabeta(
            self.game,
            state,
            time_limit=left,
            cache=self.table if self.table is not None else True,
            symmetry=self.symmetry,
            all_moves=all_moves,
            pv=pv,
        )
        per_depth = [a + b for a, b in itertools.zip_longest(exact_nodes, guess.stats.nodes_per_depth, fillvalue=0)]
        stats = dataclasses.replace(
            guess.stats,
            nodes=sum(per_depth),
            nodes_per_depth=tuple(n for n in per_depth),
            seconds=time.perf_counter() - started,
        )
        watch.phase = "done"
        if guess.proven:  # iterative deepening proved it (a win or loss within its horizon)
            return dataclasses.replace(guess, algorithm="solver", stats=stats)
        return dataclasses.replace(
            guess, algorithm="solver", stats=stats, score_bounds=(watch.low, watch.high), cut_short="time"
        )

    def score(self, state: State | None = None, *, weak: bool = False) -> Scored:
        """The score of ``state`` (default: the start) alone, and what proving it cost.

        The score :meth:`solve` gives, proved by the same searches, but without a
        best move or statistics by depth: for many positions whose values alone
        matter (``gametree solve --batch``), the cheapest answer.  ``weak``: the
        score's sign, as ``solve(state, weak=True)``.
        """
        state = start(
            self.game, position(self.game, state), checked=True
        )  # (the game was checked when the solver was built)
        seconds = 0.0  # the searches' time (a probe's that was handed over too), not the engine's loading
        while True:
            raw = self.engine_for(state, probe=True)
            engine: SearchEngine = Remembering(raw, self.store) if self.store is not None else raw
            counters = engine.counters
            counters.reset()
            started = time.perf_counter()
            try:
                value = exact_score(engine, state, weak=weak)
                if not weak:
                    remember(engine, state, value)
                nodes = sum(counters.per_depth)
                self._probed(raw, nodes)
                break
            except ProbeExhausted:
                self._handed_over()  # and again, on the compiled engine
            finally:
                self._flush(engine)
                seconds += time.perf_counter() - started
        return Scored(_sign(value) if weak else whole(value, True), weak, nodes, seconds)

    def _weak_root(self, engine: SearchEngine, state: State, all_moves: bool) -> Root[Move]:
        """The root's value +1, 0 or -1 (win, draw or loss) and a best move, or every move's value."""
        game = self.game
        value = _sign(exact_score(engine, state, weak=True))
        found = engine.root.move  # it made the last probe fail high: it scores at least the bound proved
        # A move's value is at least minus the root's when the root's is exact (a draw) or an
        # upper bound (a loss: every move scores >= 1 for the opponent, nothing to search).
        at_least = -value if value <= 0 else None
        if all_moves:
            moves = list(game.legal_moves(state))
            return Root(
                moves,
                [-_sign(exact_score(engine, game.play(state, m), 1, at_least=at_least, weak=True)) for m in moves],
            )
        if (
            found is None
        ):  # any move keeping the value (those the store knows first); in a lost position every move loses
            moves = list(game.legal_moves(state))
            if isinstance(engine, Remembering):
                moves.sort(key=lambda m: engine.bounds(game.play(state, m)) == (None, None))
            for found in moves:
                if (
                    value < 0
                    or -_sign(exact_score(engine, game.play(state, found), 1, at_least=at_least, weak=True)) == value
                ):
                    break
        # What keeps the value, for the store: a won position's move wins, a drawn one's draws, a lost one's loses.
        remember(
            engine,
            game.play(state, found),
            -value,
            Bound.UPPER if value > 0 else Bound.LOWER if value < 0 else Bound.EXACT,
        )
        return Root([found], [value])

    def _line_engine(self, engine: SearchEngine) -> SearchEngine:
        if isinstance(engine, CompiledEngine):
            return engine  # its lines cost little; the nodes were counted before
        if self._lines is None:
            table = self.table if self.table is not None else TranspositionTable()
            self._lines = Engine(self.game, table=table, symmetry=self.symmetry, threats=True)
        return self._lines


def solver(
    game: Game[S, M],
    state: S | None = None,
    *,
    moves: str | None = None,
    depth: int | None = None,
    cache: TranspositionTable | bool | None = True,
    symmetry: bool = True,
    all_moves: bool = True,
    pv: bool = True,
    time_limit: float | None = None,
    analysis_time: float | None = None,
    weak: bool = False,
    engine: EngineChoice = "auto",
    progress: SolveProgress | None = None,
    interruptible: bool = False,
    store: KnownValues | None = None,
) -> SearchResult:
    """Exact depth-aware values (a margin game's exact final margins), fast: null-window narrowing,
    threat pruning, bounds table.

    The position's value and a best move are proven first, then (with
    ``all_moves``, the default) every move's score, the best move's first.
    The result is as :func:`gametree.search.alphabeta`'s; for many positions in
    a row, :class:`Solver` sets the search up once.

    Args:
        game: The game.
        state: The position (None: the start); see :func:`gametree.search.results.position`.
        moves: Instead of ``state``, the position after these moves from the start ("B2 A1").
        depth: Refused (a ValueError): a depth limit makes a heuristic search, which
            is :func:`gametree.search.alphabeta`'s.
        cache: A :class:`TranspositionTable`, True for a default one, False or None for none.
        symmetry: Key the table by the game's canonical (symmetric) key when it has one.
        all_moves: Score every move, not only the position and one best move.
        pv: Follow the principal variation (and each move's line) to the end.
        time_limit: Seconds for the whole solve, which stays exact: the result is proven
            if the value is proven in time (moves left unscored are listed in
            ``unscored``); if not, it is the best guess of iterative deepening with the
            game's heuristic (``proven=False``), with the range the score was proven to
            lie in (``score_bounds``).
        analysis_time: Seconds at most for scoring the moves once the value is proven.
        weak: Prove only who wins (win, draw or loss), not how fast: much faster on won
            and lost positions.  Scores are then +1, 0 or -1, the result says
            ``weak=True`` and has no line to the end (its PV is the best move alone).
        engine: ``"python"`` (the reference), ``"compiled"`` (for a game with compiled
            rules: :mod:`gametree.search.compiled`) or ``"auto"`` (compiled when it is
            available and the search is long enough to pay for loading it).  Both give
            the same scores and moves.
        progress: Filled as the solve goes, for a live display
            (:class:`gametree.search.progress.SolveProgress`).
        interruptible: Ctrl-C while the moves are scored ends that stage, and the result
            keeps what was proven (``cut_short="interrupt"``).
        store: A solution store's entries for this game (:class:`gametree.search.known.KnownValues`): what
            it holds is not searched again, and what is proven is written to it.

    Returns:
        The :class:`SearchResult`.
    """
    _refuse_depth(depth)
    state = position(game, state, moves)
    return Solver(game, cache=cache, symmetry=symmetry, engine=engine, store=store).solve(
        state,
        all_moves=all_moves,
        pv=pv,
        weak=weak,
        time_limit=time_limit,
        analysis_time=analysis_time,
        interruptible=interruptible,
        progress=progress,
    )


def _refuse_depth(depth: int | None) -> None:
    if depth is not None:
        raise ValueError(
            "the solver proves exact values to the end of the game: a depth limit makes a heuristic search (use "
            "alphabeta with depth)"
        )


def prepare(
    game: Game[S, M],
    *,
    depth: int | None = None,
    cache: TranspositionTable | bool | None = True,
    symmetry: bool = True,
    engine: EngineChoice = "auto",
    store: KnownValues | None = None,
    **options: Any,
) -> Callable[[S], SearchResult]:
    """:func:`solver` bound to ``game`` and ``options``: a :class:`Solver`'s ``solve``, set up once."""
    _refuse_depth(depth)
    return functools.partial(Solver(game, cache=cache, symmetry=symmetry, engine=engine, store=store).solve, **options)


def prepare_scores(
    game: Game[S, M],
    *,
    depth: int | None = None,
    time_limit: float | None = None,
    cache: TranspositionTable | bool | None = True,
    symmetry: bool = True,
    weak: bool = False,
    all_moves: bool = True,
    pv: bool = True,
    engine: EngineChoice = "auto",
    store: KnownValues | None = None,
    positions: int | None = None,
    deepest: int | None = None,
) -> Callable[[S], Scored]:
    """:func:`prepare` for the scores alone: a :class:`Solver`'s ``score``, set up once
    (see :func:`gametree.search.prepare_scores`).  ``all_moves`` and ``pv`` do not
    apply to a score; with a ``time_limit``, each position's solve has that long
    (a score not proven in time is the heuristic's best guess).  ``positions``: how many
    positions will be solved (a batch), for ``auto``'s choice of engine, and ``deepest`` the most plies
    left among them, for the compiled table's size (:meth:`Solver.expect`)."""
    _refuse_depth(depth)
    solving = Solver(game, cache=cache, symmetry=symmetry, engine=engine, store=store)
    if positions is not None:
        solving.expect(positions, deepest)
    if time_limit is not None:
        return scores_of(functools.partial(solving.solve, time_limit=time_limit, weak=weak, all_moves=False, pv=False))
    return functools.partial(solving.score, weak=weak)


def search_stats(engine: SearchEngine, seconds: float, base: tuple[int, int, int]) -> SearchStats:
    """The counters of ``engine``'s last search as :class:`SearchStats`; ``base``: its table's counts before it."""
    return counted(engine.counters, seconds, base, engine.table_counts())


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)
