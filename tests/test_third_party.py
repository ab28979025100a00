"""Third-party plugins for real: the tutorial's example distribution, ``-p MODULE``, and broken plugins.

Plugins are installed the way an installer leaves them: a module plus a
``*.dist-info`` folder with ``METADATA`` and ``entry_points.txt`` in a
directory on the path, so the real entry-point loader finds them.  The
``gametree`` command runs in a subprocess with that directory on
``PYTHONPATH``; nothing in the core changes.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import tomllib
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from gametree import Outcome, alphabeta, load, play_text

if TYPE_CHECKING:
    from conftest import GametreeCli

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "example-plugin"


def install(site: Path, dist: str, version: str, modules: dict[str, str], entry_points_: dict[str, str]) -> None:
    """Install a distribution as pip would lay it out: modules and a dist-info with entry points."""
    site.mkdir(parents=True, exist_ok=True)
    for module, source in modules.items():
        (site / f"{module}.py").write_text(source)
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    lines = "".join(f"{name} = {value}\n" for name, value in entry_points_.items())
    (info / "entry_points.txt").write_text(f"[gametree]\n{lines}")
    (info / "RECORD").write_text("")


def install_example(site: Path) -> dict[str, object]:
    """Install docs/example-plugin from its own pyproject.toml (name, version, entry points, module)."""
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())
    meta = project["project"]
    modules = {m: (EXAMPLE / f"{m}.py").read_text() for m in project["tool"]["setuptools"]["py-modules"]}
    install(site, meta["name"], meta["version"], modules, meta["entry-points"]["gametree"])
    return meta


def games_json(gametree_cli: GametreeCli, path: Path | None = None, *extra: str) -> dict[str, object]:
    return json.loads(gametree_cli(*extra, "games", "--json", path=path, check=True).stdout)


# -- (a) the tutorial's example, installed -------------------------------------------------
def test_example_distribution_is_listed_and_solved(gametree_cli: GametreeCli, tmp_path: Path) -> None:
    meta = install_example(tmp_path)
    assert meta["entry-points"]["gametree"] == {"hexapawn": "gametree_hexapawn"}
    data = games_json(gametree_cli, tmp_path)
    games = {g["name"]: g for g in data["games"]}
    assert "hexapawn" in games and "tictactoe" in games
    assert games["hexapawn"]["source"].startswith("gametree-hexapawn 0.1.0")
    assert [o["name"] for o in games["hexapawn"]["options"]] == ["width", "height"]
    assert data["errors"] == []

    solved = json.loads(gametree_cli("solve", "hexapawn", "--json", path=tmp_path, check=True).stdout)
    assert solved["winner"] == 1 and solved["value"] == "loss"  # Gardner: the second player (Black) wins
    assert len(solved["pv"]) == solved["plies_to_end"]
    wider = json.loads(gametree_cli("solve", "hexapawn", "--width", "4", "--json", path=tmp_path, check=True).stdout)
    assert wider["winner"] == 0  # on 4x3 the first player wins

    human = gametree_cli("solve", "hexapawn", path=tmp_path, check=True).stdout
    assert "Black wins" in human and "b1-b2" in human

    # Without the distribution on the path the game is simply not there.
    assert "hexapawn" not in {g["name"] for g in games_json(gametree_cli)["games"]}


def test_example_game_is_correct_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    import gametree_hexapawn

    game = load(extra=[gametree_hexapawn]).game("hexapawn").create()
    result = alphabeta(game)
    assert result.winner == 1
    end = play_text(game, " ".join(result.pv))
    assert game.outcome(end) == Outcome(1) and game.legal_moves(end) == []
    state = game.initial_state()
    for move in game.legal_moves(state):
        assert game.parse_move(state, game.format_move(state, move)) == move
    with pytest.raises(ValueError, match="no White pawn on b2"):
        play_text(game, "b2-b3")
    with pytest.raises(ValueError, match="cannot go to"):
        play_text(game, "b1-b3")
    assert result.plies_to_end is not None and result.plies_to_end <= game.info.max_plies
    monkeypatch.delitem(sys.modules, "gametree_hexapawn")


@pytest.mark.skipif(
    not all(importlib.util.find_spec(name) for name in ("pip", "setuptools", "wheel")),
    reason="building the example offline needs pip, setuptools and wheel in this environment",
)
def test_example_installs_with_pip(gametree_cli: GametreeCli, tmp_path: Path) -> None:
    target = tmp_path / "site"
    # pip builds in the source folder (setuptools leaves build/ and an .egg-info there): build a copy.
    source = shutil.copytree(
        EXAMPLE, tmp_path / "example-plugin", ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(source),
        ],
        check=True,
        timeout=300,
    )
    assert "hexapawn" in {g["name"] for g in games_json(gametree_cli, target)["games"]}


# -- (b) -p MODULE for a module that is only on the path ---------------------------------------
TAKEAWAY = '''
from typing import NamedTuple, TYPE_CHECKING
from gametree import GameInfo, GameSpec, Option, Outcome, MoveParseError, hookimpl

class S(NamedTuple):
    left: int
    moves: int

class TakeAway:
    """Take 1, 2 or 3 from a pile; whoever takes the last one wins."""
    def __init__(self, pile=10):
        self.pile = pile
        self.info = GameInfo(max_plies=pile)
    def initial_state(self): return S(self.pile, 0)
    def to_move(self, s): return s.moves % 2
    def ply(self, s): return s.moves
    def legal_moves(self, s): return [n for n in (3, 2, 1) if n <= s.left]
    def play(self, s, n): return S(s.left - n, s.moves + 1)
    def outcome(self, s): return Outcome((s.moves - 1) % 2) if s.left == 0 else None
    def key(self, s): return (s.left, s.moves)
    def parse_move(self, s, text):
        if text.strip() not in ("1", "2", "3"):
            raise MoveParseError("take 1, 2 or 3")
        return int(text)
    def format_move(self, s, n): return str(n)
    def render(self, s): return "o" * s.left

@hookimpl
def gametree_register_games(registry):
    registry.add_game(GameSpec("takeaway", TakeAway, "take 1-3, last wins", (Option("pile", int, 10, "objects"),)))
'''


def test_dash_p_loads_a_module_from_the_path(gametree_cli: GametreeCli, tmp_path: Path) -> None:
    (tmp_path / "my_takeaway.py").write_text(TAKEAWAY)
    assert "takeaway" not in {
        g["name"] for g in games_json(gametree_cli, tmp_path)["games"]
    }  # not installed: not loaded
    games = {g["name"]: g for g in games_json(gametree_cli, tmp_path, "-p", "my_takeaway")["games"]}
    assert games["takeaway"]["source"] == "module my_takeaway (-p)" and "tictactoe" in games
    for pile, winner in ((10, 0), (12, 1), (7, 0)):  # a multiple of 4 loses for the side to move
        solved = json.loads(
            gametree_cli(
                "-p", "my_takeaway", "solve", "takeaway", "--pile", str(pile), "--json", path=tmp_path, check=True
            ).stdout
        )
        assert solved["winner"] == winner
    # A plugin asked for by name that cannot be loaded is an error, not a warning (as in pytest).
    missing = gametree_cli("-p", "no_such_module_xyz", "games", "--json")
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.strip().splitlines() == [
        "Error: -p no_such_module_xyz: ModuleNotFoundError: No module named 'no_such_module_xyz'"
    ]


def test_dash_p_no_blocks_an_installed_plugin(gametree_cli: GametreeCli, tmp_path: Path) -> None:
    install_example(tmp_path)
    assert "hexapawn" not in {g["name"] for g in games_json(gametree_cli, tmp_path, "-p", "no:hexapawn")["games"]}


# -- (c) broken plugins are reported by name; the rest keeps working ---------------------------
BROKEN_IMPORT = "raise RuntimeError('this plugin is broken on purpose')\n"

MALFORMED = '''
from gametree import GameSpec, hookimpl

class HalfAGame:
    """Has no info, no legal_moves, ...: not a game."""
    def initial_state(self):
        return 0

@hookimpl
def gametree_register_games(registry):
    registry.add_game(GameSpec("halfgame", HalfAGame, "a malformed game"))
'''

RAISES_IN_HOOK = """
from gametree import hookimpl

