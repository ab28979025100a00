"""Regenerate the diagrams of docs/trees.md and the figures quoted there.

    python docs/make_diagrams.py           # rewrite docs/img/*.svg, the explorer's screenshots and the tables
    python docs/make_diagrams.py --check   # exit 1 if the figures or the diagrams' nodes are out of date

Each diagram is one position searched one way; the numbers in the page's
figures table come from the same searches, so text and pictures agree.

The explorer's screenshots (docs/img/explorer-*.png) are taken in headless
Chromium through Playwright (``/usr/bin/chromium``, or ``GAMETREE_CHROMIUM``);
without them the script says so and leaves the PNG files as they are.  The
step each one shows is found in the page (the step of an event at a named
position), so the steps quoted in the page's table follow the search.
``--check`` checks that the screenshots exist and that the steps in that table
are the ones the explorer's replay gives, without a browser.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from gametree import load, play_text
from gametree.tree import SearchTree, capture
from gametree.tree.explorer import explorer_html
from gametree.tree.headless import CHROMIUM_FLAGS, chromium

DOCS = Path(__file__).resolve().parent
IMG = DOCS / "img"
PAGE = DOCS / "trees.md"

#: (file name, moves, capture options, what it shows)
DIAGRAMS = [
    ("tree-minimax.svg", "A1 B2 A2 C3 B3", {"algorithm": "minimax"}, "minimax"),
    (
        "tree-alphabeta.svg",
        "A1 B2 A2 C3 B3",
        {"algorithm": "alphabeta", "cache": False, "all_moves": False},
        "alpha-beta from the root, no cache",
    ),
    ("tree-solve.svg", "A1 A3 C3 C1", {"algorithm": "alphabeta"}, "alpha-beta as `gametree solve` runs it"),
]


#: The explorer's screenshots: (file name, what it shows, moves, capture options, compare with minimax,
#: (event, position) whose step it shows or None for the end, view).
SCREENSHOTS = [
    (
        "explorer-enter.png",
        "X enters C1 with the window [-2, 0]",
        "A1 B2 A2 C3 B3",
        {"cache": False, "all_moves": False},
        False,
        ("enter", "C1"),
        "negamax",
    ),
    (
        "explorer-cutoff.png",
        "the cutoff at C1, in MAX/MIN values",
        "A1 B2 A2 C3 B3",
        {"cache": False, "all_moves": False},
        False,
        ("cutoff", "C1"),
        "maxmin",
    ),
    (
        "explorer-compare.png",
        "minimax beside alpha-beta, the search over",
        "A1 B2 A2 C3 B3",
        {"cache": False, "all_moves": False},
        True,
        None,
        "wdl",
    ),
    (
        "explorer-large.png",
        "minimax's whole tree of 59,705 positions, fitted (deeper levels collapsed, nodes as dots)",
        "A1",
        {"algorithm": "minimax"},
        False,
        None,
        "negamax",
    ),
]
CHROMIUM = chromium()


def replay_step(tree: SearchTree, event: tuple[str, str] | None) -> int:
    """The explorer's step (1 = the root entered) of ``(kind, moves)``: the search's events
    in visit order, as the page replays them; None: the last step."""
    graph = tree.graph
    events: list[tuple[str, int]] = []

    def visit(node: int) -> None:
        events.append(("enter", node))
        for child in sorted(graph.successors(node), key=lambda c: graph.edges[node, c]["order"]):
            if not graph.nodes[child]["pruned"]:
                visit(child)
        if graph.nodes[node].get("cutoff"):
            events.append(("cutoff", node))
        events.append(("leave", node))

    visit(tree.root)
    if event is None:
        return len(events)
    kind, moves = event
    return 1 + next(i for i, (k, n) in enumerate(events) if k == kind and graph.nodes[n]["moves"] == moves)


def screenshots(game: Any, check: bool) -> tuple[str, list[str]]:
    """Take the explorer's screenshots (unless ``check``); return the table for the page and the files missing."""
    lines = ["| screenshot | shows | position | step | values |", "| --- | --- | --- | ---: | --- |"]
    shots = []
    for name, what, moves, options, compare, event, view in SCREENSHOTS:
        tree = capture(game, play_text(game, moves), **{"algorithm": "alphabeta", **options})
        minimax = capture(game, play_text(game, moves), algorithm="minimax") if compare else None
        step = replay_step(minimax if minimax is not None else tree, event)
        lines.append(f"| [{name}](img/{name}) | {what} | {moves} | {step} | {view} |")
        shots.append((name, tree, minimax, step, view))
    missing = [str(IMG / name) for name, *_ in shots if not (IMG / name).exists()]
    if check:
        return "\n".join(lines), missing
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("screenshots left as they are: pip install playwright", file=sys.stderr)
        return "\n".join(lines), missing
    if not os.access(CHROMIUM, os.X_OK):
        print(f"screenshots left as they are: no Chromium at {CHROMIUM} (apt-get install chromium)", file=sys.stderr)
        return "\n".join(lines), missing
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS))
        for name, tree, minimax, step, view in shots:
            path = Path(folder) / "page.html"
            path.write_text(explorer_html(tree, compare=minimax), encoding="utf-8")
            page = browser.new_page(viewport={"width": 1200, "height": 640})
            page.goto(path.as_uri() + f"#step={step}")
            page.wait_for_selector("html[data-gametree-ready=true]")
            page.evaluate("v => gametree.view(v)", view)
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            page.screenshot(path=str(IMG / name))
            page.close()
            print(f"{name}: step {step}, {(IMG / name).stat().st_size:,} bytes", file=sys.stderr)
        browser.close()
    return "\n".join(lines), []


