"""Books for perfect play (issue 24): bounds and chosen moves in the store, the perfect player's
order (store, weak proof, exact scores in its time), and ``book build --for-play``."""

from __future__ import annotations

import json
import random
import sqlite3

import pytest

from gametree.book import build_play_book
from gametree.search import Solver
from gametree.search.known import canonical_keyer
from gametree.search.perfect import PerfectMover, stored_choice
from gametree.search.table import Bound
from gametree.store import SCHEMA_VERSION, SolutionStore, StoreError, export_book, import_book

EXACT, AT_LEAST, AT_MOST = Bound.EXACT, Bound.LOWER, Bound.UPPER


@pytest.fixture
def store(tmp_path):
    with SolutionStore(tmp_path / "store.sqlite") as opened:
        yield opened


def test_bounds_are_kept_tightest_and_never_replace_an_exact_score(store):
    book = store.entries_of("connect4", {"width": 4, "height": 4, "k": 4})
    book.put_bounds([(1, 1, AT_LEAST), (2, -1, AT_MOST), (3, 2, AT_LEAST)])
    book.put_bounds([(1, 3, AT_LEAST), (2, -4, AT_MOST), (3, 1, AT_LEAST)])  # tighter, tighter, looser
    assert [tuple(book.entry(k)[:2]) for k in (1, 2, 3)] == [(3, AT_LEAST), (-4, AT_MOST), (2, AT_LEAST)]
    book.put_many([(1, 5)])  # an exact score replaces a bound ...
    book.put_bounds([(1, 7, AT_LEAST), (4, 0, EXACT)])  # ... and no bound replaces it (nor is "exact" a bound)
    assert (book.entry(1)[:2], book.entry(4), book.get(1), book.get(2)) == ((5, EXACT), None, 5, None)
    assert book.has_many([1, 2, 3]) == {1}  # (a build of exact values does not count bounds as done)
    assert [g.bounds for g in store.games()] == [2]


def test_a_store_of_schema_1_is_upgraded_when_opened_for_writing(tmp_path):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE games (id INTEGER PRIMARY KEY, name TEXT NOT NULL, options TEXT NOT NULL,"
        " UNIQUE (name, options));"
        "CREATE TABLE positions (game INTEGER NOT NULL, key NOT NULL, score INTEGER NOT NULL,"
        " images INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (game, key)) WITHOUT ROWID;"
        "CREATE TABLE builds (game INTEGER NOT NULL, name TEXT NOT NULL, complete INTEGER NOT NULL,"
        " positions INTEGER NOT NULL,"
        " seconds REAL NOT NULL, note TEXT NOT NULL DEFAULT '', PRIMARY KEY (game, name));"
        "INSERT INTO games VALUES (1, 'nim', '{}'); INSERT INTO positions VALUES (1, 7, 3, 1);"
        "PRAGMA application_id = 1735684709; PRAGMA user_version = 1;"
    )
    db.close()
    with pytest.raises(StoreError, match="schema version 1: open it for writing once"):
        SolutionStore(path, readonly=True)
    with SolutionStore(path) as upgraded:
        assert upgraded.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
        assert upgraded.entries_of("nim", {}).entry(7) == (3, EXACT, None)
    db = sqlite3.connect(path)  # a store of version 2 without a column of it: damaged, refused in one line
    db.executescript("ALTER TABLE positions RENAME COLUMN best TO other;")
    db.close()
    with pytest.raises(StoreError, match="damaged gametree store"):
        SolutionStore(path)


def test_export_and_import_carry_bounds_and_chosen_moves(store, tmp_path):
    book = store.entries_of("connect4", {"width": 4, "height": 4, "k": 4})
    book.put_many([(1, 0), (2, 5)])
    book.put_bounds([(3, 1, AT_LEAST), (4, -1, AT_MOST)])
    book.choose_many([(3, 4), (1, 2)])
    assert export_book(book, str(tmp_path / "b.book")) == 4
    with SolutionStore(tmp_path / "other.sqlite") as other:
        copy, count = import_book(other, str(tmp_path / "b.book"))
        assert count == 4 and list(copy.entries()) == list(book.entries())
    (tmp_path / "bad.book").write_bytes(
        __import__("gzip").compress(
            b'{"format": "gametree-book", "version": 2, "game": "nim", "options": {}}\n1 2 1 5 null\n'
        )
    )
    with pytest.raises(StoreError, match=r"bad.book:2: the kind of an entry"):
        import_book(store, str(tmp_path / "bad.book"))


