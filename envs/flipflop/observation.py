"""What a Flip Flop player sees (F27, C12): the seat-relative observation vector.

Declared once as :data:`SPEC` (:mod:`envs.core.obs_spec`); the index table below (also in :mod:`envs.flipflop_v1`),
the offsets the code uses and the game log's public view (:data:`VIEW`) are derived from it. Card planes hold 52
values in C1 card id order (2♣ … A♠); per-seat pieces are relative to the viewer (j = 0 the viewer, 1 the player to
the left, …) and padded to 7 seats. Nothing hidden from the viewer enters: other hands only through cards they
showed (F12, showdowns), the flip card and cards they took from the discard pile, which are public.

"""

from __future__ import annotations

import numpy as np

from envs.core.cards import popcount
from envs.core.obs_spec import Log, ObservationSpec, Piece, Seats
from envs.flipflop import tables as T
from envs.flipflop.state import CLAIM, DRAW, PLAY, FlipFlopState

MAX_SEATS = 7
SHIFTS = T.LOW_OF.astype(np.uint64)
U1 = np.uint64(1)
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
NUM_PLANES = KNOWN_IN + MAX_SEATS
CARDS_SIZE = NUM_PLANES * 52
SEATS_OFFSET = SPEC.offset(SEAT_FIELDS[0])
"""Per-seat values: field ``k`` of relative seat ``j`` is at ``SEATS_OFFSET + k * MAX_SEATS + j``."""
TABLE_OFFSET = SPEC.offset("stock")
"""Table values (:data:`TABLE_FIELDS`) from here on."""
OBS_SIZE = SPEC.size


def _bits(masks: np.ndarray) -> np.ndarray:
    """Ace-low masks of any shape → ``shape + (52,)`` float32 planes in C1 card id order."""
    return ((masks[..., None] >> SHIFTS) & U1).astype(np.float32)


def observe(s: FlipFlopState, seats: np.ndarray) -> np.ndarray:
    """``(B, OBS_SIZE)`` float32 observations of seat ``seats[b]`` at each table (``seats``: ``(B,) int64``, checked
    by :meth:`envs.core.game.BatchedGame.observe`)."""
    B, n = s.hands.shape
    rows = np.arange(B)
    obs = np.zeros((B, OBS_SIZE), dtype=np.float32)
    cards = obs[:, :CARDS_SIZE].reshape(B, NUM_PLANES, 52)
    order = (seats[:, None] + np.arange(n)) % n  # absolute seat of each relative seat
    top = np.where(s.pile_len > 0, T.LOW_BITS[s.pile[rows, np.maximum(s.pile_len - 1, 0)]], 0)
    i = np.arange(52)
    in_pile = i < s.pile_len[:, None]
    pile_mask = np.where(in_pile, T.LOW_BITS[s.pile], np.uint64(0)).sum(axis=1, dtype=np.uint64)
    known = s.shown | T.LOW_BITS[s.flip_card] | np.bitwise_or.reduce(s.taken_by, axis=1)
    hands_rel = np.take_along_axis(s.hands, order, axis=1)
    singles = np.stack([s.hands[rows, seats], T.LOW_BITS[s.flip_card], s.shown, pile_mask, top], axis=1)
    cards[:, HAND : PILE_TOP + 1] = _bits(singles)
    order_plane = np.zeros((B, 53), dtype=np.float32)
    np.put_along_axis(order_plane, np.where(in_pile, T.PUB_OF[s.pile], 52), (i + 1) / 52.0, axis=1)
    cards[:, PILE_ORDER] = order_plane[:, :52]
    cards[:, IN_RUN : TAKEN_NOW + 1] = _bits(np.stack([s.runs, s.sets, s.taken], axis=1))
    cards[:, SPREAD_OF : SPREAD_OF + n] = _bits(np.take_along_axis(s.spreads, order, axis=1))
    cards[:, TAKEN_BY : TAKEN_BY + n] = _bits(np.take_along_axis(s.taken_by, order, axis=1))
    cards[:, KNOWN_IN : KNOWN_IN + n] = _bits(hands_rel & known[:, None])
    seat_vals = np.stack(
        [
            np.ones((B, n), dtype=bool),
            s.in_deal,
            s.out,
            s.all_in,
            np.arange(n) == s.dealer[:, None],
            np.arange(n) == s.current_player[:, None],
            s.had_turn,
            popcount(s.hands),
            s.bank,
            *np.moveaxis(s.anted, 2, 0),
        ],
        axis=1,
    ).astype(np.float32)
    seat_block = obs[:, SEATS_OFFSET:TABLE_OFFSET].reshape(B, len(SEAT_FIELDS), MAX_SEATS)
    seat_block[:, :, :n] = np.take_along_axis(seat_vals, order[:, None, :], axis=2)
    obs[:, TABLE_OFFSET:] = np.stack(
        [52 - s.stock_pos, *s.pots.T, s.phase == DRAW, s.phase == PLAY, s.last_turn, s.deal_no, s.turn_no,
         s.phase == CLAIM],
        axis=1,
    )
    return obs
