"""Loading plugins: games, algorithms and exporters through pluggy.

Built-in games load exactly like third-party ones, through the ``gametree``
entry-point group.  A minimal third-party game is one module::

    # gametree_nim.py
    from gametree import hookimpl, GameSpec

    @hookimpl
    def gametree_register_games(registry):
        registry.add_game(GameSpec(name="nim", factory=Nim, summary="take-away game"))

and two lines of its ``pyproject.toml``::

    [project.entry-points.gametree]
    nim = "gametree_nim"

A module on the path can also be loaded for one run with ``gametree -p MODULE``.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import stat
import sys
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import pluggy

from . import hookspecs
from .files import user_cache_folder, write_privately
from .game import Game, GameInfo, IncompleteCapabilityError, capabilities

if TYPE_CHECKING:
    from .tree.model import SearchTree

__all__ = ["SEARCH_OPTIONS", "AlgorithmSpec", "Exporter", "GameSpec", "Option", "PlayerSpec", "PluginLoadError", "PluginError", "Registry", "UnknownGameError", "make_plugin_manager", "load"]

_OPTION_TYPES = (int, float, str, bool)


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
    type: type
    default: Any = None
    help: str = ""
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A named game: ``factory(**options)`` returns an object following :class:`gametree.Game`."""

    name: str
    factory: Callable[..., Any]
    summary: str = ""
    options: tuple[Option, ...] = ()
    #: Filled in by the registry: which plugin registered the game.
    source: str = ""
    #: Opening books the plugin ships: files written by ``gametree book export`` (each names the
    #: options of its board), added to the solution store the first time it is used for that board.
    books: tuple[str, ...] = ()

    def create(self, **options: Any) -> Game[Any, Any]:
        """Build the game; ``ValueError`` for a bad option value, :class:`PluginError` for a bad game."""
        known = {o.name for o in self.options}
        unknown = set(options) - known
        if unknown:
            raise ValueError(f"{self.name} has no option {', '.join(sorted(unknown))}")
        values = {o.name: o.default for o in self.options}
        values.update({k: v for k, v in options.items() if v is not None})
        game: Game[Any, Any] = self.factory(**values)
        missing = [
            name
            for name in ("initial_state", "to_move", "ply", "legal_moves", "play", "outcome", "key", "parse_move", "format_move", "render")
            if not callable(getattr(game, name, None))
        ]
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
    {"depth", "time_limit", "analysis_time", "cache", "symmetry", "weak", "all_moves", "pv", "engine", "progress", "interruptible", "store"}
)


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
    """

    name: str
    search: Callable[..., Any]
    summary: str = ""
    takes: frozenset[str] = frozenset()
    options: tuple[Option, ...] = ()
    prepare: Callable[..., Callable[[Any], Any]] | None = None
    prepare_scores: Callable[..., Callable[[Any], Any]] | None = None
    exact: bool = False
    #: Filled in by the registry: which plugin registered it.
    source: str = ""


@dataclass(frozen=True, slots=True)
class PlayerSpec:
    """A kind of player for ``gametree play --x NAME``: calling the spec builds a new player."""

    name: str
    factory: Callable[[], Any]
    #: Filled in by the registry: which plugin registered it.
    source: str = ""

    def __call__(self) -> Any:
        """A new player (an object with ``human: bool`` and ``choose(game, state, rng)``)."""
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


def _simple_word(name: object) -> bool:
    return isinstance(name, str) and name.replace("-", "").replace("_", "").isalnum()


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

    def _check_new(self, kind: str, name: object, known: Mapping[str, Any]) -> None:
        if not _simple_word(name):
            raise PluginError(f"{kind} name {name!r} is not a simple word")
        if name in known:
            raise PluginError(f"{kind} {name!r} is registered twice: by {known[name].source} and by {self.current}")  # type: ignore[index]

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
            raise PluginError(f"algorithm {spec.name!r}: unknown search options {', '.join(sorted(unknown))} (known: {', '.join(sorted(SEARCH_OPTIONS))})")
        self._check_options("algorithm", spec.name, spec.options)
        self.algorithms[spec.name] = replace(spec, takes=frozenset(spec.takes), options=tuple(spec.options), source=self.current)
        self.algorithms = dict(sorted(self.algorithms.items()))

    def add_exporter(self, name: str, exporter: Exporter) -> None:
        if not isinstance(exporter, Exporter):
            raise PluginError(f"add_exporter expects an Exporter, got {type(exporter).__name__}")
        self._check_new("exporter", name, self.exporters)
        if not callable(exporter.export):
            raise PluginError(f"exporter {name!r}: export is not callable")
        self.exporters[name] = replace(exporter, source=self.current)
        self.exporters = dict(sorted(self.exporters.items()))

    def add_player(self, name: str, factory: Callable[[], Any]) -> None:
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


class PluginManager(pluggy.PluginManager):
    """pluggy's manager plus where each plugin came from and what failed to load."""

    def __init__(self) -> None:
        super().__init__(hookspecs.PROJECT)
        self.add_hookspecs(hookspecs)
        self.origins: dict[str, str] = {}
        self.load_errors: list[PluginLoadError] = []

    def _register_checked(self, plugin: object, name: str, origin: str) -> None:
        """Register a plugin, rejecting it (not everything) if a hook is misspelt."""
        self.register(plugin, name=name)
        try:
            self.check_pending()
        except pluggy.PluginValidationError as exc:
            self.unregister(name=name)
            raise PluginError(str(exc)) from None
        self.origins[name] = origin


