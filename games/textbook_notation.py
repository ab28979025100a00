"""The tree notation a teacher writes by hand: read it into a :class:`Tree`, and write a tree back.

AIMA's Figure 5.2 is ``max(min(3 12 8) min(2 4 6) min(14 5 2))``.  The grammar
(docs/teaching-trees.md has it with examples)::

    text     := [players] node
    players  := "players" "(" NAME ("," NAME)* ")"
    node     := [LABEL ":"] (inner | leaf)
    inner    := kind "(" child+ ")"           children apart by white space or commas
    kind     := "max" | "min" | "p1" | "p2" | ... | a name from players(...) | "chance"
    child    := node                          under a player's node
              | PROB ":" node                 under a chance node (the outcome's probability)
    leaf     := NUMBER | "(" NUMBER ("," NUMBER)+ ")"     a value, or a payoff for each player
    NUMBER   := -?DIGITS[.DIGITS] or -?DIGITS/DIGITS      3, -2.5, 7/3 (read exactly)
    PROB     := DIGITS/DIGITS or DIGITS[.DIGITS]          1/6, 0.25, 1

``#`` starts a comment to the end of the line.  A tree is read into a
:class:`Tree` whose nodes are numbered breadth-first (0 is the root), which is
also the order of AIMA's node letters A, B, C, ...
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "CHANCE_NODE",
    "LEAF",
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_PLAYERS",
    "MAX_TEXT",
    "Tree",
    "TreeSyntaxError",
    "format_tree",
    "letters",
    "number_text",
    "parse",
]

#: The kind of a chance node (a player's node has the player's number, 0 for MAX).
CHANCE_NODE = -1
#: The kind of a leaf.
LEAF = -2

#: The most characters a tree's text may hold.
MAX_TEXT = 1_000_000
#: The most nodes a tree may have (leaves included).
MAX_NODES = 100_000
#: The deepest a tree may be (the root's children are at depth 1).
MAX_DEPTH = 100
#: The most players of a tree of payoff vectors.
MAX_PLAYERS = 16
#: The most digits a number may have.
MAX_DIGITS = 30


class TreeSyntaxError(ValueError):
    """Text that is not a tree: the message is one line, ``LINE:COLUMN: expected ...``."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(f"{line}:{column}: {message}")
        self.line, self.column, self.reason = line, column, message


@dataclass(frozen=True, slots=True)
class Tree:
    """A game tree, its nodes numbered breadth-first from the root (0).

    ``kinds[n]`` is the player to move at node ``n`` (0 is MAX, 1 MIN, ...),
    :data:`CHANCE_NODE` or :data:`LEAF`; ``children[n]`` its children, left to
    right; ``probabilities[n]`` a chance node's probability of each child (empty
    for the others); ``values[n]`` a leaf's payoff for each player (MAX's value
    ``v`` is ``(v, -v)`` in a tree of numbers; empty for inner nodes);
    ``names[n]`` its name (its label, else its letter); ``depths[n]`` how many
    moves lead to it; ``players`` how many players there are, ``player_names``
    their names; ``vectors``: the leaves were written as payoff vectors.
    """

    kinds: tuple[int, ...]
    children: tuple[tuple[int, ...], ...]
    probabilities: tuple[tuple[Fraction, ...], ...]
    values: tuple[tuple[Fraction, ...], ...]
    labels: tuple[str | None, ...]
    names: tuple[str, ...]
    depths: tuple[int, ...]
    players: int
    player_names: tuple[str, ...]
    vectors: bool

    def __len__(self) -> int:
        return len(self.kinds)

    @property
    def height(self) -> int:
        """The most moves from the root to a leaf."""
        return max(self.depths)


def letters(index: int) -> str:
    """The ``index``-th node letter: A, B, ..., Z, AA, AB, ... (spreadsheet columns)."""
    text = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        text = chr(65 + rest) + text
    return text


# -- reading ----------------------------------------------------------------------------------
_TOKEN = re.compile(
    r"(?P<space>[ \t\r\n,]+|#[^\n]*)"
    r"|(?P<number>-?\d+(?:/\d+|\.\d+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<punct>[():])"
)


@dataclass(frozen=True, slots=True)
class Token:
    """A token of the text: its kind (``number``, ``name``, ``punct``, ``end``), its text and where it starts."""

    kind: str
    text: str
    line: int
    column: int


def _tokens(text: str) -> Iterator[Token]:
    line, start, pos = 1, 0, 0
    while pos < len(text):
        found = _TOKEN.match(text, pos)
        if found is None:
            char = text[pos]
            shown = f'"{char}"' if char.isprintable() and char not in "'\"" else f"character U+{ord(char):04X}"
            raise TreeSyntaxError(line, pos - start + 1, f"expected a node, a number or a bracket, found {shown}")
        kind = found.lastgroup or "space"
        if kind != "space":
            yield Token(kind, found.group(), line, pos - start + 1)
        else:
            breaks = found.group().count("\n")
            if breaks:
                line += breaks
                start = found.start() + found.group().rindex("\n") + 1
        pos = found.end()
    yield Token("end", "", line, pos - start + 1)


