"""Hexapawn, a gametree plugin: the example of docs/plugins.md.

Martin Gardner's Hexapawn (1962): on a 3x3 board each side has three pawns
on its back row.  A pawn moves one square straight forward to an empty square,
or one square diagonally forward to capture an enemy pawn.  You win by
getting a pawn to the far row, by capturing every enemy pawn, or when your
opponent, to move, has no legal move.  There are no draws.

The board can be wider or taller with ``--width`` and ``--height``.  Files
are letters from the left (a, b, c), ranks are numbers from White's side
(1 at the bottom), and a move is written ``b1-b2`` or, for a capture,
``b2xc3``.

``compiled_rules`` offers the rules as numba functions too (the module
gametree_hexapawn_rules, imported only when the compiled engine is built), for
gametree's compiled engine (``--engine compiled``);
without numba, or for a board they do not cover, the Python rules here serve.
"""

from __future__ import annotations

from typing import NamedTuple

from gametree import (
    CompiledRules,
    Game,
    GameInfo,
    GameSpec,
    IllegalMoveError,
    MoveParseError,
    Option,
    Outcome,
    RuleSet,
    hookimpl,
)

__all__ = ["HexState", "Hexapawn"]

Move = tuple[int, int]  # (from cell, to cell); cell = row * width + column, row 0 at the top


class HexBoard(NamedTuple):
    """A board's constants for the compiled rules (gametree_hexapawn_rules reads them by name)."""

    cells: int
    width: int
    height: int
    board: int  # every cell
    row: int  # the first row
    first_column: int
    last_column: int


def _compiled_functions() -> RuleSet:
    """The compiled rules (numba is imported here: only gametree's compiled engine asks)."""
    import gametree_hexapawn_rules

    return gametree_hexapawn_rules.RULES


class HexState(NamedTuple):
    """White's and Black's pawns as bitboards, and the number of moves played."""

    white: int
    black: int
    moves: int


