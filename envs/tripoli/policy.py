"""A Tripoli heuristic's decision, compiled: one observation row at a time, for samplers and search rollouts.

:class:`agents.tripoli_heuristic.TripoliHeuristic` and its styles decide with numpy over a batch; a search plays
thousands of short rollouts and replays, where the per-call cost of dozens of numpy operations dominates.
:func:`decide` is the same decision written for one observation row (the observation is all it reads), compiled;
the styles differ only by the parameters of a :data:`TripoliPolicy` (``agents/tripoli_rollout.py: policy_of`` builds
it from a zoo bot's class; the lead score by ``lead_style``: 0 the heuristic's, 1 ``longsuit``'s, 2 ``lowlead``'s),
and the table of sorted opponent hand values by hand size (``agents/tripoli_rollout.py: win_table``).
:func:`rollout_tables` plays tables to the end of their deal inside compiled code, every seat playing :func:`decide` on
its own observation (or, with a given probability per seat, a random legal action).
"""

from __future__ import annotations

import numba
import numpy as np

from envs.core import play
from envs.core.poker import evaluate_one
from envs.core.records import kernel_tuple
from envs.core.rollout import random_legal
from envs.tripoli import kernels as K
from envs.tripoli.actions import AUCTION, KEEP, PASS, SWAP
from envs.tripoli.observation import MAX_SEATS, OBSERVATION_SIZE, OFFSETS, SCALARS, _observe_tables

TripoliPolicy = kernel_tuple("TripoliPolicy", (
    "swap_below", "bet_above", "raise_above", "call_margin", "hopeless_below", "bet_scale", "spare_price",
    "spare_worth", "suit_price_extra", "stop_bonus", "low_bonus", "handover_malus", "lead_style", "pays_in_play",
    "bet_limit", "bid", "name_suit", "select", "check", "call", "fold", "bet", "raise_", "lead",
))
"""A style's parameters and the action offsets, as :func:`decide` takes them."""

_HAND, _SEL, _KNOWN, _PLAYED = (OFFSETS[k][0] for k in ("hand", "selected", "known_elsewhere", "played"))
_SHOWN = OFFSETS["shown"][0]
_PRESENT, _FOLDED, _LAYOUT = OFFSETS["seat_present"][0], OFFSETS["folded"][0], OFFSETS["layout"][0]
_PHASE, _PAY_SUIT = OFFSETS["phase"][0], OFFSETS["pay_suit"][0]
_HIGH_BID = OFFSETS["scalars"][0] + SCALARS.index("high_bid")
_TO_CALL = OFFSETS["scalars"][0] + SCALARS.index("to_call")
_SEQ_START = OFFSETS["scalars"][0] + SCALARS.index("sequence_start")
_PAY_BITS = (1 << 12) | (1 << 11) | (1 << 10) | (1 << 9) | (1 << 8)
_PAY_RANKS = np.array([12, 11, 10, 9, 8], np.int64)


@numba.njit(cache=True, inline="always")
def _cards(row, at):
    m = np.uint64(0)
    for c in range(52):
        if row[at + c] > 0.5:
            m |= np.uint64(1) << np.uint64(c)
    return m


@numba.njit(cache=True, inline="always")
def _count(m):
    x = np.uint64(m)
    c = 0
    while x:
        x &= x - np.uint64(1)
        c += 1
    return c


@numba.njit(cache=True, inline="always")
def _low_card(m):
    x = np.uint64(m)
    c = 0
    while not (x >> np.uint64(c)) & np.uint64(1):
        c += 1
    return c


@numba.njit(cache=True, inline="always")
def _suit_ranks(m, suit):
    return np.int64((np.uint64(m) >> np.uint64(13 * suit)) & np.uint64(0x1FFF))


@numba.njit(cache=True)
def _hand_value(row, table):
    """(poker value, win chance against one random hand), as ``hand_value``."""
    hand = _cards(row, _HAND)
    sel = _cards(row, _SEL)
    pc = sel if _count(sel) == 5 else hand
    if _count(pc) < 5:
        return -1, 0.0
    value = evaluate_one(pc)[0]
    k = max(_count(hand), 5)
    tab = table[k]
    lo = np.searchsorted(tab, value, side="left")
    hi = np.searchsorted(tab, value, side="right")
    return value, (lo + hi) / (2 * tab.shape[0])


