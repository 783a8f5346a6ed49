"""Tripoli's poker stage: betting (T13–T15), showdown and pot (T16, T17) and the final poker round (T28).
A mixin of :class:`TripoliGame`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from envs.core import cards as C
from envs.core.poker import mask_rank
from envs.tripoli.actions import TripoliActions
from envs.tripoli.config import TripoliConfig
from envs.tripoli.seats import first_after
from envs.tripoli.state import (
    P_BET,
    SPACE_POT,
    U0,
    TripoliState,
)


class PokerStage:
    """Betting rules over a subset ``idx`` of the batch."""

    num_players: int
    config: TripoliConfig
    actions: TripoliActions
    _opener: Callable[[TripoliState, np.ndarray], np.ndarray]  # DealStage
    _clear_auction: Callable[[TripoliState, np.ndarray], None]  # DealStage
    _deck: Callable[[TripoliState, np.ndarray], np.ndarray]  # DealStage
    _start_michigan: Callable[[TripoliState, np.ndarray], None]  # MichiganStage
    _end_deal: Callable[[TripoliState, np.ndarray], None]  # TripoliGame

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
        s.current_player[g] = first_after(~s.folded[g], p[going])
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
        # T28: a final round is for its pot and the bets of the round (the other pots wait on the pot space)
        total = np.where(final, s.final_pot[idx] + s.round_bet[idx].sum(axis=1), s.layout[idx, SPACE_POT])
        share = total // w
        s.balance[idx] += winners * share[:, None]
        # T28: the final round's remainder goes one chip at a time to the tied winners from the dealer's left;
        # T16: a poker pot's remainder stays on the pot space.
        rest = np.where(final, total - share * w, 0)
        extra = np.zeros_like(winners)
        np.put_along_axis(extra, order, wins_in_order & (np.cumsum(wins_in_order, axis=1) <= rest[:, None]), axis=1)
        s.balance[idx] += extra
        s.layout[idx, SPACE_POT] -= np.where(final, total, share * w)
        s.final_pot[idx[final]] = 0
        self._end_deal(s, idx[final])
        self._start_michigan(s, idx[~final])

    def _start_final(self, s: TripoliState, idx: np.ndarray) -> None:
        """T28 final poker round for the next pot of ``final_left``: no ante, fresh deck (the deck of deal number
        ``num_deals + k`` for the k-th final round), five cards each, no spare, no selection."""
        if idx.size == 0:
            return
        n = self.num_players
        s.final[idx] = True
        s.final_pot[idx] = s.final_left[idx, 0]
        s.final_left[idx, :-1] = s.final_left[idx, 1:]
        s.final_left[idx, -1] = 0
        s.deal[idx] += 1
        s.dealer[idx] = (s.dealer[idx] + 1) % n
        deck = self._deck(s, idx)[:, : 5 * n].astype(np.uint64)
        bits = (C.ONE << deck).reshape(idx.size, 5, n)
        hands = np.bitwise_or.reduce(bits, axis=1)
        seats = (s.dealer[idx, None] + 1 + np.arange(n)) % n
        h = np.empty((idx.size, n), np.uint64)
        np.put_along_axis(h, seats, hands, axis=1)
        s.hands[idx] = h
        s.selected[idx] = h
        for name in ("spare", "dead", "dead_shown", "played"):
            getattr(s, name)[idx] = U0
        self._clear_auction(s, idx)
        s.known[idx] = U0
        s.shown[idx] = U0
        s.played_by[idx] = U0
        s.poker_winner[idx] = -1
        s.run_suit[idx] = -1
        s.last_card[idx] = -1
        s.last_player[idx] = -1
        self._start_betting(s, idx)