def _split_env(name: str) -> list[str]:
    return [part.strip() for part in os.environ.get(name, "").split(",") if part.strip()]


# -- finding the entry points ---------------------------------------------------------------
#: Bumped when the cache file's layout changes.
_CACHE_FORMAT = 1


def _fingerprint(paths: list[str]) -> list[Any] | None:
    """What ``importlib.metadata`` looks at to find entry points, with its files' times and sizes.

    For each folder or file of ``paths`` (``sys.path``): a missing one as such; a file (a zip) by its
    time and size; a directory by its time (a distribution installed, removed
    or renamed changes it) and by each ``*.dist-info``/``*.egg-info`` in it with
    the time, size and inode of its ``entry_points.txt`` (an edit in place).
    None when a finder other than the standard path finder (or the
    ``importlib_metadata`` backport's, which searches the same folders and
    which that package puts in its place when imported) could provide
    distributions: what it finds cannot be told from here.
    """
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if finder is PathFinder or getattr(finder, "find_distributions", None) is None:
            continue
        kind = type(finder)
        if (kind.__module__, kind.__qualname__) != ("importlib_metadata", "MetadataPathFinder"):
            return None
    entries: list[Any] = []
    for where in paths:
        try:
            info = os.stat(where)
        except (OSError, ValueError):
            entries.append([where])
            continue
        if not stat.S_ISDIR(info.st_mode):
            entries.append([where, info.st_mtime_ns, info.st_size])
            continue
        try:
            names = sorted(name for name in os.listdir(where) if name.lower().endswith((".dist-info", ".egg-info")))
        except OSError:
            names = []
        dists: list[Any] = []
        for name in names:
            try:
                points = os.stat(os.path.join(where, name, "entry_points.txt"))
                dists.append([name, points.st_mtime_ns, points.st_size, points.st_ino])
            except OSError:
                dists.append([name])
        entries.append([where, info.st_mtime_ns, dists])
    return entries


#: A cache file larger than this is not read (it holds a few kilobytes).
_CACHE_MAX_BYTES = 1 << 20


def _cache_path(paths: list[str]) -> str:
    """The cache file of this Python environment (its interpreter and ``paths``)."""
    folder = user_cache_folder()
    environment = "\0".join([sys.executable, *paths])
    return os.path.join(folder, f"entry-points-{zlib.crc32(environment.encode('utf-8', 'surrogatepass')):08x}.json")


def _scan() -> list[tuple[str, str, str]]:
    """``(name, value, "distribution version")`` of each entry point of the group, by name."""
    from importlib.metadata import entry_points

    # "name version" of each distribution, read once: every .name and .version parses its METADATA again.
    labels: dict[int, str] = {}
    found = []
    for ep in sorted(entry_points(group=hookspecs.PROJECT), key=lambda e: e.name):
        dist = ""
        if ep.dist is not None:
            if id(ep.dist) not in labels:
                labels[id(ep.dist)] = f"{ep.dist.name} {ep.dist.version}"
            dist = labels[id(ep.dist)]
        found.append((ep.name, ep.value, dist))
    return found


