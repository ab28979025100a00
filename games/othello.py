"""Othello (Reversi) on an even square board from 4x4 to 8x8: the value is the final disc margin.

Rules (those of the World Othello Federation, on a smaller board where asked):

- the board is ``size`` x ``size`` (4, 6 or 8); the game starts with four discs in
  the centre, White on the top-left and bottom-right of them, Black on the other two
  (on 8x8: White d4 and e5, Black d5 and e4); Black moves first;
- a move puts a disc on an empty square so that it outflanks at least one straight
  line (across, down or diagonal) of the opponent's discs between it and one of
  the mover's own discs; every outflanked line is flipped;
- a side with no such move passes (the move ``pass``), and only then; the game is
  over when neither side can move (the board is full, or no empty square takes a
  disc of either colour);
- the value is the final disc difference, each side's discs counted and, when the
  game ends with empty squares, those squares counted for the winner (tournament
  scoring, as docs/othello.md explains: a wipe-out 13-0 on 8x8 is 64-0); it is a margin game
  (``GameInfo.margin``) whose payoffs lie in ``(-size*size, size*size)``.

Squares are written column letter then row number, ``a1`` the top-left corner as on
standard Othello boards (8x8: ``a1`` to ``h8``; Black's four first moves are d3, c4,
f5 and e6).

Inside, a square is its bit ``row * size + column`` and a state holds the discs
of the side to move and of its opponent as two bitboards (so a position and its
colours swapped share their value), with the plies played; a move is a square
number or :data:`PASS`.  The eight symmetries of the square board map legal play
to legal play, so :meth:`Othello.canonical_key` is the least of the eight images'
keys (up to :data:`SYMMETRIC_DISCS` discs on the board; past that, where mirror
images rarely meet, the plain key, which costs far less).  Moves are tried fewest
opponent replies first while more than :data:`FASTEST_FIRST` squares are empty, else
corners first and the squares beside corners last.  :mod:`othello_rules` gives the same
rules as numba functions for the compiled engine (every board fits 64 bits).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from gametree import (
    CompiledRules,
    Game,
    GameInfo,
    GameOverError,
    GameSpec,
    IllegalMoveError,
    MoveParseError,
    Option,
    Outcome,
    RuleSet,
    hookimpl,
)

__all__ = ["MAX_SIZE", "MIN_SIZE", "Othello", "OthelloBoard", "OthelloState", "PASS", "disc_counts"]

#: The smallest and largest board sides (even): 8x8 is the standard board, and two bitboards of 64 bits
#: hold it (what compiled rules take).
MIN_SIZE = 4
MAX_SIZE = 8

#: The move of a side that has no legal disc to place while its opponent has one.
PASS = -1

#: Moves are tried fewest opponent replies first ("fastest first", see :data:`ORDER_WEIGHTS`) while more than
#: this many squares are empty (below, the count costs more than it saves), else the moves into quadrants with
#: an odd number of empty squares first ("parity"), then in the static order (corners first).
FASTEST_FIRST = 4

#: The compiled engine solves a position with at most this many empty squares without its table or move lists
#: (:func:`othello_rules.finish`).
FINISH_EMPTIES = 6

#: The compiled engine searches positions with at most TABLE_EMPTIES empty squares without its table, and in those
#: with at least ETC_EMPTIES first looks up each child in the table (:func:`othello_rules.table_use`).
TABLE_EMPTIES, ETC_EMPTIES = 8, 12

#: The weights of a move's sort key while more than FASTEST_FIRST squares are empty (smallest first, the static
#: order breaking ties): per reply the opponent would have, per reply of those on a corner (again), and for a
#: square in a region (quadrant) with an even number of empty squares; and the penalty of a square diagonally
#: beside a corner (an "X-square") and of one beside it on the edge (a "C-square").
ORDER_WEIGHTS = (4, 10, 1)
X_PENALTY, C_PENALTY = 4, 2

#: Positions with at most this many discs are keyed by the least of their eight symmetric images.
SYMMETRIC_DISCS = 14

_new_state = tuple.__new__


#: The smallest board with compiled rules.
COMPILED_SIZE = 6

#: A pass as the compiled rules write it (:mod:`othello_rules`: no square has this number).
COMPILED_PASS = 64


def _compiled_functions() -> RuleSet:
    """The compiled rules' functions (numba is imported here: only the compiled engine asks)."""
    from . import othello_rules

    return othello_rules.RULES


