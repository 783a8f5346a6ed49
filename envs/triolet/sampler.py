"""Le triolet deals consistent with what one seat knows (a :class:`~envs.seatview.SeatView`), for search players.

The replay and the check are :class:`envs.core.sampling.DealSampler`'s; this module builds the *constraint model*
of the cards the seat has not seen and draws stacked decks from it (:func:`envs.core.sampling.place_cards`). Only the
view is read: the seat's observations and the public actions (each step's action and forced moves, C8).

**Moves.** Every step is followed move by move on what is public (:func:`envs.triolet.moves.step_moves`: the action,
then the step's forced moves): the top of the pile before each move, the mover's hand size and its draws.

**Slots** (L3, the deck in dealing order). Seat ``p`` is dealt deck positions ``9p … 9p + 8``: three face-down
cards (a slot each: a face-down card is turned by its slot), three face-up cards (a slot each) and three hand cards
(one slot); the stock follows, drawn from the top (L10): each move's draws are a slot of the seat that drew them
(a step whose public replay does not add up has one slot for its draws, any seat's), and the cards still in the
stock one more.

**What is fixed.** The seat's dealt hand and face-up cards, its draws from the stock, its own face-down cards once
turned; every face-up card is where it was dealt (the face-up cards are public, L17: a seat's three are its three
face-up slots, each card in the slot a swap, L4, showed it in); a card swapped in from a hand that was not known to be
there was dealt to that hand; a face-down card turned and played is that slot's.

**What the moves imply** of another seat's hand, whose unseen cards come from its dealt hand, its own draws before
the move and the face-down cards it turned and could not play (which went into its hand unseen): a card it played
that was not seen before came from there; an unseen card of the rank it played and of a lower suit was not there
(the engine plays the lowest suits first); after a forced pick-up (L11) no unseen card that could go on the pile was
there, after a forced play (C8: its one legal action) no other.

The rest — whether a seat to decide had two legal actions, the place of a swapped hand card in the sorted hand
(checked while drawing), the moves after a face-down card in the same step — is left to the replay's check. Two
decks (6 to 8 players) are refused by :meth:`TrioletSampler.unsupported`.
"""

from __future__ import annotations

import dataclasses
import functools

import numba
import numpy as np

from envs.core.cards import DECK_SIZE
from envs.core.sampling import DealSampler, place_cards, start_draw, write_deck
from envs.seatview import SeatView
from envs.triolet import observation as V
from envs.triolet.actions import HAND_SIZE, MAX_COPIES, PICK_UP, PLAY_FACEDOWN, PLAY_FACEUP, PLAYABLE, SWAP
from envs.triolet.moves import Move, step_moves

_DEALT = 9
"""Cards dealt to each seat (L3)."""


def _cards(plane: np.ndarray) -> int:
    return int.from_bytes(np.packbits(plane > 0.5, bitorder="little").tobytes(), "little")


def _ids(mask: int) -> list[int]:
    return [c for c in range(DECK_SIZE) if (mask >> c) & 1]


class _Reader:
    """Absolute-seat readings of one observation row."""

    def __init__(self, obs: np.ndarray, n: int, me: int) -> None:
        self.obs, self.n, self.me = obs, n, me
        self._faceup: dict[int, int] = {}
        self._known: dict[int, int] = {}

    def _block(self, seat: int) -> int:
        return V.SEATS + V.SEAT_SIZE * ((seat - self.me) % self.n)

    def hand(self) -> int:
        return self.own_hand

    @functools.cached_property
    def own_hand(self) -> int:
        """The seat's own hand."""
        return _cards(self.obs[V.OWN_HAND : V.OWN_HAND + DECK_SIZE])

    def faceup(self, seat: int) -> int:
        if seat not in self._faceup:
            at = self._block(seat) + V.FACEUP
            self._faceup[seat] = _cards(self.obs[at : at + DECK_SIZE])
        return self._faceup[seat]

    def known(self, seat: int) -> int:
        if seat not in self._known:
            at = self._block(seat) + V.KNOWN
            self._known[seat] = _cards(self.obs[at : at + DECK_SIZE])
        return self._known[seat]

    def facedown(self, seat: int, slot: int) -> bool:
        return bool(self.obs[self._block(seat) + V.FACEDOWN + slot] > 0.5)

    def hand_count(self, seat: int) -> int:
        return int(round(float(self.obs[self._block(seat) + V.HAND_COUNT])))

    def dealer(self) -> int:
        return next(s for s in range(self.n) if self.obs[self._block(s) + V.DEALER] > 0.5)

    def own_faceup(self, slot: int) -> int:
        at = V.OWN_FACEUP_SLOTS + DECK_SIZE * slot
        hot = np.flatnonzero(self.obs[at : at + DECK_SIZE] > 0.5)
        return int(hot[0]) if hot.size else -1

    @functools.cached_property
    def seen(self) -> int:
        """Every card this row shows anywhere (:meth:`visible`) or in the seat's hand."""
        return self.visible() | self.hand()

    def visible(self) -> int:
        """Every card this row shows anywhere: the pile, the burned cards, every seat's face-up and known cards."""
        out = _cards(self.obs[V.PILE : V.PILE + DECK_SIZE]) | _cards(self.obs[V.BURNED : V.BURNED + DECK_SIZE])
        for s in range(self.n):
            out |= self.faceup(s) | self.known(s)
        return out

    def stock(self) -> int:
        return int(round(float(self.obs[V.STOCK])))


