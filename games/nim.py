"""Nim: take any number of objects from one heap; normal play or misere.

Under normal play the player who takes the last object wins; under misere
play that player loses.  Moves are ``(heap, count)`` pairs inside and written
``HEAP:COUNT`` (take COUNT objects from heap HEAP, heaps numbered from 1).

The longest game takes one object per move, so ``max_plies`` (C in the score
formula) is the total number of objects.  The same heaps can be reached after
different numbers of moves (taking 2 at once or 1 twice), and depth-aware
scores depend on the ply, so the key includes the ply.  Heaps are
interchangeable, so the canonical key sorts them; a best move cached under a
canonical key is only an ordering hint for the core (which checks that it is
legal), and every move the core reports comes from ``legal_moves`` of the
actual position, so moves stay right.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from gametree import (
    Game,
    GameInfo,
    GameSpec,
    IllegalMoveError,
    MoveParseError,
    Option,
    Outcome,
    hookimpl,
)

__all__ = ["Nim", "NimState", "parse_heaps"]

MAX_HEAPS = 64
MAX_HEAP = 1_000_000


class NimState(NamedTuple):
    """Heap sizes and moves played."""

    heaps: tuple[int, ...]
    moves: int


def _clip(text: str, limit: int = 40) -> str:
    """User input as an error message repeats it: at most ``limit`` characters."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def parse_heaps(text: str) -> tuple[int, ...]:
    """``"3,4,5"`` -> ``(3, 4, 5)``; a clear ``ValueError`` for anything else."""
    parts = [p.strip() for p in text.replace(" ", ",").split(",") if p.strip()]
    if not parts:
        raise ValueError("--heaps: give heap sizes separated by commas, e.g. 3,4,5")
    heaps = []
    for part in parts:
        if not part.isdecimal():
            raise ValueError(f"--heaps {_clip(text)!r}: {_clip(part)!r} is not a heap size (a whole number >= 0)")
        heaps.append(int(part))
    if len(heaps) > MAX_HEAPS:
        raise ValueError(f"--heaps: at most {MAX_HEAPS} heaps")
    if max(heaps) > MAX_HEAP:
        raise ValueError(f"--heaps: a heap holds at most {MAX_HEAP:,} objects")
    if sum(heaps) == 0:
        raise ValueError("--heaps: there must be at least one object")
    return tuple(heaps)


