"""Flip Flop deals consistent with what one seat knows (a :class:`~envs.seatview.SeatView`), for search players.

The replay and the check are :class:`envs.core.sampling.DealSampler`'s; this module builds the *constraint model*
of the cards the seat has not seen and draws stacked decks from it (:func:`envs.core.sampling.place_cards`). Only the
view is read: the seat's observations of the deal and the public actions.

**Slots** (places in the deck, F5–F6). The ``5m`` dealt cards go one at a time to the ``m`` seats in the deal from the
dealer's left; slot ``k < m`` is the dealt hand of the ``k``-th of them, except the dealer's fifth card, the flip card,
which is a slot of its own; then each card drawn from the stock so far is a slot (the stock is dealt from the top, in
order), and the cards still in the stock are one more.

**What is fixed.** The seat's dealt hand and the cards it drew from the stock, the flip card, the cards each seat
showed at its first turn (F12, in its dealt hand).

**What the public events imply.**

- A card a seat discards, lays or lays off (the action names it) that was not publicly known to be in its hand came
  from its dealt hand or a card it drew from the stock before.
- *Showing* (F12): at its first turn a seat shows its lowest card of the flip suit and of the flop suit when lower
  than the lowest shown so far; so its dealt hand holds no card of either suit below the card it showed, or, if it
  showed none, below the lowest shown before it.

The rest (a forced move, whatever the replay finds) is left to the replay's check. Sessions (``num_deals > 1``,
``until_one_left``) are refused by :meth:`FlipFlopSampler.unsupported`.
"""

from __future__ import annotations

import dataclasses

import numba
import numpy as np

from envs.core.cards import partner_suit
from envs.core.sampling import DealSampler, place_cards, start_draw, write_deck
from envs.flipflop import actions as T
from envs.flipflop.observation import KNOWN_IN, MAX_SEATS, SEAT_FIELDS, SEATS_OFFSET, SPEC
from envs.seatview import SeatView

HAND_SIZE = 5
_AT = {name: SPEC.offset(name) for name in ("hand", "flip_card", "shown", "pile", "spreads", "known", "taken_by",
                                            "stock")}


def _cards(plane: np.ndarray) -> int:
    """The public card ids of a 52-number plane, as a Python int bit mask."""
    out = 0
    for c in np.flatnonzero(plane > 0.5).tolist():
        out |= 1 << c
    return out


def _ids(mask: int) -> list[int]:
    return [c for c in range(52) if (mask >> c) & 1]


def _low_rank(card: int) -> int:
    """The ace-low rank of a public card id (0 = ace … 12 = king, F2)."""
    return (card % 13 + 1) % 13


class _Reader:
    """Absolute-seat readings of one observation row."""

    def __init__(self, obs: np.ndarray, n: int, me: int) -> None:
        self.obs, self.n, self.me = obs, n, me

    def plane(self, name: str) -> int:
        at = _AT[name]
        return _cards(self.obs[at : at + 52])

    def seat_plane(self, name: str, seat: int) -> int:
        at = _AT[name] + 52 * ((seat - self.me) % self.n)
        return _cards(self.obs[at : at + 52])

    def known(self, seat: int) -> int:
        at = KNOWN_IN * 52 + 52 * ((seat - self.me) % self.n)
        return _cards(self.obs[at : at + 52])

    def seat_value(self, field: str, seat: int) -> float:
        return float(self.obs[SEATS_OFFSET + SEAT_FIELDS.index(field) * MAX_SEATS + (seat - self.me) % self.n])

    def dealer(self) -> int:
        return next(s for s in range(self.n) if self.seat_value("dealer", s) > 0.5)

    def stock(self) -> int:
        return int(round(float(self.obs[_AT["stock"]])))


