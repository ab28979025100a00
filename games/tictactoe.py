"""m,n,k tic-tac-toe: k in a row on a width x height board (3,3,3 is the classic game).

Bitboards as Python ints: bit ``r * width + c`` is the cell in row ``r`` (A,
B, ... from the top) and column ``c`` (1, 2, ... from the left).  Every line
of k cells is a precomputed mask; a move only has to check the lines through
its own cell.  Moves are cell indices internally and written ``A1`` or as cell
numbers ``1..width*height`` counted row-major from the top-left.

Boards of at most 64 cells also have compiled rules (:mod:`tictactoe_rules`,
for the compiled engine: :meth:`TicTacToe.compiled_rules`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from operator import or_
from typing import Any, NamedTuple

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
from gametree.game import CompiledTiers, TierFunctions

from .grid import LetteredGrid, board_sides, grid_lines, permuted, size_options
from .tier_ranking import binomial, binomial_table, subset_rank, subset_unrank

__all__ = ["TTTBoard", "TTTState", "TicTacToe"]

MAX_SIDE = 26  # row letters A..Z

_WINS = (Outcome(0), Outcome(1))
_DRAW = Outcome(None)


class TTTBoard(NamedTuple):
    """A board's constants for the compiled rules (:mod:`tictactoe_rules` reads them by name);
    boards of at most 64 cells."""

    width: int
    height: int
    k: int
    #: All the cells, as a mask.
    board: int
    #: Safe moves are ordered by the lines they build before this ply.
    order_until: int
    #: Keys are made symmetric before this ply (the number of cells: at every ply).
    symmetric_plies: int
    #: The first row, the first column and the main diagonal (of a square; else 0) as masks, for
    #: reflecting a position: in both halves of the key's word when ``packed``.
    row: int
    column: int
    diagonal: int
    #: The shift that packs both sides' marks in one word of the key (the number of cells, on a
    #: board of at most 32; else 0).
    packed: int
    #: How many directions can hold a line of ``k``; their shifts, and the cells a step forward
    #: (``<<``) and a step back (``>>``) may land on without coming round from another row (the rest 0).
    lines: int
    directions: tuple[int, int, int, int]
    forward: tuple[int, int, int, int]
    backward: tuple[int, int, int, int]
    #: The cells in the game's order.
    order: tuple[int, ...]


def _compiled_functions() -> RuleSet:
    """The compiled rules' functions (numba is imported here: only the compiled engine asks)."""
    from . import tictactoe_rules

    return tictactoe_rules.RULES


class TTTTiers(NamedTuple):
    """The tiers' constants for the compiled tier functions (:mod:`tictactoe_tiers` reads them by name)."""

    cells: int
    #: ``C(n, k)`` (:mod:`tier_ranking`).
    binom: tuple[int, ...]


def _compiled_tier_functions() -> TierFunctions:
    """The compiled tier functions (numba is imported here: only the tier solver asks)."""
    from . import tictactoe_tiers

    return tictactoe_tiers.TIERS


class TTTState(NamedTuple):
    """X's and O's marks as bitboards, moves played, and whether the last move won.

    ``xt`` and ``ot`` are derived, kept up to date move by move: the empty
    cells where X (resp. O) would complete a line.  They make "can I win now?"
    and "must I block?" constant-time questions for the solver.
    """

    x: int
    o: int
    moves: int
    won: bool = False
    xt: int = 0
    ot: int = 0


