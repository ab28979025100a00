"""Tier directories: a killed build resumes to the same bytes, bad files are refused in one line, the CLI."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gametree import load
from gametree.search.tiers import MemoryTiers, solve_tiers
from gametree.store.tiers import KILL_VARIABLE, TierFileError
from gametree.tier_book import TierBook, build_tier_book, tier_info

C4 = ("connect4", "--width", "4", "--height", "4")


def arrays(folder: Path) -> dict[str, bytes]:
    return {p.name: np.load(p).tobytes() for p in sorted(folder.glob("tier-*.npy"))}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tiers") / "c4"
    game = load().game("connect4").create(width=4, height=4)
    build_tier_book(game, "connect4", folder)
    return folder


def test_a_build_killed_twice_resumes_to_the_same_bytes(gametree_cli: Any, tmp_path: Path, uninterrupted: Path) -> None:
    out = tmp_path / "c4"
    # Killed (SIGKILL) at its 10th array file (in the forward pass), then at the 5th of the next run
    # (in the backward pass: the 6 reach files left are kept, then 4 tiers solved), then finished.
    for kill in ("10", "11"):
        killed = gametree_cli("tiers", "build", *C4, "--out", str(out), env={KILL_VARIABLE: kill})
        assert killed.returncode == -signal.SIGKILL
    header = json.loads((out / "header.json").read_text())
    assert not header["complete"] and header["tiers"] and header["reach"]
    finished = gametree_cli("tiers", "build", *C4, "--out", str(out))
    assert finished.returncode == 0, finished.stderr
    assert arrays(out) == arrays(uninterrupted)
    assert len(arrays(out)) == 17
    assert not list(out.glob("reach-*")) and not list(out.glob("*.tmp"))
    assert tier_info(out).complete and tier_info(out).positions == 161029


def test_a_tier_in_memory_and_on_disk_are_the_same(uninterrupted: Path) -> None:
    store = MemoryTiers()
    solve_tiers(load().game("connect4").create(width=4, height=4), store)
    assert {f"tier-{t:03d}.npy": v.tobytes() for t, v in store.values.items()} == arrays(uninterrupted)


def test_a_damaged_tier_is_refused_in_one_line(gametree_cli: Any, tmp_path: Path, uninterrupted: Path) -> None:
    import shutil

    out = tmp_path / "copy"
    shutil.copytree(uninterrupted, out)
    path = out / "tier-012.npy"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    game = load().game("connect4").create(width=4, height=4)
    with pytest.raises(TierFileError, match="checksum"):
        TierBook(game, "connect4", out).value(game.tier_unrank(12, 0))
    result = gametree_cli("tiers", "query", *C4, "--out", str(out), "--moves", "1 2 1 2 1 2 3 3 3 3 4 4")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "checksum" in result.stderr
    (out / "header.json").write_text('{"format": "gametree-tiers", "version": 99}')
    result = gametree_cli("tiers", "info", str(out))
    assert result.returncode == 1 and result.stderr.count("\n") == 1 and "version 99" in result.stderr


def test_query_answers_every_moves_value(gametree_cli: Any, uninterrupted: Path) -> None:
    result = gametree_cli("tiers", "query", *C4, "--out", str(uninterrupted), "--moves", "1 1 2 2 3", "--json")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    moves = {m["move"]: m["value"] for m in answer["moves"]}
    assert sorted(moves) == ["1", "2", "3", "4"]
    for move in "123":  # the first player's three in the bottom row wins at 4 unless it is blocked
        assert moves[move] == {"outcome": "loss", "remoteness": 2}
    assert answer["value"] == moves["4"]


@pytest.mark.parametrize("signal_name", ["INT", "TERM"])
def test_ctrl_c_and_sigterm_keep_the_finished_tiers(gametree_cli: Any, tmp_path: Path, signal_name: str) -> None:
    out = tmp_path / "c4"
    # The 42nd progress report comes in the backward pass (32 reports mark 16 tiers, one a tier solved).
    stopped = gametree_cli("tiers", "build", *C4, "--out", str(out), env={"GAMETREE_BUILD_STOP": f"42:{signal_name}"})
    assert stopped.returncode == 130, stopped.stderr
    kept = sum(1 for counts, _ in tier_info(out).tiers if counts is not None)
    assert 0 < kept < 17
    assert f"Interrupted: {kept} finished tiers are kept in {out}" in stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert gametree_cli("tiers", "build", *C4, "--out", str(out)).returncode == 0
    assert tier_info(out).complete


def directory(folder: Path, game: Any) -> Any:
    from gametree.search.tiers import tier_rules, value_bytes
    from gametree.store.tiers import TierDirectory

    return TierDirectory(folder, "tictactoe", game.options(), tier_rules(game)[1].sizes, value_bytes(game))


@pytest.fixture(scope="module")
def ttt_in_memory() -> dict[int, bytes]:
    store = MemoryTiers()
    solve_tiers(load().game("tictactoe").create(), store)
    return {t: v.tobytes() for t, v in store.values.items()}


def on_disk(folder: Path) -> dict[int, bytes]:
    return {int(p.stem.split("-")[1]): np.load(p).tobytes() for p in folder.glob("tier-*.npy")}


def test_two_worker_processes_give_the_same_arrays(tmp_path: Path, ttt_in_memory: dict[int, bytes]) -> None:
    game = load().game("tictactoe").create()
    solution = solve_tiers(game, directory(tmp_path / "ttt", game), workers=2)
    assert solution.positions == 5478
    assert on_disk(tmp_path / "ttt") == ttt_in_memory
    assert not list((tmp_path / "ttt").glob("*.tmp")) and not list((tmp_path / "ttt").glob("reach-*"))


def test_a_two_worker_dask_cluster_gives_the_same_arrays(tmp_path: Path, ttt_in_memory: dict[int, bytes]) -> None:
    distributed = pytest.importorskip("distributed", reason="Dask is an optional extra: pip install 'gametree[dask]'")
    game = load().game("tictactoe").create()
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        solution = solve_tiers(game, directory(tmp_path / "ttt", game), scheduler=client)
    assert solution.positions == 5478
    assert on_disk(tmp_path / "ttt") == ttt_in_memory


def test_workers_need_a_tier_directory() -> None:
    with pytest.raises(ValueError, match="needs a tier directory"):
        solve_tiers(load().game("tictactoe").create(), MemoryTiers(), workers=2)