def test_a_weak_solve_stores_its_bounds_and_a_second_one_reads_them(registry, store):
    game = registry.game("connect4").create(width=5, height=4)
    book = store.entries_of("connect4", game.options())
    state = game.initial_state()
    for column in "3 3 2".split():
        state = game.play(state, game.parse_move(state, column))
    first = Solver(game, engine="python", store=book).solve(state, weak=True, all_moves=False, pv=False)
    entry = book.entry(canonical_keyer(game)(state))
    expected = {1: (AT_LEAST, True), 0: (EXACT, True), -1: (AT_MOST, True)}[first.score]
    assert (
        entry is not None
        and (entry.bound, entry.score * first.score > 0 or entry.score == first.score == 0) == expected
    )
    again = Solver(game, engine="python", store=book).solve(state, weak=True, all_moves=False, pv=False)
    assert again.score == first.score and again.stats.nodes < first.stats.nodes / 10


def test_stored_choice_follows_a_chosen_move_exact_scores_and_bounds(registry, store):
    game = registry.game("connect4").create(width=4, height=4)
    key = canonical_keyer(game)
    book = store.entries_of("connect4", game.options())
    start = game.initial_state()
    child = {game.format_move(start, m): game.play(start, m) for m in game.legal_moves(start)}
    assert stored_choice(game, start, book) is None  # nothing stored
    book.put_bounds([(key(start), 1, AT_LEAST)])
    assert stored_choice(game, start, book) is None  # a win, but no move proven to keep it
    book.put_bounds([(key(child["2"]), -1, AT_MOST)])
    choice = stored_choice(game, start, book)
    assert (choice.moves, choice.value, choice.exact, choice.how) == (("2",), 1, False, "store")
    book.choose_many([(key(start), key(child["4"]))])  # a chosen move comes first, with its mirror image
    assert stored_choice(game, start, book).moves == ("1", "4")
    exact = store.entries_of("connect4", {"width": 5, "height": 4, "k": 4})
    game5 = registry.game("connect4").create(width=5, height=4)
    s5 = game5.initial_state()
    exact.put_many(
        [(key(s5), 0)]
        + [
            (canonical_keyer(game5)(game5.play(s5, m)), 0 if game5.format_move(s5, m) in "234" else 2)
            for m in game5.legal_moves(s5)
        ]
    )
    choice = stored_choice(game5, s5, exact)
    assert (sorted(choice.moves), choice.value, choice.exact) == (["2", "3", "4"], 0, True)


def test_the_perfect_mover_proves_the_value_first_and_scores_moves_in_its_time(registry):
    game = registry.game("connect4").create(width=5, height=4)
    state = game.initial_state()
    exact = PerfectMover(game, engine="python", seconds=60).choose(state)
    quick = PerfectMover(game, engine="python", seconds=0).choose(state)
    truth = Solver(game, engine="python").solve(state, pv=False)
    assert (exact.how, exact.exact, exact.value, set(exact.moves)) == (
        "exact",
        True,
        truth.score,
        set(truth.best_moves),
    )
    assert (quick.how, quick.exact, quick.value) == ("keeps", False, (truth.score > 0) - (truth.score < 0))
    scores = {mv.move: mv.score for mv in truth.move_values}
    assert all((scores[m] > 0) - (scores[m] < 0) == quick.value for m in quick.moves)


@pytest.mark.parametrize("board", [(4, 4), (5, 4)])
def test_a_book_for_play_answers_every_move_of_the_perfect_player(registry, store, board):
    """With 0 seconds every position the perfect player can meet is stored with its move: games
    against random players are then played from the store alone, and every chosen move keeps the
    position's value (checked against the exact solver)."""
    game = registry.game("connect4").create(width=board[0], height=board[1])
    book = store.entries_of("connect4", game.options())
    report = build_play_book(game, book, seconds=0, engine="python")
    assert report.proved > 0 and report.proved == sum(report.per_ply)
    truth = Solver(game, engine="python")
    rng = random.Random(5)
    for side in (0, 1):
        for _ in range(15):
            state = game.initial_state()
            while game.outcome(state) is None:
                if game.to_move(state) == side:
                    choice = stored_choice(game, state, book)
                    assert choice is not None, game.ply(state)
                    value = truth.score(state).score
                    after = game.play(state, game.parse_move(state, choice.moves[0]))
                    kept = -truth.score(after).score if game.outcome(after) is None else value
                    assert (
                        (kept > 0) - (kept < 0) == (value > 0) - (value < 0) == choice.value
                        if not choice.exact
                        else kept == value == choice.value
                    )
                    state = after
                else:
                    state = game.play(state, rng.choice(list(game.legal_moves(state))))
    again = build_play_book(game, book, seconds=0, engine="python")
    assert (again.proved, again.positions, again.had) == (
        0,
        report.positions,
        report.positions,
    )  # nothing new: every move was chosen


