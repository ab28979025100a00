"""Connect Four on any board: ``k`` in a row, discs fall to the lowest free cell.

The board is a bitboard as in Pascal Pons's solver (blog.gamesolver.org):
column ``c`` occupies bits ``c * (height + 1)`` to ``c * (height + 1) + height``,
row 0 at the bottom, with one always-empty *sentinel* bit on top of each
column so that lines never wrap from one column into the next.  A state holds
the stones of the side to move, the mask of all stones and the number of
moves played; a move is a column (0-based inside, written 1-based), and the
cell a disc lands on is ``(mask + bottom of column) & column mask``.

Lines of ``k`` are found with shifts in the four directions (1 = vertical,
``height + 1`` = horizontal, ``height`` and ``height + 2`` = the diagonals).
Positions are written as the sequence of played columns, ``4453`` (Pons's
notation); on boards wider than 9 columns the numbers are separated by spaces.
Scores are the core's depth-aware scores; on 7x6 they are exactly Pons's.

Boards are at most :data:`MAX_SIDE` x :data:`MAX_SIDE` (100x100), checked before
anything is built: the game keeps a few bitboards of the whole board for every
cell, so the memory it takes grows with the square of the number of cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
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
from gametree.game import CompiledTiers, TierFunctions

from .tier_ranking import (
    binomial,
    binomial_table,
    column_ways,
    heights_rank,
    heights_unrank,
    subset_rank,
    subset_unrank,
)

__all__ = ["C4Board", "C4State", "ConnectFour", "MAX_SIDE"]

#: The largest width and height (checked before anything is built; see the module docstring).
MAX_SIDE = 100

_WINS = (Outcome(0), Outcome(1))
#: Builds a state from a full tuple without NamedTuple's Python-level ``__new__`` (hot path).
_new_state = tuple.__new__
_DRAW = Outcome(None)
#: Threat cells remembered before the memo is cleared (about 100 bytes each).
_MEMO_LIMIT = 200_000


#: The boards (width, height, k) whose compiled search is compiled for them alone, their constants
#: in the code (:attr:`gametree.game.CompiledRules.specialise`): the standard board, the one solved
#: from the empty position and benchmarked against the C++ solvers (12 to 15% less time a node);
#: every other board shares one search, compiled once for all.
SPECIALISED_BOARDS = frozenset({(7, 6, 4)})


class C4Board(NamedTuple):
    """A board's constants for the compiled rules (:mod:`connect4_rules` reads them by name)."""

    width: int
    height: int
    #: The bits of a column: its cells and the empty sentinel bit on top.
    h1: int
    #: The bottom row and all the board's cells, as masks.
    bottom: int
    board: int
    k: int
    #: Keys are mirrored before this ply.
    symmetric_plies: int
    #: How many directions can hold a line of ``k``, and their shifts (the rest 0).
    lines: int
    directions: tuple[int, int, int, int]
    #: The top row: late in the game, the moves that fill a column come first.
    top_row: int
    #: The plies that switch the move order (as :meth:`ConnectFour.safe_moves`; 0 if negative).
    order_until: int
    order_late: int
    prepare_until: int
    #: The columns, centre first.
    order: tuple[int, ...]


def _compiled_functions() -> RuleSet:
    """The compiled rules' functions (numba is imported here: only the compiled engine asks)."""
    from . import connect4_rules

    return connect4_rules.RULES


class C4Tiers(NamedTuple):
    """The tiers' constants for the compiled tier functions (:mod:`connect4_tiers` reads them by name)."""

    width: int
    height: int
    h1: int
    cells: int
    #: ``C(n, k)`` and the ways columns hold stones (:mod:`tier_ranking`).
    binom: tuple[int, ...]
    ways: tuple[int, ...]


def _compiled_tier_functions() -> TierFunctions:
    """The compiled tier functions (numba is imported here: only the tier solver asks)."""
    from . import connect4_tiers

    return connect4_tiers.TIERS


def _current_and_mask(state: C4State) -> tuple[int, int]:
    return state.current, state.mask


def _same_move(state: C4State, move: int) -> int:
    return move


class C4State(NamedTuple):
    """Stones of the side to move, all stones, moves played, and whether the last move won.

    ``mine`` and ``theirs`` are derived and kept up to date move by move: the
    empty cells where the side to move (resp. the opponent) would complete a
    line.  They make "can I win now?" and "must I block?" cheap questions.
    """

    current: int
    mask: int
    moves: int
    won: bool = False
    mine: int = 0
    theirs: int = 0


