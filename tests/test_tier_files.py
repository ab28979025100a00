"""Tier directories: a killed build resumes to the same bytes, bad files are refused in one line, the CLI."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gametree import load
from gametree.search.tier_shards import KILL_SHARD_VARIABLE
from gametree.search.tiers import MemoryTiers, solve_tiers
from gametree.store.tiers import KILL_VARIABLE, TierFileError
from gametree.tier_book import TierBook, build_tier_book, tier_info


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tiers") / "ttt"
    build_tier_book(load().game("tictactoe").create(), "tictactoe", folder)
    return folder


def test_a_build_killed_twice_resumes_to_the_same_bytes(
    gametree_cli: Any, tmp_path: Path, ttt_in_memory: dict[int, bytes]
) -> None:
    out = tmp_path / "ttt"
    # Killed (SIGKILL) right after its 6th array file is renamed, before the header names it (in the
    # forward pass: tiers 0 to 4 marked), then at the 8th of the next run (in the backward pass:
    # tiers 5 to 9 marked, 9 and 8 solved, 7 written), then finished.
    for kill in ("6", "8"):
        killed = gametree_cli("tiers", "build", "tictactoe", "--out", str(out), env={KILL_VARIABLE: kill})
        assert killed.returncode == -signal.SIGKILL
    header = json.loads((out / "header.json").read_text())
    assert sorted(header["tiers"]) == ["8", "9"] and (out / "tier-007.npy").exists()
    assert sorted(header["reach"], key=int) == [str(t) for t in range(8)]
    finished = gametree_cli("tiers", "build", "tictactoe", "--out", str(out))
    assert finished.returncode == 0, finished.stderr
    assert on_disk(out) == ttt_in_memory
    assert not list(out.glob("reach-*")) and not list(out.glob("*.tmp"))
    assert tier_info(out).complete and tier_info(out).positions == 5478


def test_a_tier_in_memory_and_on_disk_are_the_same(uninterrupted: Path, ttt_in_memory: dict[int, bytes]) -> None:
    assert on_disk(uninterrupted) == ttt_in_memory
    assert len(ttt_in_memory) == 10


def test_a_damaged_tier_is_refused_in_one_line(gametree_cli: Any, tmp_path: Path, uninterrupted: Path) -> None:
    import shutil

    out = tmp_path / "copy"
    shutil.copytree(uninterrupted, out)
    path = out / "tier-006.npy"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    game = load().game("tictactoe").create()
    with pytest.raises(TierFileError, match="checksum"):
        TierBook(game, "tictactoe", out).value(game.tier_unrank(6, 0))
    result = gametree_cli("tiers", "query", "tictactoe", "--out", str(out), "--moves", "A1 B1 A2 B2 C3")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "checksum" in result.stderr
    (out / "header.json").write_text('{"format": "gametree-tiers", "version": 99}')
    result = gametree_cli("tiers", "info", str(out))
    assert result.returncode == 1 and result.stderr.count("\n") == 1 and "version 99" in result.stderr
    result = gametree_cli("tiers", "query", "tictactoe", "--size", "4", "--out", str(uninterrupted))
    assert result.returncode == 1 and result.stderr.count("\n") == 1 and "not tictactoe" in result.stderr


def test_query_answers_every_moves_value(gametree_cli: Any, uninterrupted: Path) -> None:
    result = gametree_cli(
        "tiers", "query", "tictactoe", "--out", str(uninterrupted), "--moves", "A1 B1 A2 B2", "--json"
    )
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    moves = {m["move"]: m["value"] for m in answer["moves"]}
    assert moves == {  # X wins at A3, holds the draw at B3 (O's threat), loses anywhere else
        "A3": {"outcome": "win", "remoteness": 1},
        "B3": {"outcome": "draw", "remoteness": 5},
        "C1": {"outcome": "loss", "remoteness": 2},
        "C2": {"outcome": "loss", "remoteness": 2},
        "C3": {"outcome": "loss", "remoteness": 2},
    }
    assert answer["value"] == {"outcome": "win", "remoteness": 1}


@pytest.mark.parametrize("signal_name", ["INT", "TERM"])
def test_ctrl_c_and_sigterm_keep_the_finished_tiers(gametree_cli: Any, tmp_path: Path, signal_name: str) -> None:
    out = tmp_path / "ttt"
    # The 22nd progress report comes in the backward pass (18 reports mark 9 tiers, one a tier solved).
    stop = {"GAMETREE_BUILD_STOP": f"22:{signal_name}"}
    stopped = gametree_cli("tiers", "build", "tictactoe", "--out", str(out), env=stop)
    assert stopped.returncode == 130, stopped.stderr
    kept = sum(1 for counts, _ in tier_info(out).tiers if counts is not None)
    assert 0 < kept < 10
    assert f"Interrupted: {kept} finished tiers and the reach marks of " in stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert gametree_cli("tiers", "build", "tictactoe", "--out", str(out)).returncode == 0
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


def test_a_two_worker_dask_cluster_redoes_a_lost_workers_shard(
    tmp_path: Path, ttt_in_memory: dict[int, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two Dask worker processes give one process's bytes, although a worker dies (SIGKILL) half-way
    through a forward shard and another through a backward one: Dask gives each shard to a worker
    again (its own retries), and the shard, reading only files no shard writes, writes the same
    bytes.  Once Dask gives up (here at the first death), the build stops with one line naming the shard."""
    distributed = pytest.importorskip("distributed", reason="Dask is an optional extra: pip install 'gametree[dask]'")
    from gametree.runtime.errors import WorkerLost
    from gametree.search import tiers

    kills = tmp_path / "kills"
    kills.mkdir()
    monkeypatch.setenv(KILL_SHARD_VARIABLE, str(kills))  # (the workers, started below, inherit it)
    monkeypatch.setattr(tiers, "SHARD", 300)  # tiers of several shards (tier 5 has 1,260 indices)
    game = load().game("tictactoe").create()
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        (kills / "reach-once").touch()  # a worker dies half-way through a forward shard,
        (kills / "solve-once").touch()  # another half-way through a backward one
        solution = solve_tiers(game, directory(tmp_path / "ttt", game), scheduler=client)
        assert not list(kills.iterdir())  # (each taken by a worker that died)
        assert solution.positions == 5478
        assert on_disk(tmp_path / "ttt") == ttt_in_memory

        def give_up_at_once(dask_scheduler: Any) -> None:
            dask_scheduler.allowed_failures = 0

        client.run_on_scheduler(give_up_at_once)
        (kills / "solve-again").touch()
        with pytest.raises(WorkerLost, match=r"^solve tier 9, the shard of indices 0 to 126: Dask gave up") as lost:
            solve_tiers(game, directory(tmp_path / "lost", game), scheduler=client)
        assert "\n" not in str(lost.value)


