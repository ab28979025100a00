"""Where the explorer's pages are opened in a browser without a screen: the distribution's Chromium.

The browser tests, the docs' screenshots and the explorer's benchmark drive it through
Playwright (Playwright's own browser download needs the internet, which CI machines lack).
``GAMETREE_CHROMIUM`` names another executable.
"""

from __future__ import annotations

import os

__all__ = ["CHROMIUM_FLAGS", "chromium"]

#: The flags that work in a container without a GPU or network (Playwright adds --headless): without
#: the background-networking ones Chromium keeps trying to reach Google's hosts.
CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium() -> str:
    """The Chromium executable to drive: ``$GAMETREE_CHROMIUM``, else the distribution's ``/usr/bin/chromium``."""
    return os.environ.get("GAMETREE_CHROMIUM", "/usr/bin/chromium")
