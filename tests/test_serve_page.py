"""``gametree serve``'s page in a real browser (issue 35's acceptance): whole games against the
perfect player by clicks, the moves' colours against the solver, undo and reload, the tutorial's
plugin game, hostile addresses.

The server is the real command (``gametree -p gametree_hexapawn serve --port N --no-store``) in a
subprocess on a free port, with docs/example-plugin on the path; the browser is the distribution's
Chromium driven by Playwright, found and skipped exactly as tests/test_explorer.py does.  The page
says it is settled (``body[data-ready=true]`` with ``data-ply``): tests wait on that, never on the clock.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from conftest import poll_until
from gametree import load, play_text
from gametree.search import search

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "example-plugin"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: A plugin whose game carries markup everywhere a game's text goes: its summary, player names, moves,
#: board cells, labels and text picture.  The page must show all of it as text and run none of it.
EVIL = '<img src=x onerror="alert(1)">'
HOSTILE_PLUGIN = f"""
from gametree import GameInfo, GameSpec, MoveParseError, Outcome, hookimpl

EVIL = {EVIL!r}


class Evil:
    info = GameInfo(max_plies=4, player_names=(EVIL, "<script>alert(2)</script>"))
    row_labels = ("<i>row</i>",)
    column_labels = ("<svg onload=alert(3)>", "<b>c</b>")

    def initial_state(self):
        return ()

    def to_move(self, state):
        return len(state) % 2

    def ply(self, state):
        return len(state)

    def legal_moves(self, state):
        return [] if len(state) >= 4 else [0, 1]

    def play(self, state, move):
        return (*state, move)

    def outcome(self, state):
        return None if len(state) < 4 else Outcome(0 if sum(state) % 2 else None)

    def key(self, state):
        return state

    def parse_move(self, state, text):
        for move in self.legal_moves(state):
            if text == self.format_move(state, move):
                return move
        raise MoveParseError("no move " + text)

    def format_move(self, state, move):
        return "<b>" + str(move) + "</b>"

    def render(self, state):
        return EVIL + repr(state)

    def board_cells(self, state):
        return [[EVIL if state.count(c) % 2 else "" for c in (0, 1)]]

    def move_cell(self, state, move):
        return (0, move)

    def winning_cells(self, state):
        return ()


@hookimpl
def gametree_register_games(registry):
    registry.add_game(GameSpec(name="evil", factory=Evil, summary=EVIL))
"""


@pytest.fixture(scope="module")
def server(gametree_cli, tmp_path_factory):
    """The base address of a ``gametree serve`` running for this module's tests, with the tutorial's
    plugin and the hostile one."""
    port = free_port()
    plugins = tmp_path_factory.mktemp("plugins")
    (plugins / "gametree_evil_test.py").write_text(HOSTILE_PLUGIN)
    args = ("-p", "gametree_hexapawn", "-p", "gametree_evil_test", "serve", "--port", str(port), "--no-store")
    env = {"PYTHONPATH": os.pathsep.join([str(plugins), str(EXAMPLE), os.environ.get("PYTHONPATH", "")])}
    process = gametree_cli.popen(*args, "--workers", "2", env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"gametree serve ended: {process.stdout.read().decode()}")
        try:
            with urllib.request.urlopen(url + "/health", timeout=1) as answer:
                return json.load(answer)["workers"] == 2
        except OSError:
            return False

    try:
        poll_until(up, "the server and its workers to start", bound=60)
        yield url
    finally:
        process.terminate()
        process.wait(10)


class Page:
    """The page open in the browser; ``errors`` collects script errors, ``dialogs`` any alert that opened."""

    def __init__(self, browser, url: str) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 800})
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss()))
        self.page.goto(url)

    def settled(self, ply: int | None = None) -> None:
        """Wait until the page is settled (at ``ply`` moves, if given): a person's turn or the end."""
        selector = "body[data-ready=true]" + (f'[data-ply="{ply}"]' if ply is not None else "")
        self.page.wait_for_selector(selector, timeout=60_000)

    def attr(self, name: str) -> str:
        return self.page.get_attribute("body", f"data-{name}") or ""

    def moves(self) -> str:
        return self.attr("moves")

    def shown_values(self) -> dict[str, str]:
        """Each legal move's value as the move list colours it."""
        return {
            b.get_attribute("data-move"): b.get_attribute("data-value")
            for b in self.page.query_selector_all("#legal button")
        }

    def click_move(self, move: str) -> None:
        """Play ``move`` by clicking its cell on the board (the move list where the game has no board)."""
        cell = self.page.query_selector(f'#board button[data-move="{move}"]')
        (cell or self.page.query_selector(f'#legal button[data-move="{move}"]')).click()


def sign(x: float) -> str:
    return "win" if x > 0 else "loss" if x < 0 else "draw"


def solver_values(game, moves: str) -> dict[str, str]:
    result = search("solver", game, play_text(game, moves), engine="python")
    return {mv.move: sign(mv.score) for mv in result.move_values}


def play_against_perfect(page: Page, game, *, limit: int = 60) -> str:
    """Play the person's side by clicks on the board, always a move of the best value shown, checking
    at each turn that the colours are the solver's values; the final outcome's text."""
    rank = {"win": 2, "draw": 1, "loss": 0}
    for _ in range(limit):
        page.settled()
        if page.attr("outcome"):
            return page.attr("outcome")
        moves = page.moves()
        shown = page.shown_values()
        assert shown == solver_values(game, moves), moves
        best = max(shown, key=lambda m: rank[shown[m]])
        page.click_move(best)
        page.page.wait_for_selector(f'body[data-ready=true]:not([data-moves="{moves}"])', timeout=60_000)
    raise AssertionError("the game did not end")


