"""The interactive search-tree explorer (issue 23): ``gametree tree ... -o tree.html``,
``--compare`` and the Jupyter display, then the page itself in a real browser.

The browser tests drive the distribution's Chromium (``/usr/bin/chromium``, or
``GAMETREE_CHROMIUM``) with Playwright, one browser for the module; they skip
when either is missing (``.ci/run`` installs both).  What they check comes from
the captured trees: node ids are given in the order the search reached the
nodes (a pruned move's placeholder when its cutoff happens), so the page's
replay must uncover exactly the nodes 0..m-1 at every step.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_tree import FIG52, TreeGame

from gametree import load, play_text
from gametree.cli import cli, main
from gametree.tree import capture, model
from gametree.tree import explorer as explorer_module
from gametree.tree.explorer import explorer_html, tree_data

ROOT = Path(__file__).resolve().parent.parent
POSITION = "A1 B2 A2 C3 B3"  # the position of docs/trees.md


@pytest.fixture(scope="module")
def game():
    return load().game("tictactoe").create(size=3)


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def page_data(page: str) -> dict:
    """The data the page carries, read back from its ``<script type="application/json">``."""
    match = re.search(r'<script type="application/json" id="gametree-data">(.*?)</script>', page, re.S)
    assert match, "no data in the page"
    return json.loads(match.group(1))


def column(tree: dict, name: str) -> list:
    """One node attribute of a tree of the page's data (text with few values is written as codes)."""
    c = tree["nodes"][name]
    return [c["dict"][i] for i in c["codes"]] if isinstance(c, dict) else c


# ---------------------------------------------------------------------------------------------
# The page without a browser


def test_tree_data_is_the_graph(game):
    tree = capture(game, play_text(game, POSITION), algorithm="alphabeta", cache=False, all_moves=False)
    data = tree_data(tree)
    graph = tree.graph
    assert len(data["parent"]) == graph.number_of_nodes() == len(data["order"])
    assert {(p, v) for v, p in enumerate(data["parent"]) if p >= 0} == set(graph.edges)
    assert all(data["order"][v] == graph.edges[u, v]["order"] for u, v in graph.edges)
    for name, key in (
        ("move", "move"),
        ("kind", "kind"),
        ("cutoff", "cutoff"),
        ("cells", "cells"),
        ("pruned", "pruned"),
    ):
        assert column(data, name) == [graph.nodes[n].get(key) for n in sorted(graph)], name
    # JSON has no infinities: the root's window on entry is written as text.
    assert column(data, "alpha")[0] == "-inf" and column(data, "beta")[0] == "inf"
    assert data["meta"]["algorithm"] == "alphabeta" and data["meta"]["pv"] == list(tree.result.pv)


ODD_NAMES = {"</script><b>x": {"y": 1}, "<!--": {"z": 2}}


def test_page_is_self_contained_and_its_data_cannot_close_the_script():
    tree = capture(TreeGame(ODD_NAMES), algorithm="alphabeta", depth=2, cache=False)
    page = explorer_html(tree, title="</title><script>alert(1)</script>")
    assert page.count("</script>") == page.count("<script") == 3  # nothing in the data or the title ends a script early
    assert "<title>&lt;/title&gt;" in page
    assert column(page_data(page)["trees"][0], "move")[1:] == ["</script><b>x", "y", "<!--", "z"]
    # Nothing is fetched: no external scripts, styles or imports.
    assert not re.search(r"<script[^>]*\bsrc=|<link\b|@import|url\(\s*['\"]?https?:", page)
    assert "Copyright 2010-2026 Mike Bostock" in page  # d3's licence travels with it


