"""Tripoli's rules as compiled per-table kernels (numba), and the batch loops the game class calls.

Each rule function works on one table ``b`` of the state ``s`` (:data:`Tables`, a named tuple of the state's arrays,
batch axis first) and reads like the rules file (rule ids in comments): the deal (T4–T12, T26), the poker stage
(T13–T17, T28) and the Michigan stage (T18–T25, T30). Functions that can end a deal return ``True`` when it is
over, and the caller then runs :func:`end_deal` (which can deal the next one): the kernels never call themselves.
The batch entry points (:func:`init_tables`, :func:`redeal_tables`, :func:`step_tables`, :func:`resume_tables`)
loop over the tables inside compiled code, one call from Python per batch.

Forced moves (C8) are reported into the state's report arrays; a table whose arrays cannot take another forced move
and the run it may start (14 moves) stops with its forced decision pending and is listed in the returned array;
the game widens the arrays and calls :func:`resume_tables` for it.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from envs.core.bits import bit, lowest, popcount
from envs.core.poker import evaluate_one
from envs.core.rng import STREAM_BOARD, STREAM_DEALER, shuffle_into, uniform_int
from envs.tripoli.actions import AUCTION, KEEP, PASS, SWAP
from envs.tripoli.state import (
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
    RANK_ACE,
    RANK_KING,
    RANK_QUEEN,
    SPACE_KITTY,
    SPACE_KQ,
    SPACE_POT,
    SPACE_SEQUENCE,
)

TABLE_FIELDS = (
    "seeds", "current_player", "legal_action_mask", "rewards", "terminated", "truncated", "forced_count",
    "forced_seat", "forced_action", "forced_card", "phase", "deal", "final", "final_pot", "final_left", "dealer",
    "balance", "layout", "hands", "spare", "dead", "dead_shown", "played", "known", "pay_suit", "seq_rank", "swapped",
    "auctioned", "high_bid", "high_bidder", "passed", "selected", "folded", "round_bet", "high_bet", "raises", "acted",
    "shown", "poker_winner", "run_suit", "last_card", "last_player", "run_start", "played_by", "decks",
)
Tables = namedtuple("Tables", TABLE_FIELDS)
"""The state's arrays as the kernels take them (same names as :class:`envs.tripoli.state.TripoliState`)."""
Rules = namedtuple("Rules", (
    "n", "spare_hand", "max_bid", "pays_in_play", "select_best", "opener_is_dealer", "bet_limit", "max_raises",
    "leader", "first_lead_lowest", "alternate", "suit_auction", "seq_rank", "dead_shown", "cosmo", "num_deals",
    "final_round", "final_pots", "auto_forced", "spare_phase", "bid", "name_suit", "select", "check", "call", "fold",
    "bet", "raise_", "lead", "continue_run",
))
"""The configuration as the kernels take it: ``n`` players; ``spare_hand`` 0 full, 1 swap_only, 2 none; ``leader``
(T19, T30) 0 the poker winner, 1 the dealer, 2 left of the dealer; ``final_round`` 0 poker, 1 pots, 2 share, 3 none;
``seq_rank`` the rank id of the sequence's lowest card (T27); then the offsets of the action table."""

SPARE_FULL, SPARE_SWAP_ONLY = 0, 1
LEADER_POKER_WINNER, LEADER_DEALER = 0, 1
FINAL_POKER, FINAL_POTS, FINAL_SHARE = 0, 1, 2
HEARTS = 2
ROOM = 14
"""Report slots a forced move needs free: the move and the at most 12 forced cards of a run it may start."""
U0 = np.uint64(0)
SUIT_BITS = np.uint64(0x1FFF)
SUIT_IS_RED = np.array([False, True, True, False])
PAY_RANKS = np.array([RANK_ACE, RANK_KING, RANK_QUEEN, 9, 8], np.int64)
"""Rank of the pay card of layout spaces 0–4 (A, K, Q, J, 10)."""


@numba.njit(cache=True, inline="always")
def suit_cards(hand, suit):
    return hand & (SUIT_BITS << np.uint64(13 * suit))


