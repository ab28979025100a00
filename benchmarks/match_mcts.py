"""A match on 7x6 Connect Four: the ``mcts`` player (1 s a move) against ``hard``.

    python benchmarks/match_mcts.py                      # 50 games, each side plays first 25 times
    python benchmarks/match_mcts.py --games 10 --seconds 0.5 --log match.jsonl

Issue 6 asks that ``mcts`` win more games than it loses.  Games alternate
colours (game 1: mcts is Red and moves first).  One line per game goes to
standard output (and to ``--log`` as JSON), then the tally.  It takes a while:
about 50 games x 20 mcts moves x 1 s.  Time-limited search depends on the
machine's speed and load, so two runs need not agree move for move.

Measured (2 shared CPUs, 50 games, 10.6 min): mcts 36 wins, hard 7 wins, 7 draws;
as Red 18 wins, 0 losses, 7 draws; as Yellow 18 wins, 7 losses.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=1.0, help="mcts time per move")
    parser.add_argument("--opponent", default="hard", help="a registered player name")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--log", default=None, help="append one JSON line per game here")
    args = parser.parse_args(argv)

    from gametree import load
    from gametree.search.montecarlo import MCTSPlayer

    registry = load()
    game = registry.game("connect4").create(width=7, height=6)
    rng = random.Random(args.seed)
    tally = {"mcts": 0, args.opponent: 0, "draw": 0}
    by_colour = {"mcts first": [0, 0, 0], "mcts second": [0, 0, 0]}  # wins, losses, draws of mcts
    log = open(args.log, "a", encoding="utf-8") if args.log else None
    start = time.perf_counter()
    for number in range(1, args.games + 1):
        mcts = MCTSPlayer(args.seconds)
        other = registry.players[args.opponent]()
        mcts_side = (number - 1) % 2
        players = (mcts, other) if mcts_side == 0 else (other, mcts)
        state = game.initial_state()
        moves = []
        think = [0.0, 0.0]
        while (out := game.outcome(state)) is None:
            side = game.to_move(state)
            t = time.perf_counter()
            move = players[side].choose(game, state, rng)
            think[side] += time.perf_counter() - t
            moves.append(game.format_move(state, move))
            state = game.play(state, move)
        if out.winner is None:
            result, slot = "draw", 2
        elif out.winner == mcts_side:
            result, slot = "mcts", 0
        else:
            result, slot = args.opponent, 1
        tally[result] += 1
        by_colour["mcts first" if mcts_side == 0 else "mcts second"][slot] += 1
        line = {
            "game": number,
            "mcts_plays": "Red (first)" if mcts_side == 0 else "Yellow (second)",
            "winner": result,
            "moves": "".join(moves),
            "mcts_seconds": round(think[mcts_side], 1),
            "opponent_seconds": round(think[1 - mcts_side], 1),
        }
        print(
            f"game {number:2d}: mcts {line['mcts_plays']:15s} -> {result:5s} in {len(moves)} moves {line['moves']}",
            flush=True,
        )
        if log is not None:
            log.write(json.dumps(line) + "\n")
            log.flush()
    minutes = (time.perf_counter() - start) / 60
    print(
        f"\n{args.games} games on 7x6 Connect Four, mcts {args.seconds:g} s/move vs {args.opponent}, {minutes:.1f} min"
    )
    print(f"tally: mcts {tally['mcts']} wins, {args.opponent} {tally[args.opponent]} wins, {tally['draw']} draws")
    for colour, (won, lost, drawn) in by_colour.items():
        print(f"  {colour}: {won} wins, {lost} losses, {drawn} draws")
    if log is not None:
        log.close()
    return 0 if tally["mcts"] > tally[args.opponent] else 1


if __name__ == "__main__":
    sys.exit(main())
