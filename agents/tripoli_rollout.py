"""The Tripoli zoo bots compiled, for search rollouts: the same choices as the numpy bots, one table at a time.

:class:`TripoliCompiled` wraps the compiled decision of ``envs/tripoli/policy.py`` as an agent
(``TripoliCompiled(game, "longsuit")`` plays exactly as ``longsuit``: tested on many positions) and plays rollouts with
it (:meth:`TripoliCompiled.rollout`: every seat plays the style to the end of the deal, in one compiled call).
"""

from __future__ import annotations

import numpy as np

from agents.tripoli_bots import TripoliAggressive, TripoliLongSuit, TripoliLowLead, TripoliTight
from agents.tripoli_heuristic import TripoliHeuristic, opponent_values
from envs.core.agent import AgentBase
from envs.tripoli.actions import TripoliActions
from envs.tripoli.core import TripoliGame
from envs.tripoli.policy import TripoliPolicy, decide_rows, rollout_tables

STYLES = {"heuristic": (TripoliHeuristic, 0), "tight": (TripoliTight, 0), "aggressive": (TripoliAggressive, 0),
          "longsuit": (TripoliLongSuit, 1), "lowlead": (TripoliLowLead, 2)}
"""Bot name → (its numpy class, its lead style)."""
_MAX_HAND = 27


def policy_of(game: TripoliGame, style: str) -> tuple:
    """The :data:`TripoliPolicy` of the zoo bot ``style`` for ``game``."""
    cls, lead_style = STYLES[style]
    a = TripoliActions(game.config.max_bid, game.config.bet_limit)
    return TripoliPolicy(
        float(cls.swap_below), float(cls.bet_above), float(cls.raise_above), float(cls.call_margin),
        float(cls.hopeless_below), float(cls.bet_scale), float(cls.spare_price), float(cls.spare_worth),
        int(cls.suit_price_extra), float(cls.stop_bonus), float(cls.low_bonus), float(cls.handover_malus),
        int(lead_style), bool(game.config.pays_in_play), int(game.config.bet_limit), a.bid, a.name_suit, a.select,
        a.check, a.call, a.fold, a.bet, a.raise_, a.lead)


_TABLE: list[np.ndarray] = []


def win_table() -> np.ndarray:
    """``(_MAX_HAND, 4096)`` the heuristic's sorted opponent hand values by hand size (rows below 5 unused)."""
    if not _TABLE:
        rows = [opponent_values(max(k, 5)) for k in range(_MAX_HAND)]
        _TABLE.append(np.ascontiguousarray(np.stack(rows)))
    return _TABLE[0]


class TripoliCompiled(AgentBase):
    """A Tripoli zoo bot's choices, compiled (module docstring): ``TripoliCompiled(game, "longsuit")``."""

    def __init__(self, game: TripoliGame, style: str = "heuristic") -> None:
        super().__init__(game)
        cls = STYLES[style][0]
        self.name, self.version, self.style = cls.name, cls.version, style
        self.policy = policy_of(game, style)
        self.table = win_table()

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        out = np.empty(len(obs), np.int64)
        decide_rows(np.ascontiguousarray(obs, np.float32), np.ascontiguousarray(mask, bool), self.policy, self.table,
                    out)
        return out

    def rollout(self, state, tables: np.ndarray, stop_at_deal_end: bool = True, styles: tuple | None = None,
                seat_style: np.ndarray | None = None, seed: int = 0) -> None:
        """Play ``tables`` of ``state`` (in place) to the end of their deal, every seat playing this style; or, with
        ``styles`` (a tuple of :data:`~envs.tripoli.policy.TripoliPolicy`) and ``seat_style`` (``(len(tables),
        n)``), seat ``p`` of table ``tables[i]`` playing ``styles[seat_style[i, p]]``, or random legal actions where
        it is -1."""
        game = self.game
        rec, rules, extra = game.kernel_args(state)
        tables = np.asarray(tables, np.int64)
        if styles is None or seat_style is None:
            styles, seat_style = (self.policy,), np.zeros((tables.size, game.num_players), np.int64)
        rollout_tables(rec, rules, extra, tables, tuple(styles), self.table, int(game.config.num_deals),
                       stop_at_deal_end, np.ascontiguousarray(seat_style, np.int64), int(seed))
