"""``gametree compile [GAME...]``: compile the games' engines ahead of time (numba, once a machine)."""

from __future__ import annotations

import dataclasses
import time

import click

from .common import registry_of

__all__ = ["compile_engines"]


@click.command("compile")
@click.argument("games", nargs=-1)
@click.pass_context
def compile_engines(ctx: click.Context, games: tuple[str, ...]) -> None:
    """Compile the engines of GAMES (default: every installed game with compiled rules) now, so that
    no search waits on numba later: each is compiled once (10 to 60 s) and kept in the cache,
    which later runs load in about 0.05 s (its machine code, without numba; through numba about
    half a second)."""
    from ..search import compile_state
    from ..search.compiled import CompiledEngine, cache_folder, compiled_rules, numba_available
    from ..search.table import TranspositionTable

    registry = registry_of(ctx)
    unknown = [name for name in games if name not in registry.games]
    if unknown:
        raise click.UsageError(f"no game {unknown[0]!r} (installed: {', '.join(registry.games)})")
    if not numba_available():
        raise click.ClickException("the compiled engines need numba, which is not installed here: pip install numba")
    for name in games or tuple(registry.games):
        game = registry.games[name].create()
        rules = compiled_rules(game)
        if rules is None:
            if games:
                raise click.ClickException(f"{name} has no compiled rules: its searches run on the Python engine")
            continue
        # The game's default board's search, and where that board has a search of its own
        # (CompiledRules.specialise) also the one every other board shares.
        variants = [rules, dataclasses.replace(rules, specialise=False)] if rules.specialise else [rules]
        was_ready = all(compile_state.ready(game, variant) for variant in variants)
        started = time.perf_counter()
        for variant in variants:
            # Both kernels: the one a search with a table uses (the compact table where the keys fit,
            # as a solve's) and the one without; each also saves its native code (gametree.search.native).
            CompiledEngine(game, variant, table=TranspositionTable())
            CompiledEngine(game, variant)
        took = time.perf_counter() - started
        if was_ready or took < compile_state.LOADED:
            click.echo(f"{name}: compiled already; loaded from the cache in {took:.1f} s")
        else:
            click.echo(f"{name}: compiled in {took:.1f} s")
    click.echo(f"cache: {cache_folder()}")
