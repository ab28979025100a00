"""Worker processes die with the process that started them, even when it is killed outright.

A command killed with SIGKILL (the out-of-memory killer, ``kill -9``) runs no clean-up: its pool's
workers kept searching for ever, and the ``pymp-*`` folder of ``multiprocessing`` stayed in the
temporary folder.  Three things end them instead, quietly:

- :func:`die_with_parent`, run first in each worker: a thread waits on the worker's end of the pipe
  its parent wrote its work description into (``multiprocessing.parent_process().sentinel``), which
  the system closes when the parent dies, and then ends the worker at once with ``os._exit`` (no
  traceback, no clean-up that could write to a pipe nobody reads).  The compiled search releases
  the GIL, so the thread runs during it too.  On Linux the worker also asks for SIGKILL when the
  process that forked it dies (``prctl(PR_SET_PDEATHSIG)``; that is the command itself with the
  ``spawn`` start method, the fork server with ``forkserver``).  A parent already gone when the
  worker starts ends it at once.
- :mod:`gametree.runtime.forkserver_exit`, preloaded by the fork server: when the command is gone
  (and so are its workers) the fork server exits, and removes the command's ``pymp-*`` folder on
  its way out.
- :func:`quiet_resource_tracker`: the resource tracker of ``multiprocessing`` frees the
  semaphores of a killed command's pool and warns that they "leaked"; that warning is expected
  after a kill and says nothing to the user, so the tracker is started with it silenced.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading

__all__ = ["RESOURCE_TRACKER_WARNINGS", "die_with_parent", "quiet_resource_tracker"]

#: The ``-W`` option that silences the resource tracker's warnings (all begin "resource_tracker"),
#: given to the processes ``multiprocessing`` starts.
RESOURCE_TRACKER_WARNINGS = "ignore:resource_tracker:UserWarning"

#: Linux's ``prctl`` option that sends a signal to a process when the one that forked it dies.
_PR_SET_PDEATHSIG = 1


def _ask_for_death_signal() -> None:
    """On Linux, SIGKILL for this process when its parent dies (nothing elsewhere, or if it fails)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


def _watch(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(0)  # the parent is gone: nobody is left to take the answer


def die_with_parent() -> None:
    """End this worker process as soon as the process that started it dies (see the module)."""
    _ask_for_death_signal()
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return
    if not parent.is_alive():  # it died before the death signal was set up
        os._exit(0)
    threading.Thread(target=_watch, args=(parent.sentinel,), name="gametree-lifeline", daemon=True).start()


def quiet_resource_tracker() -> None:
    """Start the processes of ``multiprocessing`` (its resource tracker first) with
    :data:`RESOURCE_TRACKER_WARNINGS`: a tracker running already keeps its warnings."""
    if RESOURCE_TRACKER_WARNINGS not in sys.warnoptions:
        sys.warnoptions.append(RESOURCE_TRACKER_WARNINGS)