@numba.njit(cache=True)
def holder(hands, card):
    """The seat whose mask in ``hands`` (a table's row) holds ``card`` (-1 for nobody or a card id ≥ 52)."""
    if card < 0 or card >= 52:
        return -1
    for p in range(hands.shape[0]):
        if hands[p] & bit(card):
            return p
    return -1


@numba.njit(cache=True)
def report(s, b, seat, action, card):
    """Append one forced move (C8) to table ``b``'s report."""
    k = s.forced_count[b]
    s.forced_seat[b, k] = seat
    s.forced_action[b, k] = action
    s.forced_card[b, k] = card
    s.forced_count[b] = k + 1


# ================================================================== deal (T4, T5)
@numba.njit(cache=True)
def deal_deck(s, b, deck):
    """The deck of deal number ``s.deal[b]``: the stacked one ``init`` was given for it, else shuffled (C7)."""
    d = s.deal[b]
    if d < s.decks.shape[1] and s.decks[b, d, 0] >= 0:
        for i in range(52):
            deck[i] = s.decks[b, d, i]
    else:
        shuffle_into(s.seeds[b], d, deck)


@numba.njit(cache=True)
def clear_auction(s, b):
    """A new deal has had no auction yet: no passes, no high bid (T7; the observation's auction fields)."""
    s.high_bid[b] = 0
    s.high_bidder[b] = -1
    s.passed[b, :] = False


@numba.njit(cache=True)
def start_deal(s, r, b):
    """T4 ante and T5 deal (cards one at a time from the dealer's left, the spare hand last in each round), then
    the spare-hand phase. Returns whether the deal is already over (T22, Cosmo)."""
    n = r.n
    for p in range(n):
        s.balance[b, p] -= NUM_SPACES
    for k in range(NUM_SPACES):
        s.layout[b, k] += n
    deck = np.empty(52, np.int64)
    deal_deck(s, b, deck)
    s.hands[b, :] = U0
    s.spare[b] = U0
    for i in range(52):
        j = i % (n + 1)
        if j == n:
            s.spare[b] |= bit(deck[i])
        else:
            s.hands[b, (s.dealer[b] + 1 + j) % n] |= bit(deck[i])
    s.dead[b] = U0
    s.dead_shown[b] = U0
    s.played[b] = U0
    s.known[b, :] = U0
    s.selected[b, :] = U0
    s.shown[b, :] = U0
    clear_auction(s, b)
    if r.cosmo:  # T30: the board's windows are drawn for each deal, known to all
        s.pay_suit[b] = uniform_int(s.seeds[b], STREAM_BOARD, 2 * s.deal[b], 4)
        s.seq_rank[b] = uniform_int(s.seeds[b], STREAM_BOARD, 2 * s.deal[b] + 1, 11)
    else:
        s.pay_suit[b] = HEARTS
    s.swapped[b] = False
    s.auctioned[b] = False
    s.poker_winner[b] = -1
    s.run_suit[b] = -1
    s.last_card[b] = -1
    s.last_player[b] = -1
    s.run_start[b] = -1
    s.played_by[b, :] = U0
    s.folded[b, :] = False
    s.round_bet[b, :] = 0
    s.high_bet[b] = 0
    if not r.spare_phase:
        return after_spare(s, r, b)
    s.phase[b] = P_SPARE
    s.current_player[b] = s.dealer[b]
    return False


# ================================================================== spare hand (T6–T9)
@numba.njit(cache=True)
def act_spare(s, r, b, a):
    if a == SWAP:
        d = s.dealer[b]
        old = s.hands[b, d]
        s.hands[b, d] = s.spare[b]
        s.spare[b] = old
        s.known[b, d] |= old
        s.swapped[b] = True
        if r.spare_hand == SPARE_SWAP_ONLY or s.auctioned[b]:
            return after_spare(s, r, b)
        return False
    if a == AUCTION:
        start_auction(s, r, b, P_AUCTION)
        return False
    return after_spare(s, r, b)  # KEEP


@numba.njit(cache=True)
def start_auction(s, r, b, phase):
    """T7 (spare hand: the dealer does not bid, bidding starts left of the dealer) or T26 (the dealer starts)."""
    s.phase[b] = phase
    clear_auction(s, b)
    d = s.dealer[b]
    if phase == P_AUCTION:
        s.passed[b, d] = True
        s.current_player[b] = (d + 1) % r.n
    else:
        s.current_player[b] = d


