"""What a notebook or a REPL shows (issue 34, item 8): short reprs that paste back, boards as SVG
for any game with a board view, Connect Four's discs as discs, "1 ply"."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import gametree
from gametree import Position
from gametree.display import describe

SVG = "{http://www.w3.org/2000/svg}"


def test_a_positions_repr_pastes_back_to_the_same_position() -> None:
    for p in (
        Position.of("tictactoe", "A1 B2 C3"),
        Position.of("connect4", "4444", width=6, height=5),
        Position.of("tictactoe", "B2", size=4),
        Position.of("connect4", "4 4").play("3 3"),
        Position.after(gametree.load().game("tictactoe").create(size=4, k=3), "B2"),
        Position.of("nim"),
    ):
        text = repr(p)
        assert text.startswith("Position.of(") and len(text) < 80, text
        again = eval(text, {"Position": Position})
        # (games compare by identity: the pasted one is a new game of the same options)
        assert type(again.game) is type(p.game) and again.game.options() == p.game.options()
        assert again.state == p.state and repr(again) == text
    assert repr(Position.of("connect4", "4444")) == "Position.of('connect4', '4444')"  # default options left out


def test_a_position_made_from_a_state_says_what_it_is_in_one_line() -> None:
    p = Position.of("connect4", "4444", width=6, height=5)
    assert repr(Position(p.game, p.state)) == "<Position of connect4, ply 4, Red to move>"


def test_a_results_repr_is_one_line_and_says_1_ply() -> None:
    p = Position.of("tictactoe", "A1 B2 C3 C2 B1")
    result = p.solve(store=None, show=False)
    text = repr(result)
    assert "\n" not in text and len(text) < 200, text
    assert text.startswith("<SearchResult solver: win in 1 ply ") and "best A2" in text
    assert describe(p.game, result).startswith("O wins in 1 ply ")
    assert "in 1 ply (" in result._repr_html_() and "1 plies" not in result._repr_html_()


def _svg(p: Position) -> ET.Element:
    svg = p._repr_svg_()
    assert svg is not None
    return ET.fromstring(svg)


def test_connect_four_is_drawn_with_discs_not_names() -> None:
    p = Position.of("connect4", "4 4 3 3 2 2 1")  # Red's row of four: 1 2 3 4 on the bottom row
    root = _svg(p)
    discs = root.findall(f"{SVG}circle")
    assert len(discs) == 7
    colours = [d.get("fill") for d in discs]
    assert sorted(colours.count(c) for c in set(colours)) == [3, 4]  # four of Red's, three of Yellow's
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "Red" not in texts and "Yellow" not in texts
    assert texts == [str(r) for r in range(6, 0, -1)] + [str(c) for c in range(1, 8)]  # the labels only
    lit = [r for r in root.findall(f"{SVG}rect") if r.get("fill") == "#ffe082"]
    assert len(lit) == 4  # the winning line
    page = p._repr_html_()
    assert "<svg" in page and not re.search(r"<t(d|ext)[^>]*>(Red|Yellow)<", page) and "Red has won" in page


def test_tic_tac_toe_is_drawn_with_its_marks() -> None:
    root = _svg(Position.of("tictactoe", "A1 B1 A2 B2 A3"))
    marks = [t.text for t in root.iter(f"{SVG}text") if t.text in ("X", "O")]
    assert marks == ["X", "X", "X", "O", "O"]
    assert not root.findall(f"{SVG}circle")


def test_a_game_without_a_board_view_has_no_svg_but_its_text() -> None:
    p = Position.of("nim")
    assert p._repr_svg_() is None
    assert re.search(r"<pre>[^<]+</pre>", p._repr_html_())
