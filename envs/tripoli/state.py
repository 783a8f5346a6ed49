"""The Tripoli state: numpy arrays with the batch (table) axis first; card sets are 52-bit ``uint64`` masks."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from envs.core.game import BatchState
from envs.tripoli.actions import TripoliActions
from envs.tripoli.config import TripoliConfig

MAX_PLAYERS = 9
"""The largest table (seat fields of the table records are stored for it)."""
_RANGES = {f.name: f.metadata.get("range") for f in fields(TripoliConfig)}
MAX_ACTIONS = TripoliActions(_RANGES["max_bid"][1], _RANGES["bet_limit"][1]).size
"""The largest action table (the largest ``max_bid`` and ``bet_limit``; the legal masks of the table records
are stored for it)."""
RANK_TEN, RANK_JACK, RANK_QUEEN, RANK_KING, RANK_ACE = 8, 9, 10, 11, 12
PAY_RANKS = np.array([RANK_ACE, RANK_KING, RANK_QUEEN, RANK_JACK, RANK_TEN], np.int64)
"""Rank of the pay card of layout spaces 0–4 (A, K, Q, J, 10; T2)."""

# Layout spaces (T2): the five pay cards of the pay suit, king-queen, sequence, kitty, pot.
SPACE_NAMES = ("A", "K", "Q", "J", "10", "K-Q", "8-9-10", "kitty", "pot")
SPACE_KQ, SPACE_SEQUENCE, SPACE_KITTY, SPACE_POT = 5, 6, 7, 8
NUM_SPACES = 9

# Phases: the decision a table waits on.
(
    P_SPARE,  # T6/T8: the dealer decides what to do with the spare hand
    P_AUCTION,  # T7: a bid or pass for the spare hand
    P_SUIT_AUCTION,  # T26: a bid or pass for the pay suit
    P_NAME_SUIT,  # T26: the pay-suit auction's winner names the suit
    P_SELECT,  # T12: a player selects a card of their poker hand
    P_BET,  # T14: a betting decision
    P_LEAD,  # T20/T22: a lead in the Michigan stage
    P_RUN,  # T21: the holder of the next card of a run plays it (a forced move)
    P_DONE,  # the episode is over
) = range(9)
NUM_PHASES = 9
PHASE_NAMES = ("spare hand", "auction", "pay-suit auction", "name pay suit", "poker selection", "betting",
               "Michigan lead", "Michigan run", "over")


@dataclass
class TripoliState(BatchState):
    """A batch of Tripoli tables (B tables, n seats). Public fields are documented one per line."""

    phase: np.ndarray
    """(B,) int64 — the decision the table waits on (``P_*``)."""
    deal: np.ndarray
    """(B,) int64 — number of the current deal (0-based; the final round of T28 is deal ``num_deals``)."""
    final: np.ndarray
    """(B,) bool — a final poker round of T28 is being played."""
    final_pot: np.ndarray
    """(B,) int64 — chips the final poker round being played is for, bets aside (T28; 0 otherwise)."""
    final_left: np.ndarray
    """(B, 9) int64 — the pots still to play after this final round, largest first (T28 ``pots``; zeros)."""
    dealer: np.ndarray
    """(B,) int64 — dealer seat of the current deal."""
    balance: np.ndarray
    """(B, n) int64 — each seat's chip balance (T3, may go negative)."""
    layout: np.ndarray
    """(B, 9) int64 — chips on each layout space (``SPACE_NAMES``)."""
    hands: np.ndarray
    """(B, n) uint64 — cards in each seat's hand."""
    spare: np.ndarray
    """(B,) uint64 — the spare hand (out of play, T9)."""
    dead: np.ndarray
    """(B,) uint64 — dead hands (an auction winner's old hand, T7)."""
    dead_shown: np.ndarray
    """(B,) uint64 — the dead cards discarded face up (T7 ``dead_hand='shown'``; public)."""
    played: np.ndarray
    """(B,) uint64 — cards played in the Michigan stage (public, T24)."""
    known: np.ndarray
    """(B, n) uint64 — cards a seat has held this deal that went out of its hand unseen by others (T7)."""
    pay_suit: np.ndarray
    """(B,) int64 — suit of the pay cards this deal (T26, T30; hearts otherwise)."""
    seq_rank: np.ndarray
    """(B,) int64 — rank id of the lowest card of the sequence space this deal (T27; drawn each deal in T30)."""
    swapped: np.ndarray
    """(B,) bool — the dealer swapped with the spare hand this deal (public)."""
    auctioned: np.ndarray
    """(B,) bool — the spare hand has been auctioned this deal (with or without a bid)."""
    high_bid: np.ndarray
    """(B,) int64 — highest bid of the deal's last auction, running or over (0: no bid; cleared each deal)."""
    high_bidder: np.ndarray
    """(B,) int64 — seat of that highest bid (-1: none; cleared each deal)."""
    passed: np.ndarray
    """(B, n) bool — seats out of the deal's last auction, running or over (the dealer in a spare-hand auction;
    cleared each deal)."""
    selected: np.ndarray
    """(B, n) uint64 — each seat's poker hand, as selected so far (private)."""
    folded: np.ndarray
    """(B, n) bool — seats that folded this poker round."""
    round_bet: np.ndarray
    """(B, n) int64 — chips each seat has bet this poker round."""
    high_bet: np.ndarray
    """(B,) int64 — the highest total bet of the round."""
    raises: np.ndarray
    """(B,) int64 — raises made after the opening bet."""
    acted: np.ndarray
    """(B, n) bool — seats that have acted since the last bet or raise."""
    shown: np.ndarray
    """(B, n) uint64 — poker hands shown at a showdown (public from then on)."""
    poker_winner: np.ndarray
    """(B,) int64 — the poker winner of this deal (T17; -1 before the showdown)."""
    run_suit: np.ndarray
    """(B,) int64 — suit of the current or just-ended run (-1 before the first lead of the deal)."""
    last_card: np.ndarray
    """(B,) int64 — the last card played in the Michigan stage (-1: none)."""
    last_player: np.ndarray
    """(B,) int64 — who played ``last_card``."""
    run_start: np.ndarray
    """(B,) int64 — the lead card of the current run (-1: none yet)."""
    played_by: np.ndarray
    """(B, n) uint64 — cards each seat has played in the Michigan stage (public, T24)."""
    decks: np.ndarray
    """(B, K, 52) int16 — stacked decks of the episode's first K deals, in dealing order (-1 rows: shuffled from
    the seed); deal numbers K and later (final rounds included) are shuffled from the seed."""