@numba.njit(cache=True)
def act_auction(s, r, b, a):
    n = r.n
    p = s.current_player[b]
    if a == PASS:
        s.passed[b, p] = True
    else:
        s.high_bid[b] = a - r.bid + 1
        s.high_bidder[b] = p
    count = 0
    for q in range(n):
        count += not s.passed[b, q]
    won = s.high_bid[b] > 0 and count == 1
    if not won and count > 0:  # the next bidder still in, clockwise
        for k in range(1, n + 1):
            q = (p + k) % n
            if not s.passed[b, q]:
                s.current_player[b] = q
                break
        return False
    if s.phase[b] == P_AUCTION:
        return spare_auction_end(s, r, b, won)
    return suit_auction_end(s, r, b, won)


@numba.njit(cache=True)
def spare_auction_end(s, r, b, won):
    if won:  # T7: the winner pays the dealer and takes the spare hand; their old hand is dead
        w, d, price = s.high_bidder[b], s.dealer[b], s.high_bid[b]
        s.balance[b, w] -= price
        s.balance[b, d] += price
        old = s.hands[b, w]
        s.hands[b, w] = s.spare[b]
        s.spare[b] = U0
        s.dead[b] |= old
        if r.dead_shown:  # T7: discarded face up, seen by every player
            s.dead_shown[b] |= old
        s.known[b, w] |= old
        s.auctioned[b] = True
        return after_spare(s, r, b)
    s.auctioned[b] = True  # no bid: the dealer decides again, unless they swapped already
    if not s.swapped[b]:
        s.phase[b] = P_SPARE
        s.current_player[b] = s.dealer[b]
        return False
    return after_spare(s, r, b)


@numba.njit(cache=True)
def after_spare(s, r, b):
    if r.cosmo:  # T30: no poker stage; the player left of the dealer leads
        return start_michigan(s, r, b)
    if r.suit_auction:
        start_auction(s, r, b, P_SUIT_AUCTION)
        return False
    start_poker(s, r, b)
    return False


# ================================================================== pay suit (T26)
@numba.njit(cache=True)
def suit_auction_end(s, r, b, won):
    if won:
        w = s.high_bidder[b]
        s.balance[b, w] -= s.high_bid[b]
        s.layout[b, SPACE_KITTY] += s.high_bid[b]
        s.phase[b] = P_NAME_SUIT
        s.current_player[b] = w
    else:
        start_poker(s, r, b)
    return False


# ================================================================== stage 1 and selection (T10, T12)
@numba.njit(cache=True)
def start_poker(s, r, b):
    if not r.pays_in_play:
        pay_on_deal(s, r, b)
    if r.select_best:
        for p in range(r.n):
            s.selected[b, p] = evaluate_one(s.hands[b, p])[1]
        start_betting(s, r, b)
    else:
        s.phase[b] = P_SELECT
        s.current_player[b] = opener(s, r, b)
        advance_selection(s, r, b)


@numba.njit(cache=True)
def take_space(s, b, seat, space):
    s.balance[b, seat] += s.layout[b, space]
    s.layout[b, space] = 0


@numba.njit(cache=True)
def pay_on_deal(s, r, b):
    """T10: pay cards of hearts, king-queen and the sequence, on the hands as they are after the spare phase."""
    n = r.n
    for space in range(5):  # a holder of the pay card takes the space's chips
        p = holder(s.hands[b], HEARTS * 13 + PAY_RANKS[space])
        if p >= 0:
            take_space(s, b, p, space)
    kq = bit(HEARTS * 13 + RANK_KING) | bit(HEARTS * 13 + RANK_QUEEN)
    for p in range(n):
        if s.hands[b, p] & kq == kq:
            take_space(s, b, p, SPACE_KQ)
    qualifies = np.zeros(n, np.bool_)
    q = 0
    for p in range(n):
        for suit in range(4):
            seq = np.uint64(7) << np.uint64(suit * 13 + s.seq_rank[b])
            if s.hands[b, p] & seq == seq:
                qualifies[p] = True
        q += qualifies[p]
    if q > 0:  # the sequence's chips are shared; the remainder stays
        share = s.layout[b, SPACE_SEQUENCE] // q
        for p in range(n):
            if qualifies[p]:
                s.balance[b, p] += share
        s.layout[b, SPACE_SEQUENCE] -= share * q


