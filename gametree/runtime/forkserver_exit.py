"""Imported by the fork server of gametree's worker processes only: at its exit, the ``pymp-*`` folder.

The fork server of ``multiprocessing`` listens on a socket in the ``pymp-*`` folder of the
command that started it, which that command removes when it ends.  A command killed with SIGKILL
removes nothing; its fork server exits once the command and its workers are gone (see
:mod:`gametree.runtime.lifeline`), and this module, which it imports first (a preloaded module),
then removes that folder.  Importing it registers the exit handler; in any other process (one
that started a fork server itself, or none) the handler does nothing.
"""

from __future__ import annotations

import atexit
import os
import shutil
from multiprocessing import forkserver

__all__ = ["remove_parent_folder"]


def remove_parent_folder() -> None:
    """In a fork server: remove the ``pymp-*`` folder its socket is in (ignoring errors: the
    command that made it may have removed it already)."""
    server = getattr(forkserver, "_forkserver", None)
    address = getattr(server, "_forkserver_address", None)
    if not isinstance(address, str) or getattr(server, "_forkserver_pid", None) is not None:
        return  # not a fork server (this process started one, or none)
    folder = os.path.dirname(address)
    if os.path.basename(folder).startswith("pymp-"):
        shutil.rmtree(folder, ignore_errors=True)


atexit.register(remove_parent_folder)