@dataclasses.dataclass
class FlipFlopModel:
    """Where each card may be, for one view (module docstring)."""

    dealer: int
    fixed: np.ndarray
    """(52,) int64 — the slot of each card whose place the seat knows, else -1."""
    domain: np.ndarray
    """(52,) int64 — bit mask of the slots each card may be in."""
    sizes: np.ndarray
    """Cards in each slot."""
    slot_of_position: np.ndarray
    """(52,) int64 — the slot of each deck position."""
    error: str | None = None


def _laid_cards(action: int) -> int:
    """The public card ids an action puts on the table or the pile (discard, lay, lay off), as a bit mask."""
    if T.DISCARD <= action < T.LAY_RUN:
        return 1 << (action - T.DISCARD)
    if T.LAY_RUN <= action < T.LAY_OFF:
        mask = 0
        cards = int(T.SPREAD_CARDS[action - T.LAY_RUN])
        for low in range(52):
            if (cards >> low) & 1:
                mask |= 1 << int(T.PUB_OF[low])
        return mask
    if T.LAY_OFF <= action < T.CLAIM:
        return 1 << int(T.PUB_OF[int(T.LAYOFF_BIT[action - T.LAY_OFF])])
    return 0


@numba.njit(cache=True)
def _draw(fixed, domain, sizes, full, slot_of_position, count, seed, decks):
    """Up to ``count`` decks drawn from a model into ``decks`` (public card ids); returns how many."""
    np.random.seed(seed)
    nslots = sizes.shape[0]
    loc = np.empty(52, np.int64)
    cap = np.empty(nslots, np.int64)
    done = 0
    for _ in range(count):
        if not start_draw(loc, fixed, sizes, cap) or not place_cards(loc, domain, cap, full):
            continue
        write_deck(loc, slot_of_position, decks[done])
        done += 1
    return done