@numba.njit(cache=True)
def opener(s, r, b):
    """T13: left of the dealer, or the dealer."""
    d = s.dealer[b]
    return d if r.opener_is_dealer else (d + 1) % r.n


@numba.njit(cache=True)
def act_select(s, r, b, a):
    p = s.current_player[b]
    s.selected[b, p] |= bit(a - r.select)
    advance_selection(s, r, b)
    return False


@numba.njit(cache=True)
def advance_selection(s, r, b):
    """Move to the next selector once a player has five cards; complete selections that leave no choice (T12)."""
    for _ in range(r.n + 1):
        p = s.current_player[b]
        sel, hand = s.selected[b, p], s.hands[b, p]
        need = 5 - popcount(sel)
        no_choice = need > 0 and popcount(hand & ~sel) == need
        if no_choice:
            s.selected[b, p] = hand
        if not (need == 0 or no_choice):
            return
        nxt = (p + 1) % r.n
        if nxt == opener(s, r, b):
            start_betting(s, r, b)
            return
        s.current_player[b] = nxt


# ================================================================== betting (T13–T17, T28)
@numba.njit(cache=True)
def start_betting(s, r, b):
    s.phase[b] = P_BET
    s.folded[b, :] = False
    s.round_bet[b, :] = 0
    s.high_bet[b] = 0
    s.raises[b] = 0
    s.acted[b, :] = False
    s.current_player[b] = opener(s, r, b)


@numba.njit(cache=True)
def act_bet(s, r, b, a):
    n = r.n
    p = s.current_player[b]
    owed = s.high_bet[b] - s.round_bet[b, p]
    is_bet = r.bet <= a < r.raise_
    is_raise = r.raise_ <= a < r.lead
    put = 0
    if a == r.call:
        put = owed
    elif is_bet:
        put = a - r.bet + 1
    elif is_raise:
        put = owed + a - r.raise_ + 1
    s.balance[b, p] -= put
    s.layout[b, SPACE_POT] += put
    s.round_bet[b, p] += put
    s.high_bet[b] = max(s.high_bet[b], s.round_bet[b, p])
    if is_raise:
        s.raises[b] += 1
    if a == r.fold:
        s.folded[b, p] = True
    if is_bet or is_raise:
        s.acted[b, :] = False
    s.acted[b, p] = True
    live = 0
    settled = True
    for q in range(n):
        if not s.folded[b, q]:
            live += 1
            if not s.acted[b, q] or s.round_bet[b, q] != s.high_bet[b]:
                settled = False
    if live == 1:
        return award(s, r, b, False)
    if settled:
        return award(s, r, b, True)
    for k in range(1, n + 1):  # the next player still in, clockwise
        q = (p + k) % n
        if not s.folded[b, q]:
            s.current_player[b] = q
            break
    return False


@numba.njit(cache=True)
def award(s, r, b, showdown):
    """T15/T16 (or the final round, T28): pay the pot (or the final round's pot and bets) to the winner(s): the
    only player left, or at a showdown the best hands shown. Returns whether the deal is over."""
    n = r.n
    winners = np.zeros(n, np.bool_)
    if showdown:  # players still in show their five cards
        best = np.int64(-1)
        values = np.full(n, -1, np.int64)
        for p in range(n):
            if s.folded[b, p]:
                s.shown[b, p] = U0
            else:
                values[p] = evaluate_one(s.selected[b, p])[0]
                s.shown[b, p] = s.selected[b, p]
                best = max(best, values[p])
        for p in range(n):
            winners[p] = values[p] == best
    else:
        for p in range(n):
            winners[p] = not s.folded[b, p]
    w = 0
    s.poker_winner[b] = -1
    for k in range(n):  # T17: the first winner from the dealer's left
        p = (s.dealer[b] + 1 + k) % n
        if winners[p]:
            w += 1
            if s.poker_winner[b] < 0:
                s.poker_winner[b] = p
    final = s.final[b]
    if final:  # T28: a final round is for its pot and the bets of the round (other pots wait on the pot space)
        total = s.final_pot[b]
        for p in range(n):
            total += s.round_bet[b, p]
    else:
        total = s.layout[b, SPACE_POT]
    share = total // w
    rest = total - share * w if final else 0
    for k in range(n):
        p = (s.dealer[b] + 1 + k) % n
        if winners[p]:
            s.balance[b, p] += share
            if rest > 0:  # T28: the final round's remainder goes a chip at a time from the dealer's left
                s.balance[b, p] += 1
                rest -= 1
    if final:
        s.layout[b, SPACE_POT] -= total
        s.final_pot[b] = 0
        return True
    s.layout[b, SPACE_POT] -= share * w  # T16: a poker pot's remainder stays on the pot space
    return start_michigan(s, r, b)


