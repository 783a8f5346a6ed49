"""Game logs: record any cardgym game as JSON Lines, read it back, print it deal by deal and replay it exactly.

A log file holds one or more games; each game is written as these lines (one JSON object each, ``"type"`` first):

- ``game`` — the header: game name, rule ``options``, ``num_players``, ``seed``, first ``dealer`` (drawn from the
  seed or chosen), ``stacked`` (whether the first deck was given instead of shuffled from the seed), the first
  deal's whole ``deck`` in dealing order (the values ``init(decks=...)`` takes, plus their ``deck_cards`` names;
  ``deck_note`` marks it as the whole deal, hidden cards included — the only hidden information in a log) and the
  chips moved while dealing (``rewards``, e.g. antes);
- ``deal`` — a deal begins: its number, dealer and what is public at once (e.g. face-up cards, the flip card);
- ``step`` — one decision: the ``seat`` that took it, the ``action`` id and its ``name``, the ``rewards`` of every
  seat for the step (forced moves included, C11) and the public ``events`` it caused;
- ``deal_end`` — a deal is over: each seat's ``returns`` over the deal and the cards ``shown`` in it (the value of
  the game's ``shown`` fields at the deal's end: Tripoli's poker hands shown at the showdown, Flip Flop's cards
  publicly known to be in a hand — a card that left the hand is not listed);
- ``result`` — the episode's ``returns`` per seat (deal rewards included), ``terminated``/``truncated``, ``steps``.

Public events are derived generically: the public part of the observation of seat 0 (the ``VIEW`` that each game's
``envs/<game>/observation.py`` derives from its declared observation, :class:`PublicView`) is compared before and
after each step, and every change becomes an event (cards played, shown, picked up, burned, laid; chips on the
layout or in the pots; …).
Observations never hold hidden cards (C12) and the viewer's private fields are left out, so neither do events.

Later deals of a multi-deal episode are shuffled from the seed (C7), so ``seed`` + ``deck`` + ``dealer`` + the
actions reproduce the whole episode. A log file is data from anywhere, so reading one trusts nothing:
:func:`read_log` refuses a file that is not a well-formed log with one :class:`LogError` naming the line and the
problem (:mod:`envs.logcheck`); :func:`replay` plays the game again and checks every line of the log against the line
a recorder writes for the replay — the deck against the seed, each seat, action, name, reward and public event,
each deal's returns and shown cards, the result — raising :class:`VerifyError` at the first line that differs;
:func:`verify` also requires the log to reach the game's end.

    env = CardGymEnv(make_game("tripoli", 4), log_path="game.jsonl")   # or env.recorder = GameRecorder(path)
    logs = read_log("game.jsonl"); print(logs[0].text()); game, state, rewards = verify(logs[0])
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np

from envs.core.cards import DECK_SIZE, card_str
from envs.core.checks import ArgumentError, show
from envs.core.game import BatchedGame, BatchState
from envs.core.obs_spec import PublicField, PublicView
from envs.core.rng import STREAM_DEALER, shuffled_decks, uniform_ints
from envs.logcheck import LOG_FORMAT, LogError, VerifyError, check_game, parse_lines, where
from envs.registry import env_version

DECK_NOTE = "the whole first deal in dealing order, hidden cards included: no player saw all of it"

def _forced_text(moves: list[dict[str, Any]], indent: str) -> list[str]:
    """C8: one line per forced move, in order ("then player_2 (forced): continue run (9♠)")."""
    return [f"{indent}then {seat_name(m['seat'])} (forced): {m['name']}"
            + ("   (secret: the other players do not see it)" if m["secret"] else "") for m in moves]


def public_view(game_name: str) -> PublicView:
    """The :class:`PublicView` of a game (``VIEW`` of ``envs/<game>/observation.py``, derived from its ``SPEC``)."""
    return importlib.import_module(f"envs.{game_name}.observation").VIEW


# ----- reading fields ------------------------------------------------------------------------------------------------
def _counts_to_cards(counts: np.ndarray) -> list[int]:
    counts = np.rint(counts).astype(np.int64)
    return [int(c) for c in np.repeat(np.arange(DECK_SIZE), np.maximum(counts, 0))]


def cards_text(cards: list[int], unicode: bool = True) -> str:
    """``2♣ 10♦ A♠`` (or ``-`` for none)."""
    return " ".join(card_str(c, unicode) for c in cards) or "-"


def seat_name(seat: int) -> str:
    return f"player_{seat}"


def _fmt(x: float) -> str:
    return f"{x:g}"


def field_value(f: PublicField, obs: np.ndarray, viewer: int, n: int) -> Any:
    """The value of field ``f`` in seat ``viewer``'s observation, with seats made absolute:
    ``cards`` → card ids; ``seat_cards`` → {seat: card ids}; ``values`` → {name: x}; ``seat_values`` → {seat: x};
    ``seat_onehot`` → seat or ``None``; ``onehot`` → name or ``None``."""
    o = f.offset
    if f.kind == "cards":
        return _counts_to_cards(obs[o : o + DECK_SIZE])
    if f.kind == "values":
        return {name: float(obs[o + i]) for i, name in enumerate(f.names)}
    if f.kind == "onehot":
        hot = np.flatnonzero(obs[o : o + len(f.names)])
        return f.names[int(hot[0])] if hot.size else None
    rel_of = {s: (s - viewer) % n for s in range(n)}  # absolute seat → relative seat, in seat order
    if f.kind == "seat_cards":
        return {s: _counts_to_cards(obs[o + j * f.stride : o + j * f.stride + DECK_SIZE]) for s, j in rel_of.items()}
    if f.kind == "seat_values":
        return {s: float(obs[o + j * f.stride]) for s, j in rel_of.items()}
    hot = [s for s, j in rel_of.items() if obs[o + j * f.stride] > 0]
    return hot[0] if hot else None


def _multiset_diff(old: list[int], new: list[int]) -> tuple[list[int], list[int]]:
    a, b = np.bincount(old, minlength=DECK_SIZE), np.bincount(new, minlength=DECK_SIZE)
    return _counts_to_cards(np.maximum(b - a, 0)), _counts_to_cards(np.maximum(a - b, 0))


def _card_event(f: PublicField, old: list[int], new: list[int], seat: int | None) -> dict[str, Any] | None:
    added, removed = _multiset_diff(old, new)
    if not added and not removed:
        return None
    if not removed:
        parts = [cards_text(added)]
    else:
        parts = ([f"+{cards_text(added)}"] if added else []) + [f"−{cards_text(removed)}"]
    who = f"{seat_name(seat)} " if seat is not None else ""
    event: dict[str, Any] = {"field": f.name}
    if seat is not None:
        event["seat"] = seat
    return {**event, "added": added, "removed": removed, "text": f"{who}{f.label}: {' '.join(parts)}"}


def diff_events(view: PublicView, before: np.ndarray | None, after: np.ndarray, n: int,
                viewer: int = 0) -> list[dict[str, Any]]:
    """Events between two observations of seat ``viewer`` (``before=None``: the cards public in ``after``, for a
    fresh deal). Only public fields are read, so every viewer gives the same events."""
    events: list[dict[str, Any]] = []
    for f in view.fields:
        if f.private or not f.events:
            continue
        new = field_value(f, after, viewer, n)
        old = field_value(f, before, viewer, n) if before is not None else None
        if f.kind == "cards":
            e = _card_event(f, old or [], new, None)
            events += [e] if e else []
        elif f.kind == "seat_cards":
            for s in range(n):
                e = _card_event(f, (old or {}).get(s, []), new[s], s)
                events += [e] if e else []
        elif before is None:
            continue
        elif f.kind in ("values", "seat_values"):
            keys = list(new)
            changed = {k: (old[k], new[k]) for k in keys if old[k] != new[k]}
            if changed:
                label = (lambda k: seat_name(k)) if f.kind == "seat_values" else str
                text = ", ".join(f"{label(k)} {_fmt(a)}→{_fmt(b)}" for k, (a, b) in changed.items())
                events.append({"field": f.name, "changes": {str(k): [a, b] for k, (a, b) in changed.items()},
                               "text": f"{f.label}: {text}"})
        elif new != old and new is not None:
            text = seat_name(new) if f.kind == "seat_onehot" else str(new)
            events.append({"field": f.name, "value": new, "text": f"{f.label}: {text}"})
    return events


# ----- recording -----------------------------------------------------------------------------------------------------
def first_deck(game: BatchedGame, seed: int) -> np.ndarray:
    """The first deal's deck (card ids in dealing order) of table seed ``seed`` as ``init`` shuffles it (C7)."""
    order = shuffled_decks(np.asarray([seed], dtype=np.uint64), 0, game.deck_size_for())[0]
    return game.deck_ids()[order].astype(np.int64)


