"""The contracts between the parts of the core: engines, known values, bounds and typed outcomes."""

from __future__ import annotations

import ast
import pathlib

import pytest

from gametree import play_text, solver
from gametree.search.contract import SearchEngine
from gametree.search.engine import Engine
from gametree.search.exact import exact_score
from gametree.search.known import KnownValues, Remembering, answer, canonical_keyer, record_result, stored_result
from gametree.search.table import Bound, TranspositionTable
from gametree.search.values import Draw, Loss, Win
from gametree.store import MemoryEntries

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _members(protocol: type) -> set[str]:
    return {name for name in vars(protocol) if not name.startswith("_")}


def test_every_engine_offers_every_member_of_the_contract(registry) -> None:
    """Engine, the compiled engine (when numba is here) and the Remembering decorator each have every
    member of SearchEngine, and drivers run on each the same way (the same exact score)."""
    game = registry.game("connect4").create(width=4, height=4)
    state = play_text(game, "1 2")
    python = Engine(game, table=TranspositionTable(), threats=True)
    engines: list[SearchEngine] = [python, Remembering(Engine(game, threats=True), MemoryEntries("connect4", {}))]
    try:
        from gametree.search.compiled import CompiledEngine, compiled_rules

        rules = compiled_rules(game)
        assert rules is not None
        engines.append(CompiledEngine(game, rules, table=TranspositionTable()))
    except ImportError:  # pragma: no cover - numba is a dependency where it installs
        pass
    wanted = _members(SearchEngine)
    assert {"search", "exact", "root", "halt", "resume", "with_room", "max_plies", "name"} <= wanted
    scores = set()
    for engine in engines:
        assert wanted <= set(dir(engine)), (type(engine).__name__, wanted - set(dir(engine)))
        scores.add(exact_score(engine, state))
        assert engine.name in ("python", "compiled")
    assert len(scores) == 1


def test_the_decorator_answers_from_known_values_and_remembers_what_it_proves(registry) -> None:
    game = registry.game("tictactoe").create(size=3)
    known = MemoryEntries("tictactoe", game.options())
    state = play_text(game, "A1 B2")
    first = Remembering(Engine(game, threats=True), known)
    value = exact_score(first, state)
    assert first.flush() >= 1 and known.get(canonical_keyer(game)(state)) == value
    again = Remembering(Engine(game, threats=True), known)
    assert exact_score(again, state) == value and again.hits >= 1 and again.counters.nodes == 0


def test_a_store_that_cannot_be_written_loses_the_entries_not_the_search(registry) -> None:
    class Broken(MemoryEntries):
        def put_many(self, items):  # type: ignore[no-untyped-def]
            raise OSError("disk full")

        def record(self, exact, bounds):  # type: ignore[no-untyped-def]
            self.write_error = "could not write: disk full"
            return 0

    game = registry.game("tictactoe").create(size=3)
    engine = Remembering(Engine(game, threats=True), Broken("tictactoe", {}))
    assert exact_score(engine, play_text(game, "A1 B2 C3")) == 0
    assert engine.flush() == 0 and engine.write_error == "could not write: disk full"


def test_one_path_reads_known_values_then_searches_then_records(registry) -> None:
    """answer(): searched once, recorded, then answered from the known values alone."""
    game = registry.game("tictactoe").create(size=3)
    known: KnownValues = MemoryEntries("tictactoe", game.options())
    state = play_text(game, "A1 B2 C3")
    calls = []

    def search():  # type: ignore[no-untyped-def]
        calls.append(1)
        return solver(game, state, engine="python")

    searched = answer(known, game, state, search)
    assert not searched.from_store and calls == [1]
    again = answer(known, game, state, search)
    assert again.from_store and calls == [1]
    assert (again.score, again.best_moves) == (searched.score, searched.best_moves)
    assert stored_result(game, state, known) is not None
    assert (
        record_result(known, game, state, solver(game, state, weak=True, engine="python")) == 0
    )  # (weak: nothing exact)


def test_bound_is_spelled_once() -> None:
    """The store's kind column holds the Bound values themselves; trees and JSON name them."""
    assert [int(b) for b in (Bound.EXACT, Bound.LOWER, Bound.UPPER)] == [0, 1, -1]
    assert [b.label for b in Bound] == ["exact", "lower", "upper"]


