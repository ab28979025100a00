"""The built-in players of ``gametree play``: a human, a random mover and four search strengths.

========  ==================================================================
human     moves typed at the terminal
random    any legal move, uniformly
easy      takes an immediate win, usually (3 times in 4) avoids handing the
          opponent one, otherwise plays at random: it makes real mistakes
medium    alpha-beta 2 plies deep, the game's heuristic at the leaves
hard      alpha-beta 4 plies deep, the game's heuristic at the leaves
perfect   gametree's exact solver: it never gives away a won or drawn position
          (the value is proven, however long that takes), and wins as fast and
          loses as slowly as possible when the exact scores are proven in 1.5 s
          ($GAMETREE_PERFECT_SECONDS); the solution store's books answer first
          (gametree.search.perfect); with play's --tiers DIR, a tier
          directory answers the positions it holds at once (gametree.tier_book)
mcts      Monte Carlo tree search, 1 s a move ($GAMETREE_MCTS_SECONDS), with
          proven wins and losses (gametree.search.montecarlo.MCTSPlayer)
learned   the move with the best record in a table of random games written by
          'gametree learn' (play's --table FILE, else $GAMETREE_TABLE, else
          gametree-learned.json)
paranoid  in a game of more players, paranoid search 4 plies deep: every other
          player is assumed to play against it (gametree.search.multiplayer);
          in a two-player game the same as hard
========  ==================================================================

In a game with dice (chance nodes) the three search strengths run Star1
(gametree.search.chance) instead: the best expected payoff, 2 or 4 moves
deep with the game's heuristic, or exactly.  In a dice game whose positions
repeat (Pig), which Star1 cannot search, all three play by value iteration
(gametree.search.valueiteration): the best win probability, so the same
perfect play (a depth-limited search of such a game is not built).

In a game the exact solver cannot search but max^n can (three or more
players: gametree.search.multiplayer), medium, hard and perfect search with
max^n instead, each player for itself, 2 and 4 plies deep or to the end.

In a game whose positions repeat (Dodgem), every search strength plays
perfectly: depth-first search cannot search such a game, so the player solves
every position reachable from where it first moves by retrograde analysis
(gametree.search.retrograde), once, and reads each move from that solution.

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
import weakref
from typing import TYPE_CHECKING, Any

from gametree import Game, TranspositionTable, alphabeta, hookimpl
from gametree.game import CHANCE, M, S
from gametree.search import ALGORITHMS
from gametree.search.compiled import EngineChoice
from gametree.search.multiplayer import maxn, paranoid
from gametree.search.perfect import PERFECT_SECONDS, Choice, PerfectMover
from gametree.search.retrograde import RetrogradeMover

if TYPE_CHECKING:
    import random  # the players get their generator from the game loop

    from gametree import Registry
    from gametree.learn import LearnedPlayer
    from gametree.search.known import KnownValues
    from gametree.search.montecarlo import MCTSPlayer
    from gametree.search.valueiteration import ValueTable
    from gametree.tier_book import TierBook

__all__ = ["EasyPlayer", "HumanPlayer", "RandomPlayer", "SearchPlayer", "STRENGTHS"]

#: Depth limits of the search strengths (None: search to the end of the game).
STRENGTHS: dict[str, int | None] = {"medium": 2, "hard": 4, "perfect": None}

#: The last retrograde solution a player made (while a player keeps it): two computer players of one
#: game (``--x perfect --o perfect`` on Dodgem) share it instead of each solving the whole game.
_last_looping: weakref.ref[RetrogradeMover[Any, Any]] | None = None


def _looping_mover(game: Game[S, M]) -> RetrogradeMover[S, M]:
    """A retrograde mover of ``game`` (the very game object): the one another player made, if it is kept."""
    global _last_looping
    mover = _last_looping() if _last_looping is not None else None
    if mover is None or mover.game is not game:
        mover = RetrogradeMover(game)
        _last_looping = weakref.ref(mover)
    return mover


class HumanPlayer:
    """A person at the terminal; the game loop reads the moves, so ``choose`` is never called."""

    human = True

    def choose(self, game: Game[S, M], state: S, rng: random.Random) -> M:
        raise RuntimeError("a human player's moves are typed at the terminal")


class RandomPlayer:
    """Any legal move, uniformly at random."""

    human = False

    def choose(self, game: Game[S, M], state: S, rng: random.Random) -> M:
        return rng.choice(list(game.legal_moves(state)))


def _wins_now(game: Game[S, M], state: S, move: M, player: int) -> bool:
    out = game.outcome(game.play(state, move))
    return out is not None and out.winner == player


class EasyPlayer:
    """Takes an immediate win; usually avoids moves that let the opponent win at once; else random."""

    human = False

    def __init__(self, care: float = 0.75) -> None:
        #: Probability of avoiding a move that hands the opponent an immediate win.
        self.care = care

    def choose(self, game: Game[S, M], state: S, rng: random.Random) -> M:
        moves = list(game.legal_moves(state))
        me = game.to_move(state)
        wins = [m for m in moves if _wins_now(game, state, m, me)]
        if wins:
            return rng.choice(wins)
        if rng.random() < self.care:
            safe = []
            for move in moves:
                after = game.play(state, move)
                mover = game.to_move(after)
                if (
                    game.outcome(after) is None
                    and mover != CHANCE
                    and any(_wins_now(game, after, reply, mover) for reply in game.legal_moves(after))
                ):
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

    def __init__(
        self,
        depth: int | None = None,
        *,
        table_entries: int = 2_000_000,
        engine: EngineChoice = "auto",
        seconds: float | None = None,
        coalition: bool = False,
    ) -> None:
        self.depth = depth
        #: In a game of more players: paranoid search (every other player against this one), not max^n.
        self.coalition = coalition
        self.table_entries = table_entries
        #: The search engine of a full solve ("auto", "python" or "compiled"; ``gametree play --engine`` sets it).
        self.engine = engine
        #: A solution store's entries for the game (``gametree play`` sets it): a full solve reads and writes it.
        self.store: KnownValues | None = None
        #: A full solve's seconds for exact scores once the value is proven (:mod:`gametree.search.perfect`).
        self.seconds = seconds if seconds is not None else _perfect_seconds() if depth is None else PERFECT_SECONDS
        #: A tier directory of the game (``gametree play --tiers`` sets it): a full solve reads the
        #: positions it covers from there, without a search.
        self.tiers: TierBook | None = None
        #: How the last full solve chose (None before one).
        self.last: Choice | None = None
        self._game: object = None  # the game the table belongs to (compared by identity)
        self._table = TranspositionTable(table_entries)
        self._mover: PerfectMover | None = None
        #: Value iteration's values, for a game whose positions repeat (kept while the game is the same).
        self._values: ValueTable | None = None
        self._looping: RetrogradeMover[Any, Any] | None = None  # a game whose positions repeat: its solution, kept

    def table_for(self, game: Game[S, M]) -> TranspositionTable:
        """The transposition table kept for ``game`` (a fresh one for a new game object)."""
        if game is not self._game:
            self._game = game
            self._table = TranspositionTable(self.table_entries)
            self._mover = None
            self._looping = None
        return self._table

    def best_moves(self, game: Game[S, M], state: S) -> list[M]:
        """All moves of the best value: depth-aware exact values (or, past the time for them, the
        moves keeping the proven value; see :mod:`gametree.search.perfect`), or alpha-beta's."""
        table = self.table_for(game)
        texts: tuple[str, ...]
        if self.depth is None and self.tiers is not None and self.tiers.covers(state):
            # A tier directory (gametree play --tiers) answers at once: the fastest win, the slowest loss, a draw.
            from gametree.tier_book import tier_result

            answer = tier_result(self.tiers, state, pv=False)
            self.last = Choice(answer.best_moves, int(answer.score), True, "tiers", answer.stats.seconds)
            texts = answer.best_moves
        elif (
            not game.info.deterministic
            and ALGORITHMS["star1"].refusal(game) is not None
            and ALGORITHMS["value-iteration"].refusal(game) is None
        ):
            # Dice whose positions repeat (Pig): every position's value by value iteration, kept for the game.
            texts = self._iterated(game, state)
        elif not game.info.deterministic:  # dice: Star1 to the depth (exact expected payoffs without one)
            from gametree.search.chance import star1

            texts = star1(game, state, depth=self.depth, pv=False).best_moves
        elif game.info.repeats and ALGORITHMS["retrograde"].refusal(game) is None:
            # Positions repeat (Dodgem): retrograde analysis, at every strength (a depth-limited search
            # would refuse the game): the whole game solved once, then each move read from it.
            if self._looping is None:
                self._looping = _looping_mover(game)
            return self._looping.best_moves(state)
        elif ALGORITHMS["solver"].refusal(game) is not None and ALGORITHMS["maxn"].refusal(game) is None:
            # A game of more players: max^n, each player for itself, to the depth (None: to the end).
            search = paranoid if self.coalition else maxn
            texts = search(game, state, depth=self.depth, pv=False).best_moves
        elif self.depth is None:
            # The perfect mover, kept between moves with its solver and tables (the compiled engine's among them).
            mover = self._mover
            if (
                mover is None
                or mover.solver.choice != self.engine
                or mover.store is not self.store
                or mover.seconds != self.seconds
            ):
                mover = self._mover = PerfectMover(
                    game, store=self.store, seconds=self.seconds, engine=self.engine, table=table
                )
            self.last = mover.choose(state)
            texts = self.last.moves
        else:
            # Alpha-beta with the game's heuristic at the leaves.
            texts = alphabeta(game, state, depth=self.depth, cache=table, all_moves=True, pv=False).best_moves
        by_text = {game.format_move(state, m): m for m in game.legal_moves(state)}
        return [by_text[text] for text in texts]

    def _iterated(self, game: Game[S, M], state: S) -> tuple[str, ...]:
        """The best moves by value iteration, its values found once for the game (and again only for a
        position they do not cover)."""
        from gametree.search.valueiteration import solve_values

        values = self._values
        if values is None or values.game is not game or not values.covers(state):
            values = self._values = solve_values(game, state)
        return tuple(game.format_move(state, move) for move in values.best_moves(state))

    def choose(self, game: Game[S, M], state: S, rng: random.Random) -> M:
        if game.to_move(state) == CHANCE:  # (asked where chance moves: roll the die)
            from gametree.search.chance import roll

            return roll(game, state, rng)
        return rng.choice(self.best_moves(game, state))