class Hexapawn(Game[HexState, Move]):
    """Hexapawn on a ``width`` x ``height`` board.  White (player 0) moves up the board."""

    def __init__(self, width: int = 3, height: int = 3) -> None:
        if not (1 <= width <= 26 and 3 <= height <= 9):
            raise ValueError(f"board {width}x{height}: width must be 1..26 and height 3..9")
        self.width, self.height = width, height
        self.cells = width * height
        # Every move advances a pawn one row; a pawn can advance height - 2 rows before
        # the move that ends the game, so no game is longer than this.
        longest = 2 * width * (height - 2) + 1
        self.info = GameInfo(max_plies=longest, player_names=("White", "Black"))
        self.top_row = (1 << width) - 1  # White's goal
        self.bottom_row = self.top_row << (width * (height - 1))  # Black's goal and White's start

    @property
    def name(self) -> str:
        """A title for people (``gametree play`` shows it)."""
        return f"{self.width}x{self.height} Hexapawn"

    # -- the required protocol members -----------------------------------------------------
    def initial_state(self) -> HexState:
        return HexState(white=self.bottom_row, black=self.top_row, moves=0)

    def to_move(self, state: HexState) -> int:
        return state.moves % 2

    def ply(self, state: HexState) -> int:
        return state.moves

    def legal_moves(self, state: HexState) -> list[Move]:
        """Captures first (a good guess at the best moves), then advances."""
        if self._reached_goal(state):
            return []
        w = self.width
        if state.moves % 2 == 0:
            mine, theirs, step = state.white, state.black, -w
        else:
            mine, theirs, step = state.black, state.white, w
        captures, advances = [], []
        for cell in range(self.cells):
            if not mine >> cell & 1:
                continue
            ahead = cell + step
            if not 0 <= ahead < self.cells:
                continue
            if not (mine | theirs) >> ahead & 1:
                advances.append((cell, ahead))
            col = cell % w
            for target, ok in ((ahead - 1, col > 0), (ahead + 1, col < w - 1)):
                if ok and theirs >> target & 1:
                    captures.append((cell, target))
        return captures + advances

    def play(self, state: HexState, move: Move) -> HexState:
        frm, to = move
        lift, land = 1 << frm, 1 << to
        if state.moves % 2 == 0:
            return HexState((state.white & ~lift) | land, state.black & ~land, state.moves + 1)
        return HexState(state.white & ~land, (state.black & ~lift) | land, state.moves + 1)

    def outcome(self, state: HexState) -> Outcome | None:
        # Whoever just moved wins if a pawn reached the far row, or if the side to
        # move has no pawn or no move left.  Hexapawn has no other way to end.
        if state.moves == 0:
            return None
        if self._reached_goal(state) or not self.legal_moves(state):
            return Outcome(winner=(state.moves - 1) % 2)
        return None

    def key(self, state: HexState) -> int:
        # The same pawns can stand in the same places after different numbers of
        # moves (a capture removes a pawn), so the ply is part of the key.
        n = self.cells
        return state.white | state.black << n | state.moves << (2 * n)

    def parse_move(self, state: HexState, text: str) -> Move:
        t = text.strip().lower().replace("x", "-")
        frm, sep, to = t.partition("-")
        if not sep:
            raise MoveParseError(f"cannot read {text.strip()!r}: write a move like b1-b2, or b2xc3 for a capture")
        return (self._cell(frm), self._cell(to))

    def format_move(self, state: HexState, move: Move) -> str:
        frm, to = move
        capture = frm % self.width != to % self.width
        return f"{self._name(frm)}{'x' if capture else '-'}{self._name(to)}"

    def render(self, state: HexState) -> str:
        rows = []
        for r in range(self.height):
            marks = [
                "W"
                if state.white >> (r * self.width + c) & 1
                else "B"
                if state.black >> (r * self.width + c) & 1
                else "."
                for c in range(self.width)
            ]
            rows.append(f"{self.height - r} {' '.join(marks)}")
        rows.append("  " + " ".join(self.column_labels))
        return "\n".join(rows)

    # -- optional members --------------------------------------------------------------------
    def check_move(self, state: HexState, move: Move) -> None:
        """Say why a move is illegal (``gametree play`` shows the reason)."""
        frm, to = move
        mine = state.white if state.moves % 2 == 0 else state.black
        if not mine >> frm & 1:
            raise IllegalMoveError(f"there is no {self.info.player_names[state.moves % 2]} pawn on {self._name(frm)}")
        if move not in self.legal_moves(state):
            raise IllegalMoveError(f"a pawn on {self._name(frm)} cannot go to {self._name(to)}")

    def canonical_key(self, state: HexState) -> int:
        """The board's left-right mirror image has the same value: one cache entry for both."""
        mirrored = HexState(self._mirror(state.white), self._mirror(state.black), state.moves)
        return min(self.key(state), self.key(mirrored))

    def evaluate(self, state: HexState) -> float:
        """For depth-limited search: material and advancement for the side to move, in (-1, 1)."""
        w = self.width
        score = 0
        for cell in range(self.cells):
            row = cell // w
            if state.white >> cell & 1:
                score += 4 + (self.height - 1 - row)
            elif state.black >> cell & 1:
                score -= 4 + row
        if state.moves % 2:
            score = -score
        return score / (abs(score) + 10)

    def compiled_rules(self) -> CompiledRules | None:
        """The rules as numba functions (gametree_hexapawn_rules), for the compiled engine: boards
        whose cells and ply fit in one 64-bit word (the key packs them so)."""
        if self.cells + self.info.max_plies.bit_length() > 64:
            return None
        w = self.width
        first_column = sum(1 << (r * w) for r in range(self.height))
        board = HexBoard(
            self.cells, w, self.height, (1 << self.cells) - 1, self.top_row, first_column, first_column << (w - 1)
        )
        return CompiledRules(
            functions=_compiled_functions,
            board=board,
            encode=self._encode,
            encode_move=self._encode_move,
            decode_move=self._decode_move,
            no_moves=-1,  # a side that cannot move has lost
            max_moves=3 * w,
        )

    def _encode(self, state: HexState) -> tuple[int, int]:
        """The compiled rules' position: the mover's pawns and the opponent's, on the board turned
        so that the mover moves up (Black's turn: rows reversed)."""
        if state.moves % 2 == 0:
            return state.white, state.black
        return self._turn(state.black), self._turn(state.white)

    def _encode_move(self, state: HexState, move: Move) -> int:
        """A move as the compiled rules write it: ``from * 64 + to`` on the turned board."""
        frm, to = move
        if state.moves % 2:
            frm, to = self._turn_cell(frm), self._turn_cell(to)
        return frm * 64 + to

    def _decode_move(self, state: HexState, move: int) -> Move:
        frm, to = move >> 6, move & 63
        return (self._turn_cell(frm), self._turn_cell(to)) if state.moves % 2 else (frm, to)

    def _turn_cell(self, cell: int) -> int:
        """The cell in the same column, the row counted from the other side."""
        r, c = divmod(cell, self.width)
        return (self.height - 1 - r) * self.width + c

    def _turn(self, bits: int) -> int:
        return sum(1 << self._turn_cell(cell) for cell in range(self.cells) if bits >> cell & 1)

    # board display for `gametree play` and `gametree tree`
    @property
    def row_labels(self) -> tuple[str, ...]:
        return tuple(str(self.height - r) for r in range(self.height))

    @property
    def column_labels(self) -> tuple[str, ...]:
        return tuple(chr(ord("a") + c) for c in range(self.width))

    @property
    def move_help(self) -> str:
        return "type FROM-TO like b1-b2 (straight ahead), or FROMxTO like b2xc3 to capture diagonally"

    def board_cells(self, state: HexState) -> tuple[tuple[str, ...], ...]:
        white, black = self.info.player_names
        return tuple(
            tuple(
                white
                if state.white >> (r * self.width + c) & 1
                else black
                if state.black >> (r * self.width + c) & 1
                else ""
                for c in range(self.width)
            )
            for r in range(self.height)
        )

    def move_cell(self, state: HexState, move: Move) -> tuple[int, int]:
        return divmod(move[1], self.width)

    def winning_cells(self, state: HexState) -> tuple[tuple[int, int], ...]:
        """The pawn that reached the far row, if that is how the game was won."""
        goal = state.white & self.top_row if state.moves % 2 else state.black & self.bottom_row
        return tuple(divmod(cell, self.width) for cell in range(self.cells) if goal >> cell & 1)

    # -- helpers -----------------------------------------------------------------------------
    def _reached_goal(self, state: HexState) -> bool:
        return bool(state.white & self.top_row or state.black & self.bottom_row)

    def _mirror(self, bits: int) -> int:
        out = 0
        for cell in range(self.cells):
            if bits >> cell & 1:
                r, c = divmod(cell, self.width)
                out |= 1 << (r * self.width + self.width - 1 - c)
        return out

    def _name(self, cell: int) -> str:
        r, c = divmod(cell, self.width)
        return f"{chr(ord('a') + c)}{self.height - r}"

    def _cell(self, name: str) -> int:
        name = name.strip()
        if len(name) < 2 or not name[0].isalpha() or not name[1:].isdecimal():
            raise MoveParseError(f"{name!r} is not a square: write a file letter and a rank number, like b2")
        c, rank = ord(name[0]) - ord("a"), int(name[1:])
        if not (0 <= c < self.width and 1 <= rank <= self.height):
            raise MoveParseError(f"{name} is off the board (files a-{self.column_labels[-1]}, ranks 1-{self.height})")
        return (self.height - rank) * self.width + c


@hookimpl
def gametree_register_games(registry) -> None:  # type: ignore[no-untyped-def]
    registry.add_game(
        GameSpec(
            name="hexapawn",
            factory=Hexapawn,
            summary="Hexapawn: pawns race to the far row (Martin Gardner, 1962)",
            options=(
                Option("width", int, 3, "files (columns) of the board"),
                Option("height", int, 3, "ranks (rows) of the board, 3 to 9"),
            ),
        )
    )
