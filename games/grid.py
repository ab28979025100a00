"""Boards of square cells with lettered rows and numbered columns (``A1`` is the top left cell),
one bitboard per player (bit ``r * width + c`` is row ``r``, column ``c``): what tic-tac-toe and
Trio share.

:func:`grid_lines` lists the lines of ``k`` cells; :class:`LetteredGrid` gives a game the board
view (:class:`gametree.game.BoardView`: row and column labels, each cell's player, the cell a move
marks, the cells of completed lines), the one-line help on typing a move, and moves as text;
:func:`size_options` the options that size the board, :func:`board_sides` the sides they give;
:func:`permuted` moves a bitboard's cells by a symmetry of the board.
"""

from __future__ import annotations

from collections.abc import Sequence

from gametree import Option

__all__ = ["LetteredGrid", "board_sides", "grid_lines", "permuted", "size_options"]


def size_options(side: int) -> tuple[Option, Option, Option]:
    """The board's size as a game's options: ``--size`` (``side`` by default), ``--width``, ``--height``."""
    return (
        Option("size", int, None, f"board is SIZE x SIZE (default {side})"),
        Option("width", int, None, "board width (columns); overrides --size"),
        Option("height", int, None, "board height (rows); overrides --size"),
    )


def board_sides(size: int | None, width: int | None, height: int | None, side: int) -> tuple[int, int]:
    """The board's width and height from :func:`size_options`' values (``side``: the size by default)."""
    square = side if size is None else size
    return (width if width is not None else square, height if height is not None else square)


def grid_lines(width: int, height: int, k: int) -> list[int]:
    """Every line of ``k`` cells on the board (across, down and both diagonals), as a bit mask,
    from each cell in turn (with ``k == 1`` each cell is listed once per direction)."""
    lines = []
    for r in range(height):
        for c in range(width):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_r, end_c = r + dr * (k - 1), c + dc * (k - 1)
                if 0 <= end_r < height and 0 <= end_c < width:
                    lines.append(sum(1 << ((r + dr * i) * width + c + dc * i) for i in range(k)))
    return lines


def permuted(bits: int, perm: Sequence[int]) -> int:
    """A bitboard with each cell ``i`` moved to ``perm[i]`` (a symmetry of the board)."""
    out = 0
    while bits:
        low = bits & -bits
        out |= 1 << perm[low.bit_length() - 1]
        bits ^= low
    return out


class LetteredGrid:
    """The board view of a ``width`` x ``height`` grid whose moves are cell numbers (see the module)."""

    width: int
    height: int
    cells: int
    lines: Sequence[int]

    @property
    def row_labels(self) -> tuple[str, ...]:
        """Row letters, top row first: ("A", "B", "C") on 3x3."""
        return tuple(chr(ord("A") + r) for r in range(self.height))

    @property
    def column_labels(self) -> tuple[str, ...]:
        """Column numbers, left first: ("1", "2", "3") on 3x3."""
        return tuple(str(c + 1) for c in range(self.width))

    @property
    def move_help(self) -> str:
        """One line on how to type a move (shown by `gametree play`)."""
        last = f"{chr(ord('A') + self.height - 1)}{self.width}"
        return f"type a cell as row letter and column number (A1-{last}) or as a cell number 1-{self.cells}, e.g. B2"

    def format_move(self, state: object, move: int) -> str:
        r, c = divmod(move, self.width)
        return f"{chr(ord('A') + r)}{c + 1}"

    def move_cell(self, state: object, move: int) -> tuple[int, int]:
        """(row, column) of the cell ``move`` marks."""
        return divmod(move, self.width)

    def cells_of(self, marks: Sequence[int], names: Sequence[str]) -> tuple[tuple[str, ...], ...]:
        """Rows top to bottom; each cell ``""`` or the name of the player whose bitboard in ``marks`` holds it."""
        w = self.width

        def mark(cell: int) -> str:
            for bits, name in zip(marks, names):
                if bits >> cell & 1:
                    return name
            return ""

        return tuple(tuple(mark(r * w + c) for c in range(w)) for r in range(self.height))

    def completed(self, marks: int) -> tuple[tuple[int, int], ...]:
        """The cells of every line that ``marks`` (one player's bitboard) fills, as (row, column)."""
        union = 0
        for line in self.lines:
            if marks & line == line:
                union |= line
        return tuple(divmod(i, self.width) for i in range(self.cells) if union >> i & 1)
