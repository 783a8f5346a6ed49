"""The shape of a game log (:mod:`envs.gamelog`): every line, key, type and range a reader relies on.

:func:`parse_lines` turns the bytes of a log file into JSON objects and :func:`check_game` checks the lines of one
game, so a log that is not one is refused with one :class:`LogError` naming the line and the problem before anything
prints or replays it. Whether the values are *true* — whether the game, replayed, does what the lines say — is
:func:`envs.gamelog.replay`'s job (:class:`VerifyError`).

What is checked here: each line is a JSON object (no ``NaN``/``Infinity``, no key twice) with a known ``type`` and
all the keys the recorder writes for it; the header names a known game, the format, options the game accepts, a
table size it allows, a seed in 0..2^64-1, a first dealer among the seats and a deck that is a permutation of the
game's deck; seats, actions and card ids are in range, amounts are finite numbers (a bool is not a number), one
amount per seat; a game holds one header, first, and at most one ``result``, last.
"""

from __future__ import annotations

import json
import math
from typing import Any

from envs.core.config import ConfigError
from envs.core.game import BatchedGame
from envs.registry import GAMES, env_version, game_class, make_game

LOG_FORMAT = "cardgym-log/3"
"""3: the header names the env version (``env_version``, e.g. ``"tripoli_v1"``) whose rules the game was played by."""
MAX_SEED = 2**64 - 1

LINE_KEYS: dict[str, tuple[str, ...]] = {
    "game": ("format", "game", "env_version", "options", "num_players", "seed", "dealer", "stacked", "deck",
             "later_decks", "deck_cards", "deck_note", "rewards"),
    "deal": ("deal", "dealer", "events", "forced"),
    "step": ("n", "seat", "action", "name", "secret", "rewards", "events", "forced"),
    "deal_end": ("deal", "returns", "shown", "text"),
    "result": ("returns", "terminated", "truncated", "steps"),
}
"""The keys of each line type besides ``type`` (the recorder writes them all)."""


class LogError(ValueError):
    """A file or lines that are not a cardgym game log; the message names the line and the problem."""


class VerifyError(LogError):
    """A well-formed log that the game, replayed, does not reproduce (or that stops before the game's end)."""


def where(source: str, number: int) -> str:
    """``"game.jsonl, line 7"`` (``"line 7"`` without a source)."""
    return f"{source}, line {number}" if source else f"line {number}"


def describe(value: Any) -> str:
    """A short description of a JSON value for messages."""
    if value is None:
        return "null"
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
             dict: "an object"}
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, float) or math.isfinite(value) else str(value)
    return f"{names.get(type(value), type(value).__name__)} {text[:40]}{'…' if len(text) > 40 else ''}"


# ----- bytes → JSON objects ----------------------------------------------------------------------------------------
def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"key {key!r} appears twice")
        obj[key] = value
    return obj


def parse_lines(data: bytes, source: str) -> tuple[list[Any], list[int]]:
    """The JSON values of the non-blank lines of ``data`` and their line numbers (from 1)."""
    values, numbers = [], []
    for number, raw in enumerate(data.split(b"\n"), 1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise LogError(f"{where(source, number)}: not UTF-8 text (byte 0x{raw[e.start]:02x} at column "
                           f"{e.start + 1}); a game log is JSON Lines") from None
        if not text.strip():
            continue
        try:
            values.append(json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicates))
        except json.JSONDecodeError as e:
            raise LogError(f"{where(source, number)}: not JSON ({e.msg} at column {e.colno})") from None
        except (ValueError, RecursionError) as e:  # NaN, a key twice, an integer of thousands of digits, deep nesting
            detail = str(e).splitlines()[0] if str(e) else "nested too deeply"
            raise LogError(f"{where(source, number)}: not a valid log line ({detail})") from None
        numbers.append(number)
    if not values:
        raise LogError(f"{source or 'the log'}: empty, not a cardgym game log (it holds no line)")
    return values, numbers


# ----- one line ------------------------------------------------------------------------------------------------------
class _Line:
    """Typed reading of one log line's keys; each problem raises a :class:`LogError` naming the line."""

    def __init__(self, line: Any, number: int, source: str) -> None:
        self.at = where(source, number)
        if not isinstance(line, dict):
            raise self.error(f"a log line is a JSON object, got {describe(line)}")
        kind = line.get("type")
        if not isinstance(kind, str) or kind not in LINE_KEYS:
            got = "no 'type'" if "type" not in line else f"type {describe(kind)}"
            raise self.error(f"unknown line: {got}; a line's 'type' is one of {', '.join(LINE_KEYS)}")
        missing = [k for k in LINE_KEYS[kind] if k not in line]
        if missing:
            raise self.error(f"a {kind!r} line needs {', '.join(repr(k) for k in missing)}")
        self.line, self.kind = line, kind

    def error(self, message: str) -> LogError:
        return LogError(f"{self.at}: {message}")

    def _check(self, key: str, ok: bool, allowed: str) -> Any:
        value = self.line[key]
        if not ok:
            raise self.error(f"{key!r} must be {allowed}, got {describe(value)}")
        return value

    def integer(self, key: str, low: int, high: int | None = None, allowed: str = "") -> int:
        value = self.line[key]
        ok = type(value) is int and low <= value and (high is None or value <= high)
        span = f"an integer {low}..{high}" if high is not None else f"an integer >= {low}"
        return self._check(key, ok, allowed or span)

    def seat(self, key: str, n: int, none: bool = False) -> int | None:
        if none and self.line[key] is None:
            return None
        return self.integer(key, 0, n - 1, f"a seat 0..{n - 1}" + (" or null" if none else ""))

    def boolean(self, key: str) -> bool:
        return self._check(key, type(self.line[key]) is bool, "true or false")

    def text(self, key: str) -> str:
        return self._check(key, isinstance(self.line[key], str), "a string")

    def amounts(self, key: str, n: int) -> list[float]:
        value = self.line[key]
        ok = isinstance(value, list) and len(value) == n and all(is_amount(x) for x in value)
        return self._check(key, ok, f"a list of {n} finite numbers (one per seat)")

    def events(self) -> None:
        value = self.line["events"]
        ok = isinstance(value, list) and all(
            isinstance(e, dict) and isinstance(e.get("field"), str) and isinstance(e.get("text"), str) for e in value)
        self._check("events", ok, "a list of events (objects with a string 'field' and 'text')")

    def forced(self, n: int, actions: int) -> None:
        value = self.line["forced"]
        ok = isinstance(value, list) and all(
            isinstance(m, dict) and set(m) == {"seat", "action", "name", "secret"} and type(m["seat"]) is int
            and 0 <= m["seat"] < n and type(m["action"]) is int and 0 <= m["action"] < actions
            and isinstance(m["name"], str) and type(m["secret"]) is bool for m in value)
        self._check("forced", ok, f"a list of forced moves (objects with 'seat' 0..{n - 1}, 'action', 'name', "
                                  "'secret')")

    def shown(self, n: int) -> None:
        value = self.line["shown"]
        ok = isinstance(value, dict) and all(
            k in {str(s) for s in range(n)} and isinstance(v, list) and all(_is_card(c) for c in v)
            for k, v in value.items())
        self._check("shown", ok, f"an object from seats '0'..'{n - 1}' to lists of card ids 0..51")


