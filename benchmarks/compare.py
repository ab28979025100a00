"""Solve the same positions with gametree, easyAI and OpenSpiel, side by side.

    python benchmarks/compare.py              # every case, 60 s cap per engine per case
    python benchmarks/compare.py --quick      # the small cases (under a minute)
    python benchmarks/compare.py --case 4x4k4 --engine gametree-solver --engine openspiel-alphabeta
    python benchmarks/compare.py --list       # the cases and engines, and what each engine runs
    python benchmarks/compare.py --references --pons https://github.com/PascalPons/connect4
    python benchmarks/compare.py --references --pons ~/src/connect4 --medium ~/Test_L2_R2

easyAI, OpenSpiel and BitBully are optional: `pip install -e '.[compare]'`.  An
engine whose package is missing is reported in one line and the others still run.

``--references``: gametree's compiled engine beside the two C++ Connect Four
solvers, Pascal Pons's and BitBully, on his end-easy and middle-easy sets (all
1000 positions of each), his middle-medium set if given (``--medium FILE``,
his Test_L2_R2, the first 200 positions: it is neither in his repository nor
here) and 200 random 7x6 positions of 12 to 24 stones (``--seed``).  Pons's
solver is built at run time from ``--pons`` (a folder of his sources or
anything ``git clone`` takes) with our driver, benchmarks/pons_driver.cpp,
``g++ -O3 -march=native``, in a temporary folder: his code is never copied
here.  These three engines keep one table for the whole set (no opening book)
and time each search call alone (gametree ``Solver(game,
engine="compiled").score``, Pons's ``Solver::solve``, BitBully's ``mtdf``);
the table under the main one gives, per set, ours over each engine: total
search time, the median of the per-position time ratios, total nodes, and the
whole process (start-up included; for Pons, his driver's process).  The
compiled engine is run once first, unmeasured, so that numba's cache holds it;
its process then warms it up on one position, outside the clock.  Random
positions have no published score: the engines' scores are compared, and a
disagreement is printed.

Every engine runs each case in its own subprocess (so peak memory is its own),
with a time cap: the child stops itself with a timer signal at the cap and
reports how many nodes it had visited by then; the parent kills it if it does
not stop 30 s after the cap.  Seconds are wall time of the search alone
(imports and game set-up excluded; for Connect Four sets, replaying each
position's moves is included, for every engine alike).  "ours/theirs" is
gametree-solver's time on the case over the engine's time (below 1: we are
faster); against a run that hit the cap it is an upper bound ("<").

What each engine runs (see --list):
- gametree-solver: ``gametree.search.run(game, state, algorithm="solver",
  all_moves=False, pv=False)``, exact depth-aware score of the root.
- gametree-alphabeta: the same with ``algorithm="alphabeta"``.
- easyai-negamax: easyAI's ``Negamax`` to the full remaining depth with its
  dict ``TranspositionTable``; its value +-100*(1 + 0.001*depth left) is a
  depth-aware score, converted here to gametree's scale.
- easyai-id: easyAI's ``solve_with_iterative_deepening`` (Negamax to depths
  1, 2, ..., sharing a table): the first depth that proves a win (loss) is the
  length of the fastest win (slowest loss), so this too is a depth-aware score.
- easyai-dfs: easyAI's ``solve_with_depth_first_search`` with a table:
  win/draw/loss only.
- openspiel-alphabeta: ``open_spiel.python.algorithms.minimax.alpha_beta_search``
  (pure-Python alpha-beta, no table, over OpenSpiel's C++ game): win/draw/loss
  (player_return +1/0/-1), not depth-aware.
- openspiel-minimax-solver: ``open_spiel.python.algorithms.minimax_solver.
  MinimaxSolver`` (memoised full minimax over every reachable state, keyed by
  the state string): win/draw/loss; from the empty board only.
- gametree-compiled, pons, bitbully: see ``--references`` above (Connect
  Four sets only; run when named or with ``--references``).

For m,n,k boards and 7x6 Connect Four easyAI gets small bitboard adapters
written here (centre-first move order, undo by ``unmake_move``, an int position
code for the table): easyAI's own numpy ``easyAI.games.ConnectFour`` has no undo
or table key and is far slower per node, so it would time the board code more
than the search.  OpenSpiel runs its C++ ``tic_tac_toe`` game for 3x3,
``mnk(m=..,n=..,k=..)`` for the other boards and ``connect_four`` for Pascal
Pons's 7x6 test positions.
Node counts: gametree's own statistics; easyAI: moves made (plus the root);
OpenSpiel: calls of the recursive search function (counted by a wrapper that
adds about 9% to its time, included in the figures) or, for the minimax
solver, calls of its table-building function (positions expanded).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "connect4"  # Pons's sets, sources in tests/data/README.md
CAP = 60.0
#: Case.file of the two sets that are not files in DATA.
MEDIUM, RANDOM = "<--medium>", "<random>"
#: Stones of the random positions (inclusive), as in bench_compiled.py.
STONES = (12, 24)
#: Seconds the parent waits past the cap before killing a child that does not stop.
GRACE = 30.0
#: Seed of the random positions (--seed), the middle-medium file (--medium) and the built Pons driver (--pons).
SEED = 2024
MEDIUM_FILE: Path | None = None
PONS_BINARY: Path | None = None


@dataclass(frozen=True)
class Case:
    name: str
    kind: str  # "mnk" (empty board) or "c4" (a set of Pons's 7x6 positions)
    width: int = 0
    height: int = 0
    k: int = 0
    expected: str = ""  # value for the first player (mnk); the c4 files carry their own scores
    file: str = ""
    count: int = 0
    quick: bool = False


CASES = {
    c.name: c
    for c in (
        Case("3x3k3", "mnk", 3, 3, 3, "draw", quick=True),
        Case("4x4k3", "mnk", 4, 4, 3, "win", quick=True),
        Case("4x3k3", "mnk", 4, 3, 3, "win", quick=True),
        Case("5x5k3", "mnk", 5, 5, 3, "win"),
        Case("4x4k4", "mnk", 4, 4, 4, "draw"),
        Case("5x4k4", "mnk", 5, 4, 4, "draw"),
        Case("6x5k4", "mnk", 6, 5, 4, "win"),
        Case("c4-end-20", "c4", file="pons_end_easy.txt", count=20, quick=True),
        Case("c4-end-1000", "c4", file="pons_end_easy.txt", count=1000),
        Case("c4-middle-20", "c4", file="pons_middle_easy.txt", count=20),
        Case("c4-middle-1000", "c4", file="pons_middle_easy.txt", count=1000),
        # Pons's middle-medium set (his "Test_L2_R2"): not in his repository nor here; given by --medium FILE.
        Case("c4-middle-medium", "c4", file=MEDIUM, count=200),
        # Random 7x6 positions, 12 to 24 stones (random_positions, seed --seed): no published scores,
        # the engines' scores are checked against each other.
        Case("c4-random", "c4", file=RANDOM, count=200),
    )
}
#: The cases and engines of --references: gametree's compiled engine beside the two C++ solvers.
REFERENCE_CASES = ("c4-end-1000", "c4-middle-1000", "c4-middle-medium", "c4-random")
REFERENCE_ENGINES = ("gametree-compiled", "pons", "bitbully")
#: Cases run only when named (--case) or with --references.
EXTRA_CASES = ("c4-middle-1000", "c4-middle-medium", "c4-random")

#: Engine name -> (package it needs or None, whether its answer is depth-aware).
ENGINES: dict[str, tuple[str | None, bool]] = {
    "gametree-solver": (None, True),
    "gametree-alphabeta": (None, True),
    "easyai-negamax": ("easyAI", True),
    "easyai-id": ("easyAI", True),
    "easyai-dfs": ("easyAI", False),
    "openspiel-alphabeta": ("pyspiel", False),
    "openspiel-minimax-solver": ("pyspiel", False),
    "gametree-compiled": ("numba", True),
    "pons": ("g++", True),
    "bitbully": ("bitbully", True),
}
PACKAGES = {"easyAI": "easyAI", "pyspiel": "open_spiel", "numba": "numba", "bitbully": "bitbully"}
#: Engines that solve Connect Four positions only, each position timed on its own.
POSITION_ENGINES = ("gametree-compiled", "pons", "bitbully")
#: The engine the "ours/theirs" column divides by.
OURS = "gametree-solver"


class Capped(BaseException):
    """Raised in the child by the timer signal; a BaseException so no engine swallows it."""


@dataclass
class Row:
    case: str
    engine: str
    status: str  # "done", "capped", "killed", "error", "skipped"
    result: str = ""
    correct: bool | None = None
    nodes: int | None = None
    seconds: float | None = None
    peak_mb: float | None = None
    note: str = ""
    #: Connect Four engines timed per position: [moves, score, nodes, search seconds] of each position solved.
    positions: list[tuple[str, int, int, float]] | None = None
    #: Wall seconds of the engine's whole process (start-up, set-up and warm-up included), when measured.
    process_seconds: float | None = None


def win_score(cells: int, played_before: int) -> int:
    """gametree's (and Pons's) score of a win by the game-ending move after ``played_before`` moves."""
    return (cells + 1 - played_before) // 2


def describe(score: int) -> str:
    """A depth-aware score in words: "win +6", "draw", "loss -3"."""
    value = "win" if score > 0 else "loss" if score < 0 else "draw"
    return value if score == 0 else f"{value} {score:+d}"


def wdl(score: float) -> str:
    return "win" if score > 0 else "loss" if score < 0 else "draw"


def c4_positions(case: Case) -> list[tuple[str, int | None]]:
    """The case's positions (moves, columns 1-based) and their published scores (None: not published)."""
    if case.file == RANDOM:
        return [(moves, None) for moves in random_positions(case.count, SEED)]
    path = MEDIUM_FILE if case.file == MEDIUM else DATA / case.file
    if path is None:
        raise ValueError("Pons's middle-medium set is not here: give his Test_L2_R2 file with --medium FILE")
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()][: case.count]
    return [(fields[0], int(fields[1]) if len(fields) > 1 else None) for fields in rows]


