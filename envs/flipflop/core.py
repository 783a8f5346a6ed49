"""The batched Flip Flop core (docs/flipflop.md, F1–F28).

Every step plays one decision on every live table at once; tables are grouped by what the action does (draw, lay,
lay off, discard) with ``np.flatnonzero`` and each group is one numpy operation per field. Turn passing, showing
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

import numpy as np

from envs.core.cards import popcount
from envs.core.forced import report as report_forced
from envs.core.game import BatchedGame
from envs.core.rng import STREAM_DEALER, shuffled_decks, uniform_ints
from envs.flipflop import observation, render
from envs.flipflop import tables as T
from envs.flipflop.config import FlipFlopConfig
from envs.flipflop.state import (
    CAUGHT,
    CLAIM,
    CUT_OFF,
    DRAW,
    DROP_WON,
    FLIP,
    FLIP_POT,
    FLOP,
    FLOP_POT,
    GAME_POT,
    INSTANT,
    PLAY,
    STOCK_OUT,
    TUNKED,
    WENT_OUT,
    FlipFlopState,
)

U1 = np.uint64(1)
U0 = np.uint64(0)
HAND_SIZE = 5
KIND_STARTS = np.array([T.DROP, T.DRAW_STOCK, T.DRAW_DISCARD, T.DISCARD, T.LAY_RUN, T.LAY_OFF, T.CLAIM])
"""First action id of each kind of action, in the order of ``FlipFlopGame._apply``'s handlers."""


def hand_totals(hands: np.ndarray) -> np.ndarray:
    """F2: the point total of each mask (any shape), one table look-up per suit."""
    suit_bits = np.uint64(0x1FFF)
    return sum(T.SUIT_POINTS[(hands >> np.uint64(13 * k)) & suit_bits] for k in range(4))


def lowest_bit(masks: np.ndarray) -> np.ndarray:
    """Ace-low bit of the lowest card of each mask; 64 where empty."""
    return popcount((masks & (~masks + U1)) - U1)


