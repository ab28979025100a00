"""The game protocol: what the search core needs to know about a game.

A game is a set of pure functions over immutable, hashable states.  The core
never mutates a state and never imports a concrete game; games arrive as
plugins (see :mod:`gametree.plugin`).

Players are numbered 0 (the first player), 1, and on for games of more players;
a chance node (dice, a shuffled deck) is "moved" by :data:`CHANCE`.  Scores of
two-player zero-sum games are always from the point of view of the side to move
(negamax convention); a game of more players ends with a payoff for each.

What kind of game it is (margins, chance, more players, repeated positions) is
declared in its :class:`GameInfo`; :func:`game_kinds` names the kinds, and every
algorithm says which it supports (:func:`refusal`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final, Generic, Protocol, TypeAlias, TypeVar, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "CHANCE",
    "GameKind",
    "Payoff",
    "Probability",
    "Stochastic",
    "NodeNames",
    "Ranked",
    "RankedMoves",
    "FINISHED",
    "game_kinds",
    "payoffs",
    "refusal",
    "end_score",
    "Game",
    "Move",
    "State",
    "GameError",
    "GameOverError",
    "GameInfo",
    "IllegalMoveError",
    "MoveParseError",
    "Outcome",
    "UnsupportedGameError",
    "BoardView",
    "BoardConstants",
    "Capabilities",
    "Compilable",
    "CompiledRules",
    "Configurable",
    "FastThreats",
    "Heuristic",
    "PayoffHeuristic",
    "MoveChecker",
    "MoveHelp",
    "MoveSplitter",
    "Replayable",
    "RuleSet",
    "Symmetric",
    "SymmetryImages",
    "CompiledTiers",
    "TierFunctions",
    "Tiered",
    "ThreatAware",
    "capabilities",
    "checked_play",
    "game_name",
    "play_text",
    "win_score",
]

#: A position as the core sees it: the game's own (hashable, immutable) state type.
State: TypeAlias = Hashable
#: A move as the core sees it: whatever the game's ``legal_moves`` gives; the core only
#: hands it back to the game and compares it.
Move: TypeAlias = object

S = TypeVar("S", bound=Hashable)
M = TypeVar("M")
#: The same, for the capability protocols that only take states (or moves) as parameters, or only give moves back.
S_contra = TypeVar("S_contra", bound=Hashable, contravariant=True)
M_contra = TypeVar("M_contra", contravariant=True)
M_co = TypeVar("M_co", covariant=True)


class GameError(Exception):
    """Base class of the errors a game raises for bad input."""


class IllegalMoveError(GameError, ValueError):
    """A well-formed move that the rules do not allow in this position."""


class MoveParseError(GameError, ValueError):
    """Move text that cannot be read as a move of this game."""


class GameOverError(GameError, ValueError):
    """The position is final: no move can be played or searched."""


class UnsupportedGameError(GameError, TypeError):
    """The game lacks a property that an algorithm relies on."""


#: What :meth:`Game.to_move` answers at a chance node: no player moves there, chance does
#: (OpenSpiel's convention).  Its "moves" are the outcomes of :meth:`Stochastic.chance_outcomes`.
CHANCE: Final = -1

#: A payoff: an ``int`` (a margin, 1 for a win), a ``Fraction`` (an exact expectation) or a ``float``.
Payoff: TypeAlias = int | Fraction | float
#: The probability of a chance outcome: exact as a ``Fraction`` where the game gives it so.
Probability: TypeAlias = Fraction | float


@dataclass(frozen=True, slots=True, repr=False)
class Outcome:
    """How a finished game ended: ``winner`` is a player (0, 1, ...) or ``None`` for a draw.

    ``payoffs`` gives each player's payoff, by player number, where the game
    ends with more than a winner: a margin game's final margin (``(m, -m)``, the
    first player's margin first: Othello's disc difference), the payoffs of a
    game of three or more players.  ``None``: the winner gets 1, the others -1
    (two players) or 0 (more), a draw 0 for all; see :func:`payoffs`.
    """

    winner: int | None
    payoffs: tuple[Payoff, ...] | None = None

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    def __repr__(self) -> str:
        shown = "" if self.payoffs is None else f", payoffs={self.payoffs!r}"
        return f"Outcome(winner={self.winner!r}{shown})"


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What search algorithms may assume about a game.

    ``max_plies`` is the longest possible game in moves (C in the score
    formula: the number of cells on a board game; for a chance game, the
    longest game counting chance's moves too).  ``player_names`` are used
    for display only, one per player.

    The kind of game (see :func:`game_kinds`; each algorithm refuses the kinds it
    does not support, in one line naming the property):

    - ``players``: more than two, and the game ends with a payoff for each
      (:attr:`Outcome.payoffs`);
    - ``zero_sum``: False when the payoffs do not sum to a constant;
    - ``deterministic``: False when the game has chance nodes (:data:`CHANCE`
      to move; the game is then :class:`Stochastic`);
    - ``perfect_information``: False when a player cannot see the whole position;
    - ``margin``: a two-player zero-sum game whose value is its final margin
      (:attr:`Outcome.payoffs`), not a depth-aware win/draw/loss score;
    - ``payoff_bounds``: the lowest and highest payoff any player can end with
      (margins: ``(-max_margin, max_margin)``); bounded-payoff pruning (Star1,
      Star2, shallow max^n pruning) needs them.  ``None``: the win/draw/loss
      scores' own bounds for a win/draw/loss game, unknown for the others;
    - ``payoff_sum``: the highest sum of all players' payoffs at any end of the
      game (Korf's *maxsum*: 1 where one player wins 1 and the others 0); with
      ``payoff_bounds`` it lets max^n prune shallowly (:mod:`gametree.search.multiplayer`).
      ``None``: 0 for a two-player zero-sum game, unknown for the others;
    - ``repeats``: a position can come back (a cycle in the game graph), so a
      depth-first search need not end; retrograde analysis handles it;
    - ``adds_one_piece``: every move adds one piece and takes none away, so a position's ply is
      its number of pieces and no position comes back; with ``key`` a distinct integer from 0 to
      2**63 - 1 for each position, the tier solver can build the game without a :class:`Tiered`
      (tiers by ply, ranked by sorted keys: :mod:`gametree.search.ply_tiers`).
    """

    max_plies: int
    players: int = 2
    zero_sum: bool = True
    deterministic: bool = True
    perfect_information: bool = True
    player_names: tuple[str, ...] = ("first", "second")
    margin: bool = False
    payoff_bounds: tuple[Payoff, Payoff] | None = None
    repeats: bool = False
    payoff_sum: Payoff | None = None
    adds_one_piece: bool = False


