"""``gametree play``: the players, the game loop, and the real command driven through stdin and a pseudo-terminal."""

from __future__ import annotations

import io
import json
import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import CliRunner

from gametree import PluginError, alphabeta, play_text
from gametree.cli import cli
from gametree.play import GameRecord, Player, play_game, play_match
from gametree.terminal import Terminal, board_rows

if TYPE_CHECKING:
    from conftest import GametreeCli

KINDS = ("human", "random", "easy", "medium", "hard", "perfect")


# -- helpers ------------------------------------------------------------------------------------------
def run(*args: str, input: str | None = None) -> Any:
    result = CliRunner().invoke(cli, list(args), input=input)
    assert "Traceback" not in result.output
    return result


class FirstFree:
    """A weak scripted 'human': always the first free cell in reading order."""

    human = False

    def choose(self, game: Any, state: Any, rng: Any) -> Any:
        return min(game.legal_moves(state))


def simulate(
    registry: Any, game: Any, human_side: int, human: Callable[[Any, Any], Any], opponent: str, seed: int
) -> tuple[list[str], list[str], int | None]:
    """What the command will do: the opponent draws from a generator seeded like ``--seed``.

    Returns the human's move texts, all moves, and the winner.
    """
    import random

    rng = random.Random(seed)
    computer = registry.players[opponent]()
    state, mine, moves = game.initial_state(), [], []
    while game.outcome(state) is None:
        if game.to_move(state) == human_side:
            move = human(game, state)
            mine.append(game.format_move(state, move))
        else:
            move = computer.choose(game, state, rng)
        moves.append(game.format_move(state, move))
        state = game.play(state, move)
    return mine, moves, game.outcome(state).winner


def perfect_strategy(registry: Any) -> Callable[[Any, Any], Any]:
    import random

    player, rng = registry.players["perfect"](), random.Random(12345)
    return lambda game, state: player.choose(game, state, rng)


def first_free(game: Any, state: Any) -> Any:
    return min(game.legal_moves(state))


def boards(text: str) -> list[list[list[str]]]:
    """Every 3x3 board printed in plain text, as rows of cell tokens (".", "X", "[O]", "*X*")."""
    lines = text.splitlines()
    found = []
    for i, line in enumerate(lines):
        if re.fullmatch(r"\s+1\s+2\s+3", line):
            found.append([lines[i + 1 + r][2:].split() for r in range(3)])
    return found


def marks(board: list[list[str]]) -> str:
    return "".join(cell.strip("[]*") for row in board for cell in row)


# -- players ---------------------------------------------------------------------------------------------
def test_builtin_players_are_registered_plugins(registry):
    assert set(KINDS) <= set(registry.players)
    for kind in KINDS:
        player = registry.players[kind]()
        assert isinstance(player, Player)
        assert player.human is (kind == "human")
        assert registry.players[kind].source.endswith("(entry point gametree_builtins.plugins.players)")


def test_registry_rejects_duplicate_and_bad_players(registry):
    from gametree import Registry

    fresh = Registry()
    fresh.add_player("mine", FirstFree)
    with pytest.raises(PluginError, match="registered twice"):
        fresh.add_player("mine", FirstFree)
    with pytest.raises(PluginError, match="not a simple word"):
        fresh.add_player("two words", FirstFree)
    with pytest.raises(PluginError, match="not callable"):
        fresh.add_player("thing", 42)  # type: ignore[arg-type]