# -- random 7x6 positions --------------------------------------------------------------------
#: Bitboards as in Pons's solver and gametree's plugin: column c in bits 7c to 7c + 5.
BOTTOM = [1 << (7 * c) for c in range(7)]
TOP = [1 << (7 * c + 5) for c in range(7)]
COLUMN = [0b111111 << (7 * c) for c in range(7)]


def aligned(stones: int) -> bool:
    """Four in a row among ``stones`` (one player's bitboard)."""
    for d in (1, 7, 6, 8):
        m = stones & (stones >> d)
        if m & (m >> 2 * d):
            return True
    return False


def random_positions(count: int, seed: int) -> list[str]:
    """``count`` distinct 7x6 positions of 12 to 24 stones: random legal moves from the empty board.

    Positions already won and positions where the side to move can win at once
    are rejected (Pons's solver takes neither).  The same seed gives the same
    positions as bench_compiled.py's generator (the same draws of the same
    random generator).
    """
    rng = random.Random(seed)
    found: dict[str, None] = {}
    while len(found) < count:
        mask, stones, moves = 0, [0, 0], []
        for ply in range(rng.randint(*STONES)):
            c = rng.choice([c for c in range(7) if not mask & TOP[c]])
            bit = (mask + BOTTOM[c]) & COLUMN[c]
            mask |= bit
            stones[ply % 2] |= bit
            moves.append(str(c + 1))
            if aligned(stones[ply % 2]):
                break
        else:
            mover = stones[len(moves) % 2]
            playable = [c for c in range(7) if not mask & TOP[c]]
            if not any(aligned(mover | (mask + BOTTOM[c]) & COLUMN[c]) for c in playable):
                found.setdefault("".join(moves))
    return list(found)


