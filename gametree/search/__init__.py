"""Search algorithms: one negamax engine and what is built on it.

- :mod:`.engine`: the engine (alpha-beta and plain minimax through one
  negamax with two move strategies, observed by tree capture and statistics);
- :mod:`.results`: what a search returns, built in one place;
- :mod:`.classic`: minimax, alpha-beta, iterative deepening;
- :mod:`.contract`: what every engine offers its drivers (:class:`~.contract.SearchEngine`);
- :mod:`.exact`: Pons's null-window driver of an engine, proving exact scores;
- :mod:`.solver`: the exact solver (engine choice, time limits, best moves, lines);
- :mod:`.known`: known values (a solution store's) read and written by searches;
- :mod:`.options`: what a search is asked (``Limit``, ``SearchOptions``), one object for the API and the CLI;
- :mod:`.values`: proven values as types (``Win``, ``Loss``, ``Draw``);
- :mod:`.frames`: room on CPython's frame stack for deep searches;
- :mod:`.perfect`: perfect moves in bounded time (the store's books, a weak proof, exact scores);
- :mod:`.montecarlo`: Monte Carlo tree search (:mod:`.mcts_vector`: with a payoff for each player,
  for chance nodes and more players);
- :mod:`.chance`: expectiminimax, Star1 and Star2 for games with chance nodes;
- :mod:`.multiplayer`: max^n (with shallow pruning) and paranoid search, for any number of players;
- :mod:`.algorithms`: the algorithms by name: ``search`` and ``prepare`` (``run_algorithm``, also
  named ``run``, is the older ``search``);
- :mod:`.parallel`: solving over processes or a Dask cluster;
- :mod:`.table`: the bounded transposition table.
"""

from __future__ import annotations

from .algorithms import ALGORITHMS, prepare, prepare_scores, run, run_algorithm, search
from .classic import alphabeta, iterative_deepening, minimax
from .montecarlo import mcts
from .multiplayer import maxn, paranoid
from .options import Limit, SearchOptions
from .perfect import PerfectMover
from .results import MoveValue, Scored, SearchResult, SearchStats, Value, position
from .solver import Solver, solver
from .strong import StrongSolution, solve_strongly
from .table import Bound, Entry, TranspositionTable
from .values import Draw, ExactValue, Loss, Win

__all__ = [
    "Draw",
    "ExactValue",
    "Limit",
    "Loss",
    "Win",
    "ALGORITHMS",
    "Bound",
    "Entry",
    "MoveValue",
    "PerfectMover",
    "Scored",
    "SearchResult",
    "SearchOptions",
    "SearchStats",
    "Solver",
    "StrongSolution",
    "TranspositionTable",
    "Value",
    "alphabeta",
    "iterative_deepening",
    "maxn",
    "mcts",
    "minimax",
    "paranoid",
    "position",
    "prepare",
    "prepare_scores",
    "run",
    "run_algorithm",
    "search",
    "solve_strongly",
    "solver",
]