class OthelloBoard(NamedTuple):
    """A board's constants for the compiled rules (:mod:`othello_rules` reads them by name)."""

    size: int
    cells: int
    full: int
    #: How many more steps a line of the opponent's discs may take after its first (size - 3).
    runs: int
    fastest_first: int
    #: The compiled engine solves positions with at most this many empty squares by :func:`othello_rules.finish`.
    finish_empties: int
    #: Positions with at most ``table_empties`` empty squares are searched without the table, and those with
    #: at least ``etc_empties`` probe their children's entries first (:func:`othello_rules.table_use`).
    table_empties: int
    etc_empties: int
    symmetric_discs: int
    corners: int
    #: See :data:`ORDER_WEIGHTS`.
    weights: tuple[int, ...]
    #: The four shifts (across, down, and the two diagonals) and, for each, the squares a step
    #: towards higher bits (``left``) or lower bits (``right``) may land on.
    shifts: tuple[int, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]
    #: The squares in the order moves are tried.
    order: tuple[int, ...]
    #: Each square's penalty in the sort key (X- and C-squares).
    penalty: tuple[int, ...]
    #: The four quadrants, as bitboards.
    regions: tuple[int, ...]
    #: For each of the seven symmetries other than the identity, 64 entries: each square's image.
    perms: tuple[int, ...]


class OthelloState(NamedTuple):
    """A position: the discs of the side to move (``mine``) and of the other side (``theirs``) as
    bitboards (bit ``row * size + column``), and the plies played (passes included: Black moves
    at even plies)."""

    mine: int
    theirs: int
    ply: int


def _popcount(x: int) -> int:
    return x.bit_count()


def disc_counts(game: Othello, state: OthelloState) -> tuple[int, int]:
    """Black's and White's discs on the board."""
    black, white = game.colours(state)
    return _popcount(black), _popcount(white)


