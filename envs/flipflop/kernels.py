"""Flip Flop's rules as compiled per-table kernels (numba), and the batch loops the game class calls.

Each rule function works on one table: its record ``t`` (:mod:`envs.core.records`; ``t.hands[p]`` is seat ``p``'s
hand), the arrays outside the records ``x`` (:data:`FlipFlopExtra`) and the table's index ``b``; it reads like the
rules file (rule ids in comments). The batch entry points (:func:`init_tables`, :func:`redeal_tables`,
:func:`play_tables`) loop over the tables inside compiled code: one call from Python per batch; the observation's
loop is :func:`envs.flipflop.observation.observe`. Card sets are ace-low ``uint64`` masks (see
:mod:`envs.flipflop.actions`).
"""

from __future__ import annotations

import numba
import numpy as np

from envs.core import play
from envs.core.bits import lowest, popcount
from envs.core.cards import partner_suit
from envs.core.forced import clear_report, report_move
from envs.core.records import kernel_tuple
from envs.core.rng import STREAM_DEALER, shuffle_into, uniform_int
from envs.flipflop import actions as T
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
)

FlipFlopExtra = kernel_tuple("FlipFlopExtra", ("decks", "forced_count", "forced_seat", "forced_action", "forced_card"))
"""The state's arrays outside the table records (their width varies): the stacked decks and the forced-move
report (:mod:`envs.core.forced`), batch axis first."""
FlipFlopRules = kernel_tuple("FlipFlopRules", ("n", "session", "until_one_left", "num_deals", "max_deals", "max_turns",
                                               "claim_on_deal", "auto_forced", "stake", "start"))
"""The configuration as the kernels take it (``claim_on_deal``: ``declare_49_50 == "deal"``; ``start``: the money
each seat starts with, ``bankroll`` in a session, else 0)."""

U0 = np.uint64(0)
U1 = np.uint64(1)
SUIT_BITS = np.uint64(0x1FFF)
NO_CARD = 64
HAND_SIZE = 5
LOW_OF = T.LOW_OF
PUB_OF = T.PUB_OF
SUIT_POINTS = T.SUIT_POINTS
SUIT_LOW = T.SUIT_LOW
RANK_LOW = T.RANK_LOW
ACES = T.ACES
KINGS = T.KINGS
RUN_VALID = T.RUN_VALID
SPREAD_CARDS = T.SPREAD_CARDS
IS_RUN = T.IS_RUN
SPREAD_SIZE = T.SPREAD_SIZE
FOURTH_CARD = T.FOURTH_CARD
LAYOFF_KIND = T.LAYOFF_KIND
LAYOFF_BIT = T.LAYOFF_BIT
LAYOFF_TARGET = T.LAYOFF_TARGET
LAYOFF_RANK = T.LAYOFF_RANK
ON_SET = T.ON_SET
DROP, DRAW_STOCK, DRAW_DISCARD, DISCARD = T.DROP, T.DRAW_STOCK, T.DRAW_DISCARD, T.DISCARD
LAY_RUN, LAY_OFF, CLAIM_ACTION, NUM_ACTIONS = T.LAY_RUN, T.LAY_OFF, T.CLAIM, T.NUM_ACTIONS


def _action_of_bits() -> tuple[np.ndarray, np.ndarray]:
    spread = np.full((9, 64), -1, np.int64)
    for i in range(T.NUM_SPREADS):
        spread[T.SPREAD_SOURCE[i], int(T.SPREAD_SHIFT[i])] = T.LAY_RUN + i
    layoff = np.full((3, 64), -1, np.int64)
    for j in range(len(T.LAYOFFS)):
        layoff[T.LAYOFF_KIND[j], int(T.LAYOFF_BIT[j])] = T.LAY_OFF + j
    return spread, layoff


SPREAD_ACTION, LAYOFF_ACTION = _action_of_bits()
"""``SPREAD_ACTION[pattern, bit]``: the lay action of bit ``bit`` of spread pattern ``pattern`` (see
:func:`spread_patterns`); ``LAYOFF_ACTION[kind, bit]``: the lay-off of ace-low bit ``bit`` of that kind (-1: none)."""


# ----- cards -------------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def hand_total(hand):
    """F2: the point total of one ace-low mask."""
    total = 0
    for k in range(4):
        total += SUIT_POINTS[np.int64((hand >> np.uint64(13 * k)) & SUIT_BITS)]
    return total