def test_a_whole_tictactoe_game_against_the_perfect_player(server, browser):
    game = load().game("tictactoe").create(size=3)
    page = Page(browser, f"{server}/?game=tictactoe&seats=human,perfect")
    assert play_against_perfect(page, game) == "a draw"  # (both sides perfect: tic-tac-toe is a draw)
    assert len(page.moves().split()) == 9 and not page.errors


def test_a_whole_connect4_game_against_the_perfect_player(server, browser):
    game = load().game("connect4").create(width=4, height=4)
    options = json.dumps({"width": 4, "height": 4})
    page = Page(browser, f"{server}/?game=connect4&options={options}&seats=human,perfect")
    value = sign(search("solver", game, engine="python").score)
    outcome = play_against_perfect(page, game)
    assert outcome == {"draw": "a draw", "win": "Red wins", "loss": "Yellow wins"}[value]
    assert not page.errors


def test_undo_redo_and_reload_keep_the_position(server, browser):
    page = Page(browser, f"{server}/?game=tictactoe&seats=human,perfect")
    page.settled(0)
    page.click_move("B2")
    page.settled(2)
    first_two = page.moves()
    page.click_move(next(m for m, v in page.shown_values().items() if v == "draw"))
    page.settled(4)
    four = page.moves()
    page.page.click("#undo")  # back to the person's turn: the computer's reply and the person's move
    page.settled(2)
    assert page.moves() == first_two
    page.page.reload()
    page.settled(2)
    assert page.moves() == first_two and not page.page.is_disabled("#redo")
    page.page.click("#redo")
    page.settled(3)
    page.page.click("#resume")  # (after an undo or redo the computer waits to be asked)
    page.settled(4)
    assert page.moves().split()[:3] == four.split()[:3]
    page.page.reload()
    page.settled(4)
    assert page.page.query_selector_all("#history li")[3].text_content() == page.moves().split()[3]


def test_the_tutorials_plugin_game_plays_in_the_page(server, browser, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.delitem(sys.modules, "gametree_hexapawn", raising=False)
    game = load(extra=["gametree_hexapawn"]).game("hexapawn").create()
    page = Page(browser, f"{server}/?game=hexapawn&seats=human,perfect")
    page.settled(0)
    assert page.page.query_selector("#board img") is not None  # (its board view, drawn)
    for _ in range(20):
        page.settled()
        if page.attr("outcome"):
            break
        moves = page.moves()
        shown = page.shown_values()
        assert shown == solver_values(game, moves)
        page.page.click(f'#legal button[data-move="{next(iter(shown))}"]')
        page.page.wait_for_selector(f'body[data-ready=true]:not([data-moves="{moves}"])', timeout=60_000)
    assert page.attr("outcome") and not page.errors


@pytest.mark.parametrize(
    "query",
    [
        "?game=%3Cscript%3Ealert(1)%3C/script%3E",
        "?game=tictactoe&moves=%3Cimg%20src=x%20onerror=alert(1)%3E",
        '?game=tictactoe&options={"size":"<svg/onload=alert(1)>"}',
        '?game=tictactoe&redo=["<img src=x onerror=alert(1)>"]',
    ],
)
def test_hostile_addresses_run_no_script(server, browser, query):
    page = Page(browser, server + "/" + query)
    page.settled()
    assert not page.dialogs and not page.page.query_selector_all("#error img, #error svg, #error script")
    error = page.page.text_content("#error") or ""
    if "onerror" in query and "redo" not in query:
        assert "<img" in error  # (shown as text)


def test_a_request_whose_page_leaves_stops_its_search(server):
    def health() -> dict:
        with urllib.request.urlopen(server + "/health", timeout=5) as answer:
            return json.load(answer)

    body = json.dumps({"game": "connect4", "moves": "4", "budget": 30}).encode()
    request = urllib.request.Request(server + "/api/analyse", data=body, headers={"Content-Type": "application/json"})
    with pytest.raises(OSError):  # (the client gives up after 1 s: a timeout)
        urllib.request.urlopen(request, timeout=1)
    poll_until(lambda: health()["busy"] == 0, "the search of the page that left to stop", bound=5)


def test_computer_against_computer_plays_to_the_end(server, browser):
    page = Page(browser, f"{server}/?game=tictactoe&seats=perfect,mcts&budget=0.5")
    page.page.wait_for_selector("body[data-ready=true][data-outcome]:not([data-outcome=''])", timeout=60_000)
    game = load().game("tictactoe").create(size=3)
    state = play_text(game, page.moves())  # (every move legal)
    assert game.outcome(state) is not None and page.attr("outcome") in ("a draw", "X wins")  # (perfect never loses)
    assert not page.errors


def test_a_plugin_game_full_of_markup_shows_it_as_text(server, browser):
    page = Page(browser, f"{server}/?game=evil&seats=human,human")
    page.settled(0)
    assert EVIL in page.page.text_content("#status")  # (its player's name, as text)
    for ply in range(4):
        page.page.click("#legal button >> nth=0")
        page.settled(ply + 1)
    assert page.attr("outcome") and page.moves().split() == ["<b>0</b>"] * 4
    assert not page.dialogs and not page.errors
    assert len(page.page.query_selector_all("img")) == 1  # (the board, an image of its SVG: no other img)
    assert len(page.page.query_selector_all("script")) == 1 and not page.page.query_selector_all("b, i, svg b")