class TicTacToe(LetteredGrid, Game[TTTState, int]):
    """The m,n,k-game on a ``width`` x ``height`` board, ``k`` in a row to win."""

    def __init__(self, width: int = 3, height: int = 3, k: int | None = None) -> None:
        if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
            raise ValueError(
                f"board {_shown(width)}x{_shown(height)}: width and height must be between 1 and {MAX_SIDE}"
            )
        k = max(width, height) if k is None else k
        if not 1 <= k <= max(width, height):
            raise ValueError(f"k={_shown(k)} cannot fit on a {width}x{height} board (1 <= k <= {max(width, height)})")
        self.width, self.height, self.k = width, height, k
        self.cells = n = width * height
        self.info = GameInfo(max_plies=n, player_names=("X", "O"), adds_one_piece=True)
        self.full = (1 << n) - 1

        self.lines = tuple(dict.fromkeys(grid_lines(width, height, k)))  # k == 1 yields each cell 4 times
        self.lines_through = tuple(tuple(m for m in self.lines if m >> cell & 1) for cell in range(n))

        # Centre-first: cells on more lines first, then nearer the centre.
        cy, cx = (height - 1) / 2, (width - 1) / 2
        order = sorted(
            range(n),
            key=lambda i: (-len(self.lines_through[i]), abs(i // width - cy) + abs(i % width - cx), i),
        )
        self._order = tuple((i, 1 << i) for i in order)
        #: Plies before which the solver orders moves by threats created (costly, pays near the root).
        self._order_until = n - 6
        self._perms = self._symmetry_permutations()
        self._tables: tuple[list[tuple[int, ...]], tuple[list[tuple[int, ...]], ...]] | None = None
        chunks = -(-2 * n // 8)  # the position code's 2n bits in chunks of at most 8 (see _build_tables)
        self._chunk_bits = -(-2 * n // chunks)

    def __repr__(self) -> str:
        return f"TicTacToe(width={self.width}, height={self.height}, k={self.k})"

    def options(self) -> dict[str, Any]:
        """The options that recreate this board (``--size`` resolved into width and height)."""
        return {"width": self.width, "height": self.height, "k": self.k}

    @property
    def name(self) -> str:
        return f"{self.width}x{self.height} tic-tac-toe, {self.k} in a row"

    # -- the protocol ------------------------------------------------------------
    def initial_state(self) -> TTTState:
        return TTTState(0, 0, 0)

    def to_move(self, state: TTTState) -> int:
        return state.moves & 1

    def ply(self, state: TTTState) -> int:
        return state.moves

    def legal_moves(self, state: TTTState) -> list[int]:
        if state.won:
            return []
        occupied = state.x | state.o
        return [cell for cell, bit in self._order if not occupied & bit]

    def play(self, state: TTTState, move: int) -> TTTState:
        bit = 1 << move
        x, o, xt, ot = state.x, state.o, state.xt & ~bit, state.ot & ~bit
        won = False
        if state.moves & 1:
            o |= bit
            for line in self.lines_through[move]:
                if not x & line:
                    rest = line & ~o
                    if not rest:
                        won = True
                    elif not rest & (rest - 1):  # one empty cell left in the line: a threat
                        ot |= rest
        else:
            x |= bit
            for line in self.lines_through[move]:
                if not o & line:
                    rest = line & ~x
                    if not rest:
                        won = True
                    elif not rest & (rest - 1):
                        xt |= rest
        return TTTState(x, o, state.moves + 1, won, xt, ot)

    def outcome(self, state: TTTState) -> Outcome | None:
        if state.won:
            return _WINS[(state.moves - 1) & 1]
        if state.moves == self.cells:
            return _DRAW
        return None

    def key(self, state: TTTState) -> int:
        return state.x | state.o << self.cells

    # -- compiled rules --------------------------------------------------------------
    def compiled_rules(self) -> CompiledRules | None:
        """The rules of :mod:`tictactoe_rules` for this board, if it has at most 64 cells."""
        if self.cells > 64:
            return None
        w, h, k, n, board = self.width, self.height, self.k, self.cells, self.full
        first_column = sum(1 << (r * w) for r in range(h))
        last_column = first_column << (w - 1)
        # Horizontal, vertical, and the diagonals down-right and down-left.  A step along a direction
        # that moves right must not land in the first column (it came round from the row above), nor
        # one that moves left in the last.
        right, left = board & ~first_column, board & ~last_column
        fits = (
            (1, right, left, k <= w),
            (w, board, board, k <= h),
            (w + 1, right, left, k <= min(w, h)),
            (w - 1, left, right, k <= min(w, h) and w > 1),
        )
        directions = [(d, forward, back) for d, forward, back, fit in fits if fit] + [(0, 0, 0)] * 4
        packed = n if 2 * n <= 64 else 0
        both = 1 + (1 << packed) if packed else 1  # a mask times this: the mask in both halves
        compiled = TTTBoard(
            width=w,
            height=h,
            k=k,
            board=board,
            order_until=max(0, self._order_until),
            symmetric_plies=n,
            row=((1 << w) - 1) * both,
            column=first_column * both,
            diagonal=(sum(1 << (r * w + r) for r in range(h)) if w == h else 0) * both,
            packed=packed,
            lines=sum(1 for *_, fit in fits if fit),
            directions=(directions[0][0], directions[1][0], directions[2][0], directions[3][0]),
            forward=(directions[0][1], directions[1][1], directions[2][1], directions[3][1]),
            backward=(directions[0][2], directions[1][2], directions[2][2], directions[3][2]),
            order=tuple(cell for cell, _ in self._order),
        )
        return CompiledRules(
            functions=_compiled_functions,
            board=compiled,
            encode=_mover_and_opponent,
            encode_move=_same_move,
            decode_move=_same_move,
            max_moves=n,
            key_bits=2 * n if packed else 128,  # packed: both sides' marks in one word
        )

    # -- tiers (gametree.game.Tiered): tier n holds the positions of n marks ----------------------
    def tier_count(self) -> int:
        """One tier for each number of marks, 0 to the number of cells."""
        return self.cells + 1

    def tier_size(self, tier: int) -> int:
        """The ways to pick ``tier`` occupied cells, times the ways to pick the side to move's among them."""
        return binomial(self.cells, tier) * binomial(tier, tier // 2)

    def tier_position(self, state: TTTState) -> tuple[int, int]:
        """``(marks, index)``: see :mod:`tictactoe_tiers` for the index."""
        n = state.moves
        mover = _mover_and_opponent(state)[0]
        occupied = [cell for cell in range(self.cells) if (state.x | state.o) >> cell & 1]
        marks = subset_rank(j for j, cell in enumerate(occupied) if mover >> cell & 1)
        return n, subset_rank(occupied) * binomial(n, n // 2) + marks

    def tier_unrank(self, tier: int, index: int) -> TTTState:
        """The position of ``index`` among those of ``tier`` marks (its marks played X, O, X, ... in
        the order of their cells, the side that moved last last)."""
        per = binomial(tier, tier // 2)
        occupied = subset_unrank(index // per, self.cells, tier)
        mine = {occupied[j] for j in subset_unrank(index % per, tier, tier // 2)}
        movers = [cell for cell in occupied if cell in mine]
        others = [cell for cell in occupied if cell not in mine]
        xs, os = (movers, others) if tier % 2 == 0 else (others, movers)
        state = self.initial_state()
        for j in range(tier):
            state = self.play(state, xs[j // 2] if j % 2 == 0 else os[j // 2])
        last = state.o if tier % 2 == 0 else state.x
        return state._replace(won=any(line & last == line for line in self.lines))

    def compiled_tiers(self) -> CompiledTiers | None:
        """The tier functions of :mod:`tictactoe_tiers`, for boards with compiled rules whose indices fit in 63 bits."""
        sizes = tuple(self.tier_size(t) for t in range(self.tier_count()))
        if self.cells > 64 or max(sizes) >= 1 << 62:
            return None
        return CompiledTiers(
            functions=_compiled_tier_functions, board=TTTTiers(self.cells, binomial_table()), sizes=sizes
        )

    # -- symmetries --------------------------------------------------------------
    def _symmetry_permutations(self) -> tuple[tuple[int, ...], ...]:
        w, h = self.width, self.height
        maps: list[Callable[[int, int], tuple[int, int]]] = [
            lambda r, c: (r, c),
            lambda r, c: (r, w - 1 - c),
            lambda r, c: (h - 1 - r, c),
            lambda r, c: (h - 1 - r, w - 1 - c),
        ]
        if w == h:
            maps += [
                lambda r, c: (c, r),
                lambda r, c: (c, h - 1 - r),
                lambda r, c: (w - 1 - c, r),
                lambda r, c: (w - 1 - c, h - 1 - r),
            ]
        perms = []
        for f in maps:
            perm = []
            for i in range(self.cells):
                r, c = f(divmod(i, w)[0], i % w)
                perm.append(r * w + c)
            perms.append(tuple(perm))
        return tuple(dict.fromkeys(perms))

    def _build_tables(self) -> tuple[list[tuple[int, ...]], tuple[list[tuple[int, ...]], ...]]:
        """Per chunk of the position code (at most 8 bits), each chunk value's images under the
        board's symmetries (all but the identity), as a tuple: the first chunk's table and the others'.

        The code's ``2 * cells`` bits are split into as few chunks of at most 8
        bits as possible, all of about the same width (3x3: three of 6 bits, 64
        entries each, not 8 + 8 + 2 bits with 256 entries twice).  A symmetry's
        table is built by doubling: the images of the values below ``2**i`` and
        those same images with bit ``i``'s image added.  Built on the first
        ``canonical_key`` call, inside the first search: on 3x3 it takes about
        a tenth of a millisecond (a bit at a time, 256 entries per chunk, it
        took a millisecond, half of the 3x3 analysis).
        """
        n = self.cells
        bits = 2 * n
        width = self._chunk_bits
        targets = [[1 << (perm[j % n] + (n if j >= n else 0)) for j in range(bits)] for perm in self._perms[1:]]
        chunks: list[list[tuple[int, ...]]] = []
        for base in range(0, bits, width):
            per_symmetry = []
            for target in targets:
                table = [0]
                for j in range(base, min(base + width, bits)):
                    image = target[j]
                    table += [t | image for t in table]
                per_symmetry.append(table)
            # (a 1x1 board has no symmetry but the identity: no images, the code is its own key)
            no_images: tuple[int, ...] = ()
            chunks.append(
                list(zip(*per_symmetry)) if per_symmetry else [no_images] * (1 << (min(base + width, bits) - base))
            )
        return chunks[0], tuple(chunks[1:])

    def canonical_key(self, state: TTTState) -> int:
        """The smallest position code over the board's symmetries.

        Each chunk of the code is looked up once for all the symmetries; the
        images are OR-ed together symmetry by symmetry with ``map`` (3x3: three
        look-ups, then the least of 7 images).
        """
        code = state.x | state.o << self.cells
        tables = self._tables
        if tables is None:
            tables = self._tables = self._build_tables()
        first, others = tables
        width = self._chunk_bits
        low = (1 << width) - 1
        images: Iterable[int] = first[code & low]
        rest = code >> width
        for table in others:
            if not rest:
                break
            images = map(or_, images, table[rest & low])
            rest >>= width
        best = min(images, default=code)
        return min(code, best)

    def symmetries(self, state: TTTState) -> list[TTTState]:
        p = permuted
        return [
            TTTState(p(state.x, perm), p(state.o, perm), state.moves, state.won, p(state.xt, perm), p(state.ot, perm))
            for perm in self._perms
        ]

    # -- solver helpers (optional protocol members) --------------------------------
    def immediate_win(self, state: TTTState) -> bool:
        """Can the side to move complete a line with its next move?"""
        return bool(state.ot if state.moves & 1 else state.xt)

    def has_safe_move(self, state: TTTState) -> bool:
        """Whether :meth:`safe_moves` is not empty, without ordering the moves."""
        threats = state.xt if state.moves & 1 else state.ot
        if threats:
            return not threats & (threats - 1)
        return state.moves < self.cells

    def safe_moves(self, state: TTTState) -> list[int]:
        """Moves that do not let the opponent win at once (assuming no immediate win of ours).

        Two or more opponent threats: nothing is safe (empty list).  One: it must be blocked.
        """
        if state.moves & 1:
            threats, mine, theirs = state.xt, state.o, state.x
        else:
            threats, mine, theirs = state.ot, state.x, state.o
        if threats:
            if threats & (threats - 1):
                return []
            return [threats.bit_length() - 1]
        empty = self.full & ~(mine | theirs)
        if state.moves >= self._order_until:
            return [cell for cell, bit in self._order if empty & bit]
        # Moves that create a threat (a line left one short with no opposing mark) first.
        creators = 0
        need = self.k - 2
        for line in self.lines:
            if not line & theirs and (line & mine).bit_count() == need:
                creators |= line
        creators &= empty
        if not creators:
            return [cell for cell, bit in self._order if empty & bit]
        return [cell for cell, bit in self._order if creators & bit] + [
            cell for cell, bit in self._order if empty & ~creators & bit
        ]

    # -- heuristic -----------------------------------------------------------------
    def evaluate(self, state: TTTState) -> float:
        """Open lines weighted by how full they are, for the side to move, in (-1, 1)."""
        mine, theirs = (state.o, state.x) if state.moves & 1 else (state.x, state.o)
        score = 0
        for line in self.lines:
            a, b = mine & line, theirs & line
            if a and not b:
                score += 1 << (3 * a.bit_count())
            elif b and not a:
                score -= 1 << (3 * b.bit_count())
        # A line one short of k is worth far more; squash into (-1, 1).
        scale = 1 << (3 * self.k)
        return score / (abs(score) + scale)

    # -- text ----------------------------------------------------------------------
    def parse_move(self, state: TTTState, text: str) -> int:
        t = text.strip().upper()
        if not t:
            raise MoveParseError("empty move")
        shown = t if len(t) <= 60 else t[:57] + "..."  # input echoed in a message is cut short
        if t.isdecimal():
            try:
                number = int(t)
            except ValueError:  # over the 4,300 digits int() reads: off the board
                number = 0
            if not 1 <= number <= self.cells:
                raise MoveParseError(
                    f"cell {number if len(t) <= 60 else shown} is off the board (cells are 1..{self.cells})"
                )
            return number - 1
        row, col = t[0], t[1:]
        if not ("A" <= row <= "Z" and col.isdecimal()):
            written = text.strip() if len(text.strip()) <= 60 else text.strip()[:57] + "..."
            raise MoveParseError(
                f"cannot read {written!r}: write a row letter and column number like A1, or a cell number "
                f"1..{self.cells}"
            )
        r = ord(row) - ord("A")
        try:
            c = int(col) - 1
        except ValueError:  # over the 4,300 digits int() reads: off the board
            c = -1
        if not (0 <= r < self.height and 0 <= c < self.width):
            raise MoveParseError(
                f"{shown} is off the board (rows A..{chr(ord('A') + self.height - 1)}, columns 1..{self.width})"
            )
        return r * self.width + c

    def check_move(self, state: TTTState, move: int) -> None:
        """Raise :class:`IllegalMoveError` with the reason a move cannot be played."""
        if not 0 <= move < self.cells:  # (a negative move would also be a ValueError of the shift below)
            raise IllegalMoveError(f"cell {move + 1} is off the board (cells are 1..{self.cells})")
        if (state.x | state.o) >> move & 1:
            raise IllegalMoveError(f"{self.format_move(state, move)} is already taken")

    def cell(self, state: TTTState, row: int, col: int) -> str:
        bit = 1 << (row * self.width + col)
        return "X" if state.x & bit else "O" if state.o & bit else "."

    def render(self, state: TTTState) -> str:
        pad = len(str(self.width))
        header = " " * 2 + " ".join(f"{c + 1:>{pad}}" for c in range(self.width))
        rows = [header]
        for r in range(self.height):
            cells = " ".join(f"{self.cell(state, r, c):>{pad}}" for c in range(self.width))
            rows.append(f"{chr(ord('A') + r)} {cells}")
        return "\n".join(rows)

    # -- board display (optional members used by `gametree play`; labels, move_cell: LetteredGrid) --
    def board_cells(self, state: TTTState) -> tuple[tuple[str, ...], ...]:
        """Rows top to bottom; each cell "", "X" or "O"."""
        return self.cells_of((state.x, state.o), ("X", "O"))

    def winning_cells(self, state: TTTState) -> tuple[tuple[int, int], ...]:
        """Cells of the completed line(s) of a won game (all lines the last move completed), else ()."""
        if not state.won:
            return ()
        return self.completed(state.o if state.moves & 1 == 0 else state.x)


def _mover_and_opponent(state: TTTState) -> tuple[int, int]:
    return (state.o, state.x) if state.moves & 1 else (state.x, state.o)


def _shown(number: int) -> str:
    """A number as an error message repeats it: not all of a number with hundreds of digits."""
    text = str(number)
    return text if len(text) <= 12 else f"{text[:6]}...({len(text.lstrip('-'))} digits)"


def _same_move(state: TTTState, move: int) -> int:
    return move


def _make(size: int | None, width: int | None, height: int | None, k: int | None) -> TicTacToe:
    if size is not None and size < 1:
        raise ValueError(f"--size {_shown(size)}: the board needs at least one cell")
    return TicTacToe(*board_sides(size, width, height, 3), k)


@hookimpl
def gametree_register_games(registry) -> None:  # type: ignore[no-untyped-def]
    registry.add_game(
        GameSpec(
            name="tictactoe",
            factory=_make,
            summary="m,n,k tic-tac-toe: k in a row on a width x height board",
            options=(
                *size_options(3),
                Option("k", int, None, "marks in a row to win (default: the longer side)"),
            ),
        )
    )
