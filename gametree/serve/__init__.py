"""``gametree serve``: the web application for playing and analysing any installed game.

- :mod:`.requests`: the API's requests, parsed into typed dataclasses (every field checked);
- :mod:`.positions`: games made from requests, and positions as plain data (board SVG, moves);
- :mod:`.work`: the searches as jobs for worker processes (values, computer moves, trees);
- :mod:`.pool`: the worker processes, with deadlines and cancellation, driven from the event loop;
- :mod:`.app`: the Starlette application (routes, errors), and ``static/`` the page.

See docs/web.md.
"""

from __future__ import annotations

from .app import make_app
from .work import WorkerSetup

__all__ = ["WorkerSetup", "make_app"]