def test_cli_compare_writes_both_trees(tmp_path):
    out = tmp_path / "cmp.html"
    result = run("tree", "tictactoe", "--moves", POSITION, "--compare", "--no-cache", "--root-window", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "minimax beside it: 47 nodes" in result.output
    trees = page_data(out.read_text())["trees"]
    assert [t["meta"]["algorithm"] for t in trees] == ["minimax", "alphabeta"]
    assert [len(t["parent"]) for t in trees] == [47, 17 + 8]  # alpha-beta: 17 positions and 8 pruned moves


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--compare", "-o", "x.svg"], "--compare shows two trees side by side in the html explorer, not in svg"),
        (["--compare", "-a", "minimax", "-o", "x.html"], "leave out --algorithm minimax"),
        (["--compare", "-a", "mcts", "-o", "x.html"], "leave out --algorithm mcts"),
        (
            ["--compare", "--max-nodes", "20", "-o", "x.html"],
            "the minimax tree of this position has 47 nodes, more than --max-nodes 20",
        ),
        (["-f", "html"], "html is markup, not for a terminal"),
    ],
)
def test_cli_compare_errors_are_one_line(args, needle, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # (html is not written to a terminal)
    with pytest.raises(SystemExit) as exit:
        main(["tree", "tictactoe", "--moves", POSITION, *args])
    assert exit.value.code not in (0, None)
    captured = capsys.readouterr()
    assert captured.out == "" and needle in captured.err and "Traceback" not in captured.err
    assert len(captured.err.strip().splitlines()) == 1, captured.err
    assert not list(tmp_path.iterdir())  # nothing written


def test_jupyter_shows_the_explorer(game, monkeypatch):
    tree = capture(game, play_text(game, POSITION), algorithm="minimax")
    html = tree._repr_html_()
    assert html.startswith("<iframe srcdoc=") and "data-gametree-ready" in html
    bundle = tree._repr_mimebundle_()
    assert bundle["text/html"] == html and "<svg" in bundle["image/svg+xml"]  # a small tree keeps its diagram
    monkeypatch.setattr(model, "SVG_NODES", 10)  # a large one shows the explorer alone: dot would take minutes
    assert "image/svg+xml" not in tree._repr_mimebundle_()

    def broken(tree, **options):
        raise OSError("the explorer's files are missing")

    monkeypatch.setattr(explorer_module, "notebook_html", broken)
    assert tree._repr_html_() is None
    bundle = tree._repr_mimebundle_()
    assert "text/html" not in bundle and "<svg" in bundle["image/svg+xml"]  # the static diagram, as before


def test_the_wheel_ships_the_explorer_files(tmp_path):
    """A non-editable install gets the script, styles, d3 and its licence (built offline from a copy)."""
    source = tmp_path / "src"
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "*.nbi", "*.nbc")
    for name in ("gametree", "games", "plugins"):
        shutil.copytree(ROOT / name, source / name, ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    command = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "-q",
        "-w",
        str(tmp_path / "out"),
        str(source),
    ]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    (wheel,) = (tmp_path / "out").glob("gametree-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assets = {p.name for p in (ROOT / "gametree" / "tree" / "assets").iterdir()}
    assert {"d3.min.js", "LICENSE-d3.txt", "explorer.js", "explorer.css"} <= assets
    assert {f"gametree/tree/assets/{name}" for name in assets} <= names


# ---------------------------------------------------------------------------------------------
# The page in a browser


class Page:
    """An explorer page open in the browser; ``errors`` collects the page's script errors."""

    def __init__(self, browser, path: Path, fragment: str = "", size=(1280, 760)) -> None:
        self.page = browser.new_page(viewport={"width": size[0], "height": size[1]})
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None)
        self.page.goto(path.as_uri() + fragment)
        # (a hang guard, not a speed claim: the 59,705-node page takes seconds on a loaded machine)
        self.page.wait_for_selector("html[data-gametree-ready=true]", timeout=120_000)

    def attr(self, name: str) -> str:
        return self.page.get_attribute("html", f"data-gametree-{name}")

    def js(self, code: str, arg=None):
        return self.page.evaluate(code, arg)

    def statuses(self, panel: int = 0) -> list[list[str]]:
        """The status of every node at every step, 0 to the end."""
        return self.js(
            "p => { const out = []; for (let s = 0; s <= gametree.steps; s++) {"
            " gametree.go(s); out.push(gametree.status(p)); } return out; }",
            panel,
        )

    def parent_windows(self, panel: int = 0) -> dict[int, list[float]]:
        """For each node the replay enters, its parent's window (negamax) at that moment."""
        found = self.js(
            """p => { const out = [];
                for (let s = 1; s <= gametree.steps; s++) {
                    gametree.go(s); const e = gametree.event(p);
                    if (e.kind === "enter" && e.node !== 0)
                        out.push([e.node, gametree.window(p, gametree.parent(p, e.node))]);
                } return out; }""",
            panel,
        )
        return {node: window for node, window in found}

    def close(self) -> None:
        assert self.errors == []
        self.page.close()