def _shown(token: Token) -> str:
    if token.kind == "end":
        return "the end of the text"
    text = token.text if len(token.text) <= 20 else token.text[:17] + "..."
    return f'"{text}"'  # (double quotes: the command line shortens long text between single ones)


@dataclass
class _Node:
    """A node as read, before the breadth-first numbering."""

    kind: int
    label: str | None
    line: int
    column: int
    children: list[_Node]
    probabilities: list[Fraction]
    values: tuple[Fraction, ...] = ()


class _Reader:
    """A recursive-descent reader over the tokens (at most :data:`MAX_DEPTH` levels deep)."""

    def __init__(self, text: str) -> None:
        if len(text) > MAX_TEXT:
            raise TreeSyntaxError(1, 1, f"a tree of at most {MAX_TEXT:,} characters expected, not {len(text):,}")
        self.tokens = _tokens(text)
        self.token = next(self.tokens)
        self.count = 0
        self.player_names: tuple[str, ...] = ()
        self.vector_size: int | None = None  # the length of the first payoff vector, None before it
        self.scalar_leaves = False

    def fail(self, expected: str, token: Token | None = None) -> TreeSyntaxError:
        token = token or self.token
        return TreeSyntaxError(token.line, token.column, f"expected {expected}, found {_shown(token)}")

    def advance(self) -> Token:
        token, self.token = self.token, next(self.tokens)
        return token

    def expect(self, text: str, expected: str) -> Token:
        if self.token.text != text or self.token.kind not in ("punct", "name"):
            raise self.fail(expected)
        return self.advance()

    def read(self) -> _Node:
        if self.token.kind == "name" and self.token.text == "players":
            self.read_players()
        root = self.node(0)
        if root.kind == LEAF:
            raise TreeSyntaxError(
                root.line, root.column, "expected an inner node at the root (max(...), min(...), ...)"
            )
        if self.token.kind != "end":
            raise self.fail("the end of the tree (one root node)")
        return root

    def read_players(self) -> None:
        self.advance()
        self.expect("(", '"(" and the players\' names after "players"')
        names: list[str] = []
        while self.token.kind == "name":
            name = self.advance()
            if name.text in names or name.text in ("max", "min", "chance", "players") or _player_number(name.text):
                raise TreeSyntaxError(name.line, name.column, f"expected a new player name, found {_shown(name)}")
            names.append(name.text)
        if len(names) < 2:
            raise self.fail("the names of at least two players")
        if len(names) > MAX_PLAYERS:
            raise self.fail(f"at most {MAX_PLAYERS} players")
        self.expect(")", '")" or a player\'s name')
        self.player_names = tuple(names)

    def node(self, depth: int) -> _Node:
        if depth > MAX_DEPTH:
            raise self.fail(f"a tree at most {MAX_DEPTH} levels deep")
        self.count += 1
        if self.count > MAX_NODES:
            raise self.fail(f"a tree of at most {MAX_NODES:,} nodes")
        label = None
        first = self.token
        start_line, start_column = first.line, first.column
        if first.kind == "name":
            self.advance()
            if self.token.text == ":" and self.token.kind == "punct":
                self.advance()
                label = first.text
                first = self.token
            elif self.token.text == "(" and self.token.kind == "punct":
                return self.inner(first, None, depth)
            else:
                raise self.fail("a value like 3, a node like min(...) or a label like B: before it", first)
        if first.kind == "name":
            self.advance()
            node = self.inner(first, label, depth)
        else:
            node = self.leaf(label)
        if label is not None:  # a labelled node is where its label is
            node.line, node.column = start_line, start_column
        return node

    def inner(self, kind_token: Token, label: str | None, depth: int) -> _Node:
        kind = self.kind(kind_token)
        self.expect("(", f'"(" and the children of "{kind_token.text}"')
        node = _Node(kind, label, kind_token.line, kind_token.column, [], [])
        while not (self.token.kind == "punct" and self.token.text == ")"):
            if self.token.kind == "end":
                raise self.fail(
                    f'a child or the ")" closing "{kind_token.text}" at {kind_token.line}:{kind_token.column}'
                )
            if kind == CHANCE_NODE:
                node.probabilities.append(self.probability())
            node.children.append(self.node(depth + 1))
        if not node.children:
            raise self.fail(f'at least one child of "{kind_token.text}"')
        self.advance()
        if kind == CHANCE_NODE:
            total = sum(node.probabilities, Fraction(0))
            if total != 1:
                raise TreeSyntaxError(
                    node.line, node.column, f"expected the probabilities of this chance node to sum to 1, not {total}"
                )
        return node

    def kind(self, token: Token) -> int:
        text = token.text
        if text == "chance":
            return CHANCE_NODE
        if text in ("max", "min"):
            return 0 if text == "max" else 1
        number = _player_number(text)
        if number:
            if number > MAX_PLAYERS:
                raise TreeSyntaxError(token.line, token.column, f"expected a player p1 to p{MAX_PLAYERS}")
            return number - 1
        if text in self.player_names:
            return self.player_names.index(text)
        names = ", ".join(self.player_names) + ", " if self.player_names else ""
        raise TreeSyntaxError(
            token.line, token.column, f'expected max, min, chance, {names}p1, p2, ... before "(", found {_shown(token)}'
        )

    def probability(self) -> Fraction:
        token = self.token
        if token.kind != "number":
            raise self.fail('a probability (1/6, 0.25) and ":" before each outcome of a chance node')
        value = self.number(token)
        self.advance()
        if not 0 < value <= 1:
            raise TreeSyntaxError(
                token.line, token.column, f"expected a probability above 0 and at most 1, not {value}"
            )
        self.expect(":", '":" after the probability')
        return value

    def number(self, token: Token) -> Fraction:
        if sum(c.isdigit() for c in token.text) > MAX_DIGITS:
            raise TreeSyntaxError(token.line, token.column, f"expected a number of at most {MAX_DIGITS} digits")
        if token.text.endswith("/0") or re.search(r"/0+$", token.text):
            raise TreeSyntaxError(token.line, token.column, f"expected a fraction, not a division by 0: {token.text}")
        return Fraction(token.text)

    def leaf(self, label: str | None) -> _Node:
        token = self.token
        if token.kind == "number":
            self.advance()
            if self.vector_size is not None:
                raise TreeSyntaxError(token.line, token.column, "expected a payoff vector like (3,1,2), as elsewhere")
            self.scalar_leaves = True
            value = self.number(token)
            return _Node(LEAF, label, token.line, token.column, [], [], (value, -value))
        if token.kind == "punct" and token.text == "(":
            return self.vector(label)
        raise self.fail("a node: max(...), min(...), chance(...), a value like 3, or a payoff vector like (3,1,2)")

    def vector(self, label: str | None) -> _Node:
        start = self.advance()
        values: list[Fraction] = []
        while self.token.kind == "number":
            values.append(self.number(self.token))
            self.advance()
        self.expect(")", 'a number or the ")" closing the payoff vector')
        if self.scalar_leaves:
            raise TreeSyntaxError(start.line, start.column, "expected a single value like 3, as elsewhere")
        if self.vector_size is None:
            if not 2 <= len(values) <= MAX_PLAYERS:
                raise TreeSyntaxError(
                    start.line, start.column, f"expected a payoff for each of 2 to {MAX_PLAYERS} players"
                )
            self.vector_size = len(values)
        elif len(values) != self.vector_size:
            raise TreeSyntaxError(
                start.line,
                start.column,
                f"expected {self.vector_size} payoffs, as in the first vector, not {len(values)}",
            )
        return _Node(LEAF, label, start.line, start.column, [], [], tuple(values))


