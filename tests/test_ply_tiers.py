"""The generic default tiering (issue 33: "a generic default, e.g. by ply where moves only add"):
a game without tiers of its own that declares ``GameInfo.adds_one_piece`` is tiered by ply
(:mod:`gametree.search.ply_tiers`), into the same directory format, read by the same commands.

The oracles: m,n,k tic-tac-toe's own tiers (its perfect hash and the compiled solver, which
test_tiers.py checks against published counts), and an independent plain recursion over 3x3
tic-tac-toe giving each position's outcome and remoteness (the fastest win, the slowest loss,
the fastest draw)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from gametree import load
from gametree.game import UnsupportedGameError
from gametree.search.ply_tiers import list_plies, score_plies
from gametree.search.tiers import TiersStopped, value_bytes
from gametree.store.tiers import SORTED_KEYS, TierDirectory, read_header
from gametree.tier_book import TierBook, build_tier_book, tier_info

#: A third-party game without tiers of its own: tic-tac-toe through the Game protocol only, declaring
#: that every move adds one piece.
PLAIN_GAME = """
import dataclasses

from gametree import GameSpec, Option, hookimpl
from gametree_builtins.games.tictactoe import TicTacToe


class PlainTTT:
    def __init__(self, size=3, k=3):
        self._inner = TicTacToe(size, size, k)
        self.info = dataclasses.replace(self._inner.info, adds_one_piece=True)

    def initial_state(self):
        return self._inner.initial_state()

    def to_move(self, state):
        return self._inner.to_move(state)

    def ply(self, state):
        return self._inner.ply(state)

    def legal_moves(self, state):
        return self._inner.legal_moves(state)

    def play(self, state, move):
        return self._inner.play(state, move)

    def outcome(self, state):
        return self._inner.outcome(state)

    def key(self, state):
        return self._inner.key(state)

    def parse_move(self, state, text):
        return self._inner.parse_move(state, text)

    def format_move(self, state, move):
        return self._inner.format_move(state, move)

    def render(self, state):
        return self._inner.render(state)

    def options(self):
        return {"size": self._inner.width, "k": self._inner.k}


@hookimpl
def gametree_register_games(registry):
    options = (Option("size", int, 3, "board side"), Option("k", int, 3, "in a row to win"))
    registry.add_game(GameSpec(name="plainttt", factory=PlainTTT, summary="plain tic-tac-toe", options=options))
"""


def by_ply(game: Any, folder: Path, name: str = "tictactoe") -> Any:
    """``game`` solved into ``folder`` through the generic path, whatever tiers it has of its own."""
    plies = list_plies(game)
    options = game.options()
    store = TierDirectory(folder, name, options, plies.sizes, value_bytes(game), ranking=SORTED_KEYS)
    return plies, score_plies(game, plies, store)


@functools.cache
def _ttt() -> Any:
    return load().game("tictactoe").create()


@functools.cache
def plain_value(state: Any) -> tuple[str, int]:
    """3x3 tic-tac-toe's outcome for the side to move and remoteness, by plain recursion."""
    game = _ttt()
    ended = game.outcome(state)
    if ended is not None:
        return ("draw", 0) if ended.winner is None else ("win" if ended.winner == game.to_move(state) else "loss", 0)
    after = [plain_value(game.play(state, m)) for m in game.legal_moves(state)]
    wins = [r + 1 for o, r in after if o == "loss"]
    draws = [r + 1 for o, r in after if o == "draw"]
    if wins:
        return "win", min(wins)
    if draws:
        return "draw", min(draws)
    return "loss", max(r + 1 for _, r in after)


@pytest.mark.parametrize(("width", "height", "k"), [(3, 3, 3), (4, 3, 3)])
def test_tictactoe_by_ply_equals_its_own_tiers(tmp_path: Path, width: int, height: int, k: int) -> None:
    game = load().game("tictactoe").create(width=width, height=height, k=k)
    build_tier_book(game, "tictactoe", tmp_path / "own")  # (its own perfect hash, the compiled solver)
    plies, solution = by_ply(game, tmp_path / "ply")
    own, ply = tier_info(tmp_path / "own"), tier_info(tmp_path / "ply")
    assert ply.complete and read_header(tmp_path / "ply")["ranking"] == SORTED_KEYS
    assert [c for c, _ in ply.tiers] == [
        c if c is None else type(c)(c.tier, c.positions, c.positions, c.wins, c.draws, c.losses) for c, _ in own.tiers
    ]  # (the same counts; a tier by ply has no unreachable index: its size is its positions)
    assert solution.counts == tuple(c for c, _ in ply.tiers)
    first, second = TierBook(game, "tictactoe", tmp_path / "own"), TierBook(game, "tictactoe", tmp_path / "ply")
    for states in plies.states:
        for i, state in enumerate(states):
            assert second.value(state) == first.value(state)
            if i % 29 == 0:  # (every move's value too, for a sample: each move is a value looked up)
                assert second.answer(state) == first.answer(state)
    if (width, height) == (3, 3):
        assert ply.positions == 5478 and second.value(game.initial_state()) == first.value(game.initial_state())
        assert all(
            (second.value(s).outcome, second.value(s).remoteness) == plain_value(s) for t in plies.states for s in t
        )


