"""What one seat sees at a table, as data to draw (:mod:`envs.drawing`): the seats round the table with their
chips and cards, the piles in the middle and the board of chips.

:func:`scene` reads seat ``viewer``'s observation only (``None``: seat 0's, without its private fields: public
information only), so a scene holds nothing hidden from the viewer (C12), like :func:`envs.html.table_html`, which
reads the same fields of the game's :class:`~envs.gamelog.PublicView`. Each game adds the few public pieces of its
observation that a drawing needs and a log does not (:data:`EXTRAS`): Le triolet's face-down cards (how many, never
which), the rank on top of its pile, the order of Flip Flop's discard pile, Tripoli's phase and the names of the
layout's spaces.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from envs.core.cards import RANK_LETTERS, SUIT_SYMBOLS, rank_of
from envs.gamelog import field_value, public_view, seat_name

if TYPE_CHECKING:
    from envs.core.game import BatchedGame, BatchState

HAND_COUNT = "cards in hand"
"""The label of the ``seat_values`` field of the number of cards in each hand (every game has one)."""
FLAGS = ("folded",)
"""``seat_values`` fields drawn as a tag on the seat when non-zero."""


@dataclasses.dataclass
class CardRow:
    """A labelled group of cards lying face up (``cards``), and face down (``backs``: how many, never which)."""

    label: str
    field: str = ""
    """The public field the cards come from (the last move's events name it: its new cards are highlighted)."""
    cards: list[int] = dataclasses.field(default_factory=list)
    backs: int = 0
    note: str = ""
    """A word on the row (Le triolet's pile: the rank on top)."""


@dataclasses.dataclass
class Space:
    """A place that holds chips: a space of Tripoli's layout, a pot of Flip Flop."""

    field: str
    """The public field it comes from (``"layout"``, ``"pots"``)."""
    name: str
    """The name the log's events use (``"A"``, ``"kitty"``, ``"game"``)."""
    label: str
    """What the drawing writes on it (``"A♥"``, ``"8-9-10"``, ``"game pot"``)."""
    chips: float


@dataclasses.dataclass
class SeatScene:
    """One seat as the viewer sees it."""

    seat: int
    you: bool
    to_act: bool
    dealer: bool
    hand_count: int = 0
    hand: list[int] | None = None
    """The viewer's own hand; ``None`` for any other seat (drawn as ``hand_count`` backs)."""
    numbers: list[tuple[str, float]] = dataclasses.field(default_factory=list)
    """(label, value) of the seat's public numbers: chips or money, this round's bet."""
    tags: list[str] = dataclasses.field(default_factory=list)
    """``folded``, ``high bidder``, ``out``…"""
    rows: list[CardRow] = dataclasses.field(default_factory=list)
    """The seat's cards on the table or known in its hand (face-down, face-up, shown, plays, spreads…)."""


@dataclasses.dataclass
class Scene:
    """A table as one seat (or the public) sees it."""

    game: str
    title: str
    viewer: int | None
    status: str
    seats: list[SeatScene]
    centre: list[CardRow] = dataclasses.field(default_factory=list)
    """The piles in the middle (Le triolet's pile, Flip Flop's discard pile and stock…)."""
    board: list[Space] = dataclasses.field(default_factory=list)
    """Chips on the table (Tripoli's layout, Flip Flop's pots)."""
    notes: list[str] = dataclasses.field(default_factory=list)
    """Public words on the whole table (phase, pay suit)."""


def scene(game: BatchedGame, state: BatchState, viewer: int | None, table: int = 0) -> Scene:
    """Table ``table`` of ``state`` as seat ``viewer`` sees it (``None``: public information only)."""
    view = public_view(game.name)
    n = game.num_players
    me = 0 if viewer is None else viewer
    obs = game.observe(state.take(np.asarray([table])), np.asarray([me]))[0]
    dealer = field_value(view.dealer, obs, me, n)
    cur = int(state.current_player[table])
    over = bool(state.terminated[table] | state.truncated[table])
    status = ("game over" if bool(state.terminated[table]) else "cut off at the turn limit" if over
              else f"{seat_name(cur)} to act")
    seats = [SeatScene(s, s == viewer, s == cur and not over, s == dealer) for s in range(n)]
    out = Scene(game.name, view.title or game.name, viewer, status, seats)
    for f in view.fields:
        if f.private and viewer is None:
            continue
        value = field_value(f, obs, me, n)
        if f.private and f.kind == "cards":
            if f.name == "hand":
                seats[me].hand = value
            else:
                seats[me].rows.append(CardRow(f"your {f.label}", f.name, value))
        elif f.kind == "cards":
            out.centre.append(CardRow(f.label, f.name, value))
        elif f.kind == "seat_cards":
            for s, cards in value.items():
                if cards:
                    seats[s].rows.append(CardRow(f.label, f.name, cards))
        elif f.kind == "seat_values":
            for s, x in value.items():
                if f.label == HAND_COUNT:
                    seats[s].hand_count = int(round(x))
                elif f.name in FLAGS:
                    seats[s].tags += [f.label] if x else []
                else:
                    seats[s].numbers.append((f.label, x))
        elif f.kind == "seat_onehot":
            if value is not None:
                seats[value].tags.append(f.label)
        elif f.kind == "values" and f.name == "stock":
            out.centre.append(CardRow(f.label, f.name, backs=int(round(value["cards"]))))
        elif f.kind == "values":
            out.board += [Space(f.name, k, k, x) for k, x in value.items()]
        elif value is not None:
            out.notes.append(f"{f.label} {value}")
    EXTRAS[game.name](out, obs)
    return out


def _values(sc: Scene, obs: np.ndarray, name: str, seat: int | None = None) -> np.ndarray:
    """The numbers of piece ``name`` of the viewer's observation ``obs`` (for a piece repeated per seat: the entry
    of absolute seat ``seat``)."""
    spec = importlib.import_module(f"envs.{sc.game}.observation").SPEC
    at = spec.offset(name)
    if seat is not None:
        at += spec.stride(name) * ((seat - (sc.viewer or 0)) % len(sc.seats))
    return obs[at : at + spec.size_of(name)]


def _hot(values: np.ndarray) -> int | None:
    """The index of a one-hot's set entry (``None``: none)."""
    hot = np.flatnonzero(values)
    return int(hot[0]) if hot.size else None


def _face(value: int) -> str:
    """A rank's name from its face value 2 … 14."""
    return "10" if value == 10 else RANK_LETTERS[value - 2]


def _tripoli(sc: Scene, obs: np.ndarray) -> None:
    """The layout's spaces named after the pay suit and the sequence (T2, T26, T27); the phase."""
    from envs.tripoli.observation import SCALARS
    from envs.tripoli.state import PHASE_NAMES

    suit = SUIT_SYMBOLS[_hot(_values(sc, obs, "pay_suit")) or 0]
    start = int(round(float(_values(sc, obs, "scalars")[SCALARS.index("sequence_start")])))
    names = {"K-Q": f"K{suit}Q{suit}", "8-9-10": "-".join(_face(v) for v in range(start, start + 3))}
    for space in sc.board:
        pay_card = space.name in ("A", "K", "Q", "J", "10")
        space.label = f"{space.name}{suit}" if pay_card else names.get(space.name, space.name)
    phase = _hot(_values(sc, obs, "phase"))
    if phase is not None:
        sc.notes.insert(0, PHASE_NAMES[phase])


def _triolet(sc: Scene, obs: np.ndarray) -> None:
    """Each seat's face-down cards (L3: how many; nobody sees them, L17), the rank on top of the pile, the phase."""
    from envs.triolet.actions import RANK_NAMES

    for seat in sc.seats:
        down = int(_values(sc, obs, "facedown", seat.seat).sum())
        seat.rows.insert(0, CardRow("face-down", "facedown", backs=down))
    top = _hot(_values(sc, obs, "top"))
    if top is not None:
        pile = next(row for row in sc.centre if row.field == "pile")
        pile.note = f"top {int(round(float(_values(sc, obs, 'run')[0])))}×{RANK_NAMES[top]}"
        pile.cards.sort(key=lambda c: rank_of(c) == top)  # the top rank last, on top
    sc.notes.insert(0, "swap phase" if _values(sc, obs, "swap_phase")[0] else "play")


def _flipflop(sc: Scene, obs: np.ndarray) -> None:
    """The discard pile in the order it was laid (its top last), who is out or all in (F24), the phase."""
    order = _values(sc, obs, "pile_order")
    pile = next(row for row in sc.centre if row.field == "pile")
    pile.cards.sort(key=lambda c: float(order[c]))
    for seat in sc.seats:
        seat.tags += [tag for tag, name in (("out", "out"), ("all in", "all_in"))
                      if _values(sc, obs, name, seat.seat)[0]]
    for space in sc.board:
        space.label = f"{space.name} pot"
    words = (("draw", "phase_draw"), ("play", "phase_play"), ("49/50 claim", "phase_claim"),
             ("last turn", "last_turn"))
    sc.notes[:0] = [word for word, name in words if _values(sc, obs, name)[0]]


EXTRAS: dict[str, Callable[[Scene, np.ndarray], None]] = {
    "tripoli": _tripoli, "triolet": _triolet, "flipflop": _flipflop}
"""Game name → what its drawing adds from public pieces of the observation that the log's view does not read."""
