"""Opening books: every position up to some ply, proven and kept in a solution store.

:func:`build_book` enumerates the positions reachable in at most ``plies``
moves (each position once, mirror images once), skips those the store holds
already (so a build stopped by Ctrl-C or a kill goes on where it stopped, and
nothing is proven twice), and proves the others, the deepest first, in this
process or in worker processes; each proven value is written at once.
:func:`build_strong` proves every reachable position of a small game
(:func:`gametree.search.strong.solve_strongly`) and keeps them all.
"""

from __future__ import annotations

import collections
import functools
import re
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .game import Game, M, S, end_score
from .search.compiled import EngineChoice
from .search.known import StoreKey, canonical_keyer, storable_key
from .search.table import Bound
from .store import GameEntries, MemoryEntries

if TYPE_CHECKING:
    import distributed

    from .listing_files import ListingFiles
    from .runtime.stops import Halter
    from .search.solver import Solver

__all__ = [
    "BuildReport",
    "StrongResume",
    "build_book",
    "build_play_book",
    "build_strong",
    "positions_up_to",
    "strong_resume",
]

#: Positions a worker proves per task (its solver and table are kept from task to task).
CHUNK = 8
#: The modules a worker process imports before its first task (see gametree.runtime.processes.worker_context).
WORKER_PRELOAD = (__name__, "gametree.search.solver")


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What a book build did: ``positions`` in the book's range (mirror images once), how many
    it ``proved`` now, how many the store ``had`` already, and its ``seconds``."""

    positions: int
    proved: int
    had: int
    seconds: float
    per_ply: tuple[int, ...] = ()


def positions_up_to(game: Game[S, M], plies: int, state: S | None = None) -> list[list[S]]:
    """The positions reachable from ``state`` (default: the start) in 0, 1, ... ``plies`` moves,
    ply by ply, each once (by canonical key: mirror images once), games that are over left out."""
    key = canonical_keyer(game)
    start = game.initial_state() if state is None else state
    layers: list[list[S]] = [[start]] if game.outcome(start) is None else [[]]
    seen = {key(start)}
    for _ in range(plies):
        layer: list[S] = []
        for s in layers[-1]:
            for m in game.legal_moves(s):
                child = game.play(s, m)
                k = key(child)
                if k in seen or game.outcome(child) is not None:
                    continue
                seen.add(k)
                layer.append(child)
        layers.append(layer)
    return layers


def build_book(
    game: Game[S, M],
    book: GameEntries,
    *,
    plies: int,
    workers: int = 1,
    scheduler: str | distributed.Client | None = None,
    engine: EngineChoice = "auto",
    lines: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> BuildReport:
    """Prove every position up to ``plies`` moves deep into ``book`` (see the module).

    Only the deepest positions are searched (in ``workers`` processes, or on the
    Dask cluster at ``scheduler``: each task hands back what it proved, and this
    process writes it); every shallower one then follows from its children's
    values (the best of them), without a search.  ``lines``: also keep the values
    along each deepest position's principal variation (a book that answers whole
    lines of play, not only their first moves).  ``progress(done, total)`` after
    each task.  Ctrl-C stops the build; what was proven is kept, and a later build
    goes on from there.
    """
    started = time.perf_counter()
    key = canonical_keyer(game)
    layers = positions_up_to(game, plies)
    keys = [[key(s) for s in layer] for layer in layers]
    if any(k is None for layer in keys for k in layer):
        raise ValueError(
            "this game's positions have keys a store cannot keep (only integers, strings and tuples of them)"
        )
    had = book.has_many([k for layer in keys for k in layer if k is not None])
    total = sum(len(layer) for layer in layers)
    done = len(had)
    if progress is not None:
        progress(done, total)
    deepest = [s for s, k in zip(layers[-1], keys[-1]) if k not in had]
    spread = 4 if scheduler is not None else workers  # (a Dask cluster's size is not known here: assume a few)
    size = max(1, min(CHUNK, len(deepest) // (4 * spread)))  # small tasks: the workers finish together
    tasks = [
        (game, engine, deepest[i : i + size], book.name, book.options, lines) for i in range(0, len(deepest), size)
    ]
    for count, entries in _run_tasks(tasks, workers, scheduler):
        book.put_many(entries)  # (one writer: this process)
        done += count
        if progress is not None:
            progress(done, total)
    # The shallower positions, deepest first: the best of their children, all of them known now.
    for layer, layer_keys in zip(reversed(layers[:-1]), reversed(keys[:-1])):
        values = []
        for s, k in zip(layer, layer_keys):
            if k in had:
                continue
            best = None
            for m in game.legal_moves(s):
                child = game.play(s, m)
                ended = end_score(game, child)
                if ended is not None:
                    score = ended
                else:
                    stored = book.get(key(child))  # type: ignore[arg-type]
                    if stored is None:
                        raise AssertionError(
                            f"the child {game.format_move(s, m)} of a book position is not in the store"
                        )  # pragma: no cover
                    score = stored
                best = -score if best is None or -score > best else best
            assert best is not None
            values.append((k, best))
        book.put_many(values)  # type: ignore[arg-type]
        done += len(values)
        if progress is not None:
            progress(done, total)
    return BuildReport(
        total, total - len(had), len(had), time.perf_counter() - started, tuple(len(layer) for layer in layers)
    )


Task = tuple[Game[S, M], EngineChoice, list[S], str, dict[str, Any], bool]


def _run_tasks(
    tasks: list[Task[S, M]], workers: int, scheduler: str | distributed.Client | None
) -> Iterator[tuple[int, list[tuple[int | str, int]]]]:
    """The answers of :func:`prove_chunk` for ``tasks``, as they come: here, in worker processes
    or on a Dask cluster."""
    if not tasks:
        return
    if scheduler is not None:
        from .runtime.cluster import dask_client, dask_lost, new_stop_name, stop_dask_tasks

        with dask_client(scheduler) as client:
            from dask.distributed import as_completed

            stop = new_stop_name()
            futures = client.map(prove_chunk_on_dask, tasks, stop=stop, pure=False)
            try:
                for future in as_completed(futures):  # type: ignore[no-untyped-call]
                    yield future.result()
            except BaseException as exc:
                stop_dask_tasks(client, stop)  # (Ctrl-C, or an error: the running tasks halt, ...
                client.cancel(futures)  # type: ignore[no-untyped-call]  # ... and the cluster drops the rest)
                lost = dask_lost(exc, scheduler, "the book build")
                if lost is None:
                    raise
                raise lost from None
    elif workers <= 1:
        for task in tasks:
            yield prove_chunk(task)
    else:
        from .runtime.processes import WorkerWatch, process_pool, watched

        with process_pool(workers, preload=WORKER_PRELOAD) as pool:
            watch = WorkerWatch()
            yield from watched(pool.imap_unordered(prove_chunk, tasks), watch)


#: A worker's solvers and books, by game (kept from task to task: the tables stay warm).
_kept: dict[tuple[str, str], tuple[Solver, MemoryEntries]] = {}


def prove_chunk_on_dask(task: Task[S, M], stop: str) -> tuple[int, list[tuple[int | str, int]]]:
    """:func:`prove_chunk` on a Dask worker, halted when the build sets the event ``stop``
    (:func:`gametree.runtime.cluster.on_dask_stoppable`): Ctrl-C stops the running tasks too."""
    from .runtime.cluster import on_dask_stoppable

    return on_dask_stoppable(functools.partial(prove_chunk, task), stop)


def prove_chunk(task: Task[S, M], halter: Halter | None = None) -> tuple[int, list[tuple[int | str, int]]]:
    """Prove some positions (in a worker process, a Dask worker or this process); with lines,
    their principal variations too.  Returns how many positions, and what was proven as
    ``(key, score)`` entries for the store.  ``halter``: a
    :class:`gametree.runtime.stops.Halter` the searching engine is attached to."""
    from .search.solver import Solver

    game, engine, states, name, options, lines = task
    ident = (repr(game), engine)
    if ident not in _kept:
        memory = MemoryEntries(name, options)
        _kept[ident] = (Solver(game, engine=engine, store=memory), memory)
    solver, memory = _kept[ident]
    if states and halter is not None:
        halter.attach(solver.engine_for(states[0]))  # (the engine of every search here: kept once built)
    for s in states:
        if lines:
            solver.solve(s, all_moves=False, pv=True)
        else:
            solver.score(s)
    return len(states), memory.take()


#: The note an unfinished strong build leaves in the store's record of it: where a rerun goes on from.
_RESUME_NOTE = re.compile(r"scored from ply (\d+) on; positions per ply: (\d+(?: \d+)*)")


@dataclass(frozen=True, slots=True)
class StrongResume:
    """Where a stopped strong build goes on from: every finished position and the classes of every
    ply from ``ply`` on are in the store (``kept`` entries), and ``per_ply`` counts each ply's
    positions (mirror images apart), as the stopped build found them."""

    ply: int
    per_ply: tuple[int, ...]
    kept: int

    def note(self) -> str:
        """The note recorded with the build (read back by :func:`strong_resume`)."""
        return f"scored from ply {self.ply} on; positions per ply: {' '.join(str(n) for n in self.per_ply)}"


def strong_resume(book: GameEntries, name: str = "all") -> StrongResume | None:
    """Where the strong build recorded as ``name`` stopped, or None (never run, finished, or stopped
    before it kept anything: a build from the start)."""
    record = book.build(name)
    if record is None or record[0]:
        return None
    found = _RESUME_NOTE.fullmatch(record[3])
    if found is None:
        return None
    return StrongResume(int(found[1]), tuple(int(n) for n in found[2].split()), record[1])


def build_strong(
    game: Game[S, M],
    book: GameEntries,
    *,
    progress: Callable[[str, int, int], None] | None = None,
    kept: Callable[[int], None] | None = None,
    name: str = "all",
    listing: ListingFiles[S] | None = None,
) -> BuildReport:
    """Prove every reachable position of ``game`` (a strong solution) and keep them all in
    ``book``, each canonical position with how many positions it stands for.

    What is proven is written as soon as it is (the finished positions, then each ply's, the last
    ply first), so a build stopped by Ctrl-C, a termination signal or a kill keeps it; ``kept(n)``
    after each write, ``n`` the entries kept so far (by this build and the stopped ones it goes on
    from).  After each write the build's record ``name`` notes where a rerun goes on from
    (:func:`strong_resume`): a rerun enumerates the positions only down to the shallowest ply kept,
    reads that ply's scores from the store, and proves the plies above it.  The store ends as after
    one uninterrupted build.

    Before that, while the positions are listed, each ply listed is kept in ``listing`` (files
    beside the store: :mod:`gametree.listing_files`), so that a build stopped then goes on listing
    from the ply after the last one kept; those files are removed once the listing is complete."""
    from .listing_files import ListingDamaged

    started = time.perf_counter()
    record = book.build(name)
    before = record[2] if record is not None else 0.0  # (the time the stopped builds took)
    resume = strong_resume(book, name)
    if resume is not None and listing is not None:
        listing.clear()  # (the store tells where to go on from: a listing kept is of no more use)
    try:
        solved = _solve_strong(game, book, resume, (progress, kept), name, (started, before), listing)
    except LookupError:  # (the store lacks a score the note promises: a build from the start)
        resume = None
        solved = _solve_strong(game, book, None, (progress, kept), name, (started, before), listing)
    except ListingDamaged as exc:  # (a file of the listing kept cannot be used: a listing from the start)
        assert listing is not None
        listing.damaged(exc)
        solved = _solve_strong(game, book, None, (progress, kept), name, (started, before), listing)
    per_ply, written = solved
    had = resume.kept if resume is not None else 0
    return BuildReport(sum(per_ply), written - had, had, time.perf_counter() - started, per_ply)


def _solve_strong(
    game: Game[S, M],
    book: GameEntries,
    resume: StrongResume | None,
    callbacks: tuple[Callable[[str, int, int], None] | None, Callable[[int], None] | None],
    name: str,
    clock: tuple[float, float],
    listing: ListingFiles[S] | None = None,
) -> tuple[tuple[int, ...], int]:
    """:func:`build_strong`'s solve, from the start or going on from ``resume`` (or from the
    ``listing`` kept): each ply's count of positions and the entries kept in all."""
    from .search.strong import Resume, solve_strongly

    progress, kept = callbacks
    written = resume.kept if resume is not None else 0
    counts: dict[int, int] = dict(enumerate(resume.per_ply)) if resume is not None else {}
    if kept is not None and written:
        kept(written)

    def counting(stage: str, done: int, total: int) -> None:
        if done == total and stage.startswith(("enumerating ply ", "reading listed ply ")):
            counts[int(stage.rpartition(" ")[2])] = total
        if progress is not None:
            progress(stage, done, total)

    def keep(keys: list[Hashable], scores: dict[Hashable, int], images: dict[Hashable, int], ply: int | None) -> None:
        nonlocal written
        items = []
        for k in keys:
            stored = storable_key(k)
            if stored is None:
                raise ValueError(
                    "this game's positions have keys a store cannot keep (only integers, strings and tuples of them)"
                )
            items.append((stored, int(scores[k]), images.get(k, 1)))
        book.put_many(items)
        written += len(items)
        per_ply = tuple(counts[p] for p in range(len(counts)))
        point = StrongResume(len(per_ply) if ply is None else ply, per_ply, written)
        seconds = clock[1] + time.perf_counter() - clock[0]
        book.record_build(name, complete=False, positions=written, seconds=seconds, note=point.note())
        if ply is None and listing is not None:
            listing.clear()  # (the listing is complete, and the store's note tells where to go on from)
        if kept is not None:
            kept(written)

    def stored(keys: list[Hashable]) -> dict[Hashable, int]:
        by_stored = {storable_key(k): k for k in keys}
        found = book.scores_of([k for k in by_stored if k is not None])
        return {by_stored[k]: score for k, score in found.items()}

    again = Resume(resume.ply, stored) if resume is not None else None
    relisting = listing is not None and resume is None
    solve_strongly(
        game,
        progress=counting,
        keep=keep,
        resume=again,
        listed=listing.save if relisting and listing is not None else None,
        relist=listing.load() if relisting and listing is not None else (),
    )
    return tuple(counts[p] for p in range(len(counts))), written