class GameKind(StrEnum):
    """A kind of game beyond the plain one (two players, win/draw/loss, no chance, no repeats):
    what an algorithm declares it supports (``AlgorithmSpec.supports``).  The value is how a
    message names the property."""

    MARGIN = "a final margin (GameInfo.margin)"
    CHANCE = "chance nodes (GameInfo.deterministic is False)"
    PLAYERS = "more than two players (GameInfo.players)"
    GENERAL_SUM = "payoffs that are not zero-sum (GameInfo.zero_sum is False)"
    HIDDEN = "hidden information (GameInfo.perfect_information is False)"
    REPEATS = "positions that repeat (GameInfo.repeats)"


def game_kinds(info: GameInfo) -> frozenset[GameKind]:
    """The kinds of ``info``'s game beyond the plain one (empty for tic-tac-toe)."""
    found = {
        GameKind.MARGIN: info.margin,
        GameKind.CHANCE: not info.deterministic,
        GameKind.PLAYERS: info.players > 2,
        GameKind.GENERAL_SUM: not info.zero_sum,
        GameKind.HIDDEN: not info.perfect_information,
        GameKind.REPEATS: info.repeats,
    }
    return frozenset(kind for kind, present in found.items() if present)


def refusal(algorithm: str, supports: Collection[GameKind], game: Game[Any, Any]) -> str | None:
    """Why ``algorithm`` (supporting the kinds ``supports``) cannot search ``game``, in one line
    naming the property, or None when it can.  The caller adds which algorithms can, if it knows.

    >>> from gametree import load
    >>> refusal("minimax", (), load().game("tictactoe").create()) is None
    True
    """
    missing = sorted(game_kinds(game.info) - frozenset(supports))
    if not missing:
        return None
    return f"{algorithm} cannot search {game_name(game)}: it has {' and '.join(missing)}"


def payoffs(game: Game[Any, Any], outcome: Outcome) -> tuple[Payoff, ...]:
    """Each player's payoff at the end of a game, by player number: the outcome's own
    ``payoffs`` when it gives them, else 1 for the winner and -1 (two players) or 0
    (more players) for the others, 0 for all in a draw."""
    if outcome.payoffs is not None:
        return outcome.payoffs
    n = game.info.players
    if outcome.winner is None:
        return (0,) * n
    lose = -1 if n == 2 else 0
    return tuple(1 if p == outcome.winner else lose for p in range(n))


def game_name(game: object) -> str:
    """How messages name a game: its ``name`` if it has one (an optional member), else its class's."""
    return str(getattr(game, "name", type(game).__name__))


def win_score(max_plies: int, moves_before_win: int) -> int:
    """Depth-aware score of a win: ``(C + 1 - n) // 2`` (Pascal Pons's convention).

    ``n`` is the number of moves played before the game-ending move, counted
    from the game's initial position.  A loss scores the negation; a draw 0.

    >>> win_score(9, 4)   # X completes a line with the 5th move of 3x3
    3
    >>> win_score(42, 6)  # first player's 4th stone on 7x6 Connect Four
    18
    """
    return (max_plies + 1 - moves_before_win) // 2