@hookimpl
def gametree_register_players(registry: Registry) -> None:
    registry.add_player("human", HumanPlayer)
    registry.add_player("random", RandomPlayer)
    registry.add_player("easy", EasyPlayer)
    for name, depth in STRENGTHS.items():
        registry.add_player(name, functools.partial(SearchPlayer, depth))
    registry.add_player("mcts", _mcts_player)
    registry.add_player("learned", _learned_player)
    registry.add_player("paranoid", functools.partial(SearchPlayer, 4, coalition=True))


def _perfect_seconds() -> float:
    """$GAMETREE_PERFECT_SECONDS (unset or empty: the default); a value that is not a finite
    number of seconds, 0 or more, is a one-line ValueError."""
    import math
    import os

    text = os.environ.get("GAMETREE_PERFECT_SECONDS", "").strip()
    if not text:
        return PERFECT_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds >= 0):
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise ValueError(
            f"GAMETREE_PERFECT_SECONDS={shown!r}: expected the seconds for exact scores,"
            " a number of 0 or more (e.g. 1.5)"
        )
    return seconds


# Imported when a game asks for them, not on every start of the command.
def _mcts_player() -> MCTSPlayer:
    from gametree.search.montecarlo import MCTSPlayer

    return MCTSPlayer()


def _learned_player() -> LearnedPlayer:
    from gametree.learn import LearnedPlayer

    return LearnedPlayer()
