"""``gametree book``: opening books and strong solutions in the solution store.

- ``gametree book build GAME [game options] --plies N`` proves every position
  up to N moves deep (mirror images once; resumable: what the store holds is
  not proven again), in ``--workers`` processes; ``--all`` proves every
  reachable position of a small board (a strong solution); ``--for-play S``
  stores what the perfect player needs to move within S seconds against any
  opponent;
- ``gametree book info`` lists what the store holds (``--tiers DIR``: a tier directory's tiers);
- ``gametree book query GAME --tiers DIR --moves M``: a position's value and remoteness and
  every move's from a tier directory (``gametree tiers query``, the same command);
- ``gametree book export GAME [game options] -o FILE`` writes one board's
  entries to a compact file, ``gametree book import FILE`` adds one.
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import TYPE_CHECKING, Any

import click

from ..game import Game, GameError
from ..plugin.registry import GameSpec
from . import common
from .tiers import query_command, show_tier_info

if TYPE_CHECKING:
    from ..book import BuildReport
    from ..build_status import StrongBuildStatus
    from ..listing_files import ListingFiles
    from ..store import GameEntries, SolutionStore

__all__ = ["book"]

#: ``--from-scratch`` of book build and export: a store without the game's shipped books, to remake them.
FROM_SCRATCH = click.option(
    "--from-scratch", is_flag=True, help="Do not add the books the game ships to the store first (to remake them)."
)


@click.group(name="book", help="Opening books and strong solutions in the solution store (see docs/books.md).")
def book() -> None:
    pass


#: The options of ``gametree book build GAME`` after the game's own.
_BUILD_OPTIONS = common.option_stack(
    common.number_option(
        "--plies", click.IntRange(min=0, max=64), "N", "Every position up to N moves deep (mirror images once)."
    ),
    click.option(
        "--all", "everything", is_flag=True, help="Every reachable position: a strong solution (small boards)."
    ),
    common.number_option(
        "--for-play",
        click.FloatRange(min=0, max=3600),
        "SECONDS",
        "What the perfect player needs to move within SECONDS against any opponent: "
        "its move in every position it can meet that takes longer to prove.",
    ),
    click.option(
        "--player",
        type=click.Choice(["first", "second", "both"]),
        default="both",
        show_default=True,
        help="With --for-play: the perfect player's side.",
    ),
    FROM_SCRATCH,
    common.parallel_options("Prove positions"),
    click.option(
        "--lines",
        is_flag=True,
        help="Also keep the values along each deepest position's principal variation (whole lines of play).",
    ),
    common.ENGINE_OPTION,
    click.option("--json", "as_json", is_flag=True, help="Print a JSON summary instead of text."),
    common.store_options,
)


def _build_command(spec: GameSpec) -> click.Command:
    @click.command(name=spec.name, help=f"Prove positions of {spec.summary or spec.name} into the solution store.")
    @common.game_options(spec)
    @_BUILD_OPTIONS
    def command(**params: Any) -> None:
        _build(spec, params)

    return command


def _build(spec: GameSpec, params: dict[str, Any]) -> None:
    """``gametree book build GAME``: check the flags, prove the positions into the store, report."""
    game_params, params = common.split_game_options(spec, params)
    _check_build_flags(params)
    game = common.make_game(spec, game_params)
    entries = common.open_book(spec, game, game_params, params)
    if entries is None:
        raise click.UsageError("a book is built into a store: drop --no-store (or set GAMETREE_STORE)")
    import time

    from ..build_status import StrongBuildStatus
    from ..store import StoreError

    name = _build_name(params)
    try:
        entries.store.check_writable()
        previous = entries.build(name)
    except StoreError as exc:  # (read-only, damaged)
        raise click.ClickException(str(exc)) from None
    before = previous[2] if previous is not None else 0.0  # the time of earlier runs (stopped, or done before)
    started = time.perf_counter()
    status = StrongBuildStatus.for_game(game) if params["everything"] else StrongBuildStatus()
    listing = None
    if params["everything"]:
        from ..book import strong_resume

        resume = strong_resume(entries, name)
        if resume is not None:
            status.resuming(resume.ply, resume.per_ply)
        from ..listing_files import ListingFiles

        listing = ListingFiles.for_build(game, entries, name, lambda text: click.echo(text, err=True))
    try:
        report = _run_build(game, entries, params, status, listing)
    except KeyboardInterrupt:
        kept = status.kept if params["everything"] else 0
        record = entries.build(name)  # (a strong build's note: where a rerun goes on from)
        note = record[3] if record is not None and params["everything"] else ""
        seconds = before + time.perf_counter() - started
        entries.record_build(name, complete=False, positions=kept, seconds=seconds, note=note)
        listed = listing.kept() if listing is not None and not kept else 0  # (read from the files: the truth)
        click.echo(_interrupted(params, kept, listed), err=True)
        raise
    except (ValueError, StoreError, GameError) as exc:  # (a lost Dask scheduler is a GameError)
        raise click.ClickException(str(exc)) from None
    try:
        entries.record_build(name, complete=True, positions=report.positions, seconds=before + report.seconds)
        _print_build(spec, entries, name, report, params)
    except StoreError as exc:  # (a disk that filled up at the end)
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:  # (Ctrl-C after the last position was proven: a short build is done in a second)
        click.echo(
            f"Interrupted after the build was done: its {report.positions:,} positions are proven and kept "
            "in the store.",
            err=True,
        )
        raise


def _interrupted(params: dict[str, Any], kept: int, listed: int = 0) -> str:
    """What an interrupted build says it kept (the truth: a strong build keeps the plies it scored,
    and before that the plies it listed, ``listed`` of them)."""
    if not params["everything"]:  # (each position is written as soon as it is proven)
        return "Interrupted: what was proven is kept; run the same command again to go on."
    if not kept and listed:
        plies = "ply 0" if listed == 1 else f"plies 0-{listed - 1}"
        return (
            f"Interrupted while the positions were being listed: listed {plies} kept (beside the store); "
            f"a rerun lists from ply {listed}. Nothing was proven yet."
        )
    if not kept:
        return (
            "Interrupted while the positions were being listed: nothing was proven yet, nothing is kept; "
            "run the same command again to start over."
        )
    return (
        f"Interrupted: {kept:,} positions proven and kept in the store (the deepest plies); run the same command "
        "again to finish (it lists the positions down to the plies kept, reads their scores, then proves and "
        "writes the rest)."
    )


def _check_build_flags(params: dict[str, Any]) -> None:
    """One of --plies, --all and --for-play, and the flags that go with it (a usage error otherwise)."""
    if [params["plies"] is not None, params["everything"], params["for_play"] is not None].count(True) != 1:
        raise click.UsageError("give --plies N, --all or --for-play SECONDS (one of them)")
    for mode in ("everything", "for_play"):
        if params[mode] not in (None, False) and (params["workers"] or params["lines"] or params["scheduler"]):
            flag = mode.replace("everything", "all").replace("_", "-")
            raise click.UsageError(f"--{flag} works in one process: drop --workers, --scheduler and --lines")
    if params["workers"] and params["scheduler"]:
        raise click.UsageError("--workers and --scheduler: choose one")


def _build_name(params: dict[str, Any]) -> str:
    """The name the store records the build under (``all``, ``plies:N``, ``play:SECONDS:PLAYER``)."""
    if params["everything"]:
        return "all"
    if params["for_play"] is None:
        return f"plies:{params['plies']}"
    return f"play:{params['for_play']:g}:{params['player']}"


def _run_build(
    game: Game[Any, Any],
    entries: GameEntries,
    params: dict[str, Any],
    status: StrongBuildStatus,
    listing: ListingFiles[Any] | None = None,
) -> BuildReport:
    """Prove the positions the flags ask for into ``entries``, with a progress bar (``--all``: a live
    line naming the stage, with the time left for the whole build, fed to ``status``)."""

    from ..book import build_book, build_play_book, build_strong
    from ..build_status import stop_hook
    from ..live import live, text_status, wanted

    if params["everything"]:
        hook = stop_hook()

        def progress(stage: str, done: int, total: int) -> None:
            status.progress(stage, done, total)
            hook()

        with live(text_status(status.text), wanted(None, params["as_json"])):  # (no live line with --json)
            return build_strong(
                game, entries, progress=progress, kept=status.record_kept, name=_build_name(params), listing=listing
            )
    if params["for_play"] is not None:
        players = {"first": (0,), "second": (1,), "both": (0, 1)}[params["player"]]
        with common.progress_bar("positions the perfect player meets (stored / visited)", total=False) as bar:
            return build_play_book(
                game,
                entries,
                seconds=params["for_play"],
                players=players,
                engine=params["engine"] or "auto",
                progress=lambda seen, hard: bar(hard, seen),
            )
    with common.progress_bar(f"proving positions up to ply {params['plies']}") as bar:
        return build_book(
            game,
            entries,
            plies=params["plies"],
            workers=params["workers"] or 1,
            scheduler=params["scheduler"],
            engine=params["engine"] or "auto",
            lines=params["lines"],
            progress=bar,
        )


def _print_build(spec: GameSpec, entries: GameEntries, name: str, report: BuildReport, params: dict[str, Any]) -> None:
    """The build's summary: one JSON line (``--json``), else text."""
    if params["as_json"]:
        summary = {
            "game": spec.name,
            "options": entries.options,
            "build": name,
            "positions": report.positions,
            "proved": report.proved,
            "had": report.had,
        }
        click.echo(json.dumps({**summary, "seconds": report.seconds, "per_ply": list(report.per_ply)}))
        return
    board = f"{spec.name} {entries.options}: {name}:"
    if params["for_play"] is None:
        click.echo(
            f"{board} {report.positions:,} positions ({report.proved:,} proved now, "
            f"{report.had:,} stored already) in {report.seconds:.1f} s"
        )
    else:
        quick = report.positions - report.proved - report.had
        reach = f"up to where it proves them within {params['for_play']:g} s"
        click.echo(f"{board} the perfect player meets {report.positions:,} positions {reach} ({report.seconds:.1f} s)")
        click.echo(
            f"its move stored: {report.proved:,} searched now, {report.had:,} from what the store proves; "
            f"{quick:,} proven in time, left to the player"
        )
    if report.per_ply:
        click.echo(
            ("searched and stored per ply: " if params["for_play"] is not None else "per ply: ")
            + " ".join(f"{n:,}" for n in report.per_ply)
        )
    click.echo(f"store: {entries.store.path} ({entries.store.size():,} bytes)")


