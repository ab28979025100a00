"""Drawing a captured search tree with Graphviz.

:func:`to_graphviz` turns a :class:`gametree.tree.SearchTree` into a
``graphviz.Digraph`` (its ``.source`` is DOT text and needs no program);
:func:`render` runs a ``dot`` program to make SVG or PNG.  The program is the
system Graphviz ``dot`` when it is on PATH, else the ``graphviz-pure`` program
(a dot-compatible build installed from PyPI with gametree), else
:class:`GraphvizMissingError` says what to install.  ``GAMETREE_DOT=/path``
chooses a program explicitly.

Node and edge styling are functions the caller can replace or wrap::

    def big_leaves(data, *, board):
        attrs = default_node_style(data, board=board)
        if data.get("kind") == "terminal":
            attrs["fontsize"] = "14"
        return attrs

    tree.to_graphviz(node_style=big_leaves)

Both get a node's or edge's attribute dict (see ``docs/trees.md``) and return
Graphviz attributes; ``label`` may be an HTML-like label (``<...>``).
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import graphviz

    from .captured import CapturedTree

__all__ = [
    "COLOURS",
    "VIEWS",
    "GraphvizMissingError",
    "RenderError",
    "default_edge_style",
    "default_node_style",
    "find_dot",
    "render",
    "to_graphviz",
]

NodeStyle = Callable[..., dict[str, str]]
EdgeStyle = Callable[[Mapping[str, Any]], dict[str, str]]

#: Fill colours: wins by player 0 / player 1, draws, heuristic leaves; the PV and pruned colours.
COLOURS = {
    "win0": "#cfe2ff",
    "win1": "#ffe0b2",
    "draw": "#e9ecef",
    "heuristic": "#fff6bf",
    "inner": "#ffffff",
    "pv": "#d62728",
    "pruned": "#9e9e9e",
    "chance": "#efe6fb",
    "mover": "#ffd54f",
    "text": "#222222",
    "note": "#555555",
}
FONT = "Helvetica"
#: How values are shown: for the side to move (negamax), or for MAX with MAX and MIN nodes.
VIEWS = ("negamax", "maxmin")
MONO = "Courier"


class RenderError(RuntimeError):
    """Drawing failed (the ``dot`` program is missing or reported an error)."""


class GraphvizMissingError(RenderError):
    """No ``dot`` program was found."""


# -- finding and running dot ------------------------------------------------------------
def _script_dirs() -> list[str]:
    """Where pip puts console scripts for this interpreter (a venv's bin even when not activated)."""
    dirs = [os.path.dirname(sys.executable), sysconfig.get_path("scripts")]
    try:
        dirs.append(sysconfig.get_path("scripts", f"{os.name}_user"))
    except KeyError:  # pragma: no cover - unusual platforms
        pass
    return list(dict.fromkeys(d for d in dirs if d))


def find_dot() -> tuple[str, str] | None:
    """The ``dot`` program to use and what it is, or None.

    ``GAMETREE_DOT`` first, then Graphviz ``dot`` on PATH, then ``graphviz-pure``
    beside this Python's scripts or on PATH.
    """
    chosen = os.environ.get("GAMETREE_DOT")
    if chosen:
        return chosen, "GAMETREE_DOT"
    dot = shutil.which("dot")
    if dot:
        return dot, "Graphviz dot"
    for directory in _script_dirs():
        found = shutil.which("graphviz-pure", path=directory)
        if found:
            return found, "graphviz-pure"
    found = shutil.which("graphviz-pure")
    if found:
        return found, "graphviz-pure"
    return None


MISSING = (
    "no Graphviz 'dot' program found: install graphviz-pure (pip install graphviz-pure, which gametree normally "
    "brings) "
    "or Graphviz (e.g. apt install graphviz); the dot, json and graphml formats need neither"
)


#: Seconds the drawing program may take (``GAMETREE_RENDER_SECONDS`` sets others): a tree of 65,000
#: nodes kept Graphviz busy for ten minutes and 1.4 GB before it gave up.
RENDER_SECONDS = 120.0


def render(source: str, format: str = "svg", *, seconds: float | None = None) -> bytes:
    """Lay out DOT ``source`` and return the drawing (``format`` ``svg``, ``png``, ...), or
    :class:`RenderError` if the drawing program takes longer than ``seconds`` (default
    :data:`RENDER_SECONDS`)."""
    program = find_dot()
    if program is None:
        raise GraphvizMissingError(f"cannot draw {format}: {MISSING}")
    path, _kind = program
    if seconds is None:
        try:
            seconds = float(os.environ.get("GAMETREE_RENDER_SECONDS", RENDER_SECONDS))
        except ValueError:
            seconds = RENDER_SECONDS
        if not 0 < seconds < float("inf"):
            seconds = RENDER_SECONDS
    try:
        done = subprocess.run(
            [path, f"-T{format}"], input=source.encode("utf-8"), capture_output=True, check=False, timeout=seconds
        )
    except subprocess.TimeoutExpired:
        raise RenderError(
            f"{path} took more than {seconds:g} s to draw the {format} (the program was stopped): draw a "
            "smaller tree (--max-nodes, --depth), "
            "or write -f dot, json or graphml, which need no drawing"
        ) from None
    except OSError as exc:
        raise RenderError(f"cannot run {path}: {exc}") from None
    if done.returncode != 0 or not done.stdout:
        errors = [line for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        first = [line for line in errors if line.lower().startswith("error")]
        detail = (first or errors or [f"exit status {done.returncode}"])[0]
        raise RenderError(f"{path} could not draw {format}: {detail}")
    return done.stdout


# -- labels ---------------------------------------------------------------------------------
def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _num(value: float | None) -> str:
    if value is None:
        return "?"
    value = float(value)
    if value == float("inf"):
        return "+∞"
    if value == float("-inf"):
        return "-∞"
    if value == int(value):
        return str(int(value))
    return f"{value:.3f}".rstrip("0")


def _negated(text: str) -> str:
    return text[1:] if text.startswith("-") else "-" + text


def _flipped(data: Mapping[str, Any]) -> bool:
    """In the MAX/MIN view, is this node's value the negation of the one recorded (MIN's, two players)?"""
    return (
        data.get("view") == "maxmin"
        and int(data.get("player_count") or 2) == 2
        and data.get("viewer", data.get("to_move")) == 1
    )


def _value_text(data: Mapping[str, Any]) -> str:
    """``v = 3``, ``v ≥ 2``, ``E = 7/2`` (a chance node's expected value), ``v = +4`` (a margin):
    the value for the side to move (negamax view) or for MAX (``view`` "maxmin")."""
    bound = str(data.get("bound", "exact"))
    value = data.get("value")
    exact = data.get("value_text")
    number = str(exact) if exact else _num(value)
    if _flipped(data) and value is not None:
        value = -float(value)
        number = _negated(number) if exact else _num(value)
        bound = {"lower": "upper", "upper": "lower"}.get(bound, bound)
    if data.get("margin") and data.get("view") != "maxmin" and value is not None and float(value) > 0:
        number = "+" + number
    relation = {"lower": "≥", "upper": "≤", "estimate": "≈"}.get(bound, "=")
    return f"{'E' if data.get('chance') else 'v'} {relation} {number}"


def _reason(reason: str, parent: Mapping[str, Any]) -> str:
    """A cutoff's reason as the view reads it: the engine's ``beta cutoff: -2 >= -3`` at MIN's node is
    ``alpha cutoff: 2 <= 3`` for MAX."""
    found = re.fullmatch(r"beta cutoff: (\S+) >= (\S+)", reason)
    if found is None or not _flipped(parent):
        return reason
    try:
        value, beta = float(found[1]), float(found[2])
    except ValueError:
        return reason
    return f"alpha cutoff: {_num(-value)} <= {_num(-beta)}"


def _window_text(data: Mapping[str, Any]) -> str:
    alpha, beta = data.get("alpha"), data.get("beta")
    if _flipped(data) and alpha is not None and beta is not None:
        alpha, beta = -float(beta), -float(alpha)
    return f"[{_num(alpha)}, {_num(beta)}]"


def _role(data: Mapping[str, Any]) -> str | None:
    """MAX, MIN or CHANCE in the MAX/MIN view of a two-player tree (None otherwise)."""
    if data.get("view") != "maxmin" or int(data.get("player_count") or 2) != 2:
        return None
    if data.get("chance"):
        return "CHANCE"
    if data.get("kind") == "terminal":
        return None
    return "MAX" if data.get("to_move") == 0 else "MIN"


def _payoff_cells(data: Mapping[str, Any]) -> str | None:
    """Each player's payoff in a row of cells, the mover's highlighted (games of three or more players)."""
    payoffs = data.get("payoffs")
    if not payoffs or int(data.get("player_count") or 2) <= 2:
        return None
    texts = data.get("payoffs_text") or [_num(p) for p in payoffs]
    mover = data.get("to_move") if not data.get("chance") and data.get("kind") != "terminal" else None
    bound = {"lower": "≥", "upper": "≤", "estimate": "≈"}.get(str(data.get("bound", "exact")), "")
    cells = []
    for i, text in enumerate(texts):
        if i == mover:
            cells.append(f'<TD BORDER="1" BGCOLOR="{COLOURS["mover"]}"><B>{_esc(text)}</B></TD>')
        else:
            cells.append(f'<TD BORDER="1">{_esc(text)}</TD>')
    head = f"<TD>{_esc(bound)}</TD>" if bound else ""
    return f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2"><TR>{head}{"".join(cells)}</TR></TABLE>'


def _board_html(data: Mapping[str, Any]) -> str:
    """The position: a grid of cells if the game gives them (``cells``), else its text."""
    cells = data.get("cells")
    if cells:
        lit = _cell_set(data.get("highlight"))
        last = _cell_set(data.get("last"))
        small = f'<FONT POINT-SIZE="7" COLOR="{COLOURS["note"]}">'
        columns = list(data.get("board_columns") or ())
        rows_text = list(data.get("board_rows") or ())
        grid = [line.split("\t") for line in str(cells).split("\n")]
        grid = _short_cells(grid)
        labelled = bool(columns) and bool(rows_text) and len(columns) == len(grid[0]) and len(rows_text) == len(grid)
        trs = []
        if labelled:
            heads = "".join(f'<TD BORDER="0">{small}{_esc(c)}</FONT></TD>' for c in columns)
            trs.append(f'<TR><TD BORDER="0"></TD>{heads}</TR>')
        for r, line in enumerate(grid):
            tds = [f'<TD BORDER="0">{small}{_esc(rows_text[r])}</FONT></TD>'] if labelled else []
            for c, cell in enumerate(line):
                colour = ' BGCOLOR="#ffd54f"' if (r, c) in lit else ' BGCOLOR="#dde7f0"' if (r, c) in last else ""
                text = _esc(cell.strip())
                if text:
                    text = f'<FONT FACE="{MONO}" POINT-SIZE="10">{f"<B>{text}</B>" if (r, c) in last else text}</FONT>'
                tds.append(f'<TD WIDTH="13" HEIGHT="13"{colour}>{text}</TD>')
            trs.append(f"<TR>{''.join(tds)}</TR>")
        return (
            f'<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="1" COLOR="#888888">{"".join(trs)}</TABLE>'
        )
    position = data.get("position")
    if not position:
        return ""
    lines = "".join(f'{_esc(line) or " "}<BR ALIGN="LEFT"/>' for line in str(position).split("\n"))
    return f'<FONT FACE="{MONO}" POINT-SIZE="10">{lines}</FONT>'


def _short_cells(grid: list[list[str]]) -> list[list[str]]:
    """Long cell texts ("Red", "Yellow") by their distinct initials, so boards stay small."""
    texts = {cell.strip() for row in grid for cell in row if cell.strip()}
    initials = {t[0].upper() for t in texts}
    if texts and all(t.isalpha() for t in texts) and any(len(t) > 2 for t in texts) and len(initials) == len(texts):
        return [[cell.strip()[:1].upper() for cell in row] for row in grid]
    return grid


def _cell_set(text: object) -> set[tuple[int, int]]:
    out = set()
    for item in str(text or "").split():
        r, _, c = item.partition(",")
        if r.isdecimal() and c.isdecimal():
            out.add((int(r), int(c)))
    return out


def _notes(data: Mapping[str, Any]) -> list[str]:
    notes = [f"{data.get('player', '?')} to move"] if data.get("kind") != "terminal" and not data.get("chance") else []
    if data.get("chance") and data.get("view") != "maxmin":
        notes.append("chance")
    kind = data.get("kind")
    if kind == "terminal":
        notes.append(str(data.get("outcome") or "game over"))
    elif kind == "heuristic":
        notes.append("heuristic")
    elif kind == "cache":
        notes.append("cache hit")
    elif kind == "bound":
        notes.append("score bound")
    elif kind == "probe":
        notes.append("probe: first move only")
    if data.get("visits") is not None:  # Monte Carlo tree search
        notes.append(
            plural(int(data["visits"]), "visit") + (" · proven" if data.get("proven") and kind != "terminal" else "")
        )
    return notes


def default_node_style(data: Mapping[str, Any], *, board: bool = True) -> dict[str, str]:
    """Graphviz attributes for one visited node, or for a group of pruned moves
    (``data["pruned"]``, with ``move`` listing the moves and ``reason``)."""
    if data.get("pruned"):
        return {
            "shape": "box",
            "style": "rounded,dashed",
            "color": COLOURS["pruned"],
            "fontcolor": COLOURS["pruned"],
            "fontsize": "9",
            "label": f"pruned: {data.get('move', '')}\n{data.get('reason', '')}",
        }
    rows = []
    note = f'<FONT POINT-SIZE="9" COLOR="{COLOURS["note"]}">'
    role = _role(data)
    if data.get("show_order") and data.get("visit") is not None:
        role = f"#{data['visit']}" + (f" {role}" if role else "")
    if role:
        rows.append(f'<TR><TD COLSPAN="3"><B>{_esc(role)}</B></TD></TR>')
    if data.get("chance") and data.get("name"):  # (a textbook tree's letter; its subtree is too wide)
        rows.append(f'<TR><TD COLSPAN="3"><FONT FACE="{MONO}" POINT-SIZE="10">{_esc(data["name"])}</FONT></TD></TR>')
    if board and not data.get("chance"):
        drawing = _board_html(data)
        if drawing:
            # Empty cells either side keep the board its own size when the node is wider.
            rows.append(f"<TR><TD></TD><TD>{drawing}</TD><TD></TD></TR>")
    cells = _payoff_cells(data)
    value_row = cells if cells is not None else f"<B>{_esc(_value_text(data))}</B>"
    rows.append(f'<TR><TD COLSPAN="3">{value_row}</TD></TR>')
    if data.get("alpha") is not None and data.get("beta") is not None:
        rows.append(f'<TR><TD COLSPAN="3">{note}{_window_text(data)}</FONT></TD></TR>')
    notes = _notes(data)
    if notes:
        rows.append(f'<TR><TD COLSPAN="3">{note}{_esc(" · ".join(notes))}</FONT></TD></TR>')
    label = f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">{"".join(rows)}</TABLE>>'
    return _node_look(data, label)


def _node_look(data: Mapping[str, Any], label: str) -> dict[str, str]:
    """The node's shape and colours around its ``label``: chance nodes are ellipses."""
    kind = data.get("kind")
    fill = COLOURS["inner"]
    if kind == "terminal":
        winner = data.get("winner")
        fill = COLOURS["draw"] if winner is None else COLOURS[f"win{int(winner) & 1}"]
        if int(data.get("player_count") or 2) > 2:
            fill = COLOURS["draw"]
    elif kind == "heuristic":
        fill = COLOURS["heuristic"]
    elif data.get("chance"):
        fill = COLOURS["chance"]
    attrs = {"label": label, "fillcolor": fill, "style": "rounded,filled", "shape": "box"}
    if data.get("chance"):
        attrs.update(shape="ellipse", style="filled", margin="0.02")
    if kind in ("cache", "probe"):
        attrs["peripheries"] = "2"
    if kind == "bound":
        attrs["style"] = "rounded,filled,dotted"
    if data.get("pv"):
        attrs.update(color=COLOURS["pv"], penwidth="2.5")
    return attrs


def default_edge_style(data: Mapping[str, Any]) -> dict[str, str]:
    """Graphviz attributes for one edge (a move tried, or a group of pruned moves)."""
    if data.get("pruned"):
        return {
            "style": "dashed",
            "color": COLOURS["pruned"],
            "fontcolor": COLOURS["pruned"],
            "arrowhead": "none",
            "label": "",
        }
    attrs = {"label": f" {data.get('move', '')}"}
    if data.get("probability") is not None:  # a chance node's outcome
        chance = data.get("probability_text") or _num(data["probability"])
        attrs.update(label=f" {data.get('move', '')}\n p = {chance}", style="dashed", fontcolor="#6a3d9a")
    if data.get("pv"):
        attrs.update(color=COLOURS["pv"], fontcolor=COLOURS["pv"], penwidth="2.5")
    return attrs


def _legend(algorithm: str, players: tuple[str, ...], board: bool, kinds: Mapping[str, Any] | None = None) -> str:
    kinds = kinds or {}

    def swatch(fill: str, text: str, extra: str = "") -> str:
        return f'<TR><TD BORDER="1" BGCOLOR="{fill}" WIDTH="18" {extra}> </TD><TD ALIGN="LEFT">{_esc(text)}</TD></TR>'

    def line(text: str) -> str:
        return f'<TR><TD COLSPAN="2" ALIGN="LEFT" BALIGN="LEFT">{text}</TD></TR>'

    p0, p1 = (*players, "player 1", "player 2")[:2]
    many = int(kinds.get("player_count") or 2) > 2
    rows = ['<TR><TD COLSPAN="2" ALIGN="LEFT"><B>How to read this tree</B></TD></TR>']
    if many:
        rows.append(
            line(
                "(a b c): each player's payoff, in player order;<BR/>"
                "the mover's highlighted, who picks the child best for them"
            )
        )
    elif kinds.get("view") == "maxmin":
        rows.append(line(f"v: the value for MAX ({_esc(p0)});<BR/>MAX takes the largest child's v, MIN the smallest"))
    else:
        rows.append(
            line(
                "v: the score for the side to move;<BR/>a node's v is the largest of its children's v<BR/>"
                "with the sign flipped (negamax)"
            )
        )
    if kinds.get("chance"):
        rows.append(
            line("ellipse: a chance node; p: each outcome's probability;<BR/>E: the expected value, the sum of p × v")
        )
        if kinds.get("view") != "maxmin" and not many:
            rows.append(line("(a chance node's E is for the player who moved into it)"))
    if kinds.get("margin") and kinds.get("view") != "maxmin":
        rows.append(line("+4: a final margin (wins by 4)"))
    if kinds.get("show_order"):
        rows.append(line("#n: the order in which the search visited the nodes"))
    if algorithm == "mcts":
        rows.append(
            line(
                "v ≈: the mean playout reward (-1 to 1);<BR/>"
                "v =: the exact score, proven; visits: iterations through the node"
            )
        )
    elif algorithm not in ("minimax", "expectiminimax", "maxn"):
        rows.append(line("v ≥ / v ≤: a bound (the search failed high / low)<BR/>[α, β]: the window on entry"))

    def words(colour: str, key: str, text: str) -> str:
        return (
            f'<TR><TD ALIGN="LEFT"><FONT COLOR="{colour}"><B>{_esc(key)}</B></FONT></TD>'
            f'<TD ALIGN="LEFT">{_esc(text)}</TD></TR>'
        )

    if many:
        rows.append(swatch(COLOURS["draw"], "game over: the payoffs"))
    else:
        rows += [
            swatch(COLOURS["win0"], f"{p0} has won"),
            swatch(COLOURS["win1"], f"{p1} has won"),
            swatch(COLOURS["draw"], "draw"),
        ]
    rows += [
        swatch(COLOURS["heuristic"], "depth limit: heuristic score"),
        words(COLOURS["pv"], "red", "principal variation (best play)"),
    ]
    if algorithm not in ("minimax", "mcts", "expectiminimax"):
        rows += [
            words(COLOURS["pruned"], "dashed", "moves pruned by a cutoff"),
            words(COLOURS["text"], "double", "border: answered from the cache"),
            words(COLOURS["text"], "dotted", "border: cut short by the score bound"),
        ]
    return f'<<TABLE BORDER="1" COLOR="#bbbbbb" CELLBORDER="0" CELLSPACING="2" CELLPADDING="2">{"".join(rows)}</TABLE>>'


def plural(count: int, noun: str) -> str:
    """``1 cutoff``, ``2 cutoffs``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _title(tree: CapturedTree) -> str:
    g = tree.graph.graph
    r = tree.result
    stats = r.stats
    parts = [f"{r.algorithm}", plural(stats.nodes, "node") + " visited"]
    if stats.iterations is not None:
        parts.append(plural(stats.iterations, "iteration"))
    elif r.algorithm != "minimax":
        parts.append(plural(stats.cutoffs, "cutoff"))
        if g.get("cache"):
            parts.append(plural(stats.cache_hits, "cache hit"))
    if g.get("depth") is not None:
        parts.append(f"depth {g['depth']}")
    return ", ".join(parts) + f"; value: {r.value} (v = {_num(r.score)})"


def to_graphviz(
    tree: CapturedTree,
    *,
    board: bool = True,
    legend: bool = True,
    title: str | None = None,
    node_style: NodeStyle | None = None,
    edge_style: EdgeStyle | None = None,
    view: str = "negamax",
    order: bool = False,
) -> graphviz.Digraph:
    """The diagram of a captured tree as a ``graphviz.Digraph``.

    Top-down, one box per visited node (``n<id>``; a chance node is an ellipse with its
    expected value, its outcomes' probabilities on its edges), moves on the edges, the
    principal variation in bold red, the moves pruned by each cutoff grouped
    into one dashed grey box with the reason (``p<id>``), and a legend.
    ``view``: values for the side to move ("negamax") or for MAX, the first player,
    with the nodes labelled MAX and MIN ("maxmin"); ``order``: number the nodes in
    the order the search visited them.  Games of three or more players show each
    node's payoff vector, the mover's highlighted.
    """
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r} (choose from {', '.join(VIEWS)})")
    try:
        import graphviz
    except ImportError:  # pragma: no cover - graphviz is a dependency
        raise RenderError("drawing needs the graphviz package: pip install graphviz") from None

    node_style = node_style or default_node_style
    edge_style = edge_style or default_edge_style
    graph = tree.graph
    dot = graphviz.Digraph("searchtree")
    head = title if title is not None else _title(tree)
    dot.attr(rankdir="TB", labelloc="t", label=head, fontname=FONT, fontsize="14", nodesep="0.25", ranksep="0.45")
    dot.attr("node", fontname=FONT, fontsize="11", color="#444444", fontcolor=COLOURS["text"])
    dot.attr("edge", fontname=FONT, fontsize="10", color="#666666", arrowsize="0.6")

    extra = {k: graph.graph[k] for k in ("board_rows", "board_columns") if graph.graph.get(k)}
    extra.update(
        view=view,
        show_order=order,
        margin=bool(graph.graph.get("margin")),
        player_count=int(graph.graph.get("player_count") or len(graph.graph.get("players") or ()) or 2),
    )
    for node, data in graph.nodes(data=True):
        if data.get("pruned"):
            continue
        dot.node(f"n{node}", **node_style({**data, **extra, "id": node}, board=board))
        pruned = [(v, graph.edges[node, v]) for v in graph.successors(node) if graph.nodes[v].get("pruned")]
        for child in graph.successors(node):
            edge = graph.edges[node, child]
            if not edge.get("pruned"):
                dot.edge(f"n{node}", f"n{child}", **edge_style(edge))
        if pruned:
            first = pruned[0][0]
            group = {
                "pruned": True,
                "move": ", ".join(str(d["move"]) for _, d in pruned),
                "moves": [d["move"] for _, d in pruned],
                "reason": _reason(pruned[0][1].get("reason") or "", {**data, **extra}),
                "depth": graph.nodes[first].get("depth"),
            }
            dot.node(f"p{first}", **node_style(group, board=board))
            dot.edge(f"n{node}", f"p{first}", **edge_style(group))

    marked = graph.graph.get("pv_marked")
    pv = tree.result.pv
    if marked is not None and marked < len(pv):
        last = tree.pv_nodes()[-1]
        rest = " ".join(pv[marked:])
        dot.node(
            "pv_rest",
            label=f"best play goes on: {rest}",
            shape="plaintext",
            fontcolor=COLOURS["pv"],
            fontsize="9",
        )
        dot.edge(f"n{last}", "pv_rest", style="dotted", color=COLOURS["pv"], arrowhead="none")

    if legend:
        players = tuple(graph.graph.get("players") or ("player 1", "player 2"))
        kinds = {**extra, "chance": any(c for _, c in graph.nodes(data="chance"))}
        label = _legend(tree.result.algorithm, players, board, kinds)
        dot.node("legend", label=label, shape="plaintext", fontsize="9")
    return dot
