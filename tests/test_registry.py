"""The typed registry: algorithms declare their options, exporters and players are typed specs."""

from __future__ import annotations

import json
import types

import pytest
from click.testing import CliRunner

from gametree import AlgorithmSpec, Exporter, Option, PlayerSpec, PluginError, Registry, load
from gametree.cli import cli
from gametree.search import alphabeta, prepare, run
from gametree.search.algorithms import ALGORITHMS

FIRST_MOVE = '''
from gametree import AlgorithmSpec, Option, hookimpl
from gametree.search import alphabeta


def first_move(game, state=None, *, depth=None, rank=0):
    """Alpha-beta to ``depth``, but report the ``rank``-th legal move's line (a toy)."""
    return alphabeta(game, state, depth=depth)


@hookimpl
def gametree_register_algorithms(registry):
    registry.add_algorithm(AlgorithmSpec(
        "firstmove", first_move, "a toy", takes=frozenset({"depth"}),
        options=(Option("rank", int, 0, "Which move to prefer."),),
    ))
'''


def module(name: str, source: str) -> types.ModuleType:
    plugin = types.ModuleType(name)
    exec(source, plugin.__dict__)
    return plugin


def test_built_in_algorithms_register_through_the_hook(registry: Registry) -> None:
    assert set(ALGORITHMS) <= set(registry.algorithms)
    solver = registry.algorithms["solver"]
    assert isinstance(solver, AlgorithmSpec) and "weak" in solver.takes and solver.prepare is not None
    assert "entry point gametree.search.algorithms" in solver.source
    assert [o.name for o in registry.algorithms["mcts"].options] == ["iterations", "exploration", "seed"]
    assert all(isinstance(e, Exporter) and e.source for e in registry.exporters.values())
    assert all(isinstance(p, PlayerSpec) and p.source for p in registry.players.values())


def test_a_plugin_algorithm_offers_its_own_option_and_refuses_others(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "firstmove_plugin", module("firstmove_plugin", FIRST_MOVE))
    runner = CliRunner()
    help_text = runner.invoke(cli, ["-p", "firstmove_plugin", "solve", "tictactoe", "--help"]).output
    assert "--rank" in help_text and "[firstmove]" in help_text
    ok = runner.invoke(
        cli,
        [
            "-p",
            "firstmove_plugin",
            "solve",
            "tictactoe",
            "--moves",
            "A1 B1 A2 B2",
            "-a",
            "firstmove",
            "--rank",
            "1",
            "--json",
        ],
    )
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["best_moves"] == ["A3"]
    refused = runner.invoke(cli, ["-p", "firstmove_plugin", "solve", "tictactoe", "-a", "firstmove", "--weak"])
    assert refused.exit_code == 2 and "--weak does not apply to --algorithm firstmove" in refused.output
    own_elsewhere = runner.invoke(
        cli, ["-p", "firstmove_plugin", "solve", "tictactoe", "-a", "alphabeta", "--rank", "1"]
    )
    assert own_elsewhere.exit_code == 2 and "--rank does not apply to --algorithm alphabeta" in own_elsewhere.output


def test_mcts_options_apply_to_mcts_only() -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["solve", "tictactoe", "-a", "solver", "--iterations", "5"])
    assert result.exit_code == 2 and "--iterations does not apply to --algorithm solver" in result.output
    result = runner.invoke(
        cli,
        ["solve", "tictactoe", "--moves", "A1 B1 A2 B2", "-a", "mcts", "--iterations", "200", "--seed", "1", "--json"],
    )
    assert result.exit_code == 0 and json.loads(result.output)["best_moves"] == ["A3"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (AlgorithmSpec("two words", alphabeta), "is not a simple word"),
        (AlgorithmSpec("x", alphabeta, takes=frozenset({"colour"})), "unknown search options colour"),
        (AlgorithmSpec("x", alphabeta, options=(Option("n", list),)), "options must be Option"),
        (AlgorithmSpec("x", 42), "search is not callable"),  # type: ignore[arg-type]
    ],
)
def test_malformed_algorithm_specs_are_refused(spec: AlgorithmSpec, message: str) -> None:
    with pytest.raises(PluginError, match=message):
        Registry().add_algorithm(spec)


def test_duplicates_name_both_plugins() -> None:
    registry = Registry()
    registry.current = "first plugin"
    registry.add_algorithm(AlgorithmSpec("same", alphabeta))
    registry.current = "second plugin"
    with pytest.raises(PluginError, match="registered twice: by first plugin and by second plugin"):
        registry.add_algorithm(AlgorithmSpec("same", alphabeta))
    with pytest.raises(PluginError, match="add_exporter expects an Exporter"):
        registry.add_exporter("svg", object())  # type: ignore[arg-type]


def test_run_and_prepare_take_a_name_or_a_spec(registry: Registry) -> None:
    game = registry.game("tictactoe").create(size=3)
    assert run(game, algorithm="solver", all_moves=False).score == 0
    assert run(game, algorithm=registry.algorithms["alphabeta"], all_moves=False).score == 0
    assert prepare("solver", game)(None).score == 0
    with pytest.raises(ValueError, match="unknown algorithm 'nope'"):
        run(game, algorithm="nope")


def test_load_without_entry_points_has_no_algorithms() -> None:
    assert load(autoload=False).algorithms == {}
