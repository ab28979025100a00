"""The solution store and opening books (issue 24): proven values kept in SQLite, read before
searching, written after; books built ply by ply, resumable; export and import."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys

import pytest

from gametree import play_text
from gametree.book import build_book, positions_up_to
from gametree.search import Solver, solver
from gametree.search.known import canonical_keyer, stored_result
from gametree.search.table import Bound
from gametree.store import SCHEMA_VERSION, SolutionStore, StoreError, export_book, import_book

ENGINES = [
    "python",
    pytest.param(
        "compiled", marks=pytest.mark.skipif(not __import__("importlib").util.find_spec("numba"), reason="needs numba")
    ),
]


@pytest.fixture
def store(tmp_path):
    with SolutionStore(tmp_path / "store.sqlite") as opened:
        yield opened


def test_a_store_keeps_scores_by_game_and_board(tmp_path):
    path = tmp_path / "deep" / "folder" / "s.sqlite"
    with SolutionStore(path) as store:
        small, big = (
            store.entries_of("tictactoe", {"width": 3, "height": 3, "k": 3}),
            store.entries_of("tictactoe", {"width": 4, "height": 4, "k": 3}),
        )
        assert small.put_many([(1, 0), (2, -3), ("(1, 2)", 5, 2)]) == 3
        big.put_many([(1, 6)])
    with SolutionStore(path, readonly=True) as store:
        small = store.entries_of("tictactoe", {"k": 3, "height": 3, "width": 3})  # (the options' order does not matter)
        assert (small.get(1), small.get(2), small.get("(1, 2)"), small.get(3)) == (0, -3, 5, None)
        assert store.entries_of("tictactoe", {"width": 4, "height": 4, "k": 3}).get(1) == 6
        assert {(g.options["width"], g.positions, g.covered) for g in store.games()} == {(3, 3, 4), (4, 1, 1)}
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_scores_of_many_keys_are_the_exact_scores_get_reads_one_by_one(tmp_path):
    with SolutionStore(tmp_path / "s.sqlite") as store:
        entries = store.entries_of("nim", {})
        entries.put_many([(k, k % 7 - 3) for k in range(0, 1200, 2)])  # (more than one query's 500 keys)
        entries.put_bounds([(1, 5, Bound.LOWER), (3, -2, Bound.UPPER)])
        keys = list(range(1300))
        expected = {k: entries.get(k) for k in keys if entries.get(k) is not None}
        assert entries.scores_of(keys) == expected and len(expected) == 600  # (no bound, nothing not stored)
        assert set(expected) == entries.has_many(keys)
        assert store.entries_of("tictactoe", {"width": 9}).scores_of(keys) == {}  # a board never stored


def test_two_processes_adding_the_same_game_share_its_entries(tmp_path):
    """Two connections (as two worker processes) whose books both meet a game new to the store."""
    path = tmp_path / "s.sqlite"
    with SolutionStore(path) as first, SolutionStore(path) as second:
        options = {"width": 4, "height": 4, "k": 4}
        a, b = first.entries_of("connect4", options), second.entries_of("connect4", options)
        assert a.get(1) is None and b.get(2) is None  # neither has the game yet
        a.put_many([(1, 5)])
        b.put_many([(2, -5)])  # the game was added by the other meanwhile: the same game
        assert (a.get(2), b.get(1), len(first.games())) == (-5, 5, 1)


def test_processes_opening_a_new_store_at_once_all_get_it(tmp_path):
    code = (
        "import sys; from gametree.store import SolutionStore;"
        " SolutionStore(sys.argv[1]).entries_of('nim', {}).put_many([(int(sys.argv[2]), 1)])"
    )
    path = tmp_path / "new.sqlite"
    processes = [
        subprocess.Popen([sys.executable, "-c", code, str(path), str(i)], stderr=subprocess.PIPE, text=True)
        for i in range(6)
    ]
    errors = [p.communicate(timeout=60)[1] for p in processes]
    assert [p.returncode for p in processes] == [0] * 6, errors
    with SolutionStore(path) as store:
        assert sorted(k for k, *_ in store.entries_of("nim", {}).entries()) == list(range(6))


def test_what_is_not_a_store_is_refused_and_left_as_it_was(tmp_path):
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"not a database at all" * 100)
    other = tmp_path / "other.sqlite"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE notes (text)")
    connection.commit()
    connection.close()
    for path, message in ((garbage, "is not a gametree store"), (other, "another program's database")):
        before = path.read_bytes()
        with pytest.raises(StoreError, match=message):
            SolutionStore(path)
        assert path.read_bytes() == before
    newer = tmp_path / "newer.sqlite"
    SolutionStore(newer).close()
    connection = sqlite3.connect(newer)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.commit()
    connection.close()
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1}"):
        SolutionStore(newer)
    with pytest.raises(StoreError, match="no store at"):
        SolutionStore(tmp_path / "missing.sqlite", readonly=True)


_NUMBA = __import__("importlib").util.find_spec("numba") is not None


@pytest.mark.parametrize(
    "board, engine",
    [
        pytest.param(board, engine, marks=pytest.mark.skipif(engine == "compiled" and not _NUMBA, reason="needs numba"))
        for board in (("tictactoe", {"size": 3}), ("connect4", {"width": 4, "height": 4}))
        for engine in ("python", "compiled")
    ]
    + [(("nim", {"heaps": "2,3"}), "python")],  # (nim has no compiled rules)
)
def test_a_second_solve_comes_from_the_store_and_says_the_same(registry, store, engine, board):
    name, options = board
    game = registry.game(name).create(**options)
    book = store.entries_of(name, game.options())
    first = Solver(game, engine=engine, store=book).solve()
    again = Solver(game, engine=engine, store=book).solve()
    plain = solver(game, engine=engine)
    assert again.stats.nodes == 0 < first.stats.nodes and (first.from_store, again.from_store) == (False, True)
    for result in (first, again):
        assert (result.score, result.best_moves, result.move_values, result.pv, result.plies_to_end) == (
            plain.score,
            plain.best_moves,
            plain.move_values,
            plain.pv,
            plain.plies_to_end,
        )
    # Positions below the root were stored too (each move's, and along the lines): their values come at once.
    state = play_text(game, " ".join(plain.pv[:3]))
    scored = Solver(game, engine=engine, store=book).score(state)
    assert scored.nodes == 0 and scored.score == solver(game, state, engine=engine, all_moves=False).score


def test_a_store_that_lacks_or_contradicts_a_value_is_searched(registry, store, ttt3):
    book = store.entries_of("tictactoe", ttt3.options())
    key = canonical_keyer(ttt3)
    start = ttt3.initial_state()
    book.put_many([(key(start), 0)])
    assert stored_result(ttt3, start, book) is None  # the moves' values are missing
    state = play_text(ttt3, "A1 B1 A2")
    # "Lost" (-4), but every move leads to a position lost for the opponent (-4 there: +4 here): no.
    wrong = [(key(state), -4)] + [(key(ttt3.play(state, m)), -4) for m in ttt3.legal_moves(state)]
    book.put_many(wrong)
    assert stored_result(ttt3, state, book) is None
    # With the moves' values missing, the solver searches (and agrees with a solve without a store).
    assert Solver(ttt3, store=book).solve(start).move_values == solver(ttt3, start).move_values


def test_batch_and_score_read_and_write_the_store(registry, store):
    game = registry.game("connect4").create(width=5, height=4)
    book = store.entries_of("connect4", game.options())
    states = [play_text(game, moves) for moves in ("", "3", "3 3", "1 2 3")]
    scored = [Solver(game, store=book).score(s) for s in states]
    again = [Solver(game, store=book).score(s) for s in states]
    assert (
        [s.score for s in scored]
        == [s.score for s in again]
        == [solver(game, s, all_moves=False).score for s in states]
    )
    assert all(s.nodes == 0 for s in again)


def test_book_build_proves_every_position_up_to_a_ply_and_goes_on_where_it_stopped(registry, store):
    game = registry.game("connect4").create(width=4, height=4)
    book = store.entries_of("connect4", game.options())
    layers = positions_up_to(game, 5)
    key = canonical_keyer(game)
    # The same positions as every sequence of moves reaches (games over left out, mirror images once).
    by_ply = [{key(game.initial_state())}] + [set() for _ in range(5)]
    frontier = [game.initial_state()]
    for ply in range(1, 6):
        frontier = [game.play(s, m) for s in frontier for m in game.legal_moves(s)]
        frontier = [s for s in frontier if game.outcome(s) is None]
        by_ply[ply] = {key(s) for s in frontier}
    assert [{key(s) for s in layer} for layer in layers] == by_ply and [len(layer) for layer in layers][:3] == [1, 2, 8]
    first = build_book(game, book, plies=3)
    up_to_3 = sum(len(k) for k in by_ply[:4])
    assert (first.positions, first.proved, first.had) == (up_to_3, up_to_3, 0)
    report = build_book(game, book, plies=5)
    assert (report.positions, report.proved, report.had) == (
        sum(map(len, by_ply)),
        sum(map(len, by_ply)) - up_to_3,
        up_to_3,
    )
    for layer in layers:
        for s in layer[:: max(1, len(layer) // 15)]:
            assert book.get(key(s)) == solver(game, s, all_moves=False, pv=False).score


def test_book_build_over_worker_processes_gives_the_same_book(registry, tmp_path):
    game = registry.game("connect4").create(width=4, height=4)
    books = []
    for workers in (1, 2):
        with SolutionStore(tmp_path / f"w{workers}.sqlite") as store:
            # (the Python engine: worker processes that load no compiled code start at once)
            build_book(game, store.entries_of("connect4", game.options()), plies=5, workers=workers, engine="python")
            books.append(dict((k, v) for k, v, *_ in store.entries_of("connect4", game.options()).entries()))
    assert books[0] == books[1] and len(books[0]) == sum(len(layer) for layer in positions_up_to(game, 5))


def _entries(path) -> int:
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            return int(connection.execute("SELECT COUNT(*) FROM positions").fetchone()[0])
        finally:
            connection.close()
    except sqlite3.Error:  # not made yet
        return 0


def test_a_book_build_killed_twice_finishes_as_if_never_stopped(gametree_cli, wait_until, tmp_path):
    whole, killed = tmp_path / "whole.sqlite", tmp_path / "killed.sqlite"
    command = ["book", "build", "connect4", "--width", "5", "--height", "4", "--plies", "6", "--json"]
    done = gametree_cli(*command, "--store", str(whole))
    assert done.returncode == 0, done.stderr
    for enough in (200, 700):  # killed (SIGKILL: no clean-up at all) once the store holds this many entries
        process = gametree_cli.popen(*command, "--store", str(killed), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # (or once the build has ended, which the count of entries it had when resumed then shows)
        wait_until(
            lambda enough=enough, process=process: _entries(killed) >= enough or process.poll() is not None,
            f"{enough} entries in the store",
        )
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    resumed = gametree_cli(*command, "--store", str(killed))
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert 700 <= report["had"] < report["positions"], report
    rows = [
        sqlite3.connect(path).execute("SELECT key, score, images FROM positions ORDER BY key").fetchall()
        for path in (whole, killed)
    ]
    assert rows[0] == rows[1] and len(rows[0]) == report["positions"]


def test_export_and_import_carry_a_book(registry, tmp_path):
    game = registry.game("tictactoe").create(size=3)
    with SolutionStore(tmp_path / "a.sqlite") as store:
        book = store.entries_of("tictactoe", game.options())
        build_book(game, book, plies=4)
        count = export_book(book, str(tmp_path / "ttt.book"))
        entries = list(book.entries())
    assert count == len(entries) > 0
    with SolutionStore(tmp_path / "b.sqlite") as other:
        imported, n = import_book(other, str(tmp_path / "ttt.book"))
        assert n == count and list(imported.entries()) == entries
        (tmp_path / "bad.book").write_bytes(b"\x1f\x8b not really gzip")
        with pytest.raises(StoreError, match="cannot read the book"):
            import_book(other, str(tmp_path / "bad.book"))


def test_cli_store_options_and_errors(gametree_cli, tmp_path):
    path = str(tmp_path / "s.sqlite")
    args = ["solve", "connect4", "--width", "6", "--height", "5", "--best-only", "--json", "--store", path]
    first, second = (json.loads(gametree_cli(*args).stdout) for _ in range(2))
    assert (first["score"], first["best_moves"], first["pv"]) == (second["score"], second["best_moves"], second["pv"])
    assert second["stats"]["nodes"] == 0 < first["stats"]["nodes"] and second["from_store"]
    text = gametree_cli(*[a for a in args if a != "--json"]).stdout
    assert "answered from the solution store" in text and "nodes per depth" not in text
    info = json.loads(gametree_cli("book", "info", "--store", path, "--json").stdout)
    assert [(g["game"], g["options"]) for g in info["games"]] == [("connect4", {"width": 6, "height": 5, "k": 4})]
    bad = tmp_path / "bad.sqlite"
    bad.write_text("garbage")
    out = gametree_cli("solve", "tictactoe", "--store", str(bad))
    assert out.returncode == 1 and out.stderr.strip().splitlines() == [
        f"Error: {bad} is not a gametree store (file is not a database)"
    ]
    assert gametree_cli("solve", "tictactoe", "--store", path, "--no-store").returncode == 2
    missing = gametree_cli("book", "info", "--store", str(tmp_path / "none.sqlite"))
    assert missing.returncode == 1 and "no store at" in missing.stderr
    assert gametree_cli("book", "build", "tictactoe", "--store", path).returncode == 2  # neither --plies nor --all
    unreachable = gametree_cli(
        "book", "build", "tictactoe", "--plies", "2", "--scheduler", "tcp://127.0.0.1:9", "--store", path
    )
    assert unreachable.returncode == 1 and unreachable.stderr.startswith(
        "Error: cannot reach the Dask scheduler at tcp://127.0.0.1:9"
    )
    assert len(unreachable.stderr.strip().splitlines()) == 1


def test_cli_strong_solution_of_4x4_connect4_has_the_published_count(gametree_cli, tmp_path):
    path = str(tmp_path / "c4.sqlite")
    built = gametree_cli(
        "book", "build", "connect4", "--width", "4", "--height", "4", "--all", "--store", path, "--json"
    )
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["positions"] == 161_029
    info = json.loads(gametree_cli("book", "info", "--store", path, "--json").stdout)
    (entry,) = info["games"]
    assert entry["positions"] == 161_029 and [b["name"] for b in entry["builds"]] == ["all"]
    # Every position of the board is in the store: any solve of it is answered without a search.
    solved = json.loads(
        gametree_cli(
            "solve", "connect4", "--width", "4", "--height", "4", "--moves", "2 3 2", "--store", path, "--json"
        ).stdout
    )
    assert solved["stats"]["nodes"] == 0 and solved["pv"] and solved["plies_to_end"] is not None


def test_a_shipped_book_is_added_to_the_store_once(registry, tmp_path):
    import dataclasses

    from gametree.cli.common import open_book

    game = registry.game("connect4").create(width=4, height=4)
    with SolutionStore(tmp_path / "build.sqlite") as store:
        build_book(game, store.entries_of("connect4", game.options()), plies=3)
        export_book(store.entries_of("connect4", game.options()), str(tmp_path / "c4-4x4.book"))
    spec = dataclasses.replace(registry.games["connect4"], books=(str(tmp_path / "c4-4x4.book"),))
    scratch = open_book(
        spec,
        game,
        {"width": 4, "height": 4},
        {"store_path": str(tmp_path / "remake.sqlite"), "no_store": False, "from_scratch": True},
    )
    assert (
        scratch.get(canonical_keyer(game)(game.initial_state())) is None and not scratch.store.games()
    )  # (book build --from-scratch)
    params = {"store_path": str(tmp_path / "user.sqlite"), "no_store": False}
    book = open_book(spec, game, {"width": 4, "height": 4}, params)
    assert stored_result(game, game.initial_state(), book) is not None
    assert [b[0] for b in book.store.games()[0].builds] == [
        f"shipped:c4-4x4.book:{(tmp_path / 'c4-4x4.book').stat().st_size}"
    ]
    other = open_book(spec, registry.game("connect4").create(width=5, height=4), {"width": 5, "height": 4}, params)
    assert other.get(canonical_keyer(game)(game.initial_state())) is None  # a book of another board is not added


def test_the_shipped_7x6_book_answers_the_standard_board_at_once(gametree_cli, tmp_path):
    out = gametree_cli("solve", "connect4", "--json", "--store", str(tmp_path / "fresh.sqlite"))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (data["score"], data["best_moves"], data["stats"]["nodes"]) == (1, ["4"], 0)
    assert [dict((m["move"], m["score"]) for m in data["move_values"])[str(c)] for c in range(1, 8)] == [
        -2,
        -1,
        0,
        1,
        0,
        -1,
        -2,
    ]


def test_a_sample_of_the_shipped_7x6_book_agrees_with_the_solver(registry, tmp_path):
    """The book's lines of perfect play, followed from the start through its own values: a random
    sample of their positions from ply 18 on (a second or less each to prove here), proven again."""
    import random

    pytest.importorskip("numba")
    spec = registry.games["connect4"]
    (path,) = [p for p in spec.books if p.endswith("connect4-7x6.book")]
    game = spec.create()
    with SolutionStore(tmp_path / "s.sqlite") as store:
        book, count = import_book(store, path)
        assert count >= 5 and book.options == {"width": 7, "height": 6, "k": 4}
        key = canonical_keyer(game)
        lines = []
        for first in game.legal_moves(game.initial_state()):
            state = game.play(game.initial_state(), first)
            while game.outcome(state) is None:
                value = book.get(key(state))
                assert value is not None
                lines.append((state, value))
                kept = [
                    m
                    for m in game.legal_moves(state)
                    if game.outcome(game.play(state, m)) is not None or book.get(key(game.play(state, m))) == -value
                ]
                if not kept:
                    break
                state = game.play(state, kept[0])
        deep = [(s, v) for s, v in lines if game.ply(s) >= 18]
        assert len(deep) >= 20
        checker = Solver(game, engine="compiled")
        for s, v in random.Random(7).sample(deep, 8):
            assert checker.score(s).score == v, (game.ply(s), v)


def test_the_shipped_7x6_book_has_the_perfect_players_moves_and_they_keep_the_value(registry, tmp_path):
    """The book for perfect play in the shipped 7x6 book: games of the perfect player (from the
    book alone) against random moves reach positions where its move is stored; a random sample of
    the deepest (seconds each to prove) is proven again: the move keeps the value."""
    import random

    pytest.importorskip("numba")
    from gametree.search.perfect import stored_choice

    spec = registry.games["connect4"]
    (path,) = [p for p in spec.books if p.endswith("connect4-7x6.book")]
    game = spec.create()
    key = canonical_keyer(game)
    with SolutionStore(tmp_path / "s.sqlite") as store:
        book, _ = import_book(store, path)
        assert book.chosen_moves() > 100
        rng, met = random.Random(11), []
        for side in (0, 1):
            for _ in range(12):
                state = game.initial_state()
                while game.outcome(state) is None:
                    if game.to_move(state) != side:
                        state = game.play(state, rng.choice(list(game.legal_moves(state))))
                        continue
                    entry = book.entry(key(state))
                    if entry is None or entry.best is None:
                        break  # past the book: the player proves the rest in time
                    choice = stored_choice(game, state, book)
                    assert choice is not None and choice.how == "store"
                    met.append((state, choice))
                    state = game.play(state, game.parse_move(state, choice.moves[0]))
        going = [(s, c) for s, c in met if game.outcome(game.play(s, game.parse_move(s, c.moves[0]))) is None]
        deep = sorted(going, key=lambda sc: game.ply(sc[0]))[-20:]  # (the deepest are the quickest to prove again)
        assert len(met) > 40 and len(deep) >= 6
        checker = Solver(game, engine="compiled")
        for s, choice in random.Random(7).sample(deep, 4):
            value = checker.score(s, weak=True).score
            after = game.play(s, game.parse_move(s, choice.moves[0]))
            assert value == choice.value == -checker.score(after, weak=True).score, (game.ply(s), choice)


def test_play_on_7x6_with_the_shipped_book_wins_without_a_warning(gametree_cli, tmp_path):
    """The acceptance of perfect 7x6 play, one game each side, through the command line: the
    store gets the shipped book, which makes the warning that 'perfect' may be slow go.  (How
    long its moves take is measured by benchmarks/perfect_play.py: about 1.5 s at most.)"""
    quick = {"GAMETREE_PERFECT_SECONDS": "0"}  # (the value's proof, or the book's move; no time for exact scores)
    for sides, winner in ((["--x", "perfect", "--o", "random"], 0), (["--x", "random", "--o", "perfect"], 1)):
        command = ["play", "connect4", *sides, "--seed", "4", "--json", "--store", str(tmp_path / "s.sqlite")]
        out = gametree_cli(*command, env=quick)
        assert out.returncode == 0 and "note:" not in out.stdout + out.stderr, out.stderr
        record = json.loads(out.stdout)["records"][0]
        assert record["winner"] == winner and len(record["seconds"]) == len(record["moves"])
    for store, warned in (
        (["--store", str(tmp_path / "s.sqlite")], False),
        (["--no-store"], True),
    ):  # (you move first, and quit)
        out = gametree_cli("play", "connect4", "--x", "human", "--o", "perfect", *store, input="quit\n")
        assert out.returncode == 0 and ("no book for perfect play" in out.stdout + out.stderr) == warned, out.stdout


def test_book_build_on_a_dask_cluster_gives_the_same_book(registry, tmp_path):
    distributed = pytest.importorskip("distributed", reason="Dask is an optional extra")
    game = registry.game("connect4").create(width=4, height=4)
    books = []
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        for scheduler in (None, cluster.scheduler_address):
            with SolutionStore(tmp_path / f"{scheduler is None}.sqlite") as store:
                build_book(
                    game,
                    store.entries_of("connect4", game.options()),
                    plies=4,
                    scheduler=scheduler,
                    engine="python",
                    lines=True,
                )
                books.append(dict((k, v) for k, v, *_ in store.entries_of("connect4", game.options()).entries()))
    # (with lines: the deepest positions' lines of play are in both, as the same values)
    assert books[0] == books[1] and len(books[0]) > sum(len(layer) for layer in positions_up_to(game, 4))


def test_ctrl_c_of_a_book_build_on_dask_stops_the_tasks_running_on_the_workers(registry, tmp_path, one_dask_worker):
    """As for solve --scheduler: the running tasks see the build's stop event and halt their
    engine, so the worker is free again (7x6 positions after 2 moves keep it busy for minutes)."""
    game = registry.game("connect4").create()
    one_dask_worker.interrupt_once_busy()
    with SolutionStore(tmp_path / "s.sqlite") as store, pytest.raises(KeyboardInterrupt):
        build_book(
            game,
            store.entries_of("connect4", game.options()),
            plies=2,
            scheduler=one_dask_worker.cluster.scheduler_address,
            engine="python",
        )
    one_dask_worker.wait_free()


def test_a_command_leaves_its_store_whole_in_its_file(gametree_cli, tmp_path):
    """Issue 32, F0: the store was never closed, so what a command proved sat only in the -wal file
    beside it, and a copy of the .sqlite file alone was 'an empty file, not a gametree store'."""
    store = tmp_path / "s.sqlite"
    gametree_cli("solve", "connect4", "--width", "4", "--height", "4", "--best-only", "--store", str(store), check=True)
    wal = tmp_path / "s.sqlite-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(store.read_bytes())
    info = gametree_cli("book", "info", "--store", str(copy), check=True)
    assert "connect4" in info.stdout and " positions (" in info.stdout
