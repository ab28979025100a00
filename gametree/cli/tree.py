"""``gametree tree GAME``: draw the tree a search explored.

Built like ``solve``: one subcommand per installed game with that game's
options.  The format comes from ``--format`` or the output file's ending and
names an exporter registered by a plugin (the built-in ones: svg, png, dot,
graphml, json).  Before recording anything, the fast engine counts the nodes,
so an oversized tree is refused at once with its exact size.

By default the tree is the one a textbook draws: one alpha-beta search from the
root with one window (``--root-window``) and no transposition cache
(``--no-cache``); ``--all-moves`` and ``--cache`` draw what ``gametree solve``
searches instead.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import click

from ..files import write_atomically
from ..game import Game, GameError, M, S, capabilities
from ..live import elapsed_status, live
from ..plugin.registry import Exporter, GameSpec, Registry
from .common import (
    DEPTH_OPTION,
    GameGroup,
    check_file_name,
    game_group,
    game_options,
    make_game,
    number_option,
    option_stack,
    position_of,
    registry_of,
    split_game_options,
)

if TYPE_CHECKING:
    from ..tree import SearchTree

__all__ = ["tree"]

DEFAULT_MAX_NODES = 400
#: A tree over ``--max-nodes`` is counted on to COUNT_FACTOR times the limit (at least COUNT_MIN
#: nodes, at most COUNT_LIMIT) for its size in the message, "more than" past that: counting the
#: whole tree of 7x6 Connect Four to refuse it took 21 s.
COUNT_FACTOR = 10
COUNT_MIN = 10_000
COUNT_LIMIT = 2_000_000
#: The algorithms beside the engine's that tell an observer (gametree.tree.general.OBSERVED).
OBSERVED = ("expectiminimax", "star1", "star2", "maxn", "paranoid")
#: The views of ``--view`` (gametree.tree.draw.VIEWS, named here so that the command line loads no drawing code).
VIEWS = ("negamax", "maxmin")
#: Formats that can show two trees side by side (``--compare``).
COMPARE_FORMATS = frozenset({"html"})
#: File endings of markup formats: like binary ones, written to a file or a pipe but not to a terminal.
MARKUP_SUFFIXES = frozenset({".svg", ".graphml", ".gexf", ".xml", ".html", ".htm"})


def _exporter_for(registry: Registry, fmt: str | None, output: str) -> Exporter:
    exporters = registry.exporters
    if not exporters:
        raise click.ClickException(
            "no tree exporters are installed (the built-in gametree_builtins.plugins.exporters did not load)"
        )
    if fmt is None:
        suffix = (
            os.path.splitext(output)[1].lower() if output != "-" else ""
        )  # (not pathlib: it would load at every start)
        if not suffix:
            fmt = "svg"
        else:
            matches = [e for e in exporters.values() if suffix in e.suffixes]
            if not matches:
                raise click.BadParameter(
                    f"cannot tell the format from {output!r}; use --format ({', '.join(sorted(exporters))})",
                    param_hint="--output",
                )
            return matches[0]
    exporter = exporters.get(fmt)
    if exporter is None:
        raise click.BadParameter(
            f"unknown format {fmt!r} (choose from {', '.join(sorted(exporters))})", param_hint="--format"
        )
    return exporter


#: The options of ``gametree tree GAME`` after the game's own.
_TREE_OPTIONS = option_stack(
    click.option(
        "--moves", default="", metavar="MOVES", help='Search the position after these moves (e.g. "A1 B2 C3").'
    ),
    click.option(
        "--algorithm",
        "-a",
        type=click.Choice(["alphabeta", "minimax", "mcts", *OBSERVED]),
        default="alphabeta",
        show_default=True,
        help="Search algorithm to trace.",
    ),
    number_option(
        "--iterations",
        click.IntRange(min=1),
        "N",
        "mcts: iterations (the tree has at most N + 1 nodes) [default: 100].",
    ),
    click.option("--seed", type=int, default=None, help="mcts: seed for the random playouts."),
    DEPTH_OPTION,
    click.option(
        "--cache/--no-cache",
        default=False,
        show_default=True,
        help="Alpha-beta with the transposition cache, as solve searches (the default draws the textbook's tree, "
        "without one).",
    ),
    click.option(
        "--root-window/--all-moves",
        default=True,
        show_default=True,
        help="One alpha-beta search from the root, the textbook's pruning (the default), or a full window and an "
        "exact value for every root move, as solve searches.",
    ),
    click.option(
        "--view",
        type=click.Choice(VIEWS),
        default=None,
        help="Values for the side to move (negamax) or for MAX, with MAX and MIN nodes (maxmin) "
        "[default: negamax; maxmin for games with chance nodes].",
    ),
    click.option(
        "--order", is_flag=True, help="Number the nodes in the order the search visited them (svg, png, dot)."
    ),
    click.option(
        "--compare",
        is_flag=True,
        help="html: the alpha-beta tree beside the minimax tree of the same position, one replay for both.",
    ),
    number_option(
        "--max-nodes",
        click.IntRange(min=1),
        None,
        "Refuse trees with more visited nodes than this.",
        default=DEFAULT_MAX_NODES,
        show_default=True,
    ),
    click.option(
        "--board/--no-board",
        default=True,
        show_default=True,
        help="Draw each position as a small board inside its node.",
    ),
    click.option("--legend/--no-legend", default=True, show_default=True, help="Add a legend to drawings."),
    click.option(
        "-o",
        "--output",
        default="-",
        callback=check_file_name,
        metavar="FILE",
        help="Write here ('-': standard output); the ending picks the format.",
    ),
    click.option(
        "-f",
        "--format",
        "fmt",
        default=None,
        metavar="FORMAT",
        help="svg, png, dot, graphml, json, html or a plugin's format [default: from FILE, else svg].",
    ),
)


def _tree_command(spec: GameSpec) -> click.Command:
    @click.command(
        name=spec.name,
        help=f"Draw the search tree of {spec.summary or spec.name}.\n\nBy default the picture a textbook shows: "
        "one alpha-beta search from the root (one window) and no transposition cache; --all-moves and --cache "
        "draw the search gametree solve makes.",
    )
    @game_options(spec)
    @_TREE_OPTIONS
    @click.pass_context
    def command(ctx: click.Context, /, **params: Any) -> None:
        _draw(ctx, spec, params)

    return command


class _Stage:
    """The stage a long ``gametree tree`` is at, for its status line on a terminal."""

    def __init__(self, text: str) -> None:
        self.text = text


def _draw(ctx: click.Context, spec: GameSpec, params: dict[str, Any]) -> None:
    """``gametree tree GAME``: check the flags, count, capture and draw the tree, and write it out."""
    game_params, params = split_game_options(spec, params)
    exporter = _exporter_for(registry_of(ctx), params["fmt"], params["output"])
    _check_terminal(exporter, params["output"])
    game = make_game(spec, game_params)
    state = position_of(game, params["moves"])
    _check_compare(exporter, params)
    tree = _mcts_tree(game, state, params) if params["algorithm"] == "mcts" else None
    if tree is None and (params["iterations"] is not None or params["seed"] is not None):
        raise click.UsageError(f"--iterations and --seed apply to --algorithm mcts, not {params['algorithm']}")
    # On a terminal, work past half a second shows its stage and time (on standard error).
    stage = _Stage("counting the nodes")
    with live(elapsed_status(lambda: stage.text), sys.stderr.isatty()):
        traced, compared = _capture(game, state, params, stage)
        if tree is None:  # (not mcts: the traced algorithm's)
            tree = traced
        assert tree is not None
        stage.text = f"drawing the tree ({exporter.name})"
        data = _export(exporter, tree, spec, game, params, compared)
    _write_tree(params["output"], data, exporter, tree, compared)


def _check_terminal(exporter: Exporter, output: str) -> None:
    """A binary or markup format is not written to a terminal (a usage error saying how to write it)."""
    if (
        output == "-"
        and sys.stdout.isatty()
        and (exporter.binary or any(x in MARKUP_SUFFIXES for x in exporter.suffixes))
    ):
        ending = exporter.suffixes[0] if exporter.suffixes else "." + exporter.name
        kind = "binary" if exporter.binary else "markup, not for a terminal"
        raise click.UsageError(f"{exporter.name} is {kind}: write it to a file with -o tree{ending}, or pipe it")


def _check_compare(exporter: Exporter, params: dict[str, Any]) -> None:
    """``--compare`` needs a format that shows two trees and the alphabeta algorithm."""
    if not params["compare"]:
        return
    if exporter.name not in COMPARE_FORMATS:
        raise click.UsageError(
            f"--compare shows two trees side by side in the html explorer, not in {exporter.name}: "
            "write it with -o tree.html"
        )
    if params["algorithm"] != "alphabeta":
        raise click.UsageError(
            f"--compare traces alphabeta beside minimax: leave out --algorithm {params['algorithm']}"
        )


def _capture(
    game: Game[S, M], state: S, params: dict[str, Any], stage: _Stage
) -> tuple[SearchTree | None, SearchTree | None]:
    """The traced algorithm's tree (None for mcts, captured apart) and, with ``--compare``, the
    minimax tree; each counted first, so that a tree over ``--max-nodes`` is refused before any capture."""
    from ..tree import TreeTooLargeError, capture, count_nodes

    algorithm = params["algorithm"]
    # A game that names its nodes (a textbook tree) is drawn as the textbook searches it: one search
    # from the root, no table, no score bounds (docs/teaching-trees.md).
    textbook = capabilities(game).node_names is not None
    search = {
        "algorithm": algorithm,
        "depth": params["depth"],
        "cache": params["cache"] and not textbook,
        "all_moves": not params["root_window"] and not textbook,
        "bounds": not textbook,
    }
    limit = params["max_nodes"]
    tree = compared = None
    # Counted a little past the limit, for the message: not to the end of a huge tree.
    counted = max(limit, min(COUNT_LIMIT, max(COUNT_MIN, COUNT_FACTOR * limit)))
    try:
        if algorithm in OBSERVED:
            return _observed_tree(game, state, params, stage, all_moves=bool(search["all_moves"])), None
        # --compare: minimax first, the larger tree, so that a refusal comes before any capture.
        for name in ("minimax", algorithm) if params["compare"] else (algorithm,):
            if name == "mcts":  # (captured apart)
                continue
            this = {**search, "algorithm": name}
            nodes = _checked_size(name, count_nodes(game, state, **this, limit=counted), limit, counted)
            stage.text = f"capturing the {name} tree ({nodes:,} nodes)"
            captured = capture(game, state, **this, max_nodes=limit)
            if name == algorithm:
                tree = captured
            else:
                compared = captured
    except (GameError, TreeTooLargeError) as exc:
        raise click.ClickException(str(exc)) from None
    return tree, compared


def _checked_size(name: str, nodes: int | None, limit: int, counted: int) -> int:
    """The tree's size, or a one-line error if it is over ``--max-nodes`` (None: over ``counted``)."""
    if nodes is None or nodes > limit:
        size = f"{nodes:,} nodes" if nodes is not None else f"more than {counted:,} nodes"
        raise click.ClickException(
            f"the {name} tree of this position has {size}, more than --max-nodes {limit:,}: "
            "start from a later position (--moves), limit the depth (--depth N), or raise --max-nodes"
        )
    return nodes


