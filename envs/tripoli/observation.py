"""The Tripoli observation of one seat (C12: only what that seat has seen). Index table in :mod:`envs.tripoli_v1`.

Seat-relative: entry ``j`` of a per-seat block is seat ``(viewer + j) % n`` (``j = 0`` is the viewer, then
clockwise); per-seat blocks are padded to 9 seats with zeros. Blocks are built a few at a time (all card masks in one
bit expansion, all per-seat numbers in one gather) to keep the number of numpy calls small.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.core import cards as C
from envs.tripoli.state import NUM_PHASES, NUM_SPACES, P_BET, TripoliState

if TYPE_CHECKING:
    from envs.tripoli.core import TripoliGame

MAX_SEATS = 9
CARD_BLOCKS = ("hand", "selected", "known_elsewhere", "played", "last_card", "dead_shown")
"""Blocks of 52 card bits about the viewer and the table."""
SEAT_CARD_BLOCKS = ("shown", "played_by")
"""Blocks of 9 × 52 card bits, one row of 52 per relative seat."""
SEAT_NUMBER_BLOCKS = ("balance", "round_bet", "folded", "cards_in_hand", "seat_present", "auction_passed")
"""Blocks of 9 numbers, one per relative seat."""
SEAT_ONE_HOT_BLOCKS = ("dealer", "current_player", "high_bidder", "poker_winner")
"""Blocks of 9: a one-hot of a seat, relative to the viewer (all zeros for none)."""
SCALARS = ("high_bid", "high_bet", "raises", "to_call", "deal", "num_deals", "swapped", "final_round",
           "final_pot", "final_pots_left", "sequence_start")
"""Single numbers, in this order."""

BLOCKS = (
    tuple((name, 52) for name in CARD_BLOCKS)
    + tuple((name, 52 * MAX_SEATS) for name in SEAT_CARD_BLOCKS)
    + (("layout", NUM_SPACES),)
    + tuple((name, MAX_SEATS) for name in SEAT_NUMBER_BLOCKS + SEAT_ONE_HOT_BLOCKS)
    + (("pay_suit", 4), ("run_suit", 4), ("phase", NUM_PHASES), ("scalars", len(SCALARS)))
)
"""(name, length) of every block, in order."""
OFFSETS: dict[str, tuple[int, int]] = {}
_o = 0
for _name, _len in BLOCKS:
    OFFSETS[_name] = (_o, _o + _len)
    _o += _len
OBSERVATION_SIZE = _o


def observe(game: TripoliGame, s: TripoliState, viewer: np.ndarray) -> np.ndarray:
    """``(B, OBSERVATION_SIZE) float32`` observation of seat ``viewer[b]`` at each table (``viewer``: ``(B,)
    int64``, checked by :meth:`envs.core.game.BatchedGame.observe`)."""
    n, b = game.num_players, s.batch_size
    rows = np.arange(b)
    rel = (viewer[:, None] + np.arange(n)) % n  # seat at relative position j
    obs = np.zeros((b, OBSERVATION_SIZE), np.float32)

    own = s.hands[rows, viewer]
    last_bit = np.where(s.last_card >= 0, C.ONE << np.maximum(s.last_card, 0).astype(np.uint64), C.ZERO)
    card_masks = np.stack(
        [own, s.selected[rows, viewer], s.known[rows, viewer] & ~own & ~s.played, s.played, last_bit, s.dead_shown],
        axis=1,
    )
    lo = OFFSETS[CARD_BLOCKS[0]][0]
    obs[:, lo : lo + 52 * len(CARD_BLOCKS)] = C.mask_to_bits(card_masks).reshape(b, -1)

    seat_masks = np.stack([s.shown[rows[:, None], rel], s.played_by[rows[:, None], rel]], axis=1)
    bits = np.zeros((b, len(SEAT_CARD_BLOCKS), MAX_SEATS, 52), np.uint8)
    bits[:, :, :n] = C.mask_to_bits(seat_masks)
    lo = OFFSETS[SEAT_CARD_BLOCKS[0]][0]
    obs[:, lo : lo + bits[0].size] = bits.reshape(b, -1)

    lo, hi = OFFSETS["layout"]
    obs[:, lo:hi] = s.layout
    lo = OFFSETS[SEAT_NUMBER_BLOCKS[0]][0]
    per_seat = obs[:, lo : lo + MAX_SEATS * len(SEAT_NUMBER_BLOCKS)].reshape(b, -1, MAX_SEATS)  # a view into obs
    gather = (rows[:, None], rel)
    per_seat[:, 0, :n] = s.balance[gather]
    per_seat[:, 1, :n] = s.round_bet[gather]
    per_seat[:, 2, :n] = s.folded[gather]
    per_seat[:, 3, :n] = C.popcount(s.hands[gather])
    per_seat[:, 4, :n] = 1.0
    per_seat[:, 5, :n] = s.passed[gather]

    seats = np.stack([s.dealer, s.current_player, s.high_bidder, s.poker_winner], axis=1)
    lo = OFFSETS[SEAT_ONE_HOT_BLOCKS[0]][0]
    col = lo + np.arange(len(SEAT_ONE_HOT_BLOCKS)) * MAX_SEATS + (seats - viewer[:, None]) % n
    r, k = np.nonzero(seats >= 0)
    obs[r, col[r, k]] = 1.0

    obs[rows, OFFSETS["pay_suit"][0] + s.pay_suit] = 1.0
    has_run = s.run_suit >= 0
    obs[rows[has_run], OFFSETS["run_suit"][0] + s.run_suit[has_run]] = 1.0
    obs[rows, OFFSETS["phase"][0] + s.phase] = 1.0
    to_call = np.where(s.phase == P_BET, s.high_bet - s.round_bet[rows, viewer], 0)
    lo, hi = OFFSETS["scalars"]
    obs[:, lo:hi] = np.stack(
        [s.high_bid, s.high_bet, s.raises, to_call, s.deal, np.full(b, game.config.num_deals), s.swapped, s.final,
         s.final_pot, (s.final_left > 0).sum(axis=1), s.seq_rank + 2],
        axis=1,
    )
    return obs
