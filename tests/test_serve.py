"""``gametree serve`` (issue 35): the JSON API through Starlette's TestClient, hostile requests, the
worker pool's deadlines and cancellation.

Values the API claims are checked against independent searches: minimax (a brute force that
shares nothing with the solver but the game) for tic-tac-toe, Connect Four and a small Othello
board, expectiminimax's exact fractions for the dice game.  The browser tests are in
test_serve_page.py.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import warnings
from fractions import Fraction

import pytest

from conftest import poll_until
from gametree import load, play_text
from gametree.search import search
from gametree.serve import WorkerSetup, make_app
from gametree.serve.pool import Busy, SearchPool
from gametree.serve.requests import BadRequest, parse_analyse, parse_move, parse_position
from gametree.serve.work import AnalyseJob, MoveJob, WorkerContext, run_job

with warnings.catch_warnings():  # (Starlette would rather have httpx2; httpx is what it runs on here)
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@pytest.fixture(scope="module")
def client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with TestClient(make_app(WorkerSetup(), workers=2)) as client:
            poll_until(lambda: client.get("/health").json()["workers"] == 2, "the workers to start", bound=60)
            yield client


@pytest.fixture(scope="module")
def context():
    return WorkerContext(WorkerSetup())


def sign(x: float) -> str:
    return "win" if x > 0 else "loss" if x < 0 else "draw"


def brute_force(game, moves: str, algorithm: str = "minimax") -> dict[str, str]:
    """Each legal move's win/draw/loss for its mover by an independent full search."""
    result = search(algorithm, game, play_text(game, moves))
    return {mv.move: sign(mv.score) for mv in result.move_values}


# ---------------------------------------------------------------------------------------------
# Routes


def test_health_and_games(client):
    assert client.get("/health").json()["status"] == "ok"
    listed = client.get("/api/games").json()
    names = {g["name"] for g in listed["games"]}
    assert {"tictactoe", "connect4", "othello", "dice", "trio"} <= names
    assert "perfect" in listed["players"] and "mcts" in listed["players"] and "human" not in listed["players"]
    kinds = {g["name"]: g["kinds"] for g in listed["games"]}
    assert kinds["tictactoe"] == [] and kinds["othello"] == ["margin"] and "chance" in kinds["dice"]
    assert "players" in kinds["trio"] and "repeats" in kinds["dodgem"]
    textbook = next(g for g in listed["games"] if g["name"] == "textbook")
    assert "file" not in {o["name"] for o in textbook["options"]}  # (a file on the server: not offered)


def test_position_has_the_board_and_where_each_move_goes(client):
    registry = load()
    game = registry.game("tictactoe").create(size=3)
    state = play_text(game, "A1 B2")
    data = client.get("/api/position", params={"game": "tictactoe", "moves": "A1 B2"}).json()
    assert [m["move"] for m in data["legal"]] == [game.format_move(state, m) for m in game.legal_moves(state)]
    board = game  # tic-tac-toe is its own board view
    assert [tuple(m["cell"]) for m in data["legal"]] == [board.move_cell(state, m) for m in game.legal_moves(state)]
    assert data["to_move"] == 0 and data["outcome"] is None and data["board"]["svg"].startswith("<svg")
    over = client.get("/api/position", params={"game": "tictactoe", "moves": "A1 B1 A2 B2 A3"}).json()
    assert over["outcome"]["winner"] == 0 and over["legal"] == []
    nim = client.get("/api/position", params={"game": "nim"}).json()
    assert nim["board"] is None and nim["text"]  # (no board view: the text rendering)


@pytest.mark.parametrize("moves", ["", "A1", "B2 A1", "A1 B2 C3", "A1 B1 A2 B2"])
def test_analysis_of_tictactoe_equals_minimax(client, moves):
    game = load().game("tictactoe").create(size=3)
    data = client.post("/api/analyse", json={"game": "tictactoe", "moves": moves, "budget": 5}).json()
    assert data["exact"] and data["source"] in ("search", "store")
    got = {m["move"]: m["value"] for m in data["moves"]}
    assert got == brute_force(game, moves, "minimax" if moves else "alphabeta")
    for m in data["moves"]:  # the label says the value and the plies to the end
        assert m["label"] == "D" if m["value"] == "draw" else m["label"] == f"{m['value'][0].upper()}{m['plies']}"