@numba.njit(cache=True)
def _opponents_in(row):
    total = np.float32(0.0)
    for j in range(1, MAX_SEATS):
        total += np.float32(row[_PRESENT + j] * (np.float32(1.0) - row[_FOLDED + j]))
    return max(total, np.float32(1.0))


@numba.njit(cache=True)
def _lead_score(row, prm, suit):
    hand_m = _cards(row, _HAND)
    hand = _suit_ranks(hand_m, suit)
    played = _suit_ranks(_cards(row, _PLAYED), suit)
    dead = _suit_ranks(_cards(row, _KNOWN), suit)
    shown = np.uint64(0)
    for j in range(1, MAX_SEATS):
        shown |= _cards(row, _SHOWN + 52 * j)
    others = _suit_ranks(shown, suit) & ~played
    low = hand & -hand
    block = hand & ~(hand + low)
    top_bit = (block + (block & -block)) >> 1 if block > 0 else 0
    next_bit = top_bit << 1
    stop_mine = block > 0 and (((next_bit & 0x1FFF) == 0) or ((next_bit & (played | dead)) != 0))
    next_others = (next_bit & others) != 0
    low_rank = _count(np.uint64((block & -block) - 1)) if block > 0 else 64
    n_block = _count(np.uint64(block))
    bonus = 0.0
    if prm.pays_in_play:
        pay_suit = 0
        for s in range(4):
            if row[_PAY_SUIT + s] > row[_PAY_SUIT + pay_suit]:
                pay_suit = s
        if suit == pay_suit:
            for space in range(5):
                if (block >> _PAY_RANKS[space]) & 1:
                    bonus += np.float64(row[_LAYOUT + space])
            kq = 3 << 10
            if (block & kq) == kq:
                bonus += np.float64(row[_LAYOUT + 5])
        start = np.int64(row[_SEQ_START]) - 2
        seq = 7 << start
        if (block & seq) == seq:
            bonus += np.float64(row[_LAYOUT + 6])
    if prm.lead_style == 1:  # longsuit
        score = 100.0 * _count(np.uint64(hand)) + 20.0 * stop_mine + n_block - low_rank / 13
        return score + 100.0 * bonus if prm.pays_in_play else score
    if prm.lead_style == 2:  # lowlead
        score = 1_000.0 * (12 - low_rank) + 10.0 * n_block + stop_mine
        return score + 1_000.0 * bonus if prm.pays_in_play else score
    score = (np.float64(n_block) + prm.stop_bonus * stop_mine - prm.handover_malus * next_others
             + prm.low_bonus * (12 - low_rank) / 12)
    return score + bonus if prm.pays_in_play else score


