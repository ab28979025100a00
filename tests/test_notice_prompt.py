"""A background compile's notice never breaks a prompt line (issue 34): it is said from another
thread (:mod:`gametree.search.background`), and while ``gametree play`` waits at a person's prompt
it waits for the terminal's next line instead of landing between the prompt and what is typed.

The terminal here is a fake one: standard output and standard error are one stream, as on a
terminal, and the notice is posted while the person's line is being read (the threads wait on
events, not on the clock)."""

from __future__ import annotations

import io
import sys
import threading

import pytest

from gametree.search import compile_state
from gametree.session import Seat, Session
from gametree.terminal import Terminal

NOTICE = "compiling the engine for 3x3 tic-tac-toe, once: about 20 s"


class PromptedInput(io.StringIO):
    """Typed lines; while the ``at``-th is read, ``reading`` is set and the line is given only once
    ``posted`` is (a notice came from another thread in the meantime)."""

    def __init__(self, text: str, at: int = 1) -> None:
        super().__init__(text)
        self.at, self.reads = at, 0
        self.reading, self.posted = threading.Event(), threading.Event()

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        self.reads += 1
        if self.reads == self.at:
            self.reading.set()
            assert self.posted.wait(10), "no notice was posted"
        return super().readline(size)


def _notice_while_reading(typed: PromptedInput) -> threading.Thread:
    """A thread that says ``NOTICE`` as a compile does, while the person types their line."""

    def compile_starts() -> None:
        typed.reading.wait(10)
        compile_state.notify(NOTICE)
        typed.posted.set()

    thread = threading.Thread(target=compile_starts, daemon=True)
    thread.start()
    return thread


def _play(registry, typed: PromptedInput, monkeypatch: pytest.MonkeyPatch) -> tuple[Session, str]:
    screen = io.StringIO()
    monkeypatch.setattr(sys, "stderr", screen)  # one screen: what goes to standard error lands among the lines
    game = registry.game("tictactoe").create(size=3)
    seats = (Seat("human", registry.players["human"]()), Seat("random", registry.players["random"]()))
    thread = _notice_while_reading(typed)
    session = Session(game, seats, Terminal(typed, screen, fancy=False), seed=3)
    session.play_games()
    thread.join(10)
    return session, screen.getvalue()


def test_a_notice_posted_at_a_prompt_waits_for_the_next_line(registry, monkeypatch: pytest.MonkeyPatch) -> None:
    session, text = _play(registry, PromptedInput("B2\nquit\n"), monkeypatch)
    lines = text.splitlines()
    assert session.ended == "quit"
    assert "X to move: B2" in lines, text  # the prompt and the typed move on one line, unbroken
    assert lines.count(NOTICE) == 1, text  # the notice on a line of its own, once
    typed, notice = lines.index("X to move: B2"), lines.index(NOTICE)
    assert notice == typed + 1, text  # shown as soon as the terminal writes again
    assert lines.index("X to move: quit") > notice, text  # before the next prompt


def test_a_notice_posted_at_the_last_prompt_is_still_shown(registry, monkeypatch: pytest.MonkeyPatch) -> None:
    session, text = _play(registry, PromptedInput("quit\n"), monkeypatch)
    lines = text.splitlines()
    assert session.ended == "quit" and "X to move: quit" in lines, text
    assert lines.index(NOTICE) > lines.index("X to move: quit"), text
    assert compile_state.notify is not None and compile_state.notify.__name__ == "_to_stderr"  # routing undone


def test_notices_are_shown_in_the_order_posted_and_only_by_the_terminal() -> None:
    screen, notices = io.StringIO(), io.StringIO()
    ui = Terminal(io.StringIO("x\n"), screen, fancy=False, notices=notices)
    posters = [threading.Thread(target=ui.post, args=(f"notice {i}",)) for i in range(3)]
    for poster in posters:
        poster.start()
        poster.join()
    assert notices.getvalue() == ""  # posted: nothing written from the posting threads
    assert ui.ask("move: ") == "x"
    assert notices.getvalue() == "notice 0\nnotice 1\nnotice 2\n" and screen.getvalue() == "move: x\n"
