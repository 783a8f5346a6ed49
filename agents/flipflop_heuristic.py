"""A hand-written Flip Flop player, reading only the observation and the mask; its decision is compiled, one row at a
time (:mod:`envs.flipflop.policy`).

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

import numpy as np

from agents.together import SameClassTogether
from envs.core.agent import AgentBase
from envs.flipflop.core import FlipFlopGame
from envs.flipflop.policy import FlipFlopPolicy, decide_rows, drop_rows, rollout_tables
from envs.flipflop.state import FlipFlopState


class FlipFlopHeuristic(SameClassTogether, AgentBase):
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