def _values(game):
    """Depth-aware negamax values of every reachable position, by brute force (no alpha-beta)."""
    C = game.info.max_plies
    memo: dict[Any, int] = {}

    def value(state):
        key = game.key(state)
        if key in memo:
            return memo[key]
        out = game.outcome(state)
        if out is not None:
            v = 0 if out.winner is None else -((C + 2 - game.ply(state)) // 2)
        else:
            v = max(-value(game.play(state, m)) for m in game.legal_moves(state))
        memo[key] = v
        return v

    value(game.initial_state())
    return value


def _positions(game):
    seen, stack, out = set(), [game.initial_state()], []
    while stack:
        state = stack.pop()
        if game.key(state) in seen:
            continue
        seen.add(game.key(state))
        out.append(state)
        if game.outcome(state) is None:
            stack.extend(game.play(state, m) for m in game.legal_moves(state))
    return out


def test_perfect_best_moves_are_exactly_the_depth_aware_optimal_ones(registry, ttt3):
    """Wins fastest, loses slowest: on every reachable 3x3 position the perfect player's
    candidate moves are exactly those a brute-force depth-aware negamax calls best."""
    value = _values(ttt3)
    perfect = registry.players["perfect"]()
    checked = 0
    for state in _positions(ttt3):
        if ttt3.outcome(state) is not None:
            continue
        scores = {m: -value(ttt3.play(state, m)) for m in ttt3.legal_moves(state)}
        best = max(scores.values())
        assert set(perfect.best_moves(ttt3, state)) == {m for m, v in scores.items() if v == best}
        checked += 1
    assert checked == 4520


def test_perfect_never_loses_to_random_500_games_each_side(registry, ttt3):
    perfect, rand = registry.players["perfect"](), registry.players["random"]()  # one cache for all 1000 games
    as_x = play_match(ttt3, (perfect, rand), games=500, seed=1, names=("perfect", "random"))
    as_o = play_match(ttt3, (rand, perfect), games=500, seed=2, names=("random", "perfect"))
    assert as_x.games == as_o.games == 500
    assert as_x.wins[1] == 0 and as_o.wins[0] == 0
    assert as_x.wins[0] > 400 and as_o.wins[1] > 250  # it also punishes random play
    assert all(len(r.moves) >= 5 for r in as_x.records + as_o.records)


@pytest.mark.parametrize("side", [0, 1])
def test_perfect_never_loses_against_any_move_sequence(registry, ttt3, side):
    """Exhaustive: every opponent move at every turn, and every move perfect might pick."""
    perfect = registry.players["perfect"]()
    best: dict[Any, list[Any]] = {}
    endings = {None: 0, 0: 0, 1: 0}

    def walk(state):
        out = ttt3.outcome(state)
        if out is not None:
            endings[out.winner] += 1
            return
        if ttt3.to_move(state) == side:
            if state not in best:
                best[state] = perfect.best_moves(ttt3, state)
            moves = best[state]
        else:
            moves = ttt3.legal_moves(state)
        for move in moves:
            walk(ttt3.play(state, move))

    walk(ttt3.initial_state())
    assert endings[1 - side] == 0
    assert endings[side] > 0 and endings[None] > 0


def test_easy_loses_some_games_against_perfect(registry, ttt3):
    perfect, easy = registry.players["perfect"](), registry.players["easy"]()
    as_x = play_match(ttt3, (easy, perfect), games=200, seed=3)
    as_o = play_match(ttt3, (perfect, easy), games=200, seed=4)
    assert as_x.wins[0] == 0 and as_o.wins[1] == 0
    assert as_x.wins[1] > 0 and as_o.wins[0] > 0


def _immediate_wins(game, state):
    me = game.to_move(state)
    return [
        m for m in game.legal_moves(state) if (game.outcome(game.play(state, m)) or GameRecord((), None)).winner == me
    ]


def _safe(game, state, move):
    after = game.play(state, move)
    return game.outcome(after) is not None or not _immediate_wins(game, after)


def test_easy_takes_wins_and_usually_but_not_always_blocks(registry, ttt3):
    import random

    easy, rng = registry.players["easy"](), random.Random(7)
    blocked = missed = 0
    for state in _positions(ttt3):
        if ttt3.outcome(state) is not None:
            continue
        wins = _immediate_wins(ttt3, state)
        move = easy.choose(ttt3, state, rng)
        if wins:
            assert move in wins
            continue
        moves = ttt3.legal_moves(state)
        if any(_safe(ttt3, state, m) for m in moves) and not all(_safe(ttt3, state, m) for m in moves):
            if _safe(ttt3, state, move):
                blocked += 1
            else:
                missed += 1
    assert blocked + missed > 500
    assert 0.6 < blocked / (blocked + missed) < 0.97  # usually blocks, but makes real mistakes


@pytest.mark.parametrize("kind", ["medium", "hard"])
def test_search_strengths_take_wins_and_block(registry, ttt3, kind):
    import random

    player, rng = registry.players[kind](), random.Random(8)
    for state in _positions(ttt3)[::3]:
        if ttt3.outcome(state) is not None:
            continue
        move = player.choose(ttt3, state, rng)
        assert move in ttt3.legal_moves(state)
        wins = _immediate_wins(ttt3, state)
        if wins:
            assert move in wins
        elif any(_safe(ttt3, state, m) for m in ttt3.legal_moves(state)):
            assert _safe(ttt3, state, move)


def test_search_player_keeps_its_table_per_game(registry):
    spec = registry.game("tictactoe")
    a, b = spec.create(size=3), spec.create(size=4, k=3)
    player = registry.players["hard"]()
    table = player.table_for(a)
    assert player.table_for(a) is table
    player.choose(a, a.initial_state(), __import__("random").Random(1))
    assert len(table) > 0
    assert player.table_for(b) is not table


def test_play_game_refuses_humans_and_illegal_moves(registry, ttt3):
    import random

    from gametree.play import PlayError

    with pytest.raises(PlayError, match="two computer players"):
        play_game(ttt3, (registry.players["human"](), registry.players["random"]()), random.Random(1))

    class Cheat:
        human = False

        def choose(self, game, state, rng):
            return 4  # B2, again and again

    with pytest.raises(PlayError, match="illegal move.*already taken"):
        play_game(ttt3, (Cheat(), Cheat()), random.Random(1))


# -- the board ----------------------------------------------------------------------------------------------
def test_board_rows_mark_last_move_and_winning_line(ttt3):
    state = play_text(ttt3, "A1 B1 A2 B2")
    plain = ["".join(text for text, _ in row).rstrip() for row in board_rows(ttt3, state, last=(1, 1))]
    assert plain == ["   1   2   3", "A  X   X   .", "B  O  [O]  .", "C  .   .   ."]
    won = ttt3.play(state, 2)
    cells = ttt3.winning_cells(won)
    rows = board_rows(ttt3, won, last=(0, 2), winning=cells, plain=False)
    styles = [style for row in rows[1:] for text, style in row if text.strip() and style != "label"]
    assert styles[:3] == ["win"] * 3 and styles[3:5] == ["player1", "player1"] and styles.count("empty") == 4


def test_spinner_only_for_slow_moves(wait_until):
    from rich.console import Console

    out = io.StringIO()
    ui = Terminal(stdin=io.StringIO(), stdout=out, fancy=True)
    ui._console = Console(file=out, force_terminal=True, width=60)
    assert ui.think(lambda: 7, "quick one") == 7
    assert "quick one" not in out.getvalue()

    def slow() -> int:
        """A move that takes as long as it takes for the spinner to show (fails after 120 s)."""
        wait_until(lambda: "slow one" in out.getvalue(), "the spinner of a slow move")
        return 42

    assert ui.think(slow, "slow one") == 42
    assert "slow one" in out.getvalue()
    with pytest.raises(ZeroDivisionError):
        ui.think(lambda: 1 / 0, "failing")


# -- the command through stdin (plain text) ----------------------------------------------------------------
def _inputs(game, texts):
    """Type moves in every accepted way: A1 style, lower case with spaces, and cell numbers."""
    typed = []
    for i, text in enumerate(texts):
        if i % 3 == 1:
            typed.append(f"  {text.lower()}  ")
        elif i % 3 == 2:
            typed.append(str(game.parse_move(game.initial_state(), text) + 1))
        else:
            typed.append(text)
    return "\n".join(typed) + "\n"


def _assert_replayed(output, moves, human_side, label):
    replies = re.findall(rf"^{label} plays (\S+)$", output, flags=re.M)
    assert replies == [m for i, m in enumerate(moves) if i % 2 != human_side]


def test_scripted_human_win(registry, ttt3):
    seed = next(s for s in range(100) if simulate(registry, ttt3, 0, perfect_strategy(registry), "random", s)[2] == 0)
    mine, moves, _ = simulate(registry, ttt3, 0, perfect_strategy(registry), "random", seed)
    result = run("play", "tictactoe", "--o", "random", "--seed", str(seed), input=_inputs(ttt3, mine))
    assert result.exit_code == 0
    assert f"You win after {len(moves)} moves!" in result.output
    _assert_replayed(result.output, moves, 0, r"O \(random\)")
    final = boards(result.output)[-1]
    state = play_text(ttt3, " ".join(moves))
    assert sum(cell == "*X*" for row in final for cell in row) == len(ttt3.winning_cells(state)) >= 3
    assert "Play again" not in result.output  # input is not a terminal


def test_scripted_human_draw(registry, ttt3):
    mine, moves, winner = simulate(registry, ttt3, 0, perfect_strategy(registry), "perfect", 11)
    assert winner is None
    result = run("play", "tictactoe", "--seed", "11", input=_inputs(ttt3, mine))
    assert result.exit_code == 0
    assert "Draw after 9 moves." in result.output
    _assert_replayed(result.output, moves, 0, r"O \(perfect\)")
    assert marks(boards(result.output)[-1]).count(".") == 0


@pytest.mark.parametrize("human_side", [0, 1])
def test_scripted_human_loss(registry, ttt3, human_side):
    mine, moves, winner = simulate(registry, ttt3, human_side, first_free, "perfect", 5)
    assert winner == 1 - human_side
    args = ["--o", "perfect"] if human_side == 0 else ["--x", "perfect", "--o", "human"]
    result = run("play", "tictactoe", *args, "--seed", "5", input="\n".join(mine) + "\n")
    assert result.exit_code == 0
    name = "XO"[1 - human_side]
    assert f"{name} (perfect) wins after {len(moves)} moves." in result.output
    _assert_replayed(result.output, moves, human_side, rf"{name} \(perfect\)")


def test_every_invalid_input_reprompts_with_a_reason():
    typed = ["zz", " D4 ", "10", "0", "A0", "", "B2", "B2", "b2", "5", "help", "x"]
    result = run("play", "--seed", "1", input="\n".join(typed) + "\n")
    assert result.exit_code == 0
    out = result.output
    assert "How to play:" in out and "X (you) vs O (perfect)" in out
    assert "cannot read 'zz'" in out
    assert "D4 is off the board" in out
    assert "cell 10 is off the board" in out and "cell 0 is off the board" in out
    assert out.count("B2 is already taken") == 3  # B2, b2 and cell 5
    assert "Commands:" in out and "hint" in out and "undo" in out
    assert out.count("try again") == 8
    # Every line typed was read at a prompt (the empty one silently re-prompts).
    assert out.count("X to move: ") == len(typed)
    assert out.rstrip().endswith("Goodbye.")


def test_input_after_game_over_is_not_read():
    # X wins with A3 from the given start; the lines after it are never read as moves.
    result = run("play", "tictactoe", "--moves", "A1 B1 A2 B2", "--seed", "1", input="A3\nC3\nC2\n")
    assert result.exit_code == 0
    assert "You win after 5 moves!" in result.output
    assert result.output.count("to move:") == 1 and not re.search(r"^X to move: C3", result.output, flags=re.M)
    assert result.output.rstrip().endswith("You win after 5 moves!")


def test_undo_takes_back_the_last_pair(registry, ttt3):
    result = run("play", "--seed", "3", input="undo\nB2\nundo\nA1\nquit\n")
    out = result.output
    assert result.exit_code == 0
    assert "Nothing to undo yet." in out
    reply = re.findall(r"^O \(perfect\) plays (\S+)$", out, flags=re.M)
    assert f"Took back B2 {reply[0]}." in out
    shown = boards(out)
    # start, after the reply, after undo (empty again), after A1's reply
    assert marks(shown[2]) == "." * 9 and marks(shown[1]).count(".") == 7
    assert marks(shown[3])[0] == "X"


def test_undo_as_second_player_and_between_two_humans():
    # O is yours; X (perfect) has played B2 before the session started, which undo never takes back.
    result = run(
        "play", "--x", "perfect", "--o", "human", "--moves", "B2", "--seed", "2", input="undo\nA1\nundo\nquit\n"
    )
    out = result.output
    assert result.exit_code == 0
    assert "Nothing to undo yet." in out
    reply = re.findall(r"^X \(perfect\) plays (\S+)$", out, flags=re.M)
    assert len(reply) == 1 and f"Took back A1 {reply[0]}." in out
    assert boards(out)[-1] == [[".", ".", "."], [".", "X", "."], [".", ".", "."]]

    result = run("play", "--x", "human", "--o", "human", input="B2\nA1\nundo\nC3\nquit\n")
    out = result.output
    assert "Took back A1." in out and "O (human) to move:" in out
    final = boards(out)[-1]
    assert final[1][1] == "X" and final[2][2] == "[O]" and marks(final).count(".") == 7


def test_hint_shows_the_value_of_every_legal_move(ttt3):
    result = run("play", "--seed", "4", input="A1\nhint\nquit\n")
    out = result.output
    reply = re.findall(r"^O \(perfect\) plays (\S+)$", out, flags=re.M)[0]
    state = play_text(ttt3, f"A1 {reply}")
    expected = alphabeta(ttt3, state)
    lines = re.findall(r"^  ([A-C][1-3])  (win|draw|loss)(?: in (\d+) moves?)?(  \(best\))?$", out, flags=re.M)
    assert {m for m, *_ in lines} == {mv.move for mv in expected.move_values}
    for mv in expected.move_values:
        line = next(entry for entry in lines if entry[0] == mv.move)
        assert line[1] == ("win" if mv.score > 0 else "loss" if mv.score < 0 else "draw")
        assert bool(line[3]) == mv.best
        if mv.score:
            assert int(line[2]) == mv.plies_to_end


@pytest.mark.parametrize("word", ["quit", "x", "Q", "exit"])
def test_quit_words(word):
    result = run("play", input=f"{word}\n")
    assert result.exit_code == 0 and result.output.rstrip().endswith("Goodbye.")


def test_end_of_input_says_goodbye():
    result = run("play", "--seed", "1", input="B2\n")
    assert result.exit_code == 0
    assert result.output.rstrip().endswith("Goodbye.")
    assert result.exception is None


def test_match_tally_matches_the_api(registry, ttt3):
    result = run("play", "--x", "perfect", "--o", "random", "--games", "20", "--seed", "5")
    assert result.exit_code == 0
    expected = play_match(ttt3, (registry.players["perfect"](), registry.players["random"]()), games=20, seed=5)
    assert len(re.findall(r"^Game \d+: ", result.output, flags=re.M)) == 20
    assert (
        f"Tally after 20 games: X (perfect) {expected.wins[0]} wins, O (random) 0 wins, {expected.draws} draws"
        in result.output
    )
    assert expected.wins[1] == 0
    for record, line in zip(expected.records, re.findall(r"^Game \d+: .*$", result.output, flags=re.M)):
        assert line.endswith(" ".join(record.moves))


def test_json_match_and_its_errors(registry, ttt3):
    result = run("play", "--x", "easy", "--o", "perfect", "--games", "30", "--seed", "9", "--json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["games"] == 30 and data["players"] == ["easy", "perfect"] and data["wins"][0] == 0
    assert sum(data["wins"]) + data["draws"] == 30 and len(data["records"]) == 30

    result = run("play", "--json")
    assert result.exit_code != 0 and "two computer players" in result.output
    result = run("play", "tictactoe", "--x", "wizard")
    assert result.exit_code == 2 and "wizard" in result.output
    result = run("play", "tictactoe", "--moves", "B2 B2")  # (illegal moves: exit 1, as in solve and tree)
    assert result.exit_code == 1 and "already taken" in result.output
    result = run("play", "tictactoe", "--moves", "A1 B1 A2 B2 A3")
    assert result.exit_code == 1 and "already over" in result.output
    result = run("play", "chess")
    assert result.exit_code == 2 and "unknown game" in result.output


def test_play_help_lists_players_and_game_options():
    result = run("play", "tictactoe", "--help")
    assert result.exit_code == 0
    for needle in (
        "--size",
        "--k",
        "--x, --first",
        "--o, --second",
        "--seed",
        "--games",
        "--delay",
        "human|random|easy|medium|hard|perfect",
    ):
        assert needle in result.output


def test_a_plugin_player_plays(tmp_path, monkeypatch, registry, ttt3):
    (tmp_path / "firstfree_player.py").write_text(
        "from gametree import hookimpl\n"
        "class FirstFree:\n"
        "    human = False\n"
        "    def choose(self, game, state, rng):\n"
        "        return min(game.legal_moves(state))\n"
        "@hookimpl\n"
        "def gametree_register_players(registry):\n"
        "    registry.add_player('firstfree', FirstFree)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    result = run(
        "-p",
        "firstfree_player",
        "play",
        "tictactoe",
        "--x",
        "firstfree",
        "--o",
        "perfect",
        "--games",
        "5",
        "--seed",
        "1",
        "--json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    expected = play_match(ttt3, (FirstFree(), registry.players["perfect"]()), games=5, seed=1)
    assert data["wins"] == list(expected.wins) and data["wins"][1] == 5


def test_non_board_game_falls_back_to_render(registry):
    if "nim" not in registry.games:
        pytest.skip("nim is not installed")
    game = registry.game("nim").create()
    result = run("play", "nim", "--o", "random", "--seed", "1", input="1:3\n9:1\nquit\n")
    assert result.exit_code == 0
    assert game.render(game.initial_state()).splitlines()[0] in result.output
    assert re.search(r"^last move: \S+$", result.output, flags=re.M)
    assert "there is no heap 9" in result.output


def test_connect_four_board(registry):
    if "connect4" not in registry.games:
        pytest.skip("connect4 is not installed")
    game = registry.game("connect4").create(width=5, height=4)
    result = run("play", "connect4", "--width", "5", "--height", "4", "--x", "random", "--o", "perfect", "--seed", "3")
    assert result.exit_code == 0
    header = "   " + "   ".join(game.column_labels)
    assert header in result.output
    assert re.search(r"^4  ", result.output, flags=re.M) and re.search(r"^1  ", result.output, flags=re.M)
    assert "Red (random) vs Yellow (perfect)" in result.output
    assert re.search(r"(Yellow \(perfect\) wins|Draw) after \d+ moves", result.output)


def test_importing_the_play_modules_stays_light():
    code = (
        "import sys, gametree.cli.play, gametree.play, gametree.session, gametree.terminal, gametree.cli\n"
        "print([m for m in ('rich', 'networkx', 'graphviz') if m in sys.modules])\n"
        "print('play' in gametree.cli.cli.commands)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "True"]


# -- the command in a pseudo-terminal ---------------------------------------------------------------------
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal_:
    """The real command in a pseudo-terminal (the child gets it as its controlling terminal)."""

    def __init__(self, gametree_cli: GametreeCli, *args: str, env: dict[str, str] | None = None) -> None:
        import pty

        argv = gametree_cli.argv(*args)
        environ = gametree_cli.env(
            {"NO_COLOR": None, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "40", **(env or {})}
        )
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # pragma: no cover - the child
            try:
                os.execve(argv[0], argv, environ)
            finally:
                os._exit(127)
        self.raw = b""
        self.seen = 0

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw.decode(errors="replace")).replace("\r", "")

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            return False
        self.raw += data
        return bool(data)

    def expect(self, pattern: str, timeout: float = 120) -> str:
        end = time.monotonic() + timeout
        while True:
            match = re.compile(pattern, re.M).search(self.text, self.seen)
            if match:
                self.seen = match.end()
                return match.group(0)
            if time.monotonic() > end or not self._read(0.1):
                raise AssertionError(f"{pattern!r} not seen; output so far:\n{self.text}")

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def reading(self) -> bool:
        """Whether the command is asleep in the kernel, not on a lock: after a prompt, blocked in
        the read(2) of input() (from /proc: its state, and the kernel function it waits in)."""
        try:
            with open(f"/proc/{self.pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            with open(f"/proc/{self.pid}/wchan") as f:
                waits_in = f.read()
        except OSError:
            return False
        return state == "S" and "futex" not in waits_in

    def wait(self, timeout: float = 120) -> int:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                while self._read(0.05):
                    pass
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            self._read(0.05)
        os.kill(self.pid, 9)
        raise AssertionError(f"still running; output so far:\n{self.text}")


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc to see the command wait for input")
def test_pty_colours_and_ctrl_c(gametree_cli, wait_until):
    term = Terminal_(gametree_cli, "play", "--seed", "1")
    term.expect(r"How to play: .*B2")
    term.expect(r"X to move: ")
    term.send("B2\r")
    term.expect(r"O \(perfect\) plays \S+")
    term.expect(r"X to move: ")
    # A person is never this quick: a SIGINT that lands between the prompt and the read(2) inside
    # input() is only noticed after the next line (a CPython race), so wait for input() to block.
    wait_until(term.reading, "the command waiting for input")
    term.send("\x03")
    term.expect(r"Interrupted\. Goodbye\.")
    assert term.wait() == 130
    raw = term.raw.decode(errors="replace")
    assert "\x1b[" in raw and ";7m" in raw  # styled, with the last move in reverse video
    assert "Traceback" not in term.text and "[O]" not in term.text  # no plain-text markers on a styled board


def test_pty_no_color_play_again_undo_and_ctrl_d(gametree_cli):
    term = Terminal_(gametree_cli, "play", "--moves", "A1 B1 A2 B2", "--seed", "1", env={"NO_COLOR": "1"})
    term.expect(r"X to move: ")
    term.send("A3\r")
    term.expect(r"You win after 5 moves!")
    term.expect(r"Play again\? \[Y/n\] ")
    term.send("B2\r")  # a move after the game is over
    term.expect(r"The game is over: answer y to play again")
    term.send("undo\r")
    term.expect(r"Took back A3\.")
    term.expect(r"X to move: ")
    term.send("C3\r")
    term.expect(r"O \(perfect\) plays B3")  # the fastest win
    term.expect(r"O \(perfect\) wins after 6 moves\.")
    term.expect(r"Play again\? \[Y/n\] ")
    term.send("y\r")  # the next game starts from the same position
    term.expect(r"X to move: ")
    term.send("3\r")  # A3 as a cell number
    term.expect(r"You win after 5 moves!")
    term.expect(r"Play again\? \[Y/n\] ")
    term.send("\x04")  # Ctrl-D
    term.expect(r"Goodbye\.")
    assert term.wait() == 0
    raw = term.raw.decode(errors="replace")
    assert not re.search(r"\x1b\[[0-9;]*m", raw)  # no colour at all
    assert "*O*" in term.text and "*X*" in term.text and "Traceback" not in term.text
    # The undone win does not count; the two finished games do.
    assert "Tally after 2 games: X (you) 1 win, O (perfect) 1 win, 0 draws" in term.text


def test_pty_ctrl_d_at_a_move_prompt(gametree_cli):
    term = Terminal_(gametree_cli, "play", "tictactoe", "--x", "perfect", "--o", "human", "--seed", "1")
    term.expect(r"X \(perfect\) plays \S+")
    term.expect(r"O to move: ")
    term.send("\x04")
    term.expect(r"Goodbye\.")
    assert term.wait() == 0
    assert "Traceback" not in term.text and "Play again" not in term.text


def test_pty_undo_at_the_end_when_there_is_nothing_to_take_back(gametree_cli):
    # The computer wins with its first move from this position: no move of yours to take back.
    term = Terminal_(
        gametree_cli,
        "play",
        "--x",
        "perfect",
        "--o",
        "human",
        "--moves",
        "A1 B1 A2 B2",
        "--seed",
        "1",
        env={"NO_COLOR": "1"},
    )
    term.expect(r"X \(perfect\) plays A3")
    term.expect(r"X \(perfect\) wins after 5 moves\.")
    term.expect(r"Play again\? \[Y/n\] ")
    term.send("undo\r")
    term.expect(r"The game is over: answer y to play again, n to stop\.$")
    term.send("n\r")
    term.expect(r"Goodbye\.")
    assert term.wait() == 0
    assert "Took back" not in term.text