def test_a_build_by_ply_stopped_and_resumed_gives_the_same_files(tmp_path: Path) -> None:
    game = _ttt()
    by_ply(game, tmp_path / "whole")
    plies = list_plies(game)
    store = TierDirectory(tmp_path / "resumed", "tictactoe", {}, plies.sizes, 1, ranking=SORTED_KEYS)
    asked = iter(range(1000))
    with pytest.raises(TiersStopped) as stopped:  # (stopped once three tiers are solved)
        score_plies(game, plies, store, should_stop=lambda: next(asked) >= 3)
    assert len(stopped.value.finished) == 3
    again = TierDirectory(tmp_path / "resumed", "tictactoe", {}, plies.sizes, 1, ranking=SORTED_KEYS)
    score_plies(game, plies, again)
    whole = sorted(p.name for p in (tmp_path / "whole").glob("*.npy"))
    assert whole == sorted(p.name for p in (tmp_path / "resumed").glob("*.npy")) and len(whole) == 20
    for name in whole:
        assert (tmp_path / "whole" / name).read_bytes() == (tmp_path / "resumed" / name).read_bytes(), name


def test_games_that_cannot_be_tiered_by_ply_are_refused(tmp_path: Path) -> None:
    registry = load()
    with pytest.raises(UnsupportedGameError, match="nor declares GameInfo.adds_one_piece"):
        build_tier_book(registry.game("nim").create(), "nim", tmp_path / "nim")

    class TupleKeys:  # (declares it, but its keys are no integers)
        def __init__(self) -> None:
            self.inner = _ttt()
            self.info = self.inner.info

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

        def key(self, state: Any) -> Any:
            return (state.x, state.o)

    with pytest.raises(UnsupportedGameError, match="keys are not integers"):
        list_plies(TupleKeys())
    with pytest.raises(UnsupportedGameError, match="more than 1,000 positions: too many to tier by ply"):
        list_plies(_ttt(), max_positions=1000)
    assert sum(list_plies(_ttt(), max_positions=5478).sizes) == 5478


def test_tiers_build_tiers_a_plugin_game_without_tiers_by_ply(gametree_cli: Any, tmp_path: Path) -> None:
    (tmp_path / "plainttt.py").write_text(PLAIN_GAME)
    folder = str(tmp_path / "plain.tiers")
    run = functools.partial(gametree_cli, path=tmp_path, env={"GAMETREE_STORE": "none"})
    built = run("-p", "plainttt", "tiers", "build", "plainttt", "--out", folder, "--json")
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["positions"] == 5478
    own = tmp_path / "own.tiers"
    build_tier_book(_ttt(), "tictactoe", own)
    info = json.loads(run("tiers", "info", folder, "--json").stdout)
    expected = json.loads(run("tiers", "info", str(own), "--json").stdout)
    assert info["game"] == "plainttt" and info["complete"] and info["positions"] == expected["positions"] == 5478
    keep = ("tier", "positions", "wins", "draws", "losses")
    assert [{k: t[k] for k in keep} for t in info["tiers"]] == [{k: t[k] for k in keep} for t in expected["tiers"]]
    for moves in ("", "A1 B2", "A1 B1 A2 B2"):
        read = run("-p", "plainttt", "tiers", "query", "plainttt", "--tiers", folder, "--moves", moves, "--json")
        same = run("tiers", "query", "tictactoe", "--tiers", str(own), "--moves", moves, "--json")
        assert read.returncode == 0 and json.loads(read.stdout) == json.loads(same.stdout), read.stderr
    solved = run("-p", "plainttt", "solve", "plainttt", "--tiers", folder, "--moves", "A1 B2", "--json")
    assert solved.returncode == 0 and json.loads(solved.stdout)["algorithm"] == "tiers", solved.stderr
    refused = run("-p", "plainttt", "tiers", "build", "plainttt", "--out", folder, "--workers", "2")
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1 and "tiered by ply" in refused.stderr
    exported = run("-p", "plainttt", "tiers", "export", folder, str(tmp_path / "plain.zip"))
    assert exported.returncode == 1 and exported.stderr.count("\n") == 1 and "tiered by ply" in exported.stderr
    assert not (tmp_path / "plain.zip").exists()
    nim = run("tiers", "build", "nim", "--out", str(tmp_path / "nim"))
    assert nim.returncode == 1 and nim.stderr.count("\n") == 1 and "adds_one_piece" in nim.stderr