@numba.njit(cache=True)
def low_bit(mask):
    """Ace-low bit of the lowest card of ``mask``; 64 where empty."""
    return NO_CARD if mask == U0 else lowest(mask)


@numba.njit(cache=True)
def next_seat(active, seat):
    """C4: the first seat to the left of ``seat`` among the ``active`` seats (0 if none)."""
    n = active.shape[0]
    for i in range(n):
        p = (seat + 1 + i) % n
        if active[p]:
            return p
    return 0


@numba.njit(cache=True)
def fits_any(hand, runs, set_open):
    """F15: whether a card of ``hand`` goes below a run, above a run or on a set."""
    below = hand & (runs >> U1) & ~KINGS
    above = hand & (runs << U1) & ~ACES
    return (below | above | (hand & set_open)) != U0


# ----- money -------------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def share_game_pot(t, x, b, winners):
    """The game pot shared equally by ``winners`` (n,) (F3: amounts are real numbers)."""
    n = winners.shape[0]
    count = 0
    for p in range(n):
        count += winners[p]
    share = t.pots[GAME_POT] / count
    for p in range(n):
        if winners[p]:
            t.bank[p] += share
        t.won_game[p] = winners[p]
    t.pots[GAME_POT] = 0.0


@numba.njit(cache=True)
def pay_extra(t, x, b, payers):
    """One extra stake from each of ``payers`` (n,) into the game pot (F19, F20)."""
    count = 0
    for p in range(payers.shape[0]):
        if payers[p]:
            t.bank[p] -= 1
            count += 1
    t.pots[GAME_POT] += count


@numba.njit(cache=True)
def pay_sides(t, x, b):
    """Pay the flip and flop pots once the showing is complete (F9–F12); an unwon pot stays (F10)."""
    if t.sides_paid:
        return
    t.sides_paid = True
    for k in range(2):
        pot = FLIP_POT if k == FLIP else FLOP_POT
        w = t.side_winner[k]
        if w >= 0:
            t.bank[w] += t.pots[pot]
            t.pots[pot] = 0.0


# ----- deal --------------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def start_deal(t, rules, x, b):
    """Ante (F4, F24), deal (F5–F6), settle 49/50 hands (F7–F8) and begin the first turn at table ``b``."""
    n = rules.n
    deck = t.deck
    deal = t.deal_no
    k = min(deal, x.decks.shape[1] - 1)
    if deal < x.decks.shape[1] and x.decks[b, k, 0] >= 0:  # a deck given to init
        for i in range(52):
            deck[i] = x.decks[b, k, i]
    else:
        shuffle_into(t.seeds, deal, deck)
    for i in range(52):
        deck[i] = LOW_OF[deck[i]]
    # F4, F24: ante with one stake kept in reserve; the game pot only makes a player all in (F25).
    counts = np.zeros(3, np.int64)
    for p in range(n):
        in_deal = not t.out[p]
        if rules.session:
            can = min(max(np.floor(t.bank[p] - 1.0 + 1e-9), 0.0), 3.0) * in_deal
        else:
            can = 3 if in_deal else 0
        can = np.int64(can)
        for j in range(3):
            t.anted[p, j] = can > j
            counts[j] += can > j
        t.bank[p] -= can
        t.in_deal[p] = in_deal
        t.all_in[p] = can == 1
    for j in range(3):
        t.pots[j] += counts[j]
    # F5: five cards each, one at a time from the dealer's left; the dealer's fifth card is the flip card.
    order = np.empty(n, np.int64)
    m = 0
    for i in range(n):
        p = (t.dealer + 1 + i) % n
        if t.in_deal[p]:
            order[m] = p
            m += 1
    for p in range(n):
        t.hands[p] = U0
    for j in range(HAND_SIZE * m):
        t.hands[order[j % m]] |= U1 << np.uint64(deck[j])
    flip = deck[HAND_SIZE * m - 1]
    t.stock_pos = HAND_SIZE * m
    t.pile_len = 0
    t.runs = U0
    t.sets = U0
    t.set_open = U0
    t.taken = U0
    for p in range(n):
        t.spreads[p] = U0
        t.taken_by[p] = U0
        t.had_turn[p] = False
        t.spreads3[p] = 0
        t.other_laid[p] = False
        t.won_game[p] = False
        t.last_action[p] = -1
    t.flip_card = flip
    t.shown = U1 << np.uint64(flip)
    t.low_shown[FLIP] = flip % 13
    t.low_shown[FLOP] = 13
    t.sides_paid = False
    t.phase = DRAW
    t.turn_no = 0
    t.last_turn = False
    # F9–F11, F24: the flip and flop pots go to the lowest dealt card of their suit among those who anted them.
    flip_suit = flip // 13
    for k in range(2):
        suit = flip_suit if k == FLIP else partner_suit(flip_suit)
        best, winner = NO_CARD, -1
        for p in range(n):
            low = low_bit(t.hands[p] & SUIT_LOW[suit]) if t.anted[p, 1 + k] else NO_CARD
            if low < best:
                best, winner = low, p
        t.side_winner[k] = winner
    # F7: a dealt 49 or 50 is claimed before anybody plays (``deal``: the first claimant from the dealer's left is
    # asked) or at the claimant's first turn (``first_turn``, in begin_turn).
    if rules.claim_on_deal:
        for i in range(m):
            total = hand_total(t.hands[order[i]])
            if total == 49 or total == 50:
                t.current_player = order[i]
                t.phase = CLAIM
                return
    begin_turn(t, rules, x, b, order[0])


