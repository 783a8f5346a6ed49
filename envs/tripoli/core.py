"""Tripoli rules over a batch of tables (shared/rules/tripoli.md T1–T29, common.md C1–C13).

The engine follows the rules file; the points it leaves to an engine are fixed here (and tested):

- T6: after ``swap`` the dealer may ``keep`` or ``auction`` the old hand; after an auction without a bid the dealer
  chooses ``keep`` or ``swap`` — unless they had swapped already, in which case the phase is over.
- T12: a player whose unselected cards are exactly as many as the cards still to select has no choice left: the
  engine completes the selection (this is not counted as a decision even with ``auto_forced=False``).
- T20/T22: with ``first_lead='lowest'`` or ``lead_colours='alternate'``, a lead is the choice of a suit whose
  lowest card has the lowest rank among the allowed cards; a leader without an allowed card passes the lead
  clockwise; if nobody has one the deal ends as in T22.
- T25: the card that goes out still collects its pay space before the deal ends.
- T28: the dealer moves left once more for the final poker round.

Each step applies one decision per table, then resolves what follows without a decision (ante, deal, pay cards,
showdown, Michigan runs, passed leads, the next deal) and every forced decision (C8) until each table waits on a
real decision. See :mod:`envs.tripoli_v0` for the observation table and :mod:`envs.tripoli.actions` for actions.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from envs.core import cards as C
from envs.core.game import BatchedGame
from envs.core.poker import best_five, mask_rank
from envs.core.rng import STREAM_DEALER, shuffled_decks, uniform_ints
from envs.tripoli import observation as obs_mod
from envs.tripoli import render as render_mod
from envs.tripoli.actions import AUCTION, KEEP, PASS, SWAP, TripoliActions
from envs.tripoli.config import TripoliConfig
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
    SPACE_KITTY,
    SPACE_KQ,
    SPACE_POT,
    SPACE_SEQUENCE,
    TripoliState,
)

U0 = np.uint64(0)
RANK_TEN, RANK_JACK, RANK_QUEEN, RANK_KING, RANK_ACE = 8, 9, 10, 11, 12
PAY_RANKS = (RANK_ACE, RANK_KING, RANK_QUEEN, RANK_JACK, RANK_TEN)
"""Rank of the pay card of layout spaces 0–4 (A, K, Q, J, 10)."""
SUIT_COLOUR_RED = np.array([False, True, True, False])


def _first_after(flags: np.ndarray, start: np.ndarray, include_start: bool = False) -> np.ndarray:
    """For each row, the first seat clockwise after ``start`` (or from it) whose flag is set; -1 if none."""
    k, n = flags.shape
    rows = np.arange(k)
    order = (start[:, None] + (0 if include_start else 1) + np.arange(n)) % n
    picked = flags[rows[:, None], order]
    first = picked.argmax(axis=1)
    return np.where(picked[rows, first], order[rows, first], -1)


def _holder(hands: np.ndarray, card: np.ndarray) -> np.ndarray:
    """Seat holding ``card`` (a card id per row, 64 or more meaning none) in ``hands`` (k, n); -1 if nobody."""
    bit = np.where(card < 52, C.ONE << np.minimum(card, 63).astype(np.uint64), U0)
    has = (hands & bit[:, None]) != 0
    return np.where(has.any(axis=1), has.argmax(axis=1), -1)


class TripoliGame(BatchedGame[TripoliState]):
    """Batched Tripoli core: ``TripoliGame(num_players=4, **options)`` with options of :class:`TripoliConfig`."""

    name: ClassVar[str] = "tripoli"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 9
    config_class: ClassVar[type] = TripoliConfig

    def __init__(self, num_players: int = 4, **options) -> None:
        super().__init__(num_players, **options)
        self.config: TripoliConfig
        self.actions = TripoliActions(self.config.max_bid, self.config.bet_limit)
        self._seq_rank = self.config.sequence_start - 2  # rank id of the sequence's lowest card (T27)
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

    def action_name(self, action: int) -> str:
        return self.actions.name(int(action))

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
            dealer=(dealers.copy() if dealers is not None else uniform_ints(seeds, STREAM_DEALER, 0, n)),
            balance=zn.copy(),
            layout=np.zeros((b, NUM_SPACES), np.int64),
            hands=np.zeros((b, n), np.uint64),
            spare=np.zeros(b, np.uint64),
            dead=np.zeros(b, np.uint64),
            played=np.zeros(b, np.uint64),
            known=np.zeros((b, n), np.uint64),
            pay_suit=z + C.HEARTS,
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
            decks=(decks.astype(np.int16) if decks is not None else np.full((b, 52), -1, np.int16)),
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
            if not forced.any():
                return
            pending = pending[forced]
            self._apply(s, pending, mask[forced].argmax(axis=1))

    # ================================================================== deal
    def _start_deal(self, s: TripoliState, idx: np.ndarray) -> None:
        """T4 ante and T5 deal, then the spare-hand phase."""
        if idx.size == 0:
            return
        n = self.num_players
        s.balance[idx] -= NUM_SPACES
        s.layout[idx] += n
        deck = shuffled_decks(s.seeds[idx], s.deal[idx], 52).astype(np.int64)
        stacked = (s.deal[idx] == 0) & (s.decks[idx, 0] >= 0)
        deck[stacked] = s.decks[idx[stacked]]
        hand_of_pos = np.arange(52) % (n + 1)  # 0..n-1: seat dealer+1+j, n: spare
        bits = C.ONE << deck.astype(np.uint64)
        hands = np.zeros((idx.size, n + 1), np.uint64)
        for j in range(n + 1):  # bounded loop over the n+1 hands, vectorised over tables and cards
            hands[:, j] = np.bitwise_or.reduce(bits[:, hand_of_pos == j], axis=1)
        seats = (s.dealer[idx, None] + 1 + np.arange(n)) % n
        h = np.empty((idx.size, n), np.uint64)
        np.put_along_axis(h, seats, hands[:, :n], axis=1)
        s.hands[idx] = h
        s.spare[idx] = hands[:, n]
        for name in ("dead", "played"):
            getattr(s, name)[idx] = U0
        s.known[idx] = U0
        s.selected[idx] = U0
        s.shown[idx] = U0
        s.pay_suit[idx] = C.HEARTS
        s.swapped[idx] = False
        s.auctioned[idx] = False
        s.poker_winner[idx] = -1
        s.run_suit[idx] = -1
        s.last_card[idx] = -1
        s.last_player[idx] = -1
        s.run_start[idx] = -1
        s.played_by[idx] = U0
        s.folded[idx] = False
        s.round_bet[idx] = 0
        s.high_bet[idx] = 0
        if self.config.spare_hand == "none":
            self._after_spare(s, idx)
        else:
            s.phase[idx] = P_SPARE
            s.current_player[idx] = s.dealer[idx]

    # ================================================================== spare hand (T6–T8)
    def _act_spare(self, s: TripoliState, idx: np.ndarray, a: np.ndarray) -> None:
        keep, swap, auction = idx[a == KEEP], idx[a == SWAP], idx[a == AUCTION]
        if swap.size:
            d = s.dealer[swap]
            old = s.hands[swap, d].copy()
            s.hands[swap, d] = s.spare[swap]
            s.spare[swap] = old
            s.known[swap, d] |= old
            s.swapped[swap] = True
            done = (self.config.spare_hand == "swap_only") | s.auctioned[swap]
            keep = np.concatenate([keep, swap[done]])
        if auction.size:
            self._start_auction(s, auction, P_AUCTION)
        if keep.size:
            self._after_spare(s, keep)

    def _start_auction(self, s: TripoliState, idx: np.ndarray, phase: int) -> None:
        """T7 (spare hand: the dealer does not bid, bidding starts left of the dealer) or T26 (the dealer starts)."""
        if idx.size == 0:
            return
        s.phase[idx] = phase
        s.high_bid[idx] = 0
        s.high_bidder[idx] = -1
        s.passed[idx] = False
        d = s.dealer[idx]
        if phase == P_AUCTION:
            s.passed[idx, d] = True
            s.current_player[idx] = (d + 1) % self.num_players
        else:
            s.current_player[idx] = d

    def _act_auction(self, s: TripoliState, idx: np.ndarray, a: np.ndarray) -> None:
        p = s.current_player[idx]
        is_pass = a == PASS
        s.passed[idx[is_pass], p[is_pass]] = True
        bid = ~is_pass
        s.high_bid[idx[bid]] = a[bid] - self.actions.bid + 1
        s.high_bidder[idx[bid]] = p[bid]
        active = ~s.passed[idx]
        count = active.sum(axis=1)
        won = (s.high_bid[idx] > 0) & (count == 1)
        nobid = count == 0
        going = ~(won | nobid)
        if going.any():
            g = idx[going]
            s.current_player[g] = _first_after(~s.passed[g], s.current_player[g])
        spare = s.phase[idx] == P_AUCTION
        self._spare_auction_end(s, idx[spare & won], idx[spare & nobid])
        self._suit_auction_end(s, idx[~spare & won], idx[~spare & nobid])

    def _spare_auction_end(self, s: TripoliState, won: np.ndarray, nobid: np.ndarray) -> None:
        if won.size:
            w, d, bid = s.high_bidder[won], s.dealer[won], s.high_bid[won]
            s.balance[won, w] -= bid
            s.balance[won, d] += bid
            old = s.hands[won, w].copy()
            s.hands[won, w] = s.spare[won]
            s.spare[won] = U0
            s.dead[won] |= old
            s.known[won, w] |= old
            s.auctioned[won] = True
            self._after_spare(s, won)
        if nobid.size:
            s.auctioned[nobid] = True
            again = ~s.swapped[nobid]
            s.phase[nobid[again]] = P_SPARE
            s.current_player[nobid[again]] = s.dealer[nobid[again]]
            self._after_spare(s, nobid[~again])

    def _after_spare(self, s: TripoliState, idx: np.ndarray) -> None:
        if idx.size == 0:
            return
        if self.config.pay_suit == "auction":
            self._start_auction(s, idx, P_SUIT_AUCTION)
        else:
            self._start_poker(s, idx)

    # ================================================================== pay suit (T26)
    def _suit_auction_end(self, s: TripoliState, won: np.ndarray, nobid: np.ndarray) -> None:
        if won.size:
            w = s.high_bidder[won]
            s.balance[won, w] -= s.high_bid[won]
            s.layout[won, SPACE_KITTY] += s.high_bid[won]
            s.phase[won] = P_NAME_SUIT
            s.current_player[won] = w
        if nobid.size:
            self._start_poker(s, nobid)

    def _act_name_suit(self, s: TripoliState, idx: np.ndarray, a: np.ndarray) -> None:
        s.pay_suit[idx] = a - self.actions.name_suit
        self._start_poker(s, idx)

    # ================================================================== stage 1 and selection (T10, T12)
    def _start_poker(self, s: TripoliState, idx: np.ndarray) -> None:
        if idx.size == 0:
            return
        if not self.config.pays_in_play:
            self._pay_on_deal(s, idx)
        if self.config.poker_select == "best":
            s.selected[idx] = best_five(s.hands[idx])
            self._start_betting(s, idx)
        else:
            s.phase[idx] = P_SELECT
            s.current_player[idx] = self._opener(s, idx)
            self._advance_selection(s, idx)

    def _pay_on_deal(self, s: TripoliState, idx: np.ndarray) -> None:
        """T10: pay cards of hearts, king-queen and the sequence, on the hands as they are after the spare phase."""
        if idx.size == 0:
            return
        hands = s.hands[idx]
        for space, rank in enumerate(PAY_RANKS):
            holder = _holder(hands, np.full(idx.size, C.HEARTS * 13 + rank))
            got = holder >= 0
            s.balance[idx[got], holder[got]] += s.layout[idx[got], space]
            s.layout[idx[got], space] = 0
        kq = C.mask_of([C.HEARTS * 13 + RANK_KING, C.HEARTS * 13 + RANK_QUEEN])
        has_kq = (hands & kq) == kq
        holder = np.where(has_kq.any(axis=1), has_kq.argmax(axis=1), -1)
        got = holder >= 0
        s.balance[idx[got], holder[got]] += s.layout[idx[got], SPACE_KQ]
        s.layout[idx[got], SPACE_KQ] = 0
        seq = np.array([C.mask_of([13 * st + self._seq_rank + i for i in range(3)]) for st in range(4)], np.uint64)
        qualifies = ((hands[:, :, None] & seq) == seq).any(axis=2)
        q = qualifies.sum(axis=1)
        share = np.where(q > 0, s.layout[idx, SPACE_SEQUENCE] // np.maximum(q, 1), 0)
        s.balance[idx] += qualifies * share[:, None]
        s.layout[idx, SPACE_SEQUENCE] -= share * q

    def _opener(self, s: TripoliState, idx: np.ndarray) -> np.ndarray:
        """T13: left of the dealer, or the dealer."""
        d = s.dealer[idx]
        return d if self.config.poker_opener == "dealer" else (d + 1) % self.num_players

    def _act_select(self, s: TripoliState, idx: np.ndarray, a: np.ndarray) -> None:
        p = s.current_player[idx]
        s.selected[idx, p] |= C.ONE << (a - self.actions.select).astype(np.uint64)
        self._advance_selection(s, idx)

    def _advance_selection(self, s: TripoliState, idx: np.ndarray) -> None:
        """Move to the next selector once a player has five cards; complete selections that leave no choice."""
        todo = idx
        for _ in range(self.num_players + 1):
            p = s.current_player[todo]
            sel, hand = s.selected[todo, p], s.hands[todo, p]
            need = 5 - C.popcount(sel)
            no_choice = (need > 0) & (C.popcount(hand & ~sel) == need)
            s.selected[todo[no_choice], p[no_choice]] = hand[no_choice]
            finished = (need == 0) | no_choice
            if not finished.any():
                return
            todo = todo[finished]
            nxt = (s.current_player[todo] + 1) % self.num_players
            all_done = nxt == self._opener(s, todo)
            self._start_betting(s, todo[all_done])
            todo = todo[~all_done]
            s.current_player[todo] = nxt[~all_done]

    # ================================================================== betting (T14–T17, T28)
    def _start_betting(self, s: TripoliState, idx: np.ndarray) -> None:
        if idx.size == 0:
            return
        s.phase[idx] = P_BET
        s.folded[idx] = False
        s.round_bet[idx] = 0
        s.high_bet[idx] = 0
        s.raises[idx] = 0
        s.acted[idx] = False
        s.current_player[idx] = self._opener(s, idx)

    def _act_bet(self, s: TripoliState, idx: np.ndarray, a: np.ndarray) -> None:
        A = self.actions
        p = s.current_player[idx]
        owed = s.high_bet[idx] - s.round_bet[idx, p]
        is_bet = (a >= A.bet) & (a < A.raise_)
        is_raise = (a >= A.raise_) & (a < A.lead)
        put = np.where(a == A.call, owed, 0)
        put = np.where(is_bet, a - A.bet + 1, put)
        put = np.where(is_raise, owed + a - A.raise_ + 1, put)
        s.balance[idx, p] -= put
        s.layout[idx, SPACE_POT] += put
        s.round_bet[idx, p] += put
        s.high_bet[idx] = np.maximum(s.high_bet[idx], s.round_bet[idx, p])
        s.raises[idx] += is_raise
        s.folded[idx[a == A.fold], p[a == A.fold]] = True
        aggressive = is_bet | is_raise
        s.acted[idx[aggressive]] = False
        s.acted[idx, p] = True
        live = ~s.folded[idx]
        one_left = live.sum(axis=1) == 1
        settled = (s.acted[idx] | ~live).all(axis=1) & (
            (s.round_bet[idx] == s.high_bet[idx, None]) | ~live
        ).all(axis=1)
        going = ~one_left & ~settled
        g = idx[going]
        s.current_player[g] = _first_after(~s.folded[g], p[going])
        w = idx[one_left]
        self._award(s, w, live[one_left])
        self._award(s, idx[settled & ~one_left], None)

    def _award(self, s: TripoliState, idx: np.ndarray, winners: np.ndarray | None) -> None:
        """T15/T16 (or the final round, T28): pay the pot (or the whole layout) to the winner(s)."""
        if idx.size == 0:
            return
        if winners is None:  # showdown: players still in show their five cards
            live = ~s.folded[idx]
            values = np.where(live, mask_rank(s.selected[idx]), -1)
            winners = values == values.max(axis=1, keepdims=True)
            s.shown[idx] = np.where(live, s.selected[idx], U0)
        n, w = self.num_players, winners.sum(axis=1)
        order = (s.dealer[idx, None] + 1 + np.arange(n)) % n  # seats clockwise from the dealer's left
        wins_in_order = np.take_along_axis(winners, order, axis=1)
        s.poker_winner[idx] = order[np.arange(idx.size), wins_in_order.argmax(axis=1)]  # T17
        final = s.final[idx]
        total = np.where(final, s.layout[idx].sum(axis=1), s.layout[idx, SPACE_POT])
        share = total // w
        s.balance[idx] += winners * share[:, None]
        # T28: the final round's remainder goes one chip at a time to the tied winners from the dealer's left;
        # T16: a poker pot's remainder stays on the pot space.
        rest = np.where(final, total - share * w, 0)
        extra = np.zeros_like(winners)
        np.put_along_axis(extra, order, wins_in_order & (np.cumsum(wins_in_order, axis=1) <= rest[:, None]), axis=1)
        s.balance[idx] += extra
        s.layout[idx, SPACE_POT] -= np.where(final, 0, share * w)
        s.layout[idx[final]] = 0
        self._end_deal(s, idx[final])
        self._start_michigan(s, idx[~final])

    # ================================================================== Michigan (T18–T25)
    def _start_michigan(self, s: TripoliState, idx: np.ndarray) -> None:
        if idx.size == 0:
            return
        leader = self.config.michigan_leader
        d = s.dealer[idx]
        first = {"poker_winner": s.poker_winner[idx], "dealer": d, "left_of_dealer": (d + 1) % self.num_players}
        s.phase[idx] = P_LEAD
        self._find_leader(s, idx, first[leader])

    def _lead_suits(self, s: TripoliState, idx: np.ndarray) -> np.ndarray:
        """(k, n, 4) bool: the suits each seat could lead now (T20, T22)."""
        hands = s.hands[idx]
        in_suit = hands[:, :, None] & C.SUIT_MASKS
        held = in_suit != 0
        low_rank = np.where(held, C.lowest_card(in_suit) % 13, 99)
        run = s.run_suit[idx]
        first = run < 0
        if self.config.lead_colours == "alternate":
            want_red = np.where(first, False, ~SUIT_COLOUR_RED[np.maximum(run, 0)])
            allowed = held & (SUIT_COLOUR_RED[None, None, :] == want_red[:, None, None])
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
        can = self._lead_suits(s, idx).any(axis=2)
        leader = _first_after(can, designated, include_start=True)
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
        s.hands[idx] = hands & ~run[:, None]
        s.played_by[idx] |= held
        s.played[idx] |= run
        last = np.where(out, out_card, first + C.popcount(run) - 1)
        last_player = _holder(held, last)
        s.last_card[idx] = last
        s.last_player[idx] = last_player
        s.run_suit[idx] = first // 13
        if self.config.pays_in_play:
            self._pay_in_play(s, idx, run)
        self._go_out(s, idx[out], last_player[out])
        idx, last, last_player = idx[~out], last[~out], last_player[~out]
        nxt = np.where(last % 13 < RANK_ACE, last + 1, 64)
        holder = _holder(s.hands[idx], nxt)
        runs = holder >= 0  # only without auto_forced: the next card is asked for (C8)
        s.phase[idx[runs]] = P_RUN
        s.current_player[idx[runs]] = holder[runs]
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
            self._take_space(s, idx[won], _holder(by[won], card[won]), space)
        king = pay * 13 + RANK_KING
        kq = C.ONE << king.astype(np.uint64) | C.ONE << (king - 1).astype(np.uint64)
        won = ((run >> king.astype(np.uint64)) & C.ONE == 1) & (king - 1 >= start)
        owner = np.where(((by & kq[:, None]) == kq[:, None]).any(axis=1), _holder(by, king), -1)
        won &= owner >= 0
        self._take_space(s, idx[won], owner[won], SPACE_KQ)
        top = s.run_suit[idx] * 13 + self._seq_rank + 2
        seq = (C.ONE << (top - 2).astype(np.uint64)) * np.uint64(7)
        won = ((run >> top.astype(np.uint64)) & C.ONE == 1) & (top - 2 >= start)
        owner = np.where(((by & seq[:, None]) == seq[:, None]).any(axis=1), _holder(by, top), -1)
        won &= owner >= 0
        self._take_space(s, idx[won], owner[won], SPACE_SEQUENCE)

    @staticmethod
    def _take_space(s: TripoliState, idx: np.ndarray, seat: np.ndarray, space: int) -> None:
        s.balance[idx, seat] += s.layout[idx, space]
        s.layout[idx, space] = 0

    def _go_out(self, s: TripoliState, idx: np.ndarray, p: np.ndarray) -> None:
        """T23: the player out takes the kitty and 1 chip per card left in every other hand."""
        if idx.size == 0:
            return
        left = C.popcount(s.hands[idx])
        s.balance[idx] -= left
        s.balance[idx, p] += left.sum(axis=1) + s.layout[idx, SPACE_KITTY]
        s.layout[idx, SPACE_KITTY] = 0
        self._end_deal(s, idx)

    # ================================================================== episode (T28)
    def _end_deal(self, s: TripoliState, idx: np.ndarray) -> None:
        if idx.size == 0:
            return
        cfg, n = self.config, self.num_players
        more = (s.deal[idx] + 1 < cfg.num_deals) & ~s.final[idx]
        final = (~more) & ~s.final[idx] & (cfg.num_deals > 1) & cfg.final_round
        over = ~(more | final)
        nxt = idx[more]
        s.deal[nxt] += 1
        s.dealer[nxt] = (s.dealer[nxt] + 1) % n
        if nxt.size:
            self._start_deal(s, nxt)
        fin = idx[final]
        if fin.size:
            self._start_final(s, fin)
        done = idx[over]
        s.phase[done] = P_DONE
        s.current_player[done] = -1
        s.terminated[done] = True

    def _start_final(self, s: TripoliState, idx: np.ndarray) -> None:
        """T28 final poker round: no ante, fresh deck, five cards each, no spare, no selection."""
        if idx.size == 0:
            return
        n = self.num_players
        s.final[idx] = True
        s.deal[idx] = self.config.num_deals
        s.dealer[idx] = (s.dealer[idx] + 1) % n
        deck = shuffled_decks(s.seeds[idx], s.deal[idx], 52)[:, : 5 * n].astype(np.uint64)
        bits = (C.ONE << deck).reshape(idx.size, 5, n)
        hands = np.bitwise_or.reduce(bits, axis=1)
        seats = (s.dealer[idx, None] + 1 + np.arange(n)) % n
        h = np.empty((idx.size, n), np.uint64)
        np.put_along_axis(h, seats, hands, axis=1)
        s.hands[idx] = h
        s.selected[idx] = h
        for name in ("spare", "dead", "played"):
            getattr(s, name)[idx] = U0
        s.known[idx] = U0
        s.shown[idx] = U0
        s.played_by[idx] = U0
        s.poker_winner[idx] = -1
        s.run_suit[idx] = -1
        s.last_card[idx] = -1
        s.last_player[idx] = -1
        self._start_betting(s, idx)

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
            suits = self._lead_suits(s, idx[r])
            m[r, A.lead : A.lead + 4] = suits[np.arange(r.size), p[r]]
        if present[P_RUN]:
            m[phase == P_RUN, A.continue_run] = True
        s.legal_action_mask[idx] = m

    # ================================================================== views
    def observe(self, state: TripoliState, seats: np.ndarray | int) -> np.ndarray:
        seats = np.broadcast_to(np.asarray(seats, dtype=np.int64), (state.batch_size,))
        return obs_mod.observe(self, state, seats)

    def render_table(self, state: TripoliState, table: int, viewer: int | None, unicode: bool = True) -> str:
        return render_mod.render(self, state, table, viewer, unicode)