def end_score(game: Game[S, M], state: S) -> int | None:
    """The score of a finished game for the side to move there (None: not over): depth-aware
    (:func:`win_score`) for a win/draw/loss game, the final margin (a whole number) for a margin game."""
    out = game.outcome(state)
    if out is None:
        return None
    if game.info.margin:
        return int(payoffs(game, out)[game.to_move(state)])
    if out.winner is None:
        return 0
    won = win_score(game.info.max_plies, game.ply(state) - 1)
    return won if out.winner == game.to_move(state) else -won


@runtime_checkable
class Game(Protocol[S, M]):
    """The rules of a game: by default two-player, zero-sum, deterministic, perfect-information,
    won, drawn or lost; :class:`GameInfo` declares any other kind (margins, chance, more players).

    Required members are the ones below.  Optional members the core uses when
    present (grouped in the capability protocols further down: see
    :func:`capabilities`):

    - ``canonical_key(state) -> Hashable``: the same key for all positions
      equivalent under the game's symmetries (used by the transposition cache).
      A game may give up the sharing where it does not pay (Connect Four keys
      positions deep in the game as they are), as long as the key is a function
      of the position;
    - ``symmetries(state) -> Iterable[state]``: the equivalent positions;
    - ``evaluate(state) -> float``: heuristic value for the side to move,
      strictly between -1 and 1, used at the depth limit (a margin game's:
      an estimate of its final margin, strictly inside ``payoff_bounds``);
    - ``check_move(state, move)``: raise :class:`IllegalMoveError` saying why
      a move is illegal.  It must reject *every* illegal move: when a game has
      it, :func:`checked_play` trusts it instead of searching ``legal_moves``
      (default: a generic message after that search);
    - ``split_moves(text) -> list[str]``: split a move sequence into move
      texts (default: on white space);
    - ``replay(state, texts) -> state``: the state after the move texts, read
      and checked like :func:`play_text` does, only faster (a batch of long
      positions spends much of its time there).  For a malformed or illegal
      move it raises any :class:`GameError`: :func:`play_text` then plays the
      moves one by one to name the offending move and say why;
    - ``options() -> dict``: the option values that recreate the game from its
      :class:`~gametree.plugin.registry.GameSpec` (:class:`Configurable`, which reports use).
    """

    info: GameInfo

    def initial_state(self) -> S:
        """The position the game starts from."""
        ...

    def to_move(self, state: S) -> int:
        """The player to move (0, 1, ... up to ``info.players - 1``), or :data:`CHANCE` at a chance node."""
        ...

    def ply(self, state: S) -> int:
        """Moves played since the initial state (n in the score formula)."""
        ...

    def legal_moves(self, state: S) -> Sequence[M]:
        """Legal moves, best-first if the game knows a good order; empty when over.  At a
        chance node: the outcomes of :meth:`Stochastic.chance_outcomes`, in the same order."""
        ...

    def play(self, state: S, move: M) -> S:
        """The state after ``move``; the move is assumed legal (see :func:`checked_play`)."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """``None`` while the game goes on, else how it ended."""
        ...

    def key(self, state: S) -> Hashable:
        """A compact hashable key that determines the state's value.

        If the same arrangement can be reached after different numbers of
        moves, the key must include the ply (depth-aware scores depend on it).
        """
        ...

    def parse_move(self, state: S, text: str) -> M:
        """Read move text; raise :class:`MoveParseError` if it is malformed."""
        ...

    def format_move(self, state: S, move: M) -> str:
        """The canonical text of ``move`` (``parse_move`` reads it back)."""
        ...

    def render(self, state: S) -> str:
        """A plain-text picture of the state."""
        ...


# -- capabilities: the optional members, typed ----------------------------------------------------
@runtime_checkable
class NodeNames(Protocol[S_contra]):
    """A game that names its positions for a search's trace (a textbook tree's node letters)."""

    def node_name(self, state: S_contra) -> str:
        """The name of ``state`` in a list of the nodes a search expanded (``trace=True``)."""
        ...


@runtime_checkable
class Ranked(Protocol[S]):
    """A game whose positions have a perfect hash: a rank from 0 to ``position_count() - 1`` for each
    position, and back.  Optional; an algorithm that keeps one value a position in an array uses it
    (value iteration: :mod:`gametree.search.valueiteration`) instead of a dictionary of states.

    ``rank`` must be a function of :meth:`Game.key` (positions of the same key, the same rank: a
    game may give every finished game of the same outcome one rank), and ``unrank(rank(s))`` a
    position of the same key as ``s`` (its ply need not be kept).  Ranks no reachable position
    has are allowed (they cost an array entry each)."""

    def position_count(self) -> int:
        """How many ranks there are."""
        ...

    def rank(self, state: S) -> int:
        """The rank of ``state``'s position, from 0 to ``position_count() - 1``."""
        ...

    def unrank(self, rank: int) -> S:
        """A position of rank ``rank``."""
        ...


