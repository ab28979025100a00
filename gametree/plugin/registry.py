"""What plugins register: games, algorithms, exporters and players, each as a frozen spec, and the
:class:`Registry` that the registration hooks (:mod:`gametree.plugin.spec`) fill.

The registry rejects a malformed spec or a duplicate name (naming both plugins) and keeps each
kind sorted by name, so load order never matters:

>>> registry = Registry(current="plugin one")
>>> registry.add_game(GameSpec(name="nim", factory=lambda: None))
>>> registry.current = "plugin two"
>>> registry.add_game(GameSpec(name="nim", factory=lambda: None))
Traceback (most recent call last):
...
gametree.plugin.registry.PluginError: game 'nim' is registered twice: by plugin one and by plugin two
>>> registry.game("chess")
Traceback (most recent call last):
...
gametree.plugin.registry.UnknownGameError: unknown game 'chess' (installed: nim)

Search results and trees are named here for type checking only: at run time the registry imports
neither search nor tree (the built-in algorithms, in :mod:`gametree.search.algorithms`, import it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeAlias, TypeGuard

from ..game import (
    Game,
    GameError,
    GameInfo,
    GameKind,
    IncompleteCapabilityError,
    capabilities,
    game_kinds,
    game_name,
    refusal,
)

if TYPE_CHECKING:
    from ..search.results import Scored, SearchResult
    from ..tree.model import SearchTree

__all__ = [
    "SEARCH_OPTIONS",
    "AlgorithmSpec",
    "Exporter",
    "GameSpec",
    "Option",
    "OptionValue",
    "PlayerSpec",
    "PluginError",
    "PluginLoadError",
    "Registry",
    "UnknownGameError",
    "game_of_file",
]

#: What a game's or an algorithm's option can hold.
OptionValue: TypeAlias = int | float | str | bool
#: The types an option can be declared with.
_OPTION_TYPES = (int, float, str, bool)
#: An option's declared type (the class itself: ``int``, ``float``, ``str`` or ``bool``).
OptionType: TypeAlias = "type[int | float | str | bool]"


#: What :meth:`GameSpec.create` checks a new game has (the members of :class:`gametree.Game` it calls).
_GAME_MEMBERS = (
    "initial_state",
    "to_move",
    "ply",
    "legal_moves",
    "play",
    "outcome",
    "key",
    "parse_move",
    "format_move",
    "render",
)


class PluginError(Exception):
    """A plugin did something wrong; the message names the plugin."""


class UnknownGameError(LookupError):
    """No installed plugin provides a game of that name."""


@dataclass(frozen=True, slots=True)
class Option:
    """A game option, offered by the CLI as ``--NAME``.

    ``type`` is int, float, str or bool (bool options become ``--NAME/--no-NAME``
    flags).  ``choices`` restricts a str option.
    """

    name: str
    type: OptionType
    default: OptionValue | None = None
    help: str = ""
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A named game: ``factory(**options)`` returns an object following :class:`gametree.Game`."""

    name: str
    factory: Callable[..., Game[Any, Any]]
    summary: str = ""
    options: tuple[Option, ...] = ()
    #: Filled in by the registry: which plugin registered the game.
    source: str = ""
    #: Opening books the plugin ships: files written by ``gametree book export`` (each names the
    #: options of its board), added to the solution store the first time it is used for that board.
    books: tuple[str, ...] = ()

    def create(self, **options: OptionValue | None) -> Game[Any, Any]:
        """Build the game; ``ValueError`` for a bad option value, :class:`PluginError` for a bad game."""
        known = {o.name for o in self.options}
        unknown = set(options) - known
        if unknown:
            raise ValueError(f"{self.name} has no option {', '.join(sorted(unknown))}")
        values = {o.name: o.default for o in self.options}
        values.update({k: v for k, v in options.items() if v is not None})
        game = self.factory(**values)
        missing = [name for name in _GAME_MEMBERS if not callable(getattr(game, name, None))]
        if missing or not isinstance(getattr(game, "info", None), GameInfo):
            what = f"lacks {', '.join(missing)}" if missing else "has no GameInfo in .info"
            raise PluginError(f"plugin {self.source or '?'}: game {self.name!r} is malformed: it {what}")
        try:
            capabilities(game)  # all of each optional capability or none of it, checked once here
        except IncompleteCapabilityError as exc:
            raise PluginError(f"plugin {self.source or '?'}: game {self.name!r} is malformed: {exc}") from None
        return game