class Othello(Game[OthelloState, int]):
    """Othello on a ``size`` x ``size`` board (see the module)."""

    def __init__(self, size: int = 8) -> None:
        if not isinstance(size, int) or isinstance(size, bool):
            raise ValueError(f"--size must be a whole number, not {size!r}")
        if size % 2 or not MIN_SIZE <= size <= MAX_SIZE:
            raise ValueError(f"--size {size}: Othello needs an even board side from {MIN_SIZE} to {MAX_SIZE}")
        n = self.size = size
        self.cells = n * n
        # Every ply places a disc or passes, and a pass is followed by a disc: at most two plies a disc.
        self.info = GameInfo(
            max_plies=2 * (self.cells - 4),
            player_names=("Black", "White"),
            margin=True,
            payoff_bounds=(-self.cells, self.cells),
        )
        self.full = (1 << self.cells) - 1
        col0 = sum(1 << (r * n) for r in range(n))
        last = col0 << (n - 1)
        not_first, not_last = self.full & ~col0, self.full & ~last
        #: (shift, mask) of each direction: left shifts (towards higher bits) and right shifts; the mask
        #: keeps the board and drops what wrapped round from one edge to the other.
        self._left = ((1, not_first), (n, self.full), (n + 1, not_first), (n - 1, not_last))
        self._right = ((1, not_last), (n, self.full), (n + 1, not_last), (n - 1, not_first))
        self._runs = n - 3  # (a line of the opponent's discs holds at most n - 2)
        self._order = self._square_order()
        self._penalty = self._square_penalties()
        h = n // 2
        quadrant = sum(1 << (r * n + c) for r in range(h) for c in range(h))
        self._regions = (quadrant, quadrant << h, quadrant << (h * n), quadrant << (h * n + h))
        self._images = self._symmetry_tables()
        self._memo: tuple[int, int, int] = (-1, -1, 0)  # (mine, theirs) -> legal squares, the last asked
        h = n // 2
        white = (1 << ((h - 1) * n + h - 1)) | (1 << (h * n + h))
        black = (1 << ((h - 1) * n + h)) | (1 << (h * n + h - 1))
        self._start = OthelloState(black, white, 0)
        self._columns = "abcdefgh"[:n]
        self._compiled: CompiledRules | None = None

    def __repr__(self) -> str:
        return f"Othello(size={self.size})"

    def options(self) -> dict[str, Any]:
        """The options that recreate this game."""
        return {"size": self.size}

    @property
    def name(self) -> str:
        return f"{self.size}x{self.size} Othello"

    # -- bitboards ------------------------------------------------------------------------
    def moves_mask(self, mine: int, theirs: int) -> int:
        """The squares where the side owning ``mine`` may place a disc, as a bitboard."""
        empty = self.full & ~(mine | theirs)
        found = 0
        runs = range(self._runs)
        for s, mask in self._left:
            t = (mine << s) & mask & theirs
            for _ in runs:
                t |= (t << s) & mask & theirs
            found |= (t << s) & mask & empty
        for s, mask in self._right:
            t = (mine >> s) & mask & theirs
            for _ in runs:
                t |= (t >> s) & mask & theirs
            found |= (t >> s) & mask & empty
        return found

    def _legal(self, mine: int, theirs: int) -> int:
        memo = self._memo
        if memo[0] == mine and memo[1] == theirs:
            return memo[2]
        found = self.moves_mask(mine, theirs)
        self._memo = (mine, theirs, found)
        return found

    def flips(self, mine: int, theirs: int, square: int) -> int:
        """The opponent's discs a disc of ``mine`` on ``square`` flips (0: not a legal placement there)."""
        bit = 1 << square
        flipped = 0
        for s, mask in self._left:
            x, line = (bit << s) & mask, 0
            while x & theirs:
                line |= x
                x = (x << s) & mask
            if x & mine:
                flipped |= line
        for s, mask in self._right:
            x, line = (bit >> s) & mask, 0
            while x & theirs:
                line |= x
                x = (x >> s) & mask
            if x & mine:
                flipped |= line
        return flipped

    def colours(self, state: OthelloState) -> tuple[int, int]:
        """Black's and White's discs, as bitboards."""
        return (state.mine, state.theirs) if state.ply % 2 == 0 else (state.theirs, state.mine)

    # -- the protocol -------------------------------------------------------------------------
    def initial_state(self) -> OthelloState:
        return self._start

    def to_move(self, state: OthelloState) -> int:
        return state.ply & 1

    def ply(self, state: OthelloState) -> int:
        return state.ply

    def legal_moves(self, state: OthelloState) -> list[int]:
        """The squares that take a disc (corners first, the squares beside corners last), else
        ``[PASS]`` if only the opponent can move, else none (the game is over)."""
        mine, theirs = state.mine, state.theirs
        found = self._legal(mine, theirs)
        if found:
            squares = [sq for sq in self._order if found >> sq & 1]
            if len(squares) > 1:
                empty = self.full & ~(mine | theirs)
                odd = self._odd_regions(empty)
                if _popcount(empty) > FASTEST_FIRST:
                    squares.sort(key=lambda sq: self._sort_key(mine, theirs, sq, odd))  # (stable: ties keep the order)
                else:
                    squares.sort(key=lambda sq: not odd >> sq & 1)  # parity: odd regions first
            return squares
        return [PASS] if self.moves_mask(theirs, mine) else []

    def _odd_regions(self, empty: int) -> int:
        """The empty squares of the quadrants that hold an odd number of them."""
        odd = 0
        for region in self._regions:
            if _popcount(empty & region) & 1:
                odd |= empty & region
        return odd

    def _sort_key(self, mine: int, theirs: int, square: int, odd: int) -> int:
        """A move's place in "fastest first" (smallest first): the opponent's replies, those on corners weighed
        more, the square's penalty, a square in a quadrant with an even number of empty squares after one in an
        odd (see :data:`ORDER_WEIGHTS`)."""
        flipped = self.flips(mine, theirs, square)
        replies = self.moves_mask(theirs & ~flipped, mine | flipped | (1 << square))
        w_replies, w_corners, w_even = ORDER_WEIGHTS
        key = w_replies * _popcount(replies) + w_corners * _popcount(replies & self._corners) + self._penalty[square]
        return key if odd >> square & 1 else key + w_even

    def play(self, state: OthelloState, move: int) -> OthelloState:
        mine, theirs = state.mine, state.theirs
        if move == PASS:
            return _new_state(OthelloState, (theirs, mine, state.ply + 1))
        flipped = self.flips(mine, theirs, move)
        return _new_state(OthelloState, (theirs & ~flipped, mine | flipped | (1 << move), state.ply + 1))

    def outcome(self, state: OthelloState) -> Outcome | None:
        mine, theirs = state.mine, state.theirs
        if self._legal(mine, theirs) or self.moves_mask(theirs, mine):
            return None
        black, white = self.colours(state)
        b, w = _popcount(black), _popcount(white)
        empty = self.cells - b - w
        margin = b - w + (empty if b > w else -empty if w > b else 0)  # empty squares go to the winner
        return Outcome(None if margin == 0 else 0 if margin > 0 else 1, (margin, -margin))

    def key(self, state: OthelloState) -> int:
        """The discs of the side to move above its opponent's: the value depends on nothing else."""
        return state.mine << self.cells | state.theirs

    # -- compiled rules -----------------------------------------------------------------------
    def compiled_rules(self) -> CompiledRules | None:
        """The rules of :mod:`othello_rules` for this board (every board fits 64 bits), made once; none
        for 4x4, which the Python engine solves in milliseconds, less than loading compiled code takes."""
        if self.size < COMPILED_SIZE:
            return None
        if self._compiled is None:
            self._compiled = self._make_compiled_rules()
        return self._compiled

    def _make_compiled_rules(self) -> CompiledRules:
        n = self.size
        left = tuple(mask for _, mask in self._left)
        right = tuple(mask for _, mask in self._right)
        perms: list[int] = []
        for f in self._maps():
            image = [0] * 64
            for square in range(self.cells):
                r, c = f(*divmod(square, n))
                image[square] = r * n + c
            perms += image
        board = OthelloBoard(
            size=n,
            cells=self.cells,
            full=self.full,
            runs=self._runs,
            fastest_first=FASTEST_FIRST,
            finish_empties=FINISH_EMPTIES,
            table_empties=TABLE_EMPTIES,
            etc_empties=ETC_EMPTIES,
            symmetric_discs=SYMMETRIC_DISCS,
            corners=self._corners,
            weights=ORDER_WEIGHTS,
            shifts=tuple(s for s, _ in self._left),
            left=left,
            right=right,
            order=self._order,
            penalty=self._penalty,
            regions=self._regions,
            perms=tuple(perms),
        )
        return CompiledRules(
            functions=_compiled_functions,
            board=board,
            encode=_mover_and_opponent,
            encode_move=_encode_move,
            decode_move=_decode_move,
        )

    # -- symmetries ---------------------------------------------------------------------------
    def _symmetry_tables(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """For each of the 7 symmetries other than the identity, by row, the image of each set of
        squares of that row (so a bitboard's image is one look-up per row)."""
        n = self.size
        tables = []
        for f in self._maps():
            rows = []
            for r in range(n):
                image = []
                for bits in range(1 << n):
                    out = 0
                    for c in range(n):
                        if bits >> c & 1:
                            rr, cc = f(r, c)
                            out |= 1 << (rr * n + cc)
                    image.append(out)
                rows.append(tuple(image))
            tables.append(tuple(rows))
        return tuple(tables)

    def _maps(self) -> tuple[Callable[[int, int], tuple[int, int]], ...]:
        """The seven symmetries of the square other than the identity, on (row, column)."""
        n = self.size
        return (
            lambda r, c: (r, n - 1 - c),
            lambda r, c: (n - 1 - r, c),
            lambda r, c: (n - 1 - r, n - 1 - c),
            lambda r, c: (c, r),
            lambda r, c: (n - 1 - c, n - 1 - r),
            lambda r, c: (c, n - 1 - r),
            lambda r, c: (n - 1 - c, r),
        )

    def _image(self, table: tuple[tuple[int, ...], ...], board: int) -> int:
        n, row = self.size, (1 << self.size) - 1
        out = 0
        for r in range(n):
            out |= table[r][board >> (r * n) & row]
        return out

    def symmetries(self, state: OthelloState) -> list[OthelloState]:
        """The position and its seven mirror images (the same discs rotated or reflected)."""
        images = [state]
        for table in self._images:
            images.append(OthelloState(self._image(table, state.mine), self._image(table, state.theirs), state.ply))
        return images

    def canonical_key(self, state: OthelloState) -> int:
        """The least key of the eight symmetric images, up to :data:`SYMMETRIC_DISCS` discs; the plain key after."""
        mine, theirs, cells = state.mine, state.theirs, self.cells
        key = mine << cells | theirs
        if _popcount(mine | theirs) > SYMMETRIC_DISCS:
            return key
        image = self._image
        for table in self._images:
            other = image(table, mine) << cells | image(table, theirs)
            if other < key:
                key = other
        return key

    # -- heuristic ----------------------------------------------------------------------------
    def evaluate(self, state: OthelloState) -> float:
        """An estimate of the final margin for the side to move: corners and mobility (the
        engine keeps it strictly inside the margin bounds)."""
        mine, theirs = state.mine, state.theirs
        corners = self._corners
        mobility = _popcount(self._legal(mine, theirs)) - _popcount(self.moves_mask(theirs, mine))
        corner = _popcount(mine & corners) - _popcount(theirs & corners)
        return float(2 * mobility + 3 * self.size * corner) / 2

    @property
    def _corners(self) -> int:
        n = self.size
        return 1 | (1 << (n - 1)) | (1 << (n * (n - 1))) | (1 << (n * n - 1))

    def _square_penalties(self) -> tuple[int, ...]:
        """Each square's penalty in a move's sort key: :data:`X_PENALTY` diagonally beside a corner,
        :data:`C_PENALTY` beside one on the edge, else 0."""
        n = self.size

        def penalty(square: int) -> int:
            r, c = divmod(square, n)
            edge_r, edge_c = min(r, n - 1 - r), min(c, n - 1 - c)
            if edge_r == edge_c == 1:
                return X_PENALTY
            return C_PENALTY if sorted((edge_r, edge_c)) == [0, 1] else 0

        return tuple(penalty(square) for square in range(n * n))

    def _square_order(self) -> tuple[int, ...]:
        """Squares in the order moves are tried: corners, edges, inner squares, then the squares beside
        a corner (which often give it away) last."""
        n = self.size

        def rank(square: int) -> tuple[int, int]:
            r, c = divmod(square, n)
            edge_r, edge_c = min(r, n - 1 - r), min(c, n - 1 - c)
            if edge_r == 0 and edge_c == 0:
                return 0, square  # a corner
            if edge_r <= 1 and edge_c <= 1:
                return 4 if edge_r == edge_c == 1 else 3, square  # beside a corner (diagonally: worst)
            if edge_r == 0 or edge_c == 0:
                return 1, square  # an edge
            return 2, square

        return tuple(sorted(range(n * n), key=rank))

    # -- text ---------------------------------------------------------------------------------
    def square_name(self, square: int) -> str:
        """``"c4"`` for the square in column c, row 4 (a1 top-left)."""
        r, c = divmod(square, self.size)
        return f"{self._columns[c]}{r + 1}"

    def parse_move(self, state: OthelloState, text: str) -> int:
        t = text.strip().lower()
        shown = t if len(t) <= 20 else t[:17] + "..."
        if t == "pass":
            return PASS
        last = f"{self._columns[-1]}{self.size}"
        if len(t) != 2 or t[0] not in self._columns or not t[1].isdigit() or not 1 <= int(t[1]) <= self.size:
            raise MoveParseError(
                f"cannot read {shown!r}: write a square as column letter and row number (a1-{last}), or pass"
            )
        return (int(t[1]) - 1) * self.size + self._columns.index(t[0])

    def format_move(self, state: OthelloState, move: int) -> str:
        return "pass" if move == PASS else self.square_name(move)

    def check_move(self, state: OthelloState, move: int) -> None:
        """Raise :class:`IllegalMoveError` saying why ``move`` is illegal here."""
        mine, theirs = state.mine, state.theirs
        found = self._legal(mine, theirs)
        if move == PASS:
            if found:
                some = " ".join(self.square_name(sq) for sq in self.legal_moves(state)[:4])
                raise IllegalMoveError(f"you cannot pass: you have a move ({some})")
            if not self.moves_mask(theirs, mine):
                raise GameOverError("the game is over: neither side can move")
            return
        if not 0 <= move < self.cells:
            raise IllegalMoveError(f"there is no square {move} on the {self.size}x{self.size} board")
        name = self.square_name(move)
        if (mine | theirs) >> move & 1:
            raise IllegalMoveError(f"{name} is taken")
        if not found >> move & 1:
            if not found:
                raise IllegalMoveError(f"{name} outflanks no disc: you have no move and must pass")
            raise IllegalMoveError(f"{name} outflanks no disc (a disc must close a line of the opponent's discs)")

    @property
    def move_help(self) -> str:
        """One line on how to type a move."""
        return f"type a square as column letter and row number (a1 top-left to {self._columns[-1]}{self.size}), or pass"

    def render(self, state: OthelloState) -> str:
        black, white = self.colours(state)
        lines = ["  " + " ".join(self._columns)]
        for r in range(self.size):
            cells = []
            for c in range(self.size):
                bit = 1 << (r * self.size + c)
                cells.append("B" if black & bit else "W" if white & bit else ".")
            lines.append(f"{r + 1} " + " ".join(cells))
        b, w = _popcount(black), _popcount(white)
        lines.append(f"Black {b}, White {w}")
        return "\n".join(lines)

    # -- board view ---------------------------------------------------------------------------
    @property
    def row_labels(self) -> tuple[str, ...]:
        return tuple(str(r + 1) for r in range(self.size))

    @property
    def column_labels(self) -> tuple[str, ...]:
        return tuple(self._columns)

    def board_cells(self, state: OthelloState) -> tuple[tuple[str, ...], ...]:
        """Rows top to bottom; each cell "", "Black" or "White"."""
        black, white = self.colours(state)
        n = self.size
        return tuple(
            tuple(
                "Black" if black >> (r * n + c) & 1 else "White" if white >> (r * n + c) & 1 else "" for c in range(n)
            )
            for r in range(n)
        )

    def move_cell(self, state: OthelloState, move: int) -> tuple[int, int]:
        """(row, column) of the square a move takes; a pass takes none: (-1, -1)."""
        return (-1, -1) if move == PASS else divmod(move, self.size)

    def winning_cells(self, state: OthelloState) -> tuple[tuple[int, int], ...]:
        """Othello has no winning line: none."""
        return ()


def _mover_and_opponent(state: OthelloState) -> tuple[int, int]:
    return state.mine, state.theirs


def _encode_move(state: OthelloState, move: int) -> int:
    return COMPILED_PASS if move == PASS else move


def _decode_move(state: OthelloState, move: int) -> int:
    return PASS if move == COMPILED_PASS else move


def _make(size: int = 8) -> Othello:
    return Othello(size)


@hookimpl
def gametree_register_games(registry) -> None:  # type: ignore[no-untyped-def]
    registry.add_game(
        GameSpec(
            name="othello",
            factory=_make,
            summary="Othello (Reversi) on an even board from 4x4 to 8x8: the final disc margin",
            options=(Option("size", int, 8, f"board side: an even number from {MIN_SIZE} to {MAX_SIZE}"),),
        )
    )
