"""What the web application's API accepts, parsed into typed requests with every field checked.

Each route's input (a query string or a JSON body) becomes one frozen dataclass, or a
:class:`BadRequest`: an HTTP status and one line saying what is wrong, which the
application answers as ``{"error": "..."}``.  Nothing here builds a game or reads the
registry: :mod:`gametree.serve.positions` does that with a parsed :class:`PositionRequest`.

>>> parse_position({"game": "tictactoe", "moves": "A1 B2", "options": '{"size": 3}'})
PositionRequest(game='tictactoe', options=(('size', 3),), moves='A1 B2')
>>> parse_position({"game": "<script>"})
Traceback (most recent call last):
...
gametree.serve.requests.BadRequest: game: not a game name (letters, digits, '-' and '_', at most 64)
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "AnalyseRequest",
    "BadRequest",
    "DEFAULT_BUDGET",
    "FILE_OPTIONS",
    "MAX_BUDGET",
    "MAX_MOVES_TEXT",
    "MAX_OPTION_INT",
    "MoveRequest",
    "PositionRequest",
    "one_line",
    "parse_analyse",
    "parse_move",
    "parse_position",
]

#: Seconds an analysis or a computer's move may take when the request does not say.
DEFAULT_BUDGET = 2.0
#: The most seconds a request may ask for, and the least.
MAX_BUDGET = 60.0
MIN_BUDGET = 0.1
#: The longest move list accepted, in characters.
MAX_MOVES_TEXT = 4000
#: The largest integer option value accepted (in absolute value): a game refuses far smaller ones itself.
MAX_OPTION_INT = 1_000_000
#: The longest text option value accepted.
MAX_OPTION_TEXT = 200
#: Options that name files on the server's disk: not offered over the web.
FILE_OPTIONS = frozenset({"file", "path"})
#: The longest error message sent back.
MAX_ERROR = 300

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


class BadRequest(Exception):
    """A request the application refuses: ``status`` (4xx) and a one-line ``message``."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(one_line(message))
        self.status = status
        self.message = one_line(message)


def one_line(text: object) -> str:
    """``text`` on one line, at most :data:`MAX_ERROR` characters."""
    said = " ".join(str(text).split())
    return said if len(said) <= MAX_ERROR else said[: MAX_ERROR - 3] + "..."


OptionItem = tuple[str, int | float | str | bool]


@dataclass(frozen=True, slots=True)
class PositionRequest:
    """A position: an installed game's name, its options (name and value, sorted) and the moves from the start."""

    game: str
    options: tuple[OptionItem, ...] = ()
    moves: str = ""

    @property
    def option_dict(self) -> dict[str, int | float | str | bool]:
        return dict(self.options)


@dataclass(frozen=True, slots=True)
class AnalyseRequest:
    """Every legal move's value in ``position``, within ``budget`` seconds."""

    position: PositionRequest
    budget: float = DEFAULT_BUDGET


@dataclass(frozen=True, slots=True)
class MoveRequest:
    """A computer ``player``'s move in ``position`` (``seed`` breaks ties), within ``budget`` seconds."""

    position: PositionRequest
    player: str
    budget: float = DEFAULT_BUDGET
    seed: int = 0


_POSITION_FIELDS = frozenset({"game", "options", "moves"})


def _text(data: Mapping[str, object], name: str, default: str | None = None) -> str:
    value = data.get(name, default)
    if value is None:
        raise BadRequest(f"{name}: missing")
    if not isinstance(value, str):
        raise BadRequest(f"{name}: expected text, not {_kind(value)}")
    return value


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _option_value(name: str, value: object) -> int | float | str | bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if abs(value) > MAX_OPTION_INT:
            raise BadRequest(f"options.{name}: {value:.3g} is out of range (at most {MAX_OPTION_INT:,} in size)")
        return value
    if isinstance(value, float):
        if not math.isfinite(value) or abs(value) > MAX_OPTION_INT:
            raise BadRequest(f"options.{name}: out of range")
        return value
    if isinstance(value, str):
        if len(value) > MAX_OPTION_TEXT:
            raise BadRequest(f"options.{name}: longer than {MAX_OPTION_TEXT} characters")
        return value
    raise BadRequest(f"options.{name}: expected a number, text or true/false, not {_kind(value)}")


def _options(raw: object) -> tuple[OptionItem, ...]:
    if raw is None or raw == "":
        return ()
    if isinstance(raw, str):
        if len(raw) > 4 * MAX_OPTION_TEXT:
            raise BadRequest("options: too long")
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError):
            raise BadRequest('options: not a JSON object such as {"size": 3}') from None
    if not isinstance(raw, dict):
        raise BadRequest(f'options: expected an object such as {{"size": 3}}, not {_kind(raw)}')
    items = []
    for name, value in raw.items():
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise BadRequest("options: an option's name must be letters, digits, '-' and '_'")
        if name in FILE_OPTIONS:
            raise BadRequest(f"options.{name}: options naming files on the server are not offered over the web")
        items.append((name, _option_value(name, value)))
    return tuple(sorted(items))


def parse_position(data: Mapping[str, object], *, extra: frozenset[str] = frozenset()) -> PositionRequest:
    """A :class:`PositionRequest` from a query string's or a JSON body's fields (``options``: an
    object, or its JSON text); a field outside those and ``extra`` is refused."""
    unknown = set(data) - _POSITION_FIELDS - extra
    if unknown:
        raise BadRequest(f"unknown field {one_line(sorted(unknown)[0])[:40]!r}")
    game = _text(data, "game")
    if not _NAME.fullmatch(game):
        raise BadRequest("game: not a game name (letters, digits, '-' and '_', at most 64)")
    moves = _text(data, "moves", "")
    if len(moves) > MAX_MOVES_TEXT:
        raise BadRequest(f"moves: longer than {MAX_MOVES_TEXT} characters")
    if any(not (c.isprintable() or c.isspace()) for c in moves):
        raise BadRequest("moves: control characters")
    return PositionRequest(game, _options(data.get("options")), " ".join(moves.split()))


def _budget(data: Mapping[str, object]) -> float:
    value = data.get("budget", DEFAULT_BUDGET)
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise BadRequest("budget: not a number of seconds") from None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadRequest("budget: not a number of seconds")
    if not MIN_BUDGET <= value <= MAX_BUDGET:
        raise BadRequest(f"budget: {value:g} s is outside {MIN_BUDGET:g} to {MAX_BUDGET:g} s")
    return float(value)


def parse_analyse(data: Mapping[str, object]) -> AnalyseRequest:
    """An :class:`AnalyseRequest` from a JSON body: the position's fields and ``budget`` (seconds)."""
    return AnalyseRequest(parse_position(data, extra=frozenset({"budget"})), _budget(data))


def parse_move(data: Mapping[str, object]) -> MoveRequest:
    """A :class:`MoveRequest` from a JSON body: the position's fields, ``player``, ``budget`` and ``seed``."""
    position = parse_position(data, extra=frozenset({"budget", "player", "seed"}))
    player = _text(data, "player")
    if not _NAME.fullmatch(player):
        raise BadRequest("player: not a player's name")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise BadRequest("seed: expected a whole number from 0 to 2**63 - 1")
    return MoveRequest(position, player, _budget(data), seed)
