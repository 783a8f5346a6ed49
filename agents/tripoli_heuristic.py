"""A hand-written Tripoli player, numpy over the batch, reading only the observation and the mask.

Strategy, by decision (the observation layout is the table of :mod:`envs.tripoli_v1`):

- **Hand strength.** The poker value of the best five cards (``envs.core.poker.mask_rank``) is turned into ``p``, the
  chance of beating one opponent holding a random hand of the same size (a table of sampled hands, built once per
  hand size); against ``m`` opponents the *equity* is ``p ** m``.
- **Spare hand** (dealer). With ``p`` below 0.4 it swaps (an unseen random hand is worth ``p = 0.5`` on average);
  otherwise — and after a swap, with its old hand — it auctions the spare (the winner pays the dealer; if nobody
  bids it keeps a good hand, swaps a bad one).
- **Auctions.** For the spare hand it bids the minimum while the price stays below ``5 * (0.42 - p)`` chips (a
  weak hand pays a little to draw a fresh one). For the pay suit (T26) it values the suit where it holds most of
  A, K, Q, J, 10 at one chip per such card beyond the first, and names that suit when it wins.
- **Poker selection.** Its best five cards (``best_five``), one per decision. When even that hand is hopeless
  (equity under 5%, it will check or fold), it selects its five lowest cards instead: should everybody check it
  loses either way, and the showdown then shows only low cards, keeping its high cards and stops hidden for the
  Michigan stage.
- **Betting.** Equity against the players still in. Unopened: bet when the equity is above 1/2 (more the stronger
  the hand), else check. Facing a bet: raise with equity above 0.8, call when the equity beats the pot odds
  ``to_call / (pot + to_call)`` by a margin of 0.15 (whoever bets is likely to hold better than a random hand),
  else fold.
- **Michigan leads.** For each legal lead suit it scores the run it would start: the cards it sheds itself (its block
  of consecutive cards from its lowest card of the suit), a bonus when the block ends in a stop that brings the lead
  back (the ace, or a next card already played or known dead), a malus when the next card is known (shown) to be in
  another player's hand, a bonus for leading low cards (hard to shed otherwise), and in the Rummoli variant (pay
  cards paid in play) the chips on the pay-card, king-queen and sequence spaces its own block would win.
  It leads the best-scoring suit.

Forced decisions (one legal action, e.g. ``continue run`` with ``auto_forced=False``) are played as they are.
"""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass

import numpy as np

from agents.obsutil import planes_to_masks, rank_sets
from envs.core import poker
from envs.core.agent import AgentBase
from envs.core.cards import CARD_BITS, popcount
from envs.tripoli.actions import AUCTION, KEEP, PASS, SWAP, TripoliActions
from envs.tripoli.core import TripoliGame
from envs.tripoli.observation import MAX_SEATS, OFFSETS, SCALARS
from envs.tripoli.state import PAY_RANKS

_SAMPLES = 4096
_OPPONENT_VALUES: dict[int, np.ndarray] = {}


def opponent_values(k: int) -> np.ndarray:
    """Sorted poker values of the best five cards of ``_SAMPLES`` random ``k``-card hands (fixed sample, cached)."""
    if k not in _OPPONENT_VALUES:
        rng = np.random.default_rng(1_000 + k)
        cards = np.argsort(rng.random((_SAMPLES, 52)), axis=1)[:, :k]
        masks = np.bitwise_or.reduce(CARD_BITS[cards], axis=1)
        _OPPONENT_VALUES[k] = np.sort(poker.mask_rank(masks))
    return _OPPONENT_VALUES[k]


def win_chance(values: np.ndarray, hand_sizes: np.ndarray) -> np.ndarray:
    """Chance that each poker value beats one random hand of that many cards (ties count half)."""
    p = np.empty(values.shape)
    for k in np.unique(hand_sizes):
        rows = hand_sizes == k
        table = opponent_values(int(max(k, 5)))
        lo = np.searchsorted(table, values[rows], side="left")
        hi = np.searchsorted(table, values[rows], side="right")
        p[rows] = (lo + hi) / (2 * len(table))
    return p