def entry_point_list() -> list[tuple[str, str, str]]:
    """The ``gametree`` entry points: ``(name, value, "distribution version")``, by name.

    ``importlib.metadata`` finds them; its answer is kept in a file of the user's
    cache (``$GAMETREE_CACHE_DIR``, else ``$XDG_CACHE_HOME/gametree`` or
    ``~/.cache/gametree``) and read back while nothing it looked at has changed
    (see :func:`_fingerprint`), which spares each command importing it
    (docs/performance-log.md has the cost).  ``GAMETREE_PLUGIN_CACHE=0`` turns the cache off.  A cache that
    cannot be read or written is passed over silently.
    """
    try:  # "" on sys.path is the working folder (gone, if it was deleted: then no cache)
        paths = [entry or os.getcwd() for entry in sys.path]
    except OSError:
        return _scan()
    fingerprint = _fingerprint(paths) if os.environ.get("GAMETREE_PLUGIN_CACHE", "1") != "0" else None
    if fingerprint is None:
        return _scan()
    path = _cache_path(paths)
    try:
        kept = _read_private(path)
        if isinstance(kept, dict) and kept.get("format") == _CACHE_FORMAT and kept.get("fingerprint") == fingerprint:
            entries = kept.get("entry_points")
            # Only a list of [name, value, dist] strings; any other shape is a miss, rewritten below.
            if isinstance(entries, list) and all(isinstance(e, list) and len(e) == 3 and all(isinstance(field, str) for field in e) for e in entries):
                return [(name, value, dist) for name, value, dist in entries]
    except (OSError, ValueError, RecursionError, MemoryError):
        pass  # none yet, or unreadable (too deeply nested, say): scan again
    found = _scan()
    try:
        write_privately(path, json.dumps({"format": _CACHE_FORMAT, "fingerprint": fingerprint, "entry_points": found}).encode("utf-8"))
    except OSError:
        pass  # a read-only or full disk: no cache, same answer
    return found


def _read_private(path: str) -> Any:
    """The JSON in ``path`` if it is a regular file of this user that nobody else may write (the
    cache names modules to import: a file someone else could have written is not trusted), else
    :class:`OSError`.  Opened without following a symbolic link and without blocking (a FIFO
    there would otherwise hang every command)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o022 or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
            raise OSError(f"{path}: not a private regular file")
        return json.loads(f.read(_CACHE_MAX_BYTES + 1)[:_CACHE_MAX_BYTES])


#: Seconds a plugin's import, or one of its registration hooks, may take before it is given up as
#: broken (``GAMETREE_PLUGIN_SECONDS``; a plugin that loops forever would hang every command).
PLUGIN_SECONDS = 10.0


class PluginTimeout(Exception):
    """A plugin's import or hook ran past :data:`PLUGIN_SECONDS`."""


@contextlib.contextmanager
def _time_limited(what: str) -> Iterator[None]:
    """Raise :class:`PluginTimeout` in the block after :data:`PLUGIN_SECONDS` (or
    ``$GAMETREE_PLUGIN_SECONDS``), by a timer signal: only in the main thread of a POSIX process
    (elsewhere no limit), and leaving any timer set before as it was."""
    try:
        seconds = float(os.environ.get("GAMETREE_PLUGIN_SECONDS", PLUGIN_SECONDS))
    except ValueError:
        seconds = PLUGIN_SECONDS
    if not (seconds > 0 and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()):
        yield
        return
    previous_timer = signal.getitimer(signal.ITIMER_REAL)
    if previous_timer[0] > 0:  # someone else's timer runs: leave it alone
        yield
        return

    def expired(signum: int, frame: Any) -> None:
        raise PluginTimeout(f"{what} did not finish within {seconds:g} s (GAMETREE_PLUGIN_SECONDS)")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _load_entry_point(value: str) -> Any:
    """The object an entry point names: ``module`` or ``module:attribute.path`` (extras ignored)."""
    module, _, attributes = value.partition("[")[0].partition(":")
    target = importlib.import_module(module.strip())
    for attribute in filter(None, attributes.strip().split(".")):
        target = getattr(target, attribute)
    return target