@dataclass(frozen=True, slots=True)
class Exporter:
    """A search-tree output format, registered by a plugin with
    ``registry.add_exporter(name, Exporter(...))``.

    ``export(tree, options)`` returns the file's bytes; ``options`` holds the
    drawing options (``board``, ``node_style``, ``edge_style``, ``legend``).
    ``suffixes`` are file-name endings that select the format (``".svg"``);
    ``binary`` formats are not written to a terminal.
    """

    name: str
    export: Callable[[SearchTree, dict[str, Any]], bytes]
    suffixes: tuple[str, ...] = ()
    binary: bool = False
    summary: str = ""
    #: True if it needs a Graphviz ``dot`` program.
    needs_dot: bool = False
    #: Filled in by the registry: which plugin registered it.
    source: str = ""


#: The search options every algorithm may take, by keyword: what ``gametree solve`` offers as
#: --depth, --time-limit, --analysis-time, --no-cache/--cache-size, --no-symmetry, --weak,
#: --best-only and --engine, ``pv`` (follow the principal variation), ``progress`` (a
#: :class:`gametree.search.progress.SolveProgress` to fill as it goes) and ``interruptible``
#: (Ctrl-C ends the scoring of the moves, keeping what was proven) and ``store`` (a solution
#: store's :class:`gametree.store.Book` to read and write).  An :class:`AlgorithmSpec` names
#: those it takes.
SEARCH_OPTIONS = frozenset(
    {
        "depth",
        "time_limit",
        "analysis_time",
        "cache",
        "symmetry",
        "weak",
        "all_moves",
        "pv",
        "engine",
        "progress",
        "interruptible",
        "store",
        "trace",
    }
)

#: An algorithm's search: ``search(game, state, **options)``; the options differ from one algorithm to the next.
SearchFunction: TypeAlias = "Callable[..., SearchResult]"
#: What an algorithm's ``prepare(game, **options)`` returns: the search bound to one game, called with each state
#: (of that game's own state type, which the registry cannot know).
PreparedSearch: TypeAlias = "Callable[[Any], SearchResult]"
#: The same for ``prepare_scores``: a position's score alone.
PreparedScores: TypeAlias = "Callable[[Any], Scored]"


@dataclass(frozen=True, slots=True)
class AlgorithmSpec:
    """A named search algorithm, registered with ``registry.add_algorithm(AlgorithmSpec(...))``.

    ``search(game, state, **options)`` returns a :class:`gametree.search.SearchResult`.
    ``takes`` names the shared :data:`SEARCH_OPTIONS` it understands; ``options``
    are its own, offered by ``gametree solve`` as ``--NAME`` (like a game's), so a
    flag an algorithm does not take is refused, never silently ignored.
    ``prepare(game, **options)``, if given, sets the search up once for many
    positions and returns a callable taking the state; ``prepare_scores`` the same
    for a position's score alone (a :class:`gametree.search.Scored`).
    ``exact``: it proves values (and can solve subproblems in parallel).
    ``supports``: the kinds of game beyond the plain one it searches
    (:class:`gametree.game.GameKind`); :meth:`refusal` says why it refuses a game.
    """

    name: str
    search: SearchFunction
    summary: str = ""
    takes: frozenset[str] = frozenset()
    options: tuple[Option, ...] = ()
    prepare: Callable[..., PreparedSearch] | None = None
    prepare_scores: Callable[..., PreparedScores] | None = None
    exact: bool = False
    supports: frozenset[GameKind] = frozenset()
    #: The kinds of game it is for, of which a game must have one (empty: any game): value iteration's
    #: win probabilities are for games with dice or repeated positions, not for tic-tac-toe.
    needs: frozenset[GameKind] = frozenset()
    #: Filled in by the registry: which plugin registered it.
    source: str = ""

    def refusal(self, game: Game[Any, Any]) -> str | None:
        """Why this algorithm cannot search ``game``, in one line naming the property; None if it can."""
        why = refusal(self.name, self.supports, game)
        if why is None and self.needs and not self.needs & game_kinds(game.info):
            wanted = " or ".join(sorted(self.needs))
            why = f"{self.name} is for games with {wanted}; {game_name(game)} has none"
        return why


@dataclass(frozen=True, slots=True)
class PlayerSpec:
    """A kind of player for ``gametree play --x NAME``: calling the spec builds a new player."""

    name: str
    factory: Callable[[], object]
    #: Filled in by the registry: which plugin registered it.
    source: str = ""

    def __call__(self) -> object:
        """A new player (an object with ``human: bool`` and ``choose(game, state, rng)``, which
        ``gametree play`` checks, as :class:`gametree.play.Player` says)."""
        return self.factory()


@dataclass(frozen=True, slots=True)
class PluginLoadError:
    """A plugin that could not be loaded or registered; the rest keeps working."""

    name: str
    dist: str
    error: str

    def __str__(self) -> str:
        origin = f" (from {self.dist})" if self.dist else ""
        return f"plugin {self.name}{origin} failed: {self.error}"


def _simple_word(name: object) -> TypeGuard[str]:
    return isinstance(name, str) and name.replace("-", "").replace("_", "").isalnum()


