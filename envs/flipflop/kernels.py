"""Flip Flop's rules as compiled per-table kernels (numba), and the batch loops the game class calls.

Each rule function works on one table ``b`` of the state ``s`` (:data:`Tables`, a named tuple of the state's arrays,
batch axis first) and reads like the rules file (rule ids in comments). The batch entry points (:func:`init_tables`,
:func:`redeal_tables`, :func:`step_tables`) loop over the tables inside compiled code: one call from Python per batch;
the observation's loop is :func:`envs.flipflop.observation.observe`. Card sets are ace-low ``uint64`` masks (see
:mod:`envs.flipflop.actions`).
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from envs.core.bits import lowest, popcount
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

TABLE_FIELDS = (
    "seeds", "current_player", "legal_action_mask", "rewards", "terminated", "truncated", "forced_count",
    "forced_seat", "forced_action", "forced_card", "hands", "deck", "stock_pos", "pile", "pile_len", "runs", "sets",
    "set_open", "spreads", "taken_by", "shown", "flip_card", "low_shown", "had_turn", "side_winner", "sides_paid",
    "phase", "turn_no", "taken", "last_turn", "spreads3", "other_laid", "bank", "pots", "anted", "in_deal", "out",
    "all_in", "won_game", "dealer", "deal_no", "last_action", "decks", "end_reason",
)
Tables = namedtuple("Tables", TABLE_FIELDS)
"""The state's arrays as the kernels take them (same names as :class:`envs.flipflop.state.FlipFlopState`)."""
Rules = namedtuple("Rules", ("session", "until_one_left", "num_deals", "max_deals", "max_turns", "claim_on_deal",
                             "auto_forced", "stake", "start"))
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
def share_game_pot(s, b, winners):
    """The game pot shared equally by ``winners`` (n,) (F3: amounts are real numbers)."""
    n = winners.shape[0]
    count = 0
    for p in range(n):
        count += winners[p]
    share = s.pots[b, GAME_POT] / count
    for p in range(n):
        if winners[p]:
            s.bank[b, p] += share
        s.won_game[b, p] = winners[p]
    s.pots[b, GAME_POT] = 0.0


@numba.njit(cache=True)
def pay_extra(s, b, payers):
    """One extra stake from each of ``payers`` (n,) into the game pot (F19, F20)."""
    count = 0
    for p in range(payers.shape[0]):
        if payers[p]:
            s.bank[b, p] -= 1
            count += 1
    s.pots[b, GAME_POT] += count


@numba.njit(cache=True)
def pay_sides(s, b):
    """Pay the flip and flop pots once the showing is complete (F9–F12); an unwon pot stays (F10)."""
    if s.sides_paid[b]:
        return
    s.sides_paid[b] = True
    for k in range(2):
        pot = FLIP_POT if k == FLIP else FLOP_POT
        w = s.side_winner[b, k]
        if w >= 0:
            s.bank[b, w] += s.pots[b, pot]
            s.pots[b, pot] = 0.0


