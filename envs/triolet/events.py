"""Le triolet's public fields for game logs and HTML (:mod:`envs.gamelog`): named blocks of the observation."""

from __future__ import annotations

from envs.gamelog import PublicField, PublicView
from envs.triolet import observation as O

_seat = O.SEATS

VIEW = PublicView(
    title="Le triolet",
    max_seats=O.MAX_SEATS,
    dealer=PublicField("dealer", "dealer", "seat_onehot", _seat + O.DEALER, stride=O.SEAT_SIZE),
    fields=(
        PublicField("hand", "hand", "cards", O.OWN_HAND, private=True),
        PublicField("faceup", "face-up", "seat_cards", _seat + O.FACEUP, stride=O.SEAT_SIZE),
        PublicField("hand_count", "cards in hand", "seat_values", _seat + O.HAND_COUNT, stride=O.SEAT_SIZE),
        PublicField("known", "known in hand", "seat_cards", _seat + O.KNOWN, stride=O.SEAT_SIZE),
        PublicField("pile", "pile", "cards", O.PILE),
        PublicField("burned", "burned", "cards", O.BURNED),
        PublicField("stock", "stock", "values", O.STOCK, names=("cards",)),
    ),
)
"""Le triolet's public view (blocks of :mod:`envs.triolet.observation`). Face-down cards are hidden from all (L17);
their turning shows as a card played to the pile or known in a hand."""
