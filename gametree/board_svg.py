"""A board drawn as SVG, for any game with a board view (:class:`gametree.game.BoardView`).

What a :class:`gametree.Position` shows in a notebook (``_repr_svg_``, and inside its
``_repr_html_``).  A cell that holds a player's one-letter name (tic-tac-toe's X and O)
shows the letter; a cell that holds a longer name (Connect Four's Red and Yellow) shows a
disc in that player's colour (the name itself when it is a colour, else one of two
distinct colours); any other text is written in the cell.  The winning line is marked.

>>> from gametree import Position
>>> svg = board_svg(Position.of("connect4", "4 4").game, Position.of("connect4", "4 4").state)
>>> svg.startswith("<svg") and svg.count("<circle") == 2
True
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from .game import Game, M, S, capabilities

__all__ = ["CELL", "BoardLayout", "board_layout", "board_svg"]

#: A cell's side, in SVG pixels.
CELL = 36
#: Colours of players 0 and 1 (and after) when their names are no colours.
_PALETTE = ("#d32f2f", "#fbc02d", "#1976d2", "#388e3c")
#: Player names that are colours, as drawn.
_COLOURS = {
    "red": "#d32f2f",
    "yellow": "#fbc02d",
    "blue": "#1976d2",
    "green": "#388e3c",
    "black": "#212121",
    "white": "#fafafa",
}


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _piece(text: str, names: tuple[str, ...], x: float, y: float) -> str:
    """The SVG of one cell's content, centred on (x, y)."""
    if not text:
        return ""
    if text in names and len(text) > 1:  # a player's disc
        colour = _COLOURS.get(text.lower(), _PALETTE[names.index(text) % len(_PALETTE)])
        return (
            f'<circle cx="{x}" cy="{y}" r="{CELL * 0.4:g}" fill="{colour}" stroke="#333" stroke-width="1">'
            f"<title>{_esc(text)}</title></circle>"
        )
    size = CELL * 0.6 if len(text) == 1 else CELL * 0.3
    return (
        f'<text x="{x}" y="{y}" text-anchor="middle" dominant-baseline="central" font-family="sans-serif" '
        f'font-size="{size:g}" font-weight="bold">{_esc(text)}</text>'
    )


@dataclass(frozen=True, slots=True)
class BoardLayout:
    """Where :func:`board_svg` draws the cells: cell (r, c)'s top left corner is at
    (``left + c * cell + 1``, ``top + r * cell + 1``) in a picture ``width`` by ``height``."""

    rows: int
    columns: int
    left: float
    top: float
    cell: int
    width: float
    height: float


def board_layout(game: Game[S, M], state: S) -> BoardLayout | None:
    """The geometry of ``state``'s picture by :func:`board_svg` (None for a game with no board view):
    what a page needs to put something over a cell (the web application's clickable moves)."""
    board = capabilities(game).board
    if board is None:
        return None
    cells = board.board_cells(state)
    rows, columns = len(cells), max((len(row) for row in cells), default=0)
    left = CELL * 0.7 if len(board.row_labels) == rows else 0.0
    bottom = CELL * 0.7 if len(board.column_labels) == columns else 0.0
    return BoardLayout(rows, columns, left, 0.0, CELL, left + columns * CELL + 2, rows * CELL + bottom + 2)


def board_svg(game: Game[S, M], state: S) -> str | None:
    """``state``'s board as an SVG picture with its row and column labels and the winning line
    marked, or None for a game with no board view."""
    board = capabilities(game).board
    if board is None:
        return None
    cells = [[str(cell) for cell in row] for row in board.board_cells(state)]
    rows, columns = len(cells), max((len(row) for row in cells), default=0)
    row_labels, column_labels = list(board.row_labels), list(board.column_labels)
    lit = {(int(r), int(c)) for r, c in board.winning_cells(state) or ()}
    names = tuple(game.info.player_names)
    left = CELL * 0.7 if len(row_labels) == rows else 0.0
    bottom = CELL * 0.7 if len(column_labels) == columns else 0.0
    width, height = left + columns * CELL + 2, rows * CELL + bottom + 2
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
        f'viewBox="0 0 {width:g} {height:g}" class="gametree-board">'
    ]
    for r, row in enumerate(cells):
        for c, text in enumerate(row):
            x, y = left + c * CELL + 1, r * CELL + 1
            fill = "#ffe082" if (r, c) in lit else "#f5f5f5"
            parts.append(f'<rect x="{x:g}" y="{y:g}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="#888"/>')
            parts.append(_piece(text, names, x + CELL / 2, y + CELL / 2))
    label = 'font-family="sans-serif" font-size="12" fill="#666" text-anchor="middle" dominant-baseline="central"'
    if left:
        for r, text in enumerate(row_labels):
            parts.append(f'<text x="{left / 2:g}" y="{r * CELL + 1 + CELL / 2:g}" {label}>{_esc(text)}</text>')
    if bottom:
        for c, text in enumerate(column_labels):
            x = left + c * CELL + 1 + CELL / 2
            parts.append(f'<text x="{x:g}" y="{rows * CELL + 1 + bottom / 2:g}" {label}>{_esc(text)}</text>')
    parts.append("</svg>")
    return "".join(parts)