# ----- deal --------------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def start_deal(s, rules, b):
    """Ante (F4, F24), deal (F5–F6), settle 49/50 hands (F7–F8) and begin the first turn at table ``b``."""
    n = s.hands.shape[1]
    deck = s.deck[b]
    deal = s.deal_no[b]
    k = min(deal, s.decks.shape[1] - 1)
    if deal < s.decks.shape[1] and s.decks[b, k, 0] >= 0:  # a deck given to init
        for i in range(52):
            deck[i] = s.decks[b, k, i]
    else:
        shuffle_into(s.seeds[b], deal, deck)
    for i in range(52):
        deck[i] = LOW_OF[deck[i]]
    # F4, F24: ante with one stake kept in reserve; the game pot only makes a player all in (F25).
    counts = np.zeros(3, np.int64)
    for p in range(n):
        in_deal = not s.out[b, p]
        if rules.session:
            can = min(max(np.floor(s.bank[b, p] - 1.0 + 1e-9), 0.0), 3.0) * in_deal
        else:
            can = 3 if in_deal else 0
        can = np.int64(can)
        for j in range(3):
            s.anted[b, p, j] = can > j
            counts[j] += can > j
        s.bank[b, p] -= can
        s.in_deal[b, p] = in_deal
        s.all_in[b, p] = can == 1
    for j in range(3):
        s.pots[b, j] += counts[j]
    # F5: five cards each, one at a time from the dealer's left; the dealer's fifth card is the flip card.
    order = np.empty(n, np.int64)
    m = 0
    for i in range(n):
        p = (s.dealer[b] + 1 + i) % n
        if s.in_deal[b, p]:
            order[m] = p
            m += 1
    for p in range(n):
        s.hands[b, p] = U0
    for j in range(HAND_SIZE * m):
        s.hands[b, order[j % m]] |= U1 << np.uint64(deck[j])
    flip = deck[HAND_SIZE * m - 1]
    s.stock_pos[b] = HAND_SIZE * m
    s.pile_len[b] = 0
    s.runs[b] = U0
    s.sets[b] = U0
    s.set_open[b] = U0
    s.taken[b] = U0
    for p in range(n):
        s.spreads[b, p] = U0
        s.taken_by[b, p] = U0
        s.had_turn[b, p] = False
        s.spreads3[b, p] = 0
        s.other_laid[b, p] = False
        s.won_game[b, p] = False
        s.last_action[b, p] = -1
    s.flip_card[b] = flip
    s.shown[b] = U1 << np.uint64(flip)
    s.low_shown[b, FLIP] = flip % 13
    s.low_shown[b, FLOP] = 13
    s.sides_paid[b] = False
    s.phase[b] = DRAW
    s.turn_no[b] = 0
    s.last_turn[b] = False
    # F9–F11, F24: the flip and flop pots go to the lowest dealt card of their suit among those who anted them.
    flip_suit = flip // 13
    for k in range(2):
        suit = flip_suit if k == FLIP else 3 - flip_suit
        best, winner = NO_CARD, -1
        for p in range(n):
            low = low_bit(s.hands[b, p] & SUIT_LOW[suit]) if s.anted[b, p, 1 + k] else NO_CARD
            if low < best:
                best, winner = low, p
        s.side_winner[b, k] = winner
    # F7: a dealt 49 or 50 is claimed before anybody plays (``deal``: the first claimant from the dealer's left is
    # asked) or at the claimant's first turn (``first_turn``, in begin_turn).
    if rules.claim_on_deal:
        for i in range(m):
            total = hand_total(s.hands[b, order[i]])
            if total == 49 or total == 50:
                s.current_player[b] = order[i]
                s.phase[b] = CLAIM
                return
    begin_turn(s, rules, b, order[0])


@numba.njit(cache=True)
def begin_turn(s, rules, b, seat):
    """Give the turn to ``seat``; a seat's first turn starts with its show (F12)."""
    s.current_player[b] = seat
    s.phase[b] = DRAW
    s.turn_no[b] += 1
    s.taken[b] = U0
    if s.had_turn[b, seat]:
        return
    s.had_turn[b, seat] = True
    flip_suit = s.flip_card[b] // 13
    for k in range(2):
        suit = flip_suit if k == FLIP else 3 - flip_suit
        low = low_bit(s.hands[b, seat] & SUIT_LOW[suit])
        if low < NO_CARD and low - 13 * suit < s.low_shown[b, k]:
            s.shown[b] |= U1 << np.uint64(low)
            s.low_shown[b, k] = low % 13
    if seat == s.dealer[b]:
        pay_sides(s, b)
    if not rules.claim_on_deal:  # F7: the claim comes at the start of the first turn
        total = hand_total(s.hands[b, seat])
        if total == 49 or total == 50:
            s.phase[b] = CLAIM


@numba.njit(cache=True)
def show_rest(s, b):
    """F12: when a deal ends before the showing is complete, the players who had no turn yet show at once, in order
    from the dealer's left (each shows a card lower than every card shown before it)."""
    if s.sides_paid[b]:
        return
    n = s.hands.shape[1]
    flip_suit = s.flip_card[b] // 13
    for k in range(2):
        suit = flip_suit if k == FLIP else 3 - flip_suit
        lowest_so_far = s.low_shown[b, k]
        for i in range(n):
            p = (s.dealer[b] + 1 + i) % n
            if s.had_turn[b, p] or not s.in_deal[b, p]:
                continue
            low = low_bit(s.hands[b, p] & SUIT_LOW[suit])
            if low < NO_CARD and low - 13 * suit < lowest_so_far:
                s.shown[b] |= U1 << np.uint64(low)
                lowest_so_far = low - 13 * suit
        s.low_shown[b, k] = lowest_so_far


