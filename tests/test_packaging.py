"""What gametree installs: only names starting with ``gametree``, so a user's own ``games/`` or
``plugins/`` folder (or another distribution's) can neither shadow nor replace the built-ins."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import GametreeCli

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

JUNK = "raise RuntimeError('the user\\'s own {name}, not gametree\\'s')\n"


@pytest.fixture
def user_folder(tmp_path: Path) -> Path:
    """A folder with its own ``games`` and ``plugins`` packages, whose every module raises on import."""
    for package, modules in {"games": ("tictactoe", "connect4", "nim"), "plugins": ("players", "exporters")}.items():
        (tmp_path / package).mkdir()
        for module in ("__init__", *modules):
            (tmp_path / package / f"{module}.py").write_text(JUNK.format(name=f"{package}/{module}.py"))
    return tmp_path


def run_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run with ``folder`` as the working folder and first on the path (``PYTHONPATH=.``); the
    ``gametree`` command runs the same way: ``gametree_cli(..., cwd=folder, path=folder)``."""
    env = {**os.environ, "PYTHONPATH": str(folder)}
    return subprocess.run(list(args), cwd=folder, env=env, capture_output=True, text=True, timeout=120)


def test_the_user_folder_really_shadows_top_level_games(user_folder: Path) -> None:
    """The set-up of the tests below: there, ``import games`` and ``import plugins`` find the junk."""
    for package in ("games", "plugins"):
        proc = run_in(user_folder, sys.executable, "-c", f"import {package}")
        assert proc.returncode != 0 and f"the user's own {package}/__init__.py" in proc.stderr, proc.stderr


def test_solve_ignores_the_users_games_and_plugins_folders(gametree_cli: GametreeCli, user_folder: Path) -> None:
    proc = gametree_cli("solve", "tictactoe", "--size", "3", "--json", cwd=user_folder, path=user_folder)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["value"] == "draw" and result["score"] == 0 and result["winner"] is None
    assert "the user's own" not in proc.stderr


def test_games_lists_the_builtins_beside_the_users_folders(gametree_cli: GametreeCli, user_folder: Path) -> None:
    proc = gametree_cli("games", "--json", cwd=user_folder, path=user_folder)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    sources = {g["name"]: g["source"] for g in data["games"]}
    for game in ("tictactoe", "connect4", "nim"):
        assert sources[game].endswith(f"(entry point gametree_builtins.games.{game})"), sources
    assert data["errors"] == []  # the players and exporters plugins loaded too

    human = gametree_cli("games", cwd=user_folder, path=user_folder)
    assert human.returncode == 0, human.stderr
    assert all(game in human.stdout for game in ("tictactoe", "connect4", "nim"))
    assert "failed" not in human.stdout + human.stderr


def test_players_and_exporters_load_beside_the_users_folders(user_folder: Path) -> None:
    code = (
        "import json, sys\n"
        "from gametree import load\n"
        "r = load()\n"
        "print(json.dumps({'players': {n: p.source for n, p in r.players.items()},"
        " 'exporters': {n: e.source for n, e in r.exporters.items()},"
        " 'errors': [str(e) for e in r.errors], 'shadowed': [m for m in ('games', 'plugins') if m in sys.modules]}))\n"
    )
    proc = run_in(user_folder, sys.executable, "-c", code)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["errors"] == [] and data["shadowed"] == []
    assert {"random", "easy", "hard", "perfect"} <= set(data["players"])
    assert {"svg", "dot", "json"} <= set(data["exporters"])
    assert data["players"]["hard"].endswith("(entry point gametree_builtins.plugins.players)")
    assert data["exporters"]["svg"].endswith("(entry point gametree_builtins.plugins.exporters)")


# -- the wheel's contents, from pyproject.toml --------------------------------------------------
def test_every_installed_package_starts_with_gametree() -> None:
    setuptools = PYPROJECT["tool"]["setuptools"]
    packages = setuptools["packages"]
    assert packages and all(p == "gametree" or p.startswith(("gametree.", "gametree_builtins.")) for p in packages), (
        packages
    )
    assert {"gametree_builtins.games", "gametree_builtins.plugins"} <= set(packages)
    # The repository folders games/ and plugins/ are installed under gametree_builtins, nowhere else.
    assert setuptools["package-dir"] == {"gametree_builtins.games": "games", "gametree_builtins.plugins": "plugins"}
    for name, folder in setuptools["package-dir"].items():
        assert (ROOT / folder / "__init__.py").is_file(), name
    # gametree_builtins is a namespace package: it must not become a top-level package of ours.
    assert "gametree_builtins" not in packages


