"""The built-in algorithms, registered through the plugin hook like any plugin's; running or
preparing an algorithm by name or spec.

>>> from gametree import load
>>> from gametree.search import search
>>> game = load().game("tictactoe").create(size=3)
>>> search("solver", game, all_moves=False).score
0
>>> search("alphabeta", game, moves="A1 B1 A2 B2").best_moves
('A3',)
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from ..game import Game, M, S, UnsupportedGameError
from ..plugin import hookimpl
from ..plugin.registry import AlgorithmSpec, Option, Registry
from . import solver as exact_solver
from .chance import CHANCE_KINDS, expectiminimax, star1, star2
from .classic import alphabeta, minimax
from .margins import ENGINE_KINDS
from .montecarlo import DEFAULT_EXPLORATION, DEFAULT_ITERATIONS, MCTS_KINDS, mcts
from .multiplayer import SUPPORTS as MULTIPLAYER_SUPPORTS
from .multiplayer import maxn, paranoid
from .options import SearchOptions
from .results import Scored, SearchResult, position, scores_of
from .retrograde import DEFAULT_MAX_POSITIONS, RETROGRADE_KINDS, retrograde
from .table import TranspositionTable
from .valueiteration import SUPPORTS as VALUE_ITERATION_KINDS
from .valueiteration import value_iteration

__all__ = [
    "ALGORITHMS",
    "check_options",
    "check_support",
    "gametree_register_algorithms",
    "prepare",
    "prepare_scores",
    "run",
    "run_algorithm",
    "search",
    "spec_of",
]

_CLASSIC = frozenset({"depth", "time_limit", "cache", "symmetry", "all_moves", "pv"})
#: What expectiminimax, Star1 and Star2 take.
_CHANCE = frozenset({"depth", "time_limit", "cache", "all_moves", "pv", "trace"})
#: What max^n and paranoid search take (they keep their own table of payoff vectors).
_MULTIPLAYER = frozenset({"depth", "time_limit", "all_moves", "pv", "trace"})

#: The built-in algorithms by name.
ALGORITHMS: dict[str, AlgorithmSpec] = {
    spec.name: spec
    for spec in (
        AlgorithmSpec(
            "solver",
            exact_solver.solver,
            "exact and fastest: null-window narrowing, threat pruning, a bounds table",
            takes=(_CLASSIC - {"depth"}) | {"weak", "engine", "analysis_time", "progress", "interruptible", "store"},
            prepare=exact_solver.prepare,
            prepare_scores=exact_solver.prepare_scores,
            exact=True,
            supports=ENGINE_KINDS,
        ),
        AlgorithmSpec(
            "alphabeta",
            alphabeta,
            "alpha-beta negamax with a bounds table",
            takes=_CLASSIC | {"progress", "trace"},
            exact=True,
            supports=ENGINE_KINDS,
        ),
        AlgorithmSpec(
            "minimax",
            minimax,
            "plain minimax: every node, no pruning (the teaching baseline)",
            takes=frozenset({"depth", "all_moves", "pv", "progress", "trace"}),
            supports=ENGINE_KINDS,
        ),
        # (before the chance algorithms: solve's fallback is the first exact algorithm that can, and
        # a game without chance whose positions repeat is retrograde analysis's)
        AlgorithmSpec(
            "retrograde",
            retrograde,
            "retrograde analysis of every reachable position: games whose positions repeat (draws by endless play)",
            takes=frozenset({"all_moves", "pv", "progress"}),
            options=(
                Option(
                    "max_positions",
                    int,
                    None,
                    f"Refuse a game with more reachable positions (default {DEFAULT_MAX_POSITIONS:,}).",
                ),
            ),
            supports=RETROGRADE_KINDS,
            exact=True,
        ),
        AlgorithmSpec(
            "mcts",
            mcts,
            "Monte Carlo tree search (UCT) with proven-value bounds",
            takes=frozenset({"depth", "time_limit", "all_moves", "pv", "progress"}),
            options=(
                Option(
                    "iterations",
                    int,
                    None,
                    f"Monte Carlo iterations (default {DEFAULT_ITERATIONS} unless --time-limit).",
                ),
                Option("exploration", float, None, f"UCT exploration constant (default {DEFAULT_EXPLORATION})."),
                Option("seed", int, None, "Seed for the random playouts."),
            ),
            supports=MCTS_KINDS,
        ),
        AlgorithmSpec(
            "expectiminimax",
            expectiminimax,
            "expectiminimax: chance nodes at their expected value, every node (exact fractions)",
            takes=_CHANCE,
            exact=True,
            supports=CHANCE_KINDS,
        ),
        AlgorithmSpec(
            "star1",
            star1,
            "Ballard's Star1: expectiminimax with alpha-beta and cutoffs at chance nodes (payoff bounds)",
            takes=_CHANCE,
            exact=True,
            supports=CHANCE_KINDS,
        ),
        AlgorithmSpec(
            "star2",
            star2,
            "Ballard's Star2: Star1 with probing of each chance node's children first",
            takes=_CHANCE,
            exact=True,
            supports=CHANCE_KINDS,
        ),
        AlgorithmSpec(
            "value-iteration",
            value_iteration,
            "value iteration: dice games whose positions repeat (Pig), every position's win probability",
            takes=frozenset({"all_moves", "pv", "progress"}),
            options=(Option("tolerance", float, None, "Sweep until no value changes by more than this (1e-9)"),),
            exact=True,
            supports=VALUE_ITERATION_KINDS,
            needs=VALUE_ITERATION_KINDS,
        ),
        AlgorithmSpec(
            "maxn",
            maxn,
            "max^n for any number of players (each maximises its own payoff), with shallow pruning",
            takes=_MULTIPLAYER,
            supports=MULTIPLAYER_SUPPORTS,
            exact=True,
        ),
        AlgorithmSpec(
            "paranoid",
            paranoid,
            "paranoid search: alpha-beta on the mover's payoff, all other players against it",
            takes=_MULTIPLAYER,
            supports=MULTIPLAYER_SUPPORTS,
            exact=True,
        ),
    )
}


@hookimpl
def gametree_register_algorithms(registry: Registry) -> None:
    """The built-in algorithms, through the same hook as a plugin's."""
    for spec in ALGORITHMS.values():
        registry.add_algorithm(spec)