@numba.njit(cache=True)
def start_final(s, r, b):
    """T28 final poker round for the next pot of ``final_left``: no ante, fresh deck (the deck of deal number
    ``num_deals + k`` for the k-th final round), five cards each, no spare, no selection."""
    n = r.n
    s.final[b] = True
    s.final_pot[b] = s.final_left[b, 0]
    for k in range(NUM_SPACES - 1):
        s.final_left[b, k] = s.final_left[b, k + 1]
    s.final_left[b, NUM_SPACES - 1] = 0
    s.deal[b] += 1
    s.dealer[b] = (s.dealer[b] + 1) % n
    deck = np.empty(52, np.int64)
    deal_deck(s, b, deck)
    s.hands[b, :] = U0
    for i in range(5 * n):
        s.hands[b, (s.dealer[b] + 1 + i % n) % n] |= bit(deck[i])
    for p in range(n):
        s.selected[b, p] = s.hands[b, p]
    s.spare[b] = U0
    s.dead[b] = U0
    s.dead_shown[b] = U0
    s.played[b] = U0
    clear_auction(s, b)
    s.known[b, :] = U0
    s.shown[b, :] = U0
    s.played_by[b, :] = U0
    s.poker_winner[b] = -1
    s.run_suit[b] = -1
    s.last_card[b] = -1
    s.last_player[b] = -1
    start_betting(s, r, b)


# ================================================================== Michigan (T18–T25)
@numba.njit(cache=True)
def start_michigan(s, r, b):
    d = s.dealer[b]
    if r.leader == LEADER_POKER_WINNER:  # T19 (Cosmo, T30: left of the dealer)
        first = s.poker_winner[b]
    elif r.leader == LEADER_DEALER:
        first = d
    else:
        first = (d + 1) % r.n
    s.phase[b] = P_LEAD
    return find_leader(s, r, b, first)


@numba.njit(cache=True)
def lead_suits(s, r, b, hand, out):
    """``out[k]``: whether ``hand`` may lead suit ``k`` now (T20, T22; T30 alternate colours)."""
    low = np.full(4, 99, np.int64)
    for k in range(4):
        c = lowest(suit_cards(hand, k))
        if c >= 0:
            low[k] = c % 13
    run = s.run_suit[b]
    first = run < 0
    if r.alternate:
        want_red = False if first else not SUIT_IS_RED[run]
        best = 99
        for k in range(4):
            if low[k] < 99 and SUIT_IS_RED[k] == want_red:
                best = min(best, low[k])
        for k in range(4):
            out[k] = low[k] < 99 and SUIT_IS_RED[k] == want_red and low[k] == best
        return
    if r.first_lead_lowest and first:
        best = min(low[0], low[1], low[2], low[3])
        for k in range(4):
            out[k] = low[k] < 99 and low[k] == best
        return
    for k in range(4):
        out[k] = low[k] < 99 and k != run


@numba.njit(cache=True)
def can_lead(s, r, b, p):
    suits = np.zeros(4, np.bool_)
    lead_suits(s, r, b, s.hands[b, p], suits)
    return suits[0] or suits[1] or suits[2] or suits[3]