def test_analysis_of_small_connect4_and_othello_equals_minimax(client):
    registry = load()
    c4 = registry.game("connect4").create(width=4, height=4)
    data = client.post(
        "/api/analyse",
        json={"game": "connect4", "options": {"width": 4, "height": 4}, "moves": "1 2 2 3 3", "budget": 5},
    ).json()
    assert data["exact"]
    assert {m["move"]: m["value"] for m in data["moves"]} == brute_force(c4, "1 2 2 3 3", "alphabeta")
    othello = registry.game("othello").create(size=4)
    moves = "b1 a1 a2 a3"
    data = client.post("/api/analyse", json={"game": "othello", "options": {"size": 4}, "moves": moves}).json()
    exact = search("minimax", othello, play_text(othello, moves))
    assert data["exact"] and {m["move"]: m["score"] for m in data["moves"]} == {
        mv.move: float(mv.score) for mv in exact.move_values
    }
    assert all(m["label"] == f"{int(m['score']):+d}" for m in data["moves"])  # (a margin, signed)


def test_analysis_of_dice_gives_expectiminimax_probabilities(client):
    game = load().game("dice").create(target=4, sides=2)
    data = client.post("/api/analyse", json={"game": "dice", "options": {"target": 4, "sides": 2}, "budget": 5}).json()
    exact = search("expectiminimax", game, game.initial_state())
    assert data["exact"]
    for m in data["moves"]:
        mv = next(v for v in exact.move_values if v.move == m["move"])
        p = (Fraction(mv.exact if mv.exact is not None else mv.score) + 1) / 2
        assert m["probability"] == pytest.approx(float(p), abs=1e-9)


def test_a_computer_move_keeps_the_value(client):
    game = load().game("connect4").create(width=5, height=4)
    moves = "3 3"
    before = search("solver", game, play_text(game, moves), engine="python").score
    answer = client.post(
        "/api/move",
        json={"game": "connect4", "options": {"width": 5, "height": 4}, "moves": moves, "player": "perfect"},
    ).json()
    after = search("solver", game, play_text(game, f"{moves} {answer['move']}"), engine="python").score
    assert sign(-after) == sign(before)
    roll = client.post("/api/move", json={"game": "dice", "moves": "roll", "player": "random", "seed": 3}).json()
    assert roll["player"] == "chance" and roll["move"] in {f"rolled {n}" for n in range(1, 7)}
    after_roll = client.get("/api/position", params={"game": "dice", "moves": f"roll {roll['move']}"}).json()
    assert after_roll["moves"] == ["roll", roll["move"]]  # (split as the game splits its moves)


def test_tree_page_is_the_explorer_under_a_strict_policy(client):
    response = client.get("/api/tree", params={"game": "tictactoe", "moves": "A1 B2 A2 C3 B3"})
    assert response.status_code == 200 and response.text.startswith("<!DOCTYPE html>")
    assert "connect-src" not in response.headers["content-security-policy"]  # (default-src 'none': no fetch)
    assert "default-src 'none'" in response.headers["content-security-policy"]


def test_the_page_and_its_assets_come_from_the_package(client):
    page = client.get("/")
    assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
    assert "http://" not in page.text and "https://" not in page.text
    for asset in ("app.js", "app.css"):
        text = client.get(f"/static/{asset}").text.replace('"http://www.w3.org/2000/svg"', "")  # (a name, no fetch)
        assert "http://" not in text and "https://" not in text  # (no CDN)
    script = client.get("/static/app.js").text
    assert not re.search(r"\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|eval\(", script)


# ---------------------------------------------------------------------------------------------
# Bad and hostile requests: a 4xx with one line, nothing echoed as markup

