"""A hand-written Flip Flop player, reading only the observation and the mask; its decision is compiled, one row at a
time (:mod:`envs.flipflop.policy`), and the observation hints a learning policy may take are numpy over the batch.

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
from envs.flipflop import observation as V
from envs.flipflop.core import FlipFlopGame
from envs.flipflop.policy import PUB_VALUE, FlipFlopPolicy, decide_rows, drop_rows, rollout_tables
from envs.flipflop.state import FlipFlopState


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
    mu = (unseen * PUB_VALUE).sum(axis=1) / np.maximum(unseen.sum(axis=1), 1)
    in_deal = (_seat_field(obs, "in_deal") > 0.5) & (_seat_field(obs, "present") > 0.5)
    in_deal[:, 0] = False
    unknown = np.maximum(_seat_field(obs, "hand_size") - known.sum(axis=2), 0)
    estimate = (known * PUB_VALUE).sum(axis=2) + unknown * mu[:, None]
    return OpponentView(estimate=estimate, unknown=unknown, in_deal=in_deal, unseen_mean=mu)


def drop_hints(obs: np.ndarray) -> np.ndarray:
    """``(B, 6)`` float32 numbers about the race to the lowest total, computed from the observation alone (a
    learning policy may take them as extra inputs, :mod:`agents.hints`): the viewer's hand total / 50; the lowest
    estimated opponent total (:func:`opponent_view`) / 50; the viewer's lead over that opponent, the estimate minus
    the total over ``unseen mean * sqrt(that opponent's unknown cards)`` (at least 1), clipped to ±5, then / 5 (the
    scale of the heuristic's drop margin); the stock / 52; the fewest cards an opponent in the deal holds / 6; the
    mean points of the unseen cards / 10. With no opponent in the deal the opponent numbers are 0."""
    hand = _plane(obs, V.HAND)
    total = (hand * PUB_VALUE).sum(axis=1)
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
    return count, (discarded * PUB_VALUE).sum(axis=1) / np.maximum(count, 1)


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
    most_taken = (by_others * PUB_VALUE).max(axis=1)
    table = np.stack([mean / 10, count / 20, by_others.sum(axis=1) / 5, most_taken / 10], axis=1)
    return np.concatenate([drop_hints(obs), table.astype(np.float32)], axis=1)


class FlipFlopHeuristic(AgentBase):
    """Builds and lays spreads, discards high loose cards and drops on a low total (see the module docstring). The
    decision is compiled (:func:`envs.flipflop.policy.decide`); a style changes only the class attributes below."""

    name = "heuristic"
    drop_margin = 3.5
    """Safety margin of a drop, in points per square root of an opponent's unknown cards."""
    loose_margin: float | None = None
    """The margin before the first discard and at a table whose discards so far average fewer than
    :attr:`high_discards` points (``None``: :attr:`drop_margin` everywhere)."""
    high_discards = 0.0
    """Mean points of the discards so far from which a table counts as careful (:attr:`drop_margin`)."""
    drop_at = 3
    """Always drop with a total of at most this many points."""
    pair_keep = 12
    """Discard score taken off a card paired with another of its rank in hand (in points)."""
    next_keep = 6
    """Discard score taken off a card next to a card of its suit in hand (aces low)."""
    gap_keep = 3
    """Discard score taken off a card one gap from a card of its suit in hand."""
    take_to_build = False
    """Also take a discard-pile card that starts a spread with its hand (the spread-building card it takes would
    score below its points, and it would still discard a card worth more points than it)."""

    def __init__(self, game: FlipFlopGame) -> None:
        super().__init__(game)
        loose = self.drop_margin if self.loose_margin is None else self.loose_margin
        self.policy = FlipFlopPolicy(float(self.drop_margin), float(loose), float(self.high_discards),
                                     int(self.drop_at), float(self.pair_keep), float(self.next_keep),
                                     float(self.gap_keep), bool(self.take_to_build))
        """This style's parameters, as the compiled decision takes them."""

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        out = np.empty(len(obs), np.int64)
        decide_rows(np.ascontiguousarray(obs, np.float32), np.ascontiguousarray(mask, bool), self.policy, out)
        return out

    def should_drop(self, obs: np.ndarray) -> np.ndarray:
        """``(B,)`` whether each row's hand total is low enough to drop (the drop rule of the module docstring)."""
        out = np.empty(len(obs), bool)
        drop_rows(np.ascontiguousarray(obs, np.float32), self.policy, out)
        return out

    def rollout(self, state: FlipFlopState, tables: np.ndarray, styles: tuple | None = None,
                seat_style: np.ndarray | None = None, seed: int = 0) -> None:
        """Play ``tables`` of ``state`` (in place) to the end of their episode, every seat playing this style; or,
        with ``styles`` (a tuple of :data:`~envs.flipflop.policy.FlipFlopPolicy`) and ``seat_style``
        (``(len(tables), n)``), seat ``p`` of table ``tables[i]`` playing ``styles[seat_style[i, p]]``, or random
        legal actions where it is -1 (:func:`envs.flipflop.policy.rollout_tables`)."""
        game = self.game
        tables = np.asarray(tables, np.int64)
        if styles is None or seat_style is None:
            styles, seat_style = (self.policy,), np.zeros((tables.size, game.num_players), np.int64)
        rec, rules, extra = game.kernel_args(state)
        rollout_tables(rec, rules, extra, tables, tuple(styles), np.ascontiguousarray(seat_style, np.int64), int(seed))
