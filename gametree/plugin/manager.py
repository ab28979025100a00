"""The plugin manager: loads the plugins, each on its own, and builds the registry from their hooks.

:func:`make_plugin_manager` loads every ``gametree`` entry point (:mod:`.entrypoints`) and the
``-p`` plugins, each within a time limit (:mod:`.limits`); a plugin that fails becomes a
:class:`~.registry.PluginLoadError` while the others keep working.  :func:`build_registry` calls the
registration hooks (:mod:`.spec`) one plugin at a time.  The manager never names a game: it
finds them all through the entry points.

>>> from gametree import GameSpec, hookimpl
>>> class Plugin:
...     @hookimpl
...     def gametree_register_games(self, registry):
...         registry.add_game(GameSpec(name="nothing", factory=lambda: None))
>>> registry = load(autoload=False, extra=[Plugin()])
>>> list(registry.games), registry.games["nothing"].source.startswith("object ")
(['nothing'], True)
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Callable, Iterable, Sequence

import pluggy

from . import NAME, spec
from .entrypoints import entry_point_list
from .limits import time_limited, watched
from .registry import PluginError, PluginLoadError, Registry

__all__ = ["PluginManager", "build_registry", "load", "make_plugin_manager"]

#: The registration hooks, in the order :func:`build_registry` calls them.
_HOOKS = (
    "gametree_register_algorithms",
    "gametree_register_games",
    "gametree_register_exporters",
    "gametree_register_players",
)


class PluginManager(pluggy.PluginManager):
    """pluggy's manager plus where each plugin came from and what failed to load."""

    def __init__(self) -> None:
        super().__init__(NAME)
        self.add_hookspecs(spec)
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

    def _load_one(self, name: str, dist: str, origin: str, plugin: Callable[[], object]) -> None:
        """Register what ``plugin()`` returns (an import, given :data:`~.limits.PLUGIN_SECONDS`); any
        failure but Ctrl-C, even ``sys.exit()`` in a plugin's import, becomes a :class:`PluginLoadError`."""
        try:
            with time_limited("its import", _who(name, origin)):
                loaded = plugin()
            self._register_checked(loaded, name, origin)
        except KeyboardInterrupt:  # Ctrl-C stops the command
            raise
        except BaseException as exc:  # a plugin's import can raise anything, sys.exit() too
            self.load_errors.append(PluginLoadError(name, dist, f"{type(exc).__name__}: {exc}"))


def _who(name: str, origin: str) -> str:
    """The plugin ``name`` as an error names it: ``-p MODULE``, else ``plugin NAME (from ORIGIN)``."""
    return f"-p {name}" if origin.endswith("(-p)") else f"plugin {name} (from {origin})"


def _split_env(name: str) -> list[str]:
    return [part.strip() for part in os.environ.get(name, "").split(",") if part.strip()]


def _same(plugin: object) -> object:
    """A plugin given as an object: loading it is taking it as it is."""
    return plugin


def _load_entry_point(value: str) -> object:
    """The object an entry point names: ``module`` or ``module:attribute.path`` (extras ignored)."""
    module, _, attributes = value.partition("[")[0].partition(":")
    target: object = importlib.import_module(module.strip())
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

    with watched():  # (one watchdog for every plugin's import)
        _load_all(pm, autoload, names, blocked)
    return pm


def _load_all(pm: PluginManager, autoload: bool, names: Sequence[str | object], blocked: set[str]) -> None:
    """Load the entry points (if ``autoload``) and then ``names`` (see :func:`make_plugin_manager`)."""
    if autoload:
        for name, value, dist in entry_point_list():
            if name in blocked or pm.is_blocked(name):
                continue
            origin = f"{dist} (entry point {value})" if dist else f"entry point {value}"
            pm._load_one(name, dist, origin, functools.partial(_load_entry_point, value))
    for item in names:
        if isinstance(item, str):
            if pm.is_blocked(item) or pm.has_plugin(item):
                continue
            pm._load_one(item, "", f"module {item} (-p)", functools.partial(importlib.import_module, item))
        else:
            name = getattr(item, "__name__", None) or repr(item)
            pm._load_one(name, "", f"object {name}", functools.partial(_same, item))


def build_registry(pm: PluginManager) -> Registry:
    """Call the registration hooks plugin by plugin, so one plugin's error spares the rest."""
    registry = Registry(errors=list(pm.load_errors))
    with watched():  # (one watchdog for every plugin's hooks)
        for hook_name in _HOOKS:
            _call_hook(pm, registry, hook_name)
    registry.current = ""
    return registry


def _call_hook(pm: PluginManager, registry: Registry, hook_name: str) -> None:
    """Call the registration hook ``hook_name`` of each plugin (see :func:`build_registry`)."""
    hook = getattr(pm.hook, hook_name)
    # gametree's own plugins first, then the others in registration order (entry points, then
    # -p): a plugin cannot take a built-in game's name, and the clash is reported as its own.
    for impl in sorted(hook.get_hookimpls(), key=lambda impl: not _builtin(pm.origins.get(impl.plugin_name, ""))):
        plugin_name = impl.plugin_name
        others = [p for p in pm.get_plugins() if p is not impl.plugin]
        registry.current = pm.origins.get(plugin_name, plugin_name)
        try:
            # Through pluggy (so tracing and hook monitoring see it), one plugin at a time.
            with time_limited(f"its hook {hook_name}", _who(plugin_name, pm.origins.get(plugin_name, ""))):
                pm.subset_hook_caller(hook_name, remove_plugins=others)(registry=registry)
        except KeyboardInterrupt:  # Ctrl-C stops the command
            raise
        except BaseException as exc:
            error = f"{hook_name}: {type(exc).__name__}: {exc}"
            registry.errors.append(PluginLoadError(plugin_name, pm.origins.get(plugin_name, ""), error))


def _builtin(origin: str) -> bool:
    """Whether a plugin comes from gametree's own distribution (its origin names the distribution first)."""
    return origin.split(" ", 1)[0] == NAME


def load(*, autoload: bool = True, extra: Sequence[str | object] = (), blocked: Iterable[str] = ()) -> Registry:
    """Build a plugin manager and return what its plugins registered."""
    with watched():  # (one watchdog for the imports and the hooks)
        return build_registry(make_plugin_manager(autoload=autoload, extra=extra, blocked=blocked))
