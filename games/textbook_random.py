"""Random teaching trees: the text of a tree of given depth, branching, value range and seed.

Like Berkeley CS61B's abTreePractice: every inner node has ``branching``
children, every leaf a whole value from ``low`` to ``high``.  With ``chance``,
chance levels alternate with the players' levels (the 2nd, 4th, ... levels
are chance nodes, as in a backgammon tree), each outcome with a probability
in small whole-number odds (1/4, 3/8, ...).  With ``players`` above 2 the
leaves are payoff vectors and the players move in turn, p1, p2, ...

>>> random_tree_text(depth=2, branching=2, low=0, high=9, seed=1)
'max(min(2 9) min(1 4))'
"""

from __future__ import annotations

import random
from fractions import Fraction

from .textbook_notation import MAX_DEPTH, MAX_NODES, MAX_PLAYERS, number_text

__all__ = ["MAX_VALUE", "check_random", "random_tree_text"]

#: The largest leaf value (by magnitude) of a random tree.
MAX_VALUE = 10**9


def check_random(depth: int, branching: int, low: int, high: int, players: int) -> None:
    """Refuse, with a ``ValueError`` naming the option, what cannot make a random tree."""
    if not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"--tree-depth must be between 1 and {MAX_DEPTH}, not {depth}")
    if branching < 1:
        raise ValueError(f"--branching must be at least 1, not {branching}")
    nodes = sum(branching**level for level in range(depth + 1)) if branching > 1 else depth + 1
    if nodes > MAX_NODES:
        raise ValueError(
            f"--branching {branching} with --tree-depth {depth} makes {nodes:,} nodes, more than {MAX_NODES:,}"
        )
    if low > high:
        raise ValueError(f"--low {low} is above --high {high}")
    if max(abs(low), abs(high)) > MAX_VALUE:
        raise ValueError(f"--low and --high must lie between {-MAX_VALUE:,} and {MAX_VALUE:,}")
    if not 2 <= players <= MAX_PLAYERS:
        raise ValueError(f"--players must be between 2 and {MAX_PLAYERS}, not {players}")


def random_tree_text(
    *, depth: int, branching: int, low: int, high: int, seed: int, chance: bool = False, players: int = 2
) -> str:
    """The text of a random tree (see the module's docstring); the same arguments give the same text."""
    check_random(depth, branching, low, high, players)
    rng = random.Random(seed)

    def kind(level: int) -> str:
        if chance and level % 2 == 1:
            return "chance"
        turn = (level // 2 if chance else level) % players
        if players == 2:
            return ("max", "min")[turn]
        return f"p{turn + 1}"

    def leaf() -> str:
        if players == 2:
            return str(rng.randint(low, high))
        return "(" + ",".join(str(rng.randint(low, high)) for _ in range(players)) + ")"

    def node(level: int) -> str:
        if level == depth:
            return leaf()
        name = kind(level)
        children = [node(level + 1) for _ in range(branching)]
        if name == "chance":
            odds = [rng.randint(1, 4) for _ in children]
            total = sum(odds)
            children = [f"{number_text(Fraction(o, total))}: {c}" for o, c in zip(odds, children, strict=True)]
        return f"{name}({' '.join(children)})"

    return node(0)
