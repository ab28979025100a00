"""The search core against an independent brute force, and its contracts."""

from __future__ import annotations

import dataclasses
import random
from functools import cache

import pytest

from gametree import GameInfo, TranspositionTable, alphabeta, minimax, win_score
from gametree.game import GameOverError, UnsupportedGameError, play_text
from gametree.search import prepare, prepare_scores, run, solver
from gametree.search.solver import Solver

# ---------------------------------------------------------------------------------------------
# An independent m,n,k brute force: plain tuples, no bitboards, no code shared with the game.


def _lines(w: int, h: int, k: int) -> list[tuple[int, ...]]:
    out = []
    for r in range(h):
        for c in range(w):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + dr * i, c + dc * i) for i in range(k)]
                if all(0 <= rr < h and 0 <= cc < w for rr, cc in cells):
                    out.append(tuple(rr * w + cc for rr, cc in cells))
    return out


def brute_force(w: int, h: int, k: int):
    """score(board) for the side to move, board a tuple of '.', 'X', 'O' (depth-aware, Pons convention)."""
    lines = _lines(w, h, k)
    cells = w * h

    @cache
    def score(board: tuple[str, ...]) -> int:
        played = cells - board.count(".")
        last = "O" if played % 2 == 0 else "X"  # who moved last
        if played and any(all(board[i] == last for i in line) for line in lines):
            return -((cells + 1 - (played - 1)) // 2)
        if played == cells:
            return 0
        me = "X" if played % 2 == 0 else "O"
        return max(-score(board[:i] + (me,) + board[i + 1 :]) for i in range(cells) if board[i] == ".")

    return score


def board_of(game, state) -> tuple[str, ...]:
    return tuple("X" if state.x >> i & 1 else "O" if state.o >> i & 1 else "." for i in range(game.cells))


def reachable(game):
    seen = {}
    stack = [game.initial_state()]
    while stack:
        s = stack.pop()
        k = (s.x, s.o)
        if k in seen:
            continue
        seen[k] = s
        for m in game.legal_moves(s):
            stack.append(game.play(s, m))
    return list(seen.values())


# ---------------------------------------------------------------------------------------------


def test_win_score_convention():
    assert win_score(9, 4) == 3  # X completes a line with the 5th move of 3x3
    assert win_score(42, 6) == 22 - 4  # Pons: 22 minus the winner's stones
    assert win_score(42, 7) == 22 - 4


def test_minimax_visits_the_whole_3x3_tree(ttt3):
    result = minimax(ttt3)
    assert result.stats.nodes == 549_946
    assert result.stats.terminals == 255_168
    assert result.value == "draw" and result.score == 0 and result.plies_to_end == 9
    assert sum(result.stats.nodes_per_depth) == result.stats.nodes
    assert result.stats.nodes_per_depth[:3] == (1, 9, 72)
    assert result.stats.cutoffs == 0 and result.stats.cache_probes == 0


def test_every_reachable_3x3_position_against_brute_force(ttt3, exact_search):
    algorithm, options = exact_search
    score = brute_force(3, 3, 3)
    positions = reachable(ttt3)
    assert len(positions) == 5478
    table = TranspositionTable()
    checked = 0
    for state in positions:
        expected = score(board_of(ttt3, state))
        if ttt3.outcome(state) is not None:
            continue
        result = run(ttt3, state, algorithm=algorithm, cache=table, all_moves=False, pv=False, **options)
        assert result.score == expected, ttt3.render(state)
        assert result.value == ("win" if expected > 0 else "loss" if expected < 0 else "draw")
        checked += 1
    assert checked == 4520  # 5478 reachable minus 958 finished games


def test_move_values_and_best_moves_are_exact_on_3x3(ttt3, exact_search):
    algorithm, options = exact_search
    score = brute_force(3, 3, 3)
    rng = random.Random(7)
    positions = [s for s in reachable(ttt3) if ttt3.outcome(s) is None]
    for state in rng.sample(positions, 150):
        result = run(ttt3, state, algorithm=algorithm, **options)
        values = {}
        for m in ttt3.legal_moves(state):
            child = ttt3.play(state, m)
            values[ttt3.format_move(state, m)] = -score(board_of(ttt3, child))
        assert {mv.move: mv.score for mv in result.move_values} == values
        best = max(values.values())
        assert set(result.best_moves) == {m for m, v in values.items() if v == best}
        assert result.score == best


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_weak_values_on_every_3x3_position(ttt3, engine):
    """--weak: every move's value is the sign of its exact score; the best move keeps the value."""
    if engine == "compiled":
        pytest.importorskip("numba")
    score = brute_force(3, 3, 3)
    table = TranspositionTable()
    for state in reachable(ttt3):
        if ttt3.outcome(state) is not None:
            continue
        values = {
            ttt3.format_move(state, m): -_sign(score(board_of(ttt3, ttt3.play(state, m))))
            for m in ttt3.legal_moves(state)
        }
        full = run(ttt3, state, algorithm="solver", weak=True, cache=table, engine=engine)
        assert full.weak and full.plies_to_end is None
        assert {mv.move: mv.score for mv in full.move_values} == values
        assert full.score == max(values.values()) == _sign(score(board_of(ttt3, state)))
        assert full.pv == full.best_moves[:1]
        one = run(ttt3, state, algorithm="solver", weak=True, all_moves=False, cache=table, engine=engine)
        assert one.score == full.score and values[one.best_moves[0]] == full.score


def test_weak_solve_of_a_fast_win_is_cheaper(registry):
    """6x5 k=4: the first player wins; proving only that is cheaper than proving how fast."""
    game = registry.game("tictactoe").create(width=6, height=5, k=4)
    weak = run(game, algorithm="solver", weak=True, all_moves=False)
    exact = run(game, algorithm="solver", all_moves=False, pv=False)
    assert (weak.value, weak.score, exact.score) == ("win", 1, 10)
    assert weak.stats.nodes < exact.stats.nodes / 2


def test_weak_refuses_a_time_limit_and_the_solver_any_depth_limit(ttt3):
    with pytest.raises(ValueError, match="weak"):
        run(ttt3, algorithm="solver", weak=True, time_limit=2)
    with pytest.raises(ValueError, match="depth limit makes a heuristic search"):
        run(ttt3, algorithm="solver", depth=2)


@pytest.mark.parametrize("seed", [0, 1])
def test_4x4_k3_sample_against_brute_force(registry, seed, exact_search):
    algorithm, options = exact_search
    game = registry.game("tictactoe").create(size=4, k=3)
    score = brute_force(4, 4, 3)
    rng = random.Random(seed)
    table = TranspositionTable()
    checked = 0
    while checked < 12:
        state = game.initial_state()
        for _ in range(rng.randint(6, 9)):
            moves = game.legal_moves(state)
            if not moves:
                break
            state = game.play(state, rng.choice(moves))
        if game.outcome(state) is not None:
            continue
        result = run(game, state, algorithm=algorithm, cache=table, **options)
        assert result.score == score(board_of(game, state))
        for mv in result.move_values:
            child = game.play(state, game.parse_move(state, mv.move))
            assert mv.score == -score(board_of(game, child))
        checked += 1


def test_minimax_and_alphabeta_agree(ttt3):
    for moves in ["", "B2", "A1 B2", "A1 B2 C3", "B2 A1 A3"]:
        state = play_text(ttt3, moves)
        a, b = minimax(ttt3, state), alphabeta(ttt3, state)
        assert (a.score, a.best_moves, a.move_values, a.plies_to_end) == (
            b.score,
            b.best_moves,
            b.move_values,
            b.plies_to_end,
        )
        assert b.stats.nodes < a.stats.nodes


def test_fastest_win_is_preferred(ttt3):
    # X: A1 A2, O: B1 B2; X to move: A3 wins now (5th move, score 3); other moves win later or not at all.
    state = play_text(ttt3, "A1 B1 A2 B2")
    result = alphabeta(ttt3, state)
    assert result.best_moves == ("A3",)
    assert result.score == 3 and result.plies_to_end == 1 and result.pv == ("A3",)
    values = {mv.move: mv.score for mv in result.move_values}
    assert all(v < 3 for m, v in values.items() if m != "A3")
    assert minimax(ttt3, state).best_moves == ("A3",)


def test_slowest_loss_is_preferred(ttt3):
    # O to move and lost.  X threatens C1; blocking there loses only with X's 5th stone (score -1, 4 plies),
    # anything else loses at once to C1 (X's 4th stone, score -2, 2 plies).
    state = play_text(ttt3, "B1 A3 C2 B3 C3")
    result = alphabeta(ttt3, state)
    assert result.value == "loss" and result.winner == 0
    assert result.best_moves == ("C1",) and result.score == -1 and result.plies_to_end == 4
    assert {mv.move: (mv.score, mv.plies_to_end) for mv in result.move_values} == {
        "C1": (-1, 4),
        "B2": (-2, 2),
        "A1": (-2, 2),
        "A2": (-2, 2),
    }
    assert minimax(ttt3, state).best_moves == ("C1",)


def test_cache_variants_give_identical_answers(ttt3):
    state = play_text(ttt3, "B2")
    reference = alphabeta(ttt3, state, cache=None)
    for table, symmetry in [
        (True, True),
        (True, False),
        (TranspositionTable(2), True),
        (TranspositionTable(16), False),
    ]:
        result = alphabeta(ttt3, state, cache=table, symmetry=symmetry)
        assert (result.score, result.best_moves, result.move_values, result.pv[:1]) == (
            reference.score,
            reference.best_moves,
            reference.move_values,
            reference.pv[:1],
        )
    with_cache = alphabeta(ttt3, state)
    assert with_cache.stats.nodes < reference.stats.nodes
    assert with_cache.stats.cache_hits > 0 and reference.stats.cache_probes == 0


def test_tiny_cache_stays_within_bound(registry):
    game = registry.game("tictactoe").create(size=4, k=3)
    table = TranspositionTable(1000)
    result = alphabeta(game, play_text(game, "A1 B2"), cache=table)
    assert len(table) <= 1000
    assert result.score == alphabeta(game, play_text(game, "A1 B2")).score


def test_terminal_position_is_refused(ttt3):
    with pytest.raises(GameOverError):
        alphabeta(ttt3, play_text(ttt3, "A1 B1 A2 B2 A3"))


# ---------------------------------------------------------------------------------------------
# A hand-written tree game (AIMA's Figure 5.2) with heuristic leaf values pins down the cutoffs.


class Fig52:
    """Root A with moves to B, C, D; each has three leaves with fixed utilities for MAX.

    The game never ends by itself: searched to depth 2, its leaves are scored by ``evaluate``.
    """

    info = GameInfo(max_plies=100)
    utilities = {"B": (3, 12, 8), "C": (2, 4, 6), "D": (14, 5, 2)}

    def initial_state(self):
        return ()

    def to_move(self, s):
        return len(s) % 2

    def ply(self, s):
        return len(s)

    def legal_moves(self, s):
        return [0, 1, 2]

    def play(self, s, m):
        return (*s, m)

    def outcome(self, s):
        return None

    def key(self, s):
        return s

    def evaluate(self, s):
        node = "BCD"[s[0]]
        utility = self.utilities[node][s[1]] / 100
        return utility if self.to_move(s) == 0 else -utility

    def parse_move(self, s, text):
        return int(text)

    def format_move(self, s, m):
        return str(m)

    def render(self, s):
        return repr(s)


def test_alphabeta_cutoffs_on_figure_5_2():
    game = Fig52()
    result = alphabeta(game, depth=2, cache=None, all_moves=False, pv=False)
    assert result.score == pytest.approx(0.03) and result.best_moves == ("0",)
    # A, then B + 3 leaves, C + 1 leaf (2 <= 3 prunes 4 and 6), D + 3 leaves.
    assert result.stats.nodes_per_depth == (1, 3, 7)
    assert result.stats.cutoffs == 1
    assert result.stats.heuristic_leaves == 7
    assert not result.proven and result.value == "unknown"
    plain = minimax(game, depth=2)
    assert plain.stats.nodes == 13 and plain.score == pytest.approx(0.03)


def test_depth_limit_marks_heuristic_values(registry):
    game = registry.game("tictactoe").create(size=4, k=4)
    result = alphabeta(game, depth=2)
    assert result.depth == 2 and not result.proven and result.value == "unknown"
    assert -1 < result.score < 1 and result.stats.heuristic_leaves > 0
    assert result.stats.max_depth == 2
    # A proven win within the horizon is reported as proven even with a depth limit.
    ttt3 = registry.game("tictactoe").create(size=3)
    won = alphabeta(ttt3, play_text(ttt3, "A1 B1 A2 B2"), depth=1)
    assert won.proven and won.score == 3 and won.best_moves == ("A3",)


def test_unsupported_games_are_refused():
    class Dice(Fig52):
        info = GameInfo(max_plies=100, deterministic=False)

    with pytest.raises(UnsupportedGameError, match="deterministic"):
        alphabeta(Dice())


def test_search_by_name(ttt3):
    assert run(ttt3, algorithm="minimax").score == 0
    with pytest.raises(ValueError, match="unknown algorithm"):
        run(ttt3, algorithm="nope")


def random_positions(game, seed: int, count: int, fewest: int = 0, most: int = 5):
    """The unfinished ones of ``count`` random games of ``fewest`` to ``most`` moves from the start."""
    rng = random.Random(seed)
    for _ in range(count):
        state = game.initial_state()
        for _ in range(rng.randint(fewest, most)):
            state = game.play(state, rng.choice(game.legal_moves(state)))
        if game.outcome(state) is None:
            yield state


def test_solver_matches_alphabeta_on_larger_boards(registry):
    game = registry.game("tictactoe").create(width=4, height=3, k=3)
    for state in random_positions(game, seed=11, count=20):
        a, b = alphabeta(game, state), run(game, state, algorithm="solver")
        assert (a.score, a.best_moves, a.move_values, a.plies_to_end) == (
            b.score,
            b.best_moves,
            b.move_values,
            b.plies_to_end,
        )


def test_iterative_deepening_is_anytime(registry, ttt3):
    big = registry.game("tictactoe").create(size=5, k=4)
    result = alphabeta(big, time_limit=0.3, all_moves=False)
    assert not result.proven and result.value == "unknown"
    assert result.depth is not None and result.depth >= 1
    assert result.best_moves and result.depth < big.info.max_plies  # cut short by its limit, not searched to the end
    exact = alphabeta(ttt3, time_limit=60)
    assert exact.proven and exact.depth == 9 and exact.value == "draw" and exact.score == 0
    fast = run(ttt3, algorithm="solver", time_limit=60)
    assert fast.proven and fast.move_values == exact.move_values
    # A win within reach is proven long before the board is full.
    state = play_text(ttt3, "A1 B1 A2 B2")
    won = alphabeta(ttt3, state, time_limit=60)
    assert won.proven and won.score == 3 and won.best_moves == ("A3",)


@pytest.mark.parametrize(
    "per_depth",
    [(0, 0, 0), (1, 0, 0), (0, 1, 2, 0), (1, 2, 3), (1, 0, 2, 0), (0, 0, 5), (3, 1, 0, 0, 1)],
)
def test_deepest_height_with_a_node(per_depth: tuple[int, ...]) -> None:
    """The shortcut through the run of counted heights agrees with looking at every height, gaps or not."""
    from gametree.search.results import deepest as _deepest

    assert _deepest(per_depth) == max((i for i, n in enumerate(per_depth) if n), default=0)


# -- one solver for many positions ---------------------------------------------------------------
def _without_clock(result):
    """A result with its timings zeroed, for comparing two searches."""
    return dataclasses.replace(result, stats=dataclasses.replace(result.stats, seconds=0.0, nodes_per_second=0.0))


def test_one_solver_for_every_3x3_position_gives_exact_scores_and_best_moves(ttt3):
    """A Solver reused for all 4,520 unfinished positions, one table: each score and best move against brute force.

    Where every move loses at once the solver names a move without searching: it must still be a legal,
    best one."""
    score = brute_force(3, 3, 3)
    one = Solver(ttt3, cache=TranspositionTable())
    floors = 0
    for state in reachable(ttt3):
        if ttt3.outcome(state) is not None:
            continue
        expected = score(board_of(ttt3, state))
        result = one.solve(state, all_moves=False, pv=False)
        assert result.score == expected, ttt3.render(state)
        move = ttt3.parse_move(state, result.best_moves[0])
        assert move in ttt3.legal_moves(state)
        assert -score(board_of(ttt3, ttt3.play(state, move))) == expected, ttt3.render(state)
        floors += expected == -((ttt3.cells - ttt3.ply(state)) // 2)
    assert floors > 0  # positions where every move loses at once were among them


@pytest.mark.parametrize(
    "options",
    [{}, {"all_moves": False}, {"all_moves": False, "pv": False}, {"weak": True}, {"weak": True, "all_moves": False}],
)
def test_a_reused_solver_answers_as_fresh_solves(registry, options):
    """Counters start from zero for each position: with no table to carry over, a reused Solver's
    results (statistics included) are those of separate solver() calls."""
    game = registry.game("tictactoe").create(width=4, height=3, k=3)
    one = Solver(game, cache=False)
    prepared = prepare(solver, game, cache=False, **options)
    for state in random_positions(game, seed=5, count=12, fewest=1):
        fresh = _without_clock(solver(game, state, cache=False, **options))
        assert _without_clock(one.solve(state, **options)) == fresh
        assert _without_clock(prepared(state)) == fresh


@pytest.mark.parametrize(
    "game_name, options, moves",
    [("tictactoe", {"width": 4, "height": 3, "k": 3}, 4), ("connect4", {"width": 5, "height": 4}, 8)],
)
def test_scores_alone_are_the_solves_scores(registry, game_name, options, moves):
    """Solver.score proves the score solve gives (its sign when weak), with no more nodes than
    solve (which also finds a best move); each from a new table, and again from one shared table."""
    game = registry.game(game_name).create(**options)
    shared = Solver(game)
    seen = set()
    for state in random_positions(game, seed=11, count=40, fewest=moves // 2, most=moves):
        for weak in (False, True):
            alone, result = (
                Solver(game).score(state, weak=weak),
                Solver(game).solve(state, all_moves=False, pv=False, weak=weak),
            )
            assert (alone.score, alone.weak) == (result.score, weak), game.render(state)
            assert 0 < alone.nodes <= result.stats.nodes and alone.seconds >= 0
            assert shared.score(state, weak=weak)[:2] == (result.score, weak)
            seen.add(alone.score)
    assert len(seen) >= 3  # wins, draws and losses were among them


def test_prepare_scores_for_any_algorithm(ttt3):
    """The solver's scores come from Solver.score; any other algorithm's (and a depth-limited
    solver's) from its results, cut down."""
    state = play_text(ttt3, "A1 B2")
    solved = prepare_scores(solver, ttt3)(state)
    assert (solved.score, solved.weak) == (solver(ttt3, state).score, False) and solved.nodes > 0
    assert prepare_scores(solver, ttt3, weak=True)(play_text(ttt3, "A1 A2"))[:2] == (1, True)
    result = alphabeta(ttt3, state, all_moves=False, pv=False)
    assert prepare_scores(alphabeta, ttt3, cache=False)(state)[:3] == (
        result.score,
        False,
        alphabeta(ttt3, state, cache=False, all_moves=False, pv=False).stats.nodes,
    )
    # A time limit keeps the solver exact: proven in time, the score is the exact one.
    assert prepare_scores(solver, ttt3, time_limit=30)(state)[:2] == (solved.score, False)
    with pytest.raises(ValueError, match="weak"):
        prepare_scores(solver, ttt3, time_limit=30, weak=True)(state)


def test_prepare_binds_any_algorithm(ttt3):
    """Algorithms without a set-up of their own are simply bound.

    The solver refuses a depth limit (a heuristic search).
    """
    state = play_text(ttt3, "A1 B2")
    table = TranspositionTable()
    assert (
        prepare(alphabeta, ttt3, cache=table, all_moves=False)(state).score
        == alphabeta(ttt3, state, all_moves=False).score
    )
    with pytest.raises(ValueError, match="use alphabeta"):
        prepare(solver, ttt3, depth=2)


def test_spacious_calls_through_a_frame_too_large_for_an_ordinary_chunk() -> None:
    """Deep searches run from a frame that starts its own chunk of CPython's frame stack (see
    gametree.search.frames.make_spacious); the call itself is just a call."""
    import sys

    from gametree.search import frames

    assert frames.spacious(divmod, 7, 2) == (3, 1)
    if sys.implementation.name == "cpython":
        made = frames.make_spacious()
        assert made.__code__.co_nlocals >= frames.SPACIOUS_SLOTS
        assert made(divmod, 9, 4) == (2, 1)


def test_spacious_has_a_switch(monkeypatch) -> None:
    """GAMETREE_SPACIOUS=0 turns the frame-stack workaround off: a plain call, the same answer."""
    from gametree.search import frames

    monkeypatch.setenv("GAMETREE_SPACIOUS", "0")
    assert not frames.enabled()
    monkeypatch.setattr(frames, "make_spacious", lambda: pytest.fail("spacious was made with the switch off"))
    assert frames.spacious(divmod, 7, 2) == (3, 1)


def test_deep_and_shallow_entries_agree(registry, monkeypatch) -> None:
    """The same deep position searched through spacious and, with spacious made a plain call, without it."""
    from gametree.search import engine, frames

    game = registry.game("connect4").create(width=5, height=4)
    state = play_text(game, "3")
    assert game.info.max_plies - game.ply(state) > frames.SPACIOUS_PLIES
    calls = []

    def plain(function, *args):
        calls.append(function)
        return function(*args)

    deep = Solver(game, engine="python").solve(state, all_moves=False)
    monkeypatch.setattr(engine, "spacious", plain)
    shallow = Solver(game, engine="python").solve(state, all_moves=False)
    assert calls, "the deep search went through spacious"
    assert (deep.score, deep.stats.nodes, deep.pv) == (shallow.score, shallow.stats.nodes, shallow.pv)


# ---------------------------------------------------------------------------------------------
# F12: the engine recurses once per ply; a search that goes deeper than Python allows ends with a
# one-line UnsupportedGameError, not a RecursionError.

from gametree import Outcome  # noqa: E402  (this section's own import)


class Line:
    """``length`` forced moves, then a draw: a search to the end recurses ``length`` plies deep.

    ``generated`` counts the calls of ``legal_moves`` (a search that started calls it)."""

    def __init__(self, length: int) -> None:
        self.info = GameInfo(max_plies=length)
        self.length = length
        self.generated = 0

    def initial_state(self):
        return 0

    def to_move(self, s):
        return s % 2

    def ply(self, s):
        return s

    def legal_moves(self, s):
        self.generated += 1
        return [0] if s < self.length else []

    def play(self, s, m):
        return s + 1

    def outcome(self, s):
        return Outcome(None) if s >= self.length else None

    def key(self, s):
        return s

    def evaluate(self, s):
        return 0.0

    def parse_move(self, s, text):
        return int(text)

    def format_move(self, s, m):
        return str(m)

    def render(self, s):
        return str(s)


def _search_budget() -> int:
    from gametree.search import frames

    return frames.max_search_plies()


@pytest.mark.parametrize("algorithm", [minimax, alphabeta, solver])
def test_a_search_deeper_than_python_allows_is_refused_in_one_line(algorithm) -> None:
    import sys

    game = Line(sys.getrecursionlimit() + 10)
    with pytest.raises(UnsupportedGameError, match="too large for a search to the end") as caught:
        algorithm(game)
    message = str(caught.value)
    assert "--depth" in message and "\n" not in message
    # From a position near the end the same game is searched to the end.
    near_end = game.length - 5
    assert algorithm(game, near_end).score == 0


@pytest.mark.parametrize("algorithm", [minimax, alphabeta])  # (the solver refuses a depth limit)
def test_a_depth_limit_makes_a_long_game_searchable_unless_it_is_too_deep(algorithm) -> None:
    import sys

    game = Line(sys.getrecursionlimit() + 10)
    assert algorithm(game, depth=20).score == 0
    too_deep = sys.getrecursionlimit() + 5
    with pytest.raises(UnsupportedGameError, match=f"depth {too_deep} is too deep") as caught:
        algorithm(game, depth=too_deep)
    assert f"about {_search_budget():,} plies" in str(caught.value)


@pytest.mark.parametrize("algorithm", [minimax, alphabeta, solver])
def test_the_deepest_search_allowed_runs_without_recursion_error(algorithm) -> None:
    """The budget leaves room for what is below the search (pytest's frames here) and for the
    game's own calls at the deepest node."""
    game = Line(_search_budget())
    result = algorithm(game)
    assert result.score == 0 and result.stats.max_depth == game.length


def test_connect4_100x100_to_the_end_is_refused_at_once(registry, monkeypatch) -> None:
    """Refused when the first line of play reaches Python's recursion limit: a few moves tried per
    ply of that one line (about 4,200 on CPython's default limit of 1,000), not a tree searched."""
    import sys

    game = registry.game("connect4").create(width=100, height=100)
    played: list[object] = []  # the moves the search played, counted (not timed)
    play = type(game).play

    def counted(self: object, state: object, move: object) -> object:
        played.append(move)
        return play(self, state, move)

    monkeypatch.setattr(type(game), "play", counted)
    with pytest.raises(UnsupportedGameError, match="10,000 more plies"):
        solver(game)
    assert 0 < len(played) < 10 * sys.getrecursionlimit(), len(played)


def test_a_long_game_decided_early_is_still_solved(registry) -> None:
    """A game that could last far longer than Python's recursion allows is searched all the same
    when its value is decided high up the tree (Nim with one heap: take it all)."""
    import sys

    game = registry.game("nim").create(heaps="2000")
    assert game.info.max_plies > sys.getrecursionlimit()
    assert solver(game, all_moves=False, pv=False).value == "win"


def test_a_depth_limited_line_of_play_with_a_table_of_deeper_searches(registry):
    """A table kept from deeper searches (a hint's earlier iterations, a transposition searched
    deeper before) holds heuristic values of another depth: the line of play of a shallower
    search still follows the engine's best moves (it was an AssertionError: 'no move keeps the
    value', seen in 'play' hints on 7x6 Connect Four)."""
    import random

    from gametree import TranspositionTable

    game = registry.game("tictactoe").create(size=4, k=3)
    rng = random.Random(1)
    for _ in range(60):
        state = game.initial_state()
        for _ in range(rng.randrange(0, 5)):
            state = game.play(state, rng.choice(list(game.legal_moves(state))))
        child = game.play(state, rng.choice(list(game.legal_moves(state))))
        if game.outcome(state) is not None or game.outcome(child) is not None:
            continue
        table = TranspositionTable()
        alphabeta(game, child, depth=rng.randrange(3, 7), cache=table, pv=False, all_moves=False)
        shallow = alphabeta(game, state, depth=2, cache=table, all_moves=False)
        assert shallow.pv and shallow.pv[0] == shallow.best_moves[0] and len(shallow.pv) <= 2
