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

#: A subtree's value while a random tree is drawn: MAX's value (two players) or each player's payoff.
Values = tuple[Fraction, ...]

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
    *,
    depth: int,
    branching: int,
    low: int,
    high: int,
    seed: int,
    chance: bool = False,
    players: int = 2,
    ordered: bool = False,
) -> str:
    """The text of a random tree (see the module's docstring); the same arguments give the same text.

    ``ordered``: the same tree with each player's children in best-first order (MAX's highest
    value first, MIN's lowest; with more players, the mover's highest payoff first), the order
    that lets alpha-beta and Star2 prune the most; chance outcomes keep their order."""
    check_random(depth, branching, low, high, players)
    rng = random.Random(seed)

    def turn_of(level: int) -> int:
        return (level // 2 if chance else level) % players

    def kind(level: int) -> str:
        if chance and level % 2 == 1:
            return "chance"
        turn = turn_of(level)
        if players == 2:
            return ("max", "min")[turn]
        return f"p{turn + 1}"

    def leaf() -> tuple[str, Values]:
        if players == 2:
            value = rng.randint(low, high)
            return str(value), (Fraction(value),)
        payoffs = [rng.randint(low, high) for _ in range(players)]
        return "(" + ",".join(str(v) for v in payoffs) + ")", tuple(Fraction(v) for v in payoffs)

    def node(level: int) -> tuple[str, Values]:
        """A subtree's text and its value (MAX's, or each player's payoff), the values drawn in
        the same order whether the tree is ordered or not."""
        if level == depth:
            return leaf()
        name = kind(level)
        children = [node(level + 1) for _ in range(branching)]
        if name == "chance":
            odds = [rng.randint(1, 4) for _ in children]
            total = sum(odds)
            texts = [f"{number_text(Fraction(o, total))}: {text}" for o, (text, _) in zip(odds, children, strict=True)]
            expected = tuple(
                sum((Fraction(o, total) * values[i] for o, (_, values) in zip(odds, children)), Fraction(0))
                for i in range(len(children[0][1]))
            )
            return f"{name}({' '.join(texts)})", expected
        turn = turn_of(level)
        if players == 2:  # MAX's value: MAX takes the highest, MIN the lowest
            best = max if turn == 0 else min
            index, sign = 0, 1 if turn == 0 else -1
        else:
            best, index, sign = max, turn, 1
        if ordered:
            children.sort(key=lambda child: -sign * child[1][index])  # (stable: ties keep their order)
        value = best((child[1] for child in children), key=lambda values: values[index])
        return f"{name}({' '.join(text for text, _ in children)})", value

    return node(0)[0]