def _observed_tree(game: Game[S, M], state: S, params: dict[str, Any], stage: _Stage, *, all_moves: bool) -> SearchTree:
    """The tree of expectiminimax, Star1, Star2, max^n or paranoid (told of every node), counted first."""
    from ..tree.general import capture_search, count_search, observed_search

    name, limit = params["algorithm"], params["max_nodes"]
    if params["cache"]:
        raise click.UsageError(f"--cache applies to alphabeta, not to --algorithm {name}")
    try:
        search = observed_search(game, state, name, depth=params["depth"], all_moves=all_moves)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    counted = max(limit, min(COUNT_LIMIT, max(COUNT_MIN, COUNT_FACTOR * limit)))
    nodes = _checked_size(name, count_search(search, counted), limit, counted)
    stage.text = f"capturing the {name} tree ({nodes:,} nodes)"
    return capture_search(
        game, search, max_nodes=limit, options={"depth": params["depth"], "all_moves": all_moves, "cache": False}
    )


def _write_tree(output: str, data: bytes, exporter: Exporter, tree: SearchTree, compared: SearchTree | None) -> None:
    """Write the drawing to standard output (``-``) or, whole or not at all, to the file ``output`` with a note."""
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        write_atomically(output, data)  # a failed write keeps an old file whole
    except OSError as exc:
        raise click.ClickException(f"cannot write {output}: {exc.strerror or exc}") from None
    pruned = len(tree.pruned_edges())
    beside = f" (minimax beside it: {compared.visited} nodes)" if compared is not None else ""
    click.echo(
        f"wrote {output} ({exporter.name}, {len(data):,} bytes): {tree.visited} nodes, {pruned} pruned moves; "
        f"{tree.result.value}{beside}",
        err=True,
    )