def first_dealer(game: BatchedGame, seed: int) -> int:
    """The first dealer of table seed ``seed`` as ``init`` draws it (C7)."""
    return int(uniform_ints(np.asarray([seed], dtype=np.uint64), STREAM_DEALER, 0, game.num_players)[0])


class GameRecorder:
    """Writes the games of one table (a batch-1 state) as JSON Lines to ``path`` (``None``: kept in memory only).

    Call :meth:`begin` after ``init``, :meth:`record` after each ``step`` (with the seat and action taken);
    the ``result`` line is written when the episode ends. The file is created at the first game and each later
    game is appended. ``lines`` holds the lines of the running game, ``last`` those written by the last call.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        if path is not None and not isinstance(path, (str, Path)):
            raise ArgumentError(f"path must be None or a file path (str or pathlib.Path), got {show(path)}")
        self.path = None if path is None else Path(path)
        self._file: IO[str] | None = None
        self.lines: list[dict[str, Any]] = []
        self.last: list[dict[str, Any]] = []

    def _write(self, line: dict[str, Any]) -> None:
        self.lines.append(line)
        self.last.append(line)
        if self.path is not None:
            if self._file is None:
                self._file = self.path.open("w", encoding="utf-8")
            self._file.write(json.dumps(line, ensure_ascii=False) + "\n")
            self._file.flush()

    def _observe(self, state: BatchState) -> np.ndarray:
        return self.game.observe(state, np.asarray([0]))[0]

    def _deal_index(self, obs: np.ndarray) -> int:
        return 0 if self.view.deal_index is None else int(round(float(obs[self.view.deal_index])))

    def begin(self, game: BatchedGame, state: BatchState, deck: np.ndarray | None = None,
              dealer: int | None = None) -> None:
        """A new game on table 0 of ``state`` (just dealt); ``deck`` and ``dealer`` are the stacked deck (or the
        ``(K, deck_size)`` decks of the first K deals) and the first dealer it was given, if any."""
        self.game, self.view, self.lines, self.last = game, public_view(game.name), [], []
        seed = int(state.seeds[0])
        seed_deck = first_deck(game, seed)
        given = None if deck is None else np.asarray(deck, dtype=np.int64).reshape(-1, game.deck_size_for())
        deck = seed_deck if given is None else given[0]
        later = [] if given is None else given[1:].tolist()  # stacked decks of the deals after the first
        stacked = not np.array_equal(deck, seed_deck)  # the seed's own deck given again is not a stacked deck
        self._obs = self._observe(state)
        n = game.num_players
        dealer = first_dealer(game, seed) if dealer is None else int(dealer)
        self._write({
            "type": "game", "format": LOG_FORMAT, "game": game.name, "env_version": env_version(game.name),
            "options": dataclasses.asdict(game.config),
            "num_players": n, "seed": seed, "dealer": dealer, "stacked": stacked, "deck": deck.tolist(),
            "later_decks": later,
            "deck_cards": [card_str(int(c), True) for c in deck], "deck_note": DECK_NOTE,
            "rewards": state.rewards[0].tolist(),
        })
        self._returns = state.rewards[0].astype(float).copy()
        self._steps = 0
        self._start_deal(self._deal_index(self._obs), field_value(self.view.dealer, self._obs, 0, n),
                         self._forced(state))
        self._deal_returns += self._returns
        self._finish_if_done(state)

    def _start_deal(self, deal: int, dealer: int | None, forced: list[dict[str, Any]] | None = None) -> None:
        """A deal line; ``forced``: the forced moves made while dealing the episode's first deal (C8; a later deal
        starts inside a step, whose line lists them)."""
        self._deal, self._deal_returns = deal, np.zeros(self.game.num_players)
        self._note_shown()
        events = diff_events(self.view, None, self._obs, self.game.num_players)
        self._write({"type": "deal", "deal": deal, "dealer": dealer, "events": events, "forced": forced or []})

    def _note_shown(self) -> None:
        """Keep the shown fields' value in the last observation of the deal: {field: {seat: cards}}."""
        n = self.game.num_players
        self._shown = {f.name: field_value(f, self._obs, 0, n) for f in self.view.fields if f.shown}

    def _end_deal(self) -> None:
        n = self.game.num_players
        ret = [float(x) for x in self._deal_returns]
        text = ", ".join(f"{seat_name(s)} {round(r, 3):+g}" for s, r in enumerate(ret))
        cards = {s: sorted(c for by_seat in self._shown.values() for c in by_seat.get(s, [])) for s in range(n)}
        shown = {str(s): c for s, c in cards.items() if c}
        self._write({"type": "deal_end", "deal": self._deal, "returns": ret, "shown": shown, "text": text})

    def _forced(self, state: BatchState) -> list[dict[str, Any]]:
        """C8: the forced moves of the last step (or of the deal) at table 0, in order."""
        return [{"seat": m.seat, "action": m.action, "name": m.name, "secret": self.view.is_secret(m.name)}
                for m in self.game.forced_moves(state, 0)]

    def record(self, state: BatchState, seat: int, action: int) -> None:
        """Log the step just taken at table 0: ``seat`` chose ``action``; ``state`` is the state after it."""
        self.last = []
        n = self.game.num_players
        obs = self._observe(state)
        deal = self._deal_index(obs)
        rewards = state.rewards[0].astype(float)
        new_deal = deal != self._deal and not bool(state.terminated[0] | state.truncated[0])
        events = [] if new_deal else diff_events(self.view, self._obs, obs, n)
        self._returns += rewards
        self._deal_returns += rewards
        self._steps += 1
        name = self.game.action_name(int(action))
        self._write({"type": "step", "n": self._steps, "seat": int(seat), "action": int(action), "name": name,
                     "secret": self.view.is_secret(name), "rewards": rewards.tolist(), "events": events,
                     "forced": self._forced(state)})
        self._obs = obs
        if new_deal:  # the old deal's end is not observable: the acting seat's in-hand cards are unknown now
            for f in self.view.fields:
                if f.shown and f.in_hand:
                    self._shown[f.name][int(seat)] = []
            self._end_deal()
            self._start_deal(deal, field_value(self.view.dealer, obs, 0, n))
        else:
            self._note_shown()
        self._finish_if_done(state)

    def _finish_if_done(self, state: BatchState) -> None:
        if not bool(state.terminated[0] | state.truncated[0]):
            return
        self._end_deal()
        self._write({"type": "result", "returns": self._returns.tolist(), "terminated": bool(state.terminated[0]),
                     "truncated": bool(state.truncated[0]), "steps": self._steps})

    def log(self) -> GameLog:
        """The running (or just finished) game as a :class:`GameLog`."""
        return GameLog(list(self.lines))

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


