"""The root ``gametree`` group and the console script's entry point.

The root's ``-p`` options say which plugins to load; the plugin manager is built
from them once per run, on first use (see :func:`.common.registry_of`).  Each
command lives in its own module; this one gathers them.
"""

from __future__ import annotations

import atexit
import gc
import os
import re
import signal
import sys
import traceback
from typing import TypeVar

import click

from .book import book
from .common import clip, echo_message
from .compile import compile_engines
from .games import list_games
from .learn import learn
from .play import play
from .serve import serve
from .show import show
from .solve import solve
from .tiers import tiers
from .tree import tree

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gametree")
@click.option(
    "-p",
    "--plugin",
    "plugins",
    multiple=True,
    metavar="MODULE",
    help="Load a plugin module from the path (repeatable); -p no:NAME disables an installed plugin.",
)
def cli(plugins: tuple[str, ...]) -> None:
    """Game-tree search: solve, play and draw games installed as plugins."""


cli.add_command(list_games)
cli.add_command(solve)
cli.add_command(tree)
cli.add_command(show)
cli.add_command(play)
cli.add_command(learn)
cli.add_command(book)
cli.add_command(compile_engines)
cli.add_command(serve)
cli.add_command(tiers)


def _skip_exit_collections() -> None:
    """Spare the interpreter's garbage collections at exit (most of a short run's teardown).

    At exit the interpreter runs full collections over every object of the run (the
    tens of thousands of classes, functions and modules that start-up made) only to
    call finalizers of unreachable cycles, which Python does not promise to run at
    exit anyway; gametree closes its own files explicitly.  An exit handler freezes
    the tracked objects, so those collections skip them.  Registered before any plugin
    or command registers its own, it runs after them (handlers run in reverse order).
    Not in development mode (``-X dev``) or with collector debugging on, where the
    warnings of those collections are wanted.
    """
    global _exit_handler_registered
    if not _exit_handler_registered:
        _exit_handler_registered = True
        atexit.register(_freeze_collector)


def _freeze_collector() -> None:
    """Move every object the collector tracks out of its reach (not with ``-X dev`` or collector debugging).

    Called at start, it keeps the objects of start-up out of the run's full
    collections: they live as long as the process, yet every full collection
    would walk them again.  At exit, see :func:`_skip_exit_collections`.
    """
    if not (sys.flags.dev_mode or gc.get_debug()):
        gc.freeze()


_exit_handler_registered = False


class Terminated(KeyboardInterrupt):
    """A termination signal (SIGTERM, SIGHUP) arrived: the command ends as on Ctrl-C (worker
    processes terminated, files left as they were), then exits 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated(signum)


def _end_cleanly_on_termination() -> None:
    """SIGTERM and SIGHUP raise :class:`Terminated` (where nobody set a handler): by default they
    would kill this process alone, leaving its worker processes running."""
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) == signal.SIG_DFL:
            signal.signal(number, _raise_terminated)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``gametree`` console script."""
    if argv is None:  # the process is the command (the console script), not a caller passing arguments
        _freeze_collector()
        _skip_exit_collections()
        _end_cleanly_on_termination()
    try:
        cli.main(args=argv, prog_name="gametree", standalone_mode=False)
        return
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.UsageError as exc:
        # One line, as every other error (click's own show() puts the usage lines above it).
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        # click repeats a bad value in full (a 1 MB argument, a 2 MB line): cut what it quotes.
        # (A quoted value starts with no space: the text between the quotes that close one value and
        # open the next, "' (installed: ...; see '", is not one.)
        message = re.sub(r"'([^'\s][^']{60,})'", lambda m: repr(clip(m.group(1))), exc.format_message())
        echo_message(f"Error: {message}{hint}")
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        echo_message(f"Error: {exc.format_message()}")  # (as exc.show() does, fitted to a terminal)
        sys.exit(exc.exit_code)
    except (KeyboardInterrupt, click.Abort) as exc:
        # (click turns a KeyboardInterrupt into Abort, the interrupt its context; an EOFError too)
        cause = exc if isinstance(exc, Terminated) else exc.__context__
        if isinstance(cause, EOFError) and _interrupt_in(cause) is None:
            # The end of a person's input is handled where it is read (the session quits): an
            # EOFError here came from somewhere else (a plugin's code, a damaged file), a fault.
            if os.environ.get("GAMETREE_DEBUG"):
                raise cause from None
            echo_message(f"Error: {_unexpected(cause)}")
            sys.exit(1)
        if isinstance(cause, Terminated):
            click.echo("\nterminated", err=True)
            sys.exit(128 + cause.signum)
        click.echo("\ninterrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (e.g. | head): not an error of ours
        sys.exit(0)
    except Exception as exc:  # a bug: in a plugin's code (a game's method, an algorithm, a player) or ours
        said: str | None = None
        try:
            interrupt = _interrupt_in(exc)
            if interrupt is not None:  # Ctrl-C that a library turned into an error of its own (numba, compiling)
                terminated = isinstance(interrupt, Terminated)
                click.echo("\nterminated" if terminated else "\ninterrupted", err=True)
                sys.exit(128 + interrupt.signum if isinstance(interrupt, Terminated) else 130)
            debug = bool(os.environ.get("GAMETREE_DEBUG"))
            if not debug:
                memory = _found_in(exc, MemoryError)
                if memory is None:
                    echo_message(f"Error: {_unexpected(exc)}")
                    sys.exit(1)
                said = _out_of_memory(memory)
                del memory
        except MemoryError:  # looking at the error ran out too: the prepared line, once the work is gone
            debug = False
        if debug:
            raise
    # Out of memory: said here, once the exception is gone with the frames of the work that ran out
    # (they hold what filled the memory: the message may need some of it).
    gc.collect()
    try:
        if said is None:
            raise MemoryError
        echo_message(f"Error: {said}")
    except MemoryError:
        os.write(2, OUT_OF_MEMORY)
    sys.exit(1)


def _interrupt_in(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C (or :class:`Terminated`) among the exceptions ``exc`` was raised from, if any."""
    return _found_in(exc, KeyboardInterrupt)


E = TypeVar("E", bound=BaseException)


def _found_in(exc: BaseException, kind: type[E]) -> E | None:
    """The exception of type ``kind`` among ``exc`` and those it was raised from, if any."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, kind):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


#: What is said when even the message cannot be built (prepared while there is memory).
OUT_OF_MEMORY = (
    b"Error: out of memory: try a smaller --cache-size, a smaller board or position, fewer games or fewer --workers\n"
)


def _out_of_memory(exc: MemoryError) -> str:
    """One line on running out of memory: what to make smaller (with numpy's account of the
    allocation that failed, when it gave one)."""
    text = " ".join(str(exc).split())
    detail = f" ({text if len(text) <= 120 else text[:117] + '...'})" if text else ""
    return (
        f"out of memory{detail}: try a smaller --cache-size, a smaller board or position, fewer games "
        "or fewer --workers"
    )


def _unexpected(exc: BaseException) -> str:
    """One line on an exception nobody expected: what, and where it was raised (the file names the
    plugin at fault, or gametree), with how to see the whole traceback."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (raised in {frames[-1].name}, {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    text = " ".join(str(exc).split())
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"unexpected {type(exc).__name__}: {text}{where}; GAMETREE_DEBUG=1 shows the traceback"