def build_play_book(
    game: Game[S, M],
    book: GameEntries,
    *,
    seconds: float,
    players: tuple[int, ...] = (0, 1),
    engine: EngineChoice = "auto",
    progress: Callable[[int, int], None] | None = None,
) -> BuildReport:
    """Store what a perfect player needs to move within ``seconds`` against any opponent.

    For each of ``players`` (0: the first player), ply by ply, every position the perfect player
    (:class:`gametree.search.perfect.PerfectMover`) can meet is visited, the
    opponent's moves all followed.  Where the store already tells the player's move
    (:func:`gametree.search.perfect.stored_choice`), that move is chosen for good
    (:meth:`gametree.store.GameEntries.choose_many`) and followed.  Elsewhere a weak solve
    with a fresh table (as the player's own first search there) finds the value and a
    move keeping it: if that took ``seconds`` or more, both values are stored and the
    move is chosen and followed; otherwise the player proves it in time, the
    position's value is stored and the walk ends there.  A build stopped by Ctrl-C
    or a kill goes on where it stopped (chosen moves are followed without a search;
    positions settled quickly are searched again).  ``progress(chosen, visited)``
    after each search.  ``per_ply`` in the report counts the moves chosen by a search.
    """
    from .search.perfect import moves_to, stored_choice
    from .search.solver import Solver

    started = time.perf_counter()
    key = canonical_keyer(game)
    visited = proved = had = 0
    hard_by_ply: dict[int, int] = {}

    def keep(k: Any, value: int, exact: bool) -> None:
        if exact or value == 0:
            book.put_many([(k, value)])
        else:
            book.put_bounds([(k, value, Bound.LOWER if value > 0 else Bound.UPPER)])

    for player in players:
        seen: set[Hashable] = set()
        quick: set[StoreKey] = set()
        # Ply by ply (first in, first out): a build stopped early covers the first moves, the
        # hardest to prove, for every line of play alike.
        queue = collections.deque([game.initial_state()])
        while queue:
            s = queue.popleft()
            k = key(s)
            if k is None:
                raise ValueError(
                    "this game's positions have keys a store cannot keep (only integers, strings and tuples of them)"
                )
            # Each position, not each canonical key, is walked: a game's canonical key may tell mirror
            # images apart deep in the game, and the player may meet either image's descendants.
            exact_key = game.key(s)
            if exact_key in seen or game.outcome(s) is not None:
                continue
            seen.add(exact_key)
            moves = list(game.legal_moves(s))
            if game.to_move(s) != player:  # every answer of the opponent
                queue.extend(game.play(s, m) for m in moves)
                continue
            visited += 1
            entry = book.entry(k)
            picked = moves_to(game, s, entry.best) if entry is not None and entry.best is not None else []
            if picked:
                had += 1
            elif k in quick:
                continue
            else:
                choice = stored_choice(game, s, book)
                if choice is not None:  # the store proves a move: choose it
                    had += 1
                    move = game.parse_move(s, choice.moves[0])
                    keep(k, choice.value, choice.exact)
                else:
                    solver = Solver(game, cache=True, engine=engine, store=None)
                    clock = time.perf_counter()
                    result = solver.solve(s, weak=True, all_moves=False, pv=False)
                    took = time.perf_counter() - clock
                    value = (result.score > 0) - (result.score < 0)
                    move = game.parse_move(s, result.best_moves[0])
                    keep(k, value, False)
                    if progress is not None:
                        progress(proved + (took >= seconds), visited)
                    if took < seconds:
                        quick.add(k)
                        continue
                    after = game.play(s, move)
                    if game.outcome(after) is None:  # (a move that ends the game proves itself)
                        keep(key(after), -value, False)
                    proved += 1
                    hard_by_ply[game.ply(s)] = hard_by_ply.get(game.ply(s), 0) + 1
                best = key(game.play(s, move))
                book.choose_many([(k, best)])  # type: ignore[list-item]
                picked = moves_to(game, s, best)
            queue.extend(game.play(s, m) for m in picked)
    per_ply = tuple(hard_by_ply.get(p, 0) for p in range(max(hard_by_ply, default=-1) + 1))
    return BuildReport(visited, proved, had, time.perf_counter() - started, per_ply)