def write(tmp_path: Path, name: str, tree, **options) -> Path:
    path = tmp_path / name
    path.write_text(explorer_html(tree, **options), encoding="utf-8")
    return path


def check_replay(tree, statuses: list[list[str]]) -> None:
    """The replay uncovers the nodes in the recorder's order, keeps one path of open
    nodes, closes a node after its subtree, and ends with the whole tree."""
    graph = tree.graph
    pruned = sum(1 for _, d in graph.nodes(data=True) if d["pruned"])
    cutoffs = sum(1 for _, d in graph.nodes(data=True) if d.get("cutoff"))
    assert len(statuses) - 1 == 2 * tree.visited + cutoffs  # enter and leave per node, one step per cutoff
    assert set(statuses[0]) == {"future"}
    seen = 0
    for step, status in enumerate(statuses):
        uncovered = [n for n, s in enumerate(status) if s != "future"]
        assert uncovered == list(range(len(uncovered))), f"step {step}: not a prefix of the visit order"
        assert len(uncovered) >= seen
        seen = len(uncovered)
        for n, s in enumerate(status):
            assert (s == "pruned") == (graph.nodes[n]["pruned"] and s != "future"), (step, n)
            if s == "done":
                assert all(status[c] in ("done", "pruned") for c in graph.successors(n)), (step, n)
        active = [n for n, s in enumerate(status) if s == "active"]
        assert all(list(graph.predecessors(n)) == [a] for a, n in zip(active, active[1:])), (
            f"step {step}: open nodes {active}"
        )
    final = statuses[-1]
    assert final.count("done") == tree.visited and final.count("pruned") == pruned


def nx_descendants(graph, node: int) -> set[int]:
    import networkx as nx

    return nx.descendants(graph, node)


def check_windows(tree, windows: dict[int, list[float]]) -> None:
    """Each child was entered with its parent's window of the moment, turned round: the page's
    window (alpha rising as replies come back) must be the one the search recorded."""
    graph = tree.graph
    entered = [n for n, d in graph.nodes(data=True) if n != tree.root and not d["pruned"]]
    if graph.graph["all_moves"]:  # every root move gets a full window of its own
        entered = [n for n in entered if graph.nodes[n]["depth"] > 1]
    assert entered
    for node in entered:
        data = graph.nodes[node]
        assert windows[node] == [-data["beta"], -data["alpha"]], data["moves"]


def test_fig52_step_by_step(browser, tmp_path):
    """AIMA Figure 5.2: after c1 = 2, MIN at a2 holds MAX to 2 < 3, and c2, c3 are never looked at."""
    tree = capture(TreeGame(FIG52), algorithm="alphabeta", depth=2, cache=False, all_moves=False)
    page = Page(browser, write(tmp_path, "fig52.html", tree))
    statuses = page.statuses()
    check_replay(tree, statuses)
    moves = {d["moves"]: n for n, d in tree.graph.nodes(data=True)}
    a2, c1, c2, c3 = moves["a2"], moves["a2 c1"], moves["a2 c2"], moves["a2 c3"]
    left = next(s for s in range(len(statuses)) if statuses[s][c1] == "done")  # c1 returns 2
    assert statuses[left][c2] == statuses[left][c3] == "future"
    assert statuses[left + 1][c2] == statuses[left + 1][c3] == "pruned"  # the very next step is the cutoff
    assert statuses[left + 1][a2] == "active" and statuses[left + 2][a2] == "done"
    page.js("s => gametree.go(s)", left + 1)
    assert page.js("() => gametree.event(0)") == {"kind": "cutoff", "node": a2}
    assert "beta cutoff: -0.02 >= -0.03" in page.js("() => gametree.text()")
    page.js("() => gametree.view('maxmin')")
    assert "\u03b1 cutoff at a MIN node: 0.02 \u2264 \u03b1 = 0.03" in page.js(
        "() => gametree.text()"
    )  # as the textbook says it
    check_windows(tree, page.parent_windows())
    page.js("s => gametree.go(s)", len(statuses) - 1)
    assert page.js("x => gametree.label(0, x)", a2) == "v \u2264 0.02"  # MIN's value at a2, for MAX: at most 2
    page.js("() => gametree.view('negamax')")
    assert page.js("x => gametree.label(0, x)", a2) == "v \u2265 -0.02"
    page.close()


