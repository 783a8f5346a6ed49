"""Tripoli's rules as compiled per-table kernels (numba), and the batch loops the game class calls.

Each rule function works on one table: its record ``t`` (:mod:`envs.core.records`; ``t.hands[p]`` is seat ``p``'s
hand) and, where it deals or reports forced moves, the arrays ``x`` (:data:`TripoliExtra`) and the table's index ``b``;
it reads like the rules file (rule ids in comments): the deal (T4–T12, T26), the poker stage
(T13–T17, T28) and the Michigan stage (T18–T25, T30). Functions that can end a deal return ``True`` when it is
over, and the caller then runs :func:`end_deal` (which can deal the next one): the kernels never call themselves.
The batch entry points (:func:`init_tables`, :func:`redeal_tables`, :func:`play_tables`, :func:`resume_tables`)
loop over the tables inside compiled code, one call from Python per batch.

Forced moves (C8) are reported into the state's report arrays; a table whose arrays cannot take another forced move
and the run it may start (14 moves) stops with its forced decision pending and is listed in the returned array;
the game widens the arrays and calls :func:`resume_tables` for it.
"""

from __future__ import annotations

import numba
import numpy as np

from envs.core import play
from envs.core.bits import bit, lowest, popcount
from envs.core.cards import HEARTS, is_red
from envs.core.forced import clear_report, report_move
from envs.core.poker import evaluate_one
from envs.core.records import kernel_tuple
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
    PAY_RANKS,
    RANK_ACE,
    RANK_KING,
    RANK_QUEEN,
    SPACE_KITTY,
    SPACE_KQ,
    SPACE_POT,
    SPACE_SEQUENCE,
)

