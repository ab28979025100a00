"""The hooks a gametree plugin can implement.

A plugin is a module (or object) with functions decorated ``@hookimpl``::

    from gametree import hookimpl, GameSpec

    @hookimpl
    def gametree_register_games(registry):
        registry.add_game(GameSpec(name="mygame", factory=MyGame, summary="..."))

Hooks run when things are registered, never once per search node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from .plugin import Registry

__all__ = ["hookspec", "hookimpl", "PROJECT", "gametree_register_games", "gametree_register_algorithms", "gametree_register_exporters", "gametree_register_players"]

PROJECT = "gametree"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def gametree_register_games(registry: Registry) -> None:
    """Add games with ``registry.add_game(GameSpec(...))``.

    Called on every plugin (not firstresult) once, when the plugin manager is
    built.  A duplicate game name is reported naming both plugins.
    """


@hookspec
def gametree_register_algorithms(registry: Registry) -> None:
    """Add search algorithms with ``registry.add_algorithm(name, function)``.

    The function is called as ``function(game, state, **options)`` and returns
    a :class:`gametree.search.SearchResult`.  For many positions in a row
    (``gametree solve --batch``) it is bound once with
    :func:`gametree.search.prepare`; a function that can set itself up once for
    all of them may offer ``function.prepare(game, **options)``, returning a
    callable that takes the state.  One that can prove a position's score
    without building a whole result may also offer
    ``function.prepare_scores(game, **options)``, whose callable returns a
    :class:`gametree.search.Scored` (see :func:`gametree.search.prepare_scores`).
    Called on every plugin once.
    """


@hookspec
def gametree_register_exporters(registry: Registry) -> None:
    """Add search-tree exporters with ``registry.add_exporter(name, exporter)``.

    Called on every plugin once.
    """


@hookspec
def gametree_register_players(registry: Registry) -> None:
    """Add players for ``gametree play`` with ``registry.add_player(name, factory)``.

    ``factory()`` returns a new :class:`gametree.play.Player` (an object with
    ``human: bool`` and ``choose(game, state, rng) -> move``); it is called
    once per seat, so a player may keep state (a transposition table) between
    moves.  Called on every plugin (not firstresult) once.
    """
