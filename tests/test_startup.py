"""Start-up stays light: the CLI module does not import heavy libraries."""

import subprocess
import sys


def test_cli_import_is_light():
    code = (
        "import sys, gametree.cli; heavy = [m for m in ('networkx', 'graphviz', 'rich') if m in sys.modules];"
        " print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_solve_does_not_import_diagram_libraries():
    code = (
        "import sys\n"
        "from gametree.cli import main\n"
        "try:\n    main(['solve', 'tictactoe', '--json'])\n"
        "except SystemExit:\n    pass\n"
        "print([m for m in ('networkx', 'graphviz', 'gametree.tree') if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"  # the tree capture loads when a tree is asked for
