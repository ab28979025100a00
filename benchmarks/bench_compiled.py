"""The compiled engine (numba) beside BitBully, a C++ Connect Four solver, measured side by side in one run.

Run from the repository root::

    python benchmarks/bench_compiled.py             # everything (one to two minutes)
    python benchmarks/bench_compiled.py --quick     # one run of each, 10 random positions, three boards (about 15 s)
    python benchmarks/bench_compiled.py --skip-boards --positions 100 --seed 3

It needs numba (the compiled engine) and ``bitbully`` (PyPI; in the
``compare`` extra), and measures three things:

1. Pons's 7x6 test sets, whole process.  ``gametree solve connect4 --batch FILE
   --json --no-store`` (the default solution store would answer from what an
   earlier run proved) with ``--engine compiled``, with the default ``auto`` and, as it is
   quick there, with ``--engine python``; beside it a BitBully process (a small
   script run with ``sys.executable -c``) reading the same file and solving each
   position with ``mtdf``.  Both keep their table for the whole set (BitBully's
   node counter is reset per position, its table is not).  Each runs
   ``--repeat`` times (3 by default, 1 with ``--quick``), the four commands in
   turn in each round so that a slow spell of the machine falls on all of them;
   the best run's wall time is reported (as :mod:`timeit` takes the fastest)
   and the slowest beside it.  Every answer is checked against Pons's score.
   "search ms" is the mean search time per position (ours: the ``seconds`` of
   the JSON lines; BitBully: a clock around ``mtdf``), "nodes" the mean nodes
   per position.  The ratios are ours / BitBully (above 1: ours is slower).
2. Random 7x6 positions with 12 to 24 stones (``--positions``, 40 by default,
   10 with ``--quick``; seed ``--seed``): random legal moves from the empty
   board, rejecting positions already over, positions where the side to move
   can win at once, and repeats.  Each engine solves all of them in one
   process, each position from scratch: ours with a fresh
   ``Solver(game, engine="compiled")`` per position (its engine built before
   the clock starts; its table, sized for the position, is allocated by the
   first search, inside the clock), BitBully after
   ``reset_transposition_table()`` (outside the clock).  The two do not pay
   for a fresh table alike: BitBully zeroes the table it has (tens of ms a
   reset, outside the clock, printed apart), ours maps new memory, whose pages
   fault in as the search first touches them (inside the clock: more than
   half the time of a search of up to a few hundred thousand nodes; a
   position of 45,000 nodes took 52 ms so, 8.5 ms in a table already
   mapped).  So the same positions are solved a second way too, with one
   table kept across them (ours one Solver for all, BitBully no reset), where
   neither pays for a new table but a position may find entries of earlier
   ones.  Each process first solves one
   position untimed (a warm-up: numba loads the compiled code at its first
   call).  The per-position time is a clock around ``score`` / ``mtdf``, the
   best of the ``--repeat`` rounds (the four processes in turn in each
   round); the scores must all agree.
3. Empty boards from scratch, our compiled engine alone (BitBully plays 7x6
   only): Connect Four 6x5, 7x5 and 6x6, m,n,k tic-tac-toe 5x5 and 6x4 with
   k=4 (``--quick``: 6x5 and the two tic-tac-toe boards), each through
   ``gametree solve ... --engine compiled --best-only --json`` in a fresh
   process under ``--time-limit`` seconds (reported as a timeout past it),
   checked against the published values (small_boards.csv, bench_tictactoe.py).

The compiled code is cached on disk after its first run (numba's cache, in
gametree's cache folder unless ``NUMBA_CACHE_DIR`` says otherwise; this script
leaves it as it is): warm-up runs come first (a gametree batch of two
positions, the second deeper so that the table grows; the BitBully script;
a 3x3 tic-tac-toe board), so the figures are with a warm cache, not with
compile time.  The processes get
this environment, except that, as in bench_connect4.py, Python's bytecode
cache is on and output buffered (as an installed command runs).  The machine
is shared and noisy: ratios measured side by side in the same run mean more
than any absolute time, and the node counts do not depend on the machine.  A
fixed loop timed before and after the runs (:mod:`machine`) shows whether the
machine was in a slow spell.  Nothing here is asserted: the tests check
correctness, this prints figures (the exit status is 1 if an answer was wrong).
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import os
import random
import statistics
import sys
import tempfile

from bench_connect4 import DATA, SETS, gametree_command, run_measured
from bench_tictactoe import CASES as TICTACTOE_CASES
from machine import report as machine_report

#: Our engines on Pons's sets, and the name each is printed under.
ENGINES = ("compiled", "auto", "python")
#: Empty boards: (game, width, height, k); the quick ones.
BOARDS = (
    ("connect4", 6, 5, 4),
    ("connect4", 7, 5, 4),
    ("connect4", 6, 6, 4),
    ("tictactoe", 5, 5, 4),
    ("tictactoe", 6, 4, 4),
)
QUICK_BOARDS = (("connect4", 6, 5, 4), ("tictactoe", 5, 5, 4), ("tictactoe", 6, 4, 4))
STONES = (12, 24)

#: BitBully over a file of positions ("MOVES [SCORE]", columns 1-based): one JSON line per position.
#: argv: file, "keep" (one table for the file) or "fresh" (table reset per position), warm-up moves or "".
_BITBULLY = """
import json, sys, time
import bitbully
path, fresh, warm = sys.argv[1], sys.argv[2] == "fresh", sys.argv[3]
solver = bitbully.BitBully(opening_book=None)
def board(moves):
    b = bitbully.Board()
    for c in moves:
        b.play(int(c) - 1)
    return b