def compact_svg(svg: str) -> str:
    """Smaller files for the repository: no comments, coordinates to 0.1 pt, one default font."""
    svg = re.sub(r"<!--.*?-->\n?", "", svg, flags=re.S)
    svg = re.sub(r"(\d+\.\d)\d+", r"\1", svg)
    svg = svg.replace(' font-family="Helvetica,sans-Serif"', "")
    return svg.replace("<svg ", '<svg font-family="Helvetica,sans-Serif" ', 1)


def _titles(svg: str) -> set[str]:
    """The node and edge names in an SVG drawn by dot."""
    return set(re.findall(r"<title>(.*?)</title>", svg))


def figures(rows: list[tuple[str, str, str, SearchTree]]) -> str:
    lines = [
        "| diagram | position | search | nodes | cutoffs | pruned moves | cache hits | value | best play |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for name, moves, what, tree in rows:
        s = tree.result.stats
        lines.append(
            f"| [{name}](img/{name}) | {moves} | {what} | {s.nodes} | {s.cutoffs} | {len(tree.pruned_edges())} | "
            f"{s.cache_hits} | {tree.result.value} | {' '.join(tree.result.pv)} |"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    check = "--check" in argv
    game = load().game("tictactoe").create(size=3)
    rows = []
    stale = []
    IMG.mkdir(exist_ok=True)
    for name, moves, options, what in DIAGRAMS:
        tree = capture(game, play_text(game, moves), **options)
        title = f"{what}, after {moves}: {tree.visited} nodes"
        svg = compact_svg(tree.render("svg", title=title).decode("utf-8"))
        path = IMG / name
        if check:
            # Layout bytes depend on the dot program's version: check the structure, not the bytes.
            if not path.exists() or _titles(path.read_text(encoding="utf-8")) != _titles(svg):
                stale.append(str(path))
        elif not path.exists() or path.read_text(encoding="utf-8") != svg:
            path.write_text(svg, encoding="utf-8")
        rows.append((name, moves, what, tree))
        print(f"{name}: {tree.visited} nodes, {tree.result.stats.cutoffs} cutoffs, {len(svg):,} bytes", file=sys.stderr)

    table, missing = screenshots(game, check)
    stale += missing
    page = PAGE.read_text(encoding="utf-8")
    updated = page
    for name, text in (("figures", figures(rows)), ("screenshots", table)):
        block = re.compile(rf"(<!-- {name}:begin -->\n).*?(\n<!-- {name}:end -->)", re.S)
        if not block.search(page):
            print(f"{PAGE}: no <!-- {name}:begin --> ... <!-- {name}:end --> block", file=sys.stderr)
            return 1
        updated = block.sub(lambda m, text=text: m.group(1) + text + m.group(2), updated)
    if updated != page:
        stale.append(str(PAGE))
        if not check:
            PAGE.write_text(updated, encoding="utf-8")
    if check and stale:
        print("out of date (run python docs/make_diagrams.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