def test_tictactoe_replay_views_keys_and_fragment(browser, tmp_path, game):
    state = play_text(game, POSITION)
    textbook = capture(game, state, algorithm="alphabeta", cache=False, all_moves=False)
    path = write(tmp_path, "ab.html", textbook)
    page = Page(browser, path)
    assert page.attr("nodes") == str(textbook.graph.number_of_nodes())
    statuses = page.statuses()
    check_replay(textbook, statuses)
    # docs/trees.md: X is searched at C1 with the window [-2, 0]; A3 wins at once for 2; B1 and C2 are pruned.
    moves = {d["moves"]: n for n, d in textbook.graph.nodes(data=True)}
    c1, a3, b1, c2 = moves["C1"], moves["C1 A3"], moves["C1 B1"], moves["C1 C2"]
    entered = next(s for s in range(len(statuses)) if statuses[s][c1] == "active")
    page.js("s => gametree.go(s)", entered)
    assert page.js("x => gametree.window(0, x)", c1) == [-2, 0]
    cut = next(s for s in range(len(statuses)) if statuses[s][b1] == "pruned")
    assert statuses[cut - 1][a3] == "done" and statuses[cut][c2] == "pruned"
    page.js("s => gametree.go(s)", cut)
    assert "beta cutoff: 2 >= 0" in page.js("() => gametree.text()") and "B1, C2 are pruned" in page.js(
        "() => gametree.text()"
    )

    check_windows(textbook, page.parent_windows())

    # Views: a position where X has won reads v = -k for O to move, k for MAX, "X wins".
    page.js("() => gametree.go(gametree.steps)")
    won = next(n for n, d in textbook.graph.nodes(data=True) if d.get("winner") == 0)
    score = textbook.graph.nodes[won]["value"]
    assert score < 0 and textbook.graph.nodes[won]["to_move"] == 1
    expected = {"negamax": f"v = {score:g}", "maxmin": f"v = {-score:g}", "wdl": "X wins"}
    for view, text in expected.items():
        page.js("v => gametree.view(v)", view)
        assert page.js("x => gametree.label(0, x)", won) == text, view
        assert page.page.locator(".gt-view").input_value() == view
    assert page.js("() => gametree.label(0, 0)") == "draw"
    page.page.locator(".gt-view").select_option("negamax")  # the page's own control
    assert page.js("() => gametree.view()") == "negamax"

    # The pointer: a node's details on hover, kept by a click; a double-click collapses its subtree.
    page.js("() => gametree.fit()")
    x, y = page.js("x => gametree.screen(0, x)", c1)
    page.page.mouse.move(x, y)
    shown = page.js("() => gametree.details()")
    assert "window on entry[-2, 0]" in shown and "beta cutoff: 2 >= 0 (2 pruned)" in shown and "to moveX" in shown
    page.page.mouse.click(x, y)
    page.page.mouse.move(5, 5)
    assert page.js("() => gametree.details()") == shown
    below = len(nx_descendants(textbook.graph, c1))
    assert f"collapse ({below} below)" in shown
    page.page.mouse.dblclick(x, y)
    assert page.js("() => gametree.shown(0)") == textbook.graph.number_of_nodes() - below

    # Keys: Home, arrows, Shift+arrow to the next cutoff, space to play; the step goes to the address.
    page.page.keyboard.press("Home")
    assert page.attr("step") == "0"
    page.page.keyboard.press("ArrowRight")
    page.page.keyboard.press("ArrowRight")
    page.page.keyboard.press("ArrowLeft")
    assert page.attr("step") == "1" and page.page.url.endswith("#step=1")
    page.page.keyboard.press("Shift+ArrowRight")
    first_cut = next(s for s in range(len(statuses)) if "pruned" in statuses[s])
    assert page.attr("step") == str(first_cut)
    page.page.locator(".gt-speed").select_option("1000")
    page.page.keyboard.press("Space")
    page.page.wait_for_function(
        "() => document.documentElement.dataset.gametreeStep === String(gametree.steps)", timeout=120_000
    )
    page.close()

    # #step=N opens the page at step N.
    again = Page(browser, path, "#step=7")
    assert again.attr("step") == "7" and again.js("() => gametree.status(0)") == statuses[7]
    again.close()


