"""What a Flip Flop player sees (F27, C12): the seat-relative observation vector.

Declared once as :data:`SPEC` (:mod:`envs.core.obs_spec`); the index table below (also in :mod:`envs.flipflop_v1`),
the offsets the code uses and the game log's public view (:data:`VIEW`) are derived from it. Card planes hold 52
values in C1 card id order (2♣ … A♠); per-seat pieces are relative to the viewer (j = 0 the viewer, 1 the player to
the left, …) and padded to 7 seats. Nothing hidden from the viewer enters: other hands only through cards they
showed (F12, showdowns), the flip card and cards they took from the discard pile, which are public.

"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np

from envs.core import bits
from envs.core.obs_spec import Log, ObservationSpec, Piece, Seats
from envs.flipflop import actions as T
from envs.flipflop.state import CLAIM, DRAW, PLAY, FlipFlopState

if TYPE_CHECKING:
    from envs.flipflop.core import FlipFlopGame

MAX_SEATS = 7
SEAT_FIELDS = ("present", "in_deal", "out", "all_in", "dealer", "to_act", "had_turn", "hand_size", "bank",
               "anted_game", "anted_flip", "anted_flop")
"""The per-seat numbers, one piece of 7 each, in this order."""
_SEAT_MEANINGS = ("present at the table", "dealt in this deal", "out of the session", "all in", "dealer", "to act",
                  "has had a first turn (has shown)", "cards in hand", "money in stakes (0 at the start of a single "
                  "deal, ``bankroll`` at the start of a session)", "anted the game pot", "anted the flip pot",
                  "anted the flop pot")
_SEAT_LOGS = {"dealer": Log("dealer", "seat_onehot"), "hand_size": Log("cards in hand", "seat_values", events=False),
              "bank": Log("money", "seat_values", events=False)}
TABLE_FIELDS = ("stock_size", "game_pot", "flip_pot", "flop_pot", "phase_draw", "phase_play", "last_turn", "deal_no",
                "turn_no", "phase_claim")
"""The numbers about the table, in this order (the pots are one piece)."""

SPEC = ObservationSpec(
    Piece("hand", 52, "the viewer's hand", log=Log("hand", "cards", private=True)),
    Piece("flip_card", 52, "the flip card (F5)", log=Log("flip card", "cards")),
    Piece("shown", 52, "every card shown face up this deal (flip card, F12 shows, showdowns)"),
    Piece("pile", 52, "cards in the discard pile", log=Log("discard pile", "cards")),
    Piece("pile_top", 52, "the top card of the discard pile"),
    Piece("pile_order", 52, "discard pile order: (position from the bottom + 1) / 52 for each card in the pile, "
          "else 0"),
    Piece("in_run", 52, "cards in runs on the table"),
    Piece("in_set", 52, "cards in sets on the table"),
    Piece("taken_now", 52, "the card the player to act took from the discard pile this turn (it may not be "
          "discarded)"),
    Seats(MAX_SEATS, Piece("spreads", 52, "cards in the spreads laid by relative seat j (F27: every spread and its "
                           "owner)", log=Log("spreads", "seat_cards"))),
    Seats(MAX_SEATS, Piece("taken_by", 52, "cards relative seat j took from the discard pile this deal",
                           log=Log("took from the pile", "seat_cards"))),
    Seats(MAX_SEATS, Piece("known", 52, "cards publicly known to be in relative seat j's hand now (shown, the "
                           "flip card, taken discards)",
                           log=Log("known in hand", "seat_cards", shown=True, in_hand=True))),
    *(Seats(MAX_SEATS, Piece(name, 1, meaning, log=_SEAT_LOGS.get(name)))
      for name, meaning in zip(SEAT_FIELDS, _SEAT_MEANINGS, strict=True)),
    Piece("stock", 1, "cards in the stock", log=Log("stock", "values", names=("cards",), events=False)),
    Piece("pots", 3, "money in the game, flip and flop pots (stakes, F26)",
          log=Log("pots", "values", names=("game", "flip", "flop"))),
    Piece("phase_draw", 1, "phase is draw"),
    Piece("phase_play", 1, "phase is play"),
    Piece("last_turn", 1, "the stock is exhausted (last turn, F21)"),
    Piece("deal_no", 1, "deals finished in the episode"),
    Piece("turn_no", 1, "turns begun in this deal (the current turn's number; F28 cuts the deal after "
          "``max_turns``)"),
    Piece("phase_claim", 1, "phase is a 49/50 claim (F7)"),
)
"""The observation, piece by piece."""
__doc__ += SPEC.table()

VIEW = SPEC.public_view(
    "Flip Flop", MAX_SEATS, dealer="dealer", deal_index=("deal_no", 0),
    order=("hand", "flip_card", "pots", "bank", "hand_size", "pile", "spreads", "taken_by", "known", "stock"))
"""Flip Flop's public view for game logs and HTML."""

# Card planes (52 values each), by plane number.
HAND, FLIP_CARD, SHOWN, PILE, PILE_TOP, PILE_ORDER, IN_RUN, IN_SET, TAKEN_NOW = (
    SPEC.offset(name) // 52 for name in ("hand", "flip_card", "shown", "pile", "pile_top", "pile_order", "in_run",
                                         "in_set", "taken_now"))
