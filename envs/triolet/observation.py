"""Seat-relative observation of Le triolet (L17): what a seat may know, padded to eight seats.

Declared once as :data:`SPEC` (:mod:`envs.core.obs_spec`); the index table below, the offsets the code uses and
the game log's public view (:data:`VIEW`) are derived from it. "Relative seat j" is the seat j places to the
viewer's left (j = 0 the viewer); pieces of absent seats are zero; card vectors are copy counts per card identity
0..51 (C1; 0–2 with two decks).

"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np

from envs.core import bits
from envs.core.cards import DECK_SIZE, NUM_RANKS
from envs.core.obs_spec import Log, ObservationSpec, Piece, Seats
from envs.triolet.actions import HAND_SIZE

if TYPE_CHECKING:
    from envs.triolet.core import TrioletGame
    from envs.triolet.state import TrioletState

MAX_SEATS = 8
SPEC = ObservationSpec(
    Piece("hand", DECK_SIZE, "the viewer's own hand", log=Log("hand", "cards", private=True)),
    Seats(
        MAX_SEATS,
        Piece("present", 1, "seat present at this table"),
        Piece("current", 1, "is the player to act"),
        Piece("dealer", 1, "is the dealer", log=Log("dealer", "seat_onehot")),
        Piece("ready", 1, "has said ready (swap phase over for this seat, L4)"),
        Piece("hand_count", 1, "number of cards in hand", log=Log("cards in hand", "seat_values")),
        Piece("facedown", HAND_SIZE, "face-down slots #1–#3 occupied (the cards are hidden, the viewer's own too)"),
        Piece("faceup", DECK_SIZE, "face-up cards", log=Log("face-up", "seat_cards")),
        Piece("known", DECK_SIZE, "cards publicly known to be in that hand (picked up from the pile, taken from the "
              "face-up row in a swap, a turned face-down card that could not be played with "
              "``show_failed_facedown``; minus cards since played)", log=Log("known in hand", "seat_cards")),
    ),
    Piece("pile", DECK_SIZE, "the pile", log=Log("pile", "cards")),
    Piece("top", NUM_RANKS, "rank on top of the pile (one-hot over 2 … A; all zero when the pile is empty)"),
    Piece("run", 1, "cards of the top rank lying together on top (four burn, L9)"),
    Piece("pile_count", 1, "cards in the pile"),
    Piece("burned", DECK_SIZE, "burned cards (L8, L9)", log=Log("burned", "cards")),
    Piece("stock", 1, "cards in the stock", log=Log("stock", "values", names=("cards",))),
    Piece("swap_phase", 1, "swap phase (1) or play (0)"),
    Piece("swaps", 1, "exchanges the player to act has made this swap turn (0–3)"),
    Seats(HAND_SIZE, Piece("own_faceup", DECK_SIZE, "one-hot card in the viewer's own face-up slot j = 0..2 (all "
                           "zero: empty); the swap actions name these slots (L4)")),
)
"""The observation, piece by piece."""
__doc__ += SPEC.table()

VIEW = SPEC.public_view("Le triolet", MAX_SEATS, dealer="dealer", order=("hand", "faceup", "hand_count"))
"""Le triolet's public view for game logs and HTML. Face-down cards are hidden from all (L17); their turning shows as
a card played to the pile or known in a hand."""

OWN_HAND = SPEC.offset("hand")
SEATS = SPEC.offset("present")
SEAT_SIZE = SPEC.stride("present")
PRESENT, CURRENT, DEALER, READY, HAND_COUNT, FACEDOWN, FACEUP, KNOWN = (
    SPEC.offset(name) - SEATS for name in ("present", "current", "dealer", "ready", "hand_count", "facedown",
                                           "faceup", "known"))
"""Offsets inside a seat block."""
PILE = SPEC.offset("pile")
TOP = SPEC.offset("top")
RUN = SPEC.offset("run")
PILE_COUNT = SPEC.offset("pile_count")
BURNED = SPEC.offset("burned")
STOCK = SPEC.offset("stock")
SWAP_PHASE = SPEC.offset("swap_phase")
SWAPS = SPEC.offset("swaps")
OWN_FACEUP_SLOTS = SPEC.offset("own_faceup")
SIZE = SPEC.size


def observe(game: TrioletGame, state: TrioletState, seats: np.ndarray, out: np.ndarray) -> None:
    """Write the observation of seat ``seats[b]`` at each table ``b`` into ``out`` ``(B, SIZE) float32`` (C12:
    nothing hidden; ``seats``: ``(B,) int64``, checked by :meth:`envs.core.game.BatchedGame.observe`): one compiled
    loop over the table records."""
    _observe_tables(seats, out, game.kernel_args(state)[0], game.num_players, state.deck.shape[1])


@numba.njit(cache=True)
def _counts_into(row, at, once, twice):
    """``row[at + c]`` = copies of card ``c`` in the two-plane multiset (``once``, ``twice``)."""
    for plane in (np.uint64(once), np.uint64(twice)):
        m = plane
        while m:
            row[at + bits.lowest(m)] += 1.0
            m &= m - np.uint64(1)


@numba.njit(cache=True)
def _observe_tables(seats, out, rec, n, deck_size):
    for t in range(out.shape[0]):
        row = out[t]
        row[:] = 0.0
        r = rec[t]
        me = seats[t]
        _counts_into(row, OWN_HAND, r.hand1[me], r.hand2[me])
        for j in range(n):
            seat = (me + j) % n
            block = SEATS + SEAT_SIZE * j
            row[block + PRESENT] = 1.0
            row[block + CURRENT] = seat == r.current_player
            row[block + DEALER] = seat == r.dealer
            swap_pos = (r.dealer - 1 - seat) % n  # place of the seat in the swap round (L4, L5)
            row[block + READY] = swap_pos < r.ready or r.phase != 0
            row[block + HAND_COUNT] = bits.popcount(r.hand1[seat]) + bits.popcount(r.hand2[seat])
            for k in range(HAND_SIZE):
                row[block + FACEDOWN + k] = r.facedown[seat, k] >= 0
                if r.faceup[seat, k] >= 0:
                    row[block + FACEUP + r.faceup[seat, k]] += 1.0
            _counts_into(row, block + KNOWN, r.known1[seat], r.known2[seat])
        _counts_into(row, PILE, r.pile1, r.pile2)
        if r.top >= 0:
            row[TOP + r.top] = 1.0
        row[RUN] = r.run
        row[PILE_COUNT] = bits.popcount(r.pile1) + bits.popcount(r.pile2)
        _counts_into(row, BURNED, r.burned1, r.burned2)
        row[STOCK] = deck_size - r.stock_pos
        row[SWAP_PHASE] = r.phase == 0
        row[SWAPS] = r.swaps
        for k in range(HAND_SIZE):
            if r.faceup[me, k] >= 0:
                row[OWN_FACEUP_SLOTS + DECK_SIZE * k + r.faceup[me, k]] = 1.0


def swap_cards(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cards each swap action names, read from observations ``(B, SIZE)``: ``(B, 9)`` hand card and ``(B, 9)``
    face-up card identity of action ``SWAP + 3 i + j`` (hand card ``i`` of the hand sorted by card id, face-up slot
    ``j``; -1 where the hand or the slot holds no such card)."""
    b = obs.shape[0]
    counts = obs[:, OWN_HAND : OWN_HAND + DECK_SIZE].astype(np.int64)
    ends = np.cumsum(counts, axis=1)  # the hand sorted by id: position i holds the first card with ends > i
    hand = np.stack([np.where(ends[:, -1] > i, (ends <= i).sum(axis=1), -1) for i in range(HAND_SIZE)], axis=1)
    slots = obs[:, OWN_FACEUP_SLOTS : OWN_FACEUP_SLOTS + HAND_SIZE * DECK_SIZE].reshape(b, HAND_SIZE, DECK_SIZE)
    up = np.where(slots.any(axis=2), slots.argmax(axis=2), -1)
    return np.repeat(hand, HAND_SIZE, axis=1), np.tile(up, (1, HAND_SIZE))
