"""Dodgem: Colin Vout's race of cars across an n x n board (Winning Ways, Berlekamp, Conway and Guy).

The rules (see docs/dodgem.md for the sources): n-1 blue cars start on the left
edge and n-1 red cars on the bottom edge, the bottom-left corner empty.  Blue
(the first player) moves one car one square right (forward), up or down; red
moves one car up (forward), left or right.  A car moves only onto an empty
square, and leaves the board only by a forward move over the far edge (blue's
over the right edge, red's over the top).  **A player who has no legal move on
their turn wins**: all their cars are gone, or the ones left are blocked in
(you must leave your opponent a move).

Cars can shuffle sideways for ever, so positions repeat (``GameInfo.repeats``):
only retrograde analysis (``gametree solve dodgem``) solves it.  The 3x3 game
is a first-player win; 4x4 and 5x5 are draws by endless play (des Jardins, 1996).

Squares are named like a chess board: columns ``a``, ``b``, ... from the left,
rows ``1``, ``2``, ... from the bottom.  A move is the car's square and a
direction, ``N``, ``E``, ``S`` or ``W``: ``a2E`` moves the blue car on a2 to b2;
``c2E`` takes a blue car on the right edge off the board.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from gametree import (
    Game,
    GameInfo,
    GameSpec,
    IllegalMoveError,
    MoveParseError,
    Option,
    Outcome,
    hookimpl,
)

__all__ = ["BLUE", "EMPTY", "RED", "Dodgem", "DodgemState"]

EMPTY, BLUE, RED = 0, 1, 2
MIN_SIZE, MAX_SIZE = 2, 8
#: Each player's directions: (letter, row step, column step); rows count from the bottom, forward first.
DIRECTIONS = {
    BLUE: (("E", 0, 1), ("N", 1, 0), ("S", -1, 0)),
    RED: (("N", 1, 0), ("W", 0, -1), ("E", 0, 1)),
}
_NAMES = {"N": "up", "E": "right", "S": "down", "W": "left"}


class DodgemState(NamedTuple):
    """The cells row by row from the bottom (EMPTY, BLUE or RED), the player to move (0 blue, 1 red),
    and the moves played."""

    cells: tuple[int, ...]
    mover: int
    moves: int


#: A move: the car's cell (row * n + column, rows from the bottom) and its direction letter.
DodgemMove = tuple[int, str]


class Dodgem(Game[DodgemState, DodgemMove]):
    """Dodgem on a ``size`` x ``size`` board with ``size - 1`` cars a side."""

    def __init__(self, size: int = 3) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
            raise ValueError(f"--size: Dodgem is played on a board of {MIN_SIZE} to {MAX_SIZE} squares a side")
        self.size = size
        # No game length bounds a game that repeats: max_plies is only what depth-aware scores would
        # count from, and retrograde analysis does not use them for a game whose positions repeat.
        self.info = GameInfo(max_plies=2 * size**3, player_names=("blue", "red"), repeats=True)
        # Each car's moves from each cell, forward first: (letter, target cell or -1 for off the board).
        self._steps = {
            car: [
                [(step[0], to) for step in DIRECTIONS[car] if (to := self._target(cell, step, car)) is not None]
                for cell in range(size * size)
            ]
            for car in (BLUE, RED)
        }
        self._where = {car: [dict(steps) for steps in self._steps[car]] for car in (BLUE, RED)}

    def __repr__(self) -> str:
        return f"Dodgem(size={self.size})"

    def options(self) -> dict[str, Any]:
        return {"size": self.size}

    @property
    def name(self) -> str:
        return f"Dodgem {self.size}x{self.size}"

    # -- the protocol ------------------------------------------------------------------
    def initial_state(self) -> DodgemState:
        n = self.size
        cells = [EMPTY] * (n * n)
        for i in range(1, n):
            cells[i * n] = BLUE  # the left edge, above the corner
            cells[i] = RED  # the bottom edge, right of the corner
        return DodgemState(tuple(cells), 0, 0)

    def to_move(self, state: DodgemState) -> int:
        return state.mover

    def ply(self, state: DodgemState) -> int:
        return state.moves

    def _target(self, cell: int, step: tuple[str, int, int], car: int) -> int | None:
        """Where ``car`` on ``cell`` goes by ``step``: a cell, -1 off the board (forward over the far
        edge), None off another edge (illegal)."""
        n = self.size
        row, col = divmod(cell, n)
        _, dr, dc = step
        r, c = row + dr, col + dc
        if 0 <= r < n and 0 <= c < n:
            return r * n + c
        return -1 if (car == BLUE and c == n) or (car == RED and r == n) else None

    def legal_moves(self, state: DodgemState) -> list[DodgemMove]:
        """Every car's moves, car by car from the bottom-left, each car's forward move first."""
        car = BLUE if state.mover == 0 else RED
        cells = state.cells
        steps = self._steps[car]
        return [
            (cell, letter)
            for cell, here in enumerate(cells)
            if here == car
            for letter, to in steps[cell]
            if to < 0 or cells[to] == EMPTY
        ]

    def play(self, state: DodgemState, move: DodgemMove) -> DodgemState:
        cell, letter = move
        car = state.cells[cell]
        to = self._where[car][cell][letter]
        cells = list(state.cells)
        cells[cell] = EMPTY
        if to >= 0:
            cells[to] = car
        return DodgemState(tuple(cells), 1 - state.mover, state.moves + 1)

    def outcome(self, state: DodgemState) -> Outcome | None:
        """The player to move wins when they have no legal move (no car left, or all blocked in)."""
        car = BLUE if state.mover == 0 else RED
        cells = state.cells
        steps = self._steps[car]
        for cell, here in enumerate(cells):
            if here == car and any(to < 0 or cells[to] == EMPTY for _, to in steps[cell]):
                return None
        return Outcome(state.mover)

    def key(self, state: DodgemState) -> int:
        """The cells (a byte each) and the player to move, not the ply: a position that comes back
        is the same position."""
        return int.from_bytes(bytes(state.cells), "big") << 1 | state.mover

    # -- text ----------------------------------------------------------------------------
    def square(self, cell: int) -> str:
        row, col = divmod(cell, self.size)
        return f"{chr(ord('a') + col)}{row + 1}"

    def format_move(self, state: DodgemState, move: DodgemMove) -> str:
        return f"{self.square(move[0])}{move[1]}"

    def parse_move(self, state: DodgemState, text: str) -> DodgemMove:
        t = text.strip()
        shown = t if len(t) <= 40 else t[:37] + "..."
        n = self.size
        last = chr(ord("a") + n - 1)
        if len(t) != 3 or not ("a" <= t[0].lower() <= last and t[1] in "123456789"[:n] and t[2].upper() in "NESW"):
            raise MoveParseError(
                f"cannot read {shown!r}: write the car's square and a direction N, E, S or W"
                f" (a{n - 1}E moves the car on a{n - 1} right; squares a1..{last}{n})"
            )
        cell = (int(t[1]) - 1) * n + ord(t[0].lower()) - ord("a")
        return (cell, t[2].upper())

    def check_move(self, state: DodgemState, move: DodgemMove) -> None:
        cell, letter = move
        n = self.size
        if not 0 <= cell < n * n or letter not in _NAMES:
            raise IllegalMoveError("no such square or direction")
        mine = BLUE if state.mover == 0 else RED
        who = "blue" if mine == BLUE else "red"
        here = state.cells[cell]
        if here != mine:
            whose = "an empty square" if here == EMPTY else "the other player's car"
            raise IllegalMoveError(f"{self.square(cell)} is {whose}: {who} moves a {who} car")
        step = next((s for s in DIRECTIONS[mine] if s[0] == letter), None)
        if step is None:
            raise IllegalMoveError(f"{who} cars never move {_NAMES[letter]} (backwards)")
        to = self._target(cell, step, mine)
        if to is None:
            raise IllegalMoveError(f"a car leaves the board only by a forward move, not {_NAMES[letter]}")
        if to >= 0 and state.cells[to] != EMPTY:
            whose = "your own" if state.cells[to] == mine else "the other player's"
            raise IllegalMoveError(f"{self.square(to)} is taken by {whose} car: cars move only onto empty squares")

    @property
    def move_help(self) -> str:
        return "type the car's square and a direction N, E, S or W, e.g. a2E (blue: E N S; red: N W E)"

    def render(self, state: DodgemState) -> str:
        n = self.size
        lines = []
        for row in range(n - 1, -1, -1):
            marks = " ".join(".BR"[state.cells[row * n + c]] for c in range(n))
            lines.append(f"{row + 1} {marks}")
        lines.append("  " + " ".join(chr(ord("a") + c) for c in range(n)))
        gone = [n - 1 - state.cells.count(car) for car in (BLUE, RED)]
        lines.append(f"off the board: blue {gone[0]}, red {gone[1]}; {('blue', 'red')[state.mover]} to move")
        return "\n".join(lines)

    # -- BoardView ----------------------------------------------------------------------------
    @property
    def row_labels(self) -> Sequence[str]:
        return [str(r) for r in range(self.size, 0, -1)]

    @property
    def column_labels(self) -> Sequence[str]:
        return [chr(ord("a") + c) for c in range(self.size)]

    def board_cells(self, state: DodgemState) -> Sequence[Sequence[str]]:
        n = self.size
        return [[("", "B", "R")[state.cells[row * n + c]] for c in range(n)] for row in range(n - 1, -1, -1)]

    def move_cell(self, state: DodgemState, move: DodgemMove) -> tuple[int, int]:
        """The square the car moves to (the square it leaves, for a car driven off the board)."""
        cell, letter = move
        car = state.cells[cell]
        step = next((s for s in DIRECTIONS[car] if s[0] == letter), None) if car != EMPTY else None
        to = self._target(cell, step, car) if step is not None else None
        row, col = divmod(cell if to is None or to < 0 else to, self.size)
        return (self.size - 1 - row, col)

    def winning_cells(self, state: DodgemState) -> Iterable[tuple[int, int]]:
        return ()


def _make(size: int = 3) -> Dodgem:
    return Dodgem(size)


@hookimpl
def gametree_register_games(registry) -> None:  # type: ignore[no-untyped-def]
    registry.add_game(
        GameSpec(
            name="dodgem",
            factory=_make,
            summary="Dodgem: race n-1 cars across an n x n board; positions repeat (retrograde analysis)",
            options=(Option("size", int, 3, f"board size, {MIN_SIZE} to {MAX_SIZE} squares a side"),),
        )
    )