@numba.njit(cache=True)
def find_leader(s, r, b, designated):
    """T22: the designated leader leads if they can, else the first player clockwise who can; else the deal ends
    with every player paying 1 chip per card in hand onto the kitty. Returns whether the deal is over."""
    n = r.n
    for k in range(n):
        p = (designated + k) % n
        if can_lead(s, r, b, p):
            s.current_player[b] = p
            return False
    for p in range(n):
        left = popcount(s.hands[b, p])
        s.balance[b, p] -= left
        s.layout[b, SPACE_KITTY] += left
    return True


@numba.njit(cache=True)
def act_lead(s, r, b, a):
    p = s.current_player[b]
    card = lowest(suit_cards(s.hands[b, p], a - r.lead))
    s.run_start[b] = card
    return play_run(s, r, b, card)


@numba.njit(cache=True)
def play_run(s, r, b, first):
    """Play ``first`` (held by someone) and, with ``auto_forced``, the whole forced run after it (T21): the chain of
    consecutive cards of the suit in players' hands, each reported as its holder's forced ``continue run``. It
    stops the moment a player plays their last card (T23). Pay spaces (T25) are paid for the cards played."""
    top = first - first % 13 + RANK_ACE
    last = first
    out = False
    card = first
    while True:
        p = holder(s.hands[b], card)
        if card != first:
            report(s, b, p, r.continue_run, card)
        s.hands[b, p] &= ~bit(card)
        s.played_by[b, p] |= bit(card)
        s.played[b] |= bit(card)
        last = card
        if s.hands[b, p] == U0:  # T23: out
            out = True
            break
        if not r.auto_forced or card == top or holder(s.hands[b], card + 1) < 0:
            break
        card += 1
    last_player = holder(s.played_by[b], last)
    s.last_card[b] = last
    s.last_player[b] = last_player
    s.run_suit[b] = first // 13
    if r.pays_in_play:
        pay_in_play(s, r, b, first, last)
    if out:
        return go_out(s, r, b, last_player)
    nxt = last + 1 if last % 13 < RANK_ACE else 64
    who = holder(s.hands[b], nxt)
    if who >= 0:  # only without auto_forced: the next card is asked for (C8)
        s.phase[b] = P_RUN
        s.current_player[b] = who
        return False
    s.phase[b] = P_LEAD
    return find_leader(s, r, b, last_player)


@numba.njit(cache=True)
def pay_in_play(s, r, b, first, last):
    """T25 for the cards ``first..last`` just played: a pay card's space goes to whoever played it; K-Q and the
    sequence go to a player who played all their cards consecutively within the current run (which starts at
    ``run_start``; runs hold consecutive cards, so "consecutive" means "all in this run")."""
    pay, start = s.pay_suit[b], s.run_start[b]
    by = s.played_by[b]
    for space in range(5):
        card = pay * 13 + PAY_RANKS[space]
        if first <= card <= last:
            take_space(s, b, holder(by, card), space)
    king = pay * 13 + RANK_KING
    if first <= king <= last and king - 1 >= start:
        owner = holder(by, king)
        kq = bit(king) | bit(king - 1)
        if owner >= 0 and by[owner] & kq == kq:
            take_space(s, b, owner, SPACE_KQ)
    high = s.run_suit[b] * 13 + s.seq_rank[b] + 2
    if first <= high <= last and high - 2 >= start:
        owner = holder(by, high)
        seq = np.uint64(7) << np.uint64(high - 2)
        if owner >= 0 and by[owner] & seq == seq:
            take_space(s, b, owner, SPACE_SEQUENCE)


@numba.njit(cache=True)
def go_out(s, r, b, p):
    """T23: the player out takes the kitty and 1 chip per card left in every other hand (T30 Cosmo: the pot space
    goes with the kitty). The deal is over."""
    total = 0
    for q in range(r.n):
        left = popcount(s.hands[b, q])
        s.balance[b, q] -= left
        total += left
    s.balance[b, p] += total + s.layout[b, SPACE_KITTY]
    s.layout[b, SPACE_KITTY] = 0
    if r.cosmo:
        s.balance[b, p] += s.layout[b, SPACE_POT]
        s.layout[b, SPACE_POT] = 0
    return True