# ----- reading -------------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class GameLog:
    """One recorded game: its lines, header first. Building one checks the lines' shape (:func:`envs.logcheck.
    check_game`): a log that is not one raises :class:`LogError` naming the line."""

    lines: list[dict[str, Any]]
    numbers: list[int] | None = None
    """The line number of each line in its file (``None``: 1, 2, … in the order of ``lines``)."""
    source: str = ""
    """Where the lines come from (the file), for messages."""

    def __post_init__(self) -> None:
        if self.numbers is None:
            self.numbers = list(range(1, len(self.lines) + 1))
        if len(self.numbers) != len(self.lines):
            raise ValueError(f"numbers: one line number per line ({len(self.lines)}), got {len(self.numbers)}")
        check_game(self.lines, self.numbers, self.source)

    def where(self, index: int) -> str:
        """``"game.jsonl, line 7"``: where ``lines[index]`` is."""
        assert self.numbers is not None
        return where(self.source, self.numbers[index])

    @property
    def header(self) -> dict[str, Any]:
        return self.lines[0]

    @property
    def steps(self) -> list[dict[str, Any]]:
        return [line for line in self.lines if line["type"] == "step"]

    @property
    def result(self) -> dict[str, Any] | None:
        """The ``result`` line (``None`` for a game cut off before its end)."""
        return next((line for line in self.lines if line["type"] == "result"), None)

    def actions(self) -> list[int]:
        return [s["action"] for s in self.steps]

    def make_game(self) -> BatchedGame:
        """A fresh core of the game, table size and options of the header."""
        from envs.registry import make_game

        h = self.header
        return make_game(h["game"], num_players=h["num_players"], **h["options"])

    def text(self, unicode: bool = True) -> str:
        """The game, deal by deal, readably."""
        h = self.header
        title = public_view(h["game"]).title or h["game"]
        deck = h["deck_cards"] if unicode else [_ascii(c) for c in h["deck_cards"]]
        options = ", ".join(f"{k}={v}" for k, v in h["options"].items())
        out = [f"{title}, {h['num_players']} players, seed {h['seed']}" + (" (stacked deck)" if h["stacked"] else ""),
               f"options: {options}",
               f"deck — {h['deck_note']}:", "  " + " ".join(deck)]
        if any(h["rewards"]):
            out.append("while dealing: " + _rewards_text(h["rewards"]))
        for line in self.lines[1:]:
            kind = line["type"]
            if kind == "deal":
                dealer = "" if line["dealer"] is None else f" — dealer {seat_name(line['dealer'])}"
                out.append(f"\n=== deal {line['deal'] + 1}{dealer} ===")
                out += [f"    {e['text']}" for e in line["events"]]
                out += _forced_text(line["forced"], "    ")
            elif kind == "step":
                secret = "   (secret: the other players do not see it)" if line.get("secret") else ""
                out.append(f"{line['n']:>4}. {seat_name(line['seat'])}: {line['name']}{secret}")
                out += _forced_text(line["forced"], "      ")
                out += [f"        {e['text']}" for e in line["events"]]
                if any(line["rewards"]):
                    out.append(f"        rewards: {_rewards_text(line['rewards'])}")
            elif kind == "deal_end":
                out.append(f"--- deal {line['deal'] + 1} over: {line['text']}")
                out += [f"    {seat_name(int(s))} showed {cards_text(c)}" for s, c in line["shown"].items()]
            elif kind == "result":
                end = "terminated" if line["terminated"] else "truncated" if line["truncated"] else "stopped"
                out.append(f"\nresult after {line['steps']} decisions ({end}): {_rewards_text(line['returns'], True)}")
        if self.result is None:
            out.append("\n(the log stops before the end of the game)")
        text = "\n".join(out)
        return text if unicode else _ascii(text)

    def _repr_html_(self) -> str:
        from envs.html import log_html

        return log_html(self)