book.add_command(
    common.game_group("build", "Prove positions of a game into the solution store (gametree book build GAME --help).")(
        _build_command
    )
)


@book.command(name="info", help="What the solution store holds, game by game (or a tier directory: --tiers DIR).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--tiers",
    metavar="DIR",
    default=None,
    help="Describe this tier directory instead (as gametree tiers info DIR): each tier's positions and bytes.",
)
@common.store_options
def info(**params: Any) -> None:
    if params["tiers"] is not None:
        show_tier_info(params["tiers"], params["as_json"])
        return
    from ..store import StoreError

    store = _open(params, readonly=True)
    try:
        games = store.games()
    except StoreError as exc:  # (damaged pages, options that are no JSON)
        raise click.ClickException(str(exc)) from None
    if params["as_json"]:
        click.echo(
            json.dumps(
                {
                    "store": store.path,
                    "bytes": store.size(),
                    "games": [
                        {
                            "game": g.name,
                            "options": g.options,
                            "positions": g.covered,
                            "entries": g.positions,
                            "bounds": g.bounds,
                            "chosen_moves": g.chosen,
                            "builds": [
                                {"name": b[0], "complete": b[1], "positions": b[2], "seconds": b[3], "note": b[4]}
                                for b in g.builds
                            ],
                        }
                        for g in games
                    ],
                }
            )
        )
        return
    click.echo(f"store: {store.path} ({store.size():,} bytes)")
    if not games:
        click.echo("(empty)")
    for g in games:
        options = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in sorted(g.options.items()))
        kinds = "".join(
            f", {n:,} {what}" for n, what in ((g.bounds, "of them bounds"), (g.chosen, "with a chosen move")) if n
        )
        click.echo(f"{g.name} {options}: {g.covered:,} positions ({g.positions:,} entries, mirror images once{kinds})")
        for name, complete, positions, seconds, note in g.builds:
            state = "" if complete else " (incomplete)"
            click.echo(f"  {name}: {positions:,} positions, {seconds:.1f} s{state}{'; ' + note if note else ''}")


