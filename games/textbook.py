"""The trees teachers draw: a game read from the tree notation, or a random tree.

AIMA's Figure 5.2, ``max(min(3 12 8) min(2 4 6) min(14 5 2))``, is the
default game.  A position is a node of the tree (its number, breadth-first); a
move is the number of a child, written as AIMA writes it: the moves of node
``B`` are ``b1``, ``b2``, ... (or the plain numbers 1, 2, ...).  The nodes are
named by their labels, else lettered A, B, C, ... breadth-first, and
:meth:`TextbookTree.node_name` gives that name to a search's trace.

What kind of game a tree is follows from what it holds (see
docs/teaching-trees.md): numbers at the leaves make a two-player zero-sum
margin game (MAX's value ``v`` is the payoff ``(v, -v)``); chance nodes make
it not deterministic (to move there: :data:`gametree.CHANCE`); payoff vectors
make a game of as many players as each vector has payoffs.

>>> game = parse_tree("max(min(3 12 8) min(2 4 6) min(14 5 2))")
>>> root = game.initial_state()
>>> [game.format_move(root, m) for m in game.legal_moves(root)]
['a1', 'a2', 'a3']
>>> game.node_name(game.play(root, game.parse_move(root, "a2")))
'C'
"""

from __future__ import annotations

import os
import random as randomness
import stat
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from gametree import Game, GameInfo, GameSpec, MoveParseError, Option, Outcome, hookimpl
from gametree.game import CHANCE, Payoff, Probability

from .textbook_notation import CHANCE_NODE, LEAF, Tree, TreeSyntaxError, format_tree, parse
from .textbook_random import check_random, random_tree_text

__all__ = ["AIMA_FIGURE_5_2", "MAX_FILE_BYTES", "TextbookTree", "parse_tree", "random_tree", "tree_text"]

#: AIMA (3rd and 4th editions) Figure 5.2: the two-ply game tree whose value is 3.
AIMA_FIGURE_5_2 = "max(min(3 12 8) min(2 4 6) min(14 5 2))"
#: The largest tree file ``--file`` reads.
MAX_FILE_BYTES = 1_000_000

#: The defaults of a random tree (``--random``).
RANDOM_DEFAULTS: dict[str, int] = {"tree_depth": 3, "branching": 3, "low": 0, "high": 20, "players": 2}


def _payoff(value: Fraction) -> Payoff:
    """A payoff as the core takes it: an ``int`` when it is whole, else the exact ``Fraction``."""
    return int(value) if value.denominator == 1 else value


