"""The Tripoli observation of one seat (C12: only what that seat has seen).

Declared once as :data:`SPEC` (:mod:`envs.core.obs_spec`); the index table below (also in :mod:`envs.tripoli_v1`),
the offsets the code uses (:data:`OFFSETS`) and the game log's public view (:data:`VIEW`) are derived from it.
Seat-relative: entry ``j`` of a per-seat piece is seat ``(viewer + j) % n`` (``j = 0`` is the viewer, then
clockwise); per-seat pieces are padded to 9 seats with zeros. Card ids are C1's (``suit * 13 + rank``). Pieces are
filled a few at a time (all card masks in one bit expansion, all per-seat numbers in one gather) to keep the number
of numpy calls small.

"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.core import cards as C
from envs.core.obs_spec import Log, ObservationSpec, Piece, Seats
from envs.tripoli.state import NUM_PHASES, NUM_SPACES, P_BET, SPACE_NAMES, TripoliState

if TYPE_CHECKING:
    from envs.tripoli.core import TripoliGame

MAX_SEATS = 9
CARD_BLOCKS = ("hand", "selected", "known_elsewhere", "played", "last_card", "dead_shown")
"""Pieces of 52 card bits about the viewer and the table."""
SEAT_CARD_BLOCKS = ("shown", "played_by")
"""Pieces of 52 card bits per relative seat."""
SEAT_NUMBER_BLOCKS = ("balance", "round_bet", "folded", "cards_in_hand", "seat_present", "auction_passed")
"""Pieces of one number per relative seat."""
SEAT_ONE_HOT_BLOCKS = ("dealer", "current_player", "high_bidder", "poker_winner")
"""Pieces of 9: a one-hot of a seat, relative to the viewer (all zeros for none)."""
SCALARS = ("high_bid", "high_bet", "raises", "to_call", "deal", "num_deals", "swapped", "final_round",
           "final_pot", "final_pots_left", "sequence_start")
"""The single numbers of the ``scalars`` piece, in this order."""


def _seat_number(name: str, meaning: str, log: Log | None = None) -> Seats:
    return Seats(MAX_SEATS, Piece(name, 1, meaning, log=log))


SPEC = ObservationSpec(
    Piece("hand", 52, "my hand", log=Log("hand", "cards", private=True)),
    Piece("selected", 52, "my poker selection so far (T12)", log=Log("poker cards", "cards", private=True)),
    Piece("known_elsewhere", 52, "cards I held this deal that went out of my hand unseen (my old hand after a swap "
          "or an auction, T7), not yet played"),
    Piece("played", 52, "cards played in the Michigan stage (T24)"),
    Piece("last_card", 52, "one-hot of the last card played"),
    Piece("dead_shown", 52, "dead cards discarded face up (T7 ``dead_hand='shown'``)"),
    Seats(MAX_SEATS, Piece("shown", 52, "cards shown at the showdown by relative seat j (T16)",
                           log=Log("shows", "seat_cards", shown=True))),
    Seats(MAX_SEATS, Piece("played_by", 52, "cards played in the Michigan stage by relative seat j",
                           log=Log("plays", "seat_cards"))),
    Piece("layout", NUM_SPACES, "chips on the layout: A, K, Q, J, 10 of the pay suit, K-Q, sequence, kitty, pot (T2)",
          log=Log("layout", "values", names=SPACE_NAMES)),
    _seat_number("balance", "chip balance", Log("chips", "seat_values", events=False)),
    _seat_number("round_bet", "chips bet this poker round", Log("bets this round", "seat_values")),
    _seat_number("folded", "folded", Log("folded", "seat_values")),
    _seat_number("cards_in_hand", "cards in hand", Log("cards in hand", "seat_values", events=False)),
    _seat_number("seat_present", "seat present (1 for the n seats of the table)"),
    _seat_number("auction_passed", "out of the deal's last auction (running or over); cleared each deal"),
    Piece("dealer", MAX_SEATS, "one-hot relative seat of the dealer", log=Log("dealer", "seat_onehot")),
    Piece("current_player", MAX_SEATS, "one-hot relative seat of the player to act (all zero when the episode is "
          "over)"),
    Piece("high_bidder", MAX_SEATS, "one-hot relative seat of the high bidder of the deal's last auction",
          log=Log("high bidder", "seat_onehot")),
    Piece("poker_winner", MAX_SEATS, "one-hot relative seat of this deal's poker winner (T17)",
          log=Log("poker winner", "seat_onehot")),
    Piece("pay_suit", 4, "one-hot pay suit ♣ ♦ ♥ ♠ (T26; drawn each deal in Cosmo, T30)",
          log=Log("pay suit", "onehot", names=("♣", "♦", "♥", "♠"))),
    Piece("run_suit", 4, "one-hot suit of the current or last Michigan run"),
    Piece("phase", NUM_PHASES, "one-hot phase: spare hand, auction, pay-suit auction, name pay suit, poker "
          "selection, betting, Michigan lead, Michigan run, over"),
    Piece("scalars", len(SCALARS), "high bid of the deal's last auction, highest total bet, raises made, chips I "
          "must add to call, deal number (0-based), deals in the episode, the dealer swapped (0/1), final round "
          "(0/1), chips of the final round being played (T28), final pots still to play, sequence start (face "
          "value, T27; drawn each deal in Cosmo, T30)"),
)
"""The observation, piece by piece."""
__doc__ += SPEC.table()

VIEW = SPEC.public_view(
    "Tripoli", MAX_SEATS, dealer="dealer", deal_index=("scalars", SCALARS.index("deal")), secret_actions=("select ",),
    order=("hand", "selected", "pay_suit", "layout", "balance", "cards_in_hand", "round_bet", "folded", "high_bidder",
           "shown", "poker_winner", "played_by"))
"""Tripoli's public view for game logs and HTML (the poker selection is secret, T12)."""

OFFSETS: dict[str, tuple[int, int]] = {name: SPEC.span(name) for name in SPEC.names}
"""(first index, index past the last) of every piece."""
OBSERVATION_SIZE = SPEC.size


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
