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
real decision. The stages live in mixins: :mod:`envs.tripoli.deal_stage` (T4–T12, T26), :mod:`envs.tripoli.poker_stage`
(T13–T17, T28) and :mod:`envs.tripoli.michigan` (T18–T25). See :mod:`envs.tripoli_v1` for the observation table and
:mod:`envs.tripoli.actions` for the actions.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from envs.core import cards as C
from envs.core.forced import report as report_forced
from envs.core.game import BatchedGame
from envs.core.rng import STREAM_DEALER, uniform_ints
from envs.tripoli import observation as obs_mod
from envs.tripoli import render as render_mod
from envs.tripoli.actions import AUCTION, KEEP, PASS, SWAP, TripoliActions
from envs.tripoli.config import TripoliConfig
from envs.tripoli.deal_stage import DealStage
from envs.tripoli.michigan import MichiganStage
from envs.tripoli.poker_stage import PokerStage
from envs.tripoli.state import (
    NUM_PHASES,
    NUM_SPACES,
    P_AUCTION,
    P_BET,
    P_DONE,
    P_LEAD,
    P_NAME_SUIT,
    P_RUN,
    P_SELECT,
    P_SPARE,
    P_SUIT_AUCTION,
    SPACE_POT,
    TripoliState,
)


class TripoliGame(DealStage, PokerStage, MichiganStage, BatchedGame[TripoliState]):
    """Batched Tripoli core: ``TripoliGame(num_players=4, **options)`` with options of :class:`TripoliConfig`."""

    name: ClassVar[str] = "tripoli"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 9
    config_class: ClassVar[type] = TripoliConfig

    def __init__(self, num_players: int = 4, **options) -> None:
        super().__init__(num_players, **options)
        self.config: TripoliConfig
        self.actions = TripoliActions(self.config.max_bid, self.config.bet_limit)
        self._handlers = {
            P_SPARE: self._act_spare,
            P_AUCTION: self._act_auction,
            P_SUIT_AUCTION: self._act_auction,
            P_NAME_SUIT: self._act_name_suit,
            P_SELECT: self._act_select,
            P_BET: self._act_bet,
            P_LEAD: self._act_lead,
            P_RUN: self._act_run,
        }

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

    # ================================================================== init
    def _init(self, seeds: np.ndarray, decks: np.ndarray | None, dealers: np.ndarray | None) -> TripoliState:
        b, n = seeds.shape[0], self.num_players
        z, zn = np.zeros(b, np.int64), np.zeros((b, n), np.int64)
        s = TripoliState(
            seeds=seeds,
            current_player=z - 1,
            legal_action_mask=np.zeros((b, self.num_actions), bool),
            rewards=np.zeros((b, n), np.float64),
            terminated=np.zeros(b, bool),
            truncated=np.zeros(b, bool),
            phase=z.copy(),
            deal=z.copy(),
            final=np.zeros(b, bool),
            final_pot=z.copy(),
            final_left=np.zeros((b, NUM_SPACES), np.int64),
            dealer=(dealers.copy() if dealers is not None else uniform_ints(seeds, STREAM_DEALER, 0, n)),
            balance=zn.copy(),
            layout=np.zeros((b, NUM_SPACES), np.int64),
            hands=np.zeros((b, n), np.uint64),
            spare=np.zeros(b, np.uint64),
            dead=np.zeros(b, np.uint64),
            dead_shown=np.zeros(b, np.uint64),
            played=np.zeros(b, np.uint64),
            known=np.zeros((b, n), np.uint64),
            pay_suit=z + C.HEARTS,
            seq_rank=z + self.config.sequence_start - 2,
            swapped=np.zeros(b, bool),
            auctioned=np.zeros(b, bool),
            high_bid=z.copy(),
            high_bidder=z - 1,
            passed=np.zeros((b, n), bool),
            selected=np.zeros((b, n), np.uint64),
            folded=np.zeros((b, n), bool),
            round_bet=zn.copy(),
            high_bet=z.copy(),
            raises=z.copy(),
            acted=np.zeros((b, n), bool),
            shown=np.zeros((b, n), np.uint64),
            poker_winner=z - 1,
            run_suit=z - 1,
            last_card=z - 1,
            last_player=z - 1,
            run_start=z - 1,
            played_by=np.zeros((b, n), np.uint64),
            decks=(decks.astype(np.int16) if decks is not None else np.full((b, 1, 52), -1, np.int16)),
        )
        idx = np.arange(b)
        self._start_deal(s, idx)
        self._settle(s, idx)
        s.rewards[:] = s.balance  # the first ante (and anything resolved before the first decision)
        return s

    # ================================================================== step
    def _step(self, s: TripoliState, idx: np.ndarray, actions: np.ndarray) -> None:
        before = s.balance[idx].copy()
        self._apply(s, idx, actions)
        self._settle(s, idx)
        s.rewards[idx] = s.balance[idx] - before

    def _apply(self, s: TripoliState, idx: np.ndarray, actions: np.ndarray) -> None:
        """Apply one legal decision at each table ``idx``, by phase."""
        phase = s.phase[idx]
        present = np.flatnonzero(np.bincount(phase, minlength=NUM_PHASES))
        if present.size == 1:
            self._handlers[present[0]](s, idx, actions)
            return
        for p in present:
            sel = phase == p
            self._handlers[p](s, idx[sel], actions[sel])

    def _settle(self, s: TripoliState, idx: np.ndarray) -> None:
        """Compute legal masks; with ``auto_forced`` play every single-choice decision until none is left (C8)."""
        pending = idx
        while pending.size:
            self._compute_masks(s, pending)
            if not self.config.auto_forced:
                return
            mask = s.legal_action_mask[pending]
            forced = mask.sum(axis=1) == 1
            if self.config.cosmo:  # T30: the episode's first lead is always asked, so no episode ends at reset
                forced &= ~((s.phase[pending] == P_LEAD) & (s.deal[pending] == 0) & (s.played[pending] == 0))
            if not forced.any():
                return
            pending = pending[forced]
            actions = mask[forced].argmax(axis=1)
            p = s.current_player[pending]
            lead = s.phase[pending] == P_LEAD  # a forced lead plays the lowest card of its suit: name it
            suit_cards = s.hands[pending, p] & C.SUIT_MASKS[np.clip(actions - self.actions.lead, 0, 3)]
            report_forced(s, pending, p, actions, np.where(lead, C.lowest_card(suit_cards), -1))
            self._apply(s, pending, actions)

    # ================================================================== episode (T28)
    def _end_deal(self, s: TripoliState, idx: np.ndarray) -> None:
        """After a deal or a final poker round: the next deal, the settlement of the layout (T28), or the end."""
        if idx.size == 0:
            return
        cfg = self.config
        regular = ~s.final[idx]
        more = regular & (s.deal[idx] + 1 < cfg.num_deals)
        nxt = idx[more]
        s.deal[nxt] += 1
        s.dealer[nxt] = (s.dealer[nxt] + 1) % self.num_players
        self._start_deal(s, nxt)
        last = idx[regular & ~more]  # the episode's last deal has just ended
        if cfg.num_deals > 1 and cfg.final_round == "share":
            self._share_layout(s, last)
        elif cfg.num_deals > 1 and cfg.final_round in ("poker", "pots"):
            self._divide_layout(s, last)
        ended = idx[~more]
        pots_left = s.final_left[ended, 0] > 0
        self._start_final(s, ended[pots_left])
        over = ended[~pots_left]
        s.phase[over] = P_DONE
        s.current_player[over] = -1
        s.terminated[over] = True

    def _divide_layout(self, s: TripoliState, idx: np.ndarray) -> None:
        """T28 ``poker`` / ``pots``: every chip of the layout is gathered on the pot space and divided into the pots
        of the final poker rounds (one with ``poker``, ``final_pots`` with ``pots``), as equal as possible, the
        larger first. A pot with no chip is not played (decision: with ``poker`` too, there is nothing to win)."""
        if idx.size == 0:
            return
        total = s.layout[idx].sum(axis=1)
        s.layout[idx] = 0
        s.layout[idx, SPACE_POT] = total
        k = self.config.final_pots if self.config.final_round == "pots" else 1
        s.final_left[idx] = 0
        s.final_left[idx, :k] = total[:, None] // k + (np.arange(k) < total[:, None] % k)

    def _share_layout(self, s: TripoliState, idx: np.ndarray) -> None:
        """T28 ``share``: the layout's chips are shared equally among the players; a remainder that does not divide
        stays on the layout (gathered on the pot space) and belongs to nobody."""
        if idx.size == 0:
            return
        total = s.layout[idx].sum(axis=1)
        each = total // self.num_players
        s.balance[idx] += each[:, None]
        s.layout[idx] = 0
        s.layout[idx, SPACE_POT] = total - each * self.num_players

    # ================================================================== legal masks
    def _compute_masks(self, s: TripoliState, idx: np.ndarray) -> None:
        A, cfg = self.actions, self.config
        m = np.zeros((idx.size, self.num_actions), bool)
        phase = s.phase[idx]
        p = s.current_player[idx]
        present = np.bincount(phase, minlength=NUM_PHASES) > 0
        r = np.flatnonzero(phase == P_SPARE) if present[P_SPARE] else ()
        if len(r):
            m[r, KEEP] = True
            m[r, SWAP] = ~s.swapped[idx[r]]
            m[r, AUCTION] = (cfg.spare_hand == "full") & ~s.auctioned[idx[r]]
        bidding = present[P_AUCTION] or present[P_SUIT_AUCTION]
        r = np.flatnonzero((phase == P_AUCTION) | (phase == P_SUIT_AUCTION)) if bidding else ()
        if len(r):
            m[r, PASS] = True
            k = np.arange(1, cfg.max_bid + 1)
            m[r, A.bid : A.bid + cfg.max_bid] = k > s.high_bid[idx[r], None]
        if present[P_NAME_SUIT]:
            m[phase == P_NAME_SUIT, A.name_suit : A.name_suit + 4] = True
        r = np.flatnonzero(phase == P_SELECT) if present[P_SELECT] else ()
        if len(r):
            free = s.hands[idx[r], p[r]] & ~s.selected[idx[r], p[r]]
            m[r, A.select : A.select + 52] = C.mask_to_bits(free).astype(bool)
        r = np.flatnonzero(phase == P_BET) if present[P_BET] else ()
        if len(r):
            opened = s.high_bet[idx[r]] > 0
            m[r, A.check] = ~opened
            m[r, A.bet : A.bet + cfg.bet_limit] = ~opened[:, None]
            m[r, A.call] = opened
            m[r, A.fold] = opened
            can_raise = opened & (s.raises[idx[r]] < cfg.max_raises)
            m[r, A.raise_ : A.raise_ + cfg.bet_limit] = can_raise[:, None]
        r = np.flatnonzero(phase == P_LEAD) if present[P_LEAD] else ()
        if len(r):
            m[r, A.lead : A.lead + 4] = self._lead_suits(s, idx[r], s.hands[idx[r], p[r]][:, None])[:, 0]
        if present[P_RUN]:
            m[phase == P_RUN, A.continue_run] = True
        s.legal_action_mask[idx] = m

    # ================================================================== views
    def _observe(self, state: TripoliState, seats: np.ndarray, out: np.ndarray) -> None:
        obs_mod.observe(self, state, seats, out)

    def _render_table(self, state: TripoliState, table: int, viewer: int | None, unicode: bool) -> str:
        return render_mod.render(self, state, table, viewer, unicode)