HOSTILE = [
    ("/api/position", {"game": "<script>alert(1)</script>"}),
    ("/api/position", {"game": "chess"}),
    ("/api/position", {"game": "tictactoe", "moves": "<img src=x onerror=alert(1)>"}),
    ("/api/position", {"game": "tictactoe", "moves": "A1 A1"}),
    ("/api/position", {"game": "tictactoe", "moves": "Z9"}),
    ("/api/position", {"game": "tictactoe", "moves": "A1 " * 2000}),
    ("/api/position", {"game": "tictactoe", "moves": "A1\x00"}),
    ("/api/position", {"game": "connect4", "options": '{"width": 1e300}'}),
    ("/api/position", {"game": "connect4", "options": '{"width": 99999999999999999999}'}),
    ("/api/position", {"game": "connect4", "options": '{"width": 1000}'}),
    ("/api/position", {"game": "connect4", "options": '{"width": "<b>7</b>"}'}),
    ("/api/position", {"game": "connect4", "options": '{"<svg onload=alert(1)>": 7}'}),
    ("/api/position", {"game": "connect4", "options": "[1, 2]"}),
    ("/api/position", {"game": "connect4", "options": "{not json"}),
    ("/api/position", {"game": "textbook", "options": '{"file": "/etc/passwd"}'}),
    ("/api/position", {"game": "nim", "options": '{"heaps": "' + "9," * 90 + '9"}'}),
    ("/api/position", {"game": "nim", "options": '{"heaps": "3000,3000"}'}),  # (too many moves to show)
    ("/api/position", {"game": "tictactoe", "evil": "1"}),
    ("/api/position", {"game": "connect4", "options": "[" * 700}),
    ("/api/tree", {"game": "<script>"}),
]


@pytest.mark.parametrize(("path", "params"), HOSTILE)
def test_hostile_queries_get_a_one_line_4xx(client, path, params):
    started = time.perf_counter()
    response = client.get(path, params=params)
    assert 400 <= response.status_code < 500, response.text
    assert time.perf_counter() - started < 5
    assert response.headers["content-type"].startswith("application/json")
    assert "<" not in response.text and ">" not in response.text  # (escaped as \\u003c in the JSON)
    error = response.json()["error"]
    assert error and "\n" not in error and "Traceback" not in error and len(error) <= 300


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[1]",
        json.dumps({"game": "tictactoe", "budget": 1e9}).encode(),
        json.dumps({"game": "tictactoe", "budget": "NaN"}).encode(),
        json.dumps({"game": "tictactoe", "budget": True}).encode(),
        json.dumps({"game": "tictactoe", "moves": ["A1"]}).encode(),
        json.dumps({"game": "tictactoe", "moves": "A1 B2 C3 A2 B1 A3 ZZ"}).encode(),
        json.dumps({"game": 7}).encode(),
        b"{" + b'"a":1,' * 20000 + b'"b":2}',
        b"[" * 60000,
        json.dumps({"game": "nim", "options": {"heaps": "1000000,1000000"}}).encode(),  # (2,000,000 moves)
    ],
)
def test_hostile_analysis_bodies_get_a_one_line_4xx(client, body):
    response = client.post("/api/analyse", content=body, headers={"content-type": "application/json"})
    assert 400 <= response.status_code < 500 and "\n" not in response.json()["error"]


@pytest.mark.parametrize(
    "body",
    [
        {"game": "tictactoe", "player": "<script>"},
        {"game": "tictactoe", "player": "human"},
        {"game": "tictactoe", "player": "nobody"},
        {"game": "tictactoe", "player": "perfect", "seed": -1},
        {"game": "tictactoe", "player": "perfect", "moves": "A1 B1 A2 B2 A3"},  # (over)
    ],
)
def test_bad_move_requests_get_a_4xx(client, body):
    response = client.post("/api/move", json=body)
    assert 400 <= response.status_code < 500 and response.json()["error"]


def test_unknown_routes_and_methods_answer_json(client):
    assert client.get("/api/nothing").json() == {"error": "Not Found"}
    assert client.get("/api/analyse").status_code == 405


def test_parsing_is_typed_and_checked():
    request = parse_analyse({"game": "connect4", "options": {"width": 5, "height": 4}, "moves": " 1  2 ", "budget": 3})
    assert request.position.options == (("height", 4), ("width", 5)) and request.position.moves == "1 2"
    assert parse_move({"game": "nim", "player": "perfect", "seed": 4}).seed == 4
    with pytest.raises(BadRequest, match="budget"):
        parse_analyse({"game": "nim", "budget": 0})
    with pytest.raises(BadRequest, match="unknown field"):
        parse_position({"game": "nim", "x": 1})


# ---------------------------------------------------------------------------------------------
# Time limits, the pool, cancellation


def test_analysis_answers_within_its_budget(client):
    started = time.perf_counter()
    data = client.post("/api/analyse", json={"game": "connect4", "moves": "4", "budget": 0.5}).json()
    assert time.perf_counter() - started < 0.5 + 1.0
    assert data["source"] in ("guess", "timeout", "store", "search")
    if data["source"] != "store":
        assert not data["exact"] or all(m["exact"] for m in data["moves"])


