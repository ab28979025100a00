"""The built-in players of ``gametree play``: a human, a random mover and four search strengths.

========  ==================================================================
human     moves typed at the terminal
random    any legal move, uniformly
easy      takes an immediate win, usually (3 times in 4) avoids handing the
          opponent one, otherwise plays at random: it makes real mistakes
medium    alpha-beta 2 plies deep, the game's heuristic at the leaves
hard      alpha-beta 4 plies deep, the game's heuristic at the leaves
perfect   a full solve (gametree's exact solver) with depth-aware scores: it never loses,
          wins as fast as possible and, when lost, loses as slowly as possible
mcts      Monte Carlo tree search, 1 s a move ($GAMETREE_MCTS_SECONDS), with
          proven wins and losses (gametree.search.montecarlo.MCTSPlayer)
learned   the move with the best record in a table of random games written by
          'gametree learn' (play's --table FILE, else $GAMETREE_TABLE, else
          gametree-learned.json)
========  ==================================================================

Search players pick at random among equally good moves, with the generator
the game loop passes in (seeded by ``--seed``).  Each keeps one
transposition table for the whole game, so later moves reuse the work of
earlier ones; entries of depth-limited searches carry their depth and are
only trusted as far as it goes.  A table belongs to one game object: a
player given another game starts a fresh one.

A plugin adds its own player the same way::

    @hookimpl
    def gametree_register_players(registry):
        registry.add_player("greedy", Greedy)   # Greedy() has .human and .choose()
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from gametree import Game, TranspositionTable, alphabeta, hookimpl
from gametree.search import Solver
from gametree.search.compiled import EngineChoice

if TYPE_CHECKING:
    import random  # the players get their generator from the game loop

__all__ = ["EasyPlayer", "HumanPlayer", "RandomPlayer", "SearchPlayer", "STRENGTHS"]

#: Depth limits of the search strengths (None: search to the end of the game).
STRENGTHS: dict[str, int | None] = {"medium": 2, "hard": 4, "perfect": None}


class HumanPlayer:
    """A person at the terminal; the game loop reads the moves, so ``choose`` is never called."""

    human = True

    def choose(self, game: Game[Any, Any], state: Any, rng: random.Random) -> Any:
        raise RuntimeError("a human player's moves are typed at the terminal")


class RandomPlayer:
    """Any legal move, uniformly at random."""

    human = False

    def choose(self, game: Game[Any, Any], state: Any, rng: random.Random) -> Any:
        return rng.choice(list(game.legal_moves(state)))


def _wins_now(game: Game[Any, Any], state: Any, move: Any, player: int) -> bool:
    out = game.outcome(game.play(state, move))
    return out is not None and out.winner == player


class EasyPlayer:
    """Takes an immediate win; usually avoids moves that let the opponent win at once; else random."""

    human = False

    def __init__(self, care: float = 0.75) -> None:
        #: Probability of avoiding a move that hands the opponent an immediate win.
        self.care = care

    def choose(self, game: Game[Any, Any], state: Any, rng: random.Random) -> Any:
        moves = list(game.legal_moves(state))
        me = game.to_move(state)
        wins = [m for m in moves if _wins_now(game, state, m, me)]
        if wins:
            return rng.choice(wins)
        if rng.random() < self.care:
            safe = []
            for move in moves:
                after = game.play(state, move)
                if game.outcome(after) is None and any(_wins_now(game, after, reply, 1 - me) for reply in game.legal_moves(after)):
                    continue
                safe.append(move)
            if safe:
                return rng.choice(safe)
        return rng.choice(moves)


class SearchPlayer:
    """Search to ``depth`` plies (None: a full exact solve), random among the best moves.

    Every root move gets its exact value (depth-aware, or heuristic at the
    depth limit), so the choice is uniform among all equally good moves.
    """

    human = False

    def __init__(self, depth: int | None = None, *, table_entries: int = 2_000_000, engine: EngineChoice = "auto") -> None:
        self.depth = depth
        self.table_entries = table_entries
        #: The search engine of a full solve ("auto", "python" or "compiled"; ``gametree play --engine`` sets it).
        self.engine = engine
        #: A solution store's entries for the game (``gametree play`` sets it): a full solve reads and writes it.
        self.store: Any = None
        self._game: Game[Any, Any] | None = None
        self._table = TranspositionTable(table_entries)
        self._solver: Solver | None = None

    def table_for(self, game: Game[Any, Any]) -> TranspositionTable:
        """The transposition table kept for ``game`` (a fresh one for a new game object)."""
        if game is not self._game:
            self._game = game
            self._table = TranspositionTable(self.table_entries)
            self._solver = None
        return self._table

    def best_moves(self, game: Game[Any, Any], state: Any) -> list[Any]:
        """All moves of the best value (exact values of every root move, depth-aware)."""
        table = self.table_for(game)
        if self.depth is None:
            # The exact solver, kept between moves with its tables (the compiled engine's among them).
            if self._solver is None or self._solver.choice != self.engine or self._solver.store is not self.store:
                self._solver = Solver(game, cache=table, engine=self.engine, store=self.store)
            result = self._solver.solve(state, all_moves=True, pv=False)
        else:
            # Alpha-beta with the game's heuristic at the leaves.
            result = alphabeta(game, state, depth=self.depth, cache=table, all_moves=True, pv=False)
        by_text = {game.format_move(state, m): m for m in game.legal_moves(state)}
        return [by_text[text] for text in result.best_moves]

    def choose(self, game: Game[Any, Any], state: Any, rng: random.Random) -> Any:
        return rng.choice(self.best_moves(game, state))


@hookimpl
def gametree_register_players(registry) -> None:  # type: ignore[no-untyped-def]
    registry.add_player("human", HumanPlayer)
    registry.add_player("random", RandomPlayer)
    registry.add_player("easy", EasyPlayer)
    for name, depth in STRENGTHS.items():
        registry.add_player(name, functools.partial(SearchPlayer, depth))
    registry.add_player("mcts", _mcts_player)
    registry.add_player("learned", _learned_player)


# Imported when a game asks for them, not on every start of the command.
def _mcts_player() -> Any:
    from gametree.search.montecarlo import MCTSPlayer

    return MCTSPlayer()


def _learned_player() -> Any:
    from gametree.learn import LearnedPlayer

    return LearnedPlayer()
