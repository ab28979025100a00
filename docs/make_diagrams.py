"""Regenerate the diagrams of docs/trees.md and the figures quoted there.

    python docs/make_diagrams.py           # rewrite docs/img/*.svg and the figures table
    python docs/make_diagrams.py --check   # exit 1 if the figures or the diagrams' nodes are out of date

Each diagram is one position searched one way; the numbers in the page's
figures table come from the same searches, so text and pictures agree.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from gametree import load, play_text
from gametree.tree import SearchTree, capture

DOCS = Path(__file__).resolve().parent
IMG = DOCS / "img"
PAGE = DOCS / "trees.md"

#: (file name, moves, capture options, what it shows)
DIAGRAMS = [
    ("tree-minimax.svg", "A1 B2 A2 C3 B3", {"algorithm": "minimax"}, "minimax"),
    ("tree-alphabeta.svg", "A1 B2 A2 C3 B3", {"algorithm": "alphabeta", "cache": False, "all_moves": False}, "alpha-beta from the root, no cache"),
    ("tree-solve.svg", "A1 A3 C3 C1", {"algorithm": "alphabeta"}, "alpha-beta as `gametree solve` runs it"),
]


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

    page = PAGE.read_text(encoding="utf-8")
    block = re.compile(r"(<!-- figures:begin -->\n).*?(\n<!-- figures:end -->)", re.S)
    if not block.search(page):
        print(f"{PAGE}: no <!-- figures:begin --> ... <!-- figures:end --> block", file=sys.stderr)
        return 1
    updated = block.sub(lambda m: m.group(1) + figures(rows) + m.group(2), page)
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