class TextbookTree(Game[int, int]):
    """A game tree given in full: its positions are its nodes (numbers, breadth-first), its moves child numbers."""

    def __init__(self, tree: Tree, options: dict[str, Any] | None = None) -> None:
        self.tree = tree
        self._options = dict(options) if options is not None else {"tree": format_tree(tree)}
        self._payoffs = tuple(tuple(_payoff(v) for v in values) for values in tree.values)
        self._movers = self._leaf_movers()
        leaves = [values for values, kind in zip(tree.values, tree.kinds, strict=True) if kind == LEAF]
        every = [v for values in leaves for v in values]
        sums = {sum(values, Fraction(0)) for values in leaves}
        two = tree.players == 2 and not tree.vectors
        self.info = GameInfo(
            max_plies=tree.height,
            players=tree.players,
            zero_sum=len(sums) == 1,
            deterministic=CHANCE_NODE not in tree.kinds,
            player_names=tree.player_names,
            margin=two,
            payoff_bounds=(_payoff(min(every)), _payoff(max(every))),
            # (the leaves' highest sum: max^n's shallow pruning needs it, and a tree gives it exactly)
            payoff_sum=_payoff(max(sums)) if tree.players > 2 or tree.vectors else None,
        )

    def _leaf_movers(self) -> tuple[int, ...]:
        """Who would move at each node: its player; at a leaf, the player after the last one above it
        (MIN under MAX), as the negamax convention of two-player values needs."""
        tree = self.tree
        movers = [0] * len(tree)
        last = [-1] * len(tree)
        for node, kind in enumerate(tree.kinds):
            above = last[node]
            if kind >= 0:
                movers[node] = kind
                above = kind
            elif kind == LEAF:
                movers[node] = (above + 1) % tree.players if above >= 0 else 0
            else:
                movers[node] = CHANCE
            for child in tree.children[node]:
                last[child] = above
        return tuple(movers)

    @property
    def name(self) -> str:
        tree = self.tree
        leaves = tree.kinds.count(LEAF)
        return f"a textbook tree of {len(tree)} nodes ({leaves} leaves)"

    def __repr__(self) -> str:
        return f"TextbookTree({format_tree(self.tree, width=10**9)!r})"

    def options(self) -> dict[str, Any]:
        """The options that recreate this tree: the random tree's settings and seed, else its text."""
        return dict(self._options)

    @property
    def text(self) -> str:
        """The tree in the notation (:func:`parse_tree` reads it back)."""
        return format_tree(self.tree)

    # -- the protocol ------------------------------------------------------------------
    def initial_state(self) -> int:
        return 0

    def to_move(self, state: int) -> int:
        return self._movers[state]

    def ply(self, state: int) -> int:
        return self.tree.depths[state]

    def legal_moves(self, state: int) -> list[int]:
        """The children, left to right (the order the textbook searches them in)."""
        return list(range(len(self.tree.children[state])))

    def play(self, state: int, move: int) -> int:
        return self.tree.children[state][move]

    def outcome(self, state: int) -> Outcome | None:
        if self.tree.kinds[state] != LEAF:
            return None
        payoffs = self._payoffs[state]
        best = max(payoffs)
        winners = [p for p, v in enumerate(payoffs) if v == best]
        return Outcome(winners[0] if len(winners) == 1 else None, payoffs)

    def key(self, state: int) -> int:
        return state

    def node_name(self, state: int) -> str:
        """The node's label, else its letter (A the root, then breadth-first)."""
        return self.tree.names[state]

    def chance_outcomes(self, state: int) -> Sequence[tuple[int, Probability]]:
        """A chance node's children with their probabilities, exact."""
        return [(i, p) for i, p in enumerate(self.tree.probabilities[state])]

    # -- text ----------------------------------------------------------------------------
    def parse_move(self, state: int, text: str) -> int:
        t = text.strip()
        prefix = self.tree.names[state].lower()
        count = len(self.tree.children[state])
        if count == 0:
            raise MoveParseError(f"node {self.tree.names[state]} is a leaf: it has no moves")
        digits = t[len(prefix) :] if t.lower().startswith(prefix) and t[len(prefix) :].isdecimal() else t
        if not digits.isdecimal() or len(digits) > 6 or not 1 <= int(digits) <= count:
            shown = t if len(t) <= 60 else t[:57] + "..."
            raise MoveParseError(
                f"cannot read {shown!r}: the moves of node {self.tree.names[state]} are {prefix}1 to {prefix}{count}"
            )
        return int(digits) - 1

    def format_move(self, state: int, move: int) -> str:
        return f"{self.tree.names[state].lower()}{move + 1}"

    @property
    def move_help(self) -> str:
        """One line on how to type a move (shown by ``gametree play``)."""
        return "type the node's letter and the child's number, e.g. a2 for the root's second child"

    def render(self, state: int) -> str:
        """The subtree under the node in the notation, headed by the node's name as a label
        (``B: min(3 12 8)``, a leaf ``E: 3``): what a drawing of the tree shows in the node's box."""
        tree = self.tree
        text = format_tree(tree, state)
        return text if tree.labels[state] is not None else f"{tree.names[state]}: {text}"


def parse_tree(text: str) -> TextbookTree:
    """The game of the tree written in ``text`` (see docs/teaching-trees.md).

    Raises:
        ValueError: The text is not a tree (:class:`TreeSyntaxError`: ``LINE:COLUMN: expected ...``).
    """
    return TextbookTree(parse(text))


def random_tree(
    *,
    depth: int = 3,
    branching: int = 3,
    low: int = 0,
    high: int = 20,
    seed: int | None = None,
    chance: bool = False,
    players: int = 2,
    ordered: bool = False,
) -> TextbookTree:
    """A random tree (:mod:`textbook_random`); the same ``seed`` gives the same tree (None: a seed drawn
    at random, which :meth:`TextbookTree.options` reports); ``ordered``: each player's best move first."""
    if seed is None:
        seed = randomness.SystemRandom().randrange(2**32)
    text = random_tree_text(
        depth=depth, branching=branching, low=low, high=high, seed=seed, chance=chance, players=players, ordered=ordered
    )
    options = {
        "random": True,
        "tree_depth": depth,
        "branching": branching,
        "low": low,
        "high": high,
        "tree_seed": seed,
        "chance": chance,
        "players": players,
    }
    if ordered:  # (an option that changes nothing is left out: the options of every other tree stay as they were)
        options["ordered"] = True
    return TextbookTree(parse(text), options)


