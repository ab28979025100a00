"""Board pictures on tree nodes, for a game that is a :class:`gametree.game.BoardView`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..game import Game, Move, State, capabilities

__all__ = ["board_attributes", "board_labels", "last_move_cell"]


def board_labels(game: Game[Any, Any]) -> dict[str, tuple[str, ...]]:
    """The graph attributes ``board_rows`` and ``board_columns`` (empty for a game with no board view)."""
    board = capabilities(game).board
    if board is None:
        return {}
    out = {}
    for labels, key in ((board.row_labels, "board_rows"), (board.column_labels, "board_columns")):
        texts = tuple(str(x) for x in labels)
        if texts:
            out[key] = texts
    return out


def board_attributes(game: Game[Any, Any]) -> Callable[[Any], dict[str, Any]] | None:
    """For a game with a board view, a function giving a node's attributes ``cells``
    (rows of cells: tab-separated, one row a line) and ``highlight`` (``"row,col"``
    cells of a winning line); None for a game without one."""
    board = capabilities(game).board
    if board is None:
        return None
    cells_of, winning = board.board_cells, board.winning_cells

    def attributes(state: State) -> dict[str, Any]:
        rows = [[str(cell) for cell in row] for row in cells_of(state)]
        return {"cells": "\n".join("\t".join(row) for row in rows), "highlight": " ".join(f"{r},{c}" for r, c in winning(state) or ())}

    return attributes


def last_move_cell(game: Game[Any, Any]) -> Callable[[Any, Any], str] | None:
    """For a game with a board view, a function giving ``"row,col"`` of the cell a move marks."""
    board = capabilities(game).board
    if board is None:
        return None
    move_cell = board.move_cell

    def cell(state: State, move: Move) -> str:
        r, c = move_cell(state, move)
        return f"{int(r)},{int(c)}"

    return cell