def is_amount(x: Any) -> bool:
    """A finite JSON number within 64 bits (a bool is not a number)."""
    if type(x) is int:
        return abs(x) <= 2**63
    return type(x) is float and math.isfinite(x)


def _is_card(x: Any) -> bool:
    return type(x) is int and 0 <= x < 52


# ----- one game ------------------------------------------------------------------------------------------------------
def _check_header(head: _Line) -> BatchedGame:
    if head.kind != "game":
        raise head.error(f"a game log starts with a 'game' line, this is a {head.kind!r} line")
    if head.line["format"] != LOG_FORMAT:
        head._check("format", False, repr(LOG_FORMAT))
    name = head.text("game")
    if name not in GAMES:
        raise head.error(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
    if head.line["env_version"] != env_version(name):
        raise head.error(f"the game was played by {head.line['env_version']!r} rules; this cardgym plays "
                         f"{env_version(name)!r} (its rules, observation or actions differ)")
    options = head._check("options", isinstance(head.line["options"], dict), "an object of rule options")
    cls = game_class(name)
    n = head.integer("num_players", cls.min_players, cls.max_players,
                     f"a number of players {cls.min_players}..{cls.max_players}")
    try:
        game = make_game(name, n, **options)
    except (ConfigError, ValueError, TypeError) as e:
        raise head.error(str(e).splitlines()[0]) from None
    head.integer("seed", 0, MAX_SEED)
    head.seat("dealer", n)
    head.boolean("stacked")
    size = game.deck_size_for()
    deck = head.line["deck"]
    ids = game.deck_ids().tolist()
    ok = isinstance(deck, list) and all(type(c) is int for c in deck) and sorted(deck) == ids
    which = f"0..{size - 1}" if ids == list(range(size)) else "of the table's deck (L1)"
    head._check("deck", ok, f"the {size} card ids {which} of a {name} deck for {n} players, each once")
    later = head.line["later_decks"]
    ok = isinstance(later, list) and all(
        isinstance(d, list) and all(type(c) is int for c in d) and sorted(d) == ids for d in later)
    ok = ok and (not later or game.multi_deal)
    head._check("later_decks", ok, f"a list of stacked decks for the later deals, each the {size} card ids {which}")
    cards = head.line["deck_cards"]
    head._check("deck_cards", isinstance(cards, list) and len(cards) == size and all(isinstance(c, str) for c in cards),
                f"a list of {size} card names")
    head.text("deck_note")
    head.amounts("rewards", n)
    return game


def _check_body(line: _Line, game: BatchedGame) -> None:
    n = game.num_players
    if line.kind == "game":
        raise line.error("a second 'game' line inside one game")
    if line.kind == "deal":
        line.integer("deal", 0)
        line.seat("dealer", n, none=True)
        line.events()
        line.forced(n, game.num_actions)
    elif line.kind == "step":
        line.integer("n", 1)
        line.seat("seat", n)
        line.integer("action", 0, game.num_actions - 1, f"an action id 0..{game.num_actions - 1}")
        line.text("name")
        line.boolean("secret")
        line.amounts("rewards", n)
        line.events()
        line.forced(n, game.num_actions)
    elif line.kind == "deal_end":
        line.integer("deal", 0)
        line.amounts("returns", n)
        line.shown(n)
        line.text("text")
    else:
        line.amounts("returns", n)
        line.boolean("terminated")
        line.boolean("truncated")
        line.integer("steps", 0)


def check_game(lines: list[Any], numbers: list[int], source: str = "") -> BatchedGame:
    """Check the lines of one game (its header first; ``numbers`` are their line numbers) and return the game the
    header describes. Raises :class:`LogError` ("<source>, line N: …") at the first problem."""
    if not lines:
        raise LogError(f"{source or 'the log'}: a game log holds at least its 'game' line")
    game = _check_header(_Line(lines[0], numbers[0], source))
    result_at = None
    for line, number in zip(lines[1:], numbers[1:], strict=True):
        checked = _Line(line, number, source)
        if result_at is not None:
            raise checked.error(f"a {checked.kind!r} line after the game's 'result' (line {result_at})")
        _check_body(checked, game)
        if checked.kind == "result":
            result_at = number
    return game