if warm:
    solver.mtdf(board(warm))
    solver.reset_transposition_table()
clock = time.perf_counter
with open(path) as f:
    for line in f:
        fields = line.split()
        if not fields:
            continue
        b = board(fields[0])
        setup = clock()
        if fresh:
            solver.reset_transposition_table()
        solver.reset_node_counter()
        start = clock()
        score = solver.mtdf(b)
        seconds = clock() - start
        row = {"position": fields[0], "score": score, "nodes": solver.get_node_counter(), "seconds": seconds,
               "setup": start - setup}
        if len(fields) > 1:
            row["expected"] = int(fields[1])
        print(json.dumps(row))
"""

#: Our compiled engine over a file of positions: one JSON line per position.
#: argv: file, "fresh" (a fresh Solver, and table, per position) or "keep" (one for the file), warm-up moves.
_OURS = """
import json, sys, time
from gametree import load
from gametree.search import Solver
game = load().game("connect4").create()
def position(moves):
    state = game.initial_state()
    for c in moves:
        state = game.play(state, int(c) - 1)
    return state
fresh = sys.argv[2] == "fresh"
Solver(game, engine="compiled").score(position(sys.argv[3]))  # warm-up: numba loads the compiled code
clock = time.perf_counter
solver = None
with open(sys.argv[1]) as f:
    for line in f:
        fields = line.split()
        if not fields:
            continue
        state = position(fields[0])
        setup = clock()
        if fresh or solver is None:
            solver = Solver(game, engine="compiled")
            solver.engine_for(state)  # builds its compiled engine before the clock starts
        start = clock()
        r = solver.score(state)
        seconds = clock() - start
        print(json.dumps({"position": fields[0], "score": int(r.score), "nodes": r.nodes, "seconds": seconds,
                          "setup": start - setup}))