def spec_of(algorithm: AlgorithmSpec | str | Callable[..., SearchResult]) -> AlgorithmSpec:
    """The spec of an algorithm given by spec, by built-in name, or by its search function
    (a function that is no built-in gets a spec that takes every option)."""
    if isinstance(algorithm, AlgorithmSpec):
        return algorithm
    if isinstance(algorithm, str):
        try:
            return ALGORITHMS[algorithm]
        except KeyError:
            raise ValueError(f"unknown algorithm {algorithm!r} (choose from {', '.join(sorted(ALGORITHMS))})") from None
    for spec in ALGORITHMS.values():
        if spec.search is algorithm:
            return spec
    return AlgorithmSpec(getattr(algorithm, "__name__", "algorithm"), algorithm)


#: What the shared search options (:data:`gametree.plugin.registry.SEARCH_OPTIONS`) must be, and their
#: types as words for an error message; options not named here are not checked.
_OPTION_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "depth": ((int, type(None)), "an int or None"),
    "time_limit": ((int, float, type(None)), "a number of seconds or None"),
    "analysis_time": ((int, float, type(None)), "a number of seconds or None"),
    "cache": ((TranspositionTable, bool, type(None)), "a TranspositionTable, True, False or None"),
    "symmetry": ((bool,), "True or False"),
    "weak": ((bool,), "True or False"),
    "all_moves": ((bool,), "True or False"),
    "pv": ((bool,), "True or False"),
    "interruptible": ((bool,), "True or False"),
    "trace": ((bool,), "True or False"),
    "engine": ((str,), "a string"),
}


