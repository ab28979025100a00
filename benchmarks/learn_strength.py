"""How the ``learned`` player's strength grows with the number of random games it learned from.

    python benchmarks/learn_strength.py                       # 3x3 tic-tac-toe, N = 10 .. 100,000
    python benchmarks/learn_strength.py --sizes 100 1000 --games 100

For each N, learns a table from N random games (seed 0), then plays matches
against ``random`` and ``perfect``, half the games as X (first) and half as O,
and prints a Markdown table of the learned player's wins, draws and losses.
The figures are in docs/learning.md.
"""

from __future__ import annotations

import argparse
import sys
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1_000, 10_000, 100_000])
    parser.add_argument("--games", type=int, default=200, help="games against each opponent (half as X, half as O)")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)

    from gametree import load
    from gametree.learn import LearnedPlayer, learn
    from gametree.play import play_match

    registry = load()
    game = registry.game("tictactoe").create(size=3)
    half = args.games // 2
    print(
        "| random games learned | positions | vs random as X (W/D/L) | vs random as O"
        " | vs perfect as X | vs perfect as O | learn s |"
    )
    print("|---:|---:|---|---|---|---|---:|")
    for n in args.sizes:
        start = time.perf_counter()
        table = learn(game, games=n, seed=0, workers=args.workers)
        seconds = time.perf_counter() - start
        cells = []
        for opponent in ("random", "perfect"):
            for side in (0, 1):
                learned, other = LearnedPlayer(table), registry.players[opponent]()
                players = (learned, other) if side == 0 else (other, learned)
                result = play_match(game, players, games=half, seed=1000 + side)
                won, lost = result.wins[side], result.wins[1 - side]
                cells.append(f"{won}/{result.draws}/{lost}")
        print(f"| {n:,} | {len(table.positions):,} | {' | '.join(cells)} | {seconds:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
