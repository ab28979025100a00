"""What a search is asked: its limits and its modes, one frozen object for the Python API and the CLI.

python-chess passes one ``Limit(time=..., depth=...)`` to an engine instead of a
dozen keywords; so does gametree.  :class:`Limit` says how far a search may go,
:class:`SearchOptions` holds it beside the modes every algorithm shares
(:data:`gametree.plugin.registry.SEARCH_OPTIONS`), each with its type checked
when the object is made.  Which of them an algorithm takes is in its spec
(``AlgorithmSpec.takes``), and :meth:`SearchOptions.for_algorithm` turns the
object into that algorithm's keywords, refusing an option it does not take if
it was asked for: the command line builds one from its flags, a program passes
one to :func:`gametree.search.search`::

    >>> from gametree import load
    >>> from gametree.search import Limit, SearchOptions, search
    >>> game = load().game("connect4").create(width=5, height=4)
    >>> search("alphabeta", game, settings=SearchOptions(limit=Limit(depth=4), all_moves=False)).depth
    4
    >>> search("minimax", game, settings=SearchOptions(limit=Limit(time=1.0)))
    Traceback (most recent call last):
    ...
    gametree.search.options.OptionNotTaken: minimax takes no time_limit
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Literal, get_args

from .table import TranspositionTable

if TYPE_CHECKING:
    from .known import KnownValues
    from .progress import SolveProgress

__all__ = ["ENGINES", "EngineChoice", "Limit", "OptionNotTaken", "SearchOptions"]

#: The engines a search may be asked to run on (see :mod:`gametree.search.compiled`).
EngineChoice = Literal["auto", "python", "compiled"]
ENGINES: tuple[EngineChoice, ...] = get_args(EngineChoice)


class OptionNotTaken(TypeError):
    """An option was asked of an algorithm that does not take it; ``option`` is its keyword."""

    def __init__(self, algorithm: str, option: str) -> None:
        super().__init__(f"{algorithm} takes no {option}")
        self.algorithm, self.option = algorithm, option


def _seconds(name: str, value: float | None) -> None:
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or math.isinf(value)
    ):
        raise ValueError(f"{name} must be a positive number of seconds, not {value!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Limit:
    """How far a search may go.

    ``depth``: plies below the position, then the game's heuristic (None: to the end of
    the game); ``time``: seconds for the whole search; ``analysis``: seconds for scoring
    every move once the position's value is proven (the solver).
    """

    depth: int | None = None
    time: float | None = None
    analysis: float | None = None

    def __post_init__(self) -> None:
        if self.depth is not None and (
            isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 0
        ):
            raise ValueError(f"depth must be a whole number of plies, 0 or more, not {self.depth!r}")
        _seconds("time", self.time)
        _seconds("analysis", self.analysis)


#: Each option's search keyword, from the fields of :class:`SearchOptions` and :class:`Limit`.
KEYWORDS: Mapping[str, str] = {"depth": "depth", "time": "time_limit", "analysis": "analysis_time"}


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchOptions:
    """The limits and modes of a search, shared by every algorithm that takes them.

    ``cache``: a :class:`TranspositionTable`, True for a default one, False or None for
    none; ``symmetry``: key the table by the game's canonical key; ``weak``: prove only
    who wins; ``all_moves``: score every move, not only a best one; ``pv``: follow the
    principal variation; ``engine``: which engine proves values; ``store``: known values
    read before searching and written after; ``progress``: filled as the search goes;
    ``interruptible``: Ctrl-C while the moves are scored keeps what was proven;
    ``trace``: list the nodes the search entered, in order (``SearchResult.expanded``).
    """

    limit: Limit = field(default_factory=Limit)
    cache: TranspositionTable | bool | None = True
    symmetry: bool = True
    weak: bool = False
    all_moves: bool = True
    pv: bool = True
    engine: EngineChoice = "auto"
    store: KnownValues | None = None
    progress: SolveProgress | None = None
    interruptible: bool = False
    trace: bool = False

    def __post_init__(self) -> None:
        for name in ("symmetry", "weak", "all_moves", "pv", "interruptible", "trace"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name}: expected True or False, not {getattr(self, name)!r}")
        if not (self.cache is None or isinstance(self.cache, (bool, TranspositionTable))):
            raise TypeError(
                f"cache: expected a TranspositionTable, True, False or None, not {type(self.cache).__name__}"
            )
        if self.engine not in ENGINES:
            raise ValueError(f"unknown engine {self.engine!r} (choose from {', '.join(ENGINES)})")

    def keywords(self) -> dict[str, object]:
        """Every option as the search keyword it is passed as (``time_limit`` for ``limit.time``, ...)."""
        found: dict[str, object] = {KEYWORDS[f.name]: getattr(self.limit, f.name) for f in fields(Limit)}
        found.update((f.name, getattr(self, f.name)) for f in fields(self) if f.name != "limit")
        return found

    def asked(self) -> set[str]:
        """The keywords whose value is not the default (what was asked for)."""
        default = SearchOptions().keywords()
        return {
            name for name, value in self.keywords().items() if value is not default[name] and value != default[name]
        }

    def for_algorithm(
        self, name: str, takes: Collection[str], *, asked: Collection[str] | None = None, also: Collection[str] = ()
    ) -> dict[str, object]:
        """The keywords of an algorithm called ``name`` that takes the options ``takes``: those it
        takes that were asked for (``asked``, default :meth:`asked`) or are passed in any case
        (``also``: the command line's own defaults); the algorithm's defaults stand for the rest.
        An option it does not take but was asked for raises :class:`OptionNotTaken`."""
        wanted = self.asked() if asked is None else set(asked)
        keywords = self.keywords()
        for keyword in keywords:
            if keyword in wanted and keyword not in takes:
                raise OptionNotTaken(name, keyword)
        return {k: v for k, v in keywords.items() if k in takes and (k in wanted or k in also)}
