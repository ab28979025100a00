"""The compiled kernel's compact table (docs/compiled-kernel.md): exact entries, the layout chosen,
and values equal to the Python engine's where the table is small and crowded."""

from __future__ import annotations

import numpy as np
import pytest

from gametree import load, play_text
from gametree.game import Game
from gametree.search import Solver, run
from gametree.search.compiled import (
    BYTES_PER_COMPACT_ENTRY,
    MIN_TABLE_BITS,
    CompiledEngine,
    compact_layout,
    compiled_rules,
)
from gametree.search.table import parse_cache_size
from gametree_builtins.games.connect4 import ConnectFour

pytest.importorskip("numba")


@pytest.mark.parametrize("bits", [1, 7, 12])
def test_the_key_mix_is_one_to_one(bits: int) -> None:
    from gametree.search.kernel import _mix  # type: ignore[attr-defined]  # (a compiled helper, called as Python)

    with np.errstate(over="ignore"):
        images = {int(_mix.py_func(np.uint64(k), bits)) for k in range(1 << bits)}
    assert images == set(range(1 << bits))


@pytest.mark.parametrize("bits", [20, 25, 49, 64])
def test_keys_differing_in_their_high_bits_spread_over_the_buckets(bits: int) -> None:
    from gametree.search.kernel import _mix  # type: ignore[attr-defined]

    with np.errstate(over="ignore"):
        low = {int(_mix.py_func(np.uint64(k << (bits - 8)), bits)) & 0xFFFF for k in range(256)}
        middle = {int(_mix.py_func(np.uint64(k << (bits // 2)), bits)) & 0xFFFF for k in range(256)}
    assert len(low) > 200 and len(middle) > 200  # (the first mix kept a 25-bit key's low bits in its bucket)


def entry_bytes(game: object, state: object = None, **options: object) -> int:
    solver = Solver(game, engine="compiled", **options)  # type: ignore[arg-type]
    engine = solver.engine_for(state if state is not None else game.initial_state())  # type: ignore[attr-defined]
    assert isinstance(engine, CompiledEngine)
    return engine.entry_bytes


def compact(game: Game[object, object]) -> bool:
    """Whether the compiled engine of ``game`` keeps the compact table (as CompiledEngine decides it,
    from the rules alone: nothing is compiled)."""
    rules = compiled_rules(game)
    assert rules is not None
    largest = (game.info.max_plies + 2) // 2
    return compact_layout(rules, largest, 1 << MIN_TABLE_BITS) is not None


def test_keys_of_one_word_get_the_compact_table() -> None:
    registry = load()
    assert compact(ConnectFour())
    assert not compact(ConnectFour(8, 7))  # 64 key bits: too few check bits
    ttt = registry.game("tictactoe")
    assert compact(ttt.create(width=5, height=5, k=4))  # 50 bits, packed
    assert not compact(ttt.create(width=7, height=5, k=4))  # two words


def test_an_engine_keeps_the_table_its_rules_call_for() -> None:
    # (Compiling Connect Four's kernel of two-word keys as well would cost the suite about 20 s.)
    assert compact(ConnectFour(4, 4)) and entry_bytes(ConnectFour(4, 4)) == BYTES_PER_COMPACT_ENTRY


@pytest.mark.parametrize("cache", ["2", "64kb"])
def test_a_crowded_compact_table_keeps_the_values(cache: str) -> None:
    game = ConnectFour(6, 4)
    for moves in ("", "3", "34", "2234", "3344521"):
        state = play_text(game, moves)
        python = run(game, state, algorithm="solver", engine="python", all_moves=True)
        compiled = Solver(game, engine="compiled", cache=parse_cache_size(cache)).solve(state, all_moves=True)
        assert compiled.score == python.score
        assert [(m.move, m.score) for m in compiled.move_values] == [(m.move, m.score) for m in python.move_values]


def test_tictactoe_without_symmetry_packs_its_key_too() -> None:
    game = load().game("tictactoe").create(width=4, height=4, k=3)
    python = run(game, algorithm="solver", engine="python", symmetry=False, all_moves=True)
    compiled = run(game, algorithm="solver", engine="compiled", symmetry=False, all_moves=True)
    assert [(m.move, m.score) for m in compiled.move_values] == [(m.move, m.score) for m in python.move_values]


def test_the_table_fill_counts_the_entries_the_searches_stored() -> None:
    game = ConnectFour(4, 4)
    solver = Solver(game, engine="compiled")
    engine = solver.engine_for(game.initial_state())
    assert isinstance(engine, CompiledEngine)
    result = solver.solve(game.initial_state(), all_moves=False, pv=False)
    fill = engine.table_fill()
    assert fill.entry_bytes == BYTES_PER_COMPACT_ENTRY and fill.entries * fill.entry_bytes == engine.table_bytes()
    assert 0 < fill.used <= min(fill.entries, result.stats.cache_stores)
    assert f"{fill.used:,} of {fill.entries:,} entries" in str(fill)
    python = Solver(game, engine="python")
    python.solve(game.initial_state(), all_moves=False, pv=False)
    table = python.table
    assert table is not None
    assert python.engine.table_fill().used == len(table) > 0
    assert python.engine.table_fill().entries == table.max_entries