def _type_error(spec: AlgorithmSpec, name: str, value: Any, expected: str) -> TypeError:
    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return TypeError(f"{spec.name} option {name}: expected {expected}, not {type(value).__name__} {shown}")


def check_options(spec: AlgorithmSpec, options: dict[str, Any]) -> None:
    """Refuse an option ``spec``'s algorithm does not take, or a value of the wrong type,
    with a :class:`TypeError` naming the option (and, for an unknown one, the options it takes)."""
    own = {option.name: option for option in spec.options}
    accepted = spec.takes | own.keys()
    for name, value in options.items():
        if name not in accepted:
            takes = ", ".join(sorted(accepted)) or "none"
            raise TypeError(f"{spec.name} takes no option {name!r} (its options: {takes})")
        if name in own:
            wanted: type = own[name].type
            kinds: tuple[type, ...] = (int, float) if wanted is float else (wanted,)
            ok = value is None or (isinstance(value, kinds) and (wanted is bool or not isinstance(value, bool)))
            if name == "seed":  # a generator is a seed too
                ok = ok or isinstance(value, random.Random)
            if not ok:
                raise _type_error(spec, name, value, f"{'a number' if wanted is float else wanted.__name__} or None")
        elif name in _OPTION_TYPES:
            types, expected = _OPTION_TYPES[name]
            if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
                raise _type_error(spec, name, value, expected)


def check_support(spec: AlgorithmSpec, game: Game[S, M]) -> None:
    """Refuse, before searching, a game of a kind ``spec``'s algorithm does not support: one line naming
    the property, and the built-in algorithms that support every kind the game has.

    Raises:
        UnsupportedGameError: The algorithm cannot search this game.
    """
    why = spec.refusal(game)
    if why is None:
        return
    able = sorted(name for name, other in ALGORITHMS.items() if other.refusal(game) is None)
    raise UnsupportedGameError(f"{why} ({'use ' + ', '.join(able) if able else 'no built-in algorithm can'})")


def search(
    algorithm: AlgorithmSpec | str,
    game: Game[S, M],
    state: S | None = None,
    *,
    moves: str | None = None,
    settings: SearchOptions | None = None,
    **options: Any,
) -> SearchResult:
    """Search a position with an algorithm given by name (or spec), its options checked.

    ``search("mcts", game, moves="B2", iterations=500)`` is
    ``mcts(game, play_text(game, "B2"), iterations=500)``.

    Args:
        algorithm: ``"solver"``, ``"alphabeta"``, ``"minimax"``, ``"mcts"`` (see
            :data:`ALGORITHMS`), or a plugin's :class:`gametree.AlgorithmSpec`
            (``load().algorithms[name]``).
        game: The game.
        state: The position to search (default: the start).
        moves: Instead of ``state``, the moves from the start, such as ``"B2 A1"``.
        settings: The shared limits and modes as one object
            (:class:`gametree.search.options.SearchOptions`); what it asks for
            that the algorithm does not take is refused.
        **options: The algorithm's options as keywords (``AlgorithmSpec.takes``
            and ``AlgorithmSpec.options``): ``depth``, ``time_limit``, ``cache``,
            ``all_moves``, ``pv``, ``iterations``, ...; they win over ``settings``.

    Raises:
        ValueError: No algorithm has that name (the message lists them).
        TypeError: An option the algorithm does not take (the message lists
            those it takes), or an argument of the wrong type.
        UnsupportedGameError: The game is of a kind the algorithm does not search
            (see :func:`check_support`).
    """
    spec = spec_of(algorithm) if isinstance(algorithm, (str, AlgorithmSpec)) else _not_an_algorithm(algorithm)
    merged = _merged(spec, settings, options)
    check_options(spec, merged)
    start = position(game, state, moves)
    check_support(spec, game)
    result: SearchResult = spec.search(game, start, **merged)
    return result


