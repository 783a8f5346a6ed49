"""The state of a batch of Flip Flop tables (numpy arrays, batch axis first; card sets are ace-low uint64 masks,
see :mod:`envs.flipflop.actions`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from envs.core.game import BatchState

DRAW, PLAY, CLAIM = 0, 1, 2
"""Phases of a turn: before the draw (drop or draw), after it (lay, lay off, discard)."""
FLIP, FLOP = 0, 1
GAME_POT, FLIP_POT, FLOP_POT = 0, 1, 2

# How the last deal ended (F22), or that it was cut off (F28), for renders and tests.
NOT_ENDED, INSTANT, WENT_OUT, TUNKED, DROP_WON, CAUGHT, STOCK_OUT, CUT_OFF = range(8)
END_NAMES = ("", "49/50 on the deal (F7)", "went out (F18)", "tunked out (F20)", "dropped and won (F19)",
             "dropped and was caught (F19)", "stock exhausted (F21)", "cut off after max_turns turns (F28)")


@dataclasses.dataclass
class FlipFlopState(BatchState):
    """Flip Flop tables. ``B`` tables, ``n`` seats."""

    hands: np.ndarray
    """(B, n) uint64 — each seat's hand."""
    deck: np.ndarray
    """(B, 52) int8 — this deal's deck as ace-low bits in dealing order; the stock is ``deck[stock_pos:]``."""
    stock_pos: np.ndarray
    """(B,) int64 — index in ``deck`` of the top card of the stock."""
    pile: np.ndarray
    """(B, 52) int8 — the discard pile, bottom to top (ace-low bits); ``pile_len`` cards are real."""
    pile_len: np.ndarray
    """(B,) int64."""
    runs: np.ndarray
    """(B,) uint64 — every card in a run on the table."""
    sets: np.ndarray
    """(B,) uint64 — every card in a set on the table."""
    set_open: np.ndarray
    """(B,) uint64 — the missing fourth card of every set of three on the table."""
    spreads: np.ndarray
    """(B, n) uint64 — the cards of the spreads each seat laid (cards laid off on them included)."""
    taken_by: np.ndarray
    """(B, n) uint64 — cards each seat took from the discard pile this deal (public, F27)."""
    shown: np.ndarray
    """(B,) uint64 — cards shown face up (the flip card, F12 shows, showdowns)."""
    flip_card: np.ndarray
    """(B,) int64 — ace-low bit of the flip card."""
    low_shown: np.ndarray
    """(B, 2) int64 — lowest ace-low rank shown so far in the flip suit and the flop suit (13: none)."""
    had_turn: np.ndarray
    """(B, n) bool — the seat has begun its first turn of the deal (and shown, F12)."""
    side_winner: np.ndarray
    """(B, 2) int64 — seat winning the flip and the flop pot on the dealt cards (F9–F11, F24), -1 for none."""
    sides_paid: np.ndarray
    """(B,) bool — the flip and flop pots of this deal have been settled (showing complete, F12)."""
    phase: np.ndarray
    """(B,) int64 — DRAW, PLAY or CLAIM (a 49/50 claimant's claim is asked, F7)."""
    turn_no: np.ndarray
    """(B,) int64 — turns begun this deal, the current one included (F13 turns; F28 cuts the deal after
    ``max_turns``); 0 before the first turn."""
    taken: np.ndarray
    """(B,) uint64 — the card taken from the discard pile this turn (may not be discarded, F13)."""
    last_turn: np.ndarray
    """(B,) bool — the current player drew the last card of the stock (F21)."""
    spreads3: np.ndarray
    """(B, n) int64 — spreads of exactly three cards the seat laid this deal (F20)."""
    other_laid: np.ndarray
    """(B, n) bool — the seat laid a longer spread or laid off this deal (no tunk, F20)."""
    bank: np.ndarray
    """(B, n) float64 — each seat's money in stakes (0 at the start of a single deal, ``bankroll`` in a session)."""
    pots: np.ndarray
    """(B, 3) float64 — game, flip and flop pots."""
    anted: np.ndarray
    """(B, n, 3) bool — the seat anted each pot this deal (F24)."""
    in_deal: np.ndarray
    """(B, n) bool — the seat was dealt in this deal."""
    out: np.ndarray
    """(B, n) bool — the seat is out of the session (F25)."""
    all_in: np.ndarray
    """(B, n) bool — the seat anted the game pot only and is out unless it wins it (F25)."""
    won_game: np.ndarray
    """(B, n) bool — the seat took (a share of) the game pot this deal."""
    dealer: np.ndarray
    """(B,) int64."""
    deal_no: np.ndarray
    """(B,) int64 — deals started before this one."""
    last_action: np.ndarray
    """(B, n) int64 — each seat's last action id this deal (-1: none yet)."""
    decks: np.ndarray
    """(B, K, 52) int16 — stacked decks (C1 ids, dealing order) of the episode's first K deals (-1: from the seed)."""
    end_reason: np.ndarray
    """(B,) int64 — how the last finished deal ended, or CUT_OFF for a deal cut by ``max_turns`` (see END_NAMES)."""


MAX_PLAYERS = 7
"""The largest table (seat fields of the table records are stored for it)."""


def record_fields(n: int, num_actions: int) -> dict[str, tuple]:
    """The fields of one table's record (:mod:`envs.core.records`) for ``n`` seats and ``num_actions`` actions: every
    field of :class:`FlipFlopState` but the stacked decks and the forced-move report, with its per-table shape. Seat
    fields are stored for the largest table (7 seats) and seen for ``n``: every table size shares one record type, so
    the kernels compile once."""
    i8, u8, b1, f8, card = np.int64, np.uint64, np.bool_, np.float64, np.int8  # card ids 0..51 in one byte
    fields = {
        "seeds": (u8, ()), "current_player": (i8, ()), "legal_action_mask": (b1, (num_actions,)), "rewards": (f8, (n,)),
        "terminated": (b1, ()), "truncated": (b1, ()), "hands": (u8, (n,)), "deck": (card, (52,)),
        "stock_pos": (i8, ()), "pile": (card, (52,)), "pile_len": (i8, ()), "runs": (u8, ()), "sets": (u8, ()),
        "set_open": (u8, ()),
        "spreads": (u8, (n,)), "taken_by": (u8, (n,)), "shown": (u8, ()), "flip_card": (i8, ()),
        "low_shown": (i8, (2,)), "had_turn": (b1, (n,)), "side_winner": (i8, (2,)), "sides_paid": (b1, ()),
        "phase": (i8, ()), "taken": (u8, ()), "last_turn": (b1, ()), "turn_no": (i8, ()), "spreads3": (i8, (n,)),
        "other_laid": (b1, (n,)), "bank": (f8, (n,)), "pots": (f8, (3,)), "anted": (b1, (n, 3)), "in_deal": (b1, (n,)),
        "out": (b1, (n,)), "all_in": (b1, (n,)), "won_game": (b1, (n,)), "dealer": (i8, ()), "deal_no": (i8, ()),
        "last_action": (i8, (n,)), "end_reason": (i8, ()),
    }
    seat_fields = ("rewards", "hands", "spreads", "taken_by", "had_turn", "spreads3", "other_laid", "bank", "anted",
                   "in_deal", "out", "all_in", "won_game", "last_action")
    return {name: (spec[0], (MAX_PLAYERS, *spec[1][1:]), spec[1]) if name in seat_fields else spec
            for name, spec in fields.items()}