TripoliExtra = kernel_tuple("TripoliExtra", ("decks", "forced_count", "forced_seat", "forced_action", "forced_card"))
"""The state's arrays outside the table records (their width varies): the stacked decks and the forced-move
report (:mod:`envs.core.forced`), batch axis first."""
TripoliRules = kernel_tuple("TripoliRules", (
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
ROOM = 14
"""Report slots a forced move needs free: the move and the at most 12 forced cards of a run it may start."""
U0 = np.uint64(0)
SUIT_BITS = np.uint64(0x1FFF)


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


# ================================================================== deal (T4, T5)
@numba.njit(cache=True)
def deal_deck(t, x, b, deck):
    """The deck of deal number ``t.deal``: the stacked one ``init`` was given for it, else shuffled (C7)."""
    d = t.deal
    if d < x.decks.shape[1] and x.decks[b, d, 0] >= 0:
        for i in range(52):
            deck[i] = x.decks[b, d, i]
    else:
        shuffle_into(t.seeds, d, deck)


@numba.njit(cache=True)
def clear_auction(t):
    """A new deal has had no auction yet: no passes, no high bid (T7; the observation's auction fields)."""
    t.high_bid = 0
    t.high_bidder = -1
    t.passed[:] = False


@numba.njit(cache=True)
def start_deal(t, r, x, b):
    """T4 ante and T5 deal (cards one at a time from the dealer's left, the spare hand last in each round), then
    the spare-hand phase. Returns whether the deal is already over (T22, Cosmo)."""
    n = r.n
    for p in range(n):
        t.balance[p] -= NUM_SPACES
    for k in range(NUM_SPACES):
        t.layout[k] += n
    deck = np.empty(52, np.int64)
    deal_deck(t, x, b, deck)
    t.hands[:] = U0
    t.spare = U0
    for i in range(52):
        j = i % (n + 1)
        if j == n:
            t.spare |= bit(deck[i])
        else:
            t.hands[(t.dealer + 1 + j) % n] |= bit(deck[i])
    t.dead = U0
    t.dead_shown = U0
    t.played = U0
    t.known[:] = U0
    t.selected[:] = U0
    t.shown[:] = U0
    clear_auction(t)
    if r.cosmo:  # T30: the board's windows are drawn for each deal, known to all
        t.pay_suit = uniform_int(t.seeds, STREAM_BOARD, 2 * t.deal, 4)
        t.seq_rank = uniform_int(t.seeds, STREAM_BOARD, 2 * t.deal + 1, 11)
    else:
        t.pay_suit = HEARTS
    t.swapped = False
    t.auctioned = False
    t.poker_winner = -1
    t.run_suit = -1
    t.last_card = -1
    t.last_player = -1
    t.run_start = -1
    t.played_by[:] = U0
    t.folded[:] = False
    t.round_bet[:] = 0
    t.high_bet = 0
    if not r.spare_phase:
        return after_spare(t, r)
    t.phase = P_SPARE
    t.current_player = t.dealer
    return False


# ================================================================== spare hand (T6–T9)
@numba.njit(cache=True)
def act_spare(t, r, a):
    if a == SWAP:
        d = t.dealer
        old = t.hands[d]
        t.hands[d] = t.spare
        t.spare = old
        t.known[d] |= old
        t.swapped = True
        if r.spare_hand == SPARE_SWAP_ONLY or t.auctioned:
            return after_spare(t, r)
        return False
    if a == AUCTION:
        start_auction(t, r, P_AUCTION)
        return False
    return after_spare(t, r)  # KEEP


@numba.njit(cache=True)
def start_auction(t, r, phase):
    """T7 (spare hand: the dealer does not bid, bidding starts left of the dealer) or T26 (the dealer starts)."""
    t.phase = phase
    clear_auction(t)
    d = t.dealer
    if phase == P_AUCTION:
        t.passed[d] = True
        t.current_player = (d + 1) % r.n
    else:
        t.current_player = d


@numba.njit(cache=True)
def act_auction(t, r, a):
    n = r.n
    p = t.current_player
    if a == PASS:
        t.passed[p] = True
    else:
        t.high_bid = a - r.bid + 1
        t.high_bidder = p
    count = 0
    for q in range(n):
        count += not t.passed[q]
    won = t.high_bid > 0 and count == 1
    if not won and count > 0:  # the next bidder still in, clockwise
        for k in range(1, n + 1):
            q = (p + k) % n
            if not t.passed[q]:
                t.current_player = q
                break
        return False
    if t.phase == P_AUCTION:
        return spare_auction_end(t, r, won)
    return suit_auction_end(t, r, won)


@numba.njit(cache=True)
def spare_auction_end(t, r, won):
    if won:  # T7: the winner pays the dealer and takes the spare hand; their old hand is dead
        w, d, price = t.high_bidder, t.dealer, t.high_bid
        t.balance[w] -= price
        t.balance[d] += price
        old = t.hands[w]
        t.hands[w] = t.spare
        t.spare = U0
        t.dead |= old
        if r.dead_shown:  # T7: discarded face up, seen by every player
            t.dead_shown |= old
        t.known[w] |= old
        t.auctioned = True
        return after_spare(t, r)
    t.auctioned = True  # no bid: the dealer decides again, unless they swapped already
    if not t.swapped:
        t.phase = P_SPARE
        t.current_player = t.dealer
        return False
    return after_spare(t, r)


@numba.njit(cache=True)
def after_spare(t, r):
    if r.cosmo:  # T30: no poker stage; the player left of the dealer leads
        return start_michigan(t, r)
    if r.suit_auction:
        start_auction(t, r, P_SUIT_AUCTION)
        return False
    start_poker(t, r)
    return False


# ================================================================== pay suit (T26)
@numba.njit(cache=True)
def suit_auction_end(t, r, won):
    if won:
        w = t.high_bidder
        t.balance[w] -= t.high_bid
        t.layout[SPACE_KITTY] += t.high_bid
        t.phase = P_NAME_SUIT
        t.current_player = w
    else:
        start_poker(t, r)
    return False


# ================================================================== stage 1 and selection (T10, T12)
@numba.njit(cache=True)
def start_poker(t, r):
    if not r.pays_in_play:
        pay_on_deal(t, r)
    if r.select_best:
        for p in range(r.n):
            t.selected[p] = evaluate_one(t.hands[p])[1]
        start_betting(t, r)
    else:
        t.phase = P_SELECT
        t.current_player = opener(t, r)
        advance_selection(t, r)


@numba.njit(cache=True)
def take_space(t, seat, space):
    t.balance[seat] += t.layout[space]
    t.layout[space] = 0


@numba.njit(cache=True)
def pay_on_deal(t, r):
    """T10: pay cards of hearts, king-queen and the sequence, on the hands as they are after the spare phase."""
    n = r.n
    for space in range(5):  # a holder of the pay card takes the space's chips
        p = holder(t.hands, HEARTS * 13 + PAY_RANKS[space])
        if p >= 0:
            take_space(t, p, space)
    kq = bit(HEARTS * 13 + RANK_KING) | bit(HEARTS * 13 + RANK_QUEEN)
    for p in range(n):
        if t.hands[p] & kq == kq:
            take_space(t, p, SPACE_KQ)
    qualifies = np.zeros(n, np.bool_)
    q = 0
    for p in range(n):
        for suit in range(4):
            seq = np.uint64(7) << np.uint64(suit * 13 + t.seq_rank)
            if t.hands[p] & seq == seq:
                qualifies[p] = True
        q += qualifies[p]
    if q > 0:  # the sequence's chips are shared; the remainder stays
        share = t.layout[SPACE_SEQUENCE] // q
        for p in range(n):
            if qualifies[p]:
                t.balance[p] += share
        t.layout[SPACE_SEQUENCE] -= share * q


@numba.njit(cache=True)
def opener(t, r):
    """T13: left of the dealer, or the dealer."""
    d = t.dealer
    return d if r.opener_is_dealer else (d + 1) % r.n


@numba.njit(cache=True)
def act_select(t, r, a):
    p = t.current_player
    t.selected[p] |= bit(a - r.select)
    advance_selection(t, r)
    return False


@numba.njit(cache=True)
def advance_selection(t, r):
    """Move to the next selector once a player has five cards; complete selections that leave no choice (T12)."""
    for _ in range(r.n + 1):
        p = t.current_player
        sel, hand = t.selected[p], t.hands[p]
        need = 5 - popcount(sel)
        no_choice = need > 0 and popcount(hand & ~sel) == need
        if no_choice:
            t.selected[p] = hand
        if not (need == 0 or no_choice):
            return
        nxt = (p + 1) % r.n
        if nxt == opener(t, r):
            start_betting(t, r)
            return
        t.current_player = nxt


# ================================================================== betting (T13–T17, T28)
@numba.njit(cache=True)
def start_betting(t, r):
    t.phase = P_BET
    t.folded[:] = False
    t.round_bet[:] = 0
    t.high_bet = 0
    t.raises = 0
    t.acted[:] = False
    t.current_player = opener(t, r)


@numba.njit(cache=True)
def act_bet(t, r, a):
    n = r.n
    p = t.current_player
    owed = t.high_bet - t.round_bet[p]
    is_bet = r.bet <= a < r.raise_
    is_raise = r.raise_ <= a < r.lead
    put = 0
    if a == r.call:
        put = owed
    elif is_bet:
        put = a - r.bet + 1
    elif is_raise:
        put = owed + a - r.raise_ + 1
    t.balance[p] -= put
    t.layout[SPACE_POT] += put
    t.round_bet[p] += put
    t.high_bet = max(t.high_bet, t.round_bet[p])
    if is_raise:
        t.raises += 1
    if a == r.fold:
        t.folded[p] = True
    if is_bet or is_raise:
        t.acted[:] = False
    t.acted[p] = True
    live = 0
    settled = True
    for q in range(n):
        if not t.folded[q]:
            live += 1
            if not t.acted[q] or t.round_bet[q] != t.high_bet:
                settled = False
    if live == 1:
        return award(t, r, False)
    if settled:
        return award(t, r, True)
    for k in range(1, n + 1):  # the next player still in, clockwise
        q = (p + k) % n
        if not t.folded[q]:
            t.current_player = q
            break
    return False


@numba.njit(cache=True)
def award(t, r, showdown):
    """T15/T16 (or the final round, T28): pay the pot (or the final round's pot and bets) to the winner(s): the
    only player left, or at a showdown the best hands shown. Returns whether the deal is over."""
    n = r.n
    winners = np.zeros(n, np.bool_)
    if showdown:  # players still in show their five cards
        best = np.int64(-1)
        values = np.full(n, -1, np.int64)
        for p in range(n):
            if t.folded[p]:
                t.shown[p] = U0
            else:
                values[p] = evaluate_one(t.selected[p])[0]
                t.shown[p] = t.selected[p]
                best = max(best, values[p])
        for p in range(n):
            winners[p] = values[p] == best
    else:
        for p in range(n):
            winners[p] = not t.folded[p]
    w = 0
    t.poker_winner = -1
    for k in range(n):  # T17: the first winner from the dealer's left
        p = (t.dealer + 1 + k) % n
        if winners[p]:
            w += 1
            if t.poker_winner < 0:
                t.poker_winner = p
    final = t.final
    if final:  # T28: a final round is for its pot and the bets of the round (other pots wait on the pot space)
        total = t.final_pot
        for p in range(n):
            total += t.round_bet[p]
    else:
        total = t.layout[SPACE_POT]
    share = total // w
    rest = total - share * w if final else 0
    for k in range(n):
        p = (t.dealer + 1 + k) % n
        if winners[p]:
            t.balance[p] += share
            if rest > 0:  # T28: the final round's remainder goes a chip at a time from the dealer's left
                t.balance[p] += 1
                rest -= 1
    if final:
        t.layout[SPACE_POT] -= total
        t.final_pot = 0
        return True
    t.layout[SPACE_POT] -= share * w  # T16: a poker pot's remainder stays on the pot space
    return start_michigan(t, r)


@numba.njit(cache=True)
def start_final(t, r, x, b):
    """T28 final poker round for the next pot of ``final_left``: no ante, fresh deck (the deck of deal number
    ``num_deals + k`` for the k-th final round), five cards each, no spare, no selection."""
    n = r.n
    t.final = True
    t.final_pot = t.final_left[0]
    for k in range(NUM_SPACES - 1):
        t.final_left[k] = t.final_left[k + 1]
    t.final_left[NUM_SPACES - 1] = 0
    t.deal += 1
    t.dealer = (t.dealer + 1) % n
    deck = np.empty(52, np.int64)
    deal_deck(t, x, b, deck)
    t.hands[:] = U0
    for i in range(5 * n):
        t.hands[(t.dealer + 1 + i % n) % n] |= bit(deck[i])
    for p in range(n):
        t.selected[p] = t.hands[p]
    t.spare = U0
    t.dead = U0
    t.dead_shown = U0
    t.played = U0
    clear_auction(t)
    t.known[:] = U0
    t.shown[:] = U0
    t.played_by[:] = U0
    t.poker_winner = -1
    t.run_suit = -1
    t.last_card = -1
    t.last_player = -1
    start_betting(t, r)


# ================================================================== Michigan (T18–T25)
@numba.njit(cache=True)
def start_michigan(t, r):
    d = t.dealer
    if r.leader == LEADER_POKER_WINNER:  # T19 (Cosmo, T30: left of the dealer)
        first = t.poker_winner
    elif r.leader == LEADER_DEALER:
        first = d
    else:
        first = (d + 1) % r.n
    t.phase = P_LEAD
    return find_leader(t, r, first)


@numba.njit(cache=True)
def lead_suits(t, r, hand, out):
    """``out[k]``: whether ``hand`` may lead suit ``k`` now (T20, T22; T30 alternate colours)."""
    low = np.full(4, 99, np.int64)
    for k in range(4):
        c = lowest(suit_cards(hand, k))
        if c >= 0:
            low[k] = c % 13
    run = t.run_suit
    first = run < 0
    if r.alternate:
        want_red = False if first else not is_red(run)
        best = 99
        for k in range(4):
            if low[k] < 99 and is_red(k) == want_red:
                best = min(best, low[k])
        for k in range(4):
            out[k] = low[k] < 99 and is_red(k) == want_red and low[k] == best
        return
    if r.first_lead_lowest and first:
        best = min(low[0], low[1], low[2], low[3])
        for k in range(4):
            out[k] = low[k] < 99 and low[k] == best
        return
    for k in range(4):
        out[k] = low[k] < 99 and k != run


@numba.njit(cache=True)
def can_lead(t, r, p):
    suits = np.zeros(4, np.bool_)
    lead_suits(t, r, t.hands[p], suits)
    return suits[0] or suits[1] or suits[2] or suits[3]


@numba.njit(cache=True)
def find_leader(t, r, designated):
    """T22: the designated leader leads if they can, else the first player clockwise who can; else the deal ends
    with every player paying 1 chip per card in hand onto the kitty. Returns whether the deal is over."""
    n = r.n
    for k in range(n):
        p = (designated + k) % n
        if can_lead(t, r, p):
            t.current_player = p
            return False
    for p in range(n):
        left = popcount(t.hands[p])
        t.balance[p] -= left
        t.layout[SPACE_KITTY] += left
    return True


@numba.njit(cache=True)
def act_lead(t, r, x, b, a):
    p = t.current_player
    card = lowest(suit_cards(t.hands[p], a - r.lead))
    t.run_start = card
    return play_run(t, r, x, b, card)


@numba.njit(cache=True)
def play_run(t, r, x, b, first):
    """Play ``first`` (held by someone) and, with ``auto_forced``, the whole forced run after it (T21): the chain of
    consecutive cards of the suit in players' hands, each reported as its holder's forced ``continue run``. It
    stops the moment a player plays their last card (T23). Pay spaces (T25) are paid for the cards played."""
    top = first - first % 13 + RANK_ACE
    last = first
    out = False
    card = first
    while True:
        p = holder(t.hands, card)
        if card != first:
            report_move(x, b, p, r.continue_run, card)
        t.hands[p] &= ~bit(card)
        t.played_by[p] |= bit(card)
        t.played |= bit(card)
        last = card
        if t.hands[p] == U0:  # T23: out
            out = True
            break
        if not r.auto_forced or card == top or holder(t.hands, card + 1) < 0:
            break
        card += 1
    last_player = holder(t.played_by, last)
    t.last_card = last
    t.last_player = last_player
    t.run_suit = first // 13
    if r.pays_in_play:
        pay_in_play(t, r, first, last)
    if out:
        return go_out(t, r, last_player)
    nxt = last + 1 if last % 13 < RANK_ACE else 64
    who = holder(t.hands, nxt)
    if who >= 0:  # only without auto_forced: the next card is asked for (C8)
        t.phase = P_RUN
        t.current_player = who
        return False
    t.phase = P_LEAD
    return find_leader(t, r, last_player)


@numba.njit(cache=True)
def pay_in_play(t, r, first, last):
    """T25 for the cards ``first..last`` just played: a pay card's space goes to whoever played it; K-Q and the
    sequence go to a player who played all their cards consecutively within the current run (which starts at
    ``run_start``; runs hold consecutive cards, so "consecutive" means "all in this run")."""
    pay, start = t.pay_suit, t.run_start
    by = t.played_by
    for space in range(5):
        card = pay * 13 + PAY_RANKS[space]
        if first <= card <= last:
            take_space(t, holder(by, card), space)
    king = pay * 13 + RANK_KING
    if first <= king <= last and king - 1 >= start:
        owner = holder(by, king)
        kq = bit(king) | bit(king - 1)
        if owner >= 0 and by[owner] & kq == kq:
            take_space(t, owner, SPACE_KQ)
    high = t.run_suit * 13 + t.seq_rank + 2
    if first <= high <= last and high - 2 >= start:
        owner = holder(by, high)
        seq = np.uint64(7) << np.uint64(high - 2)
        if owner >= 0 and by[owner] & seq == seq:
            take_space(t, owner, SPACE_SEQUENCE)


@numba.njit(cache=True)
def go_out(t, r, p):
    """T23: the player out takes the kitty and 1 chip per card left in every other hand (T30 Cosmo: the pot space
    goes with the kitty). The deal is over."""
    total = 0
    for q in range(r.n):
        left = popcount(t.hands[q])
        t.balance[q] -= left
        total += left
    t.balance[p] += total + t.layout[SPACE_KITTY]
    t.layout[SPACE_KITTY] = 0
    if r.cosmo:
        t.balance[p] += t.layout[SPACE_POT]
        t.layout[SPACE_POT] = 0
    return True


# ================================================================== episode (T28)
@numba.njit(cache=True)
def end_deal(t, r, x, b):
    """After a deal or a final poker round: the next deal, the settlement of the layout (T28), or the end. Returns
    whether the next deal is already over too."""
    n = r.n
    if not t.final:
        if t.deal + 1 < r.num_deals:
            t.deal += 1
            t.dealer = (t.dealer + 1) % n
            return start_deal(t, r, x, b)
        if r.num_deals > 1 and r.final_round == FINAL_SHARE:  # shared equally; a remainder belongs to nobody
            total = 0
            for k in range(NUM_SPACES):
                total += t.layout[k]
                t.layout[k] = 0
            each = total // n
            for p in range(n):
                t.balance[p] += each
            t.layout[SPACE_POT] = total - each * n
        elif r.num_deals > 1 and (r.final_round == FINAL_POKER or r.final_round == FINAL_POTS):
            divide_layout(t, r)
    if t.final_left[0] > 0:
        start_final(t, r, x, b)
        return False
    t.phase = P_DONE
    t.current_player = -1
    t.terminated = True
    return False


@numba.njit(cache=True)
def divide_layout(t, r):
    """T28 ``poker`` / ``pots``: every chip of the layout is gathered on the pot space and divided into the pots
    of the final poker rounds (one with ``poker``, ``final_pots`` with ``pots``), as equal as possible, the
    larger first. A pot with no chip is not played (decision: with ``poker`` too, there is nothing to win)."""
    total = 0
    for k in range(NUM_SPACES):
        total += t.layout[k]
        t.layout[k] = 0
    t.layout[SPACE_POT] = total
    pots = r.final_pots if r.final_round == FINAL_POTS else 1
    for k in range(NUM_SPACES):
        t.final_left[k] = total // pots + (1 if k < total % pots else 0) if k < pots else 0


# ================================================================== decisions and forced moves
@numba.njit(cache=True)
def apply(t, r, x, b, a):
    """Apply one legal decision by phase; returns whether the deal is over."""
    phase = t.phase
    if phase == P_SPARE:
        return act_spare(t, r, a)
    if phase == P_AUCTION or phase == P_SUIT_AUCTION:
        return act_auction(t, r, a)
    if phase == P_NAME_SUIT:
        t.pay_suit = a - r.name_suit
        start_poker(t, r)
        return False
    if phase == P_SELECT:
        return act_select(t, r, a)
    if phase == P_BET:
        return act_bet(t, r, a)
    if phase == P_LEAD:
        return act_lead(t, r, x, b, a)
    return play_run(t, r, x, b, t.last_card + 1)  # P_RUN


@numba.njit(cache=True, inline="always")
def legal_mask(t, r):
    """Table record ``t``'s legal mask over this configuration's actions: the record stores it for the largest action
    table (``MAX_ACTIONS``), whose tail stays False."""
    return t.legal_action_mask[: r.continue_run + 1]


@numba.njit(cache=True)
def compute_mask(t, r):
    """The legal actions of the decision table ``b`` waits on; returns how many there are."""
    m = legal_mask(t, r)
    m[:] = False
    phase = t.phase
    p = t.current_player
    if phase == P_SPARE:
        m[KEEP] = True
        m[SWAP] = not t.swapped
        m[AUCTION] = r.spare_hand == SPARE_FULL and not t.auctioned
    elif phase == P_AUCTION or phase == P_SUIT_AUCTION:
        m[PASS] = True
        for k in range(t.high_bid + 1, r.max_bid + 1):
            m[r.bid + k - 1] = True
    elif phase == P_NAME_SUIT:
        m[r.name_suit : r.name_suit + 4] = True
    elif phase == P_SELECT:
        free = t.hands[p] & ~t.selected[p]
        while free:
            c = lowest(free)
            m[r.select + c] = True
            free &= ~bit(c)
    elif phase == P_BET:
        if t.high_bet > 0:
            m[r.call] = True
            m[r.fold] = True
            if t.raises < r.max_raises:
                m[r.raise_ : r.raise_ + r.bet_limit] = True
        else:
            m[r.check] = True
            m[r.bet : r.bet + r.bet_limit] = True
    elif phase == P_LEAD:
        suits = np.zeros(4, np.bool_)
        lead_suits(t, r, t.hands[p], suits)
        for k in range(4):
            m[r.lead + k] = suits[k]
    elif phase == P_RUN:
        m[r.continue_run] = True
    count = 0
    for a in range(m.shape[0]):
        count += m[a]
    return count


@numba.njit(cache=True)
def settle(t, r, x, b):
    """Compute the legal mask; with ``auto_forced`` play every single-choice decision until none is left (C8).
    Returns False when the report arrays lack room for the next forced move (it stays pending)."""
    while True:
        count = compute_mask(t, r)
        if not r.auto_forced or count != 1:
            return True
        phase = t.phase
        if r.cosmo and phase == P_LEAD and t.deal == 0 and t.played == U0:
            return True  # T30: the episode's first lead is always asked, so no episode ends at reset
        if x.forced_count[b] + ROOM > x.forced_seat.shape[1]:
            return False
        a = 0
        while not t.legal_action_mask[a]:
            a += 1
        p = t.current_player
        card = lowest(suit_cards(t.hands[p], a - r.lead)) if phase == P_LEAD else -1
        report_move(x, b, p, a, card)
        over = apply(t, r, x, b, a)
        while over:
            over = end_deal(t, r, x, b)


# ================================================================== batch entry points
@numba.njit(cache=True)
def deal_table(t, r, x, b):
    """A table's first deal of an episode (its seed, stacked decks and dealer are set; -1: drawn from the seed)."""
    if t.dealer < 0:
        t.dealer = uniform_int(t.seeds, STREAM_DEALER, 0, r.n)
    over = start_deal(t, r, x, b)
    while over:
        over = end_deal(t, r, x, b)
    done = settle(t, r, x, b)
    for p in range(r.n):
        t.rewards[p] = t.balance[p]  # the first ante (and anything resolved before the first decision)
    return done


@numba.njit(cache=True)
def init_tables(rec, r, x, pending):
    """Deal every table of a fresh state; ``pending[b]`` is set where forced moves wait on wider report arrays."""
    for b in range(rec.shape[0]):
        pending[b] = not deal_table(rec[b], r, x, b)


@numba.njit(cache=True)
def redeal_tables(rec, r, x, idx, seeds, pending):
    """Start a new episode at tables ``idx`` with ``seeds`` (as :func:`init_tables` deals them, no stacked deck)."""
    for i in range(idx.shape[0]):
        b = idx[i]
        t = rec[b]
        t.seeds = seeds[i]
        t.current_player = -1
        t.rewards[:] = 0.0
        t.terminated = False
        t.truncated = False
        clear_report(x, b)
        t.phase = 0
        t.deal = 0
        t.final = False
        t.final_pot = 0
        t.final_left[:] = 0
        t.dealer = -1
        t.balance[:] = 0
        t.layout[:] = 0
        t.seq_rank = r.seq_rank
        t.high_bid = 0
        t.high_bidder = -1
        t.passed[:] = False
        t.raises = 0
        t.acted[:] = False
        x.decks[b, :, :] = -1
        pending[i] = not deal_table(t, r, x, b)


@numba.njit(cache=True)
def play_tables(rec, r, x, idx, actions, pending):
    """``step`` at tables ``idx``: -1 after playing ``actions[i]`` at each unfinished table ``idx[i]``, then every
    forced move (rewards: the balance changes), or the position of the first illegal action with nothing changed."""
    bad = play.first_illegal(rec, idx, actions)
    if bad >= 0:
        return bad
    before = np.empty(r.n, np.int64)
    for i in range(idx.shape[0]):
        b = idx[i]
        t = rec[b]
        play.start_step(t, x, b)
        pending[i] = False
        if t.terminated or t.truncated:
            continue
        before[:] = t.balance[: r.n]
        over = apply(t, r, x, b, actions[i])
        while over:
            over = end_deal(t, r, x, b)
        pending[i] = not settle(t, r, x, b)
        for p in range(r.n):
            t.rewards[p] = t.balance[p] - before[p]
    return -1


@numba.njit(cache=True)
def resume_tables(rec, r, x, idx, pending):
    """Go on with the forced moves of tables ``idx`` after their report arrays were widened, or after a position was
    set up by hand (the legal masks are computed again); rewards add up."""
    before = np.empty(r.n, np.int64)
    for i in range(idx.shape[0]):
        b = idx[i]
        t = rec[b]
        before[:] = t.balance[: r.n]
        pending[i] = not settle(t, r, x, b)
        for p in range(r.n):
            t.rewards[p] += t.balance[p] - before[p]
