"""HTML for notebooks: what a :class:`gametree.Position` shows in Jupyter (its ``_repr_html_``
calls :func:`position_html`, which draws the board with :mod:`gametree.board_svg`; a
:class:`gametree.SearchResult` draws itself, with :func:`gametree.search.results.result_html`),
and a solve's live progress in a cell (:func:`notebook_live`).

Every text is escaped with :func:`html.escape`; the markup uses inline styles
only, so it looks the same wherever a notebook is shown.  The board is drawn
from the same cells, labels and winning line as the boards on tree diagrams
(:mod:`gametree.tree.board`), as an HTML table instead of a Graphviz label.
"""

from __future__ import annotations

import contextlib
import html
import threading
from collections.abc import Callable, Iterator

from .game import Game, M, S

__all__ = ["board_html", "notebook_live", "position_html"]

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
    """A position: its board drawn as SVG (or, for a game without a board view, its text in ``<pre>``)
    and who is to move or has won."""
    from .board_svg import board_svg

    board = board_svg(game, state)
    picture = board if board is not None else f"<pre>{_esc(game.render(state))}</pre>"
    names = game.info.player_names
    outcome = game.outcome(state)
    if outcome is None:
        note = f"{names[game.to_move(state)]} to move"
    else:
        note = "draw" if outcome.winner is None else f"{names[outcome.winner]} has won"
    return f'<div class="gametree-position">{picture}<div style={_q(_NOTE)}>{_esc(note)}</div></div>'


#: Seconds between two updates of a notebook's progress line.
REFRESH = 0.25


@contextlib.contextmanager
def notebook_live(text: Callable[[], str]) -> Iterator[None]:
    """Show ``text()`` in the running notebook cell, updated in place every :data:`REFRESH`
    seconds while the block runs (in this thread), and removed when it ends (IPython's display
    with a display id: no widget library needed)."""
    from IPython.display import HTML, display  # type: ignore[import-not-found, unused-ignore]

    def shown() -> object:
        return HTML(f"<pre style={_q(_NOTE)}>{_esc(text())}</pre>")

    handle = display(shown(), display_id=True)
    stop = threading.Event()

    def refresh() -> None:
        while not stop.wait(REFRESH):
            handle.update(shown())

    updater = threading.Thread(target=refresh, name="gametree-progress", daemon=True)
    updater.start()
    try:
        yield
    finally:
        stop.set()
        updater.join()
        handle.update(HTML(""))