# -- easyAI adapters -------------------------------------------------------------------------
def easyai_mnk(width: int, height: int, k: int) -> Any:
    """An easyAI ``TwoPlayerGame`` for the m,n,k game: bitboards, centre-first moves, undo."""
    from easyAI import AI_Player, TwoPlayerGame

    cells = width * height
    lines = set()
    for r in range(height):
        for c in range(width):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                er, ec = r + dr * (k - 1), c + dc * (k - 1)
                if 0 <= er < height and 0 <= ec < width:
                    lines.add(sum(1 << ((r + dr * i) * width + c + dc * i) for i in range(k)))
    through = [tuple(m for m in lines if m >> i & 1) for i in range(cells)]
    cy, cx = (height - 1) / 2, (width - 1) / 2
    order = sorted(range(cells), key=lambda i: (-len(through[i]), abs(i // width - cy) + abs(i % width - cx), i))

    class MNK(TwoPlayerGame):  # type: ignore[misc]
        made = 0  # moves made by the search, over all instances: the node count

        def __init__(self) -> None:
            self.players = [AI_Player(None), AI_Player(None)]
            self.current_player = 1
            self.stones = [0, 0]  # bitboards of player 1 and player 2
            self.won = False

        def possible_moves(self) -> list[int]:
            taken = self.stones[0] | self.stones[1]
            return [i for i in order if not taken >> i & 1]

        def make_move(self, move: int) -> None:
            MNK.made += 1
            p = self.current_player - 1
            mine = self.stones[p] = self.stones[p] | 1 << move
            self.won = any(mine & m == m for m in through[move])

        def unmake_move(self, move: int) -> None:
            p = self.current_player - 1
            self.stones[p] &= ~(1 << move)
            self.won = False  # a game goes on only from a position nobody has won

        def is_over(self) -> bool:
            return self.won or (self.stones[0] | self.stones[1]).bit_count() == cells

        def scoring(self) -> int:
            return -100 if self.won else 0  # from the side to move: the last mover won

        def ttentry(self) -> int:
            return self.stones[0] | self.stones[1] << cells

    return MNK


def easyai_c4() -> Any:
    """An easyAI ``TwoPlayerGame`` for 7x6 Connect Four: bitboards as in Pons's solver, undo.

    easyAI ships a numpy ``easyAI.games.ConnectFour`` without undo or a table
    key; it is far slower per node, so it would measure the board code more
    than the search.  This adapter gives easyAI's search the same kind of board
    gametree's plugin has (column ``c`` in bits ``7c`` to ``7c + 5``).
    """
    from easyAI import AI_Player, TwoPlayerGame

    bottom = [1 << (7 * c) for c in range(7)]
    top = [1 << (7 * c + 5) for c in range(7)]
    column = [0b111111 << (7 * c) for c in range(7)]
    full = sum(column)
    order = (3, 2, 4, 1, 5, 0, 6)

    def aligned(s: int) -> bool:
        for d in (1, 7, 6, 8):
            m = s & (s >> d)
            if m & (m >> 2 * d):
                return True
        return False

    class C4(TwoPlayerGame):  # type: ignore[misc]
        made = 0

        def __init__(self, moves: str) -> None:
            self.players = [AI_Player(None), AI_Player(None)]
            self.current_player = 1
            self.stones = [0, 0]
            self.mask = 0
            self.won = False
            for ch in moves:  # set up the position: not counted as search
                self._drop(int(ch) - 1)
                self.switch_player()

        def _drop(self, c: int) -> None:
            bit = (self.mask + bottom[c]) & column[c]
            self.mask |= bit
            p = self.current_player - 1
            self.stones[p] |= bit
            self.won = aligned(self.stones[p])

        def possible_moves(self) -> list[int]:
            return [c for c in order if not self.mask & top[c]]

        def make_move(self, c: int) -> None:
            C4.made += 1
            self._drop(c)

        def unmake_move(self, c: int) -> None:
            in_column = self.mask & column[c]
            bit = 1 << (in_column.bit_length() - 1)  # the highest disc of the column
            self.mask ^= bit
            self.stones[self.current_player - 1] ^= bit
            self.won = False

        def is_over(self) -> bool:
            return self.won or self.mask == full

        def scoring(self) -> int:
            return -100 if self.won else 0

        def ttentry(self) -> int:
            return self.stones[0] | self.mask << 64

    return C4


def easyai_solve(engine: str, game: Any, cells: int, played: int) -> tuple[str, int, bool]:
    """Run one easyAI engine from ``game`` (``played`` moves into a ``cells``-move game).

    Returns (description, score, exact): a depth-aware score on gametree's
    scale when ``exact``, else +1/0/-1 for the side to move.
    """
    from easyAI import Negamax, TranspositionTable, solve_with_depth_first_search, solve_with_iterative_deepening

    remaining = cells - played
    if engine == "easyai-negamax":
        ai = Negamax(remaining, tt=TranspositionTable())
        ai(game)
        value = ai.alpha
        if value == 0:
            return "draw", 0, True
        depth_left = round((abs(value) / 100 - 1) * 1000)  # depth left after the game-ending move
        score = (depth_left + 2) // 2 * (1 if value > 0 else -1)
        return describe(score), score, True
    if engine == "easyai-id":
        # The first depth at which the root is proven won (lost) is the length of the
        # fastest forced win (slowest loss), so the answer is exact and depth-aware.
        result, depth, _ = solve_with_iterative_deepening(
            game, range(1, remaining + 1), win_score=100, tt=TranspositionTable(), verbose=False
        )
        score = result * win_score(cells, played + depth - 1)
        return describe(score), score, True
    result = solve_with_depth_first_search(game, win_score=100, tt=TranspositionTable())
    return wdl(result), result, False


# -- OpenSpiel -------------------------------------------------------------------------------
class SpielCounter:
    """Count calls of OpenSpiel's recursive alpha-beta by wrapping the module function."""

    def __init__(self) -> None:
        from open_spiel.python.algorithms import minimax

        self.nodes = 0
        original = minimax._alpha_beta

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.nodes += 1
            return original(*args, **kwargs)

        minimax._alpha_beta = counted


def spiel_game(case: Case) -> Any:
    import pyspiel

    if case.kind == "c4":
        return pyspiel.load_game("connect_four")
    if (case.width, case.height, case.k) == (3, 3, 3):
        return pyspiel.load_game("tic_tac_toe")
    return pyspiel.load_game(f"mnk(m={case.width},n={case.height},k={case.k})")


# -- one engine on one case (in the child) ---------------------------------------------------
class Progress:
    """What a run has done so far, readable when the cap interrupts it."""

    def __init__(self) -> None:
        self.nodes = 0
        self.done = 0  # positions finished (Connect Four sets)
        self.right = 0
        self.counter: Callable[[], int | None] = lambda: None
        #: Per position (engines timed per position): moves, score, nodes, search seconds.
        self.positions: list[tuple[str, int, int, float]] = []
        #: Wall seconds of a process the engine runs in (Pons's driver), if any.
        self.process_seconds: float | None = None
        #: What the engine says of its run besides (gametree: its table's fill and bytes an entry).
        self.note = ""


#: A prepared run: called with the clock running, returns (result text, agrees with the known value).
Solve = Callable[[], tuple[str, "bool | None"]]


def prepare_mnk(engine: str, case: Case, progress: Progress) -> Solve:
    cells = case.width * case.height
    if engine.startswith("gametree"):
        from gametree import load
        from gametree.search import run as search

        game = load().game("tictactoe").create(width=case.width, height=case.height, k=case.k)
        algorithm = engine.split("-")[1]

        def solve() -> tuple[str, bool | None]:
            result = search(game, algorithm=algorithm, all_moves=False, pv=False)
            progress.nodes = result.stats.nodes
            return describe(int(result.score)), result.value == case.expected

        return solve
    if engine.startswith("easyai"):
        game_class = easyai_mnk(case.width, case.height, case.k)
        start = game_class()
        progress.counter = lambda: game_class.made + 1

        def solve() -> tuple[str, bool | None]:
            text, score, _ = easyai_solve(engine, start, cells, 0)
            progress.nodes = game_class.made + 1
            return text, wdl(score) == case.expected

        return solve
    if engine == "openspiel-alphabeta":
        from open_spiel.python.algorithms import minimax

        game = spiel_game(case)
        counter = SpielCounter()
        progress.counter = lambda: counter.nodes

        def solve() -> tuple[str, bool | None]:
            value, _ = minimax.alpha_beta_search(game, maximum_depth=cells)
            progress.nodes = counter.nodes
            return wdl(value), wdl(value) == case.expected

        return solve
    from open_spiel.python.algorithms import minimax_solver

    game = spiel_game(case)
    solver = minimax_solver.MinimaxSolver(str(game))
    original = solver._create_table
    calls = [0]

    def counted(state: Any) -> Any:
        calls[0] += 1
        return original(state)

    solver._create_table = counted
    progress.counter = lambda: calls[0]

    def solve() -> tuple[str, bool | None]:
        solver.solve()
        value = solver._table[str(game.new_initial_state())].value
        progress.nodes = calls[0]
        return wdl(value), wdl(value) == case.expected

    return solve


def prepare_c4(engine: str, case: Case, progress: Progress) -> Solve:
    """Solve each position; count the answers that agree with Pons's (exact score, or its sign)."""
    if engine == "openspiel-minimax-solver":
        raise ValueError("MinimaxSolver only solves from the initial state")
    positions = c4_positions(case)
    exact = ENGINES[engine][1]
    if engine in POSITION_ENGINES:
        return prepare_positions(engine, positions, progress)

    def summary() -> tuple[str, bool | None]:
        what = "exact score" if exact else "win/draw/loss"
        return f"{progress.right}/{len(positions)} right ({what})", progress.right == len(positions)

    if engine.startswith("gametree"):
        from gametree import load, play_text
        from gametree.search import run as search

        game = load().game("connect4").create()
        algorithm = engine.split("-")[1]

        def solve() -> tuple[str, bool | None]:
            for moves, expected in positions:
                result = search(game, play_text(game, moves), algorithm=algorithm, all_moves=False, pv=False)
                progress.nodes += result.stats.nodes
                progress.right += result.score == expected
                progress.done += 1
            return summary()

        return solve
    if engine.startswith("easyai"):
        game_class = easyai_c4()
        progress.counter = lambda: game_class.made + progress.done

        def solve() -> tuple[str, bool | None]:
            for moves, expected in positions:
                _, score, depth_aware = easyai_solve(engine, game_class(moves), 42, len(moves))
                progress.right += score == expected if depth_aware else wdl(score) == wdl(expected)
                progress.done += 1
            progress.nodes = game_class.made + progress.done
            return summary()

        return solve
    from open_spiel.python.algorithms import minimax

    game = spiel_game(case)
    counter = SpielCounter()
    progress.counter = lambda: counter.nodes

    def solve() -> tuple[str, bool | None]:
        for moves, expected in positions:
            state = game.new_initial_state()
            for ch in moves:
                state.apply_action(int(ch) - 1)
            value, _ = minimax.alpha_beta_search(game, state, maximum_depth=42)
            progress.right += wdl(value) == wdl(expected)
            progress.done += 1
        progress.nodes = counter.nodes
        return summary()

    return solve


# -- the engines timed per position: gametree's compiled engine, Pons's and BitBully's solvers --------------
def prepare_positions(engine: str, positions: list[tuple[str, int | None]], progress: Progress) -> Solve:
    """Solve each position with one table kept for them all, timing each search on its own.

    ``progress.positions`` gets (moves, score, nodes, search seconds) of each;
    the clock runs around the search call alone (gametree's ``Solver.score``,
    Pons's ``Solver::solve``, BitBully's ``mtdf``), not the replay of the moves.
    """
    published = [expected for _, expected in positions]

    def summary() -> tuple[str, bool | None]:
        done = progress.positions
        if any(expected is None for expected in published):
            return f"{len(done)}/{len(positions)} solved (scores compared across engines)", None
        right = sum(score == expected for (_, score, _, _), expected in zip(done, published))
        progress.right = right
        return f"{right}/{len(positions)} right (exact score)", right == len(positions)

    def record(moves: str, score: int, nodes: int, seconds: float) -> None:
        progress.positions.append((moves, score, nodes, seconds))
        progress.nodes += nodes
        progress.done += 1

    if engine == "pons":
        return prepare_pons(positions, progress, record, summary)
    clock = time.perf_counter
    if engine == "bitbully":
        import bitbully

        solver = bitbully.BitBully(opening_book=None)

        def bitbully_solve() -> tuple[str, bool | None]:
            for moves, _ in positions:
                board = bitbully.Board()
                for ch in moves:
                    board.play(int(ch) - 1)
                solver.reset_node_counter()
                start = clock()
                score = solver.mtdf(board)
                seconds = clock() - start
                record(moves, int(score), int(solver.get_node_counter()), seconds)
            return summary()

        return bitbully_solve
    from gametree import load, play_text
    from gametree.search import Solver

    game = load().game("connect4").create()
    # Warm-up, outside the clock: numba loads the compiled code at its first search (its own table, thrown away).
    Solver(game, engine="compiled").score(play_text(game, WARM_UP))
    ours = Solver(game, engine="compiled")

    def gametree_solve() -> tuple[str, bool | None]:
        for moves, _ in positions:
            state = play_text(game, moves)
            ours.engine_for(state)  # (built at the first position, before its clock)
            start = clock()
            result = ours.score(state)
            seconds = clock() - start
            record(moves, int(result.score), int(result.nodes), seconds)
        progress.note = f"table at the end: {ours.engine.table_fill()}"
        return summary()

    return gametree_solve


#: The warm-up position of gametree's compiled engine: the first of Pons's end-easy set (a few hundred nodes).
WARM_UP = "2252576253462244111563365343671351441"


def prepare_pons(
    positions: list[tuple[str, int | None]],
    progress: Progress,
    record: Callable[[str, int, int, float], None],
    summary: Callable[[], tuple[str, bool | None]],
) -> Solve:
    """Pons's solver, built by :func:`build_pons`: the positions on its standard input, one line out each."""
    if PONS_BINARY is None:
        raise ValueError("Pons's solver is not built: give its source with --pons PATH_OR_GIT_URL")
    binary = PONS_BINARY
    text = "".join(f"{moves}\n" for moves, _ in positions)

    def read(out: str) -> None:
        for line in out.splitlines():
            fields = line.split()
            if len(fields) != 4:
                raise ValueError(f"Pons's solver refused a position: {line}")
            record(fields[0], int(fields[1]), int(fields[2]), float(fields[3]) / 1e6)

    def solve() -> tuple[str, bool | None]:
        start = time.perf_counter()
        proc = subprocess.Popen([str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            out, _ = proc.communicate(text)
        except Capped:
            proc.kill()
            out, _ = proc.communicate()
            read(out)
            raise
        progress.process_seconds = time.perf_counter() - start
        read(out)
        return summary()

    return solve


def build_pons(source: str, folder: Path) -> Path:
    """Pons's solver with our driver (benchmarks/pons_driver.cpp), built in ``folder``: the binary's path.

    ``source`` is a folder holding his sources (Solver.hpp, Solver.cpp, ...) or
    anything ``git clone`` takes (a URL, a local clone or bare repository).
    Built with ``g++ -O3 -march=native``; raises ValueError with a one-line
    reason when it cannot be.
    """
    compiler = shutil.which("g++")
    if compiler is None:
        raise ValueError("g++ is not installed: cannot build Pons's solver")
    sources = Path(source)
    if not (sources / "Solver.hpp").is_file():
        sources = folder / "connect4"
        try:
            clone = subprocess.run(
                ["git", "clone", "--quiet", "--depth", "1", source, str(sources)],
                capture_output=True,
                text=True,
                timeout=600,
                env={**os.environ, "GIT_TERMINAL_PROMPT": "0"},  # fail, not ask, when it would need a password
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ValueError(f"cannot get Pons's solver from {source}: {exc}") from None
        if clone.returncode or not (sources / "Solver.hpp").is_file():
            why = (clone.stderr.strip().splitlines() or ["no Solver.hpp in it"])[-1]
            raise ValueError(f"cannot get Pons's solver from {source}: {why}")
    binary = folder / "pons_driver"
    driver = Path(__file__).resolve().parent / "pons_driver.cpp"
    build = subprocess.run(
        [compiler, "-O3", "-march=native", "-DNDEBUG", "-std=c++11", "-I", str(sources), str(driver),
         str(sources / "Solver.cpp"), "-o", str(binary)],
        capture_output=True,
        text=True,
    )  # fmt: skip
    if build.returncode:
        why = (build.stderr.strip().splitlines() or [f"exit status {build.returncode}"])[0]
        raise ValueError(f"cannot build Pons's solver: {why}")
    return binary


def nodes_from_traceback(tb: Any) -> int | None:
    """gametree's counters live in the search call: find them in the interrupted frames."""
    while tb is not None:
        for value in tb.tb_frame.f_locals.values():
            if type(value).__name__ == "_Counters":
                return int(value.nodes)
        tb = tb.tb_next
    return None


def run_child(engine: str, case_name: str, cap: float) -> Row:
    case = CASES[case_name]
    progress = Progress()
    row = Row(case.name, engine, "done")
    try:
        solve = (prepare_mnk if case.kind == "mnk" else prepare_c4)(engine, case, progress)
    except Exception as exc:  # an engine that cannot run this case
        row.status, row.note = "error", f"{type(exc).__name__}: {exc}"
        return row

    def on_alarm(signum: int, frame: Any) -> None:
        raise Capped

    signal.signal(signal.SIGALRM, on_alarm)
    sys.setrecursionlimit(10_000)
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, cap)
    try:
        row.result, row.correct = solve()
        row.seconds = time.perf_counter() - start
        signal.setitimer(signal.ITIMER_REAL, 0)
        row.nodes = progress.nodes
        row.note = progress.note
    except Capped as exc:
        row.seconds = time.perf_counter() - start
        row.status = "capped"
        if engine in POSITION_ENGINES:
            row.nodes = progress.nodes
        elif engine.startswith("gametree"):
            current = nodes_from_traceback(exc.__traceback__)
            row.nodes = None if current is None else progress.nodes + current
        else:
            row.nodes = progress.counter()
        if case.kind == "c4":
            row.result = f"{progress.done}/{case.count} done, {progress.right} right"
    except Exception as exc:
        signal.setitimer(signal.ITIMER_REAL, 0)
        row.status, row.note = "error", f"{type(exc).__name__}: {exc}"
    row.peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if engine in POSITION_ENGINES:
        row.positions = progress.positions
        row.process_seconds = progress.process_seconds
        if engine == "pons":  # the driver's own process, not this Python one around it
            row.peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            row.seconds = sum(seconds for *_, seconds in progress.positions)
    return row


# -- the parent ------------------------------------------------------------------------------
def run_in_subprocess(engine: str, case: str, cap: float) -> Row:
    command = [sys.executable, __file__, "--child", engine, case, "--cap", str(cap), "--data", str(DATA)]
    command += ["--seed", str(SEED)]
    if MEDIUM_FILE is not None:
        command += ["--medium", str(MEDIUM_FILE)]
    if PONS_BINARY is not None:
        command += ["--pons-binary", str(PONS_BINARY)]
    start = time.perf_counter()
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=cap + GRACE, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return Row(
            case, engine, "killed", seconds=cap, note=f"did not stop at the cap; killed after {cap + GRACE:.0f} s"
        )
    if proc.returncode:
        last = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        return Row(case, engine, "error", note=last)
    wall = time.perf_counter() - start
    row = Row(**json.loads(proc.stdout.strip().splitlines()[-1]))
    if row.process_seconds is None:
        row.process_seconds = wall  # this child's whole life: Python's start, imports, set-up and warm-up
    if row.positions is not None:
        row.positions = [(m, score, nodes, seconds) for m, score, nodes, seconds in row.positions]
    return row


def ratio(ours: Row | None, row: Row) -> str:
    if ours is None or row is ours or ours.status not in ("done", "capped") or row.status not in ("done", "capped"):
        return ""
    if ours.status == "capped":
        return "> 1" if row.status == "done" else "?"
    value = ours.seconds / row.seconds  # type: ignore[operator]
    return f"{'< ' if row.status == 'capped' else ''}{value:.2g}"


def format_row(row: Row, ours: Row | None, cap: float) -> str:
    if row.status in ("done", "capped"):
        seconds = f"{row.seconds:.3f}" if row.status == "done" else f"> {cap:g}"
        result = row.result if row.status == "done" or row.result else "> cap"
        if row.status == "capped" and row.result:
            result = f"> cap: {row.result}"
        if row.correct is False:
            result += " (WRONG)"
    elif row.status == "killed":
        seconds, result = f"> {cap:g}", "> cap (killed)"
    else:
        seconds, result = "", f"{row.status}: {row.note}"
    nodes = "?" if row.nodes is None else f"{row.nodes:,}"
    if row.status in ("error", "skipped"):
        nodes = ""
    peak = f"{row.peak_mb:.0f}" if row.peak_mb else ""
    return f"| {row.case} | {row.engine} | {result} | {nodes} | {seconds} | {peak} | {ratio(ours, row)} |"


def print_positions(by_case: dict[str, list[Row]], mine: str) -> None:
    """Per position, ours against each engine timed per position: ratios of time and nodes, score agreement."""
    header = False
    for case, rows in by_case.items():
        timed = [row for row in rows if row.positions]
        ours = next((row for row in timed if row.engine == mine), None)
        if not timed:
            continue
        if not header:
            header = True
            print(
                f"\nPer position (search call alone, one table kept across each set; ratios are {mine} / engine,"
                " above 1: ours slower; 'median' is the median of the per-position time ratios)"
            )
            print(
                "| case | engine | solved | search ms/pos | nodes/pos | time ratio | median | nodes ratio"
                " | process s | process ratio |"
            )
            print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for row in timed:
            print(position_line(case, row, ours))
        for row in timed:
            if row.note and row.status == "done":
                print(f"| {case} | {row.engine} | {row.note} |")
        count = min(len(row.positions or ()) for row in timed)
        split = [
            i for i in range(count) if len({row.positions[i][1] for row in timed if row.positions}) > 1
        ]  # fmt: skip
        if split:
            first = split[0]
            scores = ", ".join(f"{row.engine} {row.positions[first][1]}" for row in timed if row.positions)
            moves = timed[0].positions[first][0] if timed[0].positions else ""
            print(f"| {case} | SCORES DISAGREE on {len(split)} of {count} positions, first {moves}: {scores} |")


def position_line(case: str, row: Row, ours: Row | None) -> str:
    done = row.positions or []
    n = max(len(done), 1)
    ms = 1000 * sum(p[3] for p in done) / n
    nodes = sum(p[2] for p in done) / n
    process = f"{row.process_seconds:.3f}" if row.process_seconds is not None else ""
    ratios = ["", "", "", ""]
    if ours is not None and ours is not row and ours.positions:
        common = min(len(done), len(ours.positions))
        mine, theirs = ours.positions[:common], done[:common]
        per = [a[3] / b[3] for a, b in zip(mine, theirs) if b[3] > 0]
        t_ours, t_theirs = sum(p[3] for p in mine), sum(p[3] for p in theirs)
        n_ours, n_theirs = sum(p[2] for p in mine), sum(p[2] for p in theirs)
        ratios[0] = f"x{t_ours / t_theirs:.2f}" if t_theirs else ""
        ratios[1] = f"x{statistics.median(per):.2f}" if per else ""
        ratios[2] = f"x{n_ours / n_theirs:.2f}" if n_theirs else ""
        if ours.process_seconds and row.process_seconds:
            ratios[3] = f"x{ours.process_seconds / row.process_seconds:.2f}"
    return (
        f"| {case} | {row.engine} | {len(done)} | {ms:.3f} | {nodes:,.1f} | {ratios[0]} | {ratios[1]} | {ratios[2]}"
        f" | {process} | {ratios[3]} |"
    )


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    parts = [f"Python {platform.python_version()}"]
    for dist in ("gametree", "easyAI", "open_spiel", "numba", "bitbully"):
        try:
            parts.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            parts.append(f"{dist} not installed")
    return ", ".join(parts)


def list_all() -> None:
    print("cases:")
    for case in CASES.values():
        if case.kind == "mnk":
            what = f"empty {case.width}x{case.height} board, {case.k} in a row (first player: {case.expected})"
        elif case.file == RANDOM:
            what = f"Connect Four 7x6, {case.count} random positions of {STONES[0]} to {STONES[1]} stones (--seed)"
        elif case.file == MEDIUM:
            what = f"Connect Four 7x6, the first {case.count} positions of Pons's Test_L2_R2 (--medium FILE)"
        else:
            what = f"Connect Four 7x6, the first {case.count} positions of {case.file}"
        print(f"  {case.name:16} {'quick ' if case.quick else '      '}{what}")
    print("engines (what each runs: see the top of benchmarks/compare.py):")
    for engine, (package, exact) in ENGINES.items():
        needs = " (always available)" if package is None else " (needs g++ and --pons)" if engine == "pons" else ""
        print(f"  {engine:25} {'depth-aware score' if exact else 'win/draw/loss'}{needs}")


def main() -> None:
    global DATA, SEED, MEDIUM_FILE, PONS_BINARY
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="only the small cases (under a minute overall)")
    parser.add_argument("--case", choices=list(CASES), action="append", help="run only these cases (repeatable)")
    parser.add_argument("--engine", choices=list(ENGINES), action="append", help="run only these engines (repeatable)")
    parser.add_argument(
        "--references",
        action="store_true",
        help=f"gametree's compiled engine beside Pons's and BitBully's solvers: cases {', '.join(REFERENCE_CASES)}",
    )
    parser.add_argument(
        "--pons", metavar="PATH_OR_GIT_URL", help="Pons's solver source (a folder or a git URL), built with g++"
    )
    parser.add_argument("--medium", type=Path, help="Pons's middle-medium set (his Test_L2_R2 file)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"seed of the random positions (default {SEED})")
    parser.add_argument(
        "--cap", type=float, default=None, help=f"seconds per engine per case (default {CAP:g}; 10 with --quick)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per run instead of a table")
    parser.add_argument("--data", type=Path, default=DATA, help=f"folder of Pons's position files (default {DATA})")
    parser.add_argument("--list", action="store_true", help="list the cases and engines and exit")
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "CASE"), help=argparse.SUPPRESS)
    parser.add_argument("--pons-binary", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    DATA, SEED, MEDIUM_FILE, PONS_BINARY = args.data, args.seed, args.medium, args.pons_binary
    cap = args.cap if args.cap is not None else 10.0 if args.quick else CAP
    if cap <= 0:
        parser.error("--cap must be positive")
    if args.medium is not None and not args.medium.is_file():
        parser.error(f"--medium: no file {args.medium}")
    if args.child:
        print(json.dumps(asdict(run_child(args.child[0], args.child[1], cap))))
        return
    if args.list:
        list_all()
        return
    with tempfile.TemporaryDirectory(prefix="gametree-pons-") as folder:
        run_all(args, cap, Path(folder))


def chosen(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The cases and engines to run, before dropping those that cannot."""
    if args.references:
        cases = list(REFERENCE_CASES)
    else:
        cases = [name for name, case in CASES.items() if (case.quick or not args.quick) and name not in EXTRA_CASES]
    engines = list(REFERENCE_ENGINES) if args.references else [e for e in ENGINES if e not in POSITION_ENGINES]
    return args.case or cases, args.engine or engines


def runnable(args: argparse.Namespace, folder: Path) -> tuple[list[str], list[str]]:
    """The cases and engines that can run here; a line each for those that cannot."""
    global PONS_BINARY
    out = sys.stderr if args.json else sys.stdout
    cases, engines = chosen(args)
    if "pons" in engines:
        try:
            if args.pons is None:
                raise ValueError("no source for Pons's solver (--pons PATH_OR_GIT_URL)")
            PONS_BINARY = build_pons(args.pons, folder)
        except ValueError as exc:
            print(f"{exc}: skipping pons", file=out)
            engines.remove("pons")
    for package in dict.fromkeys(ENGINES[e][0] for e in engines):
        if package in PACKAGES and importlib.util.find_spec(package) is None:
            dropped = [e for e in engines if ENGINES[e][0] == package]
            print(
                f"{PACKAGES[package]} is not installed (pip install -e '.[compare]'): skipping {', '.join(dropped)}",
                file=out,
            )
            engines = [e for e in engines if e not in dropped]
    if any(CASES[c].kind == "c4" for c in cases) and not DATA.is_dir():
        print(f"Pons's positions not found in {DATA}: skipping the Connect Four cases", file=out)
        cases = [c for c in cases if CASES[c].kind != "c4"]
    if "c4-middle-medium" in cases and MEDIUM_FILE is None:
        print("Pons's middle-medium set not given (--medium FILE, his Test_L2_R2): skipping c4-middle-medium", file=out)
        cases.remove("c4-middle-medium")
    return cases, engines


def run_all(args: argparse.Namespace, cap: float, folder: Path) -> None:
    cases, engines = runnable(args, folder)
    if not args.json:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"{versions()}; cap {cap:g} s per engine per case; load average at start {load}")
        print()
        print("| case | engine | result | nodes | seconds | peak MB | ours/theirs |")
        print("|---|---|---|---:|---:|---:|---:|")
    mine = OURS if OURS in engines else "gametree-compiled"
    if "gametree-compiled" in engines and any(CASES[c].kind == "c4" for c in cases):
        # Not measured: the first run of the compiled engine compiles it into numba's cache (tens of seconds);
        # every measured process loads it from there, as an installed gametree does after its first search.
        warm = run_in_subprocess("gametree-compiled", "c4-end-20", max(cap, 120.0))
        if warm.status != "done":
            print(f"warm-up of gametree-compiled failed: {warm.status} {warm.note}", file=sys.stderr)
    ordered = sorted(engines, key=lambda e: e != mine)  # ours first: the ratio needs its time
    by_case: dict[str, list[Row]] = {}
    for case in cases:
        ours = None
        for engine in ordered:
            if engine == "openspiel-minimax-solver" and CASES[case].kind != "mnk":
                continue  # it solves from the initial state only
            if engine in POSITION_ENGINES and CASES[case].kind != "c4":
                continue  # Connect Four only
            row = run_in_subprocess(engine, case, cap)
            by_case.setdefault(case, []).append(row)
            if engine == mine:
                ours = row
            if args.json:
                print(json.dumps(asdict(row)), flush=True)
            else:
                print(format_row(row, ours, cap), flush=True)
    if not args.json:
        print_positions(by_case, mine)
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"\nload average at end {load}")


if __name__ == "__main__":
    main()
