"""The Tripoli observation of one seat (C12: only what that seat has seen). Index table in :mod:`envs.tripoli_v0`.

Seat-relative: block entry ``j`` of a per-seat block is seat ``(viewer + j) % n`` (``j = 0`` is the viewer, then
clockwise); blocks are padded to 9 seats with zeros.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.core import cards as C
from envs.tripoli.state import NUM_PHASES, NUM_SPACES, P_BET, TripoliState

if TYPE_CHECKING:
    from envs.tripoli.core import TripoliGame

MAX_SEATS = 9
#: (name, length) of each block, in order. ``envs.tripoli_v0`` documents each block.
BLOCKS = (
    ("hand", 52),
    ("selected", 52),
    ("known_elsewhere", 52),
    ("played", 52),
    ("last_card", 52),
    ("shown", 52 * MAX_SEATS),
    ("layout", NUM_SPACES),
    ("balance", MAX_SEATS),
    ("round_bet", MAX_SEATS),
    ("folded", MAX_SEATS),
    ("cards_in_hand", MAX_SEATS),
    ("dealer", MAX_SEATS),
    ("current_player", MAX_SEATS),
    ("seat_present", MAX_SEATS),
    ("auction_passed", MAX_SEATS),
    ("high_bidder", MAX_SEATS),
    ("poker_winner", MAX_SEATS),
    ("pay_suit", 4),
    ("run_suit", 4),
    ("phase", NUM_PHASES),
    ("scalars", 8),
)
OFFSETS = {}
_o = 0
for _name, _len in BLOCKS:
    OFFSETS[_name] = (_o, _o + _len)
    _o += _len
OBSERVATION_SIZE = _o
SCALARS = ("high_bid", "high_bet", "raises", "to_call", "deal", "num_deals", "swapped", "final_round")


def _one_hot_rel(seat: np.ndarray, viewer: np.ndarray, n: int) -> np.ndarray:
    """(B, 9) one-hot of ``seat`` relative to ``viewer`` (all zeros where seat < 0)."""
    out = np.zeros((seat.shape[0], MAX_SEATS), np.float32)
    ok = seat >= 0
    out[np.flatnonzero(ok), ((seat - viewer) % n)[ok]] = 1.0
    return out


def observe(game: TripoliGame, s: TripoliState, viewer: np.ndarray) -> np.ndarray:
    """``(B, OBSERVATION_SIZE) float32`` observation of seat ``viewer[b]`` at each table."""
    n, b = game.num_players, s.batch_size
    rows = np.arange(b)
    rel = (viewer[:, None] + np.arange(n)) % n  # seat of relative position j
    obs = np.zeros((b, OBSERVATION_SIZE), np.float32)

    def put(name: str, values: np.ndarray) -> None:
        lo, hi = OFFSETS[name]
        obs[:, lo : lo + values.shape[1]] = values

    def per_seat(values: np.ndarray) -> np.ndarray:
        return np.take_along_axis(values, rel, axis=1)

    own = s.hands[rows, viewer]
    put("hand", C.mask_to_bits(own))
    put("selected", C.mask_to_bits(s.selected[rows, viewer]))
    put("known_elsewhere", C.mask_to_bits(s.known[rows, viewer] & ~own & ~s.played))
    put("played", C.mask_to_bits(s.played))
    last = np.zeros((b, 52), np.float32)
    has_last = s.last_card >= 0
    last[np.flatnonzero(has_last), s.last_card[has_last]] = 1.0
    put("last_card", last)
    put("shown", C.mask_to_bits(per_seat(s.shown)).reshape(b, -1))
    put("layout", s.layout)
    put("balance", per_seat(s.balance))
    put("round_bet", per_seat(s.round_bet))
    put("folded", per_seat(s.folded))
    put("cards_in_hand", per_seat(C.popcount(s.hands)))
    put("dealer", _one_hot_rel(s.dealer, viewer, n))
    put("current_player", _one_hot_rel(s.current_player, viewer, n))
    put("seat_present", np.ones((b, n), np.float32))
    put("auction_passed", per_seat(s.passed))
    put("high_bidder", _one_hot_rel(s.high_bidder, viewer, n))
    put("poker_winner", _one_hot_rel(s.poker_winner, viewer, n))
    put("pay_suit", np.eye(4, dtype=np.float32)[s.pay_suit])
    put("run_suit", np.where(s.run_suit[:, None] >= 0, np.eye(4, dtype=np.float32)[np.maximum(s.run_suit, 0)], 0))
    put("phase", np.eye(NUM_PHASES, dtype=np.float32)[s.phase])
    to_call = np.where(s.phase == P_BET, s.high_bet - s.round_bet[rows, viewer], 0)
    scalars = np.stack(
        [s.high_bid, s.high_bet, s.raises, to_call, s.deal, np.full(b, game.config.num_deals), s.swapped, s.final],
        axis=1,
    )
    put("scalars", scalars)
    return obs
