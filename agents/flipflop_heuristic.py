"""A hand-written Flip Flop player, numpy over the batch, reading only the observation and the mask.

Strategy (observation layout: the table of :mod:`envs.flipflop_v1`):

- **Drop** (F17, F19): at the start of its turn it drops when its hand total is low against what is known of the
  others. For each opponent still in the deal it estimates the total as the points of that player's publicly known
  cards plus, for each other card held, the mean points of the cards it has not seen; it drops when its own total
  is below the lowest estimate by a safety margin that grows with the number of unknown cards (about one standard
  deviation of their sum) and with the number of opponents, or when its total is 3 or less.
- **Draw** (F13): it takes the top of the discard pile when that card makes a new spread with its hand (a third card
  of a rank, or a run of three of one suit, aces low), can be laid off on a spread on the table, or is worth 3
  points or less while it holds a loose card worth at least 5 points more (so that each such exchange lowers its
  total: two players cannot pass the same low cards back and forth for ever); otherwise it draws from the stock.
- **Spreads** (F14, F15): it lays every spread it can, the longest (then the most points) first, then lays off every
  card it can, the highest first — each laid card leaves its total and brings it closer to going out (F18).
- **Discard**: the card with the most points that does not fit a spread it is building: a card paired with another
  of its rank, or next to (or one gap from) a card of its suit, is kept unless it is the only choice.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.core.agent import AgentBase
from envs.flipflop import actions as T
from envs.flipflop import observation as V
from envs.flipflop.core import FlipFlopGame

_PUB_VALUE = np.minimum(np.arange(52) % 13 + 2, 10)
_PUB_VALUE[np.arange(52) % 13 == 12] = 1
"""F2: points of each public card id (2…10 face value, J Q K 10, ace 1)."""


def _static_priority() -> np.ndarray:
    """Play-phase priority of the lay and lay-off actions: longer spreads, then more points, then lay-offs."""
    p = np.full(T.NUM_ACTIONS, -np.inf)
    for i, cards in enumerate(T.SPREAD_CARDS):
        bits = [b for b in range(52) if int(cards) >> b & 1]
        p[T.LAY_RUN + i] = 3_000 + 100 * len(bits) + T.VALUE_OF_LOW[bits].sum()
    p[T.LAY_OFF : T.CLAIM] = 2_000 + T.VALUE_OF_LOW[T.LAYOFF_BIT.astype(np.int64)]
    p[T.CLAIM] = 10_000  # F7: the claim is the only legal action when it is asked
    return p


def _plane(obs: np.ndarray, plane: int) -> np.ndarray:
    return obs[:, 52 * plane : 52 * plane + 52] > 0.5


def _seat_field(obs: np.ndarray, name: str) -> np.ndarray:
    lo = V.SEATS_OFFSET + V.SEAT_FIELDS.index(name) * V.MAX_SEATS
    return obs[:, lo : lo + V.MAX_SEATS]


@dataclass(frozen=True)
class OpponentView:
    """What the observation tells of each relative seat's hand total: ``(B, 7)`` arrays (seat 0 is the viewer)."""

    estimate: np.ndarray
    """Points of the seat's publicly known cards plus, for each other card it holds, the mean points of the cards
    the viewer has not seen."""
    unknown: np.ndarray
    """Cards the seat holds that the viewer has not seen."""
    in_deal: np.ndarray
    """The seat is an opponent still in the deal (False for the viewer)."""
    unseen_mean: np.ndarray
    """``(B,)`` the mean points of the cards the viewer has not seen."""


def opponent_view(obs: np.ndarray, hand: np.ndarray) -> OpponentView:
    """The opponents' estimated totals from the observation ``obs`` and the viewer's ``hand`` ``(B, 52)`` bits."""
    seen = hand | _plane(obs, V.SHOWN) | _plane(obs, V.PILE)
    seen |= _plane(obs, V.IN_RUN) | _plane(obs, V.IN_SET)
    known = np.stack([_plane(obs, V.KNOWN_IN + k) for k in range(V.MAX_SEATS)], axis=1)  # (B, 7, 52)
    seen |= known.any(axis=1)
    unseen = ~seen
    mu = (unseen * _PUB_VALUE).sum(axis=1) / np.maximum(unseen.sum(axis=1), 1)
    in_deal = (_seat_field(obs, "in_deal") > 0.5) & (_seat_field(obs, "present") > 0.5)
    in_deal[:, 0] = False
    unknown = np.maximum(_seat_field(obs, "hand_size") - known.sum(axis=2), 0)
    estimate = (known * _PUB_VALUE).sum(axis=2) + unknown * mu[:, None]
    return OpponentView(estimate=estimate, unknown=unknown, in_deal=in_deal, unseen_mean=mu)