def make_plugin_manager(
    *,
    autoload: bool = True,
    extra: Sequence[str | object] = (),
    blocked: Iterable[str] = (),
) -> PluginManager:
    """Build a plugin manager.

    - loads every ``gametree`` entry point (unless ``autoload`` is false), each
      on its own: a broken one becomes a :class:`PluginLoadError`;
    - registers ``extra`` plugins: module names (like ``pytest -p``) or objects;
      ``"no:NAME"`` blocks the plugin NAME instead;
    - honours ``GAMETREE_DISABLE_PLUGINS=a,b`` and ``GAMETREE_TRACE_PLUGINS=1``.
    """
    pm = PluginManager()
    blocked = set(blocked) | set(_split_env("GAMETREE_DISABLE_PLUGINS"))
    names = []
    for item in extra:
        if isinstance(item, str) and item.startswith("no:"):
            blocked.add(item[3:])
        else:
            names.append(item)
    for name in blocked:
        pm.set_blocked(name)
    if os.environ.get("GAMETREE_TRACE_PLUGINS"):
        pm.trace.root.setwriter(lambda text: sys.stderr.write(text))
        pm.enable_tracing()

    if autoload:
        for name, value, dist in entry_point_list():
            if name in blocked or pm.is_blocked(name):
                continue
            try:
                with _time_limited("its import"):
                    plugin = _load_entry_point(value)
                pm._register_checked(plugin, name, f"{dist} (entry point {value})" if dist else f"entry point {value}")
            except KeyboardInterrupt:  # Ctrl-C stops the command
                raise
            except BaseException as exc:  # a plugin's import can raise anything, sys.exit() too
                pm.load_errors.append(PluginLoadError(name, dist, f"{type(exc).__name__}: {exc}"))
    for item in names:
        if isinstance(item, str):
            if pm.is_blocked(item) or pm.has_plugin(item):
                continue
            try:
                with _time_limited("its import"):
                    plugin = importlib.import_module(item)
                pm._register_checked(plugin, item, f"module {item} (-p)")
            except KeyboardInterrupt:  # Ctrl-C stops the command
                raise
            except BaseException as exc:
                pm.load_errors.append(PluginLoadError(item, "", f"{type(exc).__name__}: {exc}"))
        else:
            name = getattr(item, "__name__", None) or repr(item)
            try:
                pm._register_checked(item, name, f"object {name}")
            except KeyboardInterrupt:  # Ctrl-C stops the command
                raise
            except BaseException as exc:
                pm.load_errors.append(PluginLoadError(name, "", f"{type(exc).__name__}: {exc}"))
    return pm


def build_registry(pm: PluginManager) -> Registry:
    """Call the registration hooks plugin by plugin, so one plugin's error spares the rest."""
    registry = Registry(errors=list(pm.load_errors))
    for hook_name in ("gametree_register_algorithms", "gametree_register_games", "gametree_register_exporters", "gametree_register_players"):
        hook = getattr(pm.hook, hook_name)
        for impl in hook.get_hookimpls():  # registration order: entry points, then -p
            plugin_name = impl.plugin_name
            others = [p for p in pm.get_plugins() if p is not impl.plugin]
            registry.current = pm.origins.get(plugin_name, plugin_name)
            try:
                # Through pluggy (so tracing and hook monitoring see it), one plugin at a time.
                with _time_limited(f"its hook {hook_name}"):
                    pm.subset_hook_caller(hook_name, remove_plugins=others)(registry=registry)
            except KeyboardInterrupt:  # Ctrl-C stops the command
                raise
            except BaseException as exc:
                registry.errors.append(PluginLoadError(plugin_name, pm.origins.get(plugin_name, ""), f"{hook_name}: {type(exc).__name__}: {exc}"))
    registry.current = ""
    return registry


def load(*, autoload: bool = True, extra: Sequence[str | object] = (), blocked: Iterable[str] = ()) -> Registry:
    """Build a plugin manager and return what its plugins registered."""
    return build_registry(make_plugin_manager(autoload=autoload, extra=extra, blocked=blocked))