#: What :meth:`RankedMoves.ranked_moves` gives as the mover of a finished game's rank.
FINISHED: Final = -2


@runtime_checkable
class RankedMoves(Protocol):
    """A :class:`Ranked` game that also gives every rank's moves at once, as arrays (numpy), so an
    algorithm over all positions need not call the rules position by position (Pig to 100: two
    million positions).  Optional, and only a speed-up: it must agree with the rules."""

    def ranked_moves(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For every rank ``r``: ``mover[r]`` (0, 1, :data:`CHANCE`, or :data:`FINISHED`),
        ``payoff[r]`` (a finished game's payoff for the first player, else 0), and its children in
        compressed rows: the ranks ``child[start[r]:start[r + 1]]`` after each of its moves, in
        ``legal_moves``' order (chance's outcomes in ``chance_outcomes``' order), with ``prob``
        (an outcome's probability, 1.0 for a player's move).  Returns
        ``(mover, payoff, start, child, prob)``."""
        ...


@runtime_checkable
class Stochastic(Protocol[S_contra, M_co]):
    """A game with chance nodes (``info.deterministic`` False): where :meth:`Game.to_move`
    is :data:`CHANCE`, chance picks the move."""

    def chance_outcomes(self, state: S_contra) -> Sequence[tuple[M_co, Probability]]:
        """At a chance node, each outcome (a move for :meth:`Game.play`) with its probability,
        exact as a :class:`~fractions.Fraction` where the game knows it; the probabilities
        are positive and sum to 1.  Asked only where ``to_move(state)`` is :data:`CHANCE`."""
        ...


@runtime_checkable
class Symmetric(Protocol[S_contra]):
    """A game whose transposition-table key is shared by symmetric positions."""

    def canonical_key(self, state: S_contra) -> Hashable:
        """The same key for all positions equivalent under the game's symmetries.

        A game may give up the sharing where it does not pay (Connect Four keys
        positions deep in the game as they are), as long as the key is a
        function of the position."""
        ...


@runtime_checkable
class SymmetryImages(Protocol[S]):
    """A game that lists a position's symmetric images."""

    def symmetries(self, state: S) -> Iterable[S]:
        """The positions equivalent to ``state`` (itself included)."""
        ...


@runtime_checkable
class Heuristic(Protocol[S_contra]):
    """A game with a heuristic evaluation for depth-limited searches."""

    def evaluate(self, state: S_contra) -> float:
        """The value of ``state`` for the side to move, strictly between -1 and 1; for a margin game
        (``GameInfo.margin``), an estimate of the final margin for the side to move, strictly inside
        ``GameInfo.payoff_bounds`` (the engine clamps it there: it is never taken for a proven margin)."""
        ...


@runtime_checkable
class PayoffHeuristic(Protocol[S_contra]):
    """A game with a heuristic estimate of every player's payoff, for depth-limited max^n and
    paranoid searches (a game of three or more players has no single "value for the side to move")."""

    def evaluate_all(self, state: S_contra) -> tuple[Payoff, ...]:
        """Each player's estimated payoff in ``state``, by player number.  Each estimate lies within
        ``info.payoff_bounds`` and their sum is at most ``info.payoff_sum`` where the game declares
        them (max^n's shallow pruning relies on it)."""
        ...


@runtime_checkable
class ThreatAware(Protocol[S_contra, M_co]):
    """A game that knows its immediate threats; the exact solver then never searches a
    position one move from the end, nor a move the opponent punishes at once.

    A game that provides these must end only by its winner's own move (not misere).
    """

    def immediate_win(self, state: S_contra) -> bool:
        """Can the side to move win with its next move?"""
        ...

    def safe_moves(self, state: S_contra) -> Sequence[M_co]:
        """The moves, best first, that leave the opponent no immediate win (empty when every move loses at once)."""
        ...

    def has_safe_move(self, state: S_contra) -> bool:
        """Is ``safe_moves(state)`` not empty (asked without ordering the moves)?"""
        ...


@runtime_checkable
class FastThreats(Protocol[S_contra, M]):
    """Shortcuts for a :class:`ThreatAware` game's hottest questions."""

    def has_safe_reply(self, state: S_contra, move: M) -> bool:
        """``has_safe_move(play(state, move))``, without building the state."""
        ...

    def safe_moves_unordered(self, state: S_contra) -> Sequence[M]:
        """The moves of ``safe_moves(state)`` in any order (spares the ordering)."""
        ...


@runtime_checkable
class Replayable(Protocol[S]):
    """A game that reads a whole move sequence at once."""

    def replay(self, state: S, texts: Sequence[str]) -> S:
        """The state after the move texts, read and checked as :func:`play_text` does, only faster.

        For a malformed or illegal move it raises any :class:`GameError`:
        :func:`play_text` then plays the moves one by one to name the offending
        move and say why."""
        ...


@runtime_checkable
class MoveChecker(Protocol[S_contra, M_contra]):
    """A game that says why a move is illegal."""

    def check_move(self, state: S_contra, move: M_contra) -> None:
        """Raise :class:`IllegalMoveError` saying why ``move`` is illegal.  It must reject
        *every* illegal move: :func:`checked_play` trusts it instead of searching ``legal_moves``."""
        ...


@runtime_checkable
class MoveSplitter(Protocol):
    """A game whose move sequences are not simply separated by white space."""

    def split_moves(self, text: str) -> list[str]:
        """Split a move sequence into move texts."""
        ...


@runtime_checkable
class MoveHelp(Protocol):
    """A game that tells a player how to type a move."""

    @property
    def move_help(self) -> str:
        """One line: how to type a move."""
        ...


@runtime_checkable
class BoardView(Protocol[S_contra, M_contra]):
    """A game drawn as a grid of cells (diagrams, the terminal board, the explorer)."""

    @property
    def row_labels(self) -> Sequence[str]:
        """Labels of the rows, top to bottom."""
        ...

    @property
    def column_labels(self) -> Sequence[str]:
        """Labels of the columns, left to right."""
        ...

    def board_cells(self, state: S_contra) -> Sequence[Sequence[str]]:
        """The cells, row by row from the top, as short strings ("" for empty)."""
        ...

    def move_cell(self, state: S_contra, move: M_contra) -> tuple[int, int]:
        """The (row, column) where ``move`` puts its mark."""
        ...

    def winning_cells(self, state: S_contra) -> Iterable[tuple[int, int]]:
        """The cells of the line that won the game, if it is won."""
        ...


@runtime_checkable
class Configurable(Protocol):
    """A game that can say which of its declared options make it what it is.

    Not one of the search's :class:`Capabilities`: only reports ask for it, once
    (``gametree solve --json`` shows these options, not the ones typed).
    """

    def options(self) -> dict[str, Any]:
        """The values of the game's declared options (by their names) that recreate this very
        game with ``spec.create(**game.options())``, each resolved (3x3 tic-tac-toe:
        ``{"width": 3, "height": 3, "k": 3}``, whether ``--size 3`` or nothing was given)
        and JSON-serialisable."""
        ...


@dataclass(frozen=True, slots=True)
class RuleSet:
    """A game's rules as numba functions: the one object a rules module exports (docs/plugins.md,
    "Compiled rules").

    The compiled engine closes its search over these functions (numba compiles
    one search for each rule set, which calls them as compiled code).  A position is two
    unsigned 64-bit words seen from the side to move (for a board game: its
    stones and all stones, or its stones and the opponent's), a move an
    integer; each function gets ``g``, the board's constants (the
    :class:`CompiledRules` ``board``, its fields read by name), first, and
    ``out`` is an ``int64`` array of ``max_moves`` slots:

    - ``moves(g, a, b, out) -> int``: the legal moves, written into ``out`` in
      the order to try them; how many (0: the game is over, scored by ``no_moves``);
    - ``play(g, a, b, m) -> (a, b)``: the position after move ``m``, seen from the next side to move;
    - ``ends(g, a, b, m) -> int``: 1 if ``m`` wins at once for the side playing it,
      -1 if it loses at once, 0 if the game goes on (or ends for want of moves);
    - ``key(g, a, b, p, symmetric) -> (k1, k2)``: two words that identify the
      position at ply ``p`` (the same for its symmetric images when ``symmetric``);

    and, optionally, both of these or neither (then the engine searches as Pascal
    Pons's solver: it never enters a position one move from the end); half of the
    pair raises :class:`IncompleteCapabilityError`, as half of :class:`ThreatAware` does:

    - ``win_now(g, a, b) -> bool``: whether the side to move can win with one move;
    - ``safe_moves(g, a, b, out, ordered, p) -> int``: as ``moves``, only the moves
      after which the opponent cannot win at once, best first when ``ordered``
      (``p``: the position's ply, as ``key`` gets it)
      (else in any order, as cheaply as possible: the engine only asks whether
      there is one, or will settle each child by that); never asked when
      ``win_now`` holds.

    A margin game (``GameInfo.margin``) gives one more function, and not the
    threat-aware pair (a margin is not settled by who wins next move):

    - ``score(g, a, b) -> int``: the final margin for the side to move of a
      position where ``moves`` found none (the game is over); the engine then
      scores every end so, never asks ``ends``, and bounds scores by the game's
      ``payoff_bounds``.

    A margin game's rules may also give either or both of these (optional; other rules leave them out):

    - ``finish(g, a, b, alpha, beta) -> (bool, int)``: ``(True, v)`` for a position
      the rules solve at once themselves (few squares left, say), ``v`` its fail-soft
      value for the window ``(alpha, beta)`` (as the engine's own search would bound it:
      at most ``alpha`` bounds it from above, at least ``beta`` from below, between them
      exact), else ``(False, 0)``; the engine asks it at every node below the root
      first, and counts a finished position as one node, a terminal;
    - ``table_use(g, a, b) -> int``: what the engine's table does for a position it
      searches: 0 nothing (a small search, cheaper than a probe), 1 the usual (a probe,
      then a store), 2 the usual and first a probe of each child's entry, cutting at
      once if one's bound suffices (a large search: "enhanced transposition cutoff").
    """

    moves: Callable[..., int]
    play: Callable[..., tuple[np.uint64, np.uint64]]
    ends: Callable[..., int]
    key: Callable[..., tuple[np.uint64, np.uint64]]
    win_now: Callable[..., bool] | None = None
    safe_moves: Callable[..., int] | None = None
    score: Callable[..., int] | None = None
    finish: Callable[..., tuple[bool, int]] | None = None
    table_use: Callable[..., int] | None = None

    def __post_init__(self) -> None:
        if self.score is not None and self.win_now is not None:
            raise IncompleteCapabilityError(
                f"the RuleSet of {self.moves.__module__} has score and the threat-aware pair: a margin game's "
                "rules have score alone"
            )
        for name, function in (("finish", self.finish), ("table_use", self.table_use)):
            if function is not None and self.score is None:
                raise IncompleteCapabilityError(
                    f"the RuleSet of {self.moves.__module__} has {name} but not score (it is for margin games' rules)"
                )
        if (self.win_now is None) != (self.safe_moves is None):
            present, missing = ("win_now", "safe_moves") if self.safe_moves is None else ("safe_moves", "win_now")
            raise IncompleteCapabilityError(
                f"the RuleSet of {self.moves.__module__} has {present} but not {missing} (threat-aware rules need both)"
            )

    @property
    def threat_aware(self) -> bool:
        """Whether the rules have ``win_now`` and ``safe_moves``."""
        return self.safe_moves is not None


#: A board's constants, for compiled rules: a ``NamedTuple`` whose fields are ints from 0 to
#: 2**64 - 1 or tuples of them, read by name; in compiled code each int is a ``uint64`` and each
#: tuple a ``uint64`` array of 64 words, padded with zeros (see
#: :func:`gametree.search.kernel.board_constants`).
BoardConstants: TypeAlias = tuple[int | tuple[int, ...], ...]


@dataclass(frozen=True)
class CompiledRules:
    """A game's rules as compiled functions for one board, for the compiled engine (docs/plugins.md,
    "Compiled rules").

    ``functions`` returns the :class:`RuleSet` (it imports the rules module, and
    numba with it, when the engine is built: a game's ``compiled_rules()`` stays
    cheap); ``board`` holds the board's constants by name (:data:`BoardConstants`:
    one compiled search serves every board of the game, its constants an argument,
    unless ``specialise`` asks for a search of this board's own).
    ``encode`` turns one of the game's states into its two words;
    ``encode_move`` and ``decode_move`` translate a move of a state.
    ``no_moves`` scores a position whose side to move has no legal move: 0 a
    draw, -1 a loss, 1 a win (of the game's last move).  ``key_bits``: when every
    key's second word is 0 and its first is below ``2 ** key_bits`` (at most 64),
    say so: the compiled table then keeps 8-byte entries (the default, 128: two words).
    ``specialise``: compile a search for this board alone, its constants folded into
    the machine code (7x6 Connect Four: 12 to 15% less time a node), at the price of
    a compile of its own for the board (seconds, once: cached on disk as the game's
    shared search is); for the boards a game expects long searches on.
    """

    functions: Callable[[], RuleSet]
    board: BoardConstants
    encode: Callable[[Any], tuple[int, int]]
    encode_move: Callable[[Any, Any], int]
    decode_move: Callable[[Any, int], Any]
    no_moves: int = 0
    max_moves: int = 64
    key_bits: int = 128
    specialise: bool = False


@runtime_checkable
class Compilable(Protocol):
    """A game that offers compiled rules to the compiled engine."""

    def compiled_rules(self) -> CompiledRules | None:
        """The rules of this game as compiled functions, or None where they do not apply
        (a board too large for 64 bits).  Cheap: numba is imported only by the engine."""
        ...


@dataclass(frozen=True, slots=True)
class TierFunctions:
    """A tiered game's perfect hash as numba functions (:class:`CompiledTiers`), for the compiled
    tier solver (:mod:`gametree.search.tiers`).  A position is the two words of the game's
    :class:`RuleSet` (``(a, b)``, seen from the side to move); ``t`` is the tiers' constants (the
    :class:`CompiledTiers` ``board``, read by name, as ``g`` is the rules'):

    - ``rank(t, tier, a, b) -> int``: the position's index in its tier, from 0 to the tier's size - 1;
    - ``unrank(t, tier, i) -> (a, b)``: the position of index ``i`` in ``tier``.
    """

    rank: Callable[..., int]
    unrank: Callable[..., tuple[np.uint64, np.uint64]]


@dataclass(frozen=True)
class CompiledTiers:
    """A tiered game's perfect hash for one board, compiled: ``functions`` returns the
    :class:`TierFunctions` (it imports numba: called only when a tier solver is built), ``board``
    holds their constants by name (:data:`BoardConstants`), ``sizes`` each tier's number of indices."""

    functions: Callable[[], TierFunctions]
    board: BoardConstants
    sizes: tuple[int, ...]


@runtime_checkable
class Tiered(Protocol[S]):
    """A game whose positions fall into tiers (Connect Four and m,n,k: the number of stones), each
    with a perfect hash: an index from 0 to ``tier_size(tier) - 1`` for each position of the tier,
    and back.  Every move leads from a tier to the next one (so a game never repeats a position and
    tier ``t`` holds positions of ply ``t``).  Optional: the tier solver
    (:mod:`gametree.search.tiers`) keeps one value a position in a dense array per tier.

    Indices no reachable position has are allowed (they cost an array entry each, and are never
    reported as positions); ``tier_unrank`` of such an index gives some arrangement of the tier,
    which need not be reachable."""

    def tier_count(self) -> int:
        """How many tiers there are (tier 0 holds the start)."""
        ...

    def tier_size(self, tier: int) -> int:
        """How many indices tier ``tier`` has."""
        ...

    def tier_position(self, state: S) -> tuple[int, int]:
        """``(tier, index)`` of ``state``."""
        ...

    def tier_unrank(self, tier: int, index: int) -> S:
        """The position of ``index`` in ``tier``."""
        ...

    def compiled_tiers(self) -> CompiledTiers | None:
        """The perfect hash as compiled functions, or None where there are none for this board
        (the compiled tier solver needs them and the game's :class:`CompiledRules`)."""
        ...


@dataclass(frozen=True, slots=True)
class Capabilities(Generic[S, M]):
    """The optional members a game has, each the game itself typed as that protocol, or None.

    Built once per game by :func:`capabilities` (and checked when a game is
    created from its :class:`gametree.GameSpec`); code that uses an optional
    member takes it from here, typed, rather than asking the game with ``getattr``.
    """

    symmetric: Symmetric[S] | None = None
    images: SymmetryImages[S] | None = None
    heuristic: Heuristic[S] | None = None
    threats: ThreatAware[S, M] | None = None
    fast_threats: FastThreats[S, M] | None = None
    replayable: Replayable[S] | None = None
    checker: MoveChecker[S, M] | None = None
    splitter: MoveSplitter | None = None
    help: MoveHelp | None = None
    board: BoardView[S, M] | None = None
    compiled: Compilable | None = None
    stochastic: Stochastic[S, M] | None = None
    node_names: NodeNames[S] | None = None
    payoff_heuristic: PayoffHeuristic[S] | None = None
    tiered: Tiered[S] | None = None

    def names(self) -> tuple[str, ...]:
        """The capabilities present, by field name."""
        return tuple(f.name for f in fields(self) if getattr(self, f.name) is not None)


#: Each capability: its field, its protocol and the members that make it up.
_PROTOCOLS: tuple[tuple[str, type, tuple[str, ...]], ...] = (
    ("symmetric", Symmetric, ("canonical_key",)),
    ("images", SymmetryImages, ("symmetries",)),
    ("heuristic", Heuristic, ("evaluate",)),
    ("threats", ThreatAware, ("has_safe_move", "immediate_win", "safe_moves")),
    ("fast_threats", FastThreats, ("has_safe_reply", "safe_moves_unordered")),
    ("replayable", Replayable, ("replay",)),
    ("checker", MoveChecker, ("check_move",)),
    ("splitter", MoveSplitter, ("split_moves",)),
    ("help", MoveHelp, ("move_help",)),
    ("board", BoardView, ("board_cells", "column_labels", "move_cell", "row_labels", "winning_cells")),
    ("compiled", Compilable, ("compiled_rules",)),
    ("stochastic", Stochastic, ("chance_outcomes",)),
    ("node_names", NodeNames, ("node_name",)),
    ("payoff_heuristic", PayoffHeuristic, ("evaluate_all",)),
    ("tiered", Tiered, ("compiled_tiers", "tier_count", "tier_position", "tier_size", "tier_unrank")),
)


class IncompleteCapabilityError(GameError, TypeError):
    """A game has some of a capability's members but not all of them."""


#: Games whose capabilities were worked out, by identity (the game itself kept with them, so an
#: id is never mistaken for a later object's); cleared when it holds ``_KNOWN_GAMES``.
_known: dict[int, tuple[object, Capabilities[Any, Any]]] = {}
_KNOWN_GAMES = 64


def capabilities(game: Game[S, M]) -> Capabilities[S, M]:
    """Which optional protocols ``game`` follows.

    Raises :class:`IncompleteCapabilityError` for a game that has part of a
    capability (``immediate_win`` without ``safe_moves``, say): a half-written
    capability would silently be ignored otherwise.  Worked out once per game
    object: ``isinstance`` against ten runtime protocols costs more than a small
    search, and every search asks.
    """
    known = _known.get(id(game))
    if known is not None and known[0] is game:
        return known[1]
    found = _capabilities_of(game)
    if len(_known) >= _KNOWN_GAMES:
        _known.clear()
    _known[id(game)] = (game, found)
    return found


def _capabilities_of(game: Game[S, M]) -> Capabilities[S, M]:
    found: dict[str, Any] = {}
    for name, protocol, members in _PROTOCOLS:
        if isinstance(game, protocol):
            found[name] = game
            continue
        present = [m for m in members if hasattr(game, m)]
        if present:
            missing = [m for m in members if m not in present]
            raise IncompleteCapabilityError(
                f"{type(game).__name__} has {', '.join(present)} but not {', '.join(missing)} "
                f"({protocol.__name__} needs all of them)"
            )
    return Capabilities(**found)


#: The game :func:`checked_play` and :func:`play_text` last saw, with its move tools
#: (checker, splitter, replayable).  They run once per move or per position, where
#: even one ``isinstance`` check against a runtime protocol costs several times the
#: move check itself (docs/performance-log.md); an identity test is nearly free.
_last_tools: tuple[object, MoveChecker[Any, Any] | None, MoveSplitter | None, Replayable[Any] | None] = (
    None,
    None,
    None,
    None,
)


def _move_tools(game: Game[S, M]) -> tuple[object, MoveChecker[S, M] | None, MoveSplitter | None, Replayable[S] | None]:
    """``(game, checker, splitter, replayable)``: the game typed as each of those protocols, or None.

    Unlike :func:`capabilities` this does not reject a game with part of some
    other capability: these two functions never complained about one.
    """
    global _last_tools
    tools = _last_tools
    if tools[0] is not game:
        tools = _last_tools = (
            game,
            game if isinstance(game, MoveChecker) else None,
            game if isinstance(game, MoveSplitter) else None,
            game if isinstance(game, Replayable) else None,
        )
    return tools


def checked_play(game: Game[S, M], state: S, move: M) -> S:
    """Play ``move`` after checking that the game is on and the move legal."""
    if game.outcome(state) is not None:
        raise GameOverError(f"the game is already over; {game.format_move(state, move)} cannot be played")
    checker = _move_tools(game)[1]
    if checker is not None:
        checker.check_move(state, move)  # complete by contract: no need to generate (and order) the legal moves
    elif move not in game.legal_moves(state):
        raise IllegalMoveError(f"illegal move {game.format_move(state, move)}")
    return game.play(state, move)


def play_text(game: Game[S, M], text: str, state: S | None = None) -> S:
    """Play a whitespace-separated move sequence from ``state`` (default: the start).

    Raises :class:`MoveParseError` or :class:`IllegalMoveError` naming the
    offending move (cut to 60 characters) and its position in the sequence.
    A plain ``ValueError`` from the game's ``parse_move`` (its ``int()`` of a
    number over 4,300 digits, say) is a :class:`MoveParseError` too.
    """
    if state is None:
        state = game.initial_state()
    _, _, splitter, replayable = _move_tools(game)
    tokens = splitter.split_moves(text) if splitter is not None else text.split()
    if replayable is not None:
        try:
            return replayable.replay(state, tokens)
        except GameError:
            pass  # one by one below, to say which move is wrong and why

    def failed(kind: type[GameError], number: int, token: str, exc: Exception) -> GameError:
        shown = token if len(token) <= 60 else token[:57] + "..."  # a megabyte of input is not echoed (twice)
        return kind(f"move {number} ({shown!r}): {str(exc).replace(token, shown)}")

    for number, token in enumerate(tokens, start=1):
        try:
            move = game.parse_move(state, token)
            state = checked_play(game, state, move)
        except GameError as exc:
            raise failed(type(exc), number, token, exc) from None
        except ValueError as exc:  # bad input all the same (the play prompt treats it so too)
            raise failed(MoveParseError, number, token, exc) from None
    return state
