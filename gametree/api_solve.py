"""A solve from the Python API as the command line runs it: live progress, Ctrl-C keeping what was proven.

:meth:`gametree.Position.solve` calls :func:`solve_position`.  Progress shows on a
terminal (standard error, with rich, as ``gametree solve`` shows it) and in Jupyter (a
line updated in place, :func:`gametree.notebook.notebook_live`), and is cleared before
the result.  Ctrl-C while the moves are scored keeps the scores proven (the solver's
``interruptible``); before the value is proven it gives a result marked
``cut_short="interrupt"`` with the range of scores proven so far (:func:`interrupted`).
``Position.solve(tiers=...)`` reads the answer from a tier directory instead (:func:`solve_from_tiers`).
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .game import Game, M, S
from .search import SearchResult, search
from .search.progress import SolveProgress
from .search.results import SearchStats

if TYPE_CHECKING:
    from .tier_book import TierBook

__all__ = ["in_notebook", "interrupted", "open_tiers", "solve_from_tiers", "solve_position"]


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (IPython with a kernel)."""
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    return shell is not None and hasattr(shell, "kernel")


@contextlib.contextmanager
def _shown(watch: SolveProgress, show: bool | None) -> Iterator[None]:
    from . import live

    if show is False or (show is None and not in_notebook() and not sys.stderr.isatty()):
        yield
        return
    if in_notebook():
        from .notebook import notebook_live

        with notebook_live(lambda: live.solve_text(watch)):
            yield
        return
    with live.live(live.solve_status(watch), True):
        yield


def interrupted(game: Game[S, M], state: S, watch: SolveProgress) -> SearchResult:
    """What a solve stopped by Ctrl-C before its value was proven gives: no value, every move
    unscored, the range of scores proven so far (``score_bounds``), ``cut_short="interrupt"``."""
    seconds, nodes = watch.elapsed(), watch.nodes()
    stats = SearchStats(
        nodes=nodes,
        terminals=0,
        heuristic_leaves=0,
        cutoffs=0,
        cache_probes=0,
        cache_hits=0,
        cache_stores=0,
        max_depth=0,
        seconds=seconds,
        nodes_per_second=nodes / seconds if seconds > 0 else 0.0,
        nodes_per_depth=(),
    )
    bounds = (watch.low, watch.high) if math.isfinite(watch.low) and math.isfinite(watch.high) else None
    return SearchResult(
        algorithm="solver",
        to_move=game.to_move(state),
        value="unknown",
        winner=None,
        score=0.0,
        proven=False,
        plies_to_end=None,
        best_moves=(),
        move_values=(),
        pv=(),
        depth=None,
        stats=stats,
        unscored=tuple(game.format_move(state, m) for m in game.legal_moves(state)),
        score_bounds=bounds,
        cut_short="interrupt",
    )


def solve_position(
    game: Game[S, M], state: S, *, store: Any, show: bool | None, options: Mapping[str, Any]
) -> SearchResult:
    """``search("solver", game, state, **options)`` with ``store`` (None: none), progress shown
    (``show``; None: on a terminal or in Jupyter) and Ctrl-C giving a marked partial result."""
    given = dict(options)
    watch = given.get("progress")
    if not isinstance(watch, SolveProgress):
        watch = given["progress"] = SolveProgress()
    given.setdefault("interruptible", True)
    if store is not None:
        given["store"] = store
    try:
        with _shown(watch, show):
            return search("solver", game, state, **given)
    except KeyboardInterrupt as exc:
        if type(exc) is not KeyboardInterrupt:  # a termination signal ends the program
            raise
        return interrupted(game, state, watch)


def open_tiers(game: Game[S, M], tiers: TierBook | str | os.PathLike[str]) -> TierBook:
    """``tiers`` as a :class:`gametree.tier_book.TierBook` of ``game``: a book of the same game and
    options as it is, a directory opened as the installed game ``game`` is one of; else a
    :class:`gametree.store.tiers.TierFileError` (another game or board, not a tier directory)."""
    from .default_store import spec_of
    from .game import Configurable, game_name
    from .store.tiers import TierFileError
    from .tier_book import TierBook

    def options(of: Game[Any, Any]) -> dict[str, Any]:
        return of.options() if isinstance(of, Configurable) else {}

    if isinstance(tiers, TierBook):
        if type(tiers.game) is not type(game) or options(tiers.game) != options(game):
            raise TierFileError(f"{tiers.folder} holds {tiers.header['game']} {tiers.header['options']}, not this game")
        return tiers
    spec = spec_of(game)
    if spec is None:
        raise TierFileError(f"{game_name(game)} is not an installed game: open its tier directory with TierBook")
    return TierBook(game, spec.name, Path(tiers))


def solve_from_tiers(
    game: Game[S, M], state: S, tiers: TierBook | str | os.PathLike[str], options: Mapping[str, Any]
) -> SearchResult:
    """``Position.solve(tiers=...)``: the solver's result read from the tier directory ``tiers`` (a
    :class:`gametree.tier_book.TierBook` or its folder), ``algorithm`` ``"tiers"``, no search; a
    search option in ``options`` is a :class:`TypeError` (nothing is searched); ``all_moves`` and
    ``pv`` are honoured (:func:`gametree.tier_book.tier_result`)."""
    from .tier_book import tier_result

    searched = sorted(set(options) - {"all_moves", "pv"})
    if searched:
        raise TypeError(f"tiers= reads the answer without a search: drop {', '.join(searched)}")
    shown = {name: bool(options[name]) for name in ("all_moves", "pv") if name in options}
    return tier_result(open_tiers(game, tiers), state, **shown)
