"""The hooks a gametree plugin can implement, shaped like tox's ``tox/plugin/spec.py``.

A plugin is a module (or object) with functions decorated ``@hookimpl``::

    from gametree import hookimpl, GameSpec

    @hookimpl
    def gametree_register_games(registry):
        registry.add_game(GameSpec(name="mygame", factory=MyGame, summary="..."))

Every hook here collects from all plugins (none is ``firstresult``): each one
adds to the :class:`~gametree.plugin.registry.Registry` it is given and returns
nothing, so load order never matters.  Hooks run when things are registered,
never once per search node.

>>> import pluggy
>>> from gametree.plugin import NAME, spec
>>> pm = pluggy.PluginManager(NAME)
>>> pm.add_hookspecs(spec)
>>> sorted(name for name in vars(pm.hook) if name.startswith("gametree_"))  # doctest: +NORMALIZE_WHITESPACE
['gametree_register_algorithms', 'gametree_register_exporters', 'gametree_register_games',
 'gametree_register_players']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import hookspec

if TYPE_CHECKING:
    from .registry import Registry

__all__ = [
    "gametree_register_algorithms",
    "gametree_register_exporters",
    "gametree_register_games",
    "gametree_register_players",
]


@hookspec
def gametree_register_games(registry: Registry) -> None:
    """Add games with ``registry.add_game(GameSpec(...))``.

    Collecting (not firstresult): called on every plugin once, when the registry
    is built (:func:`gametree.load`).  A duplicate game name is reported naming
    both plugins.
    """


@hookspec
def gametree_register_algorithms(registry: Registry) -> None:
    """Add search algorithms with ``registry.add_algorithm(AlgorithmSpec(...))``.

    The spec's ``search(game, state, **options)`` returns a
    :class:`gametree.search.SearchResult`; ``takes`` names the shared search
    options it understands and ``options`` declares its own (``gametree solve``
    offers them as flags, and refuses a flag the chosen algorithm does not take).
    For many positions in a row (``gametree solve --batch``) an algorithm that
    can set itself up once gives ``prepare`` and ``prepare_scores`` (see
    :func:`gametree.search.prepare`).  The built-in algorithms register through
    this hook too (``gametree.search.algorithms``).

    Collecting (not firstresult): called on every plugin once.
    """


@hookspec
def gametree_register_exporters(registry: Registry) -> None:
    """Add search-tree exporters with ``registry.add_exporter(name, Exporter(...))``.

    Collecting (not firstresult): called on every plugin once.
    """


@hookspec
def gametree_register_players(registry: Registry) -> None:
    """Add players for ``gametree play`` with ``registry.add_player(name, factory)``.

    ``factory()`` returns a new :class:`gametree.play.Player` (an object with
    ``human: bool`` and ``choose(game, state, rng) -> move``); it is called
    once per seat, so a player may keep state (a transposition table) between
    moves.  The registry keeps it as a :class:`gametree.plugin.registry.PlayerSpec`,
    which builds a player when called.

    Collecting (not firstresult): called on every plugin once.
    """