@numba.njit(cache=True)
def decide(row, mask, prm, table):
    """The style's action for one observation row and its legal mask (the numpy bot's ``act`` for one row)."""
    count = 0
    first = -1
    for a in range(mask.shape[0]):
        if mask[a]:
            count += 1
            if first < 0:
                first = a
    if first < 0:
        return 0
    if count <= 1:
        return first
    if mask[KEEP] or mask[SWAP] or mask[AUCTION]:
        p = _hand_value(row, table)[1]
        weak = p < prm.swap_below
        if weak and mask[SWAP]:
            return SWAP
        if mask[AUCTION]:
            return AUCTION
        return SWAP if weak else KEEP
    if mask[PASS]:
        high = np.int64(row[_HIGH_BID])
        p = _hand_value(row, table)[1]
        limit = np.int64(np.floor(prm.spare_price * (prm.spare_worth - p)))
        if row[_PHASE + 2] > 0.5:
            hand = _cards(row, _HAND)
            best = 0
            for s in range(4):
                best = max(best, _count(np.uint64(_suit_ranks(hand, s) & _PAY_BITS)))
            limit = best - 1 + prm.suit_price_extra
        want = high + 1
        bid = prm.bid + want - 1
        if want <= limit and bid < prm.name_suit and mask[bid]:
            return bid
        return PASS
    if mask[prm.name_suit] or mask[prm.name_suit + 1] or mask[prm.name_suit + 2] or mask[prm.name_suit + 3]:
        hand = _cards(row, _HAND)
        best, at = -2, 0
        for s in range(4):
            held = _suit_ranks(hand, s)
            score = _count(np.uint64(held & _PAY_BITS)) * 16 + _count(np.uint64(held)) if mask[prm.name_suit + s] \
                else -1
            if score > best:
                best, at = score, s
        return prm.name_suit + at
    legal_sel = np.uint64(0)
    for c in range(52):
        if mask[prm.select + c]:
            legal_sel |= np.uint64(1) << np.uint64(c)
    if legal_sel:
        hand = _cards(row, _HAND)
        p = _hand_value(row, table)[1]
        target = evaluate_one(hand)[1]
        if p ** np.float64(_opponents_in(row)) < prm.hopeless_below:
            target = np.uint64(0)
            got = 0
            for rank in range(13):
                for suit in range(4):
                    c = suit * 13 + rank
                    if got < 5 and (hand >> np.uint64(c)) & np.uint64(1):
                        target |= np.uint64(1) << np.uint64(c)
                        got += 1
        pick = target & legal_sel
        if pick == 0:
            pick = legal_sel
        return prm.select + _low_card(pick)
    if mask[prm.fold] or mask[prm.check]:
        p = _hand_value(row, table)[1]
        equity = p ** np.float64(_opponents_in(row))
        limit = prm.bet_limit
        size = np.int64(min(max(np.ceil(limit * (equity - prm.bet_above + 0.05) * prm.bet_scale), 1.0), limit))
        can_bet = mask[prm.bet + size - 1]
        can_raise = mask[prm.raise_ + size - 1]
        pot = row[_LAYOUT + 8]
        to_call = row[_TO_CALL]
        odds = np.float32(to_call / max(pot + to_call, np.float32(1.0)))
        if mask[prm.check]:
            return prm.bet + size - 1 if equity > prm.bet_above and can_bet else prm.check
        if equity > prm.raise_above and can_raise:
            opened = prm.raise_ + size - 1
        elif equity > np.float32(odds + np.float32(prm.call_margin)) and mask[prm.call]:
            opened = prm.call
        else:
            opened = prm.fold
        if mask[opened]:
            return opened
        return prm.call if mask[prm.call] else prm.fold
    if mask[prm.lead] or mask[prm.lead + 1] or mask[prm.lead + 2] or mask[prm.lead + 3]:
        best, at = -np.inf, 0
        for s in range(4):
            score = _lead_score(row, prm, s) if mask[prm.lead + s] else -np.inf
            if score > best:
                best, at = score, s
        return prm.lead + at
    return first


@numba.njit(cache=True)
def decide_rows(obs, mask, prm, table, out):
    for i in range(obs.shape[0]):
        out[i] = decide(obs[i], mask[i], prm, table)


@numba.njit(cache=True)
def rollout_tables(rec, r, x, idx, styles, table, num_deals, stop_at_deal_end, seat_style, seed):
    """Play each table ``idx[i]`` to the end of its episode (``stop_at_deal_end``: of its current deal), seat ``p``
    choosing by :func:`decide` with the parameters ``styles[seat_style[i, p]]`` on its own observation, or a uniformly
    random legal action where ``seat_style[i, p]`` is -1 (numba's random numbers, seeded with ``seed``). Rewards are
    not reported; the balances say what each seat won."""
    np.random.seed(seed)
    row = np.empty((1, OBSERVATION_SIZE), np.float32)
    viewer = np.empty(1, np.int64)
    for i in range(idx.shape[0]):
        b = idx[i]
        t = rec[b]
        deal = t.deal
        while not (t.terminated or t.truncated):
            if stop_at_deal_end and t.deal != deal:
                break
            p = t.current_player
            style = seat_style[i, p]
            mask = K.legal_mask(t, r)
            if style < 0:
                a = random_legal(mask)
            else:
                viewer[0] = p
                _observe_tables(viewer, row, rec[b : b + 1], r.n, num_deals)
                a = decide(row[0], mask, styles[style], table)
            play.start_step(t, x, b)
            over = K.apply(t, r, x, b, a)
            while over:
                over = K.end_deal(t, r, x, b)
            while not K.settle(t, r, x, b):
                x.forced_count[b] = 0
