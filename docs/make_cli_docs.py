"""Regenerate docs/cli.md from the commands' own --help texts.

    python docs/make_cli_docs.py          # rewrite docs/cli.md
    python docs/make_cli_docs.py --check  # exit 1 if docs/cli.md is out of date

The page documents every command of the root group; commands that are groups over games
(solve, play, tree, ...) are shown with their own help and with the tic-tac-toe subcommand
as the example, since each game adds its own options.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from click.testing import CliRunner

from gametree.cli import GameGroup, cli

PAGE = Path(__file__).with_name("cli.md")
EXAMPLE_GAME = "tictactoe"

INTRO = """# The command line

This page is generated from the commands' `--help` by `docs/make_cli_docs.py`; a test checks
that it is up to date. Each game adds its own options to `solve`, `play` and `tree`: see
`gametree solve GAME --help`, and `gametree games` for the installed games and their options.

Errors in what you type (an unknown game, a bad option, an illegal or malformed move, an
unreadable file) print one line starting with `Error:` and exit with a non-zero status.
"""


def help_text(args: list[str]) -> str:
    result = CliRunner().invoke(cli, [*args, "--help"], prog_name="gametree", terminal_width=88)
    if result.exit_code != 0:
        raise SystemExit(f"gametree {' '.join(args)} --help failed: {result.output}")
    return result.output.rstrip() + "\n"


def render() -> str:
    parts = [INTRO, "## gametree\n", "```text\n" + help_text([]) + "```\n"]
    ctx = click.Context(cli, info_name="gametree")
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        parts.append(f"## gametree {name}\n")
        parts.append("```text\n" + help_text([name]) + "```\n")
        if isinstance(command, GameGroup):
            parts.append(f"### gametree {name} {EXAMPLE_GAME}\n")
            parts.append("```text\n" + help_text([name, EXAMPLE_GAME]) + "```\n")
    return "\n".join(parts)


def main() -> None:
    text = render()
    if "--check" in sys.argv[1:]:
        if not PAGE.exists() or PAGE.read_text() != text:
            print(f"{PAGE} is out of date: run python docs/make_cli_docs.py", file=sys.stderr)
            raise SystemExit(1)
        return
    PAGE.write_text(text)
    print(f"wrote {PAGE}")


if __name__ == "__main__":
    main()