class ConnectFour(Game[C4State, int]):
    """Connect Four on a ``width`` x ``height`` board with ``k`` in a row to win."""

    def __init__(self, width: int = 7, height: int = 6, k: int = 4) -> None:
        for option, side in (("width", width), ("height", height)):
            if not 1 <= side <= MAX_SIDE:  # the value is not echoed: it may have thousands of digits
                limit = "at least 1" if side < 1 else f"at most {MAX_SIDE}"
                raise ValueError(f"--{option} must be {limit} (width and height must be between 1 and {MAX_SIDE})")
        if not 1 <= k <= max(width, height):
            raise ValueError(f"k={k} cannot fit on a {width}x{height} board (1 <= k <= {max(width, height)})")
        self.width, self.height, self.k = width, height, k
        self.cells = width * height
        self.info = GameInfo(max_plies=self.cells, player_names=("Red", "Yellow"))
        h1 = self.h1 = height + 1
        column = (1 << height) - 1
        self.bottom = sum(1 << (c * h1) for c in range(width))
        self.board_mask = self.bottom * column
        self._sentinels = self.bottom << height
        self._column_mask = tuple(column << (c * h1) for c in range(width))
        self._bottom_bit = tuple(1 << (c * h1) for c in range(width))
        self._top_bit = tuple(1 << (c * h1 + height - 1) for c in range(width))
        # Vertical, horizontal and the two diagonals (down-right, up-right).
        self._dirs = (1, h1, height, height + 2)
        self._steps4 = tuple((d, 2 * d, 3 * d) for d in self._dirs[1:])
        centre = (width - 1) / 2
        self.order = tuple(sorted(range(width), key=lambda c: (abs(c - centre), c)))
        self._order_bits = tuple((c, self._column_mask[c]) for c in self.order)
        self._indexed_columns = tuple((i, self._column_mask[c]) for i, c in enumerate(self.order))
        self._index_bits = max(1, width.bit_length())
        #: ``"1"`` -> 0, ...: the columns as written (for :meth:`replay`).
        self._column_of_text = {str(c + 1): c for c in range(width)}
        # Column slices for the left-right mirror: (shift, mirrored shift).
        self._mirror = tuple((c * h1, (width - 1 - c) * h1) for c in range(width))
        self._column_bits = (1 << h1) - 1
        self._windows: tuple[int, ...] | None = None
        #: The ways columns hold stones, for the tiers' index (made when first asked).
        self._column_ways: tuple[int, ...] | None = None
        #: Each cell's bit -> the cells of the lines of ``k`` through it: one mask per direction
        #: that has such a line (the cells up to ``k - 1`` away on either side, on the board).
        self._lines: dict[int, tuple[int, ...]] = {}
        #: Each cell's bit -> (the cells of all the lines through it, the memo of the threat cells
        #: a stone there gives the mover, keyed by the mover's stones on those cells).  See :meth:`_remember`.
        self._cell: dict[int, tuple[int, dict[int, int]]] = {}
        for c in range(width):
            for r in range(height):
                lines, near = [], 0
                for dc, dr in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    run = [(c + dc * i, r + dr * i) for i in range(1 - k, k)]
                    run = [(x, y) for x, y in run if 0 <= x < width and 0 <= y < height]
                    if len(run) >= k:  # a straight run on the board, with the cell: its lines of k cover it
                        lines.append(sum(1 << (x * h1 + y) for x, y in run))
                        near |= lines[-1]
                bit = 1 << (c * h1 + r)
                self._lines[bit] = tuple(lines)
                self._cell[bit] = (near, {})
        #: Moves are ordered by the threats they create before this ply; before ``_order_late``
        #: when at least 4 are playable; after that as :meth:`_columns_late`: near the end,
        #: counting threats costs more than it saves (see :meth:`_orders_by_threats`).
        self._order_until = self.cells - 12
        self._order_late = self.cells - 8
        #: Before this ply a move two cells below one of the mover's threat cells counts as one more threat
        #: (see :meth:`_by_threats`).
        self._prepare_until = self.cells - 14
        #: Positions after this many moves are keyed as they are: mirror images met deep in a
        #: search are rare, and mirroring every key costs more than the rare hit saves.
        self.symmetric_plies = self.cells // 2
        #: ``threats(part, 0)`` of the stones ``part`` on one line (see :meth:`_remember`).
        self._parts: dict[int, int] = {}
        self._memo_limit = max(1000, _MEMO_LIMIT // self.cells)  # per cell
        #: Safe cells to play (at most one per column) -> their columns, centre first (cleared when large).
        self._centre_first: dict[int, tuple[int, ...]] = {}
        #: The same -> their columns in the order of :meth:`_columns_late`.
        self._late: dict[int, tuple[int, ...]] = {}
        self._top_row = self.bottom << (height - 1)
        self._empty_threats = self.board_mask if k == 1 else 0

        # Run detection with shifts: a run of ``k`` is found by doubling runs of 1, 2, 4, ...
        steps = []
        length = 1
        while 2 * length <= k:
            steps.append(length)
            length *= 2
        self._run_steps = tuple(steps)
        self._run_rest = k - length  # 0 <= rest < length: overlap the last doubling

    def __repr__(self) -> str:
        return f"ConnectFour(width={self.width}, height={self.height}, k={self.k})"

    def options(self) -> dict[str, Any]:
        """The options that recreate this board."""
        return {"width": self.width, "height": self.height, "k": self.k}

    @property
    def name(self) -> str:
        return f"{self.width}x{self.height} Connect Four, {self.k} in a row"

    # -- bitboard helpers --------------------------------------------------------------
    def aligned(self, stones: int) -> bool:
        """Whether ``stones`` contain ``k`` in a row in some direction."""
        if self.k == 4:  # unrolled: pairs, then pairs of pairs
            for d, d2, _ in self._steps4:
                m = stones & (stones >> d)
                if m & (m >> d2):
                    return True
            m = stones & (stones >> 1)
            return bool(m & (m >> 2))
        steps, rest = self._run_steps, self._run_rest
        for d in self._dirs:
            m = stones
            for length in steps:
                m &= m >> (length * d)
            if rest:
                m &= m >> (rest * d)
            if m:
                return True
        return False

    def threats(self, stones: int, mask: int) -> int:
        """Empty cells of the board where one more stone would make ``k`` in a row.

        ``mask`` is the occupied cells; with ``mask=0`` the answer is every cell,
        empty or not, that would complete a line of ``stones``.

        For each direction ``d`` and each split of the ``k - 1`` other stones
        into ``a`` on one side and ``k - 1 - a`` on the other, a cell qualifies
        when its neighbours ``+d .. +a*d`` and ``-d .. -(k-1-a)*d`` are stones.
        """
        k1 = self.k - 1
        if k1 == 3:  # Connect *Four*: the same rule unrolled, with the fewest shifts
            r = (stones << 1) & (stones << 2) & (stones << 3)
            for d, d2, d3 in self._steps4:
                down = stones >> d
                pairs = stones & down  # stones at x and x + d
                up = stones << d
                # stones at +d, +2d and (+3d or -d); or at -2d, -d and (-3d or +d)
                r |= ((pairs >> d) & ((stones >> d3) | up)) | ((pairs << d2) & ((stones << d3) | down))
            return r & (self.board_mask ^ mask)
        if k1 == 0:
            return self.board_mask & ~mask
        # Vertical: only the stones below can count (cells above an empty cell are empty).
        r = stones << 1
        for i in range(2, k1 + 1):
            r &= stones << i
        for d in self._dirs[1:]:
            ups = [-1]  # ups[a]: cells with stones at +d .. +a*d
            downs = [-1]
            u = v = -1
            for i in range(1, k1 + 1):
                u &= stones >> (i * d)
                v &= stones << (i * d)
                ups.append(u)
                downs.append(v)
            for a in range(k1 + 1):
                r |= ups[a] & downs[k1 - a]
        return r & (self.board_mask ^ mask)

    def possible(self, mask: int) -> int:
        """The cells where a disc can be dropped now (one per non-full column)."""
        return (mask + self.bottom) & self.board_mask

    # -- the protocol ------------------------------------------------------------------
    def initial_state(self) -> C4State:
        empty = self._empty_threats
        return _new_state(C4State, (0, 0, 0, False, empty, empty))

    def to_move(self, state: C4State) -> int:
        return state.moves & 1

    def ply(self, state: C4State) -> int:
        return state.moves

    def legal_moves(self, state: C4State) -> list[int]:
        """All playable columns, best first.

        An immediate win first; else a block of the opponent's immediate win;
        moves that let the opponent win at once (under one of its winning
        cells, or not blocking) last; the rest by how many winning cells they
        create (and whether they prepare one, see :meth:`_by_threats`), ties centre
        first (Pons's ordering) -- or, near the end of the game, as
        :meth:`_columns_late` (counting costs more than it saves).
        """
        if state.won:
            return []
        mask = state.mask
        possible = (mask + self.bottom) & self.board_mask
        if not possible:
            return []
        current = state.current
        order = self._order_bits
        mine = state.mine & possible
        if mine:
            return [c for c, col in order if possible & col & mine] + [
                c for c, col in order if possible & col and not col & mine
            ]
        theirs = state.theirs
        forced = possible & theirs
        if forced:
            return [c for c, col in order if col & forced] + [
                c for c, col in order if possible & col and not col & forced
            ]
        bad = possible & (theirs >> 1)  # dropping here gives the opponent the cell above
        good = possible & ~bad
        if not self._orders_by_threats(state.moves, good):  # as safe_moves
            first = (self._late.get(good) or self._columns_late(good)) if good else ()
            return [*first, *(c for c, col in order if col & bad)]
        return self._by_threats(current, mask, state.moves, state.mine, good) + [c for c, col in order if col & bad]

    def _orders_by_threats(self, moves: int, cells: int) -> bool:
        """Whether moves to ``cells`` after ``moves`` moves are ordered by threats (else centre first).

        While more than 12 cells are empty, always; while more than 8 are, when
        at least 4 moves are playable: fewer nodes than the first rule alone,
        and ordering always while more than 8 (or 6) are empty was slower
        (docs/performance-log.md has the figures).
        """
        return moves < self._order_until or (moves < self._order_late and cells.bit_count() >= 4)

    def _by_threats(self, current: int, mask: int, moves: int, mine: int, cells: int) -> list[int]:
        """The columns of ``cells`` (playable cells) by threats, ties centre first.

        A move scores the winning cells it creates, plus one if it lands two cells
        below one of the mover's winning cells while more than 14 cells are empty:
        the opponent can then never take the cell between without giving the mover
        the win, so the column is the mover's to close.  It pays in the middle
        of the game, not nearer the end (docs/performance-log.md).

        ``current``, ``moves`` and ``mine`` are the stones, the moves played and
        the threat cells of the side to move.  The threat cells computed here are
        remembered for :meth:`play`, which needs them for the child it builds.
        """
        scored = []
        cell_of, remember = self._cell, self._remember
        shift = self._index_bits
        # Counted: the empty cells that become threats with the move and were not threats before
        # (the same order as counting all of them).  The cell played is left in: it is not among
        # the cells it creates, unless it wins (the callers order only moves that do not), and
        # then the count only orders moves.
        new = ~(mask | mine)
        # The cells two below a winning cell of the mover's in the same column (one in the bottom
        # row has none; shifted down, it would land in the previous column's top cell).
        below = (mine & ~self.bottom) >> 2 if moves < self._prepare_until else 0
        for index, col in self._indexed_columns:
            bit = cells & col
            if bit:
                near, memo = cell_of[bit]
                local = (current | bit) & near
                completing = memo.get(local)
                if completing is None:
                    completing = remember(memo, local, bit)
                score = (completing & new).bit_count() + (1 if bit & below else 0)
                scored.append((-score << shift) | index)  # the highest score first, then centre order
        scored.sort()
        order, low = self.order, (1 << shift) - 1
        return [order[v & low] for v in scored]

    def _remember(self, memo: dict[int, int], local: int, bit: int) -> int:
        """The mover's threat cells on the lines through its new stone ``bit``, remembered.

        ``memo`` is the cell's memo and ``local`` the mover's stones on those lines (the key;
        callers read ``memo`` first).  Every threat cell the new stone makes lies on one of
        its lines, so the answer is the union over them of the threat cells of the stones on
        each line; the caller adds the mover's threat cells from before.  Those are remembered
        too, keyed by the stones on the line: they recur far more often than the stones around
        a cell (Pons's end-game set: 563 line patterns against 9,616 around a cell).  The
        memos are kept per cell because one key can be the stones around two of its cells.
        Each is cleared when it grows past its limit.
        """
        if len(memo) > self._memo_limit:
            memo.clear()
        parts = self._parts
        least = self.k - 1
        completing = 0
        for line in self._lines[bit]:
            part = local & line
            if part.bit_count() >= least:  # a line needs k - 1 stones for a threat
                found = parts.get(part)
                if found is None:
                    if len(parts) > _MEMO_LIMIT:
                        parts.clear()
                    found = parts[part] = self.threats(part, 0)
                completing |= found
        memo[local] = completing
        return completing

    # -- solver helpers (optional members used by the ``solver`` algorithm) ---------------
    def immediate_win(self, state: C4State) -> bool:
        """Can the side to move complete a line with its next disc?"""
        return bool(state.mine & (state.mask + self.bottom))

    def has_safe_move(self, state: C4State) -> bool:
        """Whether :meth:`safe_moves` is not empty, without ordering the moves."""
        return self._safe_cells(state.mask, state.theirs) != 0

    def _safe_cells(self, mask: int, theirs: int) -> int:
        """The cells where the side to move can drop a disc safely (0 if none), with stones ``mask``
        on the board and the opponent's threat cells ``theirs``.

        Not under an opponent's threat cell; and the one playable threat cell
        if there is one (a block), none if two (both cannot be blocked).
        """
        possible = (mask + self.bottom) & self.board_mask
        forced = possible & theirs
        if forced:
            if forced & (forced - 1):
                return 0
            possible = forced
        return possible & ~(theirs >> 1)

    def has_safe_reply(self, state: C4State, move: int) -> bool:
        """``has_safe_move(play(state, move))``, without building the state.

        The solver asks it of a parent's moves when that question alone settles
        each child (see :mod:`gametree.search.engine`), which happens at many
        of its nodes.
        """
        current, mask, _, _, mine, _ = state
        bit = (mask + self._bottom_bit[move]) & self._column_mask[move]
        after = mask | bit
        near, memo = self._cell[bit]  # the mover's new threat cells, as in play
        local = (current | bit) & near
        completing = memo.get(local)
        if completing is None:
            completing = self._remember(memo, local, bit)
        # As _safe_cells(after, the new state's ``theirs``), written out (a call less). Occupied
        # cells among the threats need not be cleared: neither they nor the cells below them are playable.
        threats = completing | mine
        possible = (after + self.bottom) & self.board_mask
        forced = possible & threats
        if forced:
            if forced & (forced - 1):
                return False
            possible = forced
        return possible & ~(threats >> 1) != 0

    def safe_moves(self, state: C4State) -> Sequence[int]:
        """The moves, best first, after which the opponent cannot win at once (Pons's non-losing moves).

        Assumes the side to move has no immediate win.  Two opponent threats
        that can be played now cannot both be blocked: then there are none.
        Late in the game (and for a single move) the sequence is a shared
        tuple from a table: do not modify it.
        """
        current, mask, moves, _, mine, theirs = state
        # As _safe_cells, written out: this is the solver's hottest call.
        possible = (mask + self.bottom) & self.board_mask
        forced = possible & theirs
        if forced:
            if forced & (forced - 1):
                return ()
            possible = forced
        safe = possible & ~(theirs >> 1)
        if not safe:
            return ()
        # Late in the game (as _orders_by_threats, inlined), and for a single move: not by threats.
        if not safe & (safe - 1) or (
            moves >= self._order_until and (moves >= self._order_late or safe.bit_count() < 4)
        ):
            columns = self._late.get(safe)
            return columns if columns is not None else self._columns_late(safe)
        return self._by_threats(current, mask, moves, mine, safe)

    def safe_moves_unordered(self, state: C4State) -> Sequence[int]:
        """The moves of :meth:`safe_moves`, centre first, without counting the threats they create.

        The solver asks it where it will only ask of each move whether the
        opponent has a safe reply (:meth:`has_safe_reply`): ordering by threats
        costs more there than it saves.  A shared tuple: do not modify it.
        """
        safe = self._safe_cells(state.mask, state.theirs)
        if not safe:
            return ()
        columns = self._centre_first.get(safe)
        return columns if columns is not None else self._columns_centre_first(safe)

    def _columns_late(self, cells: int) -> tuple[int, ...]:
        """The columns of ``cells`` (at most one per column) as ordered late in the game, remembered in ``_late``.

        Moves that fill a column first (a cell of the top row leaves the opponent
        no cell above it), then centre first: fewer nodes than centre first alone
        (docs/performance-log.md).  Playing the highest cell first, row by row, was
        no better; moves under one's own threat last did not help either.
        """
        late = self._late
        if len(late) > 100_000:
            late.clear()
        top = cells & self._top_row
        if top and top != cells:  # both kinds: each part from the centre-first table (they recur more often)
            columns = self._centre_first_of(top) + self._centre_first_of(cells ^ top)
        else:
            columns = self._centre_first_of(cells)
        late[cells] = columns
        return columns

    def _centre_first_of(self, cells: int) -> tuple[int, ...]:
        """The columns of ``cells``, centre first, from ``_centre_first`` (computed on a miss)."""
        columns = self._centre_first.get(cells)
        return columns if columns is not None else self._columns_centre_first(cells)

    def _columns_centre_first(self, cells: int) -> tuple[int, ...]:
        """The columns of ``cells`` (at most one per column), centre first, remembered in ``_centre_first``."""
        centre_first = self._centre_first
        if len(centre_first) > 100_000:
            centre_first.clear()
        columns = centre_first[cells] = tuple([c for c, col in self._order_bits if cells & col])
        return columns

    def play(self, state: C4State, move: int) -> C4State:
        current, mask, moves, _, mine, theirs = state
        bit = (mask + self._bottom_bit[move]) & self._column_mask[move]
        after = mask | bit
        # The cells where the mover now threatens to win: those it had, and those of its stones
        # on the lines through the new one (remembered), if empty.
        near, memo = self._cell[bit]
        local = (current | bit) & near
        completing = memo.get(local)
        if completing is None:
            completing = self._remember(memo, local, bit)
        return _new_state(
            C4State, (current ^ mask, after, moves + 1, bit & mine != 0, theirs & ~bit, (completing | mine) & ~after)
        )

    def outcome(self, state: C4State) -> Outcome | None:
        if state.won:
            return _WINS[(state.moves - 1) & 1]
        if state.moves == self.cells:
            return _DRAW
        return None

    def key(self, state: C4State) -> int:
        """``current + mask``: unique per position (Pons), and it implies the ply."""
        return state.current + state.mask

    # -- compiled rules --------------------------------------------------------------------
    def compiled_rules(self) -> CompiledRules | None:
        """The rules of :mod:`connect4_rules` for this board, if its bitboard fits in 64 bits."""
        if self.width * self.h1 > 64:
            return None
        h, k, small = self.height, self.k, min(self.width, self.height)
        fits = ((1, k <= h), (self.h1, k <= self.width), (h, k <= small), (h + 2, k <= small))
        directions = [d for d, fit in fits if fit] + [0] * 4
        board = C4Board(
            width=self.width,
            height=h,
            h1=self.h1,
            bottom=self.bottom,
            board=self.board_mask,
            k=k,
            symmetric_plies=self.symmetric_plies,
            lines=sum(fit for _, fit in fits),
            directions=(directions[0], directions[1], directions[2], directions[3]),
            top_row=self._top_row,
            order_until=max(0, self._order_until),
            order_late=max(0, self._order_late),
            prepare_until=max(0, self._prepare_until),
            order=self.order,
        )
        return CompiledRules(
            functions=_compiled_functions,
            board=board,
            encode=_current_and_mask,
            encode_move=_same_move,
            decode_move=_same_move,
            max_moves=2 * self.width,
            key_bits=self.width * (self.height + 1),  # current + mask: below the top sentinels
            specialise=(self.width, self.height, self.k) in SPECIALISED_BOARDS,
        )

    # -- tiers (gametree.game.Tiered): tier n holds the positions of n stones ------------------------
    def tier_count(self) -> int:
        """One tier for each number of stones, 0 to the number of cells."""
        return self.cells + 1

    def _ways(self) -> tuple[int, ...]:
        if self._column_ways is None:
            self._column_ways = column_ways(self.width, self.height)
        return self._column_ways

    def tier_size(self, tier: int) -> int:
        """Column heights of sum ``tier``, times the ways to pick the side to move's stones among them."""
        return self._ways()[tier] * binomial(tier, tier // 2)

    def tier_position(self, state: C4State) -> tuple[int, int]:
        """``(stones, index)``: see :mod:`connect4_tiers` for the index."""
        n, h1 = state.moves, self.h1
        column = (1 << self.height) - 1
        heights = [((state.mask >> (c * h1)) & column).bit_count() for c in range(self.width)]
        cells = [c * h1 + r for c in range(self.width) for r in range(heights[c])]
        stones = subset_rank(j for j, cell in enumerate(cells) if state.current >> cell & 1)
        return n, heights_rank(heights, self._ways(), self.cells) * binomial(n, n // 2) + stones

    def tier_unrank(self, tier: int, index: int) -> C4State:
        """The position of ``index`` among those of ``tier`` stones."""
        per = binomial(tier, tier // 2)
        heights = heights_unrank(index // per, tier, self.width, self._ways(), self.cells)
        cells = [c * self.h1 + r for c in range(self.width) for r in range(heights[c])]
        mask = sum(1 << cell for cell in cells)
        current = sum(1 << cells[j] for j in subset_unrank(index % per, tier, tier // 2))
        last = current ^ mask
        return _new_state(
            C4State, (current, mask, tier, self.aligned(last), self.threats(current, mask), self.threats(last, mask))
        )

    def compiled_tiers(self) -> CompiledTiers | None:
        """The tier functions of :mod:`connect4_tiers`, for boards with compiled rules whose indices fit in 62 bits."""
        sizes = tuple(self.tier_size(t) for t in range(self.tier_count()))
        if self.width * self.h1 > 64 or max(sizes) >= 1 << 62:  # (indices are 64-bit integers in compiled code)
            return None
        board = C4Tiers(self.width, self.height, self.h1, self.cells, binomial_table(), self._ways())
        return CompiledTiers(functions=_compiled_tier_functions, board=board, sizes=sizes)

    # -- symmetry ------------------------------------------------------------------------
    def mirror_bits(self, bits: int) -> int:
        """A column-structured bit pattern reflected left to right."""
        out = 0
        cb = self._column_bits
        for shift, target in self._mirror:
            out |= ((bits >> shift) & cb) << target
        return out

    def canonical_key(self, state: C4State) -> int:
        """The smaller of the key and the key of the left-right mirror image."""
        key = state.current + state.mask
        if state.moves >= self.symmetric_plies:
            return key
        mirrored = self.mirror_bits(key)
        return key if key <= mirrored else mirrored

    def symmetries(self, state: C4State) -> list[C4State]:
        m = self.mirror_bits
        mirrored = C4State(m(state.current), m(state.mask), state.moves, state.won, m(state.mine), m(state.theirs))
        return [state] if mirrored == state else [state, mirrored]

    # -- heuristic -------------------------------------------------------------------------
    def windows(self) -> tuple[int, ...]:
        """Every line of ``k`` cells on the board, as masks."""
        if self._windows is None:
            found = []
            for c in range(self.width):
                for r in range(self.height):
                    for dc, dr in ((0, 1), (1, 0), (1, 1), (1, -1)):
                        ec, er = c + dc * (self.k - 1), r + dr * (self.k - 1)
                        if 0 <= ec < self.width and 0 <= er < self.height:
                            found.append(sum(1 << ((c + dc * i) * self.h1 + r + dr * i) for i in range(self.k)))
            self._windows = tuple(dict.fromkeys(found))
        return self._windows

    def evaluate(self, state: C4State) -> float:
        """Open windows weighted by how full they are, plus threats, for the side to move, in (-1, 1)."""
        mine, theirs = state.current, state.current ^ state.mask
        score = 0
        for line in self.windows():
            a, b = mine & line, theirs & line
            if a and not b:
                score += 1 << (2 * a.bit_count())
            elif b and not a:
                score -= 1 << (2 * b.bit_count())
        # The side to move is a tempo ahead.
        score += 1 << (2 * self.k - 2)
        scale = 1 << (2 * self.k + 2)
        return score / (abs(score) + scale)

    # -- text ----------------------------------------------------------------------------
    def split_moves(self, text: str) -> list[str]:
        """``4453`` -> ``['4', '4', '5', '3']`` on boards up to 9 wide; otherwise split on spaces."""
        fields = text.split()
        if self.width <= 9 and len(fields) == 1:
            return list(fields[0])
        return fields

    def parse_move(self, state: C4State, text: str) -> int:
        t = text.strip()
        if not t:
            raise MoveParseError("empty move")
        shown = t if len(t) <= 60 else t[:57] + "..."  # input echoed in a message is cut short
        if not t.isdecimal():
            raise MoveParseError(f"cannot read {shown!r}: write a column number 1..{self.width}")
        try:
            column = int(t)
        except ValueError:  # over the 4,300 digits int() reads: off the board
            column = 0
        if not 1 <= column <= self.width:
            raise MoveParseError(
                f"column {column if len(t) <= 60 else shown} is off the board (columns 1..{self.width})"
            )
        return column - 1

    def format_move(self, state: C4State, move: int) -> str:
        return str(move + 1)

    def check_move(self, state: C4State, move: int) -> None:
        """Raise :class:`IllegalMoveError` if the column does not exist or is full."""
        if not 0 <= move < self.width:
            raise IllegalMoveError(f"column {move + 1} is off the board (columns 1..{self.width})")
        if state.mask & self._top_bit[move]:
            raise IllegalMoveError(f"column {move + 1} is full")

    def replay(self, state: C4State, texts: Sequence[str]) -> C4State:
        """The state after the columns ``texts`` (``["4", "4", "5"]``), checked; threat masks computed once at the end.

        Raises :class:`GameError` without saying which move is wrong
        (:func:`gametree.play_text` finds that out by replaying one by one).
        """
        if state.won:
            raise IllegalMoveError("the game is over")
        current, mask = state.current, state.mask
        if not texts:
            return state
        column_of, bottom = self._column_of_text, self._bottom_bit
        try:
            for text in texts:
                # ``mask + bottom`` sets the column's lowest empty cell and clears the cells below it; in
                # a full column it sets the sentinel bit above it, which stays set (checked below).
                current, mask = current ^ mask, mask | (mask + bottom[column_of[text]])
        except KeyError:
            raise IllegalMoveError("cannot replay") from None
        if mask & self._sentinels:  # a disc dropped in a full column (on a full board, every column is)
            raise IllegalMoveError("cannot replay")
        bit = 1 << (
            (mask & self._column_mask[column_of[texts[-1]]]).bit_length() - 1
        )  # the last disc: its column's top one
        moves = state.moves + len(texts)
        # Lines are never broken, so a game that ended before the last move shows a line
        # of the side to move now, or one of the last mover's that does not need the last stone.
        last = current ^ mask
        won = self.aligned(last)
        if self.aligned(current) or (won and self.aligned(last ^ bit)):
            raise GameOverError("cannot replay")
        return _new_state(C4State, (current, mask, moves, won, self.threats(current, mask), self.threats(last, mask)))

    def stones(self, state: C4State, player: int) -> int:
        """The bitboard of ``player``'s stones (0 = first player)."""
        return state.current if (state.moves & 1) == player else state.current ^ state.mask

    # -- board display -----------------------------------------------------------------
    @property
    def row_labels(self) -> tuple[str, ...]:
        return tuple(str(r) for r in range(self.height, 0, -1))

    @property
    def column_labels(self) -> tuple[str, ...]:
        return tuple(str(c) for c in range(1, self.width + 1))

    @property
    def move_help(self) -> str:
        """One line on how to type a move (shown by ``gametree play``)."""
        return f"type a column number 1-{self.width}; the disc drops to the lowest free cell"

    def board_cells(self, state: C4State) -> tuple[tuple[str, ...], ...]:
        names = self.info.player_names
        first, second = self.stones(state, 0), self.stones(state, 1)
        rows = []
        for r in range(self.height - 1, -1, -1):
            row = []
            for c in range(self.width):
                bit = 1 << (c * self.h1 + r)
                row.append(names[0] if first & bit else names[1] if second & bit else "")
            rows.append(tuple(row))
        return tuple(rows)

    def move_cell(self, state: C4State, move: int) -> tuple[int, int]:
        """(row from the top, column) where a disc dropped in ``move`` lands."""
        filled = (state.mask & self._column_mask[move]).bit_count()
        return (self.height - 1 - filled, move)

    def winning_cells(self, state: C4State) -> tuple[tuple[int, int], ...]:
        """Cells (row from the top, column) of every completed line, or ()."""
        if not state.won:
            return ()
        stones = self.stones(state, (state.moves - 1) & 1)
        cells: set[tuple[int, int]] = set()
        for line in self.windows():
            if stones & line == line:
                for bit in range(line.bit_length()):
                    if line >> bit & 1:
                        c, r = divmod(bit, self.h1)
                        cells.add((self.height - 1 - r, c))
        return tuple(sorted(cells))

    def render(self, state: C4State) -> str:
        marks = {name: name[0] for name in self.info.player_names} | {"": "."}
        pad = len(str(self.width))
        lines = [" ".join(f"{marks[cell]:>{pad}}" for cell in row) for row in self.board_cells(state)]
        lines.append(" ".join(f"{label:>{pad}}" for label in self.column_labels))
        return "\n".join(lines)


#: The opening books shipped with Connect Four (package data).
BOOKS = Path(__file__).with_name("books")


@hookimpl
def gametree_register_games(registry) -> None:  # type: ignore[no-untyped-def]
    registry.add_game(
        GameSpec(
            name="connect4",
            factory=ConnectFour,
            summary="Connect Four: drop discs, k in a row on a width x height board",
            options=(
                Option("width", int, 7, f"board width (columns, 1 to {MAX_SIDE})"),
                Option("height", int, 6, f"board height (rows, 1 to {MAX_SIDE})"),
                Option("k", int, 4, "discs in a row to win"),
            ),
            # Opening books built by `gametree book build` and exported (see docs/books.md).
            books=tuple(str(path) for path in sorted(BOOKS.glob("*.book"))),
        )
    )
