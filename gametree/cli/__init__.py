"""The ``gametree`` command line.

``solve``, ``play``, ``tree`` and ``learn`` are groups with one subcommand per
installed game, built from the game's declared options, so
``gametree solve tictactoe --size 4 --k 3 --help`` shows that game's flags.
The plugin manager is built once per run (after ``-p``) and kept on the root
context.  User errors are one line and a non-zero exit, never a traceback.

Modules: :mod:`.common` (what the commands share), one module per command
(:mod:`.solve`, :mod:`.play`, :mod:`.tree`, :mod:`.learn`, :mod:`.games`) and
:mod:`.root` (the root group, which gathers them, and :func:`main`).
"""

from __future__ import annotations

from .common import GameGroup, game_options, make_game, registry_of
from .root import cli, main

__all__ = ["main", "cli", "GameGroup", "registry_of", "game_options", "make_game"]
