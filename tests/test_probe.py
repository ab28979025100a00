"""auto's node budget (gametree.search.probe): a Python search stops at the node that crosses it,
and the tally says when the compiled engine is due.  (The hand-over itself: tests/test_compiled.py.)"""

from __future__ import annotations

import pytest

from gametree.search.contract import SearchTimeout
from gametree.search.engine import Engine
from gametree.search.exact import exact_score
from gametree.search.probe import NodeBudget, ProbeExhausted, WorkTally
from gametree.search.table import TranspositionTable
from gametree_builtins.games.connect4 import ConnectFour


def test_a_search_stops_at_the_node_that_crosses_the_budget() -> None:
    game = ConnectFour(4, 4)
    budget = NodeBudget()
    engine = Engine(game, table=TranspositionTable(), threats=True, stop=budget)
    budget.arm(50)
    with pytest.raises(ProbeExhausted):
        exact_score(engine, game.initial_state())
    # The 51st node entered read the flag and stopped (positions settled by their parent count as nodes too).
    assert budget.exhausted and 51 <= sum(engine.counters.per_depth) < 100
    budget.disarm()
    engine.counters.reset()
    plain = Engine(game, table=TranspositionTable(), threats=True)
    assert exact_score(engine, game.initial_state()) == exact_score(plain, game.initial_state()) == 0


def test_a_halt_stays_a_timeout_within_the_budget() -> None:
    budget = NodeBudget()
    budget.arm(10)
    budget.set = True  # engine.halt()
    assert budget.set and isinstance(budget.stopped(), SearchTimeout)
    budget.set = False
    assert not budget.set and budget.left == 8


def test_the_tally_hands_over_past_the_budget_or_its_projection() -> None:
    tally = WorkTally(budget=1_000)
    tally.add(400)
    assert not tally.handed_over and tally.left() == 600
    tally.add(600)
    assert tally.handed_over
    batch = WorkTally(budget=1_000)
    batch.expect(4)
    batch.add(200)  # 4 positions of about 200 nodes: 800 in all
    assert not batch.handed_over
    batch.add(400)  # 300 a position: 1,200 in all
    assert batch.handed_over


def test_the_budget_is_smaller_where_the_native_code_is_kept(monkeypatch, tmp_path) -> None:
    pytest.importorskip("llvmlite")
    from gametree.search import compiled, native, native_files
    from gametree.search.probe import BREAK_EVEN_NODES, NATIVE_BREAK_EVEN_NODES
    from gametree_builtins.games.nim import Nim

    monkeypatch.setattr(native_files, "folder", lambda: str(tmp_path))
    monkeypatch.delenv(native.SWITCH, raising=False)
    game = ConnectFour(5, 4)
    rules = game.compiled_rules()
    assert rules is not None and not native_files.kept(rules)
    assert compiled.break_even_nodes(game) == BREAK_EVEN_NODES  # (numba's start-up to pay)
    ident = {"functions": f"{rules.functions.__module__}:{rules.functions.__qualname__}", "compact": True, "board": "b"}
    (tmp_path / native.path(ident).rsplit("/", 1)[1]).write_bytes(b"")
    assert native_files.kept(rules)
    assert compiled.break_even_nodes(game) == NATIVE_BREAK_EVEN_NODES < BREAK_EVEN_NODES
    monkeypatch.setenv(native.SWITCH, "0")
    assert compiled.break_even_nodes(game) == BREAK_EVEN_NODES
    assert compiled.break_even_nodes(Nim()) == BREAK_EVEN_NODES  # (no compiled rules)
    # The tally asks for its budget when first needed, once.
    asked = []
    tally = WorkTally(lambda: asked.append(1) or 7)
    assert asked == [] and tally.left() == 7 and tally.left() == 7 and asked == [1]


def test_asking_for_the_budget_imports_no_numpy() -> None:
    """auto's budget is asked for before a search that may stay on Python: finding it must not
    import numpy (about 45 ms of such a process; it did through gametree.search.native)."""
    import subprocess
    import sys

    code = (
        "import sys; from gametree.search.compiled import break_even_nodes;"
        "from gametree_builtins.games.connect4 import ConnectFour;"
        "break_even_nodes(ConnectFour(7, 6)); print('numpy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr
