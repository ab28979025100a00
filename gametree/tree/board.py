"""Board pictures on tree nodes, for a game that is a :class:`gametree.game.BoardView`."""

from __future__ import annotations

from collections.abc import Callable

from ..game import Game, M, S, capabilities

__all__ = ["board_attributes", "board_labels", "last_move_cell"]


def board_labels(game: Game[S, M]) -> dict[str, tuple[str, ...]]:
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


def board_attributes(game: Game[S, M]) -> Callable[[S], dict[str, str]] | None:
    """For a game with a board view, a function giving a node's attributes ``cells``
    (rows of cells: tab-separated, one row a line) and ``highlight`` (``"row,col"``
    cells of a winning line); None for a game without one."""
    board = capabilities(game).board
    if board is None:
        return None
    cells_of, winning = board.board_cells, board.winning_cells

    def attributes(state: S) -> dict[str, str]:
        rows = [[str(cell) for cell in row] for row in cells_of(state)]
        return {
            "cells": "\n".join("\t".join(row) for row in rows),
            "highlight": " ".join(f"{r},{c}" for r, c in winning(state) or ()),
        }

    return attributes


def last_move_cell(game: Game[S, M]) -> Callable[[S, M], str] | None:
    """For a game with a board view, a function giving ``"row,col"`` of the cell a move marks."""
    board = capabilities(game).board
    if board is None:
        return None
    move_cell = board.move_cell

    def cell(state: S, move: M) -> str:
        r, c = move_cell(state, move)
        return f"{int(r)},{int(c)}"

    return cell
