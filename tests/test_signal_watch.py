"""The runtime's signal watch (gametree.runtime.signals): a stop signal reaches the work running when it
came, and only that work, even when the watching thread runs late (a loaded machine)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest

from gametree.runtime.signals import watch


@pytest.fixture
def quiet_sigint() -> Iterator[None]:
    """SIGINT handled by a Python handler that raises nothing (the watch still sees it)."""
    assert watch().start(), "the signal watch runs in the main thread"
    previous = signal.signal(signal.SIGINT, lambda number, frame: None)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_signal_reaches_the_work_running_when_it_came(quiet_sigint: None) -> None:
    called = threading.Event()
    with watch().stopping(called.set):
        os.kill(os.getpid(), signal.SIGINT)
        assert called.wait(5)


def test_a_signal_passed_on_late_does_not_stop_work_that_started_after_it(quiet_sigint: None) -> None:
    # Work that takes its stop slowly keeps the watching thread busy; a second signal then waits
    # in the wake-up file.  Work registered after that signal came must not be stopped by it.
    signals, registered, busy, done = watch(), threading.Event(), threading.Event(), threading.Event()

    def slow_stop() -> None:
        busy.set()
        time.sleep(0.3)

    def other_work() -> None:
        with signals.stopping(slow_stop):
            registered.set()
            done.wait(10)

    other = threading.Thread(target=other_work, daemon=True)
    other.start()
    assert registered.wait(5)
    os.kill(os.getpid(), signal.SIGINT)
    assert busy.wait(5)
    os.kill(os.getpid(), signal.SIGINT)  # while the watch is busy passing on the first
    stopped = threading.Event()
    with signals.stopping(stopped.set):
        time.sleep(0.8)  # both signals are passed on by now
    done.set()
    other.join(5)
    assert not stopped.is_set()


def test_the_watch_takes_the_wakeup_file_back_once_an_asyncio_loop_left_it_empty(quiet_sigint: None) -> None:
    # An asyncio loop in the main thread (a web server's, a browser driver's) sets the wake-up file
    # while it has signal handlers and leaves it empty when it closes: a later search is watched again.
    import asyncio

    loop = asyncio.new_event_loop()
    loop.add_signal_handler(signal.SIGUSR1, lambda: None)
    loop.remove_signal_handler(signal.SIGUSR1)
    loop.close()
    assert signal.set_wakeup_fd(-1) == -1  # (left empty, as the loop leaves it)
    assert watch().start()
    called = threading.Event()
    with watch().stopping(called.set):
        os.kill(os.getpid(), signal.SIGINT)
        assert called.wait(5)


def test_someone_elses_wakeup_file_is_left_alone(quiet_sigint: None) -> None:
    read, write = os.pipe()
    os.set_blocking(write, False)
    ours = signal.set_wakeup_fd(write)
    try:
        assert not watch().start()
        assert signal.set_wakeup_fd(write) == write  # still theirs
    finally:
        signal.set_wakeup_fd(ours)
        os.close(read)
        os.close(write)
    assert watch().start()