SPREAD_OF = SPEC.offset("spreads") // 52
"""+ relative seat: the plane of the cards in spreads laid by that seat."""
TAKEN_BY = SPEC.offset("taken_by") // 52
"""+ relative seat: the plane of the cards that seat took from the discard pile this deal."""
KNOWN_IN = SPEC.offset("known") // 52
"""+ relative seat: the plane of the cards publicly known to be in that seat's hand now."""
SEATS_OFFSET = SPEC.offset(SEAT_FIELDS[0])
"""Per-seat values: field ``k`` of relative seat ``j`` is at ``SEATS_OFFSET + k * MAX_SEATS + j``."""
TABLE_OFFSET = SPEC.offset("stock")
"""Table values (:data:`TABLE_FIELDS`) from here on."""
OBS_SIZE = SPEC.size


def observe(game: FlipFlopGame, s: FlipFlopState, seats: np.ndarray, out: np.ndarray) -> None:
    """Write the observation of seat ``seats[b]`` at each table ``b`` into ``out`` ``(B, OBS_SIZE) float32``
    (``seats``: ``(B,) int64``, checked by :meth:`envs.core.game.BatchedGame.observe`): one compiled loop over the
    table records."""
    _observe_tables(seats, out, game.kernel_args(s)[0], game.num_players)


_PUB_OF = T.PUB_OF
_AT_DEAL_NO = SPEC.offset("deal_no")
_AT_FLIP_CARD = SPEC.offset("flip_card")
_AT_HAND = SPEC.offset("hand")
_AT_IN_RUN = SPEC.offset("in_run")
_AT_IN_SET = SPEC.offset("in_set")
_AT_KNOWN = SPEC.offset("known")
_AT_LAST_TURN = SPEC.offset("last_turn")
_AT_PHASE_CLAIM = SPEC.offset("phase_claim")
_AT_PHASE_DRAW = SPEC.offset("phase_draw")
_AT_PHASE_PLAY = SPEC.offset("phase_play")
_AT_PILE = SPEC.offset("pile")
_AT_PILE_ORDER = SPEC.offset("pile_order")
_AT_PILE_TOP = SPEC.offset("pile_top")
_AT_POTS = SPEC.offset("pots")
_AT_SHOWN = SPEC.offset("shown")
_AT_SPREADS = SPEC.offset("spreads")
_AT_STOCK = SPEC.offset("stock")
_AT_TAKEN_BY = SPEC.offset("taken_by")
_AT_TAKEN_NOW = SPEC.offset("taken_now")
_AT_TURN_NO = SPEC.offset("turn_no")
_SEAT_AT = np.array([SPEC.offset(name) for name in SEAT_FIELDS], np.int64)


@numba.njit(cache=True)
def _plane_into(row, at, mask):
    """``row[at + c] = 1`` for the public id ``c`` of every ace-low card of ``mask``."""
    m = np.uint64(mask)
    while m:
        row[at + _PUB_OF[bits.lowest(m)]] = 1.0
        m &= m - np.uint64(1)


@numba.njit(cache=True)
def _observe_tables(seats, out, rec, n):
    one = np.uint64(1)
    for t in range(out.shape[0]):
        row = out[t]
        row[:] = 0.0
        r = rec[t]
        me = seats[t]
        flip = one << np.uint64(r.flip_card)
        pile_mask = np.uint64(0)
        for i in range(r.pile_len):
            pile_mask |= one << np.uint64(r.pile[i])
            row[_AT_PILE_ORDER + _PUB_OF[r.pile[i]]] = (i + 1) / 52.0
        known = r.shown | flip
        for seat in range(n):
            known |= r.taken_by[seat]
        _plane_into(row, _AT_HAND, r.hands[me])
        _plane_into(row, _AT_FLIP_CARD, flip)
        _plane_into(row, _AT_SHOWN, r.shown)
        _plane_into(row, _AT_PILE, pile_mask)
        if r.pile_len > 0:
            _plane_into(row, _AT_PILE_TOP, one << np.uint64(r.pile[r.pile_len - 1]))
        _plane_into(row, _AT_IN_RUN, r.runs)
        _plane_into(row, _AT_IN_SET, r.sets)
        _plane_into(row, _AT_TAKEN_NOW, r.taken)
        for j in range(n):
            seat = (me + j) % n
            _plane_into(row, _AT_SPREADS + 52 * j, r.spreads[seat])
            _plane_into(row, _AT_TAKEN_BY + 52 * j, r.taken_by[seat])
            _plane_into(row, _AT_KNOWN + 52 * j, r.hands[seat] & known)
            row[_SEAT_AT[0] + j] = 1.0
            row[_SEAT_AT[1] + j] = r.in_deal[seat]
            row[_SEAT_AT[2] + j] = r.out[seat]
            row[_SEAT_AT[3] + j] = r.all_in[seat]
            row[_SEAT_AT[4] + j] = seat == r.dealer
            row[_SEAT_AT[5] + j] = seat == r.current_player
            row[_SEAT_AT[6] + j] = r.had_turn[seat]
            row[_SEAT_AT[7] + j] = bits.popcount(r.hands[seat])
            row[_SEAT_AT[8] + j] = r.bank[seat]
            for k in range(3):
                row[_SEAT_AT[9 + k] + j] = r.anted[seat, k]
        row[_AT_STOCK] = 52 - r.stock_pos
        for k in range(3):
            row[_AT_POTS + k] = r.pots[k]
        row[_AT_PHASE_DRAW] = r.phase == DRAW
        row[_AT_PHASE_PLAY] = r.phase == PLAY
        row[_AT_LAST_TURN] = r.last_turn
        row[_AT_DEAL_NO] = r.deal_no
        row[_AT_TURN_NO] = r.turn_no
        row[_AT_PHASE_CLAIM] = r.phase == CLAIM