def test_jobs_in_this_process(context):
    job = AnalyseJob(parse_analyse({"game": "nim", "options": {"heaps": "1,2"}}), 2.0)
    answer = run_job(context, job)
    game = load().game("nim").create(heaps="1,2")
    assert {m.move: m.value for m in answer.moves} == brute_force(game, "")
    failure = run_job(context, MoveJob(parse_move({"game": "nim", "player": "nobody"}), 1.0))
    assert failure.status == 404


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_cancelled_or_late_job_kills_its_worker_and_a_full_pool_says_busy():
    async def scenario():
        pool = SearchPool(WorkerSetup(), 1)
        loop = asyncio.get_running_loop()
        try:
            slow = MoveJob(parse_move({"game": "connect4", "player": "perfect", "budget": 60}), 60.0)
            task = asyncio.ensure_future(pool.run(lambda s: slow, loop.time() + 60, 1.0))
            while not pool.busy:  # (the worker has the job)
                await asyncio.sleep(0.05)
            worker = next(iter(pool.workers))
            with pytest.raises(Busy):  # the one worker is searching: a second request waits, then gives up
                await pool.run(lambda s: slow, loop.time() + 0.3, 0.1)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            worker.process.join(5)
            assert not worker.process.is_alive() and not pool.workers
            started = loop.time()
            with pytest.raises(TimeoutError):  # past its deadline and grace, the worker is killed
                await pool.run(lambda s: slow, loop.time() + 0.3, 0.3)
            assert loop.time() - started < 0.3 + 0.3 + 1.0
            quick = AnalyseJob(parse_analyse({"game": "tictactoe", "moves": "A1 B2"}), 2.0)
            answer = await pool.run(lambda s: quick, loop.time() + 5, 1.0)  # a fresh worker takes the next job
            assert answer.exact
        finally:
            pool.close()

    asyncio.run(scenario())


# ---------------------------------------------------------------------------------------------
# The store, and every computer player


def test_the_store_answers_what_a_search_proved_and_the_shipped_book_is_added(tmp_path):
    store = str(tmp_path / "solutions.sqlite")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with TestClient(make_app(WorkerSetup(store=store), workers=1)) as client:
            body = {"game": "tictactoe", "moves": "A1 B2 C3", "budget": 5}
            first = client.post("/api/analyse", json=body).json()
            second = client.post("/api/analyse", json=body).json()
            opening = client.post("/api/analyse", json={"game": "connect4", "budget": 5}).json()
    assert first["source"] == "search" and second["source"] == "store" and second["algorithm"] == "store"
    assert [(m["move"], m["value"], m["plies"]) for m in second["moves"]] == [
        (m["move"], m["value"], m["plies"]) for m in first["moves"]
    ]
    # 7x6 Connect Four's start, a first-player win (Allis 1988; Tromp's table): from the shipped book in 5 s.
    assert opening["value"] == "win" and opening["exact"]
    assert {m["move"]: m["value"] for m in opening["moves"]}["4"] == "win"


@pytest.mark.parametrize("player", ["random", "easy", "medium", "hard", "perfect", "mcts", "paranoid"])
def test_every_computer_player_moves(client, player):
    game = load().game("tictactoe").create(size=3)
    state = play_text(game, "A1 B2")
    answer = client.post("/api/move", json={"game": "tictactoe", "moves": "A1 B2", "player": player, "budget": 1})
    assert answer.status_code == 200, answer.text
    assert answer.json()["move"] in {game.format_move(state, m) for m in game.legal_moves(state)}


@pytest.mark.parametrize(
    ("game", "options", "algorithm"),
    [("othello", {"size": 4}, "alphabeta"), ("dice", {"target": 6}, "expectiminimax"), ("trio", {}, "maxn")],
)
def test_tree_pages_by_kind_of_game(client, game, options, algorithm):
    response = client.get("/api/tree", params={"game": game, "options": json.dumps(options)})
    assert response.status_code == 200 and f'"algorithm": "{algorithm}"' in response.text.replace('":"', '": "')
    refused = client.get("/api/tree", params={"game": "dodgem"})
    assert refused.status_code == 422 and "repeat" in refused.json()["error"]


