"""HTML for notebooks: what a :class:`gametree.Position` shows in Jupyter (its ``_repr_html_``
calls :func:`position_html`; a :class:`gametree.SearchResult` draws itself, with
:func:`gametree.search.results.result_html`).

Every text is escaped with :func:`html.escape`; the markup uses inline styles
only, so it looks the same wherever a notebook is shown.  The board is drawn
from the same cells, labels and winning line as the boards on tree diagrams
(:mod:`gametree.tree.board`), as an HTML table instead of a Graphviz label.
"""

from __future__ import annotations

import html

from .game import Game, M, S

__all__ = ["board_html", "position_html"]

_NOTE = "color:#666;font-size:90%"


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _q(style: str) -> str:
    return f'"{_esc(style)}"'


def board_html(game: Game[S, M], state: S) -> str | None:
    """The board of ``state`` as an HTML table with its row and column labels and the
    winning line marked, or None for a game that does not draw its board as cells."""
    from .tree.board import board_attributes, board_labels

    attributes = board_attributes(game)
    if attributes is None:
        return None
    data = attributes(state)
    grid = [line.split("\t") for line in str(data["cells"]).split("\n")]
    lit = {tuple(int(n) for n in cell.split(",")) for cell in str(data["highlight"]).split()}
    labels = board_labels(game)
    columns, row_names = labels.get("board_columns", ()), labels.get("board_rows", ())
    labelled = len(columns) == len(grid[0]) and len(row_names) == len(grid)
    square = "border:1px solid #888;width:1.6em;height:1.6em;text-align:center;font-family:monospace"
    label = "border:none;color:#666;font-size:80%;text-align:center"
    rows = []
    if labelled:
        rows.append(
            f"<tr><td style={_q(label)}></td>{''.join(f'<td style={_q(label)}>{_esc(c)}</td>' for c in columns)}</tr>"
        )
    for r, line in enumerate(grid):
        tds = [f"<td style={_q(label)}>{_esc(row_names[r])}</td>"] if labelled else []
        for c, cell in enumerate(line):
            fill = "background:#ffd54f;" if (r, c) in lit else ""
            tds.append(f"<td style={_q(fill + square)}>{_esc(cell.strip())}</td>")
        rows.append(f"<tr>{''.join(tds)}</tr>")
    return f"<table style={_q('border-collapse:collapse')}>{''.join(rows)}</table>"


def position_html(game: Game[S, M], state: S) -> str:
    """A position: its board (or, for a game without one, its text in ``<pre>``) and who is to move or has won."""
    board = board_html(game, state)
    picture = board if board is not None else f"<pre>{_esc(game.render(state))}</pre>"
    names = game.info.player_names
    outcome = game.outcome(state)
    if outcome is None:
        note = f"{names[game.to_move(state)]} to move"
    else:
        note = "draw" if outcome.winner is None else f"{names[outcome.winner]} has won"
    return f'<div class="gametree-position">{picture}<div style={_q(_NOTE)}>{_esc(note)}</div></div>'
