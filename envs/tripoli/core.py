"""Tripoli rules over a batch of tables (docs/tripoli.md T1–T30, common.md C1–C13).

The engine follows the rules file; the points it leaves to an engine are fixed here (and tested):

- T6: after ``swap`` the dealer may ``keep`` or ``auction`` the old hand; after an auction without a bid the dealer
  chooses ``keep`` or ``swap`` — unless they had swapped already, in which case the phase is over.
- T12: a player whose unselected cards are exactly as many as the cards still to select has no choice left: the
  engine completes the selection (this is not counted as a decision even with ``auto_forced=False``).
- T20/T22: with ``first_lead='lowest'`` or ``lead_colours='alternate'``, a lead is the choice of a suit whose
  lowest card has the lowest rank among the allowed cards; a leader without an allowed card passes the lead
  clockwise; if nobody has one the deal ends as in T22.
- T25: the card that goes out still collects its pay space before the deal ends.
- T7: the deal's last auction (its passes, high bid and bidder) stays visible after it ends, until the next deal.
- T28: the dealer moves left once more for each final poker round (``pots``: one round per pot, the larger pots
  first); the layout's chips are first gathered on the pot space; a pot with no chip is not played.
- T30 (Cosmo): the first lead of the episode is asked even when it is the only legal action (a Cosmo deal can
  otherwise be played out by forced moves alone, and an episode must not be over at reset). The pay suit and the
  sequence start are drawn from the table's seed at each deal (stream ``STREAM_BOARD``, counters ``2·deal`` and
  ``2·deal + 1``) and are public from the deal on.

Each step applies one decision per table, then resolves what follows without a decision (ante, deal, pay cards,
showdown, Michigan runs, passed leads, the next deal) and every forced decision (C8) until each table waits on a
real decision. The rules are compiled per-table kernels (:mod:`envs.tripoli.kernels`); every batched entry point is
one call into them, which loops over the tables. See :mod:`envs.tripoli_v1` for the observation table and
:mod:`envs.tripoli.actions` for the actions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np

from envs.core import forced, records
from envs.core.game import BatchedGame
from envs.tripoli import kernels as K
from envs.tripoli import observation as obs_mod
from envs.tripoli import render as render_mod
from envs.tripoli.actions import TripoliActions
from envs.tripoli.config import TripoliConfig
from envs.tripoli.state import NUM_SPACES, TripoliState, record_fields


class TripoliGame(BatchedGame[TripoliState]):
    """Batched Tripoli core: ``TripoliGame(num_players=4, **options)`` with options of :class:`TripoliConfig`."""

    name: ClassVar[str] = "tripoli"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 9
    config_class: ClassVar[type] = TripoliConfig

    def __init__(self, num_players: int = 4, **options) -> None:
        super().__init__(num_players, **options)
        self.config: TripoliConfig
        cfg = self.config
        self.actions = A = TripoliActions(cfg.max_bid, cfg.bet_limit)
        leader = "left_of_dealer" if cfg.cosmo else cfg.michigan_leader  # T19, T30
        self._rules = K.TripoliRules(
            n=num_players, spare_hand=("full", "swap_only", "none").index(cfg.spare_hand), max_bid=cfg.max_bid,
            pays_in_play=cfg.pays_in_play, select_best=cfg.poker_select == "best",
            opener_is_dealer=cfg.poker_opener == "dealer", bet_limit=cfg.bet_limit, max_raises=cfg.max_raises,
            leader=("poker_winner", "dealer", "left_of_dealer").index(leader),
            first_lead_lowest=cfg.first_lead == "lowest", alternate=cfg.alternate_leads,
            suit_auction=cfg.pay_suit == "auction", seq_rank=cfg.sequence_start - 2,
            dead_shown=cfg.dead_hand == "shown", cosmo=cfg.cosmo, num_deals=cfg.num_deals,
            final_round=("poker", "pots", "share", "none").index(cfg.final_round), final_pots=cfg.final_pots,
            auto_forced=cfg.auto_forced, spare_phase=cfg.spare_phase, bid=A.bid, name_suit=A.name_suit,
            select=A.select, check=A.check, call=A.call, fold=A.fold, bet=A.bet, raise_=A.raise_, lead=A.lead,
            continue_run=A.continue_run,
        )
        self._fields = record_fields(num_players, A.size)

    @property
    def num_actions(self) -> int:
        return self.actions.size

    @property
    def observation_size(self) -> int:
        return obs_mod.OBSERVATION_SIZE

    def _action_name(self, action: int) -> str:
        return self.actions.name(action)

    @property
    def max_episode_decisions(self) -> int:
        """The most decisions (steps) an episode can ask for under this configuration (C13). Every phase is finite
        by the rules, so the bound is a sum over the phases of a deal, ``n`` players:

        - spare hand (T6–T8): at most two dealer choices (``full``: auction then swap, or swap then auction; one
          with ``swap_only``) and one auction of the ``n - 1`` other players;
        - an auction (T7, T26): bids rise by at least one chip up to ``max_bid`` and each bidder passes once, so at
          most ``max_bid`` bids plus one pass per bidder; T26 adds the auction of all ``n`` players and the naming
          of the suit;
        - selection (T12): five cards per player, one a decision (none with ``poker_select='best'``);
        - betting (T14–T15): before the opening bet and after each of the ``max_raises`` raises at most ``n - 1``
          players act before the next bet or raise, and after the last one at most ``n - 1`` more:
          ``n * (max_raises + 2) - 1``;
        - Michigan (T20–T22): every decision plays a card from a player's hand, and the ``n`` hands hold at most
          ``52 - 52 // (n + 1)`` cards (the spare hand gets at least ``52 // (n + 1)``, T5).

        ``num_deals`` deals (Cosmo, T30: the Michigan stage alone), then with more than one deal one more betting
        round per final pot (T28: one with ``poker``, ``final_pots`` with ``pots``, none with ``share`` or ``none``).
        """
        cfg, n = self.config, self.num_players
        betting = n * (cfg.max_raises + 2) - 1
        michigan = 52 - 52 // (n + 1)
        if cfg.cosmo:
            deal = michigan
        else:
            spare = {"full": 2 + cfg.max_bid + n - 1, "swap_only": 1, "none": 0}[cfg.spare_hand]
            suit_auction = cfg.max_bid + n + 1 if cfg.pay_suit == "auction" else 0
            selection = 5 * n if cfg.poker_select == "choose" else 0
            deal = spare + suit_auction + selection + betting + michigan
        pots = {"poker": 1, "pots": cfg.final_pots, "share": 0, "none": 0}[cfg.final_round]
        final = betting * pots if cfg.num_deals > 1 else 0
        return cfg.num_deals * deal + final

    @property
    def reward_range(self) -> tuple[float, float]:
        """Bounds ``(low, high)`` of one seat's reward for one step, in chips. A step can play forced moves to the end
        of the episode, so the bound is the most a seat can pay in an episode: per deal the ante (9, T4), two
        auctions at ``max_bid`` (T7, T26), its bets of a betting round (at most ``(max_raises + 1) * bet_limit``,
        T14) and 1 chip per card left in hand (T22, T23; at most 52), plus the bets of each final round (T28).
        Chips are conserved (C10): a seat wins at most what the ``n - 1`` others pay."""
        cfg, n = self.config, self.num_players
        bets = (cfg.max_raises + 1) * cfg.bet_limit
        finals = {"poker": 1, "pots": cfg.final_pots, "share": 0, "none": 0}[cfg.final_round] if cfg.num_deals > 1 \
            else 0
        low = -float(cfg.num_deals * (NUM_SPACES + 2 * cfg.max_bid + bets + 52) + finals * bets)
        return low, -low * (n - 1)

    # ================================================================== kernels
    def _kernel_args(self, s: TripoliState) -> tuple[np.ndarray, K.TripoliRules, K.TripoliExtra]:
        """The table records of ``s``, the rules and the arrays outside the records, as the kernels take them."""
        return (records.records(s, self._fields), self._rules,
                K.TripoliExtra(s.decks, s.forced_count, s.forced_seat, s.forced_action, s.forced_card))

    def _resume(self, state: TripoliState) -> Callable[[np.ndarray, np.ndarray], None]:
        """The kernel that goes on with forced moves at some tables of ``state``, for
        :func:`envs.core.forced.widen_and_resume` (the arguments are read at each call: widening replaces arrays)."""
        return lambda tables, pending: K.resume_tables(*self.kernel_args(state), tables, pending)

    def _init(self, seeds: np.ndarray, decks: np.ndarray | None, dealers: np.ndarray | None) -> TripoliState:
        b = seeds.shape[0]
        rec, views = records.allocate(b, self._fields)
        views["seeds"][:] = seeds
        views["dealer"][:] = -1 if dealers is None else dealers
        views["seq_rank"][:] = self._rules.seq_rank
        for name in ("current_player", "high_bidder", "poker_winner", "run_suit", "last_card", "last_player",
                     "run_start"):
            views[name][:] = -1
        capacity = forced.INITIAL_CAPACITY
        s = TripoliState(
            **views, decks=(decks.astype(np.int16) if decks is not None else np.full((b, 1, 52), -1, np.int16)),
            forced_count=np.zeros(b, np.int64), forced_seat=np.full((b, capacity), -1, np.int64),
            forced_action=np.full((b, capacity), -1, np.int64), forced_card=np.full((b, capacity), -1, np.int64),
        )
        records.bind(s, rec, views)
        pending = np.zeros(b, bool)
        K.init_tables(*self.kernel_args(s), pending)
        forced.widen_and_resume(s, np.arange(b), pending, self._resume(s))
        return s

    def _redeal(self, state: TripoliState, idx: np.ndarray, seeds: np.ndarray) -> None:
        pending = np.zeros(idx.size, bool)
        K.redeal_tables(*self.kernel_args(state), idx, seeds, pending)
        forced.widen_and_resume(state, idx, pending, self._resume(state))

    def _play(self, s: TripoliState, idx: np.ndarray, actions: np.ndarray) -> int:
        if s.forced_seat.shape[1] < K.ROOM:  # a decided lead reports its run without asking for room
            forced.grow(s, K.ROOM)
        pending = np.zeros(idx.size, bool)
        bad = K.play_tables(*self.kernel_args(s), idx, actions, pending)
        if bad < 0:
            forced.widen_and_resume(s, idx, pending, self._resume(s))
        return bad

    # ================================================================== views
    def _observe(self, state: TripoliState, seats: np.ndarray, out: np.ndarray) -> None:
        obs_mod.observe(self, state, seats, out)

    def _render_table(self, state: TripoliState, table: int, viewer: int | None, unicode: bool) -> str:
        return render_mod.render(self, state, table, viewer, unicode)