@numba.njit(cache=True)
def end_episode(s, b, truncated):
    """C13: the episode ends at table ``b`` (terminated, or truncated by F28)."""
    if truncated:
        s.truncated[b] = True
    else:
        s.terminated[b] = True
    s.current_player[b] = -1
    s.legal_action_mask[b, :] = False


@numba.njit(cache=True)
def finish_deal(s, rules, b, reason):
    """After the game pot is settled: side pots (F12), eliminations (F25), then the next deal or the end (F23)."""
    n = s.hands.shape[1]
    s.end_reason[b] = reason
    pay_sides(s, b)
    s.deal_no[b] += 1
    more = False
    if rules.session:
        left = 0
        for p in range(n):
            if s.in_deal[b, p] and s.all_in[b, p] and not s.won_game[b, p]:
                s.out[b, p] = True
            if s.bank[b, p] < 2.0 - 1e-9:  # F25: cannot ante the game pot and keep the reserve
                s.out[b, p] = True
            left += not s.out[b, p]
        more = (rules.until_one_left or s.deal_no[b] < rules.num_deals) and left >= 2
    if not more:
        end_episode(s, b, False)
    elif s.deal_no[b] >= rules.max_deals:  # F28: the session would go on
        end_episode(s, b, True)
    else:
        s.dealer[b] = next_seat(~s.out[b], s.dealer[b])
        start_deal(s, rules, b)


# ----- end of a deal -----------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def settle_out(s, rules, b, seat, tunk):
    """F18: the player who went out takes the game pot; F20: after a tunk every other player pays one stake."""
    n = s.hands.shape[1]
    winner = np.zeros(n, np.bool_)
    winner[seat] = True
    if tunk:
        pay_extra(s, b, s.in_deal[b] & ~winner)
    share_game_pot(s, b, winner)
    show_rest(s, b)
    finish_deal(s, rules, b, TUNKED if tunk else WENT_OUT)


@numba.njit(cache=True)
def settle_showdown(s, rules, b, dropper):
    """Everybody shows (F19, F21); the lowest total takes the game pot, ties share it. ``dropper``: the seat that
    dropped (F17, F19: it wins only with the strictly lowest total, else pays one stake), -1 after the stock ran out
    (F21)."""
    n = s.hands.shape[1]
    totals = np.empty(n, np.int64)
    for p in range(n):
        s.shown[b] |= s.hands[b, p]
        totals[p] = hand_total(s.hands[b, p]) if s.in_deal[b, p] else 10_000
    winners = np.zeros(n, np.bool_)
    if dropper < 0:
        best = totals.min()
        for p in range(n):
            winners[p] = totals[p] == best
        share_game_pot(s, b, winners)
        finish_deal(s, rules, b, STOCK_OUT)
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
        pay_extra(s, b, payer)
        for p in range(n):
            winners[p] = p != dropper and totals[p] == best
    share_game_pot(s, b, winners)
    finish_deal(s, rules, b, DROP_WON if won else CAUGHT)


@numba.njit(cache=True)
def settle_claim(s, rules, b, seat):
    """F7, F8: the claim of a 49 or 50. With ``deal`` every claimant shares the game pot and every player without
    50 pays one extra stake shared by the 50s; with ``first_turn`` the claimant alone takes the game pot and, with
    50, one extra stake from every other player. The claimants show their hands; the deal ends."""
    n = s.hands.shape[1]
    winners = np.zeros(n, np.bool_)
    fifty = np.zeros(n, np.bool_)
    fifties, payers = 0, 0
    for p in range(n):
        total = hand_total(s.hands[b, p]) if s.in_deal[b, p] else 0
        winners[p] = (total == 49 or total == 50) if rules.claim_on_deal else p == seat
        fifty[p] = winners[p] and total == 50
        fifties += fifty[p]
        payers += s.in_deal[b, p] and not fifty[p]
        if winners[p]:
            s.shown[b] |= s.hands[b, p]
    share_game_pot(s, b, winners)
    if fifties:
        share = payers / fifties
        for p in range(n):
            if fifty[p]:
                s.bank[b, p] += share
            elif s.in_deal[b, p]:
                s.bank[b, p] -= 1.0
    show_rest(s, b)
    finish_deal(s, rules, b, INSTANT)


