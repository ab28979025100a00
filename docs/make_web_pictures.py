"""The pictures of docs/web.md: the page of ``gametree serve`` in headless Chromium.

    python docs/make_web_pictures.py   # rewrite docs/img/web-connect4.png and docs/img/web-nim.png

Starts ``gametree serve --no-store`` on a free port, opens two positions by their address (the
page keeps the position there) with Playwright in the distribution's Chromium
(:func:`gametree.tree.headless.chromium`), waits until the page says it is settled
(``body[data-ready=true]``) and photographs it.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

from gametree.tree.headless import CHROMIUM_FLAGS, chromium

IMG = Path(__file__).parent / "img"
#: (file, address query, window size)
PICTURES = (
    (
        "web-connect4.png",
        {
            "game": "connect4",
            "options": json.dumps({"width": 6, "height": 5}),
            "moves": "3 4 3 3 4",
            "seats": "human,perfect",
            "budget": "3",
        },
        (1000, 560),
    ),
    ("web-nim.png", {"game": "nim", "moves": "1:2 3:1", "seats": "human,perfect"}, (1000, 440)),
)


def _server() -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "gametree", "serve", "--port", str(port), "--no-store", "--workers", "2"]
    process = subprocess.Popen(command)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            with urllib.request.urlopen(url + "/health", timeout=1):
                return process, url
        except OSError:
            time.sleep(0.1)
    process.terminate()
    raise SystemExit("gametree serve did not start")


def main() -> None:
    from playwright.sync_api import sync_playwright

    process, url = _server()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium(), args=list(CHROMIUM_FLAGS))
            for name, query, (width, height) in PICTURES:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(f"{url}/?{urllib.parse.urlencode(query)}")
                page.wait_for_selector("body[data-ready=true]", timeout=120_000)
                page.screenshot(path=str(IMG / name))
                print(f"wrote {IMG / name}")
            browser.close()
    finally:
        process.terminate()
        process.wait(10)


if __name__ == "__main__":
    main()