def drop_hints(obs: np.ndarray) -> np.ndarray:
    """``(B, 6)`` float32 numbers about the race to the lowest total, computed from the observation alone (a
    learning policy may take them as extra inputs, :mod:`agents.hints`): the viewer's hand total / 50; the lowest
    estimated opponent total (:func:`opponent_view`) / 50; the viewer's lead over that opponent, the estimate minus
    the total over ``unseen mean * sqrt(that opponent's unknown cards)`` (at least 1), clipped to ±5, then / 5 (the
    scale of the heuristic's drop margin); the stock / 52; the fewest cards an opponent in the deal holds / 6; the
    mean points of the unseen cards / 10. With no opponent in the deal the opponent numbers are 0."""
    hand = _plane(obs, V.HAND)
    total = (hand * _PUB_VALUE).sum(axis=1)
    view = opponent_view(obs, hand)
    any_in = view.in_deal.any(axis=1)
    k = np.argmin(np.where(view.in_deal, view.estimate, np.inf), axis=1)
    rows = np.arange(len(obs))
    lowest = np.where(any_in, view.estimate[rows, k], 0.0)
    spread = np.maximum(view.unseen_mean * np.sqrt(view.unknown[rows, k]), 1.0)
    lead = np.where(any_in, np.clip((lowest - total) / spread, -5, 5) / 5, 0.0)
    fewest = np.where(view.in_deal, _seat_field(obs, "hand_size"), np.inf).min(axis=1)
    fewest = np.where(any_in, fewest / 6, 0.0)
    stock = obs[:, V.TABLE_OFFSET + V.TABLE_FIELDS.index("stock_size")] / 52
    return np.stack([total / 50, lowest / 50, lead, stock, fewest, view.unseen_mean / 10], axis=1).astype(np.float32)