book.add_command(
    common.game_group(
        "query",
        "A position's value, remoteness and every move's, from a tier directory (as gametree tiers query; "
        "gametree book query GAME --help).",
    )(query_command)
)


def _export_command(spec: GameSpec) -> click.Command:
    @click.command(name=spec.name, help=f"Write the stored entries of {spec.summary or spec.name} to a book file.")
    @common.game_options(spec)
    @click.option(
        "-o", "--output", required=True, metavar="FILE", help="The book file to write (gzip-compressed text)."
    )
    @FROM_SCRATCH
    @common.store_options
    def command(**params: Any) -> None:
        game_params, params = common.split_game_options(spec, params)
        game = common.make_game(spec, game_params)
        entries = common.open_book(spec, game, game_params, params)
        if entries is None:
            raise click.UsageError("a book is exported from a store: drop --no-store")
        from ..store import StoreError, export_book

        try:
            count = export_book(entries, params["output"])
        except StoreError as exc:
            raise click.ClickException(str(exc)) from None
        except OSError as exc:
            raise click.ClickException(f"cannot write {params['output']}: {exc.strerror or exc}") from None
        size = os.path.getsize(params["output"])
        click.echo(
            f"wrote {params['output']}: {count:,} entries of {spec.name} {entries.options} ({size:,} bytes)", err=True
        )

    return command