# ================================================================== episode (T28)
@numba.njit(cache=True)
def end_deal(s, r, b):
    """After a deal or a final poker round: the next deal, the settlement of the layout (T28), or the end. Returns
    whether the next deal is already over too."""
    n = r.n
    if not s.final[b]:
        if s.deal[b] + 1 < r.num_deals:
            s.deal[b] += 1
            s.dealer[b] = (s.dealer[b] + 1) % n
            return start_deal(s, r, b)
        if r.num_deals > 1 and r.final_round == FINAL_SHARE:  # shared equally; a remainder belongs to nobody
            total = 0
            for k in range(NUM_SPACES):
                total += s.layout[b, k]
                s.layout[b, k] = 0
            each = total // n
            for p in range(n):
                s.balance[b, p] += each
            s.layout[b, SPACE_POT] = total - each * n
        elif r.num_deals > 1 and (r.final_round == FINAL_POKER or r.final_round == FINAL_POTS):
            divide_layout(s, r, b)
    if s.final_left[b, 0] > 0:
        start_final(s, r, b)
        return False
    s.phase[b] = P_DONE
    s.current_player[b] = -1
    s.terminated[b] = True
    return False


@numba.njit(cache=True)
def divide_layout(s, r, b):
    """T28 ``poker`` / ``pots``: every chip of the layout is gathered on the pot space and divided into the pots
    of the final poker rounds (one with ``poker``, ``final_pots`` with ``pots``), as equal as possible, the
    larger first. A pot with no chip is not played (decision: with ``poker`` too, there is nothing to win)."""
    total = 0
    for k in range(NUM_SPACES):
        total += s.layout[b, k]
        s.layout[b, k] = 0
    s.layout[b, SPACE_POT] = total
    pots = r.final_pots if r.final_round == FINAL_POTS else 1
    for k in range(NUM_SPACES):
        s.final_left[b, k] = total // pots + (1 if k < total % pots else 0) if k < pots else 0


# ================================================================== decisions and forced moves
@numba.njit(cache=True)
def apply(s, r, b, a):
    """Apply one legal decision by phase; returns whether the deal is over."""
    phase = s.phase[b]
    if phase == P_SPARE:
        return act_spare(s, r, b, a)
    if phase == P_AUCTION or phase == P_SUIT_AUCTION:
        return act_auction(s, r, b, a)
    if phase == P_NAME_SUIT:
        s.pay_suit[b] = a - r.name_suit
        start_poker(s, r, b)
        return False
    if phase == P_SELECT:
        return act_select(s, r, b, a)
    if phase == P_BET:
        return act_bet(s, r, b, a)
    if phase == P_LEAD:
        return act_lead(s, r, b, a)
    return play_run(s, r, b, s.last_card[b] + 1)  # P_RUN


@numba.njit(cache=True)
def compute_mask(s, r, b):
    """The legal actions of the decision table ``b`` waits on; returns how many there are."""
    m = s.legal_action_mask[b]
    m[:] = False
    phase = s.phase[b]
    p = s.current_player[b]
    if phase == P_SPARE:
        m[KEEP] = True
        m[SWAP] = not s.swapped[b]
        m[AUCTION] = r.spare_hand == SPARE_FULL and not s.auctioned[b]
    elif phase == P_AUCTION or phase == P_SUIT_AUCTION:
        m[PASS] = True
        for k in range(s.high_bid[b] + 1, r.max_bid + 1):
            m[r.bid + k - 1] = True
    elif phase == P_NAME_SUIT:
        m[r.name_suit : r.name_suit + 4] = True
    elif phase == P_SELECT:
        free = s.hands[b, p] & ~s.selected[b, p]
        while free:
            c = lowest(free)
            m[r.select + c] = True
            free &= ~bit(c)
    elif phase == P_BET:
        if s.high_bet[b] > 0:
            m[r.call] = True
            m[r.fold] = True
            if s.raises[b] < r.max_raises:
                m[r.raise_ : r.raise_ + r.bet_limit] = True
        else:
            m[r.check] = True
            m[r.bet : r.bet + r.bet_limit] = True
    elif phase == P_LEAD:
        suits = np.zeros(4, np.bool_)
        lead_suits(s, r, b, s.hands[b, p], suits)
        for k in range(4):
            m[r.lead + k] = suits[k]
    elif phase == P_RUN:
        m[r.continue_run] = True
    count = 0
    for a in range(m.shape[0]):
        count += m[a]
    return count


