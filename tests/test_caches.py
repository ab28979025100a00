"""The processor's caches as sysfs lists them, and the compiled table's default size taken from them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gametree.runtime import caches
from gametree.search import compiled


def fake_caches(folder: Path, *caches_: tuple[str, str]) -> Path:
    for i, (kind, size) in enumerate(caches_):
        entry = folder / f"index{i}"
        entry.mkdir(parents=True)
        (entry / "type").write_text(kind + "\n")
        (entry / "size").write_text(size + "\n")
    return folder


def test_the_largest_data_or_unified_cache_is_found(tmp_path: Path) -> None:
    folder = fake_caches(tmp_path, ("Data", "48K"), ("Instruction", "32K"), ("Unified", "1024K"), ("Unified", "32768K"))
    assert caches.largest_cache_bytes(folder) == 32 << 20


def test_an_instruction_cache_is_not_counted(tmp_path: Path) -> None:
    folder = fake_caches(tmp_path, ("Data", "32K"), ("Instruction", "64M"))
    assert caches.largest_cache_bytes(folder) == 32 << 10


@pytest.mark.parametrize("size", ["", "lots", "-5K", "12T", "0"])
def test_sizes_that_are_not_sizes_are_not_used(tmp_path: Path, size: str) -> None:
    assert caches.largest_cache_bytes(fake_caches(tmp_path, ("Unified", size))) is None
    assert caches.largest_cache_bytes(tmp_path / "index9") is None  # (a folder that is not there)


def test_a_system_without_the_listing_has_no_size(tmp_path: Path) -> None:
    assert caches.largest_cache_bytes(tmp_path / "absent") is None


@pytest.fixture
def cache_of(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    def set_cache(size: int | None) -> int:
        monkeypatch.setattr(compiled, "largest_cache_bytes", lambda: size)
        compiled.default_compiled_bytes.cache_clear()
        return compiled.default_compiled_bytes()

    yield set_cache
    compiled.default_compiled_bytes.cache_clear()


def test_the_default_table_is_an_eighth_of_the_largest_cache(cache_of) -> None:
    assert cache_of(32 << 20) == 4 << 20
    assert cache_of(96 << 20) == 8 << 20  # (12 MiB, to a power of two)
    assert cache_of(8 << 20) == compiled.LEAST_COMPILED_BYTES
    assert cache_of(4 << 30) == compiled.MOST_COMPILED_BYTES
    assert cache_of(None) == compiled.FALLBACK_COMPILED_BYTES


def test_workers_without_a_requested_size_keep_to_the_default(cache_of) -> None:
    from gametree.search.table import TranspositionTable

    cache_of(32 << 20)
    assert compiled.shared_table_bytes(TranspositionTable().max_entries, 1) == 4 << 20
    assert compiled.shared_table_bytes(TranspositionTable().max_entries, 2) == 8 << 20