"""


def write_lines(lines: list[str]) -> str:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        return f.name


def run_json(command: list[str], time_limit: float, what: str) -> dict[str, object]:
    """Run ``command`` (one JSON object a line): its rows, wall seconds, peak MB and whether it timed out."""
    out, err, wall, peak_mb, timed_out = run_measured(command, time_limit)
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    if not rows and not timed_out:
        raise SystemExit(f"{what} failed: {err.strip()}")
    return {"rows": rows, "wall": wall, "peak_mb": peak_mb, "timed_out": timed_out}


def bitbully_command(path: str, fresh: bool, warm: str = "") -> list[str]:
    return [sys.executable, "-c", _BITBULLY, path, "fresh" if fresh else "keep", warm]


def ratio(ours: float, theirs: float) -> str:
    return f"x{ours / theirs:.2f}" if theirs > 0 else "-"


# -- 1. Pons's sets ----------------------------------------------------------------------------


def bench_sets(step: int, repeat: int, time_limit: float) -> int:
    failures = 0
    print(
        f"1. Pons's 7x6 test sets, whole process ({'all positions' if step == 1 else f'every {step}th position'};"
        " one table for each set)"
    )
    print(
        f"'process s' is the whole command's wall time, the best of {repeat} run{'s' if repeat > 1 else ''};"
        " 'slowest' the slowest;"
        " 'search ms' and 'nodes' are means per position; ratios are ours / BitBully (above 1: ours slower)"
    )
    print(
        f"{'set':<7} {'solver':<19} {'matched':>9} {'search ms':>9} {'nodes':>9} {'process s':>9} {'slowest':>8}"
        f" {'ms/pos':>7} {'peak MB':>7}"
        f" {'process ratio':>13} {'search ratio':>12}"
    )
    for name, file in SETS.items():
        lines = [line for line in (DATA / file).read_text().splitlines() if line.strip()][::step]
        path = write_lines(lines)
        commands = {
            f"gametree {e}": [
                *gametree_command(),
                "solve",
                "connect4",
                "--engine",
                e,
                "--batch",
                path,
                "--json",
                "--no-store",
            ]
            for e in ENGINES
        }
        commands["BitBully"] = bitbully_command(path, fresh=False)
        runs: dict[str, list[dict[str, object]]] = {label: [] for label in commands}
        try:
            for _ in range(repeat):  # each round runs every command once: a slow spell falls on all
                for label, command in commands.items():
                    runs[label].append(run_json(command, time_limit, f"{label} on {name}"))
        finally:
            os.unlink(path)
        summary = {}
        for label, done in runs.items():
            best = min(done, key=lambda r: (bool(r["timed_out"]), float(r["wall"])))  # type: ignore[arg-type]
            rows: list[dict] = best["rows"]  # type: ignore[assignment]
            n = max(len(rows), 1)
            summary[label] = {
                "best": best,
                "slowest": max(float(r["wall"]) for r in done),  # type: ignore[arg-type]
                "matched": sum(r["score"] == r["expected"] for r in rows),
                "solved": len(rows),
                "search_ms": 1000 * sum(r["seconds"] for r in rows) / n,
                "nodes": sum(r["nodes"] for r in rows) / n,
            }
            failures += any(sum(r["score"] == r["expected"] for r in run["rows"]) != len(lines) for run in done)  # type: ignore[attr-defined]
        theirs = summary["BitBully"]
        for label, s in summary.items():
            best = s["best"]
            wall = float(best["wall"])
            note = f"  TIMEOUT after {time_limit:g} s" if best["timed_out"] else ""
            ratios = (
                f"{'':>13} {'':>12}"
                if label == "BitBully"
                else (
                    f" {ratio(wall, float(theirs['best']['wall'])):>12}"
                    f" {ratio(s['search_ms'], theirs['search_ms']):>12}"
                )
            )
            print(
                f"{name:<7} {label:<19} {s['matched']:>4}/{len(lines):<4} {s['search_ms']:>9.3f} {s['nodes']:>9.1f}"
                f" {wall:>9.3f} {s['slowest']:>8.3f}"
                f" {1000 * wall / len(lines):>7.3f} {float(best['peak_mb']):>7.0f} {ratios}{note}",
                flush=True,
            )
    print()
    return failures


# -- 2. random positions -----------------------------------------------------------------------


def random_positions(count: int, seed: int) -> list[str]:
    """``count`` distinct 7x6 positions of 12 to 24 stones (moves, columns 1-based).

    Each is not over and has no win at once for the side to move.
    """
    from gametree import load

    game = load().game("connect4").create()
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < count:
        state = game.initial_state()
        moves = []
        for _ in range(rng.randint(*STONES)):
            move = rng.choice(sorted(game.legal_moves(state)))
            state = game.play(state, move)
            moves.append(str(move + 1))
            if game.outcome(state) is not None:
                break
        else:
            line = "".join(moves)
            if not game.immediate_win(state) and line not in found:
                found.append(line)
    return found


def bench_random(count: int, seed: int, repeat: int, time_limit: float, warm: str, table: bool) -> int:
    positions = random_positions(count, seed)
    path = write_lines(positions)
    commands = {}
    for mode in ("fresh", "keep"):
        commands[("ours", mode)] = [sys.executable, "-c", _OURS, path, mode, warm]
        commands[("BitBully", mode)] = bitbully_command(path, fresh=mode == "fresh", warm=warm)
    runs: dict[tuple[str, str], list[dict[str, object]]] = {key: [] for key in commands}
    try:
        for _ in range(repeat):  # each round runs every process once: a slow spell falls on all
            for key, command in commands.items():
                runs[key].append(run_json(command, time_limit, f"{key[0]} ({key[1]}) on the random positions"))
    finally:
        os.unlink(path)
    stones = [len(p) for p in positions]
    print(
        f"2. {count} random 7x6 positions, {min(stones)} to {max(stones)} stones"
        f" (mean {statistics.mean(stones):.1f}; seed {seed}), one process per engine;"
        " each position from scratch: ours a fresh Solver(engine='compiled') per position,"
        " BitBully mtdf after reset_transposition_table()"
    )
    print(
        f"per-position times are a clock around score / mtdf, the best of {repeat} run{'s' if repeat > 1 else ''};"
        " ratios are ours / BitBully"
    )
    failures = 0
    timed_out = [f"{key[0]} ({key[1]})" for key, done in runs.items() if any(r["timed_out"] for r in done)]
    if timed_out:
        print(
            f"TIMEOUT after {time_limit:g} s: {', '.join(timed_out)}"
            " (figures below cover the positions every run solved)"
        )
        failures += 1
    solved = min(len(r["rows"]) for done in runs.values() for r in done)  # type: ignore[arg-type]

    def column(key: tuple[str, str], field: str, pick: object = min) -> list[float]:
        """``field`` of each position: ``pick`` (min: the best) over the runs."""
        return [pick(float(r["rows"][i][field]) for r in runs[key]) for i in range(solved)]  # type: ignore[operator, index]

    def scores(key: tuple[str, str]) -> list[set[int]]:
        return [{int(r["rows"][i]["score"]) for r in runs[key]} for i in range(solved)]  # type: ignore[index]

    def summary(mode: str) -> dict[str, object]:
        ours, theirs = column(("ours", mode), "seconds"), column(("BitBully", mode), "seconds")
        agree = [len(a | b) == 1 for a, b in zip(scores(("ours", mode)), scores(("BitBully", mode)))]
        return {
            "ours": ours,
            "theirs": theirs,
            "agree": agree,
            "per": [o / max(t, 1e-9) for o, t in zip(ours, theirs)],
            "ours_nodes": column(("ours", mode), "nodes", max),
            "theirs_nodes": column(("BitBully", mode), "nodes", max),
        }

    fresh, keep = summary("fresh"), summary("keep")
    failures += sum(not ok for ok in fresh["agree"]) + sum(not ok for ok in keep["agree"])  # type: ignore[attr-defined]
    per: list[float] = fresh["per"]  # type: ignore[assignment]
    ours, theirs = fresh["ours"], fresh["theirs"]
    ours_nodes, theirs_nodes = fresh["ours_nodes"], fresh["theirs_nodes"]
    both = [sorted(a | b) for a, b in zip(scores(("ours", "fresh")), scores(("BitBully", "fresh")))]
    if table:
        print(
            f"{'#':>3} {'stones':>6} {'score':>5} {'ours ms':>9} {'BitBully ms':>11} {'ratio':>7}"
            f" {'ours nodes':>11} {'BitBully nodes':>14}"
        )
        for i in range(solved):
            print(
                f"{i + 1:>3} {len(positions[i]):>6} {both[i][0]:>+5} {1000 * ours[i]:>9.3f} {1000 * theirs[i]:>11.3f}"  # type: ignore[index]
                f" {per[i]:>7.2f} {int(ours_nodes[i]):>11,} {int(theirs_nodes[i]):>14,}"  # type: ignore[index]
                f"{'' if fresh['agree'][i] else '  MISMATCH ' + str(both[i])}"
            )  # type: ignore[index]
    walls = {key: [float(r["wall"]) for r in done] for key, done in runs.items()}  # type: ignore[arg-type]
    setup = {key: min(sum(float(row["setup"]) for row in r["rows"]) for r in done) for key, done in runs.items()}  # type: ignore[attr-defined]

    def totals(s: dict[str, object], label: str) -> None:
        o, t = sum(s["ours"]), sum(s["theirs"])  # type: ignore[arg-type]
        on, tn = int(sum(s["ours_nodes"])), int(sum(s["theirs_nodes"]))  # type: ignore[arg-type]
        p: list[float] = s["per"]  # type: ignore[assignment]
        worst = max(range(solved), key=p.__getitem__)
        print(f"  scores agree:         {sum(s['agree'])}/{solved}")  # type: ignore[arg-type]
        print(f"  total search time:    ours {o:.3f} s, BitBully {t:.3f} s, ratio {ratio(o, t)}")
        print(
            f"  per-position ratio:   median {statistics.median(p):.2f}, best {min(p):.2f}, worst {p[worst]:.2f}"
            f" (#{worst + 1}: {1000 * s['ours'][worst]:.3f} ms vs {1000 * s['theirs'][worst]:.3f} ms)"
        )  # type: ignore[index]
        print(f"  total nodes:          ours {on:,}, BitBully {tn:,}, ratio {ratio(on, tn)}")
        ow, tw = walls[("ours", label)], walls[("BitBully", label)]
        print(
            f"  whole process (best): ours {min(ow):.3f} s, BitBully {min(tw):.3f} s, ratio {ratio(min(ow), min(tw))}"
            f"  (slowest: {max(ow):.3f} s, {max(tw):.3f} s; start-up and warm-up included)"
        )

    print("fresh table per position:")
    totals(fresh, "fresh")
    print(
        f"  outside the clock:    ours {setup[('ours', 'fresh')]:.3f} s building the Solvers,"
        f" BitBully {setup[('BitBully', 'fresh')]:.3f} s resetting its table"
        " (in the process times); ours maps a new table per position,"
        " whose pages fault in at first touch, inside the clock"
    )
    print(
        "one table kept across the positions (ours one Solver for all, BitBully no reset;"
        " later positions may hit earlier ones' entries):"
    )
    totals(keep, "keep")
    print(flush=True)
    return failures


# -- 3. empty boards ---------------------------------------------------------------------------


def expected_value(game: str, width: int, height: int, k: int) -> tuple[str, int] | None:
    """The published (value for the first player, score) of an empty board, if known."""
    if game == "connect4" and k == 4:
        with (DATA / "small_boards.csv").open() as f:
            for row in csv.DictReader(f):
                if (int(row["width"]), int(row["height"])) == (width, height):
                    return {"first": "win", "second": "loss", "draw": "draw"}[row["winner"]], int(
                        row["empty_board_score"]
                    )
    for w, h, kk, expected, *_ in TICTACTOE_CASES.values():
        if game == "tictactoe" and (w, h, kk) == (width, height, k):
            return expected
    return None


def board_command(game: str, width: int, height: int, k: int) -> list[str]:
    return [
        *gametree_command(),
        "solve",
        game,
        "--width",
        str(width),
        "--height",
        str(height),
        "--k",
        str(k),
        "--engine",
        "compiled",
        "--best-only",
        "--json",
        "--no-store",  # (the default store would answer from what an earlier run proved)
    ]


def bench_boards(boards: tuple[tuple[str, int, int, int], ...], time_limit: float) -> int:
    failures = 0
    print(
        "3. Empty boards from scratch, our compiled engine"
        " ('gametree solve GAME --engine compiled --best-only --json', a fresh process each)"
    )
    print("'search s' is the search's own time (stats.seconds), 'process s' the whole command's")
    print(
        f"{'board':<20} {'value':<5} {'score':>5} {'best':>4} {'plies':>5} {'nodes':>14} {'search s':>9}"
        f" {'process s':>9} {'peak MB':>7}  published"
    )
    for game, width, height, k in boards:
        name = f"{game} {width}x{height}" + (f" k={k}" if game == "tictactoe" else "")
        expected = expected_value(game, width, height, k)
        published = f"{expected[0]}, score {expected[1]}" if expected else "-"
        out, err, wall, peak_mb, timed_out = run_measured(board_command(game, width, height, k), time_limit)
        rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        if timed_out or not rows:
            failures += 1
            why = (
                f"TIMEOUT after {time_limit:g} s"
                if timed_out
                else f"FAILED: {err.strip().splitlines()[-1] if err.strip() else 'no output'}"
            )
            print(f"{name:<20} {why}{'':>20}  {published}", flush=True)
            continue
        r = rows[-1]
        ok = expected is None or (r["value"], r["score"]) == tuple(expected)
        failures += not ok
        print(
            f"{name:<20} {r['value']:<5} {r['score']:>+5} {r['best_moves'][0]:>4} {r['plies_to_end']:>5}"
            f" {r['stats']['nodes']:>14,} {r['stats']['seconds']:>9.2f}"
            f" {wall:>9.2f} {peak_mb:>7.0f}  {published}{'  ok' if expected and ok else '' if ok else '  MISMATCH'}",
            flush=True,
        )
    print()
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one run of each, 10 random positions, boards 6x5 (Connect Four), 5x5 and 6x4 (k=4)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        metavar="N",
        help="runs of each set and of the random positions, the best reported (default 3; 1 with --quick)",
    )
    parser.add_argument(
        "--positions", type=int, default=None, metavar="N", help="random positions (default 40; 10 with --quick)"
    )
    parser.add_argument("--seed", type=int, default=2024, help="seed of the random positions (default 2024)")
    parser.add_argument(
        "--step", type=int, default=1, metavar="N", help="every Nth position of Pons's sets (default 1: all)"
    )
    parser.add_argument("--time-limit", type=float, default=600.0, metavar="SECONDS", help="per process (default 600)")
    parser.add_argument("--skip-sets", action="store_true", help="no Pons's sets")
    parser.add_argument("--skip-random", action="store_true", help="no random positions")
    parser.add_argument("--skip-boards", action="store_true", help="no empty boards")
    args = parser.parse_args(argv)
    repeat = args.repeat if args.repeat is not None else 1 if args.quick else 3
    count = args.positions if args.positions is not None else 10 if args.quick else 40
    if repeat < 1 or count < 1 or args.step < 1:
        parser.error("--repeat, --positions and --step must be at least 1")
    if not DATA.is_dir():
        parser.error(f"published data not found in {DATA}")
    for module, hint in (("numba", "the compiled engine"), ("bitbully", "BitBully")):
        if importlib.util.find_spec(module) is None:
            parser.error(f"{hint} needs {module}: pip install {module} (or gametree[compare])")
    failures = 0
    print(machine_report("before the runs"), flush=True)
    end, warm = (
        next(line for line in (DATA / SETS[name]).read_text().splitlines() if line.strip())
        for name in ("end", "middle")
    )
    # Warm-up, not measured: numba's cache of the compiled code written (or loaded), bytecode written, files cached.
    # Two positions, the second deeper: the table grows between them (its rehash compiled too).
    path = write_lines([end, warm])
    try:
        run_measured(
            [*gametree_command(), "solve", "connect4", "--engine", "compiled", "--batch", path, "--json", "--no-store"],
            args.time_limit,
        )
        run_measured(bitbully_command(path, fresh=False), args.time_limit)
    finally:
        os.unlink(path)
    if not args.skip_boards:
        run_measured(board_command("tictactoe", 3, 3, 3), args.time_limit)
    print()
    if not args.skip_sets:
        failures += bench_sets(args.step, repeat, args.time_limit)
    if not args.skip_random:
        failures += bench_random(count, args.seed, repeat, args.time_limit, warm.split()[0], table=True)
    if not args.skip_boards:
        failures += bench_boards(QUICK_BOARDS if args.quick else BOARDS, args.time_limit)
    print(machine_report("after the runs"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