# ----- actions -----------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def apply(s, rules, b, action):
    """Play the legal ``action`` of the current player at table ``b`` (F13–F21)."""
    p = s.current_player[b]
    s.last_action[b, p] = action
    if action == DROP:  # F17
        settle_showdown(s, rules, b, p)
    elif action == DRAW_STOCK:  # F13; F21: note when it was the last card
        s.hands[b, p] |= U1 << np.uint64(s.deck[b, s.stock_pos[b]])
        s.stock_pos[b] += 1
        s.last_turn[b] = s.stock_pos[b] == 52
        s.phase[b] = PLAY
    elif action < DISCARD:  # F13: the top of the discard pile (public, F27; not to be discarded this turn)
        s.pile_len[b] -= 1
        card = U1 << np.uint64(s.pile[b, s.pile_len[b]])
        s.hands[b, p] |= card
        s.taken[b] = card
        s.taken_by[b, p] |= card
        s.phase[b] = PLAY
    elif action < LAY_RUN:
        discard(s, rules, b, p, LOW_OF[action - DISCARD])
    elif action < LAY_OFF:
        lay(s, rules, b, p, action - LAY_RUN)
    elif action < CLAIM_ACTION:
        lay_off(s, rules, b, p, action - LAY_OFF)
    else:
        settle_claim(s, rules, b, p)


@numba.njit(cache=True)
def lay(s, rules, b, p, i):
    """F14: lay spread ``i``; F16/F18/F20: an empty hand goes out, a tunk after exactly two spreads of three."""
    cards = SPREAD_CARDS[i]
    s.hands[b, p] &= ~cards
    s.spreads[b, p] |= cards
    if IS_RUN[i]:
        s.runs[b] |= cards
    else:
        s.sets[b] |= cards
    s.set_open[b] |= FOURTH_CARD[i]
    s.spreads3[b, p] += SPREAD_SIZE[i] == 3
    s.other_laid[b, p] |= SPREAD_SIZE[i] != 3
    if s.hands[b, p] == U0:
        settle_out(s, rules, b, p, s.spreads3[b, p] == 2 and not s.other_laid[b, p])


@numba.njit(cache=True)
def lay_off(s, rules, b, p, j):
    """F15: lay off card ``j``; it joins the spread of whoever laid that spread. F16/F18: an empty hand goes out."""
    n = s.hands.shape[1]
    card = U1 << LAYOFF_BIT[j]
    on_set = LAYOFF_KIND[j] == ON_SET
    target = s.sets[b] & RANK_LOW[LAYOFF_RANK[j]] if on_set else LAYOFF_TARGET[j]
    owner = 0
    for q in range(n):
        if s.spreads[b, q] & target != U0:
            owner = q
            break
    s.spreads[b, owner] |= card
    s.hands[b, p] &= ~card
    if on_set:
        s.sets[b] |= card
    else:
        s.runs[b] |= card
    s.set_open[b] &= ~card
    s.other_laid[b, p] = True
    if s.hands[b, p] == U0:
        settle_out(s, rules, b, p, False)