def _ascii(text: str) -> str:
    for sym, letter in zip("♣♦♥♠", "cdhs", strict=True):
        text = text.replace(sym, letter)
    return text.replace("−", "-").replace("→", "->").replace("—", "-").replace("↔", "<->")


def _rewards_text(rewards: list[float], all_seats: bool = False) -> str:
    return ", ".join(f"{seat_name(s)} {round(r, 3):+g}" for s, r in enumerate(rewards) if all_seats or r)


def iter_games(lines: list[Any], numbers: list[int] | None = None, source: str = "") -> Iterator[GameLog]:
    """The games of a log's lines (each starts at a ``game`` line; ``numbers``: their line numbers)."""
    numbers = list(range(1, len(lines) + 1)) if numbers is None else numbers
    starts = [i for i, line in enumerate(lines) if isinstance(line, dict) and line.get("type") == "game"]
    if not starts or starts[0] != 0:
        first = lines[0]
        kind = f"a {first['type']!r} line" if isinstance(first, dict) and isinstance(first.get("type"), str) else (
            "not a log line")
        raise LogError(f"{where(source, numbers[0])}: not a cardgym game log: it must start with a 'game' line, "
                       f"this is {kind}")
    for start, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        yield GameLog(lines[start:end], numbers[start:end], source)


