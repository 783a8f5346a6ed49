"""Tripoli before the betting: ante and deal (T4, T5), the spare hand and its auction (T6–T9), the pay-suit auction
(T26), pay cards on the deal (T10) and the selection of poker hands (T12). A mixin of :class:`TripoliGame`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from envs.core import cards as C
from envs.core.poker import best_five
from envs.core.rng import STREAM_BOARD, shuffled_decks, uniform_ints
from envs.tripoli.actions import AUCTION, KEEP, PASS, SWAP, TripoliActions
from envs.tripoli.config import TripoliConfig
from envs.tripoli.seats import first_after
from envs.tripoli.state import (
    NUM_SPACES,
    P_AUCTION,
    P_NAME_SUIT,
    P_SELECT,
    P_SPARE,
    P_SUIT_AUCTION,
    PAY_RANKS,
    RANK_KING,
    RANK_QUEEN,
    SPACE_KITTY,
    SPACE_SEQUENCE,
    U0,
    TripoliState,
)

HEART_PAY_MASKS = np.array(
    [C.mask_of([C.HEARTS * 13 + r]) for r in PAY_RANKS]
    + [C.mask_of([C.HEARTS * 13 + RANK_KING, C.HEARTS * 13 + RANK_QUEEN])],
    dtype=np.uint64,
)
"""T10: the cards that win layout spaces 0–5 on the deal (A, K, Q, J, 10 of hearts; K and Q of hearts together)."""


class DealStage:
    """Deal-stage rules over a subset ``idx`` of the batch."""

    num_players: int
    config: TripoliConfig
    actions: TripoliActions
    _start_betting: Callable[[TripoliState, np.ndarray], None]  # PokerStage
    _start_michigan: Callable[[TripoliState, np.ndarray], None]  # MichiganStage

    # ================================================================== deal
    def _start_deal(self, s: TripoliState, idx: np.ndarray) -> None:
        """T4 ante and T5 deal, then the spare-hand phase."""
        if idx.size == 0:
            return
        n = self.num_players
        s.balance[idx] -= NUM_SPACES
        s.layout[idx] += n
        deck = self._deck(s, idx)
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
        for name in ("dead", "dead_shown", "played"):
            getattr(s, name)[idx] = U0
        s.known[idx] = U0
        s.selected[idx] = U0
        s.shown[idx] = U0
        self._clear_auction(s, idx)
        if self.config.cosmo:  # T30: the board's windows are drawn for each deal, known to all
            s.pay_suit[idx] = uniform_ints(s.seeds[idx], STREAM_BOARD, 2 * s.deal[idx], 4)
            s.seq_rank[idx] = uniform_ints(s.seeds[idx], STREAM_BOARD, 2 * s.deal[idx] + 1, 11)
        else:
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
        if not self.config.spare_phase:
            self._after_spare(s, idx)
        else:
            s.phase[idx] = P_SPARE
            s.current_player[idx] = s.dealer[idx]

    @staticmethod
    def _deck(s: TripoliState, idx: np.ndarray) -> np.ndarray:
        """The ``(k, 52)`` decks of deal number ``s.deal`` at tables ``idx``: a stacked one where ``init`` was given
        one for that deal, else shuffled from the table's seed (C7)."""
        deck = shuffled_decks(s.seeds[idx], s.deal[idx], 52).astype(np.int64)
        k = np.minimum(s.deal[idx], s.decks.shape[1] - 1)
        stacked = (s.deal[idx] < s.decks.shape[1]) & (s.decks[idx, k, 0] >= 0)
        deck[stacked] = s.decks[idx[stacked], k[stacked]]
        return deck

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

    @staticmethod
    def _clear_auction(s: TripoliState, idx: np.ndarray) -> None:
        """A new deal has had no auction yet: no passes, no high bid (T7; the observation's auction fields)."""
        s.high_bid[idx] = 0
        s.high_bidder[idx] = -1
        s.passed[idx] = False

    def _start_auction(self, s: TripoliState, idx: np.ndarray, phase: int) -> None:
        """T7 (spare hand: the dealer does not bid, bidding starts left of the dealer) or T26 (the dealer starts)."""
        if idx.size == 0:
            return
        s.phase[idx] = phase
        self._clear_auction(s, idx)
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
            s.current_player[g] = first_after(~s.passed[g], s.current_player[g])
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
            if self.config.dead_hand == "shown":  # T7: discarded face up, seen by every player
                s.dead_shown[won] |= old
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
        if self.config.cosmo:  # T30: no poker stage; the player left of the dealer leads
            self._start_michigan(s, idx)
        elif self.config.pay_suit == "auction":
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
        # Spaces 0–5: a holder of the pay card (or of both K and Q of hearts) takes the space's chips.
        held = (hands[:, :, None] & HEART_PAY_MASKS) == HEART_PAY_MASKS  # (k, n, 6): at most one holder per space
        s.balance[idx] += (held * s.layout[idx, None, :SPACE_SEQUENCE]).sum(axis=2)
        s.layout[idx, :SPACE_SEQUENCE] *= ~held.any(axis=1)
        low = (np.arange(4) * 13 + s.seq_rank[idx, None]).astype(np.uint64)  # (k, 4) lowest card of each suit's run
        seq = np.uint64(7) << low
        qualifies = ((hands[:, :, None] & seq[:, None, :]) == seq[:, None, :]).any(axis=2)
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

