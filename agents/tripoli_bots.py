"""The Tripoli bot zoo: playing styles built on :class:`agents.tripoli_heuristic.TripoliHeuristic`.

Each style changes one part of the heuristic's play and keeps the rest (hand strength, poker selection, the
Michigan run planning), so that a league between them measures what that one part is worth:

- ``tight`` and ``aggressive`` change the poker betting and the auctions;
- ``longsuit`` and ``lowlead`` change the choice of the Michigan lead.

All read only the observation and the mask, numpy over the batch, and are deterministic (they never use the rng).
"""

from __future__ import annotations

import numpy as np

from agents.tripoli_heuristic import MichiganView, TripoliHeuristic


class TripoliTight(TripoliHeuristic):
    """Tight-passive poker: bets, calls and bids only with strong hands, small bets; the heuristic's Michigan play.

    - **Spare hand**: swaps only a poor hand (win chance against one random hand below 0.3, the heuristic 0.4) and
      never buys the spare at an auction; for the pay suit it bids one chip less than the heuristic (nothing
      with fewer than three pay cards of a suit).
    - **Betting**: opens only with equity above 0.7 (the heuristic 0.5), raises only above 0.9, calls only when
      its equity beats the pot odds by 0.3 (the heuristic 0.15), bets half the heuristic's size.
    - **Poker selection**: shows its five lowest cards (hiding its stops for the Michigan stage) when its equity
      is below 10% (the heuristic 5%): it plans to fold those hands anyway.
    """

    name = "tight"
    swap_below = 0.3
    bet_above = 0.7
    raise_above = 0.9
    call_margin = 0.3
    hopeless_below = 0.1
    bet_scale = 1.0
    spare_price = 0.0
    suit_price_extra = -1


class TripoliAggressive(TripoliHeuristic):
    """Loose-aggressive poker: bets and raises medium hands, calls wide, bids high; the heuristic's Michigan play.

    - **Spare hand**: swaps below a win chance of 0.45 and bids for the spare up to ``10 * (0.5 - p)`` chips
      (the heuristic ``5 * (0.42 - p)``); for the pay suit it bids one chip more than the heuristic.
    - **Betting**: opens with equity above 0.3 (the heuristic 0.5), raises above 0.6 (the heuristic 0.8),
      calls whenever its equity is within 0.05 of the pot odds (the heuristic wants 0.15 more), and bets twice
      the heuristic's size.
    - **Poker selection**: always its best five (its five lowest only below 2% equity).
    """

    name = "aggressive"
    swap_below = 0.45
    bet_above = 0.3
    raise_above = 0.6
    call_margin = -0.05
    hopeless_below = 0.02
    bet_scale = 4.0
    spare_price = 10.0
    spare_worth = 0.5
    suit_price_extra = 1


class TripoliLongSuit(TripoliHeuristic):
    """Michigan: leads its longest suit; the heuristic's poker and auctions.

    A lead plays the leader's lowest card of the suit and then every consecutive card it holds; the longer its
    holding in a suit, the more cards that suit's runs can shed and the likelier the lead comes back to it in that
    suit. So it leads the suit where it holds the most cards; between equally long suits the one whose run ends in
    its own stop (the lead comes back at once), then the one with the longer block, then the lower first card. In the
    Rummoli variants (pay cards paid in play) the chips its own block would win count as one card per chip.
    """

    name = "longsuit"

    def _lead_score(self, obs: np.ndarray, v: MichiganView) -> np.ndarray:
        score = 100.0 * np.bitwise_count(v.hand) + 20.0 * v.stop_mine + np.bitwise_count(v.block) - v.low_rank / 13
        if self.pays_in_play:
            score += 100.0 * self._pay_bonus(obs, v.block)
        return score


class TripoliLowLead(TripoliHeuristic):
    """Michigan: leads its lowest card; the heuristic's poker and auctions.

    Low cards are the hardest to shed in Michigan: nobody else's run ever reaches a 2 or a 3, so their holder can
    only get rid of them by leading them. It therefore leads the suit of its lowest card (2 first … ace last);
    between suits with equally low cards, the longer block, then a block ending in its own stop. In the Rummoli
    variants the chips its own block would win are worth one rank each.
    """

    name = "lowlead"

    def _lead_score(self, obs: np.ndarray, v: MichiganView) -> np.ndarray:
        score = 1_000.0 * (12 - v.low_rank) + 10.0 * np.bitwise_count(v.block) + v.stop_mine
        if self.pays_in_play:
            score += 1_000.0 * self._pay_bonus(obs, v.block)
        return score
