"""Trio: three-player tic-tac-toe (three players X, O and Y; k in a row on a small board).

The three-player m,n,k-game: X, O and Y take turns, in that order, marking an
empty cell of a ``width`` x ``height`` board; whoever first completes ``k`` of
their own marks in a row (across, down or diagonally) wins.  Payoffs: 1 for
the winner, 0 for the other two; a full board without a line is a draw, 0 for
all three.  So the payoffs are not constant-sum (``zero_sum`` is False), each
lies in [0, 1] and they sum to at most 1: max^n can prune shallowly
(``GameInfo.payoff_bounds`` and ``payoff_sum``).

Cells are bits of three ints, one per player: bit ``r * width + c`` is the
cell in row ``r`` (A, B, ... from the top) and column ``c`` (1, 2, ... from
the left).  Moves are cell indices internally and written ``A1``, as in
tic-tac-toe, or as cell numbers ``1..width*height``.

The heuristic (:meth:`Trio.evaluate_all`) counts, for each player, the lines
still open to that player alone, weighted by how many of its marks they hold,
and shares out less than 1 in proportion: estimates in [0, 1) summing to
less than 1, inside the declared bounds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from gametree import Game, GameInfo, GameSpec, IllegalMoveError, MoveParseError, Option, Outcome, hookimpl

from .grid import LetteredGrid, board_sides, grid_lines, permuted, size_options

__all__ = ["PLAYER_NAMES", "Trio", "TrioState"]

#: The players, in the order they move.
PLAYER_NAMES = ("X", "O", "Y")
MAX_SIDE = 26  # row letters A..Z
#: The most cells a board may have (states are small ints; the search is in Python).
MAX_CELLS = 64

_WINS = (Outcome(0), Outcome(1), Outcome(2))
_DRAW = Outcome(None)


class TrioState(NamedTuple):
    """Each player's marks as a bitboard (X, O, Y), the moves played, and the winner if any."""

    marks: tuple[int, int, int]
    moves: int
    winner: int | None