class Nim(Game[NimState, tuple[int, int]]):
    """Nim on the given heaps; ``misere=True`` makes taking the last object lose."""

    def __init__(self, heaps: str | tuple[int, ...] = "3,4,5", misere: bool = False) -> None:
        self.heaps = parse_heaps(heaps) if isinstance(heaps, str) else parse_heaps(",".join(map(str, heaps)))
        self.misere = bool(misere)
        self.total = sum(self.heaps)
        self.info = GameInfo(max_plies=self.total, player_names=("first", "second"))
        # Keys pack the heaps into fixed-width fields above the ply.
        self._bits = max(self.heaps).bit_length()
        self._ply_bits = self.total.bit_length()

    def __repr__(self) -> str:
        return f"Nim(heaps={','.join(map(str, self.heaps))!r}, misere={self.misere})"

    def options(self) -> dict[str, Any]:
        """The options that recreate this game (the heaps as ``--heaps`` reads them)."""
        return {"heaps": ",".join(map(str, self.heaps)), "misere": self.misere}

    @property
    def name(self) -> str:
        return f"{'misere ' if self.misere else ''}Nim on heaps {','.join(map(str, self.heaps))}"

    # -- the protocol ------------------------------------------------------------------
    def initial_state(self) -> NimState:
        return NimState(self.heaps, 0)

    def to_move(self, state: NimState) -> int:
        return state.moves & 1

    def ply(self, state: NimState) -> int:
        return state.moves

    def legal_moves(self, state: NimState) -> list[tuple[int, int]]:
        """Every (heap, count); moves to a position the theory says is lost for the opponent first.

        The order only speeds the search up; values come from the search.
        """
        heaps = state.heaps
        good: list[tuple[int, int]] = []
        rest: list[tuple[int, int]] = []
        for i, size in enumerate(heaps):
            for count in range(size, 0, -1):
                after = heaps[:i] + (size - count,) + heaps[i + 1 :]
                (good if self._lost_for_mover(after) else rest).append((i, count))
        return good + rest

    def _lost_for_mover(self, heaps: tuple[int, ...]) -> bool:
        """Bouton's theorem (with the misere exception): is this a loss for the side to move?"""
        x = 0
        for h in heaps:
            x ^= h
        if self.misere and max(heaps) <= 1:
            return sum(heaps) % 2 == 1
        return x == 0

    def play(self, state: NimState, move: tuple[int, int]) -> NimState:
        i, count = move
        heaps = state.heaps
        return NimState(heaps[:i] + (heaps[i] - count,) + heaps[i + 1 :], state.moves + 1)

    def outcome(self, state: NimState) -> Outcome | None:
        if any(state.heaps):
            return None
        last_mover = (state.moves - 1) & 1
        return Outcome(1 - last_mover if self.misere else last_mover)

    def _code(self, heaps: tuple[int, ...], moves: int) -> int:
        code = 0
        bits = self._bits
        for h in heaps:
            code = (code << bits) | h
        return (code << self._ply_bits) | moves

    def key(self, state: NimState) -> int:
        """The heaps and the ply packed into one int."""
        return self._code(state.heaps, state.moves)

    def canonical_key(self, state: NimState) -> int:
        """Like :meth:`key` with the heaps sorted (the order of heaps does not matter)."""
        return self._code(tuple(sorted(state.heaps)), state.moves)

    # -- text ----------------------------------------------------------------------------
    def parse_move(self, state: NimState, text: str) -> tuple[int, int]:
        t = text.strip()
        shown = t if len(t) <= 60 else t[:57] + "..."  # input echoed in a message is cut short
        heap, sep, count = t.partition(":")
        if not sep or not heap.strip().isdecimal() or not count.strip().isdecimal():
            raise MoveParseError(f"cannot read {shown!r}: write HEAP:COUNT, e.g. 2:3 takes 3 objects from heap 2")
        try:
            h, n = int(heap), int(count)
        except ValueError:  # over the 4,300 digits int() reads
            raise MoveParseError(f"cannot read {shown!r}: too many digits") from None
        if not 1 <= h <= len(state.heaps):
            raise MoveParseError(f"there is no heap {h if len(heap) <= 60 else shown} (heaps 1..{len(state.heaps)})")
        if n < 1:
            raise MoveParseError("take at least one object")
        return (h - 1, n)

    def format_move(self, state: NimState, move: tuple[int, int]) -> str:
        return f"{move[0] + 1}:{move[1]}"

    def check_move(self, state: NimState, move: tuple[int, int]) -> None:
        i, count = move
        if not 0 <= i < len(state.heaps):
            raise IllegalMoveError(f"there is no heap {i + 1} (heaps 1..{len(state.heaps)})")
        size = state.heaps[i]
        if count < 1:
            raise IllegalMoveError("take at least one object")
        if count > size:
            have = "is empty" if size == 0 else f"has only {size} object{'s' if size != 1 else ''}"
            raise IllegalMoveError(f"heap {i + 1} {have}")

    @property
    def move_help(self) -> str:
        """One line on how to type a move (shown by ``gametree play``)."""
        return "type HEAP:COUNT, e.g. 2:3 takes 3 objects from heap 2"

    def render(self, state: NimState) -> str:
        width = len(str(len(state.heaps)))
        lines = [
            f"heap {i + 1:>{width}}: {'|' * h if h <= 40 else '|' * 40 + '...'} ({h})"
            for i, h in enumerate(state.heaps)
        ]
        lines.append(
            f"{'misere' if self.misere else 'normal'} play: whoever takes the last object "
            f"{'loses' if self.misere else 'wins'}"
        )
        return "\n".join(lines)


def _make(heaps: str = "3,4,5", misere: bool = False) -> Nim:
    return Nim(heaps, misere)


@hookimpl
def gametree_register_games(registry) -> None:  # type: ignore[no-untyped-def]
    registry.add_game(
        GameSpec(
            name="nim",
            factory=_make,
            summary="Nim: take from one heap; the last to take wins (or loses with --misere)",
            options=(
                Option("heaps", str, "3,4,5", "heap sizes separated by commas"),
                Option("misere", bool, False, "misere play: whoever takes the last object loses"),
            ),
        )
    )