def test_requests_for_the_same_analysis_at_once_share_one_search():
    async def scenario():
        import httpx

        app = make_app(WorkerSetup(), workers=2)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://serve") as client:
                body = {"game": "connect4", "moves": "4 4", "budget": 1.0}
                answers = await asyncio.gather(*(client.post("/api/analyse", json=body) for _ in range(6)))
                return [a.json() for a in answers], app.state.server.shared

    answers, shared = asyncio.run(scenario())
    assert all(a == answers[0] for a in answers)  # (one search's answer, the same seconds and all)
    assert not shared  # (forgotten once answered)


# ---------------------------------------------------------------------------------------------
# The command


def test_the_command_refuses_bad_arguments_in_one_line(gametree_cli):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        in_use = gametree_cli("serve", "--port", port, "--no-store", timeout=60)
    assert (
        in_use.returncode == 1
        and in_use.stderr.strip() == f"Error: cannot listen on 127.0.0.1 port {port}: Address already in use"
    )
    for args, code in (
        (("serve", "--port", "70000"), 2),
        (("serve", "-p", "no_such_plugin_module"), 1),
        (("serve", "--store", "x.sqlite", "--no-store"), 2),
    ):
        result = gametree_cli(*args, timeout=60)
        assert result.returncode == code and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_workers_write_one_store_at_once(tmp_path):
    store = str(tmp_path / "shared.sqlite")
    openings = [a + b for a in "ABC" for b in "123" if a + b != "B2"][:6]

    async def scenario():
        import httpx

        app = make_app(WorkerSetup(store=store), workers=3)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://serve", timeout=60) as client:

                async def analyse(moves):
                    body = {"game": "tictactoe", "moves": f"B2 {moves}", "budget": 10}
                    return (await client.post("/api/analyse", json=body)).json()

                first = await asyncio.gather(*(analyse(m) for m in openings))
                again = await asyncio.gather(*(analyse(m) for m in openings))
                return first, again

    first, again = asyncio.run(scenario())
    assert all(a["exact"] for a in first)
    assert [a["source"] for a in again] == ["store"] * len(openings)
    assert [[m["value"] for m in a["moves"]] for a in again] == [[m["value"] for m in a["moves"]] for a in first]


# ---------------------------------------------------------------------------------------------
# Tier directories (gametree serve --tiers DIR, issue 33): their board answered from the arrays


@pytest.fixture(scope="module")
def ttt_tiers(tmp_path_factory):
    """3x3 tic-tac-toe's tier directory (5,478 positions), built once."""
    from gametree.tier_book import build_tier_book

    folder = tmp_path_factory.mktemp("serve-tiers") / "ttt"
    build_tier_book(load().game("tictactoe").create(), "tictactoe", folder)
    return folder


@pytest.fixture(scope="module")
def tier_client(ttt_tiers):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with TestClient(make_app(WorkerSetup(tiers=(str(ttt_tiers),)), workers=1)) as client:
            yield client


@pytest.mark.parametrize("moves", ["", "A1", "B2 A1", "A1 B2 C3", "A1 B1 A2 B2", "A1 A2 B1 B2 C3 C1"])
def test_the_tier_directory_answers_the_analysis_of_its_board_as_minimax_does(tier_client, moves):
    game = load().game("tictactoe").create()
    data = tier_client.post("/api/analyse", json={"game": "tictactoe", "moves": moves, "budget": 5}).json()
    assert data["source"] == "tiers" and data["algorithm"] == "tiers" and data["exact"]
    exact = search("minimax", game, play_text(game, moves))  # (depth-aware scores, the plies to the end)
    assert data["value"] == exact.value
    by_move = {mv.move: mv for mv in exact.move_values}
    assert [m["move"] for m in data["moves"]] == [mv.move for mv in exact.move_values]
    for m in data["moves"]:
        mv = by_move[m["move"]]
        assert m["value"] == sign(mv.score) and m["score"] == mv.score and m["plies"] == mv.plies_to_end, m
        assert m["exact"] and m["label"] == ("D" if m["value"] == "draw" else f"{m['value'][0].upper()}{m['plies']}")


def test_other_boards_and_games_are_searched_as_without_a_directory(tier_client):
    other = {"game": "tictactoe", "options": {"size": 3, "k": 2}, "moves": "A1", "budget": 5}
    data = tier_client.post("/api/analyse", json=other).json()
    assert data["source"] == "search" and data["algorithm"] == "solver" and data["exact"]
    game = load().game("tictactoe").create(size=3, k=2)
    assert {m["move"]: m["value"] for m in data["moves"]} == brute_force(game, "A1")
    nim = tier_client.post("/api/analyse", json={"game": "nim", "options": {"heaps": "1,2"}}).json()
    assert nim["source"] == "search"
    over = tier_client.post("/api/analyse", json={"game": "tictactoe", "moves": "A1 B1 A2 B2 A3"}).json()
    assert over["source"] == "over"