def _merged(spec: AlgorithmSpec, settings: SearchOptions | None, options: dict[str, Any]) -> dict[str, Any]:
    """The keywords a search of ``spec`` gets: what ``settings`` asks for, then ``options``."""
    if settings is None:
        return options
    if not isinstance(settings, SearchOptions):
        raise TypeError(f"settings: expected a SearchOptions, not {type(settings).__name__}")
    return {**settings.for_algorithm(spec.name, spec.takes), **options}


def _not_an_algorithm(algorithm: object) -> AlgorithmSpec:
    raise TypeError(
        f"algorithm: expected a name ({', '.join(sorted(ALGORITHMS))}) or an AlgorithmSpec, not "
        f"{type(algorithm).__name__}"
    )


def run_algorithm(
    game: Game[S, M], state: S | None = None, *, algorithm: AlgorithmSpec | str = "alphabeta", **options: Any
) -> SearchResult:
    """Run a search by algorithm name or spec: ``run_algorithm(game, state, algorithm="solver", weak=True)``.

    The older spelling of :func:`search`, kept for its callers; it passes the
    options on unchecked.  Prefer ``search("solver", game, state, weak=True)``.
    """
    result: SearchResult = spec_of(algorithm).search(game, state, **options)
    return result


#: The older name of :func:`run_algorithm` (``gametree.search.run``), kept for the code that calls it.
run = run_algorithm


def prepare(
    algorithm: AlgorithmSpec | str | Callable[..., SearchResult],
    game: Game[S, M],
    *,
    settings: SearchOptions | None = None,
    **options: Any,
) -> Callable[[S], SearchResult]:
    """The algorithm bound to ``game`` and ``options``, for many positions in a row.

    ``prepare("solver", game, cache=table)(state)`` is ``solver(game, state, cache=table)``.
    An algorithm that can set itself up once for many positions says so in its
    spec (``AlgorithmSpec.prepare``; the solver does); any other is just bound.

    Args:
        algorithm: A name (see :data:`ALGORITHMS`), an :class:`gametree.AlgorithmSpec`,
            or a search function (whose options are then not checked).
        game: The game.
        settings: The shared limits and modes, as for :func:`search`.
        **options: The algorithm's options, as for :func:`search`.

    Raises:
        ValueError: No algorithm has that name (the message lists them).
        TypeError: An option the algorithm does not take (the message lists
            those it takes), or an option value of the wrong type.
        UnsupportedGameError: The game is of a kind the algorithm does not search
            (see :func:`check_support`).
    """
    spec = spec_of(algorithm)
    merged = _merged(spec, settings, options)
    if isinstance(algorithm, (str, AlgorithmSpec)):
        check_options(spec, merged)
    check_support(spec, game)
    return _prepare(spec, game, merged)


def _prepare(spec: AlgorithmSpec, game: Game[S, M], options: dict[str, Any]) -> Callable[[S], SearchResult]:
    if spec.prepare is not None:
        return spec.prepare(game, **options)
    return functools.partial(spec.search, game, **options)


def prepare_scores(
    algorithm: AlgorithmSpec | str | Callable[..., SearchResult], game: Game[S, M], **options: Any
) -> Callable[[S], Scored]:
    """As :func:`prepare`, for when only each position's score matters: the callable returns :class:`Scored`.

    An algorithm that can prove a score without building a whole
    :class:`SearchResult` (best move, statistics by depth) says so in its spec
    (``AlgorithmSpec.prepare_scores``; the solver does); any other is prepared
    with ``all_moves=False, pv=False`` and its results cut down.
    """
    spec = spec_of(algorithm)
    if spec.prepare_scores is not None:
        return spec.prepare_scores(game, **options)
    return scores_of(_prepare(spec, game, {**options, "all_moves": False, "pv": False}))
