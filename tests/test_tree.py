"""Search-tree capture, drawing, exporters and ``gametree tree``."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import stat
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from gametree import GameInfo, alphabeta, load, minimax, play_text
from gametree.cli import cli
from gametree.tree import SearchTree, TreeTooLargeError, capture, count_nodes, draw

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def game():
    return load().game("tictactoe").create(size=3)


def _without_time(result):
    stats = dataclasses.replace(result.stats, seconds=0.0, nodes_per_second=0.0)
    return dataclasses.replace(result, stats=stats)


# ---------------------------------------------------------------------------------------------
# The traced engine is the fast engine plus reports: same results, same counters.

POSITION = "A1 B2 A2 C3 B3"  # the position of docs/trees.md
POSITIONS = ["A1 B2 C3", "B2 A1 C3 A3 A2 C1", "B2 A1", "A1 B1 A2", "B2 A1 C3 A3"]


@pytest.mark.parametrize("moves", POSITIONS)
@pytest.mark.parametrize(
    "options",
    [
        {"algorithm": "alphabeta"},
        {"algorithm": "alphabeta", "cache": False},
        {"algorithm": "alphabeta", "all_moves": False},
        {"algorithm": "alphabeta", "symmetry": False, "all_moves": False},
        {"algorithm": "alphabeta", "depth": 2},
        {"algorithm": "minimax", "depth": 3},
    ],
)
def test_traced_search_matches_the_fast_one(game, moves, options):
    state = play_text(game, moves)
    options = dict(options)
    algorithm = options.pop("algorithm")
    if algorithm == "minimax":
        fast = minimax(game, state, **options)
    else:
        fast = alphabeta(game, state, **options)
    tree = capture(game, state, algorithm=algorithm, **options)
    assert _without_time(tree.result) == _without_time(fast)
    # One graph node per visit, at the depths the counters saw.
    assert tree.visited == fast.stats.nodes
    depths = [0] * len(fast.stats.nodes_per_depth)
    for _, data in tree.graph.nodes(data=True):
        if not data["pruned"]:
            depths[data["depth"]] += 1
    assert tuple(depths) == fast.stats.nodes_per_depth
    kinds = [d["kind"] for _, d in tree.graph.nodes(data=True) if not d["pruned"]]
    assert kinds.count("terminal") == fast.stats.terminals
    assert kinds.count("heuristic") == fast.stats.heuristic_leaves
    # Each counted cutoff left moves untried, and they are exactly the pruned placeholders.
    cut = [n for n, d in tree.graph.nodes(data=True) if not d["pruned"] and d["cutoff"]]
    assert len(cut) == fast.stats.cutoffs
    assert {u for u, _ in tree.pruned_edges()} == set(cut)
    assert count_nodes(game, state, algorithm=algorithm, **options) == fast.stats.nodes


def test_minimax_tree_is_the_whole_tree(game):
    state = play_text(game, "B2 A1 C3 A3")
    tree = capture(game, state, algorithm="minimax")
    graph = tree.graph
    assert nx.is_arborescence(graph)
    assert tree.pruned_edges() == []
    for node, data in graph.nodes(data=True):
        children = list(graph.successors(node))
        if data["kind"] == "terminal":
            assert not children
        else:
            # Negamax: a node's value is the best of its children's values negated.
            assert data["value"] == max(-graph.nodes[c]["value"] for c in children)
            assert len(children) == len(game.legal_moves(play_text(game, data["moves"], state)))
    assert tree.pv_moves() == list(tree.result.pv)


def test_node_attributes_are_plain_data(game):
    tree = capture(game, play_text(game, "A1 B2 C3"))
    plain = (int, float, str, bool, type(None))
    for _, data in tree.graph.nodes(data=True):
        assert all(isinstance(v, plain) for v in data.values()), data
    for _, _, data in tree.graph.edges(data=True):
        assert all(isinstance(v, plain) for v in data.values()), data
    root = tree.graph.nodes[0]
    assert root["depth"] == 0 and root["moves"] == "" and root["player"] == "O"
    assert (root["alpha"], root["beta"]) == (float("-inf"), float("inf"))
    kinds = {d.get("kind") for _, d in tree.graph.nodes(data=True)}
    assert {"searched", "terminal", "cache"} <= kinds


def test_bounds_are_relative_to_the_window_on_entry(game):
    tree = capture(game, play_text(game, "A1 B2 C3"), all_moves=False, cache=False)
    for _, data in tree.graph.nodes(data=True):
        if data["pruned"]:
            continue
        v, a, b = data["value"], data["alpha"], data["beta"]
        if data["kind"] in ("terminal", "heuristic"):
            assert data["bound"] == "exact"  # a leaf's score is known whatever the window
            continue
        expected = "upper" if v <= a else "lower" if v >= b else "exact"
        assert data["bound"] == expected
        if data["cutoff"]:  # failed high, or exactly on a narrowed upper edge (the score bound)
            assert data["bound"] == "lower" or (data["bound"] == "exact" and v == data["search_beta"] < b)


def test_max_nodes_stops_the_capture(game):
    state = play_text(game, "A1")
    with pytest.raises(TreeTooLargeError) as info:
        capture(game, state, algorithm="minimax", max_nodes=50)
    message = str(info.value)
    assert "more than 50 nodes" in message and "--moves" in message and "--depth" in message
    assert info.value.reached == 51
    assert count_nodes(game, state, algorithm="minimax", limit=50) is None


# ---------------------------------------------------------------------------------------------
# A hand-written tree game: AIMA's Figure 5.2, and random trees against a textbook alpha-beta.


class TreeGame:
    """A game tree given as nested dicts; leaves are numbers (MAX's utility).

    States are the tuples of moves played.  Leaves are reached at the depth
    limit, so their value comes from ``evaluate`` (utility / 100, for the side to move).
    """

    def __init__(self, tree):
        self.tree = tree
        self.info = GameInfo(max_plies=20, player_names=("MAX", "MIN"))

    def node(self, state):
        node = self.tree
        for move in state:
            node = node[move]
        return node

    def initial_state(self):
        return ()

    def to_move(self, state):
        return len(state) % 2

    def ply(self, state):
        return len(state)

    def legal_moves(self, state):
        node = self.node(state)
        return list(node) if isinstance(node, dict) else []

    def play(self, state, move):
        return (*state, move)

    def outcome(self, state):
        return None

    def key(self, state):
        return state

    def evaluate(self, state):
        utility = self.node(state) / 100
        return utility if self.to_move(state) == 0 else -utility

    def parse_move(self, state, text):
        return text

    def format_move(self, state, move):
        return move

    def render(self, state):
        return " ".join(state) or "root"


FIG52 = {
    "a1": {"b1": 3, "b2": 12, "b3": 8},
    "a2": {"c1": 2, "c2": 4, "c3": 6},
    "a3": {"d1": 14, "d2": 5, "d3": 2},
}


def test_fig52_textbook_cutoffs():
    game = TreeGame(FIG52)
    tree = capture(game, algorithm="alphabeta", depth=2, cache=False, all_moves=False)
    assert tree.result.score == pytest.approx(0.03) and tree.result.pv == ("a1", "b1")
    pruned = sorted(tree.graph.nodes[v]["moves"] for _, v in tree.pruned_edges())
    # After c1 = 2 MIN at a2 can hold MAX to 2 < 3: c2 and c3 are never looked at.
    assert pruned == ["a2 c2", "a2 c3"]
    a2 = next(n for n, d in tree.graph.nodes(data=True) if d["moves"] == "a2")
    # Negamax: at a2 MIN sees c1 as -0.02, above its beta of -0.03 (MAX already has 0.03 from a1).
    assert tree.graph.nodes[a2]["cutoff"] == "beta cutoff: -0.02 >= -0.03"
    # A bound for MIN, who is to move at a2: MIN's v >= -0.02, so a2 is worth at most 0.02 to MAX.
    assert tree.graph.nodes[a2]["bound"] == "lower" and tree.graph.nodes[a2]["value"] == pytest.approx(-0.02)
    assert tree.pv_moves() == ["a1", "b1"]
    # Every root move gets a full window with all_moves=True: nothing is pruned in this tree.
    full = capture(game, algorithm="alphabeta", depth=2, cache=False)
    assert full.pruned_edges() == [] and full.visited == 13


def _textbook_alphabeta(tree):
    """Alpha-beta as in the textbooks (MAX and MIN written out); returns the value and the skipped move paths."""
    skipped = []

    def visit(node, path, alpha, beta, maximizing):
        if not isinstance(node, dict):
            return node
        moves = list(node)
        value = -float("inf") if maximizing else float("inf")
        for i, move in enumerate(moves):
            child = visit(node[move], (*path, move), alpha, beta, not maximizing)
            if maximizing:
                value = max(value, child)
                alpha = max(alpha, value)
            else:
                value = min(value, child)
                beta = min(beta, value)
            if alpha >= beta:
                skipped.extend(" ".join((*path, m)) for m in moves[i + 1 :])
                break
        return value

    value = visit(tree, (), -float("inf"), float("inf"), True)
    return value, sorted(skipped)


def _random_tree(draw_, depth, values):
    if depth == 0:
        return values.pop()
    width = draw_(st.integers(min_value=1, max_value=3))
    return {f"m{depth}{i}": _random_tree(draw_, depth - 1, values) for i in range(width)}


@st.composite
def random_trees(draw_):
    depth = draw_(st.integers(min_value=1, max_value=4))
    values = draw_(st.lists(st.integers(min_value=-99, max_value=99), min_size=81, max_size=81))
    return depth, _random_tree(draw_, depth, list(values))


@settings(max_examples=60, deadline=None)
@given(random_trees())
def test_pruned_edges_are_the_moves_textbook_alphabeta_skips(sample):
    depth, tree_data = sample
    game = TreeGame(tree_data)
    tree = capture(game, algorithm="alphabeta", depth=depth, cache=False, all_moves=False)
    value, skipped = _textbook_alphabeta(tree_data)
    assert tree.result.score == pytest.approx(value / 100)
    assert sorted(tree.graph.nodes[v]["moves"] for _, v in tree.pruned_edges()) == skipped


# ---------------------------------------------------------------------------------------------
# Drawing and exporting.


@pytest.fixture(scope="module")
def small_tree(game) -> SearchTree:
    return capture(game, play_text(game, "B2 A1 C3 A3 A2"))


def test_pv_is_marked_on_the_graph(game, small_tree):
    marked = small_tree.pv_moves()
    pv = list(small_tree.result.pv)
    assert marked and pv[: len(marked)] == marked
    assert small_tree.graph.graph["pv_marked"] == len(marked)
    nodes = small_tree.pv_nodes()
    assert all(small_tree.graph.nodes[n]["pv"] for n in nodes)
    assert sum(1 for _, d in small_tree.graph.nodes(data=True) if d["pv"]) == len(nodes)
    if len(marked) < len(pv):  # the line went on through a cache hit: the drawing says how
        assert small_tree.graph.nodes[nodes[-1]]["kind"] == "cache"
        assert "best play goes on: " + " ".join(pv[len(marked) :]) in small_tree.to_dot()


def test_dot_source_styles_the_tree(small_tree):
    source = small_tree.to_dot()
    assert source.startswith("digraph")
    assert "rankdir=TB" in source and "How to read this tree" in source
    for node, data in small_tree.graph.nodes(data=True):
        if not data["pruned"]:
            assert f"\tn{node} [" in source
    for u, v in small_tree.pruned_edges():
        assert small_tree.graph.edges[u, v]["reason"] in source
    assert "style=dashed" in source
    pv_edges = [
        line for line in source.splitlines() if "->" in line and draw.COLOURS["pv"] in line and "pv_rest" not in line
    ]
    assert len(pv_edges) == len(small_tree.pv_moves())
    assert 'FACE="Courier"' in source  # boards
    plain = small_tree.to_dot(board=False, legend=False)
    assert 'FACE="Courier"' not in plain and "How to read" not in plain


def test_custom_styles_are_used(small_tree):
    def node_style(data, *, board):
        attrs = draw.default_node_style(data, board=board)
        attrs["tooltip"] = f"depth-{data.get('depth')}"
        return attrs

    def edge_style(data):
        return {**draw.default_edge_style(data), "arrowhead": "vee"}

    source = small_tree.to_dot(node_style=node_style, edge_style=edge_style)
    assert 'tooltip="depth-0"' in source and "arrowhead=vee" in source


def test_svg_parses_and_has_every_node(small_tree):
    svg = small_tree.render("svg")
    root = ET.fromstring(svg)
    titles = {el.text for el in root.iter("{http://www.w3.org/2000/svg}title")}
    for node, data in small_tree.graph.nodes(data=True):
        if not data["pruned"]:
            assert f"n{node}" in titles
    pruned_parents = {u for u, _ in small_tree.pruned_edges()}
    groups = {t for t in titles if t and t.startswith("p") and t[1:].isdigit()}
    assert groups == {f"p{min(v for u, v in small_tree.pruned_edges() if u == parent)}" for parent in pruned_parents}


def test_png_signature(small_tree):
    assert small_tree.render("png").startswith(PNG_SIGNATURE)


def test_jupyter_display(small_tree, monkeypatch):
    bundle = small_tree._repr_mimebundle_()
    ET.fromstring(bundle["image/svg+xml"])
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(draw, "_script_dirs", lambda: [])
    bundle = small_tree._repr_mimebundle_()
    assert "image/svg+xml" not in bundle and "graphviz-pure" in bundle["text/plain"]


def test_exporters_are_plugins():
    registry = load()
    assert {"svg", "png", "dot", "graphml", "json"} <= set(registry.exporters)
    assert registry.exporters["svg"].source.find("gametree_builtins.plugins.exporters") >= 0


def test_graphml_and_json_keep_every_attribute(small_tree):
    registry = load()
    graphml = registry.exporters["graphml"].export(small_tree, {})
    back = nx.parse_graphml(graphml.decode("utf-8"), node_type=int)
    assert back.number_of_nodes() == small_tree.graph.number_of_nodes()
    assert back.number_of_edges() == small_tree.graph.number_of_edges()
    assert back.nodes[0]["alpha"] == float("-inf") and back.nodes[0]["player"] == small_tree.graph.nodes[0]["player"]
    for node, data in small_tree.graph.nodes(data=True):
        assert back.nodes[node]["pruned"] == data["pruned"]
        if not data["pruned"]:
            assert back.nodes[node]["value"] == data["value"]

    data = json.loads(registry.exporters["json"].export(small_tree, {}))
    edges = "edges" if "edges" in data else "links"
    graph = nx.node_link_graph(data, edges=edges) if edges == "edges" else nx.node_link_graph(data)
    assert sorted(graph.nodes) == sorted(small_tree.graph.nodes)
    assert graph.nodes[0]["alpha"] == "-inf" and graph.graph["pv"] == " ".join(small_tree.result.pv)
    assert {(u, v) for u, v in graph.edges} == set(small_tree.graph.edges)


# ---------------------------------------------------------------------------------------------
# Finding a dot program: system Graphviz first, else graphviz-pure, else a clear error.


def test_graphviz_pure_is_found_without_system_graphviz(small_tree, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot, no graphviz-pure on PATH
    monkeypatch.delenv("GAMETREE_DOT", raising=False)
    found = draw.find_dot()
    assert found is not None, "graphviz-pure (a dependency) should be installed beside this Python"
    path, kind = found
    assert kind == "graphviz-pure" and Path(path).parent in {Path(d) for d in draw._script_dirs()}
    assert small_tree.render("png").startswith(PNG_SIGNATURE)


def test_dot_on_path_comes_first(small_tree, monkeypatch, tmp_path):
    pure = draw.find_dot()
    assert pure is not None
    log = tmp_path / "called"
    fake = tmp_path / "dot"  # stands in for system Graphviz: logs the call, then draws with graphviz-pure
    fake.write_text(f'#!/bin/sh\necho "$@" > "{log}"\nexec "{pure[0]}" "$@"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("GAMETREE_DOT", raising=False)
    assert draw.find_dot() == (str(fake), "Graphviz dot")
    ET.fromstring(small_tree.render("svg"))
    assert log.read_text().strip() == "-Tsvg"


def test_no_dot_program_says_what_to_install(small_tree, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("GAMETREE_DOT", raising=False)
    monkeypatch.setattr(draw, "_script_dirs", lambda: [])
    assert draw.find_dot() is None
    with pytest.raises(draw.GraphvizMissingError) as info:
        small_tree.render("svg")
    message = str(info.value)
    assert "graphviz-pure" in message and "apt install graphviz" in message and "dot" in message
    # The DOT source needs no program.
    assert small_tree.to_dot().startswith("digraph")


def test_a_broken_dot_program_is_reported(small_tree, monkeypatch, tmp_path):
    monkeypatch.setenv("GAMETREE_DOT", str(tmp_path / "missing-dot"))
    with pytest.raises(draw.RenderError, match="cannot run"):
        small_tree.render("svg")


# ---------------------------------------------------------------------------------------------
# The command line.


def run(*args, **kwargs):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, **kwargs)


@pytest.mark.parametrize("fmt", ["svg", "png", "dot", "graphml", "json"])
def test_cli_writes_each_format_by_extension(tmp_path, fmt):
    out = tmp_path / f"tree.{fmt}"
    result = run("tree", "tictactoe", "--size", "3", "--moves", "A1 B2 C3 A3", "-o", str(out))
    assert result.exit_code == 0, result.output
    data = out.read_bytes()
    if fmt == "svg":
        ET.fromstring(data)
    elif fmt == "png":
        assert data.startswith(PNG_SIGNATURE)
    elif fmt == "dot":
        assert data.startswith(b"digraph") and b"A1 B2 C3 A3" in data
    elif fmt == "graphml":
        assert nx.parse_graphml(data.decode()).number_of_nodes() > 1
    else:
        assert json.loads(data)["graph"]["algorithm"] == "alphabeta"


def test_cli_format_option_and_stdout(game):
    result = run("tree", "tictactoe", "--moves", "A1 B2 C3 A3", "-a", "minimax", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    expected = minimax(game, play_text(game, "A1 B2 C3 A3"))
    assert data["graph"]["nodes"] == expected.stats.nodes
    assert sum(1 for n in data["nodes"] if not n["pruned"]) == expected.stats.nodes


def test_cli_refuses_big_trees_with_the_exact_count(game):
    state = play_text(game, "A1")
    # (the tree gametree tree draws by default: the textbook's, one window and no cache)
    nodes = count_nodes(game, state, cache=False, all_moves=False)
    assert nodes == capture(game, state, cache=False, all_moves=False).visited
    result = run("tree", "tictactoe", "--moves", "A1", "--max-nodes", "100", "-f", "dot")
    assert result.exit_code == 1
    line = result.output.strip()
    assert line == (
        f"Error: the alphabeta tree of this position has {nodes:,} nodes, more than --max-nodes 100: "
        "start from a later position (--moves), limit the depth (--depth N), or raise --max-nodes"
    )
    ok = run("tree", "tictactoe", "--moves", "A1", "--max-nodes", str(nodes), "-f", "dot")
    assert ok.exit_code == 0 and ok.output.startswith("digraph")


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--moves", "A1 A1"], "A1 is already taken"),
        (["--moves", "A1 B2 C3", "-o", "tree.xyz"], "cannot tell the format"),
        (["--moves", "A1 B2 C3", "-f", "pdf"], "unknown format 'pdf'"),
        (["--moves", "A1 B2 C3", "-a", "solver"], "Invalid value for '--algorithm'"),
        (["--moves", "A1 A2 B1 B2 C1"], "the game is over"),
    ],
)
def test_cli_errors_are_one_line(args, needle, tmp_path):
    result = CliRunner().invoke(cli, ["tree", "tictactoe", *args], catch_exceptions=False)
    assert result.exit_code != 0
    assert needle in result.output
    assert "Traceback" not in result.output


def test_cli_without_dot_program(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("GAMETREE_DOT", raising=False)
    monkeypatch.setattr(draw, "_script_dirs", lambda: [])
    result = run("tree", "tictactoe", "--moves", "A1 B2 C3 A3", "-o", str(tmp_path / "t.svg"))
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "graphviz-pure" in result.output
    result = run("tree", "tictactoe", "--moves", "A1 B2 C3 A3", "-o", str(tmp_path / "t.dot"))
    assert result.exit_code == 0 and (tmp_path / "t.dot").read_text().startswith("digraph")


def test_a_third_party_exporter_plugin(tmp_path, monkeypatch):
    (tmp_path / "gt_edges.py").write_text(
        "from gametree import hookimpl\n"
        "from gametree import Exporter\n"
        "def export(tree, options):\n"
        "    return ''.join(f'{u} {v} {d[\"move\"]}\\n' for u, v, d in tree.graph.edges(data=True)).encode()\n"
        "@hookimpl\n"
        "def gametree_register_exporters(registry):\n"
        "    registry.add_exporter('edges', Exporter('edges', export, ('.edges',)))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "t.edges"
    result = run("-p", "gt_edges", "tree", "tictactoe", "--moves", "A1 B2 C3 A3 C1", "-o", str(out))
    assert result.exit_code == 0, result.output
    lines = out.read_text().splitlines()
    assert lines and all(len(line.split()) == 3 for line in lines)


def test_cli_end_to_end_subprocess(gametree_cli, tmp_path):
    out = tmp_path / "tree.svg"
    done = gametree_cli("tree", "tictactoe", "--size", "3", "--moves", "A1 B2 C3", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"wrote {out} (svg")
    ET.fromstring(out.read_bytes())


# ---------------------------------------------------------------------------------------------
# The documentation page: its examples run, its figures and diagrams match fresh searches.

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_docs_page_examples_run():
    import doctest

    failures, tried = doctest.testfile(str(DOCS / "trees.md"), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0


def test_docs_diagrams_are_up_to_date():
    import subprocess

    done = subprocess.run(
        [sys.executable, str(DOCS / "make_diagrams.py"), "--check"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------------------------------------
# The -o file is written atomically: a failed write keeps the old file and leaves no temporary.


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX resource limits")
def test_cli_output_survives_a_full_disk(gametree_cli, tmp_path):
    import resource
    import signal

    def limit_file_size() -> None:  # files stop at 8 KiB with EFBIG, as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    out = tmp_path / "tree.dot"
    out.write_text("digraph old {}\n")
    done = gametree_cli("tree", "tictactoe", "--moves", "A1 B2 C3 A3", "-o", str(out), preexec_fn=limit_file_size)
    assert (
        done.returncode == 1 and done.stderr.startswith(f"Error: cannot write {out}: ") and done.stderr.count("\n") == 1
    ), done.stderr
    assert out.read_text() == "digraph old {}\n" and os.listdir(tmp_path) == ["tree.dot"]


def test_cli_output_failed_replace_is_one_line(tmp_path, monkeypatch):
    out = tmp_path / "tree.dot"
    out.write_text("digraph old {}\n")

    def no_replace(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", no_replace)
    result = run("tree", "tictactoe", "--moves", "A1 B2 C3 A3", "-o", str(out))
    assert result.exit_code == 1 and result.output == f"Error: cannot write {out}: Permission denied\n"
    assert out.read_text() == "digraph old {}\n" and os.listdir(tmp_path) == ["tree.dot"]
    monkeypatch.undo()
    ok = run("tree", "tictactoe", "--moves", "A1 B2 C3 A3", "-o", str(out))
    assert ok.exit_code == 0 and out.read_text().startswith("digraph") and os.listdir(tmp_path) == ["tree.dot"]


def test_node_attributes_match_the_engine_before_the_redesign(registry) -> None:
    """What each node records (how it was settled, what its value bounds, what the table did),
    counted on one capture and compared with the counts the separate traced engine gave (93edcbb)."""
    from collections import Counter

    game = registry.game("tictactoe").create(size=3)
    tree = capture(game, play_text(game, "A1 B2 C3"))
    nodes = [d for _, d in tree.graph.nodes(data=True) if not d["pruned"]]
    assert Counter((d["kind"], d["cache"]) for d in nodes) == {
        ("searched", "miss"): 33,
        ("terminal", None): 24,
        ("cache", "hit"): 19,
        ("bound", None): 5,
        ("searched", None): 1,
        ("searched", "partial"): 1,
    }
    assert Counter((d["kind"], d["bound"]) for d in nodes) == {
        ("terminal", "exact"): 24,
        ("searched", "lower"): 20,
        ("searched", "exact"): 15,
        ("cache", "lower"): 10,
        ("cache", "exact"): 9,
        ("bound", "lower"): 4,
        ("bound", "upper"): 1,
    }


def test_cli_refuses_a_huge_tree_without_counting_all_of_it():
    """7x6 Connect Four from the start: refused after counting ten times --max-nodes (at least
    10,000 nodes), not the two million nodes it took before."""
    result = run("tree", "connect4", "--max-nodes", "400", "-f", "dot")
    assert result.exit_code == 1
    assert result.output.strip().startswith(
        "Error: the alphabeta tree of this position has more than 10,000 nodes, more than --max-nodes 400"
    )


def test_cli_draws_the_textbook_tree_by_default(game):
    """Issue 34 item 7: gametree tree draws one alpha-beta search from the root without a cache (as
    --no-cache --root-window did); --cache and --all-moves draw solve's search; --help says so."""
    state = play_text(game, POSITION)
    textbook = capture(game, state, cache=False, all_moves=False)
    default = json.loads(run("tree", "tictactoe", "--moves", POSITION, "-f", "json").output)
    assert default["graph"]["cache"] is False and default["graph"]["all_moves"] is False
    assert default["graph"]["nodes"] == textbook.visited
    old = json.loads(run("tree", "tictactoe", "--moves", POSITION, "--no-cache", "--root-window", "-f", "json").output)
    assert old["graph"]["nodes"] == textbook.visited
    solve_like = json.loads(
        run("tree", "tictactoe", "--moves", POSITION, "--cache", "--all-moves", "-f", "json").output
    )
    assert solve_like["graph"]["cache"] is True and solve_like["graph"]["all_moves"] is True
    assert solve_like["graph"]["nodes"] == capture(game, state).visited
    text = " ".join(run("tree", "tictactoe", "--help").output.split())
    assert "By default the picture a textbook shows: one alpha-beta search from the root (one window)" in text
    assert "--view [negamax|maxmin]" in text and "--order" in text


def test_static_diagram_max_min_view_and_visit_order(game):
    """Issue 34 item 7: where X wins, the negamax box reads v = -n for O to move; the MAX/MIN view
    reads MAX's +n with the box labelled MIN, and --order numbers the boxes in visit order."""
    state = play_text(game, POSITION)
    tree = capture(game, state, cache=False, all_moves=False)
    graph = tree.graph
    # A node with O to move where X has won the search's value: negamax negative, MAX's positive.
    node = next(n for n, d in graph.nodes(data=True) if not d["pruned"] and d["to_move"] == 1 and d["value"] < 0)
    data = {**graph.nodes[node], "view": "negamax"}
    value = data["value"]
    assert draw._value_text(data).endswith(f"{value:g}")
    assert draw._value_text({**data, "view": "maxmin"}).endswith(f"{-value:g}")
    dot = run("tree", "tictactoe", "--moves", POSITION, "--view", "maxmin", "--order", "-f", "dot").output
    labels = re.findall(r"<B>#(\d+) (MAX|MIN)</B>", dot)
    visits = sorted(int(d["visit"]) for _, d in graph.nodes(data=True) if not d["pruned"] and d["kind"] != "terminal")
    assert sorted(int(n) for n, _ in labels) == visits
    first = {int(n): role for n, role in labels}
    assert first[1] == ("MAX" if game.to_move(state) == 0 else "MIN")
    assert "v: the value for MAX" in dot
    plain = run("tree", "tictactoe", "--moves", POSITION, "-f", "dot").output
    assert "<B>#1" not in plain and "negamax" in plain
    bad = run("tree", "tictactoe", "--moves", POSITION, "--view", "sideways", "-f", "dot")
    assert bad.exit_code == 2 and "sideways" in bad.output


def test_textbook_figure_in_the_max_min_view():
    """AIMA Figure 5.2 as the textbook draws it: boxes MAX and MIN numbered in visit order, MAX's
    values unsigned, and C's cutoff read from MAX's side (2 <= alpha = 3), not negamax's."""
    dot = run("tree", "textbook", "--view", "maxmin", "--order", "-f", "dot").output
    assert "<B>#1 MAX</B>" in dot and "<B>#2 MIN</B>" in dot and "<B>#6 MIN</B>" in dot
    assert "v = 3</B>" in dot and "v ≤ 2</B>" in dot and "v = +3" not in dot
    assert "pruned: c2, c3\nalpha cutoff: 2 <= 3" in dot.replace("\\n", "\n")
    negamax = run("tree", "textbook", "-f", "dot").output
    assert "beta cutoff: -2 >= -3" in negamax and "v = +3" in negamax