@pytest.mark.parametrize(
    ("moves", "outcome"),
    [("A1 B1 A2 B2", Win(1)), ("A1 B1 A2", Loss(4)), ("", Draw(9))],
)
def test_results_say_what_their_score_means(registry, moves: str, outcome: object) -> None:
    """The solver's typed outcome agrees with plain minimax's value and line length (after A1 B1 A2,
    O blocks A3 and loses to X's next threat: 4 plies)."""
    from gametree import minimax

    game = registry.game("tictactoe").create(size=3)
    assert solver(game, moves=moves, engine="python").outcome == outcome == minimax(game, moves=moves).outcome


def test_a_heuristic_guess_has_no_outcome(registry) -> None:
    from gametree import alphabeta

    game = registry.game("connect4").create(width=5, height=4)
    result = alphabeta(game, depth=2)
    assert not result.proven and result.outcome is None


def test_search_never_imports_the_store() -> None:
    """No module of gametree/search names gametree.store (not even lazily or for types)."""
    for path in sorted((ROOT / "gametree" / "search").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = ("." * node.level) + (node.module or "")
                assert target not in ("..store", "gametree.store") and not target.startswith(
                    ("..store.", "gametree.store.")
                ), path
            elif isinstance(node, ast.Import):
                assert not any(alias.name.startswith("gametree.store") for alias in node.names), path


def test_search_options_are_one_object_for_the_api_and_the_command_line(registry) -> None:
    """SearchOptions names every shared search option, checks its values when made, and gives an
    algorithm the keywords it takes; an option asked of an algorithm that does not take it is refused."""
    from gametree.plugin.registry import SEARCH_OPTIONS
    from gametree.search import Limit, SearchOptions, alphabeta, search
    from gametree.search.options import OptionNotTaken

    assert set(SearchOptions().keywords()) == SEARCH_OPTIONS
    for bad in ({"depth": -1}, {"time": 0}, {"time": float("inf")}, {"analysis": "3"}):
        with pytest.raises(ValueError):
            Limit(**bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown engine"):
        SearchOptions(engine="fast")  # type: ignore[arg-type]
    asked = SearchOptions(limit=Limit(depth=3), all_moves=False)
    assert asked.asked() == {"depth", "all_moves"}
    assert asked.for_algorithm("alphabeta", {"depth", "all_moves", "pv"}) == {"depth": 3, "all_moves": False}
    with pytest.raises(OptionNotTaken, match="solver takes no depth"):
        asked.for_algorithm("solver", {"all_moves", "weak"})
    game = registry.game("connect4").create(width=5, height=4)
    by_object = search("alphabeta", game, settings=asked)
    by_keywords = alphabeta(game, depth=3, all_moves=False)
    assert (by_object.score, by_object.best_moves, by_object.stats.nodes) == (
        by_keywords.score,
        by_keywords.best_moves,
        by_keywords.stats.nodes,
    )


def test_results_give_the_games_own_moves_beside_their_text(registry) -> None:
    """Every move value carries the move itself (what game.play takes) beside its text, for every
    algorithm; the command line's JSON leaves it out (a game's moves need not be JSON)."""
    import json

    from gametree.search import search

    game = registry.game("tictactoe").create(size=3)
    state = play_text(game, "A1 B1 A2 B2")
    for name in ("solver", "alphabeta", "minimax", "mcts"):
        result = search(name, game, state, **({"seed": 1, "iterations": 300} if name == "mcts" else {}))
        for mv in result.move_values:
            assert game.format_move(state, mv.game_move) == mv.move, name
        assert [game.format_move(state, m) for m in result.best_game_moves] == list(result.best_moves), name
        data = result.data()
        assert all("game_move" not in mv for mv in data["move_values"])  # type: ignore[union-attr]
        assert json.loads(json.dumps(data))["best_moves"] == ["A3"], name


def test_proven_scores_are_whole_numbers_heuristic_ones_are_not(registry) -> None:
    from gametree import alphabeta

    game = registry.game("connect4").create(width=5, height=4)
    proven = solver(game, moves="3 3", engine="python")
    assert proven.proven and type(proven.score) is int
    assert all(type(mv.score) is int for mv in proven.move_values)
    guess = alphabeta(game, depth=2)
    assert not guess.proven and isinstance(guess.score, float) and -1 < guess.score < 1
