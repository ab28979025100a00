"""One compiled table shared by processes: what one engine stores, another finds; refused memory
leaves each engine its own table."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("numba")

from gametree.search.compiled import CompiledEngine, default_compiled_bytes, shared_table_bytes
from gametree.search.shared_table import SharedTable, shared_memory
from gametree.search.table import TranspositionTable
from gametree_builtins.games.connect4 import ConnectFour

SIZE = 1 << 20  # 64 Ki buckets of two 8-byte entries


@pytest.fixture(scope="module")
def shared():
    with shared_memory(SIZE) as made:
        if made is None:
            pytest.skip("no memory to share here (memfd_create or /proc missing)")
        yield made


def _engine(game: ConnectFour, shared: SharedTable | None) -> CompiledEngine:
    return CompiledEngine(game, game.compiled_rules(), table=TranspositionTable(), shared=shared)


def test_an_engine_finds_what_another_stored_in_the_shared_table(shared: SharedTable) -> None:
    game = ConnectFour(5, 4)
    state = game.initial_state()
    first, second = _engine(game, shared), _engine(game, shared)
    assert first.table_bytes() == second.table_bytes() == SIZE
    score = first.exact(state)
    solved = first.counters.nodes
    assert second.exact(state) == score
    again = second.counters.nodes
    alone = _engine(game, None)
    assert alone.exact(state) == score
    # 5x4 from the empty board is about 31,000 nodes; the second engine finds the first's root
    # entries and searches a handful, while an engine of its own searches it all again.
    # (its table is smaller, so its count differs a little)
    assert solved > 10_000 and alone.counters.nodes > solved // 2
    assert again < solved // 100
    assert first.table_fill().used == second.table_fill().used > 0


def test_memory_that_is_not_the_tables_is_refused(shared: SharedTable, tmp_path) -> None:
    assert SharedTable(shared.path, SIZE // 2, shared.token).attach() is None  # (not the size made)
    assert SharedTable(str(tmp_path / "missing"), SIZE, "x").attach() is None
    game = ConnectFour(5, 4)
    engine = _engine(game, shared)
    assert engine.table_bytes() == SIZE
    # A size of no power of two of buckets is not taken: the engine keeps a table of its own.
    made = tmp_path / "table"
    made.write_bytes(bytes(3 * 16))
    own = _engine(game, SharedTable(str(made), 3 * 16, "y"))
    assert own.table_bytes() != 3 * 16
    assert own.exact(game.initial_state()) == engine.exact(game.initial_state())


def test_another_process_writes_into_the_same_memory(shared: SharedTable) -> None:
    words = shared.attach()
    assert words is not None
    code = (
        "import sys; from gametree.search.shared_table import SharedTable;"
        "w = SharedTable(sys.argv[1], int(sys.argv[2]), 't').attach(); w[-1] = 12345; print(int(w[0]))"
    )
    words[0] = 777
    out = subprocess.run(
        [sys.executable, "-c", code, shared.path, str(SIZE)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "777"
    assert int(words[-1]) == 12345
    words[0] = words[-1] = 0


def test_a_shared_table_is_as_large_as_the_workers_own_tables_together() -> None:
    one = shared_table_bytes(1_000_000, 1)
    assert one == default_compiled_bytes()  # a worker's own compiled table: its default bound
    assert shared_table_bytes(1_000_000, 2) == 2 * one
    assert shared_table_bytes(1_000_000, 3) == 2 * one  # (a power of two of buckets)
    assert shared_table_bytes(1000, 2) == 2 * shared_table_bytes(1000, 1) <= 2 * 1000 * 200


def test_no_memory_is_left_behind(tmp_path) -> None:
    with shared_memory(4096) as made:
        if made is None:
            pytest.skip("no memory to share here")
        path = made.path
        assert os.path.exists(path)
    # (closed: the number names nothing now, or a file opened since)
    assert not os.path.exists(path) or not os.readlink(path).startswith("/memfd:gametree-table")