def read_log(path: str | Path) -> list[GameLog]:
    """The games of a log file, in order. A file that cannot be read or is not a well-formed cardgym log raises
    :class:`LogError` with one line naming the file, the line and the problem (whether the log is *true* is
    :func:`verify`'s question)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise LogError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise LogError(f"{path}: is a directory, not a log file") from None
    except OSError as e:
        raise LogError(f"{path}: cannot be read ({e.strerror or e})") from None
    values, numbers = parse_lines(data, str(path))
    return list(iter_games(values, numbers, str(path)))


# ----- replaying -----------------------------------------------------------------------------------------------------
def header_decks(header: dict[str, Any]) -> np.ndarray | None:
    """The stacked decks a log's game was dealt, as ``init(decks=...)`` takes them (``(1, K, deck_size)``), or
    ``None`` when every deal was shuffled from the seed."""
    if not header["stacked"] and not header["later_decks"]:
        return None
    return np.asarray([[header["deck"], *header["later_decks"]]], dtype=np.int64)


def replayed(log: GameLog) -> Iterator[tuple[BatchedGame, BatchState, dict[str, Any] | None]]:
    """Play ``log`` again on a fresh table — the seed (or the stacked deck), the first dealer, then every logged
    action — and check every line the log holds against the line a :class:`GameRecorder` writes for the replayed
    game: the header (the deck is the seed's unless stacked, the chips moved while dealing), each step's seat,
    action id, name, secrecy, rewards and public events, each deal's events, returns and shown hands, the result.

    Yields the game and its table (one state, updated in place) once dealt (with ``None``), then after each logged
    step (with the step's line), each once the lines it produced are checked. Raises :class:`VerifyError` at the
    first line that differs, naming it and what differs. A log that stops early replays as far as it goes. Every
    reader of a log that replays it (:func:`replay`, :func:`verify`, ``cardgym replay --html``) goes through here."""
    h = log.header
    game = log.make_game()
    decks = header_decks(h)
    state = game.init(h["seed"], batch_size=1, decks=decks, dealers=np.asarray([h["dealer"]]))
    recorder = GameRecorder(None)
    recorder.begin(game, state, deck=None if decks is None else decks[0], dealer=h["dealer"])
    _compare(log, 0, recorder.last)
    yield game, state, None
    k = len(recorder.lines)
    while k < len(log.lines) and not bool(state.terminated[0] | state.truncated[0]):
        line, to_act = log.lines[k], int(state.current_player[0])
        if line["type"] != "step":
            raise VerifyError(f"{log.where(k)}: the log has a {line['type']!r} line here, but the game goes on "
                              f"({seat_name(to_act)} to act)")
        if line["seat"] != to_act:
            raise VerifyError(f"{log.where(k)} (step {line['n']}): the log has {seat_name(line['seat'])} to act, "
                              f"the game {seat_name(to_act)}")
        action = line["action"]
        if not state.legal_action_mask[0, action]:
            raise VerifyError(f"{log.where(k)} (step {line['n']}): action {action} ({game.action_name(action)}) is "
                              f"not legal for {seat_name(to_act)} here")
        game.step(state, np.asarray([action]))
        recorder.record(state, to_act, action)
        _compare(log, k, recorder.last)
        k += len(recorder.last)
        yield game, state, line


def replay(log: GameLog) -> tuple[BatchedGame, BatchState, list[np.ndarray]]:
    """:func:`replayed` ``log`` to where it stops (checking every line): the game, the final state and the rewards
    of each step. A log that stops early replays as far as it goes (:func:`verify` also requires the game's
    end)."""
    lines = replayed(log)
    game, state, _ = next(lines)  # dealt; the same state is then stepped in place
    rewards = [stepped.rewards[0].copy() for _, stepped, _ in lines]
    return game, state, rewards


def verify(log: GameLog) -> tuple[BatchedGame, BatchState, list[np.ndarray]]:
    """:func:`replay` ``log`` and require the whole game: a log that stops before its ``result`` line raises
    :class:`VerifyError` ("incomplete log")."""
    out = replay(log)
    if log.result is None:
        last = len(log.lines) - 1
        raise VerifyError(f"{log.where(last)}: incomplete log: it stops after this line, before the game's end "
                          f"(no 'result' line; {len(log.steps)} steps replayed)")
    return out


def _compare(log: GameLog, start: int, lines: list[dict[str, Any]]) -> None:
    """Compare the replay's ``lines`` with the log's lines from index ``start`` (as far as the log goes)."""
    for k, expected in enumerate(lines, start):
        if k >= len(log.lines):
            return
        expected = json.loads(json.dumps(expected))  # as written to a file: tuples become lists
        logged = log.lines[k]
        diff = _difference(logged, expected, "")
        if diff is None:
            continue
        label = f" (step {expected['n']})" if expected["type"] == "step" else ""
        hint = ""
        if expected["type"] == "game" and diff.startswith(("deck[", "stacked ")):
            hint = (f" (the deck is the one seed {logged['seed']} deals: not a stacked deck)" if logged["stacked"] else
                    f" (the deck is not stacked, so it must be the one seed {logged['seed']} deals)")
        raise VerifyError(f"{log.where(k)}{label}: {diff}{hint}")


def _difference(logged: Any, replayed: Any, path: str) -> str | None:
    """The first difference between a logged JSON value and the replay's, as ``"<path> is X in the log, the replay
    has Y"`` (``None``: the same). Numbers compare by value (1 and 1.0 are one JSON number); a boolean is no
    number."""
    name = path or "the line"
    if isinstance(replayed, dict) and isinstance(logged, dict):
        for key, value in replayed.items():
            sub = f"{path}.{key}" if path else key
            if key not in logged:
                return f"{sub} is missing (the replay has {_short(value)})"
            diff = _difference(logged[key], value, sub)
            if diff is not None:
                return diff
        extra = next((key for key in logged if key not in replayed), None)
        return None if extra is None else f"{f'{path}.{extra}' if path else extra} is not in the replay"
    if isinstance(replayed, list) and isinstance(logged, list):
        for i, (a, b) in enumerate(zip(logged, replayed, strict=False)):
            diff = _difference(a, b, f"{path}[{i}]")
            if diff is not None:
                return diff
        k = min(len(logged), len(replayed))
        if len(logged) > k:
            return f"{path}[{k}] is {_short(logged[k])} in the log, not in the replay"
        if len(replayed) > k:
            return f"{path}[{k}] is missing (the replay has {_short(replayed[k])})"
        return None
    if _same_scalar(logged, replayed):
        return None
    return f"{name} is {_short(logged)} in the log, the replay has {_short(replayed)}"


def _same_scalar(a: Any, b: Any) -> bool:
    number = (int, float)
    if isinstance(a, bool) or isinstance(b, bool) or not (isinstance(a, number) and isinstance(b, number)):
        return type(a) is type(b) and not isinstance(a, (list, dict)) and a == b
    return a == b


def _short(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "…"