@hookimpl
def gametree_register_games(registry):
    raise ValueError("registration failed on purpose")
"""

MISSPELT_HOOK = """
from gametree import hookimpl

@hookimpl
def gametree_register_gaems(registry):
    pass
"""


def test_broken_plugins_are_reported_and_the_rest_keeps_working(gametree_cli: GametreeCli, tmp_path: Path) -> None:
    install(tmp_path, "broken-import", "1.0", {"broken_import": BROKEN_IMPORT}, {"brokenimport": "broken_import"})
    install(tmp_path, "half-game", "2.0", {"half_game": MALFORMED}, {"halfgame": "half_game"})
    install(tmp_path, "raises-in-hook", "3.0", {"raises_in_hook": RAISES_IN_HOOK}, {"raisesinhook": "raises_in_hook"})
    install(tmp_path, "misspelt", "4.0", {"misspelt_hook": MISSPELT_HOOK}, {"misspelt": "misspelt_hook"})

    data = games_json(gametree_cli, tmp_path)
    names = {g["name"] for g in data["games"]}
    assert {"tictactoe", "connect4", "nim"} <= names
    errors = {e["name"]: e for e in data["errors"]}
    assert set(errors) == {"brokenimport", "raisesinhook", "misspelt"}
    assert errors["brokenimport"]["dist"] == "broken-import 1.0"
    assert "RuntimeError: this plugin is broken on purpose" in errors["brokenimport"]["error"]
    assert "registration failed on purpose" in errors["raisesinhook"]["error"]
    assert "gametree_register_gaems" in errors["misspelt"]["error"]

    listing = gametree_cli("games", path=tmp_path, check=True)
    assert "tictactoe" in listing.stdout
    for name in ("brokenimport", "raisesinhook", "misspelt"):
        assert f"plugin {name}" in listing.stdout + listing.stderr

    solved = gametree_cli("solve", "tictactoe", "--json", path=tmp_path, check=True)
    assert json.loads(solved.stdout)["value"] == "draw"

    # The malformed game registers (its factory only runs when it is used), then fails by name.
    assert "halfgame" in names
    bad = gametree_cli("solve", "halfgame", path=tmp_path)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    message = bad.stderr.strip().splitlines()[-1]
    assert "halfgame" in message and "malformed" in message and "half-game 2.0" in message


# -- built-in games come through the same entry-point group ---------------------------------
def test_every_built_in_plugin_is_an_entry_point() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["gametree"]
    installed = {ep.name: ep.value for ep in entry_points(group="gametree")}
    for name, value in declared.items():
        assert installed.get(name) == value, (
            f"{name} is declared in pyproject.toml but not installed (pip install -e .)"
        )
    registry = load()
    for game in ("tictactoe", "connect4", "nim"):
        assert declared[game] == f"gametree_builtins.games.{game}"
        assert f"(entry point gametree_builtins.games.{game})" in registry.game(game).source


# -- a plugin that calls sys.exit() while it loads is a broken plugin, not the end of the command --
EXITS_ON_IMPORT = "import sys\nsys.exit(3)\n"

EXITS_IN_HOOK = """
import sys
from gametree import hookimpl