class FlipFlopSampler(DealSampler):
    """Flip Flop deals consistent with a seat view (module docstring). Every public action says something of the
    hand it was played from (a likelihood weighs them all, :attr:`weighed_kinds`)."""

    weighed_kinds = ("drop", "draw stock", "draw discard", "discard", "lay run", "lay set", "lay off")

    def unsupported(self) -> str | None:
        cfg = self.game.config
        if cfg.num_deals > 1 or cfg.until_one_left:
            return "sessions of several deals (num_deals > 1 or until_one_left)"
        return None

    def _model(self, view: SeatView) -> FlipFlopModel:
        n, me = self.game.num_players, view.seat
        hist = view.observations()
        rows = [_Reader(row, n, me) for row in hist]
        first = rows[0]
        dealer = first.dealer()
        order = [(dealer + 1 + i) % n for i in range(n) if first.seat_value("in_deal", (dealer + 1 + i) % n) > 0.5]
        m = len(order)
        slot_of_seat = {p: k for k, p in enumerate(order)}
        flip_slot = m
        # the stock: one slot per card drawn so far (in order), then the rest
        draws: list[tuple[int, int]] = []  # (step, drawer) of each card drawn from the stock, in order
        for k in range(1, len(rows)):
            fell = rows[k - 1].stock() - rows[k].stock()
            if fell <= 0:
                continue
            grew = [p for p in range(n) if rows[k].seat_value("hand_size", p) > rows[k - 1].seat_value("hand_size", p)]
            drawer = grew[0] if len(grew) == 1 else -1
            draws += [(k, drawer)] * fell
        undrawn_slot = m + 1 + len(draws)
        nslots = undrawn_slot + 1
        if nslots > 62:
            nslots = 0  # cannot happen with 52 cards and at least 2 seats (m + 2 + 52 - 5m)
        full = (1 << nslots) - 1
        slot_of_position = np.empty(52, np.int64)
        for j in range(52):
            if j < HAND_SIZE * m:
                slot_of_position[j] = flip_slot if j == HAND_SIZE * m - 1 else j % m
            elif j - HAND_SIZE * m < len(draws):
                slot_of_position[j] = m + 1 + (j - HAND_SIZE * m)
            else:
                slot_of_position[j] = undrawn_slot
        sizes = np.bincount(slot_of_position, minlength=nslots).astype(np.int64)
        fixed = np.full(52, -1, np.int64)
        domain = np.full(52, full, np.int64)

        def fail(why: str) -> FlipFlopModel:
            return FlipFlopModel(dealer, fixed, domain, sizes, slot_of_position, error=why)

        def fix(mask: int, slot: int) -> bool:
            for c in _ids(mask):
                if fixed[c] >= 0 and fixed[c] != slot:
                    return False
                fixed[c] = slot
            return True

        flip = first.plane("flip_card")
        if not fix(flip, flip_slot) or not fix(first.plane("hand") & ~flip, slot_of_seat.get(me, -1)):
            return fail("the seat's hand is not where it was dealt")
        for i, (k, drawer) in enumerate(draws):
            fell = sum(1 for step, _ in draws if step == k)
            if drawer == me and fell == 1:  # the card the seat drew is the one new in its hand, not from the pile
                new = rows[k].plane("hand") & ~rows[k - 1].plane("hand") & ~rows[k].seat_plane("taken_by", me)
                if bin(new).count("1") == 1 and not fix(new, m + 1 + i):
                    return fail("a card the seat drew is seen elsewhere")
        # shows (F12): each seat's first turn, in turn order, against the lowest shown before it
        flip_suit = _ids(flip)[0] // 13
        suits = (flip_suit, int(partner_suit(flip_suit)))
        low = [_low_rank(_ids(flip)[0]), 13]
        for k in range(len(rows)):
            starting = [p for p in order if rows[k].seat_value("had_turn", p) > 0.5
                        and (k == 0 or rows[k - 1].seat_value("had_turn", p) < 0.5)]
            before = rows[k - 1].plane("shown") if k else flip
            new_shown = rows[k].plane("shown") & ~before
            for p in starting:
                mine = new_shown & rows[k].known(p)
                for j, suit in enumerate(suits):
                    in_suit = [c for c in _ids(mine) if c // 13 == suit]
                    limit = _low_rank(in_suit[0]) if in_suit else low[j]
                    if in_suit and not fix(1 << in_suit[0], slot_of_seat[p]):
                        return fail("a shown card is seen elsewhere")
                    for c in range(suit * 13, suit * 13 + 13):
                        if _low_rank(c) < limit:
                            domain[c] &= ~(1 << slot_of_seat[p])
                    low[j] = min(low[j], limit)
        # cards put down by a seat that were not known to be in its hand: from its dealt hand or its draws before
        for k in range(1, len(rows)):
            p, action = view.actors[k - 1], view.actions[k - 1]
            if p == me or action < 0 or p not in slot_of_seat:
                continue
            hidden = _laid_cards(action) & ~rows[k - 1].known(p)
            if not hidden:
                continue
            allowed = 1 << slot_of_seat[p]
            if p == dealer:
                allowed |= 1 << flip_slot
            for i, (step, drawer) in enumerate(draws):
                if step <= k - 1 and drawer in (p, -1):
                    allowed |= 1 << (m + 1 + i)
            for c in _ids(hidden):
                domain[c] &= allowed
        for c in range(52):
            if fixed[c] >= 0 and not (domain[c] >> fixed[c]) & 1:
                return fail("a card is fixed where the public events say it cannot be")
        return FlipFlopModel(dealer, fixed, domain, sizes, slot_of_position)

    def draw(self, view: SeatView, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        model = self.model(view)
        if model.error is not None:
            return np.zeros((0, 52), np.int64), np.zeros(0, np.int64)
        decks = np.empty((count, 52), np.int64)
        full = (1 << model.sizes.shape[0]) - 1
        done = _draw(model.fixed, model.domain, model.sizes, full, model.slot_of_position, count, seed, decks)
        return decks[:done], np.full(done, model.dealer, np.int64)
