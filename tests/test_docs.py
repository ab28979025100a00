"""The generated CLI reference stays in sync with the commands."""

import subprocess
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_cli_reference_is_up_to_date():
    out = subprocess.run(
        [sys.executable, str(DOCS / "make_cli_docs.py"), "--check"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr


def test_every_docs_page_is_linked_from_the_readme():
    readme = (DOCS.parent / "README.md").read_text()
    for page in DOCS.glob("*.md"):
        assert f"docs/{page.name}" in readme, page.name