@pytest.mark.parametrize("moves", ["A1 B2", "A1 B1 C1", "B2 A1 C3", "A1 A2 B1 B2"])
def test_the_perfect_player_of_the_page_reads_the_tier_directory(tier_client, ttt_tiers, moves):
    """Its move is one of the best the arrays give (keeping a draw; the fastest win; the slowest
    loss), checked by minimax's depth-aware scores; in a worker of this process it says it read them."""
    game = load().game("tictactoe").create()
    exact = search("minimax", game, play_text(game, moves))
    best = {mv.move for mv in exact.move_values if mv.score == exact.score}
    for seed in range(3):
        body = {"game": "tictactoe", "moves": moves, "player": "perfect", "seed": seed, "budget": 2}
        answer = tier_client.post("/api/move", json=body)
        assert answer.status_code == 200 and answer.json()["move"] in best, answer.text
    context = WorkerContext(WorkerSetup(tiers=(str(ttt_tiers),)))
    moved = run_job(context, MoveJob(parse_move({"game": "tictactoe", "moves": moves, "player": "perfect"}), 2.0))
    assert moved.move in best
    (player,) = context.players.values()
    assert player.tiers is not None and player.tiers.folder == ttt_tiers and player.last.how == "tiers"
    other = parse_move({"game": "tictactoe", "options": {"size": 3, "k": 2}, "moves": "A1", "player": "perfect"})
    run_job(context, MoveJob(other, 2.0))
    assert all(p.tiers is None for key, p in context.players.items() if key[1])  # (another board: searched)


def _edited(source, target, **changes):
    """A copy of the tier directory ``source`` at ``target`` with its header's fields changed."""
    import shutil

    shutil.copytree(source, target)
    header = json.loads((target / "header.json").read_text())
    header.update(changes)
    (target / "header.json").write_text(json.dumps(header))
    return target


def test_a_wrong_tier_directory_is_one_line_before_the_server_listens(gametree_cli, ttt_tiers, tmp_path):
    import socket

    from gametree.store.tiers import TierFileError

    header = json.loads((ttt_tiers / "header.json").read_text())
    wrong = {
        "is not a tier directory": [str(tmp_path / "missing")],
        "which is not installed": [str(_edited(ttt_tiers, tmp_path / "unknown", game="no-such-game"))],
        "cannot be made": [str(_edited(ttt_tiers, tmp_path / "board", options={"width": 3, "height": 3, "k": 9}))],
        "other tier sizes": [str(_edited(ttt_tiers, tmp_path / "sizes", sizes=[s + 1 for s in header["sizes"]]))],
        "hold the same game and board": [str(ttt_tiers), str(_edited(ttt_tiers, tmp_path / "twice"))],
    }
    with socket.socket() as taken:  # (a port in use: the error is the directory's, found before listening)
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        for said, folders in wrong.items():
            flags = [f for folder in folders for f in ("--tiers", folder)]
            out = gametree_cli("serve", "--port", port, "--no-store", *flags, timeout=60)
            assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr
            assert out.stderr.startswith("Error: --tiers: ") and said in out.stderr, out.stderr
            with pytest.raises(TierFileError, match=said):
                make_app(WorkerSetup(tiers=tuple(folders)), workers=1)


def test_a_tier_file_damaged_after_the_start_is_a_one_line_500(ttt_tiers, tmp_path):
    import shutil

    folder = tmp_path / "damaged"
    shutil.copytree(ttt_tiers, folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with TestClient(make_app(WorkerSetup(tiers=(str(folder),)), workers=1)) as client:
            tier = folder / json.loads((folder / "header.json").read_text())["tiers"]["1"]["file"]
            data = bytearray(tier.read_bytes())
            data[-1] ^= 0xFF
            tier.write_bytes(bytes(data))
            answer = client.post("/api/analyse", json={"game": "tictactoe", "moves": "", "budget": 2})
    assert answer.status_code == 500 and "is damaged" in answer.json()["error"], answer.text
    assert "\n" not in answer.json()["error"]
