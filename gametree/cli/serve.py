"""``gametree serve``: play and analyse the installed games in a browser.

Starts the web application of :mod:`gametree.serve` on uvicorn, bound to the loopback
address unless ``--host`` says otherwise; ``--open`` opens the page in the default
browser; ``--tiers DIR`` answers the game and board a tier directory holds from its arrays
(checked before the server listens).  Ctrl-C stops the server and its search workers.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
import threading
from typing import TYPE_CHECKING

import click

from .common import check_workers, echo_message, number_option, registry_of, store_options

if TYPE_CHECKING:
    import uvicorn

    from ..plugin.registry import Registry

__all__ = ["serve"]

#: Search workers when --workers is not given.
DEFAULT_WORKERS = 4


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host`` and ``port`` (0: a free port), or a one-line error."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as exc:
        listening.close()
        raise click.ClickException(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from None
    return listening


def _store_path(store_path: str | None, no_store: bool) -> str | None:
    from ..store import SolutionStore, StoreError, default_store_path

    if no_store:
        if store_path:
            raise click.UsageError("--store and --no-store contradict each other")
        return None
    path = store_path or default_store_path()
    if path is None:
        return None
    try:
        SolutionStore(path).close()  # (made, or checked, before any worker opens it)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot use the store {path}: {exc.strerror or exc}") from None
    return path


def _check_tiers(registry: Registry, folders: tuple[str, ...]) -> None:
    """Each ``--tiers`` directory opened as the game and board it holds, or a one-line error."""
    from ..serve.tiers import TierShelf
    from ..store.tiers import TierFileError

    try:
        TierShelf(registry, folders)
    except TierFileError as exc:
        raise click.ClickException(f"--tiers: {exc}") from None


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (loopback by default).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option(
    "-p",
    "--plugin",
    "plugins",
    multiple=True,
    metavar="MODULE",
    help="Load a plugin module from the path (repeatable), as gametree -p does.",
)
@store_options
@number_option(
    "--workers",
    click.IntRange(min=1),
    "N",
    f"Search in at most N worker processes [default: {DEFAULT_WORKERS}].",
    callback=check_workers,
)
@click.option(
    "--tiers",
    "tiers",
    multiple=True,
    metavar="DIR",
    help="Answer the analysis and the perfect player of the game and board this tier directory holds "
    "(gametree tiers build) from its arrays, without a search (repeatable: one a board).",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the default browser.")
@click.pass_context
def serve(
    ctx: click.Context,
    host: str,
    port: int,
    plugins: tuple[str, ...],
    store_path: str | None,
    no_store: bool,
    workers: int | None,
    tiers: tuple[str, ...],
    open_browser: bool,
) -> None:
    """Play and analyse any installed game in the browser: every move's value, computer players, the search tree."""
    root = ctx.find_root()
    root.params["plugins"] = (*(root.params.get("plugins") or ()), *plugins)
    registry = registry_of(ctx)  # (a -p MODULE that fails is a one-line error here, before the server starts)
    try:
        import uvicorn

        from ..serve import WorkerSetup, make_app
    except ImportError as exc:
        raise click.ClickException(f"gametree serve needs {exc.name}: pip install starlette uvicorn") from None
    _check_tiers(registry, tiers)
    setup = WorkerSetup(tuple(root.params["plugins"]), _store_path(store_path, no_store), tuple(sys.path), tiers)
    listening = _listen(host, port)  # (bound here: a port in use is a one-line error before anything starts)
    port = listening.getsockname()[1]
    app = make_app(setup, workers=workers or DEFAULT_WORKERS)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    if not _loopback(host):
        echo_message(f"warning: listening on {host}: anyone who can reach this machine can use the page")
    echo_message(f"gametree serve: {url} (Ctrl-C stops)")
    if open_browser:
        threading.Thread(target=_open_when_up, args=(server, url), daemon=True).start()
    server.run(sockets=[listening])


def _open_when_up(server: uvicorn.Server, url: str) -> None:
    """Open ``url`` in the default browser once ``server`` has started (within 10 s)."""
    import time
    import webbrowser

    for _ in range(200):
        if server.started:
            webbrowser.open(url)
            return
        time.sleep(0.05)
