"""Tripoli's public fields for game logs and HTML (:mod:`envs.gamelog`): named blocks of the observation."""

from __future__ import annotations

from envs.gamelog import PublicField, PublicView
from envs.tripoli.observation import MAX_SEATS, OFFSETS, SCALARS
from envs.tripoli.state import SPACE_NAMES

_at = {name: lo for name, (lo, _hi) in OFFSETS.items()}

VIEW = PublicView(
    title="Tripoli",
    secret_actions=("select ",),
    max_seats=MAX_SEATS,
    deal_index=_at["scalars"] + SCALARS.index("deal"),
    dealer=PublicField("dealer", "dealer", "seat_onehot", _at["dealer"]),
    fields=(
        PublicField("hand", "hand", "cards", _at["hand"], private=True),
        PublicField("selected", "poker cards", "cards", _at["selected"], private=True),
        PublicField("pay_suit", "pay suit", "onehot", _at["pay_suit"], names=("♣", "♦", "♥", "♠")),
        PublicField("layout", "layout", "values", _at["layout"], names=SPACE_NAMES),
        PublicField("balance", "chips", "seat_values", _at["balance"], events=False),
        PublicField("cards_in_hand", "cards in hand", "seat_values", _at["cards_in_hand"], events=False),
        PublicField("round_bet", "bets this round", "seat_values", _at["round_bet"]),
        PublicField("folded", "folded", "seat_values", _at["folded"]),
        PublicField("high_bidder", "high bidder", "seat_onehot", _at["high_bidder"]),
        PublicField("shown", "shows", "seat_cards", _at["shown"], stride=52, shown=True),
        PublicField("poker_winner", "poker winner", "seat_onehot", _at["poker_winner"]),
        PublicField("played_by", "plays", "seat_cards", _at["played_by"], stride=52),
    ),
)
"""Tripoli's public view (observation blocks of :mod:`envs.tripoli.observation`)."""
