"""Tripoli's Michigan stage (T18–T25): leads, forced runs resolved with bit operations, stops, going out and pay
cards won in play. A mixin of :class:`TripoliGame`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from envs.core import cards as C
from envs.core.forced import report as report_forced
from envs.tripoli.actions import TripoliActions
from envs.tripoli.config import TripoliConfig
from envs.tripoli.seats import first_after, holder
from envs.tripoli.state import (
    P_LEAD,
    P_RUN,
    PAY_RANKS,
    RANK_ACE,
    RANK_KING,
    SPACE_KITTY,
    SPACE_KQ,
    SPACE_POT,
    SPACE_SEQUENCE,
    SUIT_IS_RED,
    TripoliState,
)


class MichiganStage:
    """Michigan rules over a subset ``idx`` of the batch."""

    num_players: int
    config: TripoliConfig
    actions: TripoliActions
    _end_deal: Callable[[TripoliState, np.ndarray], None]  # TripoliGame

    # ================================================================== Michigan (T18–T25)
    def _start_michigan(self, s: TripoliState, idx: np.ndarray) -> None:
        if idx.size == 0:
            return
        leader = "left_of_dealer" if self.config.cosmo else self.config.michigan_leader  # T19, T30
        d = s.dealer[idx]
        first = {"poker_winner": s.poker_winner[idx], "dealer": d, "left_of_dealer": (d + 1) % self.num_players}
        s.phase[idx] = P_LEAD
        self._find_leader(s, idx, first[leader])

    def _lead_suits(self, s: TripoliState, idx: np.ndarray, hands: np.ndarray) -> np.ndarray:
        """(k, m, 4) bool: the suits that each of the (k, m) ``hands`` (of tables ``idx``) could lead now (T20, T22)."""
        in_suit = hands[:, :, None] & C.SUIT_MASKS
        held = in_suit != 0
        low_rank = np.where(held, C.lowest_card(in_suit) % 13, 99)
        run = s.run_suit[idx]
        first = run < 0
        if self.config.alternate_leads:
            want_red = np.where(first, False, ~SUIT_IS_RED[np.maximum(run, 0)])
            allowed = held & (SUIT_IS_RED[None, None, :] == want_red[:, None, None])
            low = np.where(allowed, low_rank, 99)
            return allowed & (low == low.min(axis=2, keepdims=True))
        allowed = held & (np.arange(4) != run[:, None, None])
        if self.config.first_lead == "lowest":
            lowest = held & (low_rank == low_rank.min(axis=2, keepdims=True))
            allowed = np.where(first[:, None, None], lowest, allowed)
        return allowed

    def _find_leader(self, s: TripoliState, idx: np.ndarray, designated: np.ndarray) -> None:
        """T22: the designated leader leads if they can, else the first player clockwise who can; else the deal ends
        with every player paying 1 chip per card in hand onto the kitty."""
        if idx.size == 0:
            return
        can = self._lead_suits(s, idx, s.hands[idx, designated][:, None]).any(axis=2)[:, 0]
        leader = designated.copy()
        passes = np.flatnonzero(~can)  # the lead passes clockwise (rare): look at every seat
        if passes.size:
            can_all = self._lead_suits(s, idx[passes], s.hands[idx[passes]]).any(axis=2)
            leader[passes] = first_after(can_all, designated[passes], include_start=True)
        stuck = leader < 0
        s.current_player[idx[~stuck]] = leader[~stuck]
        st = idx[stuck]
        if st.size:
            left = C.popcount(s.hands[st])
            s.balance[st] -= left
            s.layout[st, SPACE_KITTY] += left.sum(axis=1)
            self._end_deal(s, st)

    def _act_lead(self, s: TripoliState, idx: np.ndarray, a: np.ndarray) -> None:
        p = s.current_player[idx]
        card = C.lowest_card(s.hands[idx, p] & C.SUIT_MASKS[a - self.actions.lead])
        s.run_start[idx] = card
        self._play_run(s, idx, card)

    def _act_run(self, s: TripoliState, idx: np.ndarray, a: np.ndarray) -> None:
        self._play_run(s, idx, s.last_card[idx] + 1)

    def _play_run(self, s: TripoliState, idx: np.ndarray, first: np.ndarray) -> None:
        """Play ``first`` (held by someone) and, with ``auto_forced``, the whole forced run after it (T21) in one go:
        the run is the chain of consecutive cards of the suit that are in players' hands. It stops early the
        moment a player plays their last card (T23). Pay spaces (T25) are paid for the cards played."""
        if idx.size == 0:
            return
        hands = s.hands[idx]
        first_u = first.astype(np.uint64)
        if self.config.auto_forced:
            chain = np.bitwise_or.reduce(hands, axis=1) >> first_u
            length = C.popcount(chain & ~(chain + C.ONE))  # trailing ones: the consecutive held cards
            length = np.minimum(length, RANK_ACE - first % 13 + 1)
        else:
            length = np.ones_like(first)
        run = ((C.ONE << length.astype(np.uint64)) - C.ONE) << first_u
        # T23: the first player (in run order) whose whole hand lies in the run goes out at their last run card.
        held = hands & run[:, None]
        goes_out = (held != 0) & ((hands & ~run[:, None]) == 0)
        last_of = C.highest_card(held)  # each seat's last card in the run
        out_card = np.where(goes_out, last_of, 99).min(axis=1)
        out = out_card < 99
        run = np.where(out, ((C.ONE << (out_card - first + 1).astype(np.uint64)) - C.ONE) << first_u, run)
        held = hands & run[:, None]
        if self.config.auto_forced:  # C8: every card after the first is a forced "continue run" of its holder
            for k in range(1, int(C.popcount(run).max(initial=0))):
                card = first + k
                more = ((run >> np.minimum(card, 63).astype(np.uint64)) & C.ONE) == 1
                more &= card < 52
                report_forced(s, idx[more], holder(held[more], card[more]), self.actions.continue_run, card[more])
        s.hands[idx] = hands & ~run[:, None]
        s.played_by[idx] |= held
        s.played[idx] |= run
        last = np.where(out, out_card, first + C.popcount(run) - 1)
        last_player = holder(held, last)
        s.last_card[idx] = last
        s.last_player[idx] = last_player
        s.run_suit[idx] = first // 13
        if self.config.pays_in_play:
            self._pay_in_play(s, idx, run)
        self._go_out(s, idx[out], last_player[out])
        idx, last, last_player = idx[~out], last[~out], last_player[~out]
        nxt = np.where(last % 13 < RANK_ACE, last + 1, 64)
        who = holder(s.hands[idx], nxt)
        runs = who >= 0  # only without auto_forced: the next card is asked for (C8)
        s.phase[idx[runs]] = P_RUN
        s.current_player[idx[runs]] = who[runs]
        stop = idx[~runs]
        s.phase[stop] = P_LEAD
        self._find_leader(s, stop, last_player[~runs])

    def _pay_in_play(self, s: TripoliState, idx: np.ndarray, run: np.ndarray) -> None:
        """T25 for the cards ``run`` just played: a pay card's space goes to whoever played it; K-Q and the sequence
        go to a player who played all their cards consecutively within the current run (which starts at
        ``run_start``; runs hold consecutive cards, so "consecutive" means "all in this run")."""
        pay, start = s.pay_suit[idx], s.run_start[idx]
        by = s.played_by[idx]
        for space, rank in enumerate(PAY_RANKS):
            card = pay * 13 + rank
            won = (run >> card.astype(np.uint64)) & C.ONE == 1
            self._take_space(s, idx[won], holder(by[won], card[won]), space)
        king = pay * 13 + RANK_KING
        kq = C.ONE << king.astype(np.uint64) | C.ONE << (king - 1).astype(np.uint64)
        won = ((run >> king.astype(np.uint64)) & C.ONE == 1) & (king - 1 >= start)
        owner = np.where(((by & kq[:, None]) == kq[:, None]).any(axis=1), holder(by, king), -1)
        won &= owner >= 0
        self._take_space(s, idx[won], owner[won], SPACE_KQ)
        top = s.run_suit[idx] * 13 + s.seq_rank[idx] + 2
        seq = (C.ONE << (top - 2).astype(np.uint64)) * np.uint64(7)
        won = ((run >> top.astype(np.uint64)) & C.ONE == 1) & (top - 2 >= start)
        owner = np.where(((by & seq[:, None]) == seq[:, None]).any(axis=1), holder(by, top), -1)
        won &= owner >= 0
        self._take_space(s, idx[won], owner[won], SPACE_SEQUENCE)

    @staticmethod
    def _take_space(s: TripoliState, idx: np.ndarray, seat: np.ndarray, space: int) -> None:
        s.balance[idx, seat] += s.layout[idx, space]
        s.layout[idx, space] = 0

    def _go_out(self, s: TripoliState, idx: np.ndarray, p: np.ndarray) -> None:
        """T23: the player out takes the kitty and 1 chip per card left in every other hand (T30 Cosmo: the pot
        space goes with the kitty)."""
        if idx.size == 0:
            return
        left = C.popcount(s.hands[idx])
        s.balance[idx] -= left
        s.balance[idx, p] += left.sum(axis=1) + s.layout[idx, SPACE_KITTY]
        s.layout[idx, SPACE_KITTY] = 0
        if self.config.cosmo:
            s.balance[idx, p] += s.layout[idx, SPACE_POT]
            s.layout[idx, SPACE_POT] = 0
        self._end_deal(s, idx)

