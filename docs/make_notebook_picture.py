"""The picture of a notebook in docs/getting-started.md: a position drawn as SVG and its solve.

    python docs/make_notebook_picture.py   # rewrite docs/img/notebook-position.png

The cells show exactly what Jupyter shows (a ``Position``'s ``_repr_html_``, a
``SearchResult``'s), laid out as two notebook cells and photographed by headless
Chromium (:func:`gametree.tree.headless.chromium`).
"""

from __future__ import annotations

import html
import subprocess
import tempfile
from pathlib import Path

from gametree import Position
from gametree.tree.headless import CHROMIUM_FLAGS, chromium

OUT = Path(__file__).parent / "img" / "notebook-position.png"
CELL = (
    '<div style="display:flex;gap:1em;margin:0.6em 0"><div style="color:#303f9f;width:5em;text-align:right">{prompt}'
    '</div><div style="flex:1">{body}</div></div>'
)


def _cell(prompt: str, body: str) -> str:
    return CELL.format(prompt=prompt, body=body)


def _code(text: str) -> str:
    style = "background:#f5f5f5;border:1px solid #e0e0e0;padding:0.4em;font-family:monospace"
    return f'<pre style="{style}">{html.escape(text)}</pre>'


def main() -> None:
    p = Position.of("connect4", "4 4 3 3 2 5 6 3", width=7, height=6)
    result = p.solve(store=None, show=False)  # (the compiled engine: every move scored in time)
    cells = [
        _cell("In [1]:", _code('from gametree import Position\np = Position.of("connect4", "4 4 3 3 2 5 6 3")\np')),
        _cell("Out[1]:", p._repr_html_()),
        _cell("In [2]:", _code("p.solve()")),
        _cell("Out[2]:", result._repr_html_()),
    ]
    page = f'<html><body style="font-family:sans-serif;font-size:13px;margin:1em">{"".join(cells)}</body></html>'
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "notebook.html"
        source.write_text(page, encoding="utf-8")
        subprocess.run(
            [chromium(), "--headless", *CHROMIUM_FLAGS, f"--screenshot={OUT}", "--window-size=760,720"]
            + [source.as_uri()],
            check=True,
            capture_output=True,
            timeout=120,
        )
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