def test_a_book_for_play_stopped_midway_goes_on_to_the_same_book(registry, tmp_path):
    game = registry.game("connect4").create(width=4, height=4)
    with SolutionStore(tmp_path / "whole.sqlite") as whole, SolutionStore(tmp_path / "stopped.sqlite") as stopped:
        build_play_book(game, whole.entries_of("connect4", game.options()), seconds=0, engine="python")

        def stop(chosen: int, visited: int) -> None:
            if chosen == 300:
                raise KeyboardInterrupt

        book = stopped.entries_of("connect4", game.options())
        with pytest.raises(KeyboardInterrupt):
            build_play_book(game, book, seconds=0, engine="python", progress=stop)
        assert 0 < len(list(book.entries())) < len(list(whole.entries_of("connect4", game.options()).entries()))
        build_play_book(game, book, seconds=0, engine="python")
        assert list(book.entries()) == list(whole.entries_of("connect4", game.options()).entries())


def test_cli_book_for_play_and_its_refusals(gametree_cli, tmp_path):
    store = str(tmp_path / "s.sqlite")
    out = gametree_cli(
        "book",
        "build",
        "connect4",
        "--width",
        "4",
        "--height",
        "4",
        "--for-play",
        "0",
        "--player",
        "first",
        "--engine",
        "python",
        "--json",
        "--store",
        store,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["build"] == "play:0:first" and data["proved"] == sum(data["per_ply"]) > 0
    info = json.loads(gametree_cli("book", "info", "--json", "--store", store).stdout)
    assert info["games"][0]["builds"][0]["name"] == "play:0:first"
    # (each position searched has its move chosen; so have some the store proved; a mirror image shares its image's)
    assert (
        data["proved"] <= info["games"][0]["chosen_moves"] <= data["proved"] + data["had"]
        and info["games"][0]["bounds"] > 0
    )
    for bad, message in [
        (["--for-play", "1", "--plies", "2"], "give --plies N, --all or --for-play SECONDS (one of them)"),
        (["--for-play", "1", "--workers", "2"], "--for-play works in one process"),
        (["--for-play", "-1"], "-1"),
    ]:
        out = gametree_cli("book", "build", "connect4", "--width", "4", "--height", "4", *bad, "--store", store)
        assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr, out.stderr


def test_perfect_seconds_from_the_environment(gametree_cli, tmp_path):
    env = {"GAMETREE_PERFECT_SECONDS": "soon", "GAMETREE_STORE": "none"}
    out = gametree_cli("play", "tictactoe", "--x", "perfect", "--o", "random", "--json", env=env)
    assert out.returncode != 0 and "GAMETREE_PERFECT_SECONDS='soon'" in out.stderr and "Traceback" not in out.stderr
    env["GAMETREE_PERFECT_SECONDS"] = "0"
    out = gametree_cli("play", "tictactoe", "--x", "perfect", "--o", "random", "--json", "--seed", "3", env=env)
    assert out.returncode == 0 and json.loads(out.stdout)["wins"][1] == 0


def test_a_hint_past_its_time_says_what_the_book_proves(registry, store):
    import io

    from gametree.session import Seat, Session
    from gametree.terminal import Terminal

    game = registry.game("connect4").create(width=5, height=4)
    book = store.entries_of("connect4", game.options())
    build_play_book(game, book, seconds=0, players=(0,), engine="python")
    key, rng = canonical_keyer(game), random.Random(2)
    state = game.initial_state()
    while (
        book.entry(key(state)) is None or book.entry(key(state)).bound != AT_LEAST
    ):  # a win the book proves, not its score
        mover = stored_choice(game, state, book) if game.to_move(state) == 0 else None
        state = game.play(
            state, game.parse_move(state, mover.moves[0]) if mover else rng.choice(list(game.legal_moves(state)))
        )
        assert game.outcome(state) is None
    out = io.StringIO()
    human = registry.players["human"]()
    session = Session(
        game,
        (Seat("human", human), Seat("human", human)),
        Terminal(io.StringIO(), out, fancy=False),
        store=book,
        hint_seconds=0.0,
    )
    session.show_hint(state)
    choice = stored_choice(game, state, book)
    assert f"The book says: a win; {' or '.join(choice.moves)} keeps it." in out.getvalue()
