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

import numba
import numpy as np

from envs.core import bits
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


def observe(game: TripoliGame, s: TripoliState, viewer: np.ndarray, out: np.ndarray) -> None:
    """Write the observation of seat ``viewer[b]`` at each table ``b`` into ``out`` ``(B, OBSERVATION_SIZE)
    float32`` (``viewer``: ``(B,) int64``, checked by :meth:`envs.core.game.BatchedGame.observe`): one compiled
    loop over the table records."""
    _observe_tables(viewer, out, game.kernel_args(s)[0], game.num_players, int(game.config.num_deals))


_AT = {name: SPEC.offset(name) for name in SPEC.names}
_HAND, _SELECTED, _KNOWN, _PLAYED, _LAST, _DEAD = (_AT[n] for n in CARD_BLOCKS)
_SHOWN, _PLAYED_BY = (_AT[n] for n in SEAT_CARD_BLOCKS)
_LAYOUT = _AT["layout"]
_BALANCE, _ROUND_BET, _FOLDED, _IN_HAND, _PRESENT, _PASSED = (_AT[n] for n in SEAT_NUMBER_BLOCKS)
_ONE_HOTS = np.array([_AT[n] for n in SEAT_ONE_HOT_BLOCKS], np.int64)
_PAY, _RUN, _PHASE, _SCALARS = _AT["pay_suit"], _AT["run_suit"], _AT["phase"], _AT["scalars"]


@numba.njit(cache=True)
def _bits_into(row, at, mask):
    """``row[at + c] = 1`` for every card ``c`` of ``mask``."""
    m = np.uint64(mask)
    while m:
        c = bits.lowest(m)
        row[at + c] = 1.0
        m &= m - np.uint64(1)


@numba.njit(cache=True)
def _one_hot_seat(row, at, seat, viewer, n):
    """The relative seat of ``seat`` as a one-hot at ``row[at:at + 9]`` (nothing for -1)."""
    if seat >= 0:
        row[at + (seat - viewer) % n] = 1.0


@numba.njit(cache=True)
def _observe_tables(viewer, out, rec, n, num_deals):
    for t in range(out.shape[0]):
        row = out[t]
        row[:] = 0.0
        r = rec[t]
        me = viewer[t]
        own = r.hands[me]
        _bits_into(row, _HAND, own)
        _bits_into(row, _SELECTED, r.selected[me])
        _bits_into(row, _KNOWN, r.known[me] & ~own & ~r.played)
        _bits_into(row, _PLAYED, r.played)
        if r.last_card >= 0:
            row[_LAST + r.last_card] = 1.0
        _bits_into(row, _DEAD, r.dead_shown)
        for j in range(n):
            seat = (me + j) % n
            _bits_into(row, _SHOWN + 52 * j, r.shown[seat])
            _bits_into(row, _PLAYED_BY + 52 * j, r.played_by[seat])
            row[_BALANCE + j] = r.balance[seat]
            row[_ROUND_BET + j] = r.round_bet[seat]
            row[_FOLDED + j] = r.folded[seat]
            row[_IN_HAND + j] = bits.popcount(r.hands[seat])
            row[_PRESENT + j] = 1.0
            row[_PASSED + j] = r.passed[seat]
        for k in range(r.layout.shape[0]):
            row[_LAYOUT + k] = r.layout[k]
        _one_hot_seat(row, _ONE_HOTS[0], r.dealer, me, n)
        _one_hot_seat(row, _ONE_HOTS[1], r.current_player, me, n)
        _one_hot_seat(row, _ONE_HOTS[2], r.high_bidder, me, n)
        _one_hot_seat(row, _ONE_HOTS[3], r.poker_winner, me, n)
        row[_PAY + r.pay_suit] = 1.0
        if r.run_suit >= 0:
            row[_RUN + r.run_suit] = 1.0
        row[_PHASE + r.phase] = 1.0
        pots_left = 0
        for k in range(r.final_left.shape[0]):
            pots_left += r.final_left[k] > 0
        to_call = r.high_bet - r.round_bet[me] if r.phase == P_BET else 0
        row[_SCALARS + 0] = r.high_bid
        row[_SCALARS + 1] = r.high_bet
        row[_SCALARS + 2] = r.raises
        row[_SCALARS + 3] = to_call
        row[_SCALARS + 4] = r.deal
        row[_SCALARS + 5] = num_deals
        row[_SCALARS + 6] = r.swapped
        row[_SCALARS + 7] = r.final
        row[_SCALARS + 8] = r.final_pot
        row[_SCALARS + 9] = pots_left
        row[_SCALARS + 10] = r.seq_rank + 2
