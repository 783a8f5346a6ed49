"""Tripoli action ids. The table depends only on ``max_bid`` and ``bet_limit`` (sizes of the bid and bet ranges).

=====================  ===========================  ==========================================================
ids                    name                         meaning
=====================  ===========================  ==========================================================
0                      ``keep``                     T6: the dealer keeps the hand as it is
1                      ``swap``                     T6: the dealer swaps hands with the spare, unseen
2                      ``auction``                  T6: the dealer auctions the spare hand (T7)
3                      ``pass``                     T7/T26: pass in an auction (out of it for good)
4 … 3+max_bid          ``bid k``                    T7/T26: bid k chips, k = 1 … max_bid
next 4                 ``name ♣`` … ``name ♠``      T26: the pay-suit auction winner names the pay suit
next 52                ``select 2♣`` … ``select A♠``  T12: put this card into the five-card poker hand
next 1                 ``check``                    T14: no bet yet, bet nothing
next 1                 ``call``                     T14: match the highest total bet of the round
next 1                 ``fold``                     T14: leave the pot for good
next bet_limit         ``bet k``                    T14: open the betting with k chips, k = 1 … bet_limit
next bet_limit         ``raise k``                  T14: call, then add k chips, k = 1 … bet_limit
next 4                 ``lead ♣`` … ``lead ♠``      T20/T22: lead the lowest card held of this suit
next 1                 ``continue run``             T21: play the next card of the run (asked only with
                                                    ``auto_forced=False``; otherwise the engine plays it)
=====================  ===========================  ==========================================================
"""

from __future__ import annotations

from dataclasses import dataclass

from envs.core.cards import SUIT_SYMBOLS, card_str

KEEP, SWAP, AUCTION, PASS = 0, 1, 2, 3


@dataclass(frozen=True)
class TripoliActions:
    """Offsets of each block of the action table for one configuration."""

    max_bid: int
    bet_limit: int

    @property
    def bid(self) -> int:
        """Id of ``bid 1``; ``bid k`` is ``bid + k - 1``."""
        return 4

    @property
    def name_suit(self) -> int:
        """Id of ``name ♣``; ``name`` suit s is ``name_suit + s``."""
        return self.bid + self.max_bid

    @property
    def select(self) -> int:
        """Id of ``select 2♣``; ``select`` card c is ``select + c``."""
        return self.name_suit + 4

    @property
    def check(self) -> int:
        return self.select + 52

    @property
    def call(self) -> int:
        return self.check + 1

    @property
    def fold(self) -> int:
        return self.check + 2

    @property
    def bet(self) -> int:
        """Id of ``bet 1``; ``bet k`` is ``bet + k - 1``."""
        return self.check + 3

    @property
    def raise_(self) -> int:
        """Id of ``raise 1``; ``raise k`` is ``raise_ + k - 1``."""
        return self.bet + self.bet_limit

    @property
    def lead(self) -> int:
        """Id of ``lead ♣``; ``lead`` suit s is ``lead + s``."""
        return self.raise_ + self.bet_limit

    @property
    def continue_run(self) -> int:
        return self.lead + 4

    @property
    def size(self) -> int:
        return self.continue_run + 1

    def name(self, a: int) -> str:
        """Readable name of action ``a``."""
        if not 0 <= a < self.size:
            raise ValueError(f"tripoli: action {a} is outside 0..{self.size - 1}")
        if a < self.bid:
            return ("keep", "swap", "auction", "pass")[a]
        if a < self.name_suit:
            return f"bid {a - self.bid + 1}"
        if a < self.select:
            return f"name {SUIT_SYMBOLS[a - self.name_suit]}"
        if a < self.check:
            return f"select {card_str(a - self.select, unicode=True)}"
        if a < self.bet:
            return ("check", "call", "fold")[a - self.check]
        if a < self.raise_:
            return f"bet {a - self.bet + 1}"
        if a < self.lead:
            return f"raise {a - self.raise_ + 1}"
        if a < self.continue_run:
            return f"lead {SUIT_SYMBOLS[a - self.lead]}"
        return "continue run"