book.add_command(
    common.game_group("export", "Write one board's stored entries to a book file (gametree book export GAME --help).")(
        _export_command
    )
)


@book.command(name="import", help="Add the entries of a book file to the solution store.")
@click.argument("path", metavar="FILE")
@common.store_options
def import_(path: str, **params: Any) -> None:
    from ..book_check import BookChecker
    from ..store import StoreError, default_store_path, import_book

    new = not os.path.exists(params.get("store_path") or default_store_path() or "")
    store = _open(params)
    checker = BookChecker(common.registry_of(click.get_current_context()).games)
    try:
        entries, count = import_book(store, path, vetter=checker)
    except StoreError as exc:
        if new:  # (a store made for this book alone, which it refused: none is left behind)
            _remove_if_empty(store)
        raise click.ClickException(str(exc)) from None
    click.echo(f"imported {count:,} entries of {entries.name} {entries.options} into {store.path}", err=True)
    report = checker.report
    if report is not None:
        reach = "" if report.finished else f" (the first {report.walked:,} within {checker.seconds:g} s)"
        click.echo(
            f"checked: {report.walked:,} positions reached from the start{reach}, {report.against_moves:,} of them "
            f"against all their moves, {report.proved:,} proven again by the solver ({report.seconds:.1f} s)",
            err=True,
        )


def _remove_if_empty(store: SolutionStore) -> None:
    """Close ``store`` and remove its files if it holds no game (a new store nothing went into)."""
    from ..store import StoreError

    try:
        if store.games():
            return
    except StoreError:
        return
    store.close()
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            os.unlink(store.path + suffix)


def _open(params: dict[str, Any], *, readonly: bool = False) -> SolutionStore:
    from ..store import SolutionStore, StoreError, default_store_path

    if params.get("no_store"):
        raise click.UsageError("this command works on a store: drop --no-store")
    path = params.get("store_path") or default_store_path()
    if path is None:
        raise click.UsageError("no store: GAMETREE_STORE is 'none'; give --store PATH")
    try:
        store = SolutionStore(path, readonly=readonly)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    common.close_at_the_end(store)
    return store
