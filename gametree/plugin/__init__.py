"""gametree's plugins: the project's name and the two pluggy markers.

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

The parts, one job each (this module imports none of them, so each may import it):

- :mod:`.spec`: the hooks a plugin implements;
- :mod:`.registry`: what plugins register (:class:`~.registry.GameSpec`,
  :class:`~.registry.AlgorithmSpec`, ...) and the :class:`~.registry.Registry` holding it;
- :mod:`.manager`: the plugin manager, and :func:`~.manager.load`, which builds the registry;
- :mod:`.entrypoints`: the ``gametree`` entry points, kept in a cache file;
- :mod:`.limits`: the time a plugin's import or hook may take.

>>> NAME
'gametree'
>>> @hookimpl
... def gametree_register_games(registry):
...     pass
>>> gametree_register_games.gametree_impl["trylast"]  # what pluggy reads
False
"""

from __future__ import annotations

import pluggy

__all__ = ["NAME", "hookimpl", "hookspec"]

#: The project name: pluggy's project, the markers' attribute prefix and the entry-point group.
NAME = "gametree"
#: Marks a hook specification (in :mod:`.spec`).
hookspec = pluggy.HookspecMarker(NAME)
#: Marks a plugin's hook implementation: ``from gametree import hookimpl`` is all a plugin imports.
hookimpl = pluggy.HookimplMarker(NAME)