@numba.njit(cache=True)
def discard(s, rules, b, p, low):
    """F13: discard ace-low bit ``low``, ending the turn; F18: going out; F21: after the last card of the stock the
    deal ends; F28: a deal that would go on after ``max_turns`` turns is cut off."""
    s.hands[b, p] &= ~(U1 << np.uint64(low))
    s.pile[b, s.pile_len[b]] = low
    s.pile_len[b] += 1
    if s.hands[b, p] == U0:
        settle_out(s, rules, b, p, False)
    elif s.last_turn[b]:
        settle_showdown(s, rules, b, -1)
    elif s.turn_no[b] >= rules.max_turns:
        s.end_reason[b] = CUT_OFF
        end_episode(s, b, True)
    else:
        begin_turn(s, rules, b, next_seat(s.in_deal[b], p))


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
def set_masks(s, b):
    """Write the legal-action mask of table ``b``; return how many actions are legal."""
    mask = s.legal_action_mask[b]
    mask[:] = False
    if s.phase[b] == CLAIM:  # F7: the claim is the claimant's one legal action
        mask[CLAIM_ACTION] = True
        return 1
    if s.phase[b] == DRAW:  # F13, F17
        mask[DROP] = True
        mask[DRAW_STOCK] = True
        if s.pile_len[b] > 0:
            mask[DRAW_DISCARD + PUB_OF[s.pile[b, s.pile_len[b] - 1]]] = True
            return 3
        return 2
    hand = s.hands[b, s.current_player[b]]
    taken = s.taken[b]
    rest = hand & ~taken  # F13: the card just taken may not be discarded
    count = 0
    m = rest
    while m != U0:
        mask[DISCARD + PUB_OF[lowest(m)]] = True
        count += 1
        m &= m - U1
    runs, sets_open = s.runs[b], s.set_open[b]
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
def settle_moves(s, rules, b):
    """Compute the mask of table ``b`` and play forced moves (C8) until it waits on a choice or is done."""
    while not (s.terminated[b] or s.truncated[b]):
        count = set_masks(s, b)
        if not rules.auto_forced or count != 1 or s.phase[b] == CLAIM:  # F7: a claim is always asked
            return
        action = np.argmax(s.legal_action_mask[b])
        k = s.forced_count[b]
        if k < s.forced_seat.shape[1]:
            s.forced_seat[b, k] = s.current_player[b]
            s.forced_action[b, k] = action
            s.forced_card[b, k] = -1
        s.forced_count[b] = k + 1
        apply(s, rules, b, action)


# ----- batch entry points ------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def new_episode(s, rules, b):
    """Deal a new episode at table ``b`` from its seed (and its stacked decks, its dealer if not -1)."""
    n = s.hands.shape[1]
    s.terminated[b] = False
    s.truncated[b] = False
    s.forced_count[b] = 0
    s.forced_seat[b, :] = -1
    s.forced_action[b, :] = -1
    s.forced_card[b, :] = -1
    s.pile[b, :] = 0
    s.pots[b, :] = 0.0
    s.end_reason[b] = 0
    s.deal_no[b] = 0
    for p in range(n):
        s.bank[b, p] = rules.start
        s.out[b, p] = False
    if s.dealer[b] < 0:
        s.dealer[b] = uniform_int(s.seeds[b], STREAM_DEALER, 0, n)
    start_deal(s, rules, b)
    settle_moves(s, rules, b)
    for p in range(n):
        s.rewards[b, p] = (s.bank[b, p] - rules.start) * rules.stake


@numba.njit(cache=True)
def init_tables(s, rules):
    """Deal every table of a fresh state (seeds, stacked decks and dealers, -1 for none, already in ``s``)."""
    for b in range(s.seeds.shape[0]):
        new_episode(s, rules, b)


@numba.njit(cache=True)
def redeal_tables(s, rules, idx, seeds):
    """Re-deal tables ``idx`` as ``init(seeds)`` would (no stacked deck, the dealer from the seed)."""
    for i in range(idx.shape[0]):
        b = idx[i]
        s.seeds[b] = seeds[i]
        s.decks[b] = -1
        s.dealer[b] = -1
        new_episode(s, rules, b)


@numba.njit(cache=True)
def step_tables(s, rules, idx, actions):
    """Play ``actions[i]`` at table ``idx[i]`` (legal, checked by the caller), forced moves included; the rewards
    are the change of each seat's money times ``stake`` (F26)."""
    n = s.hands.shape[1]
    for i in range(idx.shape[0]):
        b = idx[i]
        for p in range(n):
            s.rewards[b, p] = s.bank[b, p]
        apply(s, rules, b, actions[i])
        settle_moves(s, rules, b)
        for p in range(n):
            s.rewards[b, p] = (s.bank[b, p] - s.rewards[b, p]) * rules.stake