def test_replay_with_the_cache_and_a_window_per_root_move(browser, tmp_path, game):
    """gametree tree's default search: cache hits (kind "cache") and score bounds end nodes early."""
    tree = capture(game, play_text(game, "A1 B2 C3"))
    kinds = {d.get("kind") for _, d in tree.graph.nodes(data=True)}
    assert {"cache", "bound", "searched", "terminal"} <= kinds
    page = Page(browser, write(tmp_path, "cached.html", tree))
    check_replay(tree, page.statuses())
    check_windows(tree, page.parent_windows())
    page.close()


def test_compare_shows_the_pruning_as_the_difference(browser, tmp_path):
    out = tmp_path / "cmp.html"
    result = run("tree", "tictactoe", "--moves", POSITION, "--compare", "--no-cache", "--root-window", "-o", str(out))
    assert result.exit_code == 0, result.output
    page = Page(browser, out)
    assert page.js("() => gametree.panels()") == ["minimax", "alphabeta"]
    assert page.page.title().endswith("minimax and alpha-beta side by side; draw, best play A3 C1 B1 C2")
    data = page_data(out.read_text())["trees"]
    paths = []
    for tree in data:
        parent, moves = tree["parent"], column(tree, "move")
        text = [""] * len(parent)
        for n in range(1, len(parent)):  # (parents come before their children)
            text[n] = f"{text[parent[n]]} {moves[n]}".strip()
        paths.append(text)
    minimax, alphabeta = paths
    pruned = column(data[1], "pruned")
    visited = {p for p, cut in zip(alphabeta, pruned) if not cut}
    assert page.attr("nodes") == f"{len(minimax)} {len(alphabeta)}"
    assert page.js("() => gametree.skipped()") == [int(p not in visited) for p in minimax]
    both = page.js(
        "() => { const out = []; for (let s = 0; s <= gametree.steps; s++) {"
        " gametree.go(s); out.push([gametree.status(0), gametree.status(1)]); } return out; }"
    )
    assert len(both) == 2 * len(minimax) + 1  # minimax drives the replay
    for step, (mm, ab) in enumerate(both):
        # Alpha-beta reaches a position exactly when minimax does (same move order, no cache).
        state_of = {p: s for p, s in zip(minimax, mm)}
        for p, s, cut in zip(alphabeta, ab, pruned):
            if not cut:
                assert s == state_of[p], (step, p)
    page.close()


