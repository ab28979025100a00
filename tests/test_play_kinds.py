"""``gametree play`` for every kind of game: three players (trio, max^n players), chance nodes
(dice rolled from the seeded generator and shown: "Chance: rolled 4") and margins ("X wins by 4").

The chance game is a small dice game of this file (DICE_GAME below), installed as a
plugin module with ``-p``; the command's transcript is checked against the same
game played in-process with a generator seeded alike.
"""

from __future__ import annotations

import importlib
import json
import random
import re
import sys
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from click.testing import CliRunner

from gametree import load
from gametree.cli import cli
from gametree.game import CHANCE
from gametree.play import chance_move, play_game, play_match

REGISTRY = load()

#: A dice game with margins: four rolls of a three-sided die; after each roll the player to move
#: (X after the 1st and 3rd, O after the 2nd and 4th) keeps it (adds it to its own score) or gives
#: it to the other.  The value is the final margin, X's score minus O's.
DICE_GAME = """
from fractions import Fraction
from typing import NamedTuple

from gametree import GameInfo, GameSpec, MoveParseError, Outcome, hookimpl
from gametree.game import CHANCE


class Race(NamedTuple):
    rolls: int
    scores: tuple
    roll: int


class DiceRace:
    ROLLS = 4

    def __init__(self):
        self.info = GameInfo(
            max_plies=8, deterministic=False, margin=True, payoff_bounds=(-12, 12), player_names=("X", "O")
        )

    def initial_state(self):
        return Race(0, (0, 0), 0)

    def to_move(self, s):
        return CHANCE if s.roll == 0 else (s.rolls - 1) % 2

    def ply(self, s):
        return 2 * s.rolls - (1 if s.roll else 0)

    def chance_outcomes(self, s):
        return [(n, Fraction(1, 3)) for n in (1, 2, 3)]

    def legal_moves(self, s):
        if self.outcome(s) is not None:
            return []
        return [1, 2, 3] if s.roll == 0 else ["keep", "give"]

    def play(self, s, m):
        if s.roll == 0:
            return Race(s.rolls + 1, s.scores, m)
        me = (s.rolls - 1) % 2
        who = me if m == "keep" else 1 - me
        scores = list(s.scores)
        scores[who] += s.roll
        return Race(s.rolls, tuple(scores), 0)

    def outcome(self, s):
        if s.rolls < self.ROLLS or s.roll:
            return None
        m = s.scores[0] - s.scores[1]
        return Outcome(None if m == 0 else 0 if m > 0 else 1, (m, -m))

    def key(self, s):
        return s

    def parse_move(self, s, text):
        t = text.strip().lower()
        if s.roll == 0 and t in ("1", "2", "3"):
            return int(t)
        if t in ("keep", "give"):
            return t
        raise MoveParseError("type keep or give")

    def format_move(self, s, m):
        return str(m)

    def render(self, s):
        return f"X {s.scores[0]}  O {s.scores[1]}" + (f"  roll {s.roll}" if s.roll else "")


@hookimpl
def gametree_register_games(registry):
    registry.add_game(GameSpec(name="dicerace", factory=DiceRace, summary="four dice, keep or give"))
"""