def record_fields(n: int, num_actions: int) -> dict[str, tuple]:
    """The fields of one table's record (:mod:`envs.core.records`) for ``n`` seats and ``num_actions`` actions: every
    field of :class:`TripoliState` but the stacked decks and the forced-move report, with its per-table shape. Seat
    fields are stored for the largest table (9 seats) and the legal mask for the largest action table (``MAX_ACTIONS``,
    the largest ``max_bid`` and ``bet_limit``), and seen for ``n`` and ``num_actions``: every table size and every
    bid and bet range share one record type, so the kernels compile once (the stored tail of the mask stays False)."""
    i8, u8, b1 = np.int64, np.uint64, np.bool_
    shapes = {
        "seeds": (u8, ()), "current_player": (i8, ()), "legal_action_mask": (b1, (num_actions,)),
        "rewards": (np.float64, (n,)), "terminated": (b1, ()), "truncated": (b1, ()), "phase": (i8, ()),
        "deal": (i8, ()), "final": (b1, ()), "final_pot": (i8, ()), "final_left": (i8, (NUM_SPACES,)),
        "dealer": (i8, ()), "balance": (i8, (n,)), "layout": (i8, (NUM_SPACES,)), "hands": (u8, (n,)),
        "spare": (u8, ()), "dead": (u8, ()), "dead_shown": (u8, ()), "played": (u8, ()), "known": (u8, (n,)),
        "pay_suit": (i8, ()), "seq_rank": (i8, ()), "swapped": (b1, ()), "auctioned": (b1, ()), "high_bid": (i8, ()),
        "high_bidder": (i8, ()), "passed": (b1, (n,)), "selected": (u8, (n,)), "folded": (b1, (n,)),
        "round_bet": (i8, (n,)), "high_bet": (i8, ()), "raises": (i8, ()), "acted": (b1, (n,)), "shown": (u8, (n,)),
        "poker_winner": (i8, ()), "run_suit": (i8, ()), "last_card": (i8, ()), "last_player": (i8, ()),
        "run_start": (i8, ()), "played_by": (u8, (n,)),
    }
    stored = {name: (dt, (MAX_PLAYERS,), shape) if shape == (n,) else (dt, shape)
              for name, (dt, shape) in shapes.items()}
    stored["legal_action_mask"] = (b1, (MAX_ACTIONS,), (num_actions,))
    return stored