@numba.njit(cache=True)
def begin_turn(t, rules, x, b, seat):
    """Give the turn to ``seat``; a seat's first turn starts with its show (F12)."""
    t.current_player = seat
    t.phase = DRAW
    t.turn_no += 1
    t.taken = U0
    if t.had_turn[seat]:
        return
    t.had_turn[seat] = True
    flip_suit = t.flip_card // 13
    for k in range(2):
        suit = flip_suit if k == FLIP else partner_suit(flip_suit)
        low = low_bit(t.hands[seat] & SUIT_LOW[suit])
        if low < NO_CARD and low - 13 * suit < t.low_shown[k]:
            t.shown |= U1 << np.uint64(low)
            t.low_shown[k] = low % 13
    if seat == t.dealer:
        pay_sides(t, x, b)
    if not rules.claim_on_deal:  # F7: the claim comes at the start of the first turn
        total = hand_total(t.hands[seat])
        if total == 49 or total == 50:
            t.phase = CLAIM


@numba.njit(cache=True)
def show_rest(t, rules, x, b):
    """F12: when a deal ends before the showing is complete, the players who had no turn yet show at once, in order
    from the dealer's left (each shows a card lower than every card shown before it)."""
    if t.sides_paid:
        return
    n = rules.n
    flip_suit = t.flip_card // 13
    for k in range(2):
        suit = flip_suit if k == FLIP else partner_suit(flip_suit)
        lowest_so_far = t.low_shown[k]
        for i in range(n):
            p = (t.dealer + 1 + i) % n
            if t.had_turn[p] or not t.in_deal[p]:
                continue
            low = low_bit(t.hands[p] & SUIT_LOW[suit])
            if low < NO_CARD and low - 13 * suit < lowest_so_far:
                t.shown |= U1 << np.uint64(low)
                lowest_so_far = low - 13 * suit
        t.low_shown[k] = lowest_so_far


@numba.njit(cache=True)
def end_episode(t, x, b, truncated):
    """C13: the episode ends at table ``b`` (terminated, or truncated by F28)."""
    if truncated:
        t.truncated = True
    else:
        t.terminated = True
    t.current_player = -1
    t.legal_action_mask[:] = False


@numba.njit(cache=True)
def finish_deal(t, rules, x, b, reason):
    """After the game pot is settled: side pots (F12), eliminations (F25), then the next deal or the end (F23)."""
    n = rules.n
    t.end_reason = reason
    pay_sides(t, x, b)
    t.deal_no += 1
    more = False
    if rules.session:
        left = 0
        for p in range(n):
            if t.in_deal[p] and t.all_in[p] and not t.won_game[p]:
                t.out[p] = True
            if t.bank[p] < 2.0 - 1e-9:  # F25: cannot ante the game pot and keep the reserve
                t.out[p] = True
            left += not t.out[p]
        more = (rules.until_one_left or t.deal_no < rules.num_deals) and left >= 2
    if not more:
        end_episode(t, x, b, False)
    elif t.deal_no >= rules.max_deals:  # F28: the session would go on
        end_episode(t, x, b, True)
    else:
        t.dealer = next_seat(t.out[:n] == 0, t.dealer)
        start_deal(t, rules, x, b)


