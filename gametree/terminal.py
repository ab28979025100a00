"""The terminal a game is played at: text and boards shown, lines read, rich when it fits.

:class:`Terminal` writes lines, board rows and prompts and reads typed lines:
styled with rich on a terminal, plain text when output is not a terminal or
``NO_COLOR`` is set (:func:`wants_color`); rich is imported only when it is used.
:func:`board_rows` lays out a board game's position as rows of ``(text, style)``
pieces from the optional members the game offers (the
:class:`~gametree.game.BoardView` capability):

- ``row_labels`` and ``column_labels`` (top row and left column first);
- ``board_cells(state)``: rows of cells, each ``""`` or a player's name;
- ``move_cell(state_before, move)``: the (row, column) a move marks;
- ``winning_cells(state)``: the cells of the completed line(s), else ``()``.

What is played there, and when, is :class:`gametree.session.Session`'s job.
"""

from __future__ import annotations

import os
import queue
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO, TypeVar

from .game import Game, M, S, UnsupportedGameError, capabilities, game_name
from .play import PlayError

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

__all__ = [
    "EMPTY",
    "LABEL",
    "LAST",
    "WIN",
    "BoardRow",
    "Terminal",
    "board_rows",
    "player_style",
    "wants_color",
]

T = TypeVar("T")

#: Style names used in board rows; the terminal maps them to rich styles.
LABEL, EMPTY, LAST, WIN = "label", "empty", "last", "win"

#: One row of a drawn board: pieces of text, each with its style name (None: unstyled).
BoardRow = list[tuple[str, str | None]]

_NAMED_COLOURS = {"red", "yellow", "blue", "green", "white", "black", "cyan", "magenta"}
_PLAYER_STYLES = ("bold bright_cyan", "bold bright_magenta", "bold bright_yellow", "bold bright_green")


def _marks(names: tuple[str, ...]) -> dict[str, str]:
    """Short marks for player names: the names themselves if short, else first letters."""
    if max(len(n) for n in names) <= 2 or len({n[0] for n in names}) < 2:
        return {n: n for n in names}
    return {n: n[0] for n in names}


def board_rows(
    game: Game[S, M],
    state: S,
    *,
    last: tuple[int, int] | None = None,
    winning: Sequence[tuple[int, int]] = (),
    plain: bool = True,
) -> list[BoardRow]:
    """The board as rows of ``(text, style)`` pieces, labels on top and left.

    ``style`` is None, ``"label"``, ``"empty"``, ``"last"``, ``"win"`` or
    ``"player0"``/``"player1"``.  With ``plain`` the last move is marked
    ``[X]`` and winning cells ``*X*`` so they show without colour.  A game
    that is no :class:`~gametree.game.BoardView` is an
    :class:`~gametree.game.UnsupportedGameError`.
    """
    board = capabilities(game).board
    if board is None:
        raise UnsupportedGameError(f"{game_name(game)} has no board to draw (see gametree.game.BoardView)")
    names = game.info.player_names
    marks = _marks(names)
    cols, rows_l = list(board.column_labels), list(board.row_labels)
    cells = board.board_cells(state)
    width = max([len(label) for label in cols] + [len(m) for m in marks.values()]) + 2
    label_width = max((len(r) for r in rows_l), default=0)
    win = set(winning)
    out: list[BoardRow] = []
    header: BoardRow = [(" " * (label_width + 1), None)]
    for i, column in enumerate(cols):
        header.append(((" " if i else "") + column.center(width), LABEL))
    out.append(header)
    for r, row in enumerate(cells):
        pieces: BoardRow = [(rows_l[r].rjust(label_width), LABEL), (" ", None)]
        for c, cell in enumerate(row):
            if c:
                pieces.append((" ", None))
            mark = marks.get(cell, cell) if cell else "."
            style: str | None
            if (r, c) in win:
                text, style = (f"*{mark}*" if plain else f" {mark} ").center(width), WIN
            elif (r, c) == last:
                text, style = (f"[{mark}]" if plain else f" {mark} ").center(width), LAST
            else:
                text = f" {mark} ".center(width)
                style = EMPTY if not cell else f"player{names.index(cell)}" if cell in names else None
            pieces.append((text, style))
        out.append(pieces)
    return out


def player_style(names: tuple[str, ...], index: int) -> str:
    """The rich style of player ``index``'s marks: its name when that is a colour, else a bright default."""
    name = names[index].lower()
    return f"bold {name}" if name in _NAMED_COLOURS else _PLAYER_STYLES[index % len(_PLAYER_STYLES)]


def wants_color(stream: TextIO) -> bool:
    """Styled output: the stream is a terminal, ``NO_COLOR`` is unset and ``TERM`` is not ``dumb``."""
    return _isatty(stream) and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


