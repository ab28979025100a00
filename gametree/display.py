"""Printing results for people (rich is imported here, only when something is shown)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .game import Game, M, S

if TYPE_CHECKING:
    from rich.console import Console

    from .plugin.registry import Registry
    from .search import SearchResult


def console(stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def describe(game: Game[S, M], result: SearchResult) -> str:
    """One line: who wins (or draw) and in how many plies."""
    names = game.info.player_names
    from .search.results import plies_text

    plies = "" if result.plies_to_end is None else f" in {plies_text(result.plies_to_end)}"
    if not result.proven and result.stats.iterations is not None:  # Monte Carlo
        return (
            f"unknown (mean reward {result.score:+.3f} for {names[result.to_move]} "
            f"after {result.stats.iterations:,} iterations)"
        )
    if not result.proven:
        guess = f"heuristic score {result.score:+.3f} for {names[result.to_move]} at depth {result.depth}"
        if result.score_bounds is not None:
            return f"unknown: not proven in time; {bounds_text(result.score_bounds)} ({guess})"
        return f"unknown ({guess})"
    if not game.info.deterministic:  # a value of chance: the expected payoff
        return expected_text(game, result)
    if result.weak:
        value = "draw" if result.winner is None else f"{names[result.winner]} wins"
        return f"{value} (weak solve: who wins, not how fast)"
    if result.payoffs is not None and game.info.players > 2:  # (max^n, paranoid: a payoff for each player)
        won = "no one wins" if result.winner is None else f"{names[result.winner]} wins"
        return f"{won}{plies} (payoffs {payoff_text(names, result.payoffs)})"
    if result.margin is not None:  # a margin game: by how much, for the side to move
        who = "draw" if result.winner is None else f"{names[result.winner]} wins by {abs(result.margin)}"
        return f"{who}{plies} (margin {result.margin:+d} for {names[result.to_move]}, to move)"
    if result.winner is None and game.info.repeats and result.plies_to_end is None:
        return "draw by endless play"  # (retrograde analysis: no drawn line ends)
    if result.winner is None:
        return f"draw{plies}"
    return f"{names[result.winner]} wins{plies} (score {result.score:+d} for {names[result.to_move]}, to move)"


def payoff_text(names: Sequence[str], payoffs: Sequence[float]) -> str:
    """Each player's payoff, named: "X 1, O 0, Y 0" (fractions to three places)."""
    return ", ".join(f"{name} {v:g}" if float(v).is_integer() else f"{name} {v:.3f}" for name, v in zip(names, payoffs))


def expected_text(game: Game[S, M], result: SearchResult) -> str:
    """A proven value of a game with chance: the expected payoff (exactly, when the search says so)
    for the side to move, or for the first player at a chance node."""
    names = game.info.player_names
    whose = f"{names[0]}, chance to move" if result.to_move < 0 else f"{names[result.to_move]}, to move"
    exact = "" if result.exact is None or result.exact.denominator == 1 else str(result.exact)
    exactly = "" if not exact else f" = {exact}" if len(exact) <= 40 else " (an exact fraction: see --json)"
    if result.algorithm == "value-iteration":  # (its values are win probabilities first: say it; a draw counts half)
        exactly = f" (win probability {(result.score + 1) / 2:.4f})"
    return f"expected payoff {_score(result.score)}{exactly} for {whose}"


def bounds_verdict(bounds: tuple[float, float]) -> str | None:
    """What a proven range of scores tells of the value: "a win", "at least a draw"... or None."""
    low, high = bounds
    if low > 0:
        return "a win"
    if high < 0:
        return "a loss"
    if low == high == 0:
        return "a draw"
    if low == 0:
        return "at least a draw"
    if high == 0:
        return "at best a draw"
    return None


