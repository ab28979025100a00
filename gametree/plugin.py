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

import importlib
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

import pluggy

from . import hookspecs
from .game import Game, GameInfo

__all__ = ["GameSpec", "Option", "PluginLoadError", "PluginError", "Registry", "UnknownGameError", "make_plugin_manager", "load"]

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

    def create(self, **options: Any) -> Game[Any, Any]:
        """Build the game; ``ValueError`` for a bad option value, :class:`PluginError` for a bad game."""
        known = {o.name for o in self.options}
        unknown = set(options) - known
        if unknown:
            raise ValueError(f"{self.name} has no option {', '.join(sorted(unknown))}")
        values = {o.name: o.default for o in self.options}
        values.update({k: v for k, v in options.items() if v is not None})
        game = self.factory(**values)
        missing = [
            name
            for name in ("initial_state", "to_move", "ply", "legal_moves", "play", "outcome", "key", "parse_move", "format_move", "render")
            if not callable(getattr(game, name, None))
        ]
        if missing or not isinstance(getattr(game, "info", None), GameInfo):
            what = f"lacks {', '.join(missing)}" if missing else "has no GameInfo in .info"
            raise PluginError(f"plugin {self.source or '?'}: game {self.name!r} is malformed: it {what}")
        return game


@dataclass(frozen=True, slots=True)
class PluginLoadError:
    """A plugin that could not be loaded or registered; the rest keeps working."""

    name: str
    dist: str
    error: str

    def __str__(self) -> str:
        origin = f" (from {self.dist})" if self.dist else ""
        return f"plugin {self.name}{origin} failed: {self.error}"


@dataclass
class Registry:
    """What the plugins registered: games, algorithms, exporters, and load errors."""

    games: dict[str, GameSpec] = field(default_factory=dict)
    algorithms: dict[str, Callable[..., Any]] = field(default_factory=dict)
    exporters: dict[str, Any] = field(default_factory=dict)
    #: Players for ``gametree play``: name -> factory returning a new player.
    players: dict[str, Callable[[], Any]] = field(default_factory=dict)
    errors: list[PluginLoadError] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    #: The plugin whose hook is running (set by the loader).
    current: str = ""

    def add_game(self, spec: GameSpec) -> None:
        if not isinstance(spec, GameSpec):
            raise PluginError(f"add_game expects a GameSpec, got {type(spec).__name__}")
        if not (isinstance(spec.name, str) and spec.name.replace("-", "").replace("_", "").isalnum()):
            raise PluginError(f"game name {spec.name!r} is not a simple word")
        if not callable(spec.factory):
            raise PluginError(f"game {spec.name!r}: factory is not callable")
        for option in spec.options:
            if not isinstance(option, Option) or option.type not in _OPTION_TYPES:
                raise PluginError(f"game {spec.name!r}: options must be Option(name, type in int/float/str/bool, ...)")
        if spec.name in self.games:
            raise PluginError(f"game {spec.name!r} is registered twice: by {self.games[spec.name].source} and by {self.current}")
        self.games[spec.name] = GameSpec(spec.name, spec.factory, spec.summary, tuple(spec.options), self.current)
        self.games = dict(sorted(self.games.items()))

    def add_algorithm(self, name: str, function: Callable[..., Any]) -> None:
        if name in self.algorithms:
            raise PluginError(f"algorithm {name!r} is registered twice (again by {self.current})")
        self.algorithms[name] = function
        self.sources[f"algorithm:{name}"] = self.current

    def add_exporter(self, name: str, exporter: Any) -> None:
        if name in self.exporters:
            raise PluginError(f"exporter {name!r} is registered twice (again by {self.current})")
        self.exporters[name] = exporter
        self.sources[f"exporter:{name}"] = self.current

    def add_player(self, name: str, factory: Callable[[], Any]) -> None:
        """Register a player kind for ``gametree play --x NAME``; ``factory()`` builds one."""
        if not (isinstance(name, str) and name.replace("-", "").replace("_", "").isalnum()):
            raise PluginError(f"player name {name!r} is not a simple word")
        if not callable(factory):
            raise PluginError(f"player {name!r}: factory is not callable")
        if name in self.players:
            raise PluginError(f"player {name!r} is registered twice: by {self.sources[f'player:{name}']} and by {self.current}")
        self.players[name] = factory
        self.sources[f"player:{name}"] = self.current

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
        # "name version" of each distribution, read once: every .name and .version parses its METADATA again.
        dist_labels: dict[int, str] = {}
        for ep in sorted(entry_points(group=hookspecs.PROJECT), key=lambda e: e.name):
            if ep.name in blocked or pm.is_blocked(ep.name):
                continue
            dist = ""
            if ep.dist is not None:
                if id(ep.dist) not in dist_labels:
                    dist_labels[id(ep.dist)] = f"{ep.dist.name} {ep.dist.version}"
                dist = dist_labels[id(ep.dist)]
            try:
                plugin = ep.load()
                pm._register_checked(plugin, ep.name, f"{dist} (entry point {ep.value})" if dist else f"entry point {ep.value}")
            except Exception as exc:  # a plugin's import can raise anything
                pm.load_errors.append(PluginLoadError(ep.name, dist, f"{type(exc).__name__}: {exc}"))
    for item in names:
        if isinstance(item, str):
            if pm.is_blocked(item) or pm.has_plugin(item):
                continue
            try:
                plugin = importlib.import_module(item)
                pm._register_checked(plugin, item, f"module {item} (-p)")
            except Exception as exc:
                pm.load_errors.append(PluginLoadError(item, "", f"{type(exc).__name__}: {exc}"))
        else:
            name = getattr(item, "__name__", None) or repr(item)
            try:
                pm._register_checked(item, name, f"object {name}")
            except Exception as exc:
                pm.load_errors.append(PluginLoadError(name, "", f"{type(exc).__name__}: {exc}"))
    return pm


def build_registry(pm: PluginManager) -> Registry:
    """Call the registration hooks plugin by plugin, so one plugin's error spares the rest."""
    from .search import ALGORITHMS

    registry = Registry(errors=list(pm.load_errors))
    registry.current = "gametree (built in)"
    for name, function in ALGORITHMS.items():
        registry.add_algorithm(name, function)
    for hook_name in ("gametree_register_algorithms", "gametree_register_games", "gametree_register_exporters", "gametree_register_players"):
        hook = getattr(pm.hook, hook_name)
        for impl in hook.get_hookimpls():  # registration order: entry points, then -p
            plugin_name = impl.plugin_name
            others = [p for p in pm.get_plugins() if p is not impl.plugin]
            registry.current = pm.origins.get(plugin_name, plugin_name)
            try:
                # Through pluggy (so tracing and hook monitoring see it), one plugin at a time.
                pm.subset_hook_caller(hook_name, remove_plugins=others)(registry=registry)
            except Exception as exc:
                registry.errors.append(PluginLoadError(plugin_name, pm.origins.get(plugin_name, ""), f"{hook_name}: {type(exc).__name__}: {exc}"))
    registry.current = ""
    return registry


def load(*, autoload: bool = True, extra: Sequence[str | object] = (), blocked: Iterable[str] = ()) -> Registry:
    """Build a plugin manager and return what its plugins registered."""
    return build_registry(make_plugin_manager(autoload=autoload, extra=extra, blocked=blocked))