#: Every kind of registered spec: each knows the plugin it came from (``source``).
_Spec: TypeAlias = GameSpec | AlgorithmSpec | Exporter | PlayerSpec


@dataclass
class Registry:
    """What the plugins registered, by name and sorted, each with the plugin it came from; and load errors."""

    games: dict[str, GameSpec] = field(default_factory=dict)
    algorithms: dict[str, AlgorithmSpec] = field(default_factory=dict)
    exporters: dict[str, Exporter] = field(default_factory=dict)
    players: dict[str, PlayerSpec] = field(default_factory=dict)
    errors: list[PluginLoadError] = field(default_factory=list)
    #: The plugin whose hook is running (set by the loader).
    current: str = ""

    def _check_new(self, kind: str, name: object, known: Mapping[str, _Spec]) -> None:
        if not _simple_word(name):
            raise PluginError(f"{kind} name {name!r} is not a simple word")
        if name in known:
            raise PluginError(f"{kind} {name!r} is registered twice: by {known[name].source} and by {self.current}")

    @staticmethod
    def _check_options(kind: str, name: str, options: Sequence[Option]) -> None:
        for option in options:
            if not isinstance(option, Option) or option.type not in _OPTION_TYPES:
                raise PluginError(f"{kind} {name!r}: options must be Option(name, type in int/float/str/bool, ...)")

    def add_game(self, spec: GameSpec) -> None:
        if not isinstance(spec, GameSpec):
            raise PluginError(f"add_game expects a GameSpec, got {type(spec).__name__}")
        self._check_new("game", spec.name, self.games)
        if not callable(spec.factory):
            raise PluginError(f"game {spec.name!r}: factory is not callable")
        self._check_options("game", spec.name, spec.options)
        self.games[spec.name] = replace(spec, options=tuple(spec.options), source=self.current)
        self.games = dict(sorted(self.games.items()))

    def add_algorithm(self, spec: AlgorithmSpec) -> None:
        if not isinstance(spec, AlgorithmSpec):
            raise PluginError(f"add_algorithm expects an AlgorithmSpec, got {type(spec).__name__}")
        self._check_new("algorithm", spec.name, self.algorithms)
        if not callable(spec.search):
            raise PluginError(f"algorithm {spec.name!r}: search is not callable")
        unknown = set(spec.takes) - SEARCH_OPTIONS
        if unknown:
            raise PluginError(
                f"algorithm {spec.name!r}: unknown search options {', '.join(sorted(unknown))} "
                f"(known: {', '.join(sorted(SEARCH_OPTIONS))})"
            )
        self._check_options("algorithm", spec.name, spec.options)
        added = replace(spec, takes=frozenset(spec.takes), options=tuple(spec.options), source=self.current)
        self.algorithms[spec.name] = added
        self.algorithms = dict(sorted(self.algorithms.items()))

    def add_exporter(self, name: str, exporter: Exporter) -> None:
        if not isinstance(exporter, Exporter):
            raise PluginError(f"add_exporter expects an Exporter, got {type(exporter).__name__}")
        self._check_new("exporter", name, self.exporters)
        if not callable(exporter.export):
            raise PluginError(f"exporter {name!r}: export is not callable")
        self.exporters[name] = replace(exporter, source=self.current)
        self.exporters = dict(sorted(self.exporters.items()))

    def add_player(self, name: str, factory: Callable[[], object]) -> None:
        """Register a player kind for ``gametree play --x NAME``; ``factory()`` builds one."""
        self._check_new("player", name, self.players)
        if not callable(factory):
            raise PluginError(f"player {name!r}: factory is not callable")
        self.players[name] = PlayerSpec(name, factory, self.current)

    def game(self, name: str) -> GameSpec:
        try:
            return self.games[name]
        except KeyError:
            known = ", ".join(self.games) or "none"
            raise UnknownGameError(f"unknown game {name!r} (installed: {known})") from None


def game_of_file(
    games: Mapping[str, GameSpec],
    name: str,
    options: dict[str, Any],
    error: Callable[[str], Exception],
    *,
    holding: str,
    at: str,
    whose: str,
) -> Game[Any, Any]:
    """The game ``name`` that a file names, made by its installed plugin from the file's ``options``;
    else ``error`` of one line: ``"{holding} the game NAME, which is not installed (installed: ...)"``
    or ``"{at}NAME refuses {whose} options ...: why"`` (a tier file's, a book's)."""
    spec = games.get(name)
    if spec is None:
        installed = ", ".join(sorted(games)) or "none"
        raise error(f"{holding} the game {name[:60]!r}, which is not installed (installed: {installed})")
    try:
        return spec.create(**options)
    except (ValueError, TypeError, OverflowError, GameError, PluginError) as exc:
        raise error(f"{at}{name} refuses {whose} options {str(options)[:120]}: {exc}") from None