def discards_so_far(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(count, mean)``, each ``(B,)``: the number of cards discarded so far this deal (in the pile, or taken from it
    by anyone) and their mean points (0 before the first discard)."""
    discarded = _plane(obs, V.PILE)
    for k in range(V.MAX_SEATS):
        discarded = discarded | _plane(obs, V.TAKEN_BY + k)
    count = discarded.sum(axis=1)
    return count, (discarded * _PUB_VALUE).sum(axis=1) / np.maximum(count, 1)


def table_hints(obs: np.ndarray) -> np.ndarray:
    """``(B, 10)`` float32: :func:`drop_hints` and four numbers about how the table has played this deal, which tell
    tables apart (players who drop late or keep building, against players who discard and take at random): the mean
    points of the cards discarded so far (:func:`discards_so_far`) / 10 (0 before the first discard); the number
    of cards discarded so far / 20; the cards the opponents took from the discard pile / 5; the most points of a
    card an opponent took from it / 10 (0 if none)."""
    by_others = np.zeros((len(obs), 52), dtype=bool)
    for k in range(1, V.MAX_SEATS):
        by_others |= _plane(obs, V.TAKEN_BY + k)
    count, mean = discards_so_far(obs)
    most_taken = (by_others * _PUB_VALUE).max(axis=1)
    table = np.stack([mean / 10, count / 20, by_others.sum(axis=1) / 5, most_taken / 10], axis=1)
    return np.concatenate([drop_hints(obs), table.astype(np.float32)], axis=1)


class FlipFlopHeuristic(AgentBase):
    """Builds and lays spreads, discards high loose cards and drops on a low total (see the module docstring)."""

    name = "heuristic"
    drop_margin = 3.5
    """Safety margin of a drop, in points per square root of an opponent's unknown cards."""
    drop_at = 3
    """Always drop with a total of at most this many points."""
    pair_keep = 12
    """Discard score taken off a card paired with another of its rank in hand (in points)."""
    next_keep = 6
    """Discard score taken off a card next to a card of its suit in hand (aces low)."""
    gap_keep = 3
    """Discard score taken off a card one gap from a card of its suit in hand."""
    take_to_build = False
    """Also take a discard-pile card that starts a spread with its hand (see :meth:`_builds`)."""

    def __init__(self, game: FlipFlopGame) -> None:
        super().__init__(game)
        self.priority = _static_priority()

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        mask = np.asarray(mask, dtype=bool)
        actions = np.argmax(mask, axis=1).astype(np.int64)
        draw = mask[:, T.DRAW_STOCK] | mask[:, T.DROP] | mask[:, T.DRAW_DISCARD : T.DISCARD].any(axis=1)
        rows = np.flatnonzero(draw & (mask.sum(axis=1) > 1))
        if rows.size:
            actions[rows] = self._draw(obs[rows], mask[rows])
        rows = np.flatnonzero(~draw & (mask.sum(axis=1) > 1))
        if rows.size:
            actions[rows] = self._play(obs[rows], mask[rows])
        return actions

    # ----- draw phase ---------------------------------------------------------------------------------------------
    def _draw(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        hand = _plane(obs, V.HAND)
        total = (hand * _PUB_VALUE).sum(axis=1)
        drop = mask[:, T.DROP] & self._should_drop(obs, hand, total)
        top = _plane(obs, V.PILE_TOP)
        has_top = top.any(axis=1)
        t = np.argmax(top, axis=1)
        take = has_top & mask[np.arange(len(obs)), T.DRAW_DISCARD + t]
        loose = np.where(hand, self._discard_score(hand), -np.inf).max(axis=1)
        cheaper = (_PUB_VALUE[t] <= 3) & (loose >= _PUB_VALUE[t] + 5)
        take &= self._makes_spread(hand, t) | self._lays_off(obs, t) | cheaper
        if self.take_to_build:
            take |= has_top & mask[np.arange(len(obs)), T.DRAW_DISCARD + t] & self._builds(hand, t)
        return np.where(drop, T.DROP, np.where(take, T.DRAW_DISCARD + t, T.DRAW_STOCK))

    def _builds(self, hand: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Taking card ``t`` starts a spread (with ``t`` in hand, its discard score counts ``t`` as kept for a
        spread: paired, or next to or one gap from a card of its suit) and it would still discard a card worth more
        points than ``t``."""
        rows = np.arange(len(t))
        with_t = hand.copy()
        with_t[rows, t] = True
        score = self._discard_score(with_t)
        builds = score[rows, t] < _PUB_VALUE[t]  # its score is below its points exactly when it builds with another
        others = with_t.copy()
        others[rows, t] = False
        loose = np.where(others, score, -np.inf).max(axis=1)
        return builds & (loose > _PUB_VALUE[t])

    def _drop_margin(self, obs: np.ndarray) -> np.ndarray:
        """``(B,)`` the drop's safety margin in each row, in points per square root of an opponent's unknown cards
        (:attr:`drop_margin` everywhere; a subclass may read the table)."""
        return np.full(len(obs), self.drop_margin)

    def _should_drop(self, obs: np.ndarray, hand: np.ndarray, total: np.ndarray) -> np.ndarray:
        view = opponent_view(obs, hand)
        margin = self._drop_margin(obs) * (1.0 + 0.1 * view.in_deal.sum(axis=1))
        estimate = view.estimate - margin[:, None] * np.sqrt(view.unknown)
        lowest = np.where(view.in_deal, estimate, np.inf).min(axis=1)
        return (total < lowest) | (total <= self.drop_at)

    @staticmethod
    def _makes_spread(hand: np.ndarray, t: np.ndarray) -> np.ndarray:
        rows = np.arange(len(t))
        rank, suit = t % 13, t // 13
        same_rank = hand[rows[:, None], (np.arange(4) * 13)[None, :] + rank[:, None]].sum(axis=1) >= 2
        low = hand[:, T.PUB_OF].reshape(-1, 4, 13)[rows, suit]  # the suit, aces low
        lr = (rank + 1) % 13
        padded = np.zeros((len(t), 17), bool)
        padded[:, 2:15] = low
        near = [padded[rows, lr + 2 + d] for d in (-2, -1, 1, 2)]
        run = (near[0] & near[1]) | (near[1] & near[2]) | (near[2] & near[3])
        return same_rank | run

    def _lays_off(self, obs: np.ndarray, t: np.ndarray) -> np.ndarray:
        rows = np.arange(len(t))
        in_set = _plane(obs, V.IN_SET)
        set_of_three = in_set[rows[:, None], (np.arange(4) * 13)[None, :] + (t % 13)[:, None]].sum(axis=1) == 3
        runs = _plane(obs, V.IN_RUN)[:, T.PUB_OF]  # ace-low bits
        b = T.LOW_OF[t]
        lr = b % 13
        below = (lr < 12) & runs[rows, np.minimum(b + 1, 51)]
        above = (lr > 0) & runs[rows, np.maximum(b - 1, 0)]
        return set_of_three | below | above

    # ----- play phase ---------------------------------------------------------------------------------------------
    def _play(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        hand = _plane(obs, V.HAND)
        scores = np.where(mask, self.priority[None, :], -np.inf)
        scores[:, T.DISCARD : T.LAY_RUN] = np.where(
            mask[:, T.DISCARD : T.LAY_RUN], 1_000 + self._discard_score(hand), -np.inf
        )
        return np.argmax(scores, axis=1)

    def _discard_score(self, hand: np.ndarray) -> np.ndarray:
        """(B, 52) how much each card is worth discarding: its points, less for cards that build spreads."""
        by_rank = hand.reshape(-1, 4, 13)
        paired = (by_rank.sum(axis=1, keepdims=True) >= 2) & by_rank  # (B, 4, 13) public order
        low = hand[:, T.PUB_OF].reshape(-1, 4, 13)
        padded = np.zeros((len(hand), 4, 17), bool)
        padded[:, :, 2:15] = low
        adj = padded[:, :, 1:14] | padded[:, :, 3:16]
        gap = padded[:, :, 0:13] | padded[:, :, 4:17]
        run_low = (adj * self.next_keep + gap * self.gap_keep).reshape(-1, 52)[:, T.LOW_OF]  # public card order
        return _PUB_VALUE - self.pair_keep * paired.reshape(-1, 52) - run_low