@dataclasses.dataclass
class TrioletModel:
    """Where each card may be, for one view (module docstring); ``fixed`` -2 marks a card outside the deck."""

    dealer: int
    fixed: np.ndarray
    domain: np.ndarray
    sizes: np.ndarray
    slot_of_position: np.ndarray
    places: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 4), np.int64))
    """Rows ``(slot, card, smaller, gone)`` of :func:`_draw`: the hand places other seats' swaps named (L4)."""
    error: str | None = None


@numba.njit(cache=True)
def _draw(fixed, domain, sizes, full, slot_of_position, places, count, seed, decks):
    """Up to ``count`` decks drawn from a model into ``decks`` (card identities in dealing order), trying at most
    ``20 * count`` times; returns how many. ``places`` rows ``(slot, card, smaller, gone)``: the deal must put exactly
    ``smaller`` cards below ``card`` in ``slot``, leaving out the cards of the bit mask ``gone`` (a swap's hand
    place, L4)."""
    np.random.seed(seed)
    nslots = sizes.shape[0]
    loc = np.empty(fixed.shape[0], np.int64)
    cap = np.empty(nslots, np.int64)
    done = 0
    for _ in range(20 * count):
        if done == count:
            break
        if not start_draw(loc, fixed, sizes, cap) or not place_cards(loc, domain, cap, full):
            continue
        bad = False
        for i in range(places.shape[0]):
            below = 0
            for c in range(places[i, 1]):
                if loc[c] == places[i, 0] and not (places[i, 3] >> c) & 1:
                    below += 1
            if below != places[i, 2]:
                bad = True
        if bad:
            continue
        write_deck(loc, slot_of_position, decks[done])
        done += 1
    return done


