"""Live progress of long work on a terminal (rich; rich is imported only when it is shown).

:func:`live` shows what a callable renders, a few times a second, once the
work has run for :data:`SHOW_AFTER` seconds, and clears it when the work
ends; the work runs in the caller's thread, so Ctrl-C stops it as usual.
:func:`solve_status` renders a running solve's
:class:`gametree.search.progress.SolveProgress`, :func:`elapsed_status` any
other work.  Nothing is shown unless asked (``gametree solve`` asks when
standard error is a terminal and the output is not ``--json``, or with
``--progress``; ``gametree play`` for hints and the computer's moves).
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.spinner import Spinner

    from .search.progress import SolveProgress

__all__ = ["SHOW_AFTER", "elapsed_status", "live", "say", "solve_status", "solve_text", "text_status", "wanted"]

#: Seconds of work before progress is shown (shorter work shows none).
SHOW_AFTER = 0.5


def wanted(choice: bool | None, as_json: bool) -> bool:
    """Whether to show progress: as ``--progress/--no-progress`` say, else when standard error is a
    terminal and the output is not JSON."""
    if choice is not None:
        return choice
    return not as_json and sys.stderr.isatty()


@contextlib.contextmanager
def live(render: Callable[[], RenderableType], enabled: bool, console: Console | None = None) -> Iterator[None]:
    """Show ``render()`` on ``console`` (default: standard error), refreshed 4 times a second,
    from :data:`SHOW_AFTER` seconds on; what the block prints to standard output (when it is a
    terminal too) goes above it."""
    if not enabled:
        yield
        return
    import time

    from rich.console import Console
    from rich.live import Live
    from rich.text import Text

    began = time.perf_counter()

    def shown() -> RenderableType:
        return render() if time.perf_counter() - began >= SHOW_AFTER else Text("", end="")

    if console is None:
        console = Console(stderr=True, highlight=False)
    redirect = console.file is not sys.stdout and sys.stdout.isatty()
    from .search import compile_state

    with Live(
        get_renderable=shown,
        console=console,
        refresh_per_second=4,
        transient=True,
        redirect_stdout=redirect,
        redirect_stderr=False,
    ) as shown_live:
        # A compile's notice goes above the live line, not onto it.
        with compile_state.notices_to(lambda text: shown_live.console.print(text, markup=False, highlight=False)):
            yield


def say(text: str) -> None:
    """Print ``text`` on standard output, above the live line while one is shown.

    ``print`` writes through ``sys.stdout``, which :func:`live` hands to rich while it shows a line on the same
    terminal; ``click.echo`` would write past it to the terminal's buffer, onto the live line."""
    print(text, flush=True)


def _count(n: float) -> str:
    """1234567 as 1.2M."""
    for size, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return f"{n:.0f}"


def _bytes(n: int) -> str:
    for size, unit in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
        if n >= size:
            return f"{n / size:.0f} {unit}"
    return f"{n} B"


def _number(x: float) -> str:
    return f"{x:+g}" if x else "0"


def elapsed_status(what: str | Callable[[], str]) -> Callable[[], RenderableType]:
    """A renderer of work that reports nothing but its time: a spinner, ``what`` (or what it
    returns now: the stage of the work) and the seconds."""
    import time

    began = time.perf_counter()
    spinner = _spinner()

    def render() -> RenderableType:
        shown = spinner()
        shown.text = f"{what if isinstance(what, str) else what()} · {time.perf_counter() - began:.1f} s"
        return shown

    return render


def _spinner() -> Callable[[], Spinner]:
    """A renderer's spinner, made when first shown: a command that shows no progress (``--json``, not a
    terminal) does not import rich's spinner and tables (about 20 ms of a short process's start-up)."""
    made: list[Spinner] = []

    def spinner() -> Spinner:
        if not made:
            from rich.spinner import Spinner

            made.append(Spinner("dots"))
        return made[0]

    return spinner


def text_status(text: Callable[[], str]) -> Callable[[], RenderableType]:
    """A renderer of work that says itself what it is doing: a spinner and ``text()``."""
    spinner = _spinner()

    def render() -> RenderableType:
        shown = spinner()
        shown.text = text()
        return shown

    return render


def solve_text(progress: SolveProgress) -> str:
    """A running solve in one line: what it is doing, elapsed time, nodes, nodes per second, the
    score's window proven so far or the move being scored, the table's memory and the engine."""
    seconds = progress.elapsed()
    nodes = progress.nodes()
    facts = [f"{seconds:.1f} s", f"{_count(nodes)} nodes", f"{_count(nodes / seconds if seconds > 0 else 0)}/s"]
    phase = progress.phase
    from .search import compile_state

    compile_now = compile_state.now()
    if compile_now is not None and progress.engine != "python":  # (a search on Python does not wait on it)
        return compile_now.text()
    if phase == "moves":
        what = f"scoring moves {len(progress.scored)}/{progress.total}" + (
            f" ({progress.current})" if progress.current else ""
        )
    elif phase in _PHASES:
        what = _PHASES[phase]
    else:
        what = "proving the value"
        if math.isfinite(progress.low) and math.isfinite(progress.high):
            facts.append(f"score in [{_number(progress.low)}, {_number(progress.high)}]")
    table = progress.table_bytes()
    if table:
        facts.append(f"table {_bytes(table)}")
    if progress.engine:
        facts.append(progress.engine)
    return f"{what} · {' · '.join(facts)}"


_PHASES = {
    "lines": "following the lines of play",
    "heuristic": "no proof in time: a best guess",
    "playouts": "playing out random games",
    "done": "done",
}


def solve_status(progress: SolveProgress) -> Callable[[], RenderableType]:
    """A renderer of a running solve: a spinner and :func:`solve_text`."""
    spinner = _spinner()

    def render() -> RenderableType:
        from rich.table import Table

        grid = Table.grid(padding=(0, 1))
        grid.add_row(spinner(), solve_text(progress))
        return grid

    return render