def test_large_trees_open(browser, tmp_path, game):
    """The large trees open, whole or with deeper levels collapsed.  How long they take to draw
    is measured by benchmarks/bench_explorer.py (the goal: the 7,332-node tree in under 2 s)."""
    tree = capture(game, play_text(game, "A1 B2"), algorithm="minimax")
    assert tree.graph.number_of_nodes() == 7332
    page = Page(browser, write(tmp_path, "big.html", tree))
    assert page.attr("nodes") == "7332"
    assert float(page.attr("render-ms")) >= 0  # (the page measures its drawing: the benchmark reads it)
    assert page.js("() => gametree.shown(0)") == 7332  # all of it, drawn as far as it is in view
    check_fitted(page, 7332)
    fitted = page.js("() => gametree.zoom(0)")
    assert page.js("() => gametree.detail(0)") == "dots"  # boards shrink to dots, and come back on zoom
    left, top, right, bottom = page.js("() => gametree.canvas(0)")
    page.page.mouse.move((left + right) / 2, (top + bottom) / 2)
    for _ in range(8):  # the wheel keeps the levels under the pointer where they are: the tree stays in view
        page.page.mouse.wheel(0, -300)
        page.page.wait_for_timeout(40)
    page.js("() => gametree.draw()")
    assert page.js("() => gametree.zoom(0)") > 20 * fitted and len(page.js("() => gametree.boxes(0)")) > 30
    page.js("() => gametree.zoomAt(0, 0, 0.2)")
    assert page.js("() => gametree.detail(0)") == "blocks"
    page.js("() => gametree.zoomAt(0, 0, 1)")
    assert page.js("() => gametree.detail(0)") == "boxes"
    page.page.keyboard.press("p")  # projector mode: larger boxes, the tree fitted again
    assert page.js("() => gametree.projector()") is True
    assert page.page.locator("#gametree.gt-projector").count() == 1
    assert page.page.get_attribute('[data-act="projector"]', "aria-pressed") == "true"
    page.js("() => gametree.zoomAt(0, 0, 1)")
    big_root = page.js("() => gametree.boxes(0).find(b => b[0] === 0)")
    page.page.click('[data-act="projector"]')
    assert page.js("() => gametree.projector()") is False
    page.js("() => gametree.zoomAt(0, 0, 1)")
    root = page.js("() => gametree.boxes(0).find(b => b[0] === 0)")
    assert big_root[3] - big_root[1] >= 1.5 * (root[3] - root[1])  # the root's box at zoom 1: 1.6 times as wide
    page.close()

    huge = capture(game, play_text(game, "A1"), algorithm="minimax")
    assert huge.graph.number_of_nodes() == 59705
    page = Page(browser, write(tmp_path, "huge.html", huge))
    assert page.attr("nodes") == "59705" and page.attr("step") == str(2 * 59705)
    shown = page.js("() => gametree.shown(0)")
    assert 0 < shown < 10_000  # deeper levels start collapsed
    check_fitted(page, shown, pressed=False)  # it opens fitted
    # Zoomed in on the collapsed level, each count of hidden nodes ("+N") is clear of every box.
    page.js("() => gametree.zoomAt(0, gametree.labelled(0), 1)")
    assert page.js("() => gametree.detail(0)") == "boxes"
    labels, boxes = page.js("() => [gametree.labels(0), gametree.boxes(0)]")
    assert len(labels) >= 3 and len(boxes) >= 4
    for label in labels:
        assert not [b for b in boxes if overlap(label[1:], b[1:])], label
    page.js("() => gametree.fit()")
    assert page.js("() => gametree.toggle(0, 0)") == 1  # collapsing the root leaves the root
    assert page.js("() => gametree.toggle(0, 0)") == shown
    page.js("() => gametree.go(60000)")
    assert page.attr("step") == "60000"
    assert page.js("() => gametree.screen(0, gametree.event(0).node)") is not None  # the replay shows its node
    page.close()


