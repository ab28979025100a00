"""HTML for notebooks: what :class:`gametree.SearchResult` and :class:`gametree.Position`
show in Jupyter (their ``_repr_html_`` methods call these functions).

Every text is escaped with :func:`html.escape`; the markup uses inline styles
only, so it looks the same wherever a notebook is shown.  The board is drawn
from the same cells, labels and winning line as the boards on tree diagrams
(:mod:`gametree.tree.board`), as an HTML table instead of a Graphviz label.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from .game import Game, State

if TYPE_CHECKING:
    from .search.results import MoveValue, SearchResult

__all__ = ["board_html", "position_html", "result_html"]

#: At most this many move rows in a result's table (the result itself holds them all).
MAX_MOVE_ROWS = 60

_TABLE = "border-collapse:collapse;font-size:90%"
_CELL = "border:1px solid #ccc;padding:1px 6px"
_NOTE = "color:#666;font-size:90%"


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _score(value: float) -> str:
    if float(value).is_integer():
        return f"{int(value):+d}" if value else "0"
    return f"{value:+.3f}"


def _outcome(result: SearchResult, move: MoveValue) -> str:
    """A move's outcome for the side that plays it: only a whole (proven) score says one."""
    unproven = not float(move.score).is_integer() or (not result.proven and abs(move.score) < 1)
    return "?" if unproven else "win" if move.score > 0 else "loss" if move.score < 0 else "draw"


def _value_line(result: SearchResult) -> str:
    side = f"player {result.to_move + 1}"
    if not result.proven:
        bounds = result.score_bounds  # set by an exact search cut short
        proven = f"; score proven in [{_score(bounds[0])}, {_score(bounds[1])}]" if bounds is not None else ""
        return f"unknown for {side}, to move (score {_score(result.score)}, not proven{proven})"
    plies = "" if result.plies_to_end is None else f" in {result.plies_to_end} plies"
    weak = "; weak solve: who wins, not how fast" if result.weak else ""
    return f"{result.value}{plies} (score {_score(result.score)} for {side}, to move{weak})"


def _stats_line(result: SearchResult) -> str:
    stats = result.stats
    parts = [f"{stats.nodes:,} nodes", f"{stats.seconds:.3f} s"]
    if stats.iterations is not None:
        parts.append(f"{stats.iterations:,} iterations")
    else:
        parts.append(f"{stats.cutoffs:,} cutoffs")
        if stats.cache_probes:
            parts.append(f"{stats.cache_hits:,} of {stats.cache_probes:,} cache probes hit")
    if result.depth is not None:
        parts.append(f"depth {result.depth}")
    return ", ".join(parts)


def result_html(result: SearchResult) -> str:
    """A search result as a small HTML summary: its value, a table of the moves (best first),
    the best moves, the principal variation and what the search cost."""
    monte_carlo = any(mv.visits is not None for mv in result.move_values)
    heads = ["move", "score", "outcome", "plies to end"] + (["visits", "mean"] if monte_carlo else [])
    rows = [f"<tr>{''.join(f'<th style={_q(_CELL)}>{h}</th>' for h in heads)}</tr>"]
    ordered = sorted(result.move_values, key=lambda mv: -mv.score)
    for mv in ordered[:MAX_MOVE_ROWS]:
        cells = [mv.move, _score(mv.score), _outcome(result, mv), "-" if mv.plies_to_end is None else mv.plies_to_end]
        if monte_carlo:
            cells += [f"{mv.visits or 0:,}", "-" if mv.mean is None else f"{mv.mean:+.3f}"]
        weight = "font-weight:bold;" if mv.best else ""
        rows.append(f"<tr style={_q(weight)}>{''.join(f'<td style={_q(_CELL)}>{_esc(c)}</td>' for c in cells)}</tr>")
    notes = []
    if len(ordered) > MAX_MOVE_ROWS:
        notes.append(f"{len(ordered) - MAX_MOVE_ROWS:,} more moves not shown")
    unscored = result.unscored  # moves a search cut short did not score
    if unscored:
        notes.append(f"not scored (cut short): {' '.join(unscored)}")
    parts = [
        f"<div><b>{_esc(result.algorithm)}</b>: {_esc(_value_line(result))}</div>",
        f"<table style={_q(_TABLE)}>{''.join(rows)}</table>",
        *(f"<div style={_q(_NOTE)}>{_esc(note)}</div>" for note in notes),
        f"<div>best: <code>{_esc(' '.join(result.best_moves))}</code>; line: <code>{_esc(' '.join(result.pv))}</code></div>",
        f"<div style={_q(_NOTE)}>{_esc(_stats_line(result))}</div>",
    ]
    return f'<div class="gametree-result">{"".join(parts)}</div>'


def _q(style: str) -> str:
    return f'"{_esc(style)}"'


def board_html(game: Game[Any, Any], state: State) -> str | None:
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
        rows.append(f"<tr><td style={_q(label)}></td>{''.join(f'<td style={_q(label)}>{_esc(c)}</td>' for c in columns)}</tr>")
    for r, line in enumerate(grid):
        tds = [f"<td style={_q(label)}>{_esc(row_names[r])}</td>"] if labelled else []
        for c, cell in enumerate(line):
            fill = "background:#ffd54f;" if (r, c) in lit else ""
            tds.append(f"<td style={_q(fill + square)}>{_esc(cell.strip())}</td>")
        rows.append(f"<tr>{''.join(tds)}</tr>")
    return f"<table style={_q('border-collapse:collapse')}>{''.join(rows)}</table>"


def position_html(game: Game[Any, Any], state: State) -> str:
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