# ----- end of a deal -----------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def settle_out(t, rules, x, b, seat, tunk):
    """F18: the player who went out takes the game pot; F20: after a tunk every other player pays one stake."""
    n = rules.n
    winner = np.zeros(n, np.bool_)
    winner[seat] = True
    if tunk:
        pay_extra(t, x, b, t.in_deal[:n] & ~winner)
    share_game_pot(t, x, b, winner)
    show_rest(t, rules, x, b)
    finish_deal(t, rules, x, b, TUNKED if tunk else WENT_OUT)


@numba.njit(cache=True)
def settle_showdown(t, rules, x, b, dropper):
    """Everybody shows (F19, F21); the lowest total takes the game pot, ties share it. ``dropper``: the seat that
    dropped (F17, F19: it wins only with the strictly lowest total, else pays one stake), -1 after the stock ran out
    (F21)."""
    n = rules.n
    totals = np.empty(n, np.int64)
    for p in range(n):
        t.shown |= t.hands[p]
        totals[p] = hand_total(t.hands[p]) if t.in_deal[p] else 10_000
    winners = np.zeros(n, np.bool_)
    if dropper < 0:
        best = totals.min()
        for p in range(n):
            winners[p] = totals[p] == best
        share_game_pot(t, x, b, winners)
        finish_deal(t, rules, x, b, STOCK_OUT)
        return
    best = 10_000
    for p in range(n):
        if p != dropper:
            best = min(best, totals[p])
    won = totals[dropper] < best
    if won:
        winners[dropper] = True
    else:
        payer = np.zeros(n, np.bool_)
        payer[dropper] = True
        pay_extra(t, x, b, payer)
        for p in range(n):
            winners[p] = p != dropper and totals[p] == best
    share_game_pot(t, x, b, winners)
    finish_deal(t, rules, x, b, DROP_WON if won else CAUGHT)


@numba.njit(cache=True)
def settle_claim(t, rules, x, b, seat):
    """F7, F8: the claim of a 49 or 50. With ``deal`` every claimant shares the game pot and every player without
    50 pays one extra stake shared by the 50s; with ``first_turn`` the claimant alone takes the game pot and, with
    50, one extra stake from every other player. The claimants show their hands; the deal ends."""
    n = rules.n
    winners = np.zeros(n, np.bool_)
    fifty = np.zeros(n, np.bool_)
    fifties, payers = 0, 0
    for p in range(n):
        total = hand_total(t.hands[p]) if t.in_deal[p] else 0
        winners[p] = (total == 49 or total == 50) if rules.claim_on_deal else p == seat
        fifty[p] = winners[p] and total == 50
        fifties += fifty[p]
        payers += t.in_deal[p] and not fifty[p]
        if winners[p]:
            t.shown |= t.hands[p]
    share_game_pot(t, x, b, winners)
    if fifties:
        share = payers / fifties
        for p in range(n):
            if fifty[p]:
                t.bank[p] += share
            elif t.in_deal[p]:
                t.bank[p] -= 1.0
    show_rest(t, rules, x, b)
    finish_deal(t, rules, x, b, INSTANT)


# ----- actions -----------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def apply(t, rules, x, b, action):
    """Play the legal ``action`` of the current player at table ``b`` (F13–F21)."""
    p = t.current_player
    t.last_action[p] = action
    if action == DROP:  # F17
        settle_showdown(t, rules, x, b, p)
    elif action == DRAW_STOCK:  # F13; F21: note when it was the last card
        t.hands[p] |= U1 << np.uint64(t.deck[t.stock_pos])
        t.stock_pos += 1
        t.last_turn = t.stock_pos == 52
        t.phase = PLAY
    elif action < DISCARD:  # F13: the top of the discard pile (public, F27; not to be discarded this turn)
        t.pile_len -= 1
        card = U1 << np.uint64(t.pile[t.pile_len])
        t.hands[p] |= card
        t.taken = card
        t.taken_by[p] |= card
        t.phase = PLAY
    elif action < LAY_RUN:
        discard(t, rules, x, b, p, LOW_OF[action - DISCARD])
    elif action < LAY_OFF:
        lay(t, rules, x, b, p, action - LAY_RUN)
    elif action < CLAIM_ACTION:
        lay_off(t, rules, x, b, p, action - LAY_OFF)
    else:
        settle_claim(t, rules, x, b, p)