class Terminal:
    """Where a game is shown and moves are typed: rich on a terminal, else plain text.

    ``interactive`` means input comes from a person at a terminal; when input
    is piped, each line read is echoed so the transcript reads like a session.

    Notices from other threads (a background compile's: :meth:`post`) wait in a queue and are
    written to ``notices`` (default: standard error) before the terminal's next line, board,
    prompt or live line, so that they never land inside a prompt and what is typed after it.
    """

    def __init__(
        self,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        *,
        fancy: bool | None = None,
        notices: TextIO | None = None,
    ) -> None:
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        self.fancy = wants_color(self.stdout) if fancy is None else fancy
        self.interactive = _isatty(self.stdin)
        self.watching = _isatty(self.stdout)
        self._console: Console | None = None
        self._notices_to = notices
        self._waiting: queue.SimpleQueue[str] = queue.SimpleQueue()

    def post(self, text: str) -> None:
        """A notice, from any thread: shown before the terminal writes anything next (see the class)."""
        self._waiting.put(text)

    def show_notices(self) -> None:
        """Write the notices posted so far (see the class); this thread only writes to the terminal."""
        while True:
            try:
                text = self._waiting.get_nowait()
            except queue.Empty:
                return
            stream = self._notices_to if self._notices_to is not None else sys.stderr
            stream.write(text + "\n")
            stream.flush()

    @property
    def console(self) -> Console:
        """The rich console on :attr:`stdout`, made on first use (rich is imported then)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(file=self.stdout, highlight=False, emoji=False, soft_wrap=True)
        return self._console

    def say(self, text: str = "", style: str | None = None) -> None:
        """Write one line (or several), in ``style`` on a styled terminal."""
        self.show_notices()
        # A line longer than the terminal is broken between words (the terminal would break it
        # mid-word): by rich (soft_wrap=False), or by textwrap on a terminal without colours.
        if self.fancy:
            self.console.print(text, style=style, markup=False, soft_wrap=False)
        else:
            if self.watching:
                import shutil
                import textwrap

                width = shutil.get_terminal_size().columns
                lines = text.split("\n")
                indents = [" " * (len(line) - len(line.lstrip())) for line in lines]
                text = "\n".join(
                    textwrap.fill(line, width, subsequent_indent=indent, break_on_hyphens=False)
                    if len(line) > width
                    else line
                    for line, indent in zip(lines, indents)
                )
            self.stdout.write(text + "\n")
            self.stdout.flush()

    def show_rows(self, rows: Sequence[BoardRow], styles: dict[str, str]) -> None:
        """Write board rows (:func:`board_rows`), each piece in ``styles[its style name]`` when styled."""
        self.show_notices()
        if not self.fancy:
            for row in rows:
                self.stdout.write("".join(text for text, _ in row).rstrip() + "\n")
            self.stdout.flush()
            return
        from rich.text import Text

        for row in rows:
            line = Text()
            for text, style in row:
                line.append(text, style=styles.get(style, "") if style else "")
            self.console.print(line)

    def ask(self, prompt: str) -> str:
        """One line of input; ``EOFError`` at end of input, ``KeyboardInterrupt`` on Ctrl-C,
        ``PlayError`` for input that is not text in the stream's encoding."""
        self.show_notices()
        if self.fancy:
            self.console.print(prompt, end="", style="bold", markup=False)
        else:
            self.stdout.write(prompt)
            self.stdout.flush()
        try:
            if self.interactive and self.stdin is sys.stdin:
                return input()
            line = self.stdin.readline()
        except UnicodeDecodeError as exc:  # bytes that are not text under strict decoding
            self.stdout.write("\n")  # end the prompt's line
            self.stdout.flush()
            raise PlayError(f"cannot read the input: {exc}") from None
        if not line:
            raise EOFError
        self.stdout.write(line if line.endswith("\n") else line + "\n")  # echo piped input
        self.stdout.flush()
        return line.rstrip("\r\n")

    def think(self, work: Callable[[], T], message: str, status: Callable[[], RenderableType] | None = None) -> T:
        """Run ``work``; on a styled terminal, if it takes over half a second, show ``status()``
        (default: a spinner, ``message`` and the seconds) until it ends.  The work runs in this
        thread: Ctrl-C stops it (and raises KeyboardInterrupt here) at once."""
        self.show_notices()
        if not self.fancy:
            return work()
        from .live import elapsed_status, live

        with live(status or elapsed_status(message), True, console=self.console):
            return work()

    def pause(self, seconds: float) -> None:
        """Wait ``seconds`` (so that a person can watch a move)."""
        if seconds > 0:
            time.sleep(seconds)