@numba.njit(cache=True)
def settle(s, r, b):
    """Compute the legal mask; with ``auto_forced`` play every single-choice decision until none is left (C8).
    Returns False when the report arrays lack room for the next forced move (it stays pending)."""
    while True:
        count = compute_mask(s, r, b)
        if not r.auto_forced or count != 1:
            return True
        phase = s.phase[b]
        if r.cosmo and phase == P_LEAD and s.deal[b] == 0 and s.played[b] == U0:
            return True  # T30: the episode's first lead is always asked, so no episode ends at reset
        if s.forced_count[b] + ROOM > s.forced_seat.shape[1]:
            return False
        a = 0
        while not s.legal_action_mask[b, a]:
            a += 1
        p = s.current_player[b]
        card = lowest(suit_cards(s.hands[b, p], a - r.lead)) if phase == P_LEAD else -1
        report(s, b, p, a, card)
        over = apply(s, r, b, a)
        while over:
            over = end_deal(s, r, b)


# ================================================================== batch entry points
@numba.njit(cache=True)
def deal_table(s, r, b):
    """A table's first deal of an episode (its seed, stacked decks and dealer are set; -1: drawn from the seed)."""
    if s.dealer[b] < 0:
        s.dealer[b] = uniform_int(s.seeds[b], STREAM_DEALER, 0, r.n)
    over = start_deal(s, r, b)
    while over:
        over = end_deal(s, r, b)
    done = settle(s, r, b)
    for p in range(r.n):
        s.rewards[b, p] = s.balance[b, p]  # the first ante (and anything resolved before the first decision)
    return done


@numba.njit(cache=True)
def init_tables(s, r, pending):
    """Deal every table of a fresh state; ``pending[b]`` is set where forced moves wait on wider report arrays."""
    for b in range(s.seeds.shape[0]):
        pending[b] = not deal_table(s, r, b)


@numba.njit(cache=True)
def redeal_tables(s, r, idx, seeds, pending):
    """Start a new episode at tables ``idx`` with ``seeds`` (as :func:`init_tables` deals them, no stacked deck)."""
    for i in range(idx.shape[0]):
        b = idx[i]
        s.seeds[b] = seeds[i]
        s.current_player[b] = -1
        s.rewards[b, :] = 0.0
        s.terminated[b] = False
        s.truncated[b] = False
        s.forced_count[b] = 0
        s.phase[b] = 0
        s.deal[b] = 0
        s.final[b] = False
        s.final_pot[b] = 0
        s.final_left[b, :] = 0
        s.dealer[b] = -1
        s.balance[b, :] = 0
        s.layout[b, :] = 0
        s.seq_rank[b] = r.seq_rank
        s.high_bid[b] = 0
        s.high_bidder[b] = -1
        s.passed[b, :] = False
        s.raises[b] = 0
        s.acted[b, :] = False
        s.decks[b, :, :] = -1
        pending[i] = not deal_table(s, r, b)


@numba.njit(cache=True)
def step_tables(s, r, idx, actions, pending):
    """Play ``actions[i]`` (legal) at table ``idx[i]``, then every forced move; rewards are the balance changes."""
    before = np.empty(r.n, np.int64)
    for i in range(idx.shape[0]):
        b = idx[i]
        before[:] = s.balance[b]
        over = apply(s, r, b, actions[i])
        while over:
            over = end_deal(s, r, b)
        pending[i] = not settle(s, r, b)
        for p in range(r.n):
            s.rewards[b, p] = s.balance[b, p] - before[p]


@numba.njit(cache=True)
def resume_tables(s, r, idx, pending):
    """Go on with the forced moves of tables ``idx`` after their report arrays were widened; rewards add up."""
    before = np.empty(r.n, np.int64)
    for i in range(idx.shape[0]):
        b = idx[i]
        before[:] = s.balance[b]
        pending[i] = not settle(s, r, b)
        for p in range(r.n):
            s.rewards[b, p] += s.balance[b, p] - before[p]