@numba.njit(cache=True)
def lay(t, rules, x, b, p, i):
    """F14: lay spread ``i``; F16/F18/F20: an empty hand goes out, a tunk after exactly two spreads of three."""
    cards = SPREAD_CARDS[i]
    t.hands[p] &= ~cards
    t.spreads[p] |= cards
    if IS_RUN[i]:
        t.runs |= cards
    else:
        t.sets |= cards
    t.set_open |= FOURTH_CARD[i]
    t.spreads3[p] += SPREAD_SIZE[i] == 3
    t.other_laid[p] |= SPREAD_SIZE[i] != 3
    if t.hands[p] == U0:
        settle_out(t, rules, x, b, p, t.spreads3[p] == 2 and not t.other_laid[p])


@numba.njit(cache=True)
def lay_off(t, rules, x, b, p, j):
    """F15: lay off card ``j``; it joins the spread of whoever laid that spread. F16/F18: an empty hand goes out."""
    n = rules.n
    card = U1 << LAYOFF_BIT[j]
    on_set = LAYOFF_KIND[j] == ON_SET
    target = t.sets & RANK_LOW[LAYOFF_RANK[j]] if on_set else LAYOFF_TARGET[j]
    owner = 0
    for q in range(n):
        if t.spreads[q] & target != U0:
            owner = q
            break
    t.spreads[owner] |= card
    t.hands[p] &= ~card
    if on_set:
        t.sets |= card
    else:
        t.runs |= card
    t.set_open &= ~card
    t.other_laid[p] = True
    if t.hands[p] == U0:
        settle_out(t, rules, x, b, p, False)


@numba.njit(cache=True)
def discard(t, rules, x, b, p, low):
    """F13: discard ace-low bit ``low``, ending the turn; F18: going out; F21: after the last card of the stock the
    deal ends; F28: a deal that would go on after ``max_turns`` turns is cut off."""
    t.hands[p] &= ~(U1 << np.uint64(low))
    t.pile[t.pile_len] = low
    t.pile_len += 1
    if t.hands[p] == U0:
        settle_out(t, rules, x, b, p, False)
    elif t.last_turn:
        settle_showdown(t, rules, x, b, -1)
    elif t.turn_no >= rules.max_turns:
        t.end_reason = CUT_OFF
        end_episode(t, x, b, True)
    else:
        begin_turn(t, rules, x, b, next_seat(t.in_deal[: rules.n], p))


# ----- legal actions -----------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def spread_patterns(hand, out):
    """F14: ``out[0:4]`` the starts of runs of 3, 4, 5, 6 cards in ``hand`` (ace-low bits), ``out[4:9]`` per ace-low
    rank the sets of three missing ♣, ♦, ♥, ♠ and the sets of four. Returns whether any is non-empty."""
    run = hand & (hand >> U1)
    for k in range(4):
        run = run & (hand >> np.uint64(k + 2)) & RUN_VALID[k]
        out[k] = run
    c = hand & SUIT_BITS
    d = (hand >> np.uint64(13)) & SUIT_BITS
    h = (hand >> np.uint64(26)) & SUIT_BITS
    sp = (hand >> np.uint64(39)) & SUIT_BITS
    out[4] = d & h & sp
    out[5] = c & h & sp
    out[6] = c & d & sp
    out[7] = c & d & h
    out[8] = c & d & h & sp
    return (out[0] | out[4] | out[5] | out[6] | out[7]) != U0