def bounds_text(bounds: tuple[float, float]) -> str:
    """A proven range of scores: "score proven in [0, +10]: at least a draw"."""
    text = f"score proven in [{_score(bounds[0])}, {_score(bounds[1])}]"
    verdict = bounds_verdict(bounds)
    return f"{text}: {verdict}" if verdict else text


def proven_line(progress: Any) -> str:
    """One line for a root value just proven (a :class:`gametree.search.progress.SolveProgress`),
    before its moves are scored."""
    score = progress.score
    value = "a win" if score > 0 else "a loss" if score < 0 else "a draw"
    return f"Proven in {progress.elapsed():.2f} s: {value} (score {_score(score)}), best move {progress.best}"


def _margin_outcome(margin: float) -> str:
    from .search.values import margin_text

    return margin_text(margin)


def print_position(game: Game[S, M], state: S) -> None:
    """The board, and whose move it is."""
    out = console()
    out.print(game.render(state), markup=False)
    out.print()


def _score(value: float) -> str:
    if isinstance(value, int):
        return f"{value:+d}" if value else "0"
    return f"{value:+.3f}"


#: At most this many move rows in the table :func:`print_result` prints (``--json`` gives them all).
MAX_MOVE_ROWS = 200


def _clipped(moves: tuple[str, ...], limit: int) -> str:
    """The first ``limit`` moves, and how many more there are."""
    text = " ".join(moves[:limit])
    return text if len(moves) <= limit else f"{text} ... ({len(moves) - limit:,} more)"


def print_result(
    game: Game[S, M], state: S, result: SearchResult, max_rows: int = MAX_MOVE_ROWS, *, position: bool = True
) -> None:
    """Print the position (unless not ``position``: printed already), its value and a table of
    the ``max_rows`` best moves, then one line saying how many rows were left out, if any."""
    import heapq

    from rich.table import Table

    out = console()
    if position:
        print_position(game, state)
    mover = "chance" if result.to_move < 0 else game.info.player_names[result.to_move]  # (a die to roll)
    out.print(f"[bold]{mover} to move.[/] Result: [bold]{describe(game, result)}[/]")
    table = Table(title="Value of each move", title_justify="left")
    table.add_column("move")
    table.add_column("score", justify="right")
    table.add_column("outcome")
    table.add_column("plies to end", justify="right")
    monte_carlo = any(mv.visits is not None for mv in result.move_values)
    vectors = game.info.players > 2 and any(mv.payoffs is not None for mv in result.move_values)
    if vectors:
        table.add_column("payoffs")
    if monte_carlo:
        table.add_column("visits", justify="right")
        table.add_column("mean", justify="right")
    # The best rows first, as sorted() orders them (nsmallest is stable too), without sorting them all.
    rows = heapq.nsmallest(max_rows, result.move_values, key=lambda m: -m.score)
    omitted = len(result.move_values) - len(rows)
    for mv in rows:
        # A proven score is a whole number; a fraction (a heuristic value, a Monte Carlo mean) proves
        # nothing, even where the root's value is proven (mcts proves the root, not every move).
        unproven = not float(mv.score).is_integer() or (not result.proven and abs(mv.score) < 1)
        outcome = "?" if unproven else "win" if mv.score > 0 else "loss" if mv.score < 0 else "draw"
        if game.info.margin:  # a margin game's move: proven only in a proven result (its estimates are margins too)
            outcome = _margin_outcome(mv.score) if result.proven else "?"
        style = "bold green" if mv.best else None
        cells = [mv.move, _score(mv.score), outcome, "-" if mv.plies_to_end is None else str(mv.plies_to_end)]
        if vectors:  # who wins after the move, and each player's payoff (the mover's score alone says little)
            cells[2] = "?" if not result.proven else _vector_outcome(game.info.player_names, mv.payoffs or ())
            cells.append(payoff_text(game.info.player_names, mv.payoffs or ()))
        if monte_carlo:
            cells += [f"{mv.visits or 0:,}", "-" if mv.mean is None else f"{mv.mean:+.3f}"]
        table.add_row(*cells, style=style)
    for move in result.unscored[: max(0, max_rows - len(rows))]:
        table.add_row(move, "?", "not scored", "-", *(["-", "-"] if monte_carlo else []), style="dim")
    out.print(table)
    if result.unscored:
        why = (
            "the time for scoring moves ran out (--analysis-time, --time-limit)"
            if result.cut_short == "time"
            else "interrupted"
        )
        out.print(
            f"[yellow]Partial: {len(result.move_values)} of {len(result.move_values) + len(result.unscored)} "
            f"moves scored; {why}.[/]"
        )
    if omitted:
        out.print(
            f"... {omitted:,} more move{'s' if omitted != 1 else ''} not shown (the best {len(rows):,} are); "
            "--json gives them all"
        )
    out.print(f"Best moves: {_clipped(result.best_moves, max_rows)}")
    if not result.weak:  # a weak result has no line to the end
        out.print(f"Principal variation: {_clipped(result.pv, max_rows)}")
    s = result.stats
    if result.from_store and result.algorithm == "tiers":  # (gametree.tier_book.tier_result)
        out.print(f"[dim]answered from the tier directory in {s.seconds * 1000:.1f} ms, without a search[/]")
        return
    if result.from_store:
        out.print(
            f"[dim]{result.algorithm}: answered from the solution store in {s.seconds * 1000:.1f} ms, without a "
            "search (--no-store searches)[/]"
        )
        return
    hit_rate = f" ({100 * s.cache_hits / s.cache_probes:.0f}% hits)" if s.cache_probes else ""
    out.print(
        f"[dim]{result.algorithm}: {s.nodes:,} nodes ({s.terminals:,} terminal, {s.heuristic_leaves:,} heuristic), "
        f"{s.cutoffs:,} cutoffs, cache {s.cache_probes:,} probes / {s.cache_hits:,} hits{hit_rate} / "
        f"{s.cache_stores:,} stores, "
        f"max depth {s.max_depth}, {s.seconds * 1000:.1f} ms, {s.nodes_per_second:,.0f} nodes/s[/]"
    )
    out.print(f"[dim]nodes per depth: {' '.join(str(n) for n in s.nodes_per_depth)}[/]")
    if s.iterations is not None:
        out.print(f"[dim]{s.iterations:,} Monte Carlo iterations[/]")