@pytest.fixture
def dice(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The dice game's module, written to ``tmp_path`` and importable (``-p dicerace_game``)."""
    (tmp_path / "dicerace_game.py").write_text(DICE_GAME)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("dicerace_game", None)
    return importlib.import_module("dicerace_game")


def run(*args: str, input: str | None = None) -> Any:
    result = CliRunner().invoke(cli, list(args), input=input)
    assert "Traceback" not in result.output
    return result


# -- chance --------------------------------------------------------------------------------------------
def test_chance_move_draws_each_outcome_with_its_probability(dice: Any) -> None:
    game = dice.DiceRace()
    state = game.initial_state()
    assert game.to_move(state) == CHANCE
    rng = random.Random(11)
    counts = Counter(chance_move(game, state, rng) for _ in range(6000))
    assert set(counts) == {1, 2, 3}
    assert all(abs(n / 6000 - 1 / 3) < 0.03 for n in counts.values())

    class Skewed(dice.DiceRace):  # type: ignore[misc, name-defined]
        def chance_outcomes(self, s: Any) -> list[tuple[int, Fraction]]:
            return [(1, Fraction(1, 10)), (2, Fraction(0)), (3, Fraction(9, 10))]

    skewed = Counter(chance_move(Skewed(), state, rng) for _ in range(4000))
    assert skewed[2] == 0 and abs(skewed[3] / 4000 - 0.9) < 0.03


def _expected_dice_game(game: Any, seed: int, human: str) -> tuple[list[int], Any]:
    """The rolls and the final state when X (a person) always types ``human`` and O plays random,
    all drawn from one generator seeded like ``--seed`` (the session's order: chance, then O)."""
    rng = random.Random(seed)
    state, rolls = game.initial_state(), []
    while game.outcome(state) is None:
        side = game.to_move(state)
        if side == CHANCE:
            move = chance_move(game, state, rng)
            rolls.append(move)
        elif side == 0:
            move = human
        else:
            move = rng.choice(list(game.legal_moves(state)))
        state = game.play(state, move)
    return rolls, state


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_play_a_dice_game_shows_the_rolls_and_the_margin(dice: Any, seed: int) -> None:
    game = dice.DiceRace()
    rolls, end = _expected_dice_game(game, seed, "keep")
    result = run(
        "-p", "dicerace_game", "play", "dicerace", "--x", "human", "--o", "random", "--seed", str(seed),
        input="keep\nkeep\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert re.findall(r"^Chance: rolled (\d)$", result.output, flags=re.M) == [str(r) for r in rolls]
    margin = end.scores[0] - end.scores[1]
    if margin > 0:
        assert f"You win by {margin} after 8 moves!" in result.output
    elif margin < 0:
        assert f"O (random) wins by {-margin} after 8 moves." in result.output
    else:
        assert "Draw after 8 moves." in result.output


def test_dice_match_as_json_equals_the_loop_in_process(dice: Any) -> None:
    game = dice.DiceRace()
    result = run(
        "-p", "dicerace_game", "play", "dicerace", "--x", "random", "--o", "easy", "--games", "12", "--seed", "4",
        "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    expected = play_match(game, [REGISTRY.players["random"](), REGISTRY.players["easy"]()], games=12, seed=4)
    assert data["wins"] == list(expected.wins) and data["draws"] == expected.draws
    assert [r["payoffs"] for r in data["records"]] == [list(r.payoffs or ()) for r in expected.records]
    assert all(len(r["moves"]) == 8 for r in data["records"])  # the rolls are in the record


def test_undo_skips_chance_positions(dice: Any) -> None:
    result = run("-p", "dicerace_game", "play", "dicerace", "--o", "random", "--seed", "1", input="keep\nundo\nquit\n")
    assert result.exit_code == 0, result.output
    assert "Nothing to undo yet" in result.output or "Took back" in result.output


# -- three players ----------------------------------------------------------------------------------------
def test_three_random_players_json_equals_play_match() -> None:
    game = REGISTRY.game("trio").create(size=3)
    result = run("play", "trio", "--size", "3", "--seats", "random,random,random", "--games", "6", "--seed", "5",
                 "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    players = [REGISTRY.players["random"]() for _ in range(3)]
    expected = play_match(game, players, games=6, seed=5, names=("random",) * 3)
    assert data["players"] == ["random"] * 3 and len(data["wins"]) == 3
    for record in data["records"]:  # each player's payoff: 1 for the winner, 0 for the others and in a draw
        assert record["payoffs"] == [int(record["winner"] == p) for p in range(3)]
    assert data["wins"] == list(expected.wins) and [r["moves"] for r in data["records"]] == [
        list(r.moves) for r in expected.records
    ]


def test_a_person_against_two_maxn_players() -> None:
    """X types every cell in reading order (a taken one is refused, so X takes the first free cell);
    O and Y play perfect (max^n to the end on 3x3).  The command's game equals the same game in-process."""
    game = REGISTRY.game("trio").create(size=3)
    rng = random.Random(2)
    perfect = [REGISTRY.players["perfect"](), REGISTRY.players["perfect"]()]
    state, moves = game.initial_state(), []
    while game.outcome(state) is None:
        side = game.to_move(state)
        move = min(game.legal_moves(state)) if side == 0 else perfect[side - 1].choose(game, state, rng)
        moves.append(game.format_move(state, move))
        state = game.play(state, move)
    cells = "\n".join(f"{r}{c}" for r in "ABC" for c in "123")
    result = run("play", "trio", "--size", "3", "--seats", "human,perfect,perfect", "--seed", "2", input=cells + "\n")
    assert result.exit_code == 0, result.output
    assert "trio 3x3, 3 in a row: X (you) vs O (perfect) vs Y (perfect)" in result.output
    computers = [m for i, m in enumerate(moves) if i % 3]
    assert re.findall(r"^[OY] \(perfect\) plays (\S+)$", result.output, flags=re.M) == computers
    winner = game.outcome(state).winner
    names = ("You win", "O (perfect) wins", "Y (perfect) wins")
    assert (names[winner] if winner is not None else "Draw") in result.output


def test_three_player_tally_and_default_seats() -> None:
    result = run("play", "trio", "--size", "3", "--seats", "random,easy,random", "--games", "3", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert re.search(
        r"Tally after 3 games: X \(random\) \d wins?, O \(easy\) \d wins?, Y \(random\) \d wins?, \d draws?",
        result.output,
    )
    default = run("play", "trio", input="quit\n")  # 4x4: X a person, O and Y 'hard' (max^n 4 plies deep)
    assert default.exit_code == 0, default.output
    assert "X (you) vs O (hard) vs Y (hard)" in default.output
    assert "O and Y play 'hard' by default here" in default.output


def test_hint_in_a_three_player_game_gives_payoff_vectors() -> None:
    result = run("play", "trio", "--size", "3", "--seats", "human,random,random", "--seed", "1",
                 input="A1\nhint\nquit\n")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "If every player plays for itself to the end (max^n" in result.output
    assert re.search(r"^  [A-C][1-3]  X [0-9.]+, O [0-9.]+, Y [0-9.]+", result.output, flags=re.M)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seats", "human,random"], "trio has 3 players (X, O, Y): give 3 player kinds"),
        (["--seats", "human,random,nobody"], "unknown player 'nobody'"),
        (["--seats", "random,random,random", "--x", "human"], "give --seats, or --x and --o, not both"),
    ],
)
def test_bad_seats_are_one_line_errors(args: list[str], message: str) -> None:
    result = run("play", "trio", "--size", "3", *args, input="quit\n")
    assert result.exit_code == 2 and message in result.output, result.output


def test_play_game_checks_the_number_of_players() -> None:
    from gametree.play import PlayError

    game = REGISTRY.game("trio").create(size=3)
    with pytest.raises(PlayError, match="played by 3 players, not 2"):
        play_game(game, [REGISTRY.players["random"]()] * 2, random.Random(1))
    record = play_game(game, [REGISTRY.players["medium"]() for _ in range(3)], random.Random(1))
    assert record.winner in (None, 0, 1, 2) and len(record.moves) <= 9


def test_the_default_opponent_in_a_dice_game(dice: Any) -> None:
    """Until a search for dice is registered (star1, from the chance work), O plays random by default, with
    a note; after, perfect."""
    from gametree.search import ALGORITHMS

    result = run("-p", "dicerace_game", "play", "dicerace", "--seed", "2", input="keep\nhint\nkeep\n")
    assert result.exit_code == 0, result.output
    opponent = "perfect" if "star1" in ALGORITHMS else "random"
    assert f"X (you) vs O ({opponent})" in result.output
    if opponent == "random":
        assert "O plays 'random' by default here: no built-in search plays this kind of game." in result.output
    if "expectiminimax" in ALGORITHMS:  # hints by expectiminimax: each move's expected payoff
        assert "Each move's payoff for X (expectiminimax, to the end):" in result.output
    else:
        assert "No hint: " in result.output and "chance nodes" in result.output  # one line, and the game goes on
    assert re.search(rf"^(You win by \d+|O \({opponent}\) wins by \d+|Draw) after 8 moves", result.output, flags=re.M)


COINS_GAME = """
from gametree import GameInfo, GameSpec, MoveParseError, Outcome, hookimpl
from typing import NamedTuple

COINS = (3, 9, 1, 2)


class Line(NamedTuple):
    left: int
    right: int
    diff: int
    ply: int


class Coins:
    name = "coins"

    def __init__(self):
        self.info = GameInfo(max_plies=4, margin=True, payoff_bounds=(-15, 15), player_names=("X", "O"))

    def initial_state(self):
        return Line(0, 4, 0, 0)

    def to_move(self, s):
        return s.ply % 2

    def ply(self, s):
        return s.ply

    def legal_moves(self, s):
        return [] if s.left >= s.right else ["L", "R"] if s.right - s.left > 1 else ["L"]

    def play(self, s, m):
        sign = 1 if s.ply % 2 == 0 else -1
        if m == "L":
            return Line(s.left + 1, s.right, s.diff + sign * COINS[s.left], s.ply + 1)
        return Line(s.left, s.right - 1, s.diff + sign * COINS[s.right - 1], s.ply + 1)

    def outcome(self, s):
        if s.left < s.right:
            return None
        return Outcome(None if s.diff == 0 else 0 if s.diff > 0 else 1, (s.diff, -s.diff))

    def key(self, s):
        return s

    def parse_move(self, s, text):
        if text.strip().upper() not in ("L", "R"):
            raise MoveParseError("L or R")
        return text.strip().upper()

    def format_move(self, s, m):
        return m

    def render(self, s):
        return " ".join(map(str, COINS[s.left : s.right]))


@hookimpl
def gametree_register_games(registry):
    registry.add_game(GameSpec(name="coins", factory=Coins, summary="coins in a line"))
"""


def test_a_margin_game_hint_and_end_say_by_how_much(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "coins_game.py").write_text(COINS_GAME)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = run("-p", "coins_game", "play", "coins", "--o", "perfect", "--seed", "1", input="hint\nL\nL\nL\n")
    assert result.exit_code == 0, result.output
    from test_margins import brute  # (the first player's margin under perfect play, by plain recursion)

    # X's margin after taking the left coin (3) or the right one (2), O then playing perfectly

    left = 3 - brute((9, 1, 2))
    right = 2 - brute((3, 9, 1))
    texts = {
        m: f"wins by {v}" if v > 0 else f"loses by {-v}" if v < 0 else "draw" for m, v in (("L", left), ("R", right))
    }
    for move, text in texts.items():
        assert re.search(rf"^  {move}  {text}", result.output, flags=re.M), result.output
    assert re.search(r"^(You win by \d+|O \(perfect\) wins by \d+|Draw) after 4 moves", result.output, flags=re.M)


def test_search_players_use_maxn_or_paranoid_in_a_three_player_game() -> None:
    from gametree.search.multiplayer import maxn, paranoid

    game = REGISTRY.game("trio").create(width=4, height=3)
    for moves in ("B2 C3", "A1 B2 C3 A4"):
        state = game.initial_state()
        for text in moves.split():
            state = game.play(state, game.parse_move(state, text))
        for kind, search, depth in (("medium", maxn, 2), ("hard", maxn, 4), ("paranoid", paranoid, 4)):
            chosen = {game.format_move(state, m) for m in REGISTRY.players[kind]().best_moves(game, state)}
            assert chosen == set(search(game, state, depth=depth).best_moves), (kind, moves)


def test_a_random_three_player_textbook_tree_is_played_by_maxn_players() -> None:
    """The textbook game's own --players (its random trees' players) and play's --seats side by side."""
    from gametree.search.multiplayer import maxn

    args = ["play", "textbook", "--random", "--players", "3", "--tree-seed", "4", "--seats", "perfect,perfect,perfect"]
    result = run(*args, "--games", "3", "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    game = REGISTRY.game("textbook").create(random=True, players=3, tree_seed=4)
    for record in data["records"]:  # every move one of max^n's best moves for its player
        state = game.initial_state()
        for text in record["moves"]:
            assert text in maxn(game, state).best_moves
            state = game.play(state, game.parse_move(state, text))
        assert record["payoffs"] == list(game.outcome(state).payoffs)


def test_chance_outcomes_are_shown_as_rolls_or_as_the_game_writes_them() -> None:
    from gametree.session import chance_text

    assert chance_text("4") == "rolled 4" and chance_text("rolled 4") == "rolled 4" and chance_text("heads") == "heads"


def test_the_built_in_dice_game_through_the_command() -> None:
    """Dice 21 (games/dice.py): the rolls shown are the seeded generator's, in the loop's order."""
    if "dice" not in REGISTRY.games:
        pytest.skip("the dice game is not installed")
    game = REGISTRY.game("dice").create()
    result = run("play", "dice", "--x", "random", "--o", "random", "--seed", "1")
    assert result.exit_code == 0, result.output
    rng, state, rolls = random.Random(1), game.initial_state(), []
    random_player = REGISTRY.players["random"]()
    while game.outcome(state) is None:
        if game.to_move(state) == CHANCE:
            move = chance_move(game, state, rng)
            rolls.append(game.format_move(state, move))
        else:
            move = random_player.choose(game, state, rng)
        state = game.play(state, move)
    shown = re.findall(r"^Chance: (.+)$", result.output, flags=re.M)
    assert shown and shown == [text if not text.isdecimal() else f"rolled {text}" for text in rolls]
    matches = run("play", "dice", "--x", "random", "--o", "easy", "--games", "5", "--seed", "2", "--json")
    expected = play_match(game, [random_player, REGISTRY.players["easy"]()], games=5, seed=2)
    assert json.loads(matches.output)["wins"] == list(expected.wins)