def _player_number(text: str) -> int:
    """``p3`` -> 3; 0 for any other name."""
    found = re.fullmatch(r"p([1-9][0-9]{0,3})", text)
    return int(found.group(1)) if found else 0


def parse(text: str) -> Tree:
    """The tree written in ``text``.

    >>> tree = parse("max(min(3 12 8) min(2 4 6) min(14 5 2))")
    >>> tree.names[:4], tree.children[0]
    (('A', 'B', 'C', 'D'), (1, 2, 3))

    Raises:
        TreeSyntaxError: The text is not a tree: ``LINE:COLUMN: expected ...``.
    """
    reader = _Reader(text)
    root = reader.read()
    players = reader.vector_size or 2
    names = reader.player_names or (("MAX", "MIN") if players == 2 else tuple(f"p{i + 1}" for i in range(players)))
    if reader.player_names and len(reader.player_names) != players:
        raise TreeSyntaxError(1, 1, f"expected {len(reader.player_names)} payoffs in each vector, one per player")
    return _numbered(root, players, names, reader.vector_size is not None)


def _numbered(root: _Node, players: int, player_names: tuple[str, ...], vectors: bool) -> Tree:
    """The tree of ``root`` numbered breadth-first, its names given and its players checked."""
    order: list[_Node] = [root]
    depths = [0]
    index = 0
    while index < len(order):
        for child in order[index].children:
            order.append(child)
            depths.append(depths[index] + 1)
        index += 1
    number = {id(node): n for n, node in enumerate(order)}
    for node in order:
        if node.kind >= players:
            raise TreeSyntaxError(node.line, node.column, f"expected a player p1 to p{players} (the vectors' length)")
    if players == 2:
        _check_alternation(order, number)
    labels = tuple(node.label for node in order)
    names = _names(order)
    return Tree(
        kinds=tuple(node.kind for node in order),
        children=tuple(tuple(number[id(c)] for c in node.children) for node in order),
        probabilities=tuple(tuple(node.probabilities) for node in order),
        values=tuple(node.values for node in order),
        labels=labels,
        names=names,
        depths=tuple(depths),
        players=players,
        player_names=player_names,
        vectors=vectors,
    )


