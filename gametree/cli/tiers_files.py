"""``gametree tiers export DIR FILE`` and ``gametree tiers import FILE [--out DIR] [--force]``: a
finished tier directory in one file a user can copy, and back (docs/tiers.md, "One file").

The file's format and its checks are :mod:`gametree.store.tier_archive`'s; the game's checks on
import are :mod:`gametree.tier_import`'s.  Every refusal is one line, exit 1.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click

from . import common

__all__ = ["export_command", "import_command"]


@click.command(name="export", help="Write a finished tier directory DIR to one file FILE (a ZIP, see docs/tiers.md).")
@click.argument("directory", metavar="DIR")
@click.argument("file", metavar="FILE", callback=common.check_file_name)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary.")
def export_command(directory: str, file: str, as_json: bool) -> None:
    from ..store.tier_archive import export_tier_file
    from ..store.tiers import TierFileError

    try:
        summary = export_tier_file(Path(directory), Path(file))
    except TierFileError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps({"file": file, **asdict(summary)}))
        return
    click.echo(
        f"{file}: {summary.tiers} tiers, {summary.array_bytes:,} bytes of arrays in {summary.file_bytes:,} bytes"
    )


@click.command(name="import", help="Check a tier file FILE and make it a tier directory (see docs/tiers.md).")
@click.argument("file", metavar="FILE", callback=common.check_file_name)
@click.option(
    "--out", metavar="DIR", callback=common.check_file_name, help="The directory (default: GAME-OPTIONS.tiers here)."
)
@click.option("--force", is_flag=True, help="Replace DIR if it exists.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary.")
def import_command(file: str, out: str | None, force: bool, as_json: bool) -> None:
    from ..store.tiers import TierFileError
    from ..tier_import import import_tier_file

    games = common.registry_of(click.get_current_context()).games
    try:
        summary = import_tier_file(Path(file), Path(out) if out else None, games, force=force)
    except TierFileError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(asdict(summary)))
        return
    click.echo(
        f"{summary.directory}: {summary.game} {summary.options}, {summary.positions:,} positions in "
        f"{summary.tiers} tiers ({summary.array_bytes:,} bytes; {summary.checked:,} positions checked against the game)"
    )