def test_workers_need_a_tier_directory() -> None:
    with pytest.raises(ValueError, match="needs a tier directory"):
        solve_tiers(load().game("tictactoe").create(), MemoryTiers(), workers=2)


def test_the_tier_player_never_loses_and_keeps_the_value(uninterrupted: Path) -> None:
    from gametree.play import play_match
    from gametree.tier_book import TierPlayer
    from gametree_builtins.plugins.players import RandomPlayer

    game = load().game("tictactoe").create()
    perfect = TierPlayer(TierBook(game, "tictactoe", uninterrupted))
    both = play_match(game, [perfect, perfect], games=3, seed=1)
    assert all(r.winner is None and len(r.moves) == 9 for r in both.records)  # a draw, 9 moves (remoteness 9)
    for players, side in (([perfect, RandomPlayer()], 0), ([RandomPlayer(), perfect], 1)):
        match = play_match(game, players, games=20, seed=side)
        assert all(r.winner in (None, side) for r in match.records)
        assert any(r.winner == side for r in match.records)


def test_a_build_the_disk_cannot_hold_is_refused_before_it_starts(gametree_cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "big"
    result = gametree_cli("tiers", "build", "tictactoe", "--size", "6", "--k", "4", "--out", str(out))
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "GB of disk" in result.stderr and not out.exists()


def test_a_killed_build_resumed_by_two_workers_gives_the_same_bytes(
    gametree_cli: Any, tmp_path: Path, ttt_in_memory: dict[int, bytes]
) -> None:
    out = tmp_path / "ttt"
    killed = gametree_cli("tiers", "build", "tictactoe", "--out", str(out), env={KILL_VARIABLE: "12"})
    assert killed.returncode == -signal.SIGKILL  # (after tier 9 solved: 10 reach files, then 2 tiers)
    finished = gametree_cli("tiers", "build", "tictactoe", "--out", str(out), "--workers", "2")
    assert finished.returncode == 0, finished.stderr
    assert on_disk(out) == ttt_in_memory