def hand_value(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(poker value, win chance ``p`` against one random hand) of the selected five if complete, else of the best five
    of the hand; value -1 and ``p = 0`` without five cards."""
    hand = planes_to_masks(obs[:, slice(*OFFSETS["hand"])])
    selected = planes_to_masks(obs[:, slice(*OFFSETS["selected"])])
    poker_cards = np.where(popcount(selected) == 5, selected, hand)
    size = popcount(hand)
    value = np.full(len(obs), -1, np.int64)
    ok = popcount(poker_cards) >= 5
    value[ok] = poker.mask_rank(poker_cards[ok])
    return value, np.where(ok, win_chance(value, np.maximum(size, 5)), 0.0)


def opponents_in(obs: np.ndarray) -> np.ndarray:
    """Opponents present and not folded (at least 1)."""
    present = obs[:, slice(*OFFSETS["seat_present"])][:, 1:]
    folded = obs[:, slice(*OFFSETS["folded"])][:, 1:]
    return np.maximum((present * (1 - folded)).sum(axis=1), 1)


def pot_odds(obs: np.ndarray) -> np.ndarray:
    """The share of the pot after a call that the call costs: ``to_call / (pot + to_call)`` (0 when nothing is owed)."""
    pot = obs[:, OFFSETS["layout"][0] + 8]
    to_call = obs[:, OFFSETS["scalars"][0] + SCALARS.index("to_call")]
    return to_call / np.maximum(pot + to_call, 1)


@dataclass(frozen=True)
class MichiganView:
    """The leader's view of each suit at a Michigan lead: ``(B, 4)`` arrays, one column per suit ♣ ♦ ♥ ♠."""

    hand: np.ndarray
    """13-bit rank set of the cards it holds."""
    block: np.ndarray
    """Its consecutive ranks from its lowest card: the cards its own lead sheds (0 for a suit it lacks)."""
    stop_mine: np.ndarray
    """The block ends in a stop (the ace, or a next card played or known dead): the lead comes back to it."""
    next_others: np.ndarray
    """The card after the block is known (shown) to be in another player's hand."""
    low_rank: np.ndarray
    """Rank index (0 = 2 … 12 = A) of its lowest card."""


def _block(ranks: np.ndarray) -> np.ndarray:
    """The consecutive ranks from the lowest rank of each 13-bit rank set (0 for an empty set)."""
    low = ranks & -ranks
    return ranks & ~(ranks + low)


class TripoliHeuristic(AgentBase):
    """Plays Tripoli by hand strength, pot odds and Michigan run planning (see the module docstring)."""

    name = "heuristic"
    swap_below = 0.4
    """Swap the dealt hand for the spare below this win chance against one opponent."""
    bet_above = 0.5
    """Open the betting above this equity."""
    raise_above = 0.8
    """Raise above this equity."""
    call_margin = 0.15
    """Call when the equity beats the pot odds by this much."""
    hopeless_below = 0.05
    """Select the five lowest cards below this equity."""
    bet_scale = 2.0
    """Bet and raise size: ``bet_scale * bet_limit * (equity - bet_above + 0.05)`` chips, at least 1."""
    spare_price = 5.0
    """Most it bids for the spare hand: ``spare_price * (spare_worth - p)`` chips."""
    spare_worth = 0.42
    """Win chance below which the unseen spare hand is worth buying (a random hand is worth 0.5, less the price)."""
    suit_price_extra = 0
    """Chips added to its pay-suit bid limit (one chip per pay card it holds in its best suit beyond the first)."""
    stop_bonus = 2.0
    """Michigan lead score of a run that ends in its own stop (the lead comes back), in cards."""
    low_bonus = 4.0
    """Michigan lead score of leading a two (scaled down to 0 for an ace)."""
    handover_malus = 1.0
    """Michigan lead score lost when the card after its block is known to be in another player's hand."""

    TUNABLE = ("swap_below", "bet_above", "raise_above", "call_margin", "hopeless_below", "bet_scale", "spare_price",
               "spare_worth", "suit_price_extra")
    """The parameters the zoo's betting styles and the style family change (:mod:`agents.tripoli_bots`,
    :mod:`agents.styles`): players that differ only in these play together (:meth:`act_together`)."""
    DECISIONS = ("_spare", "_auction", "_name_suit", "_select", "_bet", "_lead")
    """Its decision methods, in the order :meth:`act` tries them."""

    def __init__(self, game: TripoliGame) -> None:
        super().__init__(game)
        cfg = game.config
        self.acts = TripoliActions(cfg.max_bid, cfg.bet_limit)
        self.pays_in_play = cfg.pays_in_play

    def together_key(self) -> tuple:
        """Players with equal keys differ at most in :data:`TUNABLE` (the same code, game and other parameters), so
        :meth:`act_together` can play them in one call (:mod:`agents.together`)."""
        cls = type(self)
        code = tuple((name, getattr(cls, name)) for name in dir(cls) if inspect.isfunction(getattr(cls, name)))
        numbers = tuple((name, getattr(cls, name)) for name in dir(cls) if name not in (*self.TUNABLE, "version")
                        and isinstance(getattr(cls, name), int | float))
        return "tripoli-heuristic", id(self.game), code, numbers

    def act_together(self, players: list[TripoliHeuristic], which: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                     rng: np.random.Generator) -> np.ndarray:
        """``players[which[b]]``'s action in each row ``b`` (players of this one's :meth:`together_key`): one pass
        of this player's code with each :data:`TUNABLE` parameter a column of the rows' players' values."""
        tuned = {name: np.asarray([getattr(p, name) for p in players])[which] for name in self.TUNABLE}
        return self._decide(obs, mask, tuned)

    # ----- reading the observation -------------------------------------------------------------------------------
    @staticmethod
    def _plane(obs: np.ndarray, name: str) -> np.ndarray:
        lo, hi = OFFSETS[name]
        return obs[:, lo:hi]

    def _scalar(self, obs: np.ndarray, name: str) -> np.ndarray:
        return obs[:, OFFSETS["scalars"][0] + SCALARS.index(name)]

    # ----- decisions ---------------------------------------------------------------------------------------------
    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self._decide(obs, mask, None)

    def _decide(self, obs: np.ndarray, mask: np.ndarray, tuned: dict[str, np.ndarray] | None) -> np.ndarray:
        """The actions of every row; ``tuned``: per-row values of :data:`TUNABLE` parameters instead of its own."""
        a = self.acts
        mask = np.asarray(mask, dtype=bool)
        actions = np.argmax(mask, axis=1).astype(np.int64)  # forced or unforeseen: the first legal action
        groups = (
            mask[:, KEEP] | mask[:, SWAP] | mask[:, AUCTION],
            mask[:, PASS],
            mask[:, a.name_suit : a.name_suit + 4].any(axis=1),
            mask[:, a.select : a.select + 52].any(axis=1),
            mask[:, a.fold] | mask[:, a.check],
            mask[:, a.lead : a.lead + 4].any(axis=1),
        )
        for rows_mask, decision in zip(groups, self.DECISIONS, strict=True):
            rows = np.flatnonzero(rows_mask & (mask.sum(axis=1) > 1))
            if rows.size:
                player = self
                if tuned is not None:  # a copy of this player whose parameters are these rows' columns
                    player = copy.copy(self)
                    player.__dict__.update({name: values[rows] for name, values in tuned.items()})
                actions[rows] = getattr(player, decision)(obs[rows], mask[rows])
        return actions

    def _spare(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        _, p = hand_value(obs)
        weak = p < self.swap_below
        return np.where(weak & mask[:, SWAP], SWAP, np.where(mask[:, AUCTION], AUCTION, np.where(weak, SWAP, KEEP)))

    def _auction(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        a = self.acts
        phase = self._plane(obs, "phase")
        high = self._scalar(obs, "high_bid").astype(np.int64)
        _, p = hand_value(obs)
        limit = np.floor(self.spare_price * (self.spare_worth - p)).astype(np.int64)
        suit_auction = phase[:, 2] > 0.5
        if suit_auction.any():
            held = rank_sets(planes_to_masks(self._plane(obs, "hand")))
            pay = sum(1 << r for r in PAY_RANKS)
            best = np.bitwise_count(held & pay).max(axis=1).astype(np.int64)
            limit = np.where(suit_auction, best - 1 + self.suit_price_extra, limit)
        want = high + 1
        bid = a.bid + want - 1
        can = (want <= limit) & (bid < a.name_suit)
        can &= mask[np.arange(len(obs)), np.where(can, bid, PASS)]
        return np.where(can, bid, PASS)

    def _name_suit(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        a = self.acts
        held = rank_sets(planes_to_masks(self._plane(obs, "hand")))
        pay = sum(1 << r for r in PAY_RANKS)
        score = np.bitwise_count(held & pay) * 16 + np.bitwise_count(held)
        score = np.where(mask[:, a.name_suit : a.name_suit + 4], score, -1)
        return a.name_suit + np.argmax(score, axis=1)

    def _select(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        a = self.acts
        hand = planes_to_masks(self._plane(obs, "hand"))
        legal = planes_to_masks(mask[:, a.select : a.select + 52].astype(np.float32))
        _, p = hand_value(obs)
        n_opp = opponents_in(obs)
        target = poker.best_five(hand)
        hopeless = p**n_opp < self.hopeless_below
        if hopeless.any():  # the five lowest ranks: cards ordered by rank, not by suit
            by_rank = self._lowest_five(hand[hopeless])
            target[hopeless] = by_rank
        pick = target & legal
        pick = np.where(pick != 0, pick, legal)
        low_bit = pick & (~pick + np.uint64(1))
        return a.select + popcount(low_bit - np.uint64(1))

    @staticmethod
    def _lowest_five(hands: np.ndarray) -> np.ndarray:
        bits = ((hands[:, None] >> np.arange(52, dtype=np.uint64)) & np.uint64(1)).astype(bool)
        order = np.arange(52).reshape(4, 13).T.reshape(-1)  # card ids by rank, then suit
        held = bits[:, order]
        keep = held & (np.cumsum(held, axis=1) <= 5)
        chosen = np.zeros_like(bits)
        chosen[:, order] = keep
        return np.bitwise_or.reduce(np.where(chosen, CARD_BITS[None, :], np.uint64(0)), axis=1)

    def _bet(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        a = self.acts
        _, p = hand_value(obs)
        equity = p ** opponents_in(obs)
        limit = self.game.config.bet_limit
        size = np.clip(np.ceil(limit * (equity - self.bet_above + 0.05) * self.bet_scale), 1, limit).astype(np.int64)
        rows = np.arange(len(obs))
        can_bet = mask[rows, a.bet + size - 1]
        can_raise = mask[rows, a.raise_ + size - 1]
        unopened = mask[:, a.check]
        odds = pot_odds(obs)
        opened = np.where(
            (equity > self.raise_above) & can_raise,
            a.raise_ + size - 1,
            np.where((equity > odds + self.call_margin) & mask[:, a.call], a.call, a.fold),
        )
        opened = np.where(mask[rows, opened], opened, np.where(mask[:, a.call], a.call, a.fold))
        return np.where(unopened, np.where((equity > self.bet_above) & can_bet, a.bet + size - 1, a.check), opened)

    def _lead(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        a = self.acts
        score = np.where(mask[:, a.lead : a.lead + 4], self._lead_score(obs, self._michigan_view(obs)), -np.inf)
        return a.lead + np.argmax(score, axis=1)

    def _michigan_view(self, obs: np.ndarray) -> MichiganView:
        """What the leader knows of each suit (see :class:`MichiganView`)."""
        hand = rank_sets(planes_to_masks(self._plane(obs, "hand")))  # (B, 4)
        played = rank_sets(planes_to_masks(self._plane(obs, "played")))
        dead = rank_sets(planes_to_masks(self._plane(obs, "known_elsewhere")))
        shown = planes_to_masks(self._plane(obs, "shown").reshape(len(obs), MAX_SEATS, 52)[:, 1:])
        others = rank_sets(np.bitwise_or.reduce(shown, axis=1)) & ~played
        block = _block(hand)
        top_bit = np.where(block > 0, (block + (block & -block)) >> 1, 0)  # the highest rank of the block, as a bit
        next_bit = top_bit << 1
        return MichiganView(
            hand=hand,
            block=block,
            stop_mine=(block > 0) & (((next_bit & 0x1FFF) == 0) | ((next_bit & (played | dead)) != 0)),
            next_others=(next_bit & others) != 0,
            low_rank=np.bitwise_count((block & -block) - 1).astype(np.int64),
        )

    def _lead_score(self, obs: np.ndarray, v: MichiganView) -> np.ndarray:
        """``(B, 4)`` how much it wants to lead each suit (illegal suits are masked out afterwards)."""
        score = (
            np.bitwise_count(v.block).astype(np.float64)
            + self.stop_bonus * v.stop_mine
            - self.handover_malus * v.next_others
            + self.low_bonus * (12 - v.low_rank) / 12
        )
        if self.pays_in_play:
            score += self._pay_bonus(obs, v.block)
        return score

    def _pay_bonus(self, obs: np.ndarray, block: np.ndarray) -> np.ndarray:
        """Chips of the pay, king-queen and sequence spaces that playing its own block would win (T25)."""
        layout = obs[:, OFFSETS["layout"][0] : OFFSETS["layout"][1]]
        pay_suit = np.argmax(self._plane(obs, "pay_suit"), axis=1)
        in_pay = np.arange(4)[None, :] == pay_suit[:, None]
        bonus = np.zeros(block.shape)
        for space, r in enumerate(PAY_RANKS):
            bonus += in_pay * ((block >> r) & 1) * layout[:, space : space + 1]
        kq = (3 << 10)
        bonus += in_pay * ((block & kq) == kq) * layout[:, 5:6]
        start = self._scalar(obs, "sequence_start").astype(np.int64)[:, None] - 2  # face value → rank index (T30)
        seq = 7 << start
        bonus += ((block & seq) == seq) * layout[:, 6:7]
        return bonus