class TrioletSampler(DealSampler):
    """Le triolet deals consistent with a seat view (module docstring)."""

    def unsupported(self) -> str | None:
        if self.game.num_players >= 6:
            return "two decks (6 to 8 players)"
        return None

    def model(self, view: SeatView) -> TrioletModel:
        """The constraint model of ``view`` (kept in its cache until the view grows)."""
        cached = view.cache.get("triolet_model")
        if cached is not None and cached[0] == len(view):
            return cached[1]
        model = self._model(view)
        view.cache["triolet_model"] = (len(view), model)
        return model

    def _model(self, view: SeatView) -> TrioletModel:
        game, n, me = self.game, self.game.num_players, view.seat
        deck_size = len(game.deck_ids())
        hist = view.observations()
        rows = view.cache.setdefault("triolet_rows", [])  # the readers of the rows, kept as the view grows
        rows += [_Reader(row, n, me) for row in hist[len(rows):]]
        first = rows[0]
        dealer = first.dealer()
        fd = lambda p, j: 3 * p + j  # noqa: E731 - slot numbers, named for reading
        fu = lambda p, j: 3 * n + 3 * p + j  # noqa: E731
        hand_slot = lambda p: 6 * n + p  # noqa: E731
        # the stock's draws, move by move: (step, drawer or -1, cards)
        events: list[tuple[int, int, int]] = []
        steps: list[list[Move]] = [[]]
        for k in range(1, len(rows)):
            moves, exact = step_moves(view, hist, k)
            steps.append(moves)
            fell = rows[k - 1].stock() - rows[k].stock()
            if exact:
                events += [(k, m.seat, m.drew) for m in moves if m.drew]
            elif fell > 0:
                events.append((k, -1, fell))
        first_event = 7 * n
        undrawn = first_event + len(events)
        nslots = undrawn + 1
        if nslots > 62:
            return TrioletModel(dealer, np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0), error="too many slots")
        full = (1 << nslots) - 1
        slot_of_position = np.empty(deck_size, np.int64)
        for i in range(deck_size):
            if i < _DEALT * n:
                p, j = divmod(i, _DEALT)
                slot_of_position[i] = fd(p, j) if j < 3 else fu(p, j - 3) if j < 6 else hand_slot(p)
            else:
                slot_of_position[i] = undrawn
        at = _DEALT * n
        for e, (_, _, cards) in enumerate(events):
            slot_of_position[at : at + cards] = first_event + e
            at += cards
        sizes = np.bincount(slot_of_position, minlength=nslots).astype(np.int64)
        fixed = np.full(DECK_SIZE, -2, np.int64)
        fixed[np.asarray(game.deck_ids(), np.int64) % DECK_SIZE] = -1
        domain = np.full(DECK_SIZE, full, np.int64)

        def fail(why: str) -> TrioletModel:
            return TrioletModel(dealer, fixed, domain, sizes, slot_of_position, error=why)

        def fix(mask: int, slot: int) -> bool:
            for c in _ids(mask):
                if fixed[c] == -2 or (fixed[c] >= 0 and fixed[c] != slot):
                    return False
                fixed[c] = slot
            return True

        # dealt: the seat's hand and face-up slots; every seat's face-up cards in its face-up slots
        if not fix(first.hand(), hand_slot(me)):
            return fail("the seat's hand is not in the deck")
        for j in range(HAND_SIZE):
            c = first.own_faceup(j)
            if c >= 0 and not fix(1 << c, fu(me, j)):
                return fail("a face-up card is seen twice")
        faceup_all = 0
        for p in range(n):
            up = first.faceup(p)
            faceup_all |= up
            if p != me:
                for c in _ids(up):
                    domain[c] &= sum(1 << fu(p, j) for j in range(HAND_SIZE))
        for c in range(DECK_SIZE):
            if not (faceup_all >> c) & 1:
                domain[c] &= ~sum(1 << fu(p, j) for p in range(n) for j in range(HAND_SIZE))
        # swaps (L4): the card a swap took from a face-up slot was dealt there unless a swap put it there
        swapped_in: dict[tuple[int, int], bool] = {}
        places = []
        gone = {p: 0 for p in range(n)}
        for k in range(1, len(rows)):
            p, a = view.actors[k - 1], view.actions[k - 1]
            if p == me or not SWAP <= a < SWAP + HAND_SIZE * HAND_SIZE:
                continue
            slot = (a - SWAP) % HAND_SIZE
            out = rows[k - 1].faceup(p) & ~rows[k].faceup(p)
            given = rows[k].faceup(p) & ~rows[k - 1].faceup(p)
            if bin(out).count("1") == 1 and not swapped_in.get((p, slot)) and not fix(out, fu(p, slot)):
                return fail("a swapped face-up card is seen elsewhere")
            if bin(given).count("1") == 1 and not given & rows[k - 1].known(p) and not fix(given, hand_slot(p)):
                return fail("a swapped hand card is seen elsewhere")
            if bin(given).count("1") == 1:  # the hand sorted by id had ``place`` cards below the one given
                card = _ids(given)[0]
                known = rows[k - 1].known(p)
                below_known = bin(known & ((1 << card) - 1)).count("1")
                places.append((hand_slot(p), card, (a - SWAP) // HAND_SIZE - below_known, gone[p] | known | given))
                if not given & known:
                    gone[p] |= given
            swapped_in[(p, slot)] = True
        # the seat's own draws and failed face-down cards: cards new in its hand that nobody saw before
        sources = {p: 1 << hand_slot(p) for p in range(n)}  # where a seat's unseen hand cards may come from
        events_at = {}
        for e, (k, p, cards) in enumerate(events):
            events_at.setdefault(k, []).append((e, p, cards))
        for k in range(1, len(rows)):
            before = rows[k - 1].seen
            new_visible = rows[k].visible() & ~before
            new_mine = rows[k].hand() & ~before
            unseen = [c for c in range(DECK_SIZE) if not (rows[k].seen >> c) & 1 and fixed[c] != -2]
            mine = [e for e, drawer, _ in events_at.get(k, []) if drawer == me]
            if sum(events[e][2] for e in mine) == bin(new_mine).count("1") and mine:
                if len(mine) == 1 and not fix(new_mine, first_event + mine[0]):
                    return fail("a card the seat drew is seen elsewhere")
                for c in _ids(new_mine):
                    domain[c] &= sum(1 << (first_event + e) for e in mine)
            turns = [m for m in steps[k] if PLAY_FACEDOWN <= m.action < PICK_UP]
            if len(turns) == 1:  # the step's one face-down card, seen if it was played (or, the seat's, in its hand)
                p, slot = turns[0].seat, turns[0].action - PLAY_FACEDOWN
                turned = new_visible | new_mine if p == me else new_visible
                if bin(turned).count("1") == 1 and (p == me or rows[k].hand_count(p) <= rows[k - 1].hand_count(p)):
                    if not fix(turned, fd(p, slot)):
                        return fail("a turned face-down card is seen elsewhere")
            drawn = iter(e for e, _, _ in events_at.get(k, []))
            for m in steps[k]:
                if not m.lost and m.seat != me:
                    self._infer(m, steps[k], rows[k - 1], rows[k], new_visible, unseen, sources[m.seat], fixed, domain)
                if m.drew and not m.lost:
                    sources[m.seat] |= 1 << (first_event + next(drawn))
            for q in range(n):  # a face-down card turned (decided or forced) may have gone into the hand unseen
                for j in range(HAND_SIZE):
                    if rows[k - 1].facedown(q, j) and not rows[k].facedown(q, j):
                        sources[q] |= 1 << fd(q, j)
            for e, drawer, _ in events_at.get(k, []):
                if drawer < 0:
                    for q in range(n):
                        sources[q] |= 1 << (first_event + e)
        for c in range(DECK_SIZE):
            if fixed[c] >= 0 and not (domain[c] >> fixed[c]) & 1:
                return fail("a card is fixed where the public events say it cannot be")
        return TrioletModel(dealer, fixed, domain, sizes, slot_of_position,
                            np.array(places, np.int64).reshape(len(places), 4))

    @staticmethod
    def _infer(m: Move, moves: list[Move], before: _Reader, after: _Reader, new_visible: int, unseen: list[int],
               source: int, fixed: np.ndarray, domain: np.ndarray) -> None:
        """Narrow ``domain`` by what move ``m`` of another seat says of its hand (whose unseen cards are in the slots
        of the mask ``source``): a card it played that was not known to be there came from those slots; a card
        below the ones it played of that rank was not there (the lowest suits go first); a forced play (its one
        playable card) or a pick-up (none) leaves no other playable card there (L6, L11)."""
        a = m.action
        playable = [c for c in unseen if PLAYABLE[m.top + 1, c % 13]]
        if a == PICK_UP and m.hand > 0:
            for c in playable:
                domain[c] &= ~source
        if not 0 <= a < PLAY_FACEUP:
            return
        rank = a // MAX_COPIES
        same_rank = [x for x in moves if 0 <= x.action < PLAY_FACEUP and x.action // MAX_COPIES == rank]
        alone = len(same_rank) == 1 and not any(PLAY_FACEDOWN <= x.action < PICK_UP for x in moves)
        shown = [c for c in _ids(new_visible) if c % 13 == rank]  # unseen before: from the unseen part of the hand
        known = [c for c in _ids(before.known(m.seat) & ~after.known(m.seat)) if c % 13 == rank]
        if alone and shown + known:
            for c in shown:
                if fixed[c] < 0:
                    domain[c] &= source
            played = max(shown + known)
            for c in unseen:
                if c % 13 == rank and c < played:
                    domain[c] &= ~source
        if m.forced:
            for c in playable:
                domain[c] &= ~source

    def draw(self, view: SeatView, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        model = self.model(view)
        deck_size = len(self.game.deck_ids())
        if model.error is not None:
            return np.zeros((0, deck_size), np.int64), np.zeros(0, np.int64)
        decks = np.empty((count, deck_size), np.int64)
        full = (1 << model.sizes.shape[0]) - 1
        done = _draw(model.fixed, model.domain, model.sizes, full, model.slot_of_position, model.places, count, seed,
                     decks)
        return decks[:done], np.full(done, model.dealer, np.int64)