def _export(
    exporter: Exporter,
    tree: SearchTree,
    spec: GameSpec,
    game: Game[Any, Any],
    params: dict[str, Any],
    compared: SearchTree | None = None,
) -> bytes:
    """The tree in the exporter's format, titled with the position and the search's summary
    (with ``compared``, the minimax tree shown beside it)."""
    from ..tree.draw import RenderError

    moves = " ".join(params["moves"].split())
    where = f"after {moves}" if moves else "from the start"
    game_name = getattr(game, "name", spec.name)
    title = f"{game_name} {where}: {_summary(tree)}"
    options: dict[str, Any] = {
        "board": params["board"],
        "legend": params["legend"],
        "title": title,
        "view": params["view"] or ("maxmin" if not game.info.deterministic else "negamax"),
        "order": params["order"],
    }
    if compared is not None:
        options["title"] = (
            f"{game_name} {where}: minimax and alpha-beta side by side; "
            f"{tree.result.value}, best play {' '.join(tree.result.pv)}"
        )
        options["compare"] = compared
    try:
        data = exporter.export(tree, options)
    except RenderError as exc:
        raise click.ClickException(str(exc)) from None
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def _mcts_tree(game: Game[S, M], state: S, params: dict[str, Any]) -> SearchTree:
    """Capture a Monte Carlo search tree (visits and values on the nodes)."""
    from ..tree import TreeTooLargeError, capture_mcts

    if params["cache"] or not params["root_window"]:
        raise click.UsageError("--cache and --all-moves apply to alphabeta, not to --algorithm mcts")
    iterations = params["iterations"] or 100
    limit = params["max_nodes"]
    if iterations + 1 > limit:
        raise click.ClickException(
            f"the mcts tree of {iterations:,} iterations can have {iterations + 1:,} nodes, "
            f"more than --max-nodes {limit:,}: use fewer --iterations or raise --max-nodes"
        )
    try:
        return capture_mcts(
            game, state, iterations=iterations, seed=params["seed"], depth=params["depth"], max_nodes=limit
        )
    except (GameError, TreeTooLargeError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None


def _summary(tree: SearchTree) -> str:
    from ..tree.draw import plural

    r = tree.result
    stats = r.stats
    parts = [r.algorithm, plural(stats.nodes, "node")]
    if stats.iterations is not None:
        parts.append(plural(stats.iterations, "iteration"))
    elif r.algorithm != "minimax":
        parts.append(plural(stats.cutoffs, "cutoff"))
        if tree.graph.graph.get("cache"):
            parts.append(plural(stats.cache_hits, "cache hit"))
    if r.depth is not None:
        parts.append(f"depth {r.depth}")
    pv = " ".join(r.pv)
    return ", ".join(parts) + f"; {r.value} (v = {r.score:g}), best play {pv}"


tree: GameGroup = game_group("tree", "Draw the search tree of a position (gametree tree GAME --help).")(_tree_command)
