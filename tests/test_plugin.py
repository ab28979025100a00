"""Plugin loading through pluggy and the gametree entry-point group."""

from __future__ import annotations

import sys
import types
from importlib.metadata import entry_points

import pytest

from gametree import GameSpec, Option, PluginError, hookimpl, load
from gametree.plugin.manager import build_registry, make_plugin_manager


def module_plugin(name: str, source: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(source, module.__dict__)
    return module


GOOD = """
from gametree import hookimpl, GameSpec
from gametree_builtins.games.tictactoe import TicTacToe

@hookimpl
def gametree_register_games(registry):
    registry.add_game(GameSpec(name="tiny", factory=lambda: TicTacToe(2, 2, 2), summary="2x2"))
"""


def test_builtin_games_come_from_entry_points():
    names = {ep.name: ep.value for ep in entry_points(group="gametree")}
    assert names["tictactoe"] == "gametree_builtins.games.tictactoe"
    registry = load()
    assert "entry point gametree_builtins.games.tictactoe" in registry.games["tictactoe"].source
    assert registry.games["tictactoe"].source.startswith("gametree ")


def test_core_never_imports_games():
    import pathlib

    core = pathlib.Path(__import__("gametree").__file__).parent
    for path in core.rglob("*.py"):
        text = path.read_text()
        assert "import games" not in text and "from games" not in text, path
        assert "import plugins" not in text and "from plugins" not in text, path
        assert "import gametree_builtins" not in text and "from gametree_builtins" not in text, path


def test_extra_plugin_object_and_options():
    registry = load(extra=[module_plugin("tinyplug", GOOD)])
    game = registry.game("tiny").create()
    assert game.cells == 4
    assert registry.games["tiny"].source == "object tinyplug"


def test_dash_p_module(monkeypatch, tmp_path):
    (tmp_path / "dashp_plugin.py").write_text(GOOD)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = load(extra=["dashp_plugin"])
    assert registry.games["tiny"].source == "module dashp_plugin (-p)"
    registry = load(extra=["no_such_module_xyz"])
    assert any(e.name == "no_such_module_xyz" and "ModuleNotFoundError" in e.error for e in registry.errors)
    assert "tictactoe" in registry.games


def test_blocking_plugins(monkeypatch):
    assert "tictactoe" not in load(extra=["no:tictactoe"]).games
    monkeypatch.setenv("GAMETREE_DISABLE_PLUGINS", "tictactoe")
    assert "tictactoe" not in load().games


def test_duplicate_game_names_name_both_plugins():
    dup = module_plugin(
        "dupplug",
        GOOD.replace('name="tiny"', 'name="tictactoe"'),
    )
    registry = load(extra=[dup])
    messages = [str(e) for e in registry.errors]
    assert any(
        "registered twice" in m and "gametree_builtins.games.tictactoe" in m and "dupplug" in m for m in messages
    ), messages
    assert registry.games["tictactoe"].source.startswith("gametree ")


def test_misspelt_hook_rejects_only_that_plugin():
    bad = module_plugin(
        "typo", "from gametree import hookimpl\n@hookimpl\ndef gametree_register_gmaes(registry):\n    pass\n"
    )
    registry = load(extra=[bad])
    assert any(e.name == "typo" and "gametree_register_gmaes" in e.error for e in registry.errors)
    assert "tictactoe" in registry.games


def test_raising_hook_is_reported_and_others_survive():
    boom = module_plugin(
        "boom",
        "from gametree import hookimpl\n@hookimpl\ndef gametree_register_games(registry):\n"
        "    raise RuntimeError('kaput')\n",
    )
    registry = load(extra=[boom])
    assert any(e.name == "boom" and "kaput" in e.error for e in registry.errors)
    assert "tictactoe" in registry.games


def test_malformed_specs_and_games():
    with pytest.raises(PluginError, match="expects a GameSpec"):
        load().add_game("tictactoe")  # type: ignore[arg-type]
    with pytest.raises(PluginError, match="options must be"):
        load().add_game(GameSpec(name="x", factory=object, options=(Option("size", list),)))
    registry = load(
        extra=[
            module_plugin(
                "broken",
                "from gametree import hookimpl, GameSpec\n@hookimpl\ndef gametree_register_games(registry):\n"
                "    registry.add_game(GameSpec(name='broken', factory=object))\n",
            )
        ]
    )
    with pytest.raises(PluginError, match="plugin object broken: game 'broken' is malformed: it lacks initial_state"):
        registry.game("broken").create()
    with pytest.raises(ValueError, match="has no option colour"):
        registry.game("tictactoe").create(colour="red")


def test_half_a_capability_is_a_malformed_game():
    class HalfThreats(type(load().game("nim").create())):  # type: ignore[misc]
        def immediate_win(self, state):  # without safe_moves and has_safe_move: half of ThreatAware
            return False

    @hookimpl
    def gametree_register_games(registry):
        registry.add_game(GameSpec(name="halfthreats", factory=HalfThreats))

    plugin = types.ModuleType("halfplug")
    plugin.gametree_register_games = gametree_register_games  # type: ignore[attr-defined]
    registry = load(extra=[plugin])
    with pytest.raises(PluginError) as caught:
        registry.game("halfthreats").create()
    assert str(caught.value) == (
        "plugin object halfplug: game 'halfthreats' is malformed: "
        "HalfThreats has immediate_win but not has_safe_move, safe_moves (ThreatAware needs all of them)"
    )
    assert "\n" not in str(caught.value)


def test_plugin_manager_checks_hooks_and_traces(monkeypatch, capsys):
    monkeypatch.setenv("GAMETREE_TRACE_PLUGINS", "1")
    pm = make_plugin_manager()
    build_registry(pm)
    assert "gametree_register_games" in capsys.readouterr().err
    assert pm.has_plugin("tictactoe")


def test_hookimpl_is_the_only_import_a_plugin_needs():
    assert hookimpl is not None
    assert "gametree.plugin.spec" in sys.modules