def next_seat(active: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """The first seat to the left of ``seat`` (C4) among ``active`` (R, n) seats."""
    n = active.shape[1]
    rel = (np.arange(n) - seat[:, None] - 1) % n
    return np.where(active, rel, 2 * n).argmin(axis=1)


class FlipFlopGame(BatchedGame[FlipFlopState]):
    """Flip Flop for 2–7 players over a batch of tables (action and observation tables: ``envs/flipflop_v1.py``)."""

    name = "flipflop"
    min_players = 2
    max_players = 7
    config_class = FlipFlopConfig
    config: FlipFlopConfig

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
        return deals * (cfg.max_turns * (2 + HAND_SIZE) + 1)  # and a 49/50 claim per deal (F7)

    def _observe(self, state: FlipFlopState, seats: np.ndarray, out: np.ndarray) -> None:
        observation.observe(state, seats, out)

    def _render_table(self, state: FlipFlopState, table: int, viewer: int | None, unicode: bool) -> str:
        return render.render(state, table, viewer, unicode)

    # ----- deal ----------------------------------------------------------------------------------------------------
    def _init(self, seeds: np.ndarray, decks: np.ndarray | None, dealers: np.ndarray | None) -> FlipFlopState:
        B, n = len(seeds), self.num_players

        def z(*shape, dtype=np.int64):
            return np.zeros((B, *shape), dtype=dtype)

        start = float(self.config.bankroll) if self.config.session else 0.0
        s = FlipFlopState(
            seeds=seeds, current_player=z(), legal_action_mask=z(T.NUM_ACTIONS, dtype=bool),
            rewards=z(n, dtype=np.float64), terminated=z(dtype=bool), truncated=z(dtype=bool),
            hands=z(n, dtype=np.uint64), deck=z(52), stock_pos=z(), pile=z(52), pile_len=z(),
            runs=z(dtype=np.uint64), sets=z(dtype=np.uint64), set_open=z(dtype=np.uint64),
            spreads=z(n, dtype=np.uint64), taken_by=z(n, dtype=np.uint64), shown=z(dtype=np.uint64), flip_card=z(),
            low_shown=z(2), had_turn=z(n, dtype=bool), side_winner=z(2), sides_paid=z(dtype=bool), phase=z(),
            taken=z(dtype=np.uint64), last_turn=z(dtype=bool), turn_no=z(), spreads3=z(n), other_laid=z(n, dtype=bool),
            bank=np.full((B, n), start), pots=z(3, dtype=np.float64), anted=z(n, 3, dtype=bool),
            in_deal=z(n, dtype=bool), out=z(n, dtype=bool), all_in=z(n, dtype=bool), won_game=z(n, dtype=bool),
            dealer=uniform_ints(seeds, STREAM_DEALER, 0, n) if dealers is None else dealers.astype(np.int64),
            deal_no=z(), last_action=np.full((B, n), -1), end_reason=z(),
            decks=(decks.astype(np.int16) if decks is not None else np.full((B, 1, 52), -1, np.int16)),
        )
        rows = np.arange(B)
        self._start_deals(s, rows)
        self._settle_moves(s, rows)
        s.rewards[:] = (s.bank - start) * self.config.stake
        return s

    def _start_deals(self, s: FlipFlopState, rows: np.ndarray) -> None:
        """Ante (F4, F24), deal (F5–F6), settle 49/50 hands (F7–F8) and begin the first turn at tables ``rows``."""
        if not rows.size:
            return
        n = self.num_players
        R = rows.size
        deck = shuffled_decks(s.seeds[rows], s.deal_no[rows], 52).astype(np.int64)
        k = np.minimum(s.deal_no[rows], s.decks.shape[1] - 1)
        stacked = (s.deal_no[rows] < s.decks.shape[1]) & (s.decks[rows, k, 0] >= 0)  # a deck given to init
        deck[stacked] = s.decks[rows[stacked], k[stacked]]
        deck = T.LOW_OF[deck]
        in_deal = ~s.out[rows]
        # F4, F24: ante with one stake kept in reserve; the game pot only makes a player all in (F25).
        if self.config.session:
            can = np.floor(s.bank[rows] - 1.0 + 1e-9).clip(0, 3).astype(np.int64) * in_deal
        else:
            can = np.where(in_deal, 3, 0)
        anted = can[:, :, None] > np.arange(3)
        s.anted[rows] = anted
        s.bank[rows] -= can
        s.pots[rows] += anted.sum(axis=1)
        s.in_deal[rows] = in_deal
        s.all_in[rows] = can == 1
        # F5: five cards each, one at a time from the dealer's left; the dealer's fifth card is the flip card.
        dealer = s.dealer[rows]
        rel = (np.arange(n) - dealer[:, None] - 1) % n
        order = np.argsort(np.where(in_deal, rel, n + rel), axis=1)
        m = in_deal.sum(axis=1)
        j = np.arange(HAND_SIZE * n)
        seat_j = np.take_along_axis(order, j[None, :] % m[:, None], axis=1)
        bits = np.where(j < HAND_SIZE * m[:, None], T.LOW_BITS[deck[:, : HAND_SIZE * n]], U0)
        hands = np.where(seat_j[:, :, None] == np.arange(n), bits[:, :, None], U0).sum(axis=1, dtype=np.uint64)
        flip = deck[np.arange(R), HAND_SIZE * m - 1]
        s.deck[rows] = deck
        s.hands[rows] = hands
        s.stock_pos[rows] = HAND_SIZE * m
        s.pile_len[rows] = 0
        for field in (s.runs, s.sets, s.set_open, s.taken):
            field[rows] = U0
        s.spreads[rows] = U0
        s.taken_by[rows] = U0
        s.flip_card[rows] = flip
        s.shown[rows] = T.LOW_BITS[flip]
        flip_suit = flip // 13
        s.low_shown[rows, FLIP] = flip % 13
        s.low_shown[rows, FLOP] = 13
        s.had_turn[rows] = False
        s.sides_paid[rows] = False
        s.phase[rows] = DRAW
        s.turn_no[rows] = 0
        s.last_turn[rows] = False
        s.spreads3[rows] = 0
        s.other_laid[rows] = False
        s.won_game[rows] = False
        s.last_action[rows] = -1
        # F9–F11, F24: the flip and flop pots go to the lowest dealt card of their suit among those who anted them.
        for k, suit in ((FLIP, flip_suit), (FLOP, 3 - flip_suit)):
            low = lowest_bit(hands & T.SUIT_LOW[suit][:, None])
            low = np.where(anted[:, :, 1 + k], low, 64)
            s.side_winner[rows, k] = np.where(low.min(axis=1) < 64, low.argmin(axis=1), -1)
        # F7: a dealt 49 or 50 is claimed before anybody plays (``deal``: the first claimant from the dealer's left is
        # asked) or at the claimant's first turn (``first_turn``, in _begin_turns).
        totals = np.where(in_deal, hand_totals(hands), 0)
        claimant = np.take_along_axis((totals == 49) | (totals == 50), order, axis=1) & (np.arange(n) < m[:, None])
        claim = claimant.any(axis=1) & (self.config.declare_49_50 == "deal")
        r7 = rows[claim]
        s.current_player[r7] = order[claim, claimant[claim].argmax(axis=1)]
        s.phase[r7] = CLAIM
        self._begin_turns(s, rows[~claim], order[~claim, 0])

    def _begin_turns(self, s: FlipFlopState, rows: np.ndarray, seats: np.ndarray) -> None:
        """Give the turn to ``seats``; a seat's first turn starts with its show (F12)."""
        s.current_player[rows] = seats
        s.phase[rows] = DRAW
        s.turn_no[rows] += 1
        s.taken[rows] = U0
        first = ~s.had_turn[rows, seats]
        r, p = rows[first], seats[first]
        if not r.size:
            return
        s.had_turn[r, p] = True
        flip_suit = s.flip_card[r] // 13
        for k, suit in ((FLIP, flip_suit), (FLOP, 3 - flip_suit)):
            low = lowest_bit(s.hands[r, p] & T.SUIT_LOW[suit])
            better = (low < 64) & (low - 13 * suit < s.low_shown[r, k])
            rb = r[better]
            s.shown[rb] |= T.LOW_BITS[low[better]]
            s.low_shown[rb, k] = low[better] % 13
        self._pay_sides(s, r[p == s.dealer[r]])
        if self.config.declare_49_50 == "first_turn":  # F7: the claim comes at the start of the first turn
            total = hand_totals(s.hands[r, p])
            s.phase[r[(total == 49) | (total == 50)]] = CLAIM

    def _show_rest(self, s: FlipFlopState, rows: np.ndarray) -> None:
        """F12: when a deal ends before the showing is complete, the players who had no turn yet show at once, in
        order from the dealer's left (each shows a card lower than every card shown before it). Not needed after a
        showdown (F19, F21), where every hand is shown."""
        rows = rows[~s.sides_paid[rows]]
        if not rows.size:
            return
        order = (s.dealer[rows][:, None] + 1 + np.arange(self.num_players)) % self.num_players
        waiting = ~np.take_along_axis(s.had_turn[rows] | ~s.in_deal[rows], order, axis=1)
        hands = np.take_along_axis(s.hands[rows], order, axis=1)
        flip_suit = s.flip_card[rows] // 13
        for k, suit in ((FLIP, flip_suit), (FLOP, 3 - flip_suit)):
            low = lowest_bit(hands & T.SUIT_LOW[suit][:, None])
            rank = np.where(waiting & (low < 64), low - 13 * suit[:, None], 13)
            lowest_before = np.minimum.accumulate(np.column_stack([s.low_shown[rows, k], rank[:, :-1]]), axis=1)
            shows = rank < lowest_before
            s.shown[rows] |= np.where(shows, T.LOW_BITS[np.minimum(low, 51)], U0).sum(axis=1, dtype=np.uint64)
            s.low_shown[rows, k] = np.minimum(s.low_shown[rows, k], rank.min(axis=1))

    def _pay_sides(self, s: FlipFlopState, rows: np.ndarray) -> None:
        """Pay the flip and flop pots once the showing is complete (F9–F12); an unwon pot stays (F10)."""
        rows = rows[~s.sides_paid[rows]]
        s.sides_paid[rows] = True
        for k, pot in ((FLIP, FLIP_POT), (FLOP, FLOP_POT)):
            w = s.side_winner[rows, k]
            r, w = rows[w >= 0], w[w >= 0]
            s.bank[r, w] += s.pots[r, pot]
            s.pots[r, pot] = 0.0

    def _settle_claim(self, s: FlipFlopState, rows: np.ndarray, seats: np.ndarray, acts: np.ndarray) -> None:
        """F7, F8: the claim of a 49 or 50. With ``deal`` every claimant shares the game pot and every player without
        50 pays one extra stake shared by the 50s; with ``first_turn`` the claimant alone takes the game pot and, with
        50, one extra stake from every other player. The claimants show their hands; the deal ends."""
        n = self.num_players
        totals = np.where(s.in_deal[rows], hand_totals(s.hands[rows]), 0)
        if self.config.declare_49_50 == "deal":
            winners = (totals == 49) | (totals == 50)
        else:
            winners = np.arange(n) == seats[:, None]
        fifty = winners & (totals == 50)
        s.shown[rows] |= np.where(winners, s.hands[rows], U0).sum(axis=1, dtype=np.uint64)
        self._share_game_pot(s, rows, winners)
        paid = fifty.any(axis=1)
        r50, fifty, payers = rows[paid], fifty[paid], (s.in_deal[rows] & ~fifty)[paid]
        s.bank[r50] += payers.sum(axis=1, keepdims=True) / fifty.sum(axis=1, keepdims=True) * fifty - payers
        self._show_rest(s, rows)
        self._finish_deals(s, rows, INSTANT)

    def _share_game_pot(self, s: FlipFlopState, rows: np.ndarray, winners: np.ndarray) -> None:
        """The game pot shared equally by ``winners`` (R, n) (F3: amounts are real numbers)."""
        s.bank[rows] += s.pots[rows, GAME_POT][:, None] / winners.sum(axis=1, keepdims=True) * winners
        s.pots[rows, GAME_POT] = 0.0
        s.won_game[rows] = winners

    def _pay_extra(self, s: FlipFlopState, rows: np.ndarray, payers: np.ndarray) -> None:
        """One extra stake from each of ``payers`` (R, n) into the game pot (F19, F20)."""
        s.bank[rows] -= payers
        s.pots[rows, GAME_POT] += payers.sum(axis=1)

    def _finish_deals(self, s: FlipFlopState, rows: np.ndarray, reason: int | np.ndarray) -> None:
        """After the game pot is settled: side pots (F12), eliminations (F25), then the next deal or the end (F23)."""
        if not rows.size:
            return
        s.end_reason[rows] = reason
        self._pay_sides(s, rows)
        cfg = self.config
        s.deal_no[rows] += 1
        if cfg.session:
            s.out[rows] |= s.in_deal[rows] & s.all_in[rows] & ~s.won_game[rows]
            s.out[rows] |= s.bank[rows] < 2.0 - 1e-9  # F25: cannot ante the game pot and keep the reserve
            more = (cfg.until_one_left | (s.deal_no[rows] < cfg.num_deals)) & ((~s.out[rows]).sum(axis=1) >= 2)
        else:
            more = np.zeros(rows.size, dtype=bool)
        end = rows[~more]
        s.terminated[end] = True
        s.current_player[end] = -1
        s.legal_action_mask[end] = False
        cut = more & (s.deal_no[rows] >= cfg.max_deals)  # F28: the session would go on
        self._cut(s, rows[cut])
        nxt = rows[more & ~cut]
        if nxt.size:
            s.dealer[nxt] = next_seat(~s.out[nxt], s.dealer[nxt])
            self._start_deals(s, nxt)

    def _cut(self, s: FlipFlopState, rows: np.ndarray) -> None:
        """F28, C13: truncate the episode at tables ``rows``; nothing is settled, every pot and balance stays."""
        s.truncated[rows] = True
        s.current_player[rows] = -1
        s.legal_action_mask[rows] = False

    # ----- step ----------------------------------------------------------------------------------------------------
    def _step(self, s: FlipFlopState, idx: np.ndarray, actions: np.ndarray) -> None:
        before = s.bank[idx].copy()
        self._apply(s, idx, actions)
        self._settle_moves(s, idx)
        s.rewards[idx] = (s.bank[idx] - before) * self.config.stake

    def _settle_moves(self, s: FlipFlopState, rows: np.ndarray) -> None:
        """Compute the masks of ``rows`` and play forced moves (C8) until each table waits on a choice or is done."""
        while rows.size:
            rows = rows[~(s.terminated[rows] | s.truncated[rows])]
            count = self._masks(s, rows)
            if not self.config.auto_forced:
                return
            rows = rows[(count == 1) & (s.phase[rows] != CLAIM)]  # F7: a claim is always asked
            if rows.size:
                actions = s.legal_action_mask[rows].argmax(axis=1)
                report_forced(s, rows, s.current_player[rows], actions)
                self._apply(s, rows, actions)

    def _apply(self, s: FlipFlopState, rows: np.ndarray, acts: np.ndarray) -> None:
        """Play ``acts`` at tables ``rows``, grouped by kind of action (each group one set of numpy operations)."""
        p = s.current_player[rows]
        s.last_action[rows, p] = acts
        kind = np.searchsorted(KIND_STARTS, acts, side="right") - 1
        for k, play in enumerate(
            (self._settle_drop, self._draw_stock, self._draw_discard, self._discard, self._lay, self._lay_off,
             self._settle_claim)
        ):
            sel = np.flatnonzero(kind == k)
            if sel.size:
                play(s, rows[sel], p[sel], acts[sel])

    def _draw_stock(self, s: FlipFlopState, r: np.ndarray, q: np.ndarray, acts: np.ndarray) -> None:
        """F13: draw the top card of the stock; F21: note when it was the last."""
        s.hands[r, q] |= T.LOW_BITS[s.deck[r, s.stock_pos[r]]]
        s.stock_pos[r] += 1
        s.last_turn[r] = s.stock_pos[r] == 52
        s.phase[r] = PLAY

    def _draw_discard(self, s: FlipFlopState, r: np.ndarray, q: np.ndarray, acts: np.ndarray) -> None:
        """F13: take the top card of the discard pile (public, F27; it may not be discarded this turn)."""
        s.pile_len[r] -= 1
        bit = T.LOW_BITS[s.pile[r, s.pile_len[r]]]
        s.hands[r, q] |= bit
        s.taken[r] = bit
        s.taken_by[r, q] |= bit
        s.phase[r] = PLAY

    def _lay(self, s: FlipFlopState, r: np.ndarray, q: np.ndarray, acts: np.ndarray) -> None:
        """F14: lay a run or a set; F16/F18/F20: an empty hand goes out, a tunk after exactly two spreads of three."""
        i = acts - T.LAY_RUN
        cards = T.SPREAD_CARDS[i]
        s.hands[r, q] &= ~cards
        s.spreads[r, q] |= cards
        s.runs[r] |= np.where(T.IS_RUN[i], cards, U0)
        s.sets[r] |= np.where(T.IS_RUN[i], U0, cards)
        s.set_open[r] |= T.FOURTH_CARD[i]
        s.spreads3[r, q] += T.SPREAD_SIZE[i] == 3
        s.other_laid[r, q] |= T.SPREAD_SIZE[i] != 3
        empty = s.hands[r, q] == 0
        r, q = r[empty], q[empty]
        self._settle_out(s, r, q, (s.spreads3[r, q] == 2) & ~s.other_laid[r, q])

    def _lay_off(self, s: FlipFlopState, r: np.ndarray, q: np.ndarray, acts: np.ndarray) -> None:
        """F15: lay off a card; it joins the spread of whoever laid that spread. F16/F18: an empty hand goes out."""
        j = acts - T.LAY_OFF
        bit = U1 << T.LAYOFF_BIT[j]
        on_set = T.LAYOFF_KIND[j] == T.ON_SET
        target = np.where(on_set, s.sets[r] & T.RANK_LOW[T.LAYOFF_RANK[j]], T.LAYOFF_TARGET[j])
        owner = ((s.spreads[r] & target[:, None]) != 0).argmax(axis=1)
        s.spreads[r, owner] |= bit
        s.hands[r, q] &= ~bit
        s.runs[r] |= np.where(on_set, U0, bit)
        s.sets[r] |= np.where(on_set, bit, U0)
        s.set_open[r] &= ~bit
        s.other_laid[r, q] = True
        empty = s.hands[r, q] == 0
        self._settle_out(s, r[empty], q[empty], np.zeros(empty.sum(), dtype=bool))

    def _discard(self, s: FlipFlopState, r: np.ndarray, q: np.ndarray, acts: np.ndarray) -> None:
        """F13: discard, ending the turn; F18: going out; F21: after the last card of the stock the deal ends; F28: a
        deal that would go on after ``max_turns`` turns is cut off."""
        low = T.LOW_OF[acts - T.DISCARD]
        s.hands[r, q] &= ~T.LOW_BITS[low]
        s.pile[r, s.pile_len[r]] = low
        s.pile_len[r] += 1
        out = s.hands[r, q] == 0
        self._settle_out(s, r[out], q[out], np.zeros(out.sum(), dtype=bool))
        stock = ~out & s.last_turn[r]
        self._settle_showdown(s, r[stock], None)
        nxt = ~out & ~stock
        cut = nxt & (s.turn_no[r] >= self.config.max_turns)
        s.end_reason[r[cut]] = CUT_OFF
        self._cut(s, r[cut])
        nxt &= ~cut
        self._begin_turns(s, r[nxt], next_seat(s.in_deal[r[nxt]], q[nxt]))

    # ----- end of a deal -------------------------------------------------------------------------------------------
    def _settle_out(self, s: FlipFlopState, rows: np.ndarray, seats: np.ndarray, tunk: np.ndarray) -> None:
        """F18: the player who went out takes the game pot; F20: after a tunk every other player pays one stake."""
        if not rows.size:
            return
        winner = np.arange(self.num_players) == seats[:, None]
        self._pay_extra(s, rows[tunk], s.in_deal[rows[tunk]] & ~winner[tunk])
        self._share_game_pot(s, rows, winner)
        self._show_rest(s, rows)
        self._finish_deals(s, rows, np.where(tunk, TUNKED, WENT_OUT))

    def _settle_drop(self, s: FlipFlopState, rows: np.ndarray, seats: np.ndarray, acts: np.ndarray) -> None:
        """F17, F19: a drop; the dropper wins with the strictly lowest total, else pays one stake to the lowest
        opponents."""
        dropper = np.arange(self.num_players) == seats[:, None]
        self._settle_showdown(s, rows, dropper)

    def _settle_showdown(self, s: FlipFlopState, rows: np.ndarray, dropper: np.ndarray | None) -> None:
        """Everybody shows (F19, F21); the lowest total takes the game pot, ties share it."""
        if not rows.size:
            return
        s.shown[rows] |= np.bitwise_or.reduce(s.hands[rows], axis=1)
        totals = np.where(s.in_deal[rows], hand_totals(s.hands[rows]), 10_000)
        if dropper is None:
            self._share_game_pot(s, rows, totals == totals.min(axis=1, keepdims=True))
            self._finish_deals(s, rows, STOCK_OUT)
            return
        others = np.where(dropper, 10_000, totals)
        best = others.min(axis=1, keepdims=True)
        won = (totals < best)[dropper]
        self._pay_extra(s, rows[~won], dropper[~won])
        winners = np.where(won[:, None], dropper, others == best)
        self._share_game_pot(s, rows, winners)
        self._finish_deals(s, rows, np.where(won, DROP_WON, CAUGHT))

    # ----- legal actions -------------------------------------------------------------------------------------------
    def _masks(self, s: FlipFlopState, rows: np.ndarray) -> np.ndarray:
        """Set the legal-action masks of tables ``rows``; return how many actions each has."""
        mask = np.zeros((rows.size, T.NUM_ACTIONS), dtype=bool)
        count = np.full(rows.size, 2)
        claim = s.phase[rows] == CLAIM
        if claim.any():  # F7: the claim is the claimant's one legal action
            mask[claim, T.CLAIM] = True
            count[claim] = 1
            s.legal_action_mask[rows[claim]] = mask[claim]
            rows, mask, count_all, count = rows[~claim], mask[~claim], count, count[~claim]
            count_all[~claim] = self._masks(s, rows) if rows.size else count
            return count_all
        draw = s.phase[rows] == DRAW
        rd = np.flatnonzero(draw)
        mask[rd, T.DROP] = True
        mask[rd, T.DRAW_STOCK] = True
        r = rows[rd]
        has = s.pile_len[r] > 0
        top = s.pile[r[has], s.pile_len[r[has]] - 1]
        mask[rd[has], T.DRAW_DISCARD + T.PUB_OF[top]] = True
        count[rd[has]] = 3
        rp = np.flatnonzero(~draw)
        r = rows[rp]
        hand = s.hands[r, s.current_player[r]]
        taken = s.taken[r]
        discard = hand & ~taken
        bits = np.unpackbits(discard.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
        mask[rp, T.DISCARD : T.LAY_RUN] = bits[:, T.LOW_OF]
        count[rp] = popcount(discard)
        # Spreads and lay-offs only where the hand holds any (most hands hold none).
        patterns = self._spread_patterns(hand)
        fits = self._fits(hand, s.runs[r], s.set_open[r])
        sub = np.flatnonzero(patterns.any(axis=1) | fits.any(axis=1))
        if not sub.size:
            s.legal_action_mask[rows] = mask
            return count
        r, hand, taken, patterns, fits = r[sub], hand[sub], taken[sub], patterns[sub], fits[sub]
        spread_ok = (patterns[:, T.SPREAD_SOURCE] >> T.SPREAD_SHIFT) & U1 != 0
        layoff_ok = (fits[:, T.LAYOFF_KIND] >> T.LAYOFF_BIT) & U1 != 0
        # Keep a turn able to end: never leave only the card just taken from the discard pile, unless it can then be
        # laid off (decision, see the module docstring).
        t = np.flatnonzero(taken & hand)
        if t.size:
            rest, tk = hand[t] & ~taken[t], taken[t]
            run_after = self._fits(tk, s.runs[r[t]] | rest, s.set_open[r[t]]).any(axis=1)
            fourth = np.where(popcount(rest) == 3, T.RANK_LOW[lowest_bit(rest) % 13] & ~rest, U0)
            set_after = self._fits(tk, s.runs[r[t]], (s.set_open[r[t]] & ~rest) | fourth).any(axis=1)
            same = T.SPREAD_CARDS == rest[:, None]
            spread_ok[t] &= ~same | np.where(T.IS_RUN, run_after[:, None], set_after[:, None])
            single = (U1 << T.LAYOFF_BIT) == rest[:, None]
            layoff_ok[t] &= ~single | np.where(T.LAYOFF_KIND == T.ON_SET, set_after[:, None], run_after[:, None])
        rows_sub = rp[sub]
        mask[rows_sub, T.LAY_RUN : T.LAY_OFF] = spread_ok
        mask[rows_sub, T.LAY_OFF : T.CLAIM] = layoff_ok
        count[rows_sub] += spread_ok.sum(axis=1) + layoff_ok.sum(axis=1)
        s.legal_action_mask[rows] = mask
        return count

    @staticmethod
    def _spread_patterns(hand: np.ndarray) -> np.ndarray:
        """(R, 9) uint64: the starts of runs of 3, 4, 5, 6 cards in ``hand`` (ace-low bits), then per ace-low rank
        (13 bits) the sets of three missing ♣, ♦, ♥, ♠ and the sets of four (F14)."""
        out = np.empty((hand.size, 9), dtype=np.uint64)
        run = hand & (hand >> U1)
        for k in range(4):
            run = run & (hand >> np.uint64(k + 2)) & T.RUN_VALID[k]
            out[:, k] = run
        suits = (hand[:, None] >> np.array([0, 13, 26, 39], dtype=np.uint64)) & np.uint64(0x1FFF)
        c, d, h, sp = suits.T
        out[:, 4], out[:, 5], out[:, 6], out[:, 7] = d & h & sp, c & h & sp, c & d & sp, c & d & h
        out[:, 8] = c & d & h & sp
        return out

    @staticmethod
    def _fits(hand: np.ndarray, runs: np.ndarray, set_open: np.ndarray) -> np.ndarray:
        """(R, 3) masks of the cards of ``hand`` that go below a run, above a run, on a set (F15)."""
        below = hand & (runs >> U1) & ~T.KINGS
        above = hand & (runs << U1) & ~T.ACES
        return np.stack([below, above, hand & set_open], axis=1)