def _names(order: list[_Node]) -> tuple[str, ...]:
    """Each node's label, else the next letter breadth-first that no label takes."""
    taken: dict[str, _Node] = {}
    for node in order:
        if node.label is not None:
            if node.label in taken:
                first = taken[node.label]
                raise TreeSyntaxError(
                    node.line, node.column, f'expected a new label: "{node.label}" names {first.line}:{first.column}'
                )
            taken[node.label] = node
    names: list[str] = []
    index = 0
    for node in order:
        if node.label is not None:
            names.append(node.label)
            continue
        while letters(index) in taken:
            index += 1
        names.append(letters(index))
        index += 1
    return tuple(names)


def _check_alternation(order: list[_Node], number: dict[int, int]) -> None:
    """In a two-player tree MAX and MIN take turns (chance nodes between them aside): a
    search's values are seen from the side to move, negated at each move."""
    mover: dict[int, int] = {}  # node -> the player who moved last above it (-1: nobody)
    mover[id(order[0])] = -1
    for node in order:
        above = mover[id(node)]
        if node.kind >= 0:
            if above == node.kind:
                side = "MAX" if node.kind == 0 else "MIN"
                raise TreeSyntaxError(
                    node.line, node.column, f"expected MAX and MIN to take turns: {side} moves twice in a row here"
                )
            above = node.kind
        for child in node.children:
            mover[id(child)] = above


# -- writing ----------------------------------------------------------------------------------
def number_text(value: Fraction) -> str:
    """A value as the notation writes it: ``3``, ``-1/2``."""
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def format_tree(tree: Tree, node: int = 0, *, labels: bool = True, width: int = 100) -> str:
    """The text of ``tree`` (or of the subtree under ``node``) in the notation: one line when it fits in
    ``width`` characters, else one line per child, indented.  :func:`parse` reads it back."""
    default = tuple(f"p{i + 1}" for i in range(tree.players))
    named = node == 0 and tree.vectors and tree.player_names != default
    head = f"players({', '.join(tree.player_names)})\n" if named else ""
    return head + "\n".join(_lines(tree, node, 0, labels, width))


def _kind_text(tree: Tree, node: int) -> str:
    kind = tree.kinds[node]
    if kind == CHANCE_NODE:
        return "chance"
    if not tree.vectors:
        return "max" if kind == 0 else "min"
    default = tuple(f"p{i + 1}" for i in range(tree.players))
    return tree.player_names[kind] if tree.player_names != default else f"p{kind + 1}"


def _flat(tree: Tree, node: int, labels: bool) -> str:
    label = f"{tree.labels[node]}: " if labels and tree.labels[node] is not None else ""
    if tree.kinds[node] == LEAF:
        values = tree.values[node]
        if tree.vectors:
            return label + "(" + ",".join(number_text(v) for v in values) + ")"
        return label + number_text(values[0])
    parts = []
    for i, child in enumerate(tree.children[node]):
        chance = f"{number_text(tree.probabilities[node][i])}: " if tree.kinds[node] == CHANCE_NODE else ""
        parts.append(chance + _flat(tree, child, labels))
    return f"{label}{_kind_text(tree, node)}({' '.join(parts)})"


def _lines(tree: Tree, node: int, indent: int, labels: bool, width: int) -> list[str]:
    flat = _flat(tree, node, labels)
    if tree.kinds[node] == LEAF or indent + len(flat) <= width:
        return [" " * indent + flat]
    label = f"{tree.labels[node]}: " if labels and tree.labels[node] is not None else ""
    lines = [" " * indent + f"{label}{_kind_text(tree, node)}("]
    for i, child in enumerate(tree.children[node]):
        sub = _lines(tree, child, indent + 2, labels, width)
        if tree.kinds[node] == CHANCE_NODE:
            sub[0] = " " * (indent + 2) + f"{number_text(tree.probabilities[node][i])}: " + sub[0].lstrip()
        lines.extend(sub)
    lines.append(" " * indent + ")")
    return lines