class Trio(LetteredGrid, Game[TrioState, int]):
    """Three-player k-in-a-row on a ``width`` x ``height`` board (see the module)."""

    def __init__(self, width: int = 4, height: int = 4, k: int = 3) -> None:
        if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
            raise ValueError(f"the board's sides are 1 to {MAX_SIDE} cells (not {width}x{height})")
        if width * height > MAX_CELLS:
            raise ValueError(f"a board has at most {MAX_CELLS} cells (not {width}x{height} = {width * height})")
        if not 1 <= k <= max(width, height):
            raise ValueError(f"--k {k}: a line has 1 to {max(width, height)} cells on a {width}x{height} board")
        self.width, self.height, self.k = width, height, k
        self.cells = width * height
        self.full = (1 << self.cells) - 1
        self.lines = grid_lines(width, height, k)
        self.through = [[line for line in self.lines if line >> cell & 1] for cell in range(self.cells)]
        self.info = GameInfo(
            max_plies=self.cells,
            players=3,
            zero_sum=False,
            player_names=PLAYER_NAMES,
            payoff_bounds=(0, 1),
            payoff_sum=1,
        )
        self._permutations = self._symmetry_permutations()

    def __repr__(self) -> str:
        return f"Trio(width={self.width}, height={self.height}, k={self.k})"

    @property
    def name(self) -> str:
        return f"trio {self.width}x{self.height}, {self.k} in a row"

    def options(self) -> dict[str, Any]:
        """The options that recreate this game."""
        return {"width": self.width, "height": self.height, "k": self.k}

    # -- the protocol ------------------------------------------------------------------
    def initial_state(self) -> TrioState:
        return TrioState((0, 0, 0), 0, None)

    def to_move(self, state: TrioState) -> int:
        return state.moves % 3

    def ply(self, state: TrioState) -> int:
        return state.moves

    def legal_moves(self, state: TrioState) -> list[int]:
        if state.winner is not None:
            return []
        taken = state.marks[0] | state.marks[1] | state.marks[2]
        return [cell for cell in range(self.cells) if not taken >> cell & 1]

    def play(self, state: TrioState, move: int) -> TrioState:
        me = state.moves % 3
        marks = list(state.marks)
        mine = marks[me] | (1 << move)
        marks[me] = mine
        won = any(mine & line == line for line in self.through[move])
        return TrioState((marks[0], marks[1], marks[2]), state.moves + 1, me if won else None)

    def outcome(self, state: TrioState) -> Outcome | None:
        if state.winner is not None:
            return _WINS[state.winner]
        return _DRAW if state.moves == self.cells else None

    def key(self, state: TrioState) -> int:
        """The three bitboards packed into one int (the ply and the winner follow from them)."""
        x, o, y = state.marks
        return x | o << self.cells | y << (2 * self.cells)

    # -- symmetries ----------------------------------------------------------------------
    def _symmetry_permutations(self) -> tuple[tuple[int, ...], ...]:
        """Where each cell goes under each symmetry of the board (8 of a square, 4 of a rectangle)."""
        w, h = self.width, self.height
        maps: list[Callable[[int, int], tuple[int, int]]] = [
            lambda r, c: (r, c),
            lambda r, c: (r, w - 1 - c),
            lambda r, c: (h - 1 - r, c),
        ]
        maps.append(lambda r, c: (h - 1 - r, w - 1 - c))
        if w == h:
            maps += [
                lambda r, c: (c, r),
                lambda r, c: (w - 1 - c, r),
                lambda r, c: (c, h - 1 - r),
                lambda r, c: (w - 1 - c, h - 1 - r),
            ]
        perms = []
        for f in maps:
            perm = []
            for cell in range(self.cells):
                r, c = f(*divmod(cell, w))
                perm.append(r * w + c)
            perms.append(tuple(perm))
        return tuple(perms)

    def symmetries(self, state: TrioState) -> list[TrioState]:
        """The position under each symmetry of the board (itself first)."""
        images = []
        for perm in self._permutations:
            x, o, y = (permuted(m, perm) for m in state.marks)
            images.append(TrioState((x, o, y), state.moves, state.winner))
        return images

    def canonical_key(self, state: TrioState) -> int:
        """The smallest key among the position's symmetric images."""
        return min(self.key(image) for image in self.symmetries(state))

    # -- heuristic -----------------------------------------------------------------------
    def evaluate_all(self, state: TrioState) -> tuple[float, float, float]:
        """Each player's estimated payoff: its share of the open lines (weighted 4 ** its marks in
        them) out of all players' weights plus the number of lines; a finished game its payoffs."""
        if state.winner is not None:
            return tuple(1.0 if p == state.winner else 0.0 for p in range(3))  # type: ignore[return-value]
        marks = state.marks
        weights = [0, 0, 0]
        for line in self.lines:
            holders = [p for p in range(3) if marks[p] & line]
            if len(holders) == 1:
                p = holders[0]
                weights[p] += 4 ** (marks[p] & line).bit_count()
        total = sum(weights) + len(self.lines) + 1
        return (weights[0] / total, weights[1] / total, weights[2] / total)

    # -- text ----------------------------------------------------------------------------
    def parse_move(self, state: TrioState, text: str) -> int:
        t = text.strip().upper()
        if not t:
            raise MoveParseError("empty move")
        shown = t if len(t) <= 60 else t[:57] + "..."
        if t.isdecimal():
            number = int(t) if len(t) <= 6 else 0
            if not 1 <= number <= self.cells:
                raise MoveParseError(f"cell {shown} is off the board (cells are 1..{self.cells})")
            return number - 1
        row, col = t[0], t[1:]
        if not ("A" <= row <= "Z" and col.isdecimal()):
            raise MoveParseError(
                f"cannot read {shown!r}: write a row letter and column number like A1, or a cell number 1..{self.cells}"
            )
        r, c = ord(row) - ord("A"), (int(col) - 1 if len(col) <= 6 else -1)
        if not (0 <= r < self.height and 0 <= c < self.width):
            raise MoveParseError(
                f"{shown} is off the board (rows A..{chr(ord('A') + self.height - 1)}, columns 1..{self.width})"
            )
        return r * self.width + c

    def check_move(self, state: TrioState, move: int) -> None:
        """Raise :class:`IllegalMoveError` saying why ``move`` cannot be played."""
        if not 0 <= move < self.cells:
            raise IllegalMoveError(f"cell {move + 1} is off the board (cells are 1..{self.cells})")
        if state.winner is not None:
            raise IllegalMoveError(f"the game is over: {PLAYER_NAMES[state.winner]} has won")
        if (state.marks[0] | state.marks[1] | state.marks[2]) >> move & 1:
            raise IllegalMoveError(f"{self.format_move(state, move)} is already taken")

    def render(self, state: TrioState) -> str:
        rows = ["  " + " ".join(f"{c + 1:>2}" for c in range(self.width))]
        for r, cells in enumerate(self.board_cells(state)):
            rows.append(f"{chr(ord('A') + r)} " + " ".join(f"{cell or '.':>2}" for cell in cells))
        return "\n".join(rows)

    # -- the board (BoardView; labels, move_cell, move_help, format_move: LetteredGrid) ---------------
    def board_cells(self, state: TrioState) -> tuple[tuple[str, ...], ...]:
        """Rows top to bottom; each cell "", "X", "O" or "Y"."""
        return self.cells_of(state.marks, PLAYER_NAMES)

    def winning_cells(self, state: TrioState) -> tuple[tuple[int, int], ...]:
        """The cells of the winner's completed line(s), else ()."""
        if state.winner is None:
            return ()
        return self.completed(state.marks[state.winner])


def _make(size: int | None = None, width: int | None = None, height: int | None = None, k: int = 3) -> Trio:
    if size is not None and not 1 <= size <= MAX_SIDE:
        raise ValueError(f"--size {size}: the board's sides are 1 to {MAX_SIDE} cells")
    return Trio(*board_sides(size, width, height, 4), k)


@hookimpl
def gametree_register_games(registry) -> None:  # type: ignore[no-untyped-def]
    registry.add_game(
        GameSpec(
            name="trio",
            factory=_make,
            summary="three-player tic-tac-toe: X, O and Y, k in a row on a small board (max^n, paranoid)",
            options=(
                *size_options(4),
                Option("k", int, 3, "marks in a row to win"),
            ),
        )
    )