def test_every_folder_of_gametree_is_packaged() -> None:
    """Each folder of gametree/ holding Python files is listed (setuptools installs no unlisted one)."""
    packages = set(PYPROJECT["tool"]["setuptools"]["packages"])
    found = {
        ".".join(folder.relative_to(ROOT).parts)
        for folder in [ROOT / "gametree", *(ROOT / "gametree").rglob("*")]
        if folder.is_dir() and folder.name != "__pycache__" and any(folder.glob("*.py"))
    }
    assert found <= packages, f"add {sorted(found - packages)} to [tool.setuptools] packages in pyproject.toml"
    assert {p for p in packages if p.startswith("gametree.")} <= found | {"gametree"}


def test_entry_points_and_scripts_name_gametree_modules() -> None:
    project = PYPROJECT["project"]
    points = project["entry-points"]["gametree"]
    assert all(value.startswith(("gametree.", "gametree_builtins.")) for value in points.values()), points
    for name in ("tictactoe", "connect4", "nim"):
        assert points[name] == f"gametree_builtins.games.{name}"
    for name in ("players", "exporters"):
        assert points[name] == f"gametree_builtins.plugins.{name}"
    assert all(value.startswith("gametree.") for value in project["scripts"].values())


def test_the_built_wheel_holds_only_gametree_names(tmp_path: Path) -> None:
    """Build the wheel for real (offline, about a second) from a copy of the sources, and read it."""
    from importlib.metadata import version

    major = int(version("setuptools").split(".")[0])
    assert major >= 77, f"setuptools {version('setuptools')} is too old to build gametree: pip install -e '.[test]'"
    source = tmp_path / "src"
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    for name in ("gametree", "games", "plugins"):
        shutil.copytree(ROOT / name, source / name, ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run(
        [*command, "--wheel-dir", str(tmp_path / "dist"), str(source)], check=True, timeout=300, capture_output=True
    )
    (wheel,) = (tmp_path / "dist").glob("gametree-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        points = archive.read(entry_points).decode()

    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top == {"gametree", "gametree_builtins"}
    assert "gametree/py.typed" in names
    assert "gametree_builtins/__init__.py" not in names  # a namespace package
    modules = {f"gametree/{p.relative_to(ROOT / 'gametree').as_posix()}" for p in (ROOT / "gametree").rglob("*.py")}
    modules |= {
        f"gametree_builtins/{p.relative_to(ROOT).as_posix()}"
        for p in [*(ROOT / "games").glob("*.py"), *(ROOT / "plugins").glob("*.py")]
    }
    assert modules - set(names) == set(), "modules missing from the wheel"
    values = [line.split("=", 1)[1].strip() for line in points.splitlines() if "=" in line]
    assert values and all(value.startswith("gametree") for value in values), points


def test_type_information_is_shipped() -> None:
    assert (ROOT / "gametree" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["gametree"]


def test_builtins_import_by_their_installed_name_only() -> None:
    from gametree_builtins.games import tictactoe
    from gametree_builtins.plugins import players

    assert Path(tictactoe.__file__).resolve() == ROOT / "games" / "tictactoe.py"
    assert Path(players.__file__).resolve() == ROOT / "plugins" / "players.py"


#: ``import games...``/``from plugins...`` at the start of a line (code, doctests, plugin sources in strings).
STALE_IMPORT = re.compile(r"^\s*(?:>>> )?(?:from|import)\s+(?:games|plugins)\b", re.MULTILINE)


def test_nothing_imports_the_builtins_by_their_folder_names() -> None:
    """From the repository root ``games`` is importable too, but it would be a second copy of each module."""
    files = [*(ROOT / "tests").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py"), *(ROOT / "docs").rglob("*.py")]
    files += [*(ROOT / "docs").rglob("*.md"), ROOT / "README.md", *(ROOT / "gametree").rglob("*.py")]
    stale = [
        f"{path.relative_to(ROOT)}: {m.group(0).strip()}"
        for path in files
        for m in STALE_IMPORT.finditer(path.read_text())
    ]
    assert stale == [], "import gametree_builtins.games... / gametree_builtins.plugins... instead"
