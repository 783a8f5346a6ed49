"""Flip Flop's public fields for game logs and HTML (:mod:`envs.gamelog`): named blocks of the observation."""

from __future__ import annotations

from envs.flipflop import view as V
from envs.gamelog import PublicField, PublicView

_SEATS = V.SEATS_OFFSET
_M = V.MAX_SEATS


def _plane(k: int) -> int:
    return k * 52


def _seat_field(name: str) -> int:
    return _SEATS + V.SEAT_FIELDS.index(name) * _M


VIEW = PublicView(
    title="Flip Flop",
    max_seats=_M,
    deal_index=V.TABLE_OFFSET + V.TABLE_FIELDS.index("deal_no"),
    dealer=PublicField("dealer", "dealer", "seat_onehot", _seat_field("dealer")),
    fields=(
        PublicField("hand", "hand", "cards", _plane(V.HAND), private=True),
        PublicField("flip_card", "flip card", "cards", _plane(V.FLIP_CARD)),
        PublicField("pots", "pots", "values", V.TABLE_OFFSET + 1, names=("game", "flip", "flop")),
        PublicField("bank", "money", "seat_values", _seat_field("bank"), events=False),
        PublicField("hand_size", "cards in hand", "seat_values", _seat_field("hand_size"), events=False),
        PublicField("pile", "discard pile", "cards", _plane(V.PILE)),
        PublicField("spreads", "spreads", "seat_cards", _plane(V.SPREAD_OF), stride=52),
        PublicField("taken_by", "took from the pile", "seat_cards", _plane(V.TAKEN_BY), stride=52),
        PublicField("known", "known in hand", "seat_cards", _plane(V.KNOWN_IN), stride=52, shown=True,
                    in_hand=True),
        PublicField("stock", "stock", "values", V.TABLE_OFFSET, names=("cards",), events=False),
    ),
)
"""Flip Flop's public view (blocks of :mod:`envs.flipflop.view`)."""