def overlap(a: list[float], b: list[float]) -> bool:
    """Whether two rectangles [left, top, right, bottom] overlap."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def check_fitted(page: Page, shown: int, pressed: bool = True) -> None:
    """After fit (the F key), every node drawn lies inside the canvas, the nodes are spread over it
    (not a sliver), and the canvas is drawn on (not blank with a few dots)."""
    if pressed:
        page.page.locator("canvas").first.focus()
        page.page.keyboard.press("f")
    page.js("() => gametree.draw()")
    width, height = page.js("() => { const c = gametree.canvas(0); return [c[2] - c[0], c[3] - c[1]]; }")
    boxes = page.js("() => gametree.boxes(0)")
    assert len(boxes) == shown  # all of them in view
    for node, left, top, right, bottom in boxes:
        assert -0.5 <= left and right <= width + 0.5 and -0.5 <= top and bottom <= height + 0.5, node
        assert right - left >= 3 and bottom - top >= 3, node  # drawn large enough to see
    xs, ys = [(b[1] + b[3]) / 2 for b in boxes], [(b[2] + b[4]) / 2 for b in boxes]
    spread = sorted([(max(xs) - min(xs)) / width, (max(ys) - min(ys)) / height])
    assert spread[0] > 0.4 and spread[1] > 0.8, spread  # spread over the canvas
    assert len({(round(x / 4), round(y / 4)) for x, y in zip(xs, ys)}) > min(shown, 300)  # many told apart
    inked = page.js(
        """() => { const c = document.querySelector("canvas");
            const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
            let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n / (d.length / 4); }"""
    )
    assert inked > 0.05, f"only {inked:.1%} of the canvas is drawn on"


def test_odd_move_names_stay_text(browser, tmp_path):
    tree = capture(TreeGame(ODD_NAMES), algorithm="alphabeta", depth=2, cache=False)
    page = Page(browser, write(tmp_path, "odd.html", tree, title="<b>bold?</b>"))
    page.js("() => gametree.go(2)")
    assert "</script><b>x" in page.js("() => gametree.text()")  # shown as text, not markup
    assert page.page.locator("h1").inner_text() == "<b>bold?</b>" and page.page.locator("b:text('bold?')").count() == 0
    page.close()


def test_the_notebook_frame_draws_the_explorer(browser, game):
    tree = capture(game, play_text(game, "A1 B2 A2"), algorithm="minimax")  # too many leaves to read them all
    page = browser.new_page()
    page.set_content(f"<html><body><p>a notebook cell</p>{tree._repr_html_()}</body></html>")
    frame = page.frame_locator("iframe")
    frame.locator("html[data-gametree-ready=true]").wait_for(state="attached", timeout=120_000)
    assert frame.locator("html").get_attribute("data-gametree-nodes") == str(tree.graph.number_of_nodes())
    # The first view shows the tree's top (issue 34, item 8): it opens fitted, every node and the root's box in view.
    inner = page.frames[1]
    inner.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    width, height = inner.evaluate("() => { const c = gametree.canvas(0); return [c[2] - c[0], c[3] - c[1]]; }")
    boxes = inner.evaluate("() => gametree.boxes(0)")
    assert len(boxes) == tree.graph.number_of_nodes() == inner.evaluate("() => gametree.shown(0)")
    root = next(b for b in boxes if b[0] == 0)
    assert root[1] >= 0 and root[2] >= 0 and root[3] <= width and root[4] <= height, root
    assert page.locator("p").inner_text() == "a notebook cell"  # the page's styles stay inside the frame
    page.close()


def test_screenshot_is_not_blank(browser, tmp_path, game):
    tree = capture(game, play_text(game, POSITION), algorithm="alphabeta", cache=False, all_moves=False)
    page = Page(browser, write(tmp_path, "shot.html", tree), "#step=20")
    shot = tmp_path / "explorer.png"
    page.page.screenshot(path=str(shot))
    page.close()
    png = shot.read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    # The browser decodes the screenshot and counts its colours (no imaging library needed).
    viewer = browser.new_page()
    colours = viewer.evaluate(
        """async src => {
            const img = new Image(); img.src = src; await img.decode();
            const c = document.createElement("canvas"); c.width = img.width; c.height = img.height;
            const g = c.getContext("2d"); g.drawImage(img, 0, 0);
            const d = g.getImageData(0, 0, c.width, c.height).data, seen = new Set();
            for (let i = 0; i < d.length; i += 4) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
            return seen.size;
        }""",
        "data:image/png;base64," + base64.b64encode(png).decode(),
    )
    viewer.close()
    assert colours > 50, f"the screenshot has {colours} colours: blank?"


def test_chance_and_three_player_trees_in_the_explorer(browser, tmp_path):
    """Issue 31: a chance node's probabilities and expected value, Star1's cutoff with its reason in
    the replay, and a payoff vector with the mover's payoff marked (hand-written searches that tell
    the observer, tests/test_tree_kinds.py)."""
    from test_tree_kinds import DICE, THREE, TOTAL, KindTree, capture_search, chance_search, maxn_search

    game = KindTree(DICE, bounds=(-9, 9))
    tree = capture_search(game, chance_search(game, prune=True))
    page = Page(browser, write(tmp_path, "chance.html", tree))
    check_replay(tree, page.statuses())
    moves = {d["moves"]: n for n, d in tree.graph.nodes(data=True)}
    roll, coin, heads = moves["roll"], moves["coin"], moves["coin H"]
    page.js("s => gametree.go(s)", page.js("() => gametree.steps"))
    assert page.js("x => gametree.label(0, x)", coin) == "E = +1"
    assert page.js("x => gametree.label(0, x)", roll) == "E \u2264 +1/3"  # Star1's bound: the mean is at most 1/3
    # The details of an outcome name its probability; the replay names Star1's cutoff by its reason.
    page.js("x => { gametree.go(0); }", None)
    steps = page.js(
        """() => { const out = []; for (let s = 1; s <= gametree.steps; s++) { gametree.go(s);
            out.push([gametree.event(0).kind, gametree.text()]); } return out; }"""
    )
    cut = [text for kind, text in steps if kind == "cutoff"]
    assert len(cut) == 1 and "star1: the mean is outside the window" in cut[0] and "3 is pruned" in cut[0]
    entered = [text for kind, text in steps if kind == "enter"]
    assert any("coin H" in t and "p = 1/2" in t for t in entered)
    assert any("roll" in t and "a chance node: 3 outcomes" in t for t in entered)
    page.js("() => gametree.view('maxmin')")
    assert page.js("x => gametree.label(0, x)", moves["roll 1"]) == "v = -5"  # MIN's node, for MAX
    page.js("() => gametree.view('negamax')")
    assert page.js("x => gametree.label(0, x)", moves["roll 1"]) == "v = +5"  # for MIN
    assert heads >= 0
    page.close()

    game = KindTree(THREE, players=3, bounds=(0, TOTAL))
    tree = capture_search(game, maxn_search(game))
    page = Page(browser, write(tmp_path, "three.html", tree))
    check_replay(tree, page.statuses())
    moves = {d["moves"]: n for n, d in tree.graph.nodes(data=True)}
    page.js("s => gametree.go(s)", page.js("() => gametree.steps"))
    assert page.js("() => gametree.label(0, 0)") == "([3] 4 3)"
    assert page.js("x => gametree.label(0, x)", moves["a0"]) == "(3 [4] 3)"
    assert page.js("x => gametree.label(0, x)", moves["a0 b0"]) == "(7 2 1)"
    texts = page.js(
        """() => { const out = []; for (let s = 1; s <= gametree.steps; s++) { gametree.go(s);
            if (gametree.event(0).kind === "cutoff") out.push(gametree.text()); } return out; }"""
    )
    assert len(texts) == 1 and "shallow pruning: 8 >= 10 - 3" in texts[0] and "b2 is pruned" in texts[0]
    page.page.mouse.move(*page.js("() => gametree.screen(0, 0)"))
    assert "payoffs" in page.js("() => gametree.details()")
    page.close()


def test_explorer_of_a_star2_tree_from_the_cli(browser, tmp_path):
    """Issue 31: gametree tree textbook -a star2 -o t.html: a chance node's expected value and its
    outcomes' probabilities in the explorer."""
    from test_tree_kinds import CHANCE_TREE

    out = tmp_path / "star2.html"
    assert run("tree", "textbook", "--tree", CHANCE_TREE, "-a", "star2", "-o", str(out)).exit_code == 0
    data = page_data(out.read_text(encoding="utf-8"))["trees"][0]
    chance = column(data, "chance")
    probability = column(data, "probabilityText")
    page = Page(browser, out)
    assert page.js("() => gametree.view()") == "maxmin"  # (the default for a game with chance nodes)
    page.js("s => gametree.go(s)", page.js("() => gametree.steps"))
    labels = [page.js("x => gametree.label(0, x)", x) for x in range(len(chance))]
    assert any(label.startswith("E ") for x, label in enumerate(labels) if chance[x])
    outcome = next(x for x, p in enumerate(probability) if p == "1/3")
    page.page.mouse.move(*page.js("x => gametree.screen(0, x)", outcome))
    assert "probability1/3" in page.js("() => gametree.details()").replace(" ", "")
    page.close()


def test_explorer_of_a_maxn_tree_from_the_cli(browser, tmp_path):
    """Issue 31: gametree tree textbook -a maxn -o t.html: each node's payoff vector, the mover's marked."""
    from test_tree_kinds import THREE_TREE

    out = tmp_path / "maxn.html"
    assert run("tree", "textbook", "--tree", THREE_TREE, "-a", "maxn", "-o", str(out)).exit_code == 0
    page = Page(browser, out)
    page.js("s => gametree.go(s)", page.js("() => gametree.steps"))
    assert page.js("() => gametree.label(0, 0)") == "([3] 4 3)"
    page.page.mouse.move(*page.js("() => gametree.screen(0, 0)"))
    assert "p1 3, p2 4, p3 3" in page.js("() => gametree.details()")
    page.close()
