"""The Le triolet state: numpy arrays with the batch (table) axis first. Each card is stored by its identity
``c % 52`` (suits never matter and the two decks' copies play alike, C3); hands, the pile, the burned cards and the
cards each hand is publicly known to hold are multisets in two 52-bit planes (:mod:`envs.triolet.multiset`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from envs.core.game import BatchState
from envs.triolet import multiset as ms

MAX_PLAYERS, MAX_DECK = 8, 104
"""The largest table and deck (two decks, L1): the table records store seat fields and the deck for them."""
SWAP_PHASE, PLAY_PHASE = 0, 1
"""Values of ``TrioletState.phase``: the swap phase (L4), then play."""


@dataclasses.dataclass
class TrioletState(BatchState):
    """Le triolet tables; ``n`` seats, ``D`` cards in the deck, identities ``c % 52``; multisets as two planes."""

    deck: np.ndarray
    """(B, D) int8 — the dealt deck in dealing order (identities); the stock is ``deck[stock_pos:]``."""
    stock_pos: np.ndarray
    """(B,) int64 — index in ``deck`` of the next card to draw."""
    hand1: np.ndarray
    """(B, n) uint64 — cards in each hand (at least one copy)."""
    hand2: np.ndarray
    """(B, n) uint64 — cards held twice."""
    known1: np.ndarray
    """(B, n) uint64 — cards publicly known to be in each hand (L17), at least once."""
    known2: np.ndarray
    """(B, n) uint64 — … known twice."""
    faceup: np.ndarray
    """(B, n, 3) int8 — face-up card of each slot, -1 when empty."""
    facedown: np.ndarray
    """(B, n, 3) int8 — face-down card of each slot (hidden from everyone, L17), -1 when empty."""
    pile1: np.ndarray
    """(B,) uint64 — cards in the pile (at least once)."""
    pile2: np.ndarray
    """(B,) uint64 — … twice."""
    burned1: np.ndarray
    """(B,) uint64 — cards burned (out of the game, L8, L9), at least once."""
    burned2: np.ndarray
    """(B,) uint64 — … twice."""
    top: np.ndarray
    """(B,) int64 — rank on top of the pile, -1 when the pile is empty."""
    run: np.ndarray
    """(B,) int64 — cards of the top rank lying consecutively on top of the pile."""
    phase: np.ndarray
    """(B,) int64 — 0 swap phase (L4), 1 play."""
    swaps: np.ndarray
    """(B,) int64 — exchanges the current player made in the swap phase."""
    ready: np.ndarray
    """(B,) int64 — players who said ready (the swap phase goes round from the first player to the right)."""
    dealer: np.ndarray
    """(B,) int64 — the dealer seat (C5); the first player is ``dealer - 1`` (L5)."""
    turns: np.ndarray
    """(B,) int64 — turns played (see ``TrioletConfig.max_turns``)."""
    winner: np.ndarray
    """(B,) int64 — the seat that went out first (L15), -1 until then."""
    last_seat: np.ndarray
    """(B,) int64 — seat of the last move, -1 before any (for renders)."""
    last_action: np.ndarray
    """(B,) int64 — the last move's action id, -1 before any."""
    last_card: np.ndarray
    """(B,) int64 — the face-down card turned by the last face-down move (L13: seen by all), -1 before any."""
    last_burn: np.ndarray
    """(B,) bool — the last move burned the pile."""
    last_missed: np.ndarray
    """(B,) bool — the last move turned a face-down card that could not be played (L13: it went into the hand)."""

    # ----- copy counts per card (observations, renders, tests) --------------------------------------------------
    @property
    def hand(self) -> np.ndarray:
        """(B, n, 52) int8 copies of each card in each hand."""
        return ms.counts(self.hand1, self.hand2)

    @property
    def known(self) -> np.ndarray:
        """(B, n, 52) int8 copies of each card publicly known to be in each hand."""
        return ms.counts(self.known1, self.known2)

    @property
    def pile(self) -> np.ndarray:
        """(B, 52) int8 copies of each card in the pile."""
        return ms.counts(self.pile1, self.pile2)

    @property
    def burned(self) -> np.ndarray:
        """(B, 52) int8 copies of each card burned."""
        return ms.counts(self.burned1, self.burned2)


def record_fields(n: int, deck_size: int, num_actions: int) -> dict[str, tuple]:
    """The fields of one table's record (:mod:`envs.core.records`) for ``n`` seats, a deck of ``deck_size`` cards and
    ``num_actions`` actions: every field of :class:`TrioletState` but the forced-move report. Seat fields and the
    deck are stored for the largest table (8 seats, two decks) and seen at their size: every table size shares one
    record type, so the kernels compile once."""
    i8, u8, b1 = np.int64, np.uint64, np.bool_
    seats = (MAX_PLAYERS,)
    return {
        "seeds": (u8, ()), "current_player": (i8, ()), "legal_action_mask": (b1, (num_actions,)),
        "rewards": (np.float64, seats, (n,)), "terminated": (b1, ()), "truncated": (b1, ()),
        "deck": (np.int8, (MAX_DECK,), (deck_size,)), "stock_pos": (i8, ()), "hand1": (u8, seats, (n,)),
        "hand2": (u8, seats, (n,)), "known1": (u8, seats, (n,)), "known2": (u8, seats, (n,)),
        "faceup": (np.int8, (MAX_PLAYERS, 3), (n, 3)), "facedown": (np.int8, (MAX_PLAYERS, 3), (n, 3)),
        "pile1": (u8, ()), "pile2": (u8, ()), "burned1": (u8, ()), "burned2": (u8, ()), "top": (i8, ()),
        "run": (i8, ()), "phase": (i8, ()), "swaps": (i8, ()), "ready": (i8, ()), "dealer": (i8, ()),
        "turns": (i8, ()), "winner": (i8, ()), "last_seat": (i8, ()), "last_action": (i8, ()),
        "last_card": (i8, ()), "last_burn": (b1, ()), "last_missed": (b1, ()),
    }