def print_games(registry: Registry, engines: dict[str, tuple[tuple[str, ...], str]]) -> None:
    """The games, their options, engines (``engines``: by game, as
    :func:`gametree.search.compiled.engines_of` gives for its default board) and sources."""
    from rich.table import Table

    out = console()
    table = Table(title="Installed games", title_justify="left")
    table.add_column("game", style="bold")
    table.add_column("options")
    table.add_column("engines")
    table.add_column("from")
    for spec in registry.games.values():
        options = "\n".join(
            f"--{o.name.replace('_', '-')} "
            f"({o.type.__name__}{'' if o.default is None else ', default ' + str(o.default)}): {o.help}"
            for o in spec.options
        )
        names, why = engines.get(spec.name, (("python",), ""))
        table.add_row(
            f"{spec.name}\n[dim]{spec.summary}[/]",
            options or "-",
            ", ".join(names) + (f"\n[dim]({why})[/]" if why else ""),
            spec.source,
        )
    out.print(table)
    out.print(f"Algorithms: {', '.join(sorted(registry.algorithms))}")
    for error in registry.errors:
        out.print(f"[red]{error}[/]", markup=True)


def _vector_outcome(names: Sequence[str], payoffs: Sequence[float]) -> str:
    """Who wins by a payoff vector: the one player with the highest payoff, else no one."""
    top = max(payoffs, default=0)
    leaders = [name for name, v in zip(names, payoffs) if v == top]
    return f"{leaders[0]} wins" if len(leaders) == 1 else "no one wins"