@hookimpl
def gametree_register_games(registry):
    sys.exit(4)
"""


def test_dash_p_plugin_calling_sys_exit_on_import_is_one_error_line(gametree_cli: GametreeCli, tmp_path: Path) -> None:
    (tmp_path / "exits_on_import.py").write_text(EXITS_ON_IMPORT)
    out = gametree_cli("-p", "exits_on_import", "games", "--json", path=tmp_path)
    assert out.returncode == 1 and out.stdout == "" and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == ["Error: -p exits_on_import: SystemExit: 3"]
    (tmp_path / "exits_in_hook.py").write_text(EXITS_IN_HOOK)
    out = gametree_cli("-p", "exits_in_hook", "solve", "tictactoe", "--json", path=tmp_path)
    assert out.returncode == 1 and out.stdout == "" and "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: -p exits_in_hook:") and "SystemExit: 4" in lines[0]


def test_entry_point_plugin_calling_sys_exit_is_a_warning(gametree_cli: GametreeCli, tmp_path: Path) -> None:
    install(
        tmp_path, "exits-on-import", "1.0", {"exits_on_import": EXITS_ON_IMPORT}, {"exitsonimport": "exits_on_import"}
    )
    install(tmp_path, "exits-in-hook", "2.0", {"exits_in_hook": EXITS_IN_HOOK}, {"exitsinhook": "exits_in_hook"})
    solved = gametree_cli("solve", "tictactoe", "--json", path=tmp_path, check=True)
    assert json.loads(solved.stdout)["value"] == "draw"
    warnings = solved.stderr.strip().splitlines()
    assert "warning: plugin exitsonimport (from exits-on-import 1.0) failed: SystemExit: 3" in warnings
    assert any(w.startswith("warning: plugin exitsinhook") and "SystemExit: 4" in w for w in warnings), warnings
    assert len(warnings) == 2 and "Traceback" not in solved.stderr
    errors = {e["name"]: e["error"] for e in games_json(gametree_cli, tmp_path)["errors"]}
    assert errors["exitsonimport"] == "SystemExit: 3" and "SystemExit: 4" in errors["exitsinhook"]