@numba.njit(cache=True)
def set_masks(t, x, b):
    """Write the legal-action mask of table ``b``; return how many actions are legal."""
    mask = t.legal_action_mask
    mask[:] = False
    if t.phase == CLAIM:  # F7: the claim is the claimant's one legal action
        mask[CLAIM_ACTION] = True
        return 1
    if t.phase == DRAW:  # F13, F17
        mask[DROP] = True
        mask[DRAW_STOCK] = True
        if t.pile_len > 0:
            mask[DRAW_DISCARD + PUB_OF[t.pile[t.pile_len - 1]]] = True
            return 3
        return 2
    hand = t.hands[t.current_player]
    taken = t.taken
    rest = hand & ~taken  # F13: the card just taken may not be discarded
    count = 0
    m = rest
    while m != U0:
        mask[DISCARD + PUB_OF[lowest(m)]] = True
        count += 1
        m &= m - U1
    runs, sets_open = t.runs, t.set_open
    patterns = np.empty(9, np.uint64)
    below = hand & (runs >> U1) & ~KINGS
    above = hand & (runs << U1) & ~ACES
    on_set = hand & sets_open
    if not spread_patterns(hand, patterns) and (below | above | on_set) == U0:
        return count
    # Keep a turn able to end: never leave only the card just taken from the discard pile, unless it can then be
    # laid off (decision, see the module docstring of envs.flipflop.core).
    guard = taken & hand != U0
    run_after, set_after = True, True
    if guard:
        run_after = fits_any(taken, runs | rest, sets_open)
        fourth = RANK_LOW[lowest(rest) % 13] & ~rest if popcount(rest) == 3 else U0
        set_after = fits_any(taken, runs, (sets_open & ~rest) | fourth)
    for k in range(9):
        m = patterns[k]
        while m != U0:
            a = SPREAD_ACTION[k, lowest(m)]
            m &= m - U1
            if guard and SPREAD_CARDS[a - LAY_RUN] == rest and not (run_after if k < 4 else set_after):
                continue
            mask[a] = True
            count += 1
    fits = (below, above, on_set)
    for k in range(3):
        m = fits[k]
        while m != U0:
            low = lowest(m)
            m &= m - U1
            if guard and (U1 << np.uint64(low)) == rest and not (set_after if k == ON_SET else run_after):
                continue
            mask[LAYOFF_ACTION[k, low]] = True
            count += 1
    return count


@numba.njit(cache=True)
def settle_moves(t, rules, x, b):
    """Compute the mask of table ``b`` and play forced moves (C8) until it waits on a choice or is done."""
    while not (t.terminated or t.truncated):
        count = set_masks(t, x, b)
        if not rules.auto_forced or count != 1 or t.phase == CLAIM:  # F7: a claim is always asked
            return
        action = np.argmax(t.legal_action_mask)
        report_move(x, b, t.current_player, action, -1)  # at most one per step: the arrays have room (core.py)
        apply(t, rules, x, b, action)


# ----- batch entry points ------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def new_episode(t, rules, x, b):
    """Deal a new episode at table ``b`` from its seed (and its stacked decks, its dealer if not -1)."""
    n = rules.n
    t.terminated = False
    t.truncated = False
    clear_report(x, b)
    t.pile[:] = 0
    t.pots[:] = 0.0
    t.end_reason = 0
    t.deal_no = 0
    for p in range(n):
        t.bank[p] = rules.start
        t.out[p] = False
    if t.dealer < 0:
        t.dealer = uniform_int(t.seeds, STREAM_DEALER, 0, n)
    start_deal(t, rules, x, b)
    settle_moves(t, rules, x, b)
    for p in range(n):
        t.rewards[p] = (t.bank[p] - rules.start) * rules.stake


@numba.njit(cache=True)
def init_tables(rec, rules, x):
    """Deal every table of a fresh state (seeds, stacked decks and dealers, -1 for none, already in the records)."""
    for b in range(rec.shape[0]):
        new_episode(rec[b], rules, x, b)


@numba.njit(cache=True)
def redeal_tables(rec, rules, x, idx, seeds):
    """Re-deal tables ``idx`` as ``init(seeds)`` would (no stacked deck, the dealer from the seed)."""
    for i in range(idx.shape[0]):
        b = idx[i]
        t = rec[b]
        t.seeds = seeds[i]
        x.decks[b] = -1
        t.dealer = -1
        new_episode(t, rules, x, b)


@numba.njit(cache=True)
def play_tables(rec, rules, x, idx, actions):
    """``step`` at tables ``idx``: -1 after playing ``actions[i]`` at each unfinished table ``idx[i]``, forced moves
    included (rewards: the change of each seat's money times ``stake``, F26), or the position of the first illegal
    action with nothing changed."""
    bad = play.first_illegal(rec, idx, actions)
    if bad >= 0:
        return bad
    for i in range(idx.shape[0]):
        b = idx[i]
        t = rec[b]
        play.start_step(t, x, b)
        if t.terminated or t.truncated:
            continue
        n = rules.n
        for p in range(n):
            t.rewards[p] = t.bank[p]
        apply(t, rules, x, b, actions[i])
        settle_moves(t, rules, x, b)
        for p in range(n):
            t.rewards[p] = (t.bank[p] - t.rewards[p]) * rules.stake
    return -1