def tree_text(game: TextbookTree) -> str:
    """The text of ``game``'s tree, for printing an exercise (:func:`parse_tree` reads it back)."""
    return game.text


def read_tree_file(path: str) -> str:
    """The text of a small tree file; ``ValueError`` (``--file PATH: why``) for one that cannot be read,
    is not a regular file, is larger than :data:`MAX_FILE_BYTES` or is not text."""
    try:
        with open(path, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                raise ValueError(f"--file {path}: not a regular file")
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"--file {path}: cannot read it: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"--file {path}: larger than {MAX_FILE_BYTES:,} bytes: not a hand-written tree")
    if b"\0" in data:
        raise ValueError(f"--file {path}: a binary file, not the text of a tree")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"--file {path}: not UTF-8 text") from None


def _make(
    tree: str | None = None,
    file: str | None = None,
    random: bool = False,
    tree_depth: int | None = None,
    branching: int | None = None,
    low: int | None = None,
    high: int | None = None,
    tree_seed: int | None = None,
    chance: bool = False,
    players: int | None = None,
    ordered: bool = False,
) -> TextbookTree:
    """The game of ``--tree``, ``--file`` or ``--random`` (one of them; none: AIMA Figure 5.2)."""
    given = {
        "tree_depth": tree_depth,
        "branching": branching,
        "low": low,
        "high": high,
        "tree_seed": tree_seed,
        "players": players,
    }
    sources = [
        flag for flag, value in (("--tree", tree), ("--file", file), ("--random", random or None)) if value is not None
    ]
    if len(sources) > 1:
        raise ValueError(
            f"the tree comes from one of --tree, --file and --random, not from {sources[0]} and {sources[1]}"
        )
    if not random:
        stray = [name for name, value in given.items() if value is not None]
        stray += [name for name, flag in (("chance", chance), ("ordered", ordered)) if flag]
        if stray:
            raise ValueError(f"--{stray[0].replace('_', '-')} makes a random tree: add --random")
    if random:
        settings = {name: value if value is not None else RANDOM_DEFAULTS.get(name) for name, value in given.items()}
        check_random(
            int(settings["tree_depth"] or 0),
            int(settings["branching"] or 0),
            int(settings["low"] or 0),
            int(settings["high"] or 0),
            int(settings["players"] or 0),
        )
        return random_tree(
            depth=int(settings["tree_depth"] or 0),
            branching=int(settings["branching"] or 0),
            low=int(settings["low"] or 0),
            high=int(settings["high"] or 0),
            seed=settings["tree_seed"],
            chance=chance,
            players=int(settings["players"] or 0),
            ordered=ordered,
        )
    flag, text = (
        ("--file", read_tree_file(file)) if file is not None else ("--tree", AIMA_FIGURE_5_2 if tree is None else tree)
    )
    try:
        return parse_tree(text)
    except TreeSyntaxError as exc:
        where = f"{file}:" if file is not None else ""
        raise ValueError(f"{flag} {where}{exc}") from None


@hookimpl
def gametree_register_games(registry) -> None:  # type: ignore[no-untyped-def]
    registry.add_game(
        GameSpec(
            name="textbook",
            factory=_make,
            summary="a textbook game tree (MAX, MIN, chance nodes, leaf values) typed in or random",
            options=(
                Option("tree", str, None, "The tree, e.g. 'max(min(3 12 8) min(2 4 6))' [default: AIMA Fig. 5.2]."),
                Option("file", str, None, "Read the tree from this text file."),
                Option("random", bool, False, "A random tree (see --tree-depth, --branching, ...)."),
                Option("tree_depth", int, None, "--random: levels of inner nodes [default: 3]."),
                Option("branching", int, None, "--random: children of each inner node [default: 3]."),
                Option("low", int, None, "--random: lowest leaf value [default: 0]."),
                Option("high", int, None, "--random: highest leaf value [default: 20]."),
                Option("tree_seed", int, None, "--random: the seed (the same seed, the same tree)."),
                Option("chance", bool, False, "--random: every second level is a chance node."),
                Option("players", int, None, "--random: players (3 or more: payoff vectors) [default: 2]."),
                Option("ordered", bool, False, "--random: each player's best move first (best-first order)."),
            ),
        )
    )
