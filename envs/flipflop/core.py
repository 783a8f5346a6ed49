"""The batched Flip Flop core (docs/flipflop.md, F1–F28).

The rules are compiled per-table kernels (:mod:`envs.flipflop.kernels`); every batched entry point is one call into
them, which loops over the tables. Turn passing, showing
(F12), the end of a deal (F18–F21), settlement, the next deal of a session (F23–F25) and forced moves (C8) all run
inside the step, so a table always waits on a real decision or is finished.

Decisions where the rules are silent (besides those marked in the rules file):

- A player who took the top discard may lay it in a spread or lay it off, but may not end up holding it as the only
  card with no way to lay it off (else the turn could not end): such a lay or lay-off is refused by the mask.
- F20: a spread counts as "a spread of three that they laid" if it had three cards when that player laid it;
  another player laying off on it later does not spoil the tunk. Any lay-off by the tunker does.
- F25: a player all in who takes a share of the game pot has won it and stays in.
- F25: a player out of the session keeps the money left; the dealer moves to the next seat still in. Money left in
  pots when a session ends stays there (it was never won).
- F24: the flip and flop pots go to the best dealt card among the players who anted that pot; showing is unchanged.
- F7: the claim of a 49 or 50 is the claimant's decision (one legal action, ``claim 49/50``, asked even with
  ``auto_forced``), so a deal dealt with one waits on it and no episode is over at reset. With ``deal`` the first
  claimant from the dealer's left is asked and the claim settles every claimant (F8); with ``first_turn`` the
  claimant is asked after showing (F12) at the start of their first turn, and wins alone. Claimants show their hand.
- F26: the state keeps money in stakes; rewards are stake changes times ``stake``.
- F28: a turn counts from the moment it begins (a drop is a turn). The cut comes when the ``max_turns``-th turn ends
  with a discard and the deal is not over; a turn that ends the deal by the rules (going out, the stock's last
  card, F21) terminates it instead. The cut table keeps its cards, its pots (flip and flop too, if the showing was
  not complete) and everybody's money as they are; ``end_reason`` says CUT_OFF. After ``max_deals`` deals the last
  deal is settled in full (side pots, eliminations) and the session is then truncated, unless it is over anyway.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from envs.core import records
from envs.core.game import BatchedGame
from envs.flipflop import actions as T
from envs.flipflop import kernels as K
from envs.flipflop import observation, render
from envs.flipflop.config import FlipFlopConfig
from envs.flipflop.state import FlipFlopState, record_fields


class FlipFlopGame(BatchedGame[FlipFlopState]):
    """Flip Flop for 2–7 players over a batch of tables (action and observation tables: ``envs/flipflop_v1.py``)."""

    name = "flipflop"
    min_players = 2
    max_players = 7
    config_class = FlipFlopConfig
    config: FlipFlopConfig
    forced_capacity: ClassVar[int] = 1
    """With ``auto_forced`` a step forces at most one move (C8): a turn's draw always has two choices (drop, draw
    the stock; the stock is never empty at a draw, F21), a claim is always asked (F7), and a play phase with one
    legal action holds either one card to discard (the discard ends the turn) or only the card just taken, whose
    lay-off empties the hand and ends the deal; every new turn or deal starts with a draw or a claim."""

    def __init__(self, num_players: int = 4, **options) -> None:
        super().__init__(num_players, **options)
        cfg = self.config
        self._rules = K.FlipFlopRules(
            n=num_players, session=cfg.session, until_one_left=cfg.until_one_left, num_deals=cfg.num_deals,
            max_deals=cfg.max_deals, max_turns=cfg.max_turns, claim_on_deal=cfg.declare_49_50 == "deal",
            auto_forced=cfg.auto_forced, stake=float(cfg.stake),
            start=float(cfg.bankroll) if cfg.session else 0.0,
        )
        self._fields = record_fields(num_players, T.NUM_ACTIONS)

    @property
    def num_actions(self) -> int:
        return T.NUM_ACTIONS

    @property
    def observation_size(self) -> int:
        return observation.OBS_SIZE

    def _action_name(self, action: int) -> str:
        return T.ACTION_NAMES[action]

    @property
    def max_episode_decisions(self) -> int:
        """The most decisions (steps) an episode can ask for under this configuration (C13, F28).

        A turn asks for at most 7 decisions: a draw, then at most six moves that each take a card from the hand
        (lays, lay-offs, the discard) out of the at most 6 cards held after the draw (a hand holds 5 cards at the
        start of a turn, fewer after spreads). A deal has at most ``max_turns`` turns and an episode at most
        ``max_deals`` deals (1 for a single deal, at most ``num_deals`` for a fixed session).
        """
        cfg = self.config
        deals = cfg.max_deals if cfg.until_one_left else min(cfg.num_deals, cfg.max_deals)
        return deals * (cfg.max_turns * (2 + K.HAND_SIZE) + 1)  # and a 49/50 claim per deal (F7)

    @property
    def reward_range(self) -> tuple[float, float]:
        """Bounds ``(low, high)`` of one seat's reward for one step under this configuration (F26: stakes times
        ``stake``).

        A single deal antes only at ``init``: in a step a seat loses at most the one extra stake of a caught drop, a
        tunk or a 50 (F7, F19, F20) and gains at most every pot (``3 n`` stakes of antes) plus ``n - 1`` extra
        stakes. In a session a step can also ante the next deal (three more stakes lost) and a seat can gain at most
        all the money at the table, ``n * bankroll`` stakes (money is conserved, C10).
        """
        n, cfg = self.num_players, self.config
        if cfg.session:
            return -4.0 * cfg.stake, float(n * cfg.bankroll) * cfg.stake
        return -1.0 * cfg.stake, float(4 * n - 1) * cfg.stake

    def _kernel_args(self, s: FlipFlopState) -> tuple[np.ndarray, K.FlipFlopRules, K.FlipFlopExtra]:
        """The table records of ``s``, the rules and the arrays outside the records, as the kernels take them."""
        return (records.records(s, self._fields), self._rules,
                K.FlipFlopExtra(s.decks, s.forced_count, s.forced_seat, s.forced_action, s.forced_card))

    def _observe(self, state: FlipFlopState, seats: np.ndarray, out: np.ndarray) -> None:
        observation.observe(self, state, seats, out)

    def _render_table(self, state: FlipFlopState, table: int, viewer: int | None, unicode: bool) -> str:
        return render.render(state, table, viewer, unicode)

    def _init(self, seeds: np.ndarray, decks: np.ndarray | None, dealers: np.ndarray | None) -> FlipFlopState:
        b = len(seeds)
        rec, views = records.allocate(b, self._fields)
        views["seeds"][:] = seeds
        views["dealer"][:] = -1 if dealers is None else dealers
        views["last_action"][:] = -1
        capacity = self.forced_capacity
        s = FlipFlopState(
            **views, decks=(decks.astype(np.int16) if decks is not None else np.full((b, 1, 52), -1, np.int16)),
            forced_count=np.zeros(b, np.int64), forced_seat=np.full((b, capacity), -1, np.int64),
            forced_action=np.full((b, capacity), -1, np.int64), forced_card=np.full((b, capacity), -1, np.int64),
        )
        records.bind(s, rec, views)
        K.init_tables(*self.kernel_args(s))
        return s

    def _redeal(self, state: FlipFlopState, idx: np.ndarray, seeds: np.ndarray) -> None:
        K.redeal_tables(*self.kernel_args(state), idx, seeds)

    def _play(self, s: FlipFlopState, idx: np.ndarray, actions: np.ndarray) -> int:
        return K.play_tables(*self.kernel_args(s), idx, actions)
