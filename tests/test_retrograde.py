"""Retrograde analysis (gametree.search.retrograde) against an independent brute force on small games
whose positions repeat, and against the solver on tic-tac-toe (a game without repeats)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from gametree import GameInfo, MoveParseError, Outcome, load
from gametree.game import UnsupportedGameError
from gametree.search import ALGORITHMS, search
from gametree.search.retrograde import RetrogradeMover, TooManyPositions, retrograde, solve_graph

# -- a game given as a graph --------------------------------------------------------------------------


@dataclass
class GraphGame:
    """A two-player game on an explicit graph: ``edges[v]`` the positions after v's moves; a position
    without moves is finished, won by ``winners[v]`` (None: a draw).  Cycles are allowed."""

    movers: list[int]
    edges: list[list[int]]
    winners: dict[int, int | None]
    info: GameInfo = field(default_factory=lambda: GameInfo(max_plies=100, repeats=True))

    def initial_state(self) -> int:
        return 0

    def to_move(self, state: int) -> int:
        return self.movers[state]

    def ply(self, state: int) -> int:
        return 0

    def legal_moves(self, state: int) -> list[int]:
        return list(range(len(self.edges[state])))

    def play(self, state: int, move: int) -> int:
        return self.edges[state][move]

    def outcome(self, state: int) -> Outcome | None:
        return Outcome(self.winners[state]) if not self.edges[state] else None

    def key(self, state: int) -> int:
        return state

    def parse_move(self, state: int, text: str) -> int:
        if not text.startswith("m"):
            raise MoveParseError(text)
        return int(text[1:])

    def format_move(self, state: int, move: int) -> str:
        return f"m{move}"

    def render(self, state: int) -> str:
        return f"node {state}"


def random_graph(seed: int, size: int, alternate: bool = True) -> GraphGame:
    """A random graph game: about a fifth of the positions finished, the rest with 1 to 3 moves anywhere
    (cycles included); movers alternate along each edge unless ``alternate`` is False."""
    rng = random.Random(seed)
    movers = [rng.randrange(2) for _ in range(size)]
    edges: list[list[int]] = []
    winners: dict[int, int | None] = {}
    for v in range(size):
        if v > 0 and rng.random() < 0.2:
            edges.append([])
            winners[v] = rng.choice([0, 1, None])
        else:
            edges.append([rng.randrange(size) for _ in range(rng.randint(1, 3))])
    if alternate:  # make each edge change the mover: movers by a two-colouring where possible, else fix edges
        for v in range(size):
            edges[v] = [w for w in edges[v] if movers[w] != movers[v]] or (
                [w for w in range(size) if movers[w] != movers[v]][:1]
            )
            if not edges[v] and v not in winners:
                winners[v] = None
    return GraphGame(movers, edges, winners)


def brute_force(game: GraphGame) -> dict[int, tuple[str, int | None]]:
    """Value and remoteness of every position by iterating the definitions to a fixed point, with no
    counters and no queue: a win within k plies has a move to a position lost (for its side to move)
    within k-1, or won within k-1 by the same player; a loss within k has only moves to positions
    good for the other within k-1.  The least such k is the remoteness (fastest win, slowest loss).
    Draws: the rest; their remoteness the shortest line to a finished draw through draws."""
    n = len(game.movers)
    value: dict[int, tuple[str, int]] = {}
    for v in range(n):
        if not game.edges[v]:
            w = game.winners[v]
            value[v] = ("draw" if w is None else "win" if w == game.movers[v] else "loss", 0)

    def good_for_mover(v: int, w: int, k: int) -> bool:
        if w not in value or value[w][1] > k or value[w][0] == "draw":
            return False
        same = game.movers[v] == game.movers[w]
        return value[w][0] == ("win" if same else "loss")

    def good_for_other(v: int, w: int, k: int) -> bool:
        if w not in value or value[w][1] > k or value[w][0] == "draw":
            return False
        same = game.movers[v] == game.movers[w]
        return value[w][0] == ("loss" if same else "win")

    for k in range(1, 2 * n + 2):
        new = {}
        for v in range(n):
            if v in value:
                continue
            if any(good_for_mover(v, w, k - 1) for w in game.edges[v]):
                new[v] = ("win", k)
            elif all(good_for_other(v, w, k - 1) for w in game.edges[v]):
                new[v] = ("loss", k)
        if not new:  # (nothing new within k plies: nothing new within k + 1 either)
            break
        value.update(new)
    result: dict[int, tuple[str, int | None]] = dict(value)
    drawn = {v for v in range(n) if v not in value}
    distance = {v: 0 for v in range(n) if value.get(v) == ("draw", 0)}
    for k in range(1, n + 1):
        found = {v for v in drawn if v not in distance and any(distance.get(w) == k - 1 for w in game.edges[v])}
        if not found:
            break
        distance.update(dict.fromkeys(found, k))
    for v in drawn:
        result[v] = ("draw", distance.get(v))
    return result


def reachable(game: GraphGame) -> set[int]:
    seen, todo = {0}, [0]
    while todo:
        for w in game.edges[todo.pop()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


@pytest.mark.parametrize("alternate", [True, False])
@pytest.mark.parametrize("seed", range(12))
def test_retrograde_equals_brute_force_on_random_loopy_graphs(seed: int, alternate: bool) -> None:
    game = random_graph(seed, 40, alternate)
    if game.outcome(0) is not None:
        pytest.skip("the root is finished")
    expected = brute_force(game)
    solution = solve_graph(game, 0)  # type: ignore[arg-type]
    assert set(solution.index) == reachable(game)
    for v, i in solution.index.items():
        far = solution.remoteness[i]
        assert (solution.value(i), None if far < 0 else far) == expected[v], v
    result = retrograde(game)  # type: ignore[arg-type]
    value, far = expected[0]
    assert (result.value, result.plies_to_end) == (value, far)
    for mv in result.move_values:
        child_value, child_far = expected[game.edges[0][int(mv.move[1:])]]
        same = game.movers[game.edges[0][int(mv.move[1:])]] == game.movers[0]
        mine = child_value if same or child_value == "draw" else {"win": "loss", "loss": "win"}[child_value]
        assert mv.score == {"win": 1, "draw": 0, "loss": -1}[mine]
        assert mv.plies_to_end == (None if child_far is None else child_far + 1)


def test_a_cycle_is_a_draw_by_endless_play_and_an_escape_is_taken() -> None:
    # 0 -> 1 -> 0 (a cycle), and 1 may also move to 2, lost for its side to move (1 wins at once).
    game = GraphGame([0, 1, 0, 1], [[1], [0, 2], [], [0]], {2: 1})
    assert retrograde(game).value == "loss"  # type: ignore[arg-type]
    # Without the escape, the cycle never ends: a draw by endless play, remoteness None.
    loop = GraphGame([0, 1], [[1], [0]], {})
    result = retrograde(loop)  # type: ignore[arg-type]
    assert (result.value, result.plies_to_end, result.pv) == ("draw", None, ("m0", "m0"))


def test_counts_and_remoteness_on_tictactoe_equal_the_solver() -> None:
    game = load().game("tictactoe").create(size=3)
    result = retrograde(game)
    assert result.stats.nodes == 5478  # every reachable position, finished ones included
    assert (result.value, result.score, result.plies_to_end) == ("draw", 0, 9)
    for moves in ("", "A1", "B2 A1", "A1 B1 A2", "A1 B2 C3", "B2 A1 C3 A3"):
        mine = search("retrograde", game, moves=moves)
        solved = search("solver", game, moves=moves)
        assert (mine.value, mine.score, mine.plies_to_end) == (solved.value, solved.score, solved.plies_to_end)
        assert {(m.move, m.score, m.plies_to_end) for m in mine.move_values} == {
            (m.move, m.score, m.plies_to_end) for m in solved.move_values
        }
        assert set(mine.best_moves) == set(solved.best_moves)
        assert len(mine.pv) == mine.plies_to_end


def test_max_positions_refuses_in_one_line() -> None:
    game = load().game("tictactoe").create(size=3)
    with pytest.raises(TooManyPositions, match="more than 100 positions") as info:
        retrograde(game, max_positions=100)
    assert "\n" not in str(info.value)


def test_retrograde_refuses_chance_and_others_refuse_repeats() -> None:
    with pytest.raises(UnsupportedGameError, match="chance"):
        retrograde(load().game("dice").create())
    dodgem = load().game("dodgem").create()
    with pytest.raises(UnsupportedGameError, match="repeat.*use retrograde"):
        search("solver", dodgem)
    assert ALGORITHMS["retrograde"].refusal(dodgem) is None


def test_the_mover_wins_fastest_and_loses_slowest() -> None:
    game = load().game("dodgem").create(size=3)
    mover = RetrogradeMover(game)
    result = retrograde(game)
    assert {game.format_move(game.initial_state(), m) for m in mover.best_moves(game.initial_state())} == set(
        result.best_moves
    )


def test_the_random_graphs_hold_every_kind_of_value() -> None:
    # (so the comparison above covers wins, losses, draws that end and draws by endless play)
    kinds = set()
    for alternate in (True, False):
        for seed in range(12):
            game = random_graph(seed, 40, alternate)
            values = brute_force(game)
            kinds |= {(values[v][0], values[v][1] is None) for v in reachable(game)}
    assert kinds == {("win", False), ("loss", False), ("draw", False), ("draw", True)}


def graph_of(game: object) -> tuple[GraphGame, list[object]]:
    """Any game as a :class:`GraphGame` (positions numbered breadth-first from the start), with its states."""
    start = game.initial_state()  # type: ignore[attr-defined]
    number = {game.key(start): 0}  # type: ignore[attr-defined]
    states, movers, edges, winners = [start], [], [], {}
    i = 0
    while i < len(states):
        state = states[i]
        movers.append(game.to_move(state))  # type: ignore[attr-defined]
        outcome = game.outcome(state)  # type: ignore[attr-defined]
        kids = []
        if outcome is not None:
            winners[i] = outcome.winner
        else:
            for move in game.legal_moves(state):  # type: ignore[attr-defined]
                child = game.play(state, move)  # type: ignore[attr-defined]
                kids.append(number.setdefault(game.key(child), len(states)))  # type: ignore[attr-defined]
                if kids[-1] == len(states):
                    states.append(child)
        edges.append(kids)
        i += 1
    return GraphGame(movers, edges, winners), states


@pytest.mark.parametrize(("name", "options"), [("dodgem", {"size": 3}), ("nim", {"heaps": "2,3"})])
def test_every_position_of_a_real_game_equals_the_brute_force(name: str, options: dict[str, object]) -> None:
    game = load().game(name).create(**options)
    graph, states = graph_of(game)
    expected = brute_force(graph)
    solution = solve_graph(game, game.initial_state())
    assert len(solution.states) == len(states)
    for v, state in enumerate(states):
        i = solution.index[game.key(state)]
        far = solution.remoteness[i]
        assert (solution.value(i), None if far < 0 else far) == expected[v]


def test_the_mover_loses_slowest() -> None:
    game = load().game("dodgem").create(size=3)
    state = game.play(game.initial_state(), game.parse_move(game.initial_state(), "a3E"))  # red to move, lost
    result = retrograde(game, state)
    assert result.value == "loss" and all(mv.score == -1 for mv in result.move_values)
    slowest = max(mv.plies_to_end or 0 for mv in result.move_values)
    chosen = {game.format_move(state, m) for m in RetrogradeMover(game).best_moves(state)}
    assert chosen == {mv.move for mv in result.move_values if mv.plies_to_end == slowest} == set(result.best_moves)
    assert len({mv.plies_to_end for mv in result.move_values}) > 1  # (a real choice between slow and fast losses)


def test_a_played_game_that_goes_round_in_circles_is_a_draw_by_repetition() -> None:
    from gametree.play import REPETITIONS, play_game

    loop = GraphGame([0, 1], [[1], [0]], {})  # the only moves go round: 0, 1, 0, 1, 0
    players = [load().players["random"]() for _ in range(2)]
    record = play_game(loop, players, random.Random(1))  # type: ignore[arg-type]
    assert (record.winner, len(record.moves)) == (None, 2 * (REPETITIONS - 1))


def test_best_only_lists_the_best_moves() -> None:
    game = load().game("tictactoe").create(size=3)
    result = search("retrograde", game, moves="A1 B1 A2", all_moves=False)
    assert [(mv.move, mv.best) for mv in result.move_values] == [("A3", True)]
    assert result.best_moves == ("A3",) and result.pv[0] == "A3" and len(result.pv) == result.plies_to_end == 4
