"""The Flip Flop heuristic's decision, compiled: one observation row at a time, for the heuristic itself, its styles,
samplers and search rollouts.

:class:`agents.flipflop_heuristic.FlipFlopHeuristic` (and every zoo, held-out and family style built on it) decides
with :func:`decide_rows`; the styles differ only by the parameters of a :data:`FlipFlopPolicy`
(``FlipFlopHeuristic.policy``). The strategy is described in :mod:`agents.flipflop_heuristic`; here it is written for
one row, reading only the observation and the mask. :func:`rollout_tables` plays tables to the end of their episode
inside compiled code, every seat deciding on its own observation (or playing a random legal action).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from envs.core import play
from envs.core.records import kernel_tuple
from envs.core.rollout import random_legal
from envs.flipflop import actions as T
from envs.flipflop import kernels as K
from envs.flipflop import observation as V

FlipFlopPolicy = kernel_tuple("FlipFlopPolicy", (
    "drop_margin", "loose_margin", "high_discards", "drop_at", "pair_keep", "next_keep", "gap_keep", "take_to_build",
))
"""A style's parameters as :func:`decide` takes them: the drop's safety margin (points per square root of an
opponent's unknown cards) at a table whose discards so far average ``high_discards`` points or more, and
``loose_margin`` before the first discard and below that; the total at or below which it always drops; the discard
score taken off a paired card, a card next to one of its suit and one a gap from one; whether it takes a discard
that starts a spread."""

PUB_VALUE = np.minimum(np.arange(52) % 13 + 2, 10).astype(np.int64)
PUB_VALUE[np.arange(52) % 13 == 12] = 1
"""F2: points of each public card id (2…10 face value, J Q K 10, ace 1)."""


def _static_priority() -> np.ndarray:
    """Play-phase priority of the lay and lay-off actions: longer spreads, then more points, then lay-offs."""
    p = np.full(T.NUM_ACTIONS, -np.inf)
    for i, cards in enumerate(T.SPREAD_CARDS):
        bits = [b for b in range(52) if int(cards) >> b & 1]
        p[T.LAY_RUN + i] = 3_000 + 100 * len(bits) + T.VALUE_OF_LOW[bits].sum()
    p[T.LAY_OFF : T.CLAIM] = 2_000 + T.VALUE_OF_LOW[T.LAYOFF_BIT.astype(np.int64)]
    p[T.CLAIM] = 10_000  # F7: the claim is the only legal action when it is asked
    return p


PRIORITY = _static_priority()
_PUB_OF, _LOW_OF = T.PUB_OF, T.LOW_OF
_DROP, _DRAW_STOCK, _DRAW_DISCARD, _DISCARD = T.DROP, T.DRAW_STOCK, T.DRAW_DISCARD, T.DISCARD
_LAY_RUN, _N_ACTIONS = T.LAY_RUN, T.NUM_ACTIONS
_HAND, _SHOWN, _PILE, _PILE_TOP = 52 * V.HAND, 52 * V.SHOWN, 52 * V.PILE, 52 * V.PILE_TOP
_IN_RUN, _IN_SET, _KNOWN, _TAKEN_BY = 52 * V.IN_RUN, 52 * V.IN_SET, 52 * V.KNOWN_IN, 52 * V.TAKEN_BY
_SEATS = V.MAX_SEATS
_AT_IN_DEAL = V.SEATS_OFFSET + V.SEAT_FIELDS.index("in_deal") * V.MAX_SEATS
_AT_PRESENT = V.SEATS_OFFSET + V.SEAT_FIELDS.index("present") * V.MAX_SEATS
_AT_HAND_SIZE = V.SEATS_OFFSET + V.SEAT_FIELDS.index("hand_size") * V.MAX_SEATS


@numba.njit(cache=True)
def discard_score(hand, c, prm):
    """How much card ``c`` (public id) is worth discarding from ``hand`` (52 bools): its points, less for building
    spreads — paired with another card of its rank in ``hand`` (when ``c`` is in it), next to or one gap from a card
    of its suit (aces low)."""
    rank, suit = c % 13, c // 13
    score = float(PUB_VALUE[c])
    if hand[c]:
        same = 0
        for s in range(4):
            same += hand[s * 13 + rank]
        if same >= 2:
            score -= prm.pair_keep
    lr = _LOW_OF[c] % 13
    adj = gap = False
    for d in (-2, -1, 1, 2):
        k = lr + d
        if 0 <= k < 13 and hand[_PUB_OF[suit * 13 + k]]:
            if d == -1 or d == 1:
                adj = True
            else:
                gap = True
    return score - (prm.next_keep if adj else 0) - (prm.gap_keep if gap else 0)


@numba.njit(cache=True)
def _loose(hand, prm, skip):
    """The highest discard score of a card of ``hand`` other than ``skip`` (-inf for none)."""
    best = -np.inf
    for c in range(52):
        if hand[c] and c != skip:
            best = max(best, discard_score(hand, c, prm))
    return best


@numba.njit(cache=True)
def should_drop(row, hand, total, prm):
    """Whether the hand's ``total`` is low enough to drop: below every opponent's estimated total (its known cards'
    points plus the mean of the unseen cards for each other card it holds) less a margin per square root of its
    unknown cards, or at most ``drop_at``."""
    seen = hand.copy()
    for c in range(52):
        seen[c] |= (row[_SHOWN + c] > 0.5) | (row[_PILE + c] > 0.5) | (row[_IN_RUN + c] > 0.5) \
            | (row[_IN_SET + c] > 0.5)
        for j in range(_SEATS):
            seen[c] |= row[_KNOWN + 52 * j + c] > 0.5
    points = count = 0
    for c in range(52):
        if not seen[c]:
            points += PUB_VALUE[c]
            count += 1
    mu = points / max(count, 1)
    in_deal = 0
    for j in range(1, _SEATS):
        in_deal += (row[_AT_IN_DEAL + j] > 0.5) & (row[_AT_PRESENT + j] > 0.5)
    discarded = discarded_points = 0
    for c in range(52):
        gone = row[_PILE + c] > 0.5
        for j in range(_SEATS):
            gone |= row[_TAKEN_BY + 52 * j + c] > 0.5
        if gone:
            discarded += 1
            discarded_points += PUB_VALUE[c]
    careful = discarded > 0 and discarded_points / max(discarded, 1) >= prm.high_discards
    margin = (prm.drop_margin if careful else prm.loose_margin) * (1.0 + 0.1 * in_deal)
    lowest = np.inf
    for j in range(1, _SEATS):
        if not ((row[_AT_IN_DEAL + j] > 0.5) & (row[_AT_PRESENT + j] > 0.5)):
            continue
        known = known_points = 0
        for c in range(52):
            if row[_KNOWN + 52 * j + c] > 0.5:
                known += 1
                known_points += PUB_VALUE[c]
        unknown = max(np.float64(row[_AT_HAND_SIZE + j]) - known, 0.0)
        estimate = known_points + unknown * mu
        lowest = min(lowest, estimate - margin * math.sqrt(unknown))
    return total < lowest or total <= prm.drop_at


@numba.njit(cache=True)
def _makes_spread(hand, t):
    """Card ``t`` makes a set of three with the hand, or a run of three of its suit (aces low)."""
    rank, suit = t % 13, t // 13
    same = 0
    for s in range(4):
        same += hand[s * 13 + rank]
    if same >= 2:
        return True
    lr = (rank + 1) % 13
    near = np.zeros(4, np.bool_)
    for i, d in enumerate((-2, -1, 1, 2)):
        k = lr + d
        near[i] = 0 <= k < 13 and hand[_PUB_OF[suit * 13 + k]]
    return (near[0] and near[1]) or (near[1] and near[2]) or (near[2] and near[3])


@numba.njit(cache=True)
def _lays_off(row, t):
    """Card ``t`` is the fourth of a set of three on the table or the next card at either end of a run there."""
    in_set = 0
    for s in range(4):
        in_set += row[_IN_SET + s * 13 + t % 13] > 0.5
    if in_set == 3:
        return True
    b = _LOW_OF[t]
    lr = b % 13
    return (lr < 12 and row[_IN_RUN + _PUB_OF[min(b + 1, 51)]] > 0.5) or \
        (lr > 0 and row[_IN_RUN + _PUB_OF[max(b - 1, 0)]] > 0.5)


@numba.njit(cache=True)
def _builds(hand, t, prm):
    """Taking card ``t`` starts a spread (with ``t`` in hand its discard score is below its points) and it would
    still discard a card worth more points than ``t``."""
    with_t = hand.copy()
    with_t[t] = True
    return discard_score(with_t, t, prm) < PUB_VALUE[t] and _loose(with_t, prm, t) > PUB_VALUE[t]


@numba.njit(cache=True)
def _draw(row, mask, hand, prm):
    total = 0
    for c in range(52):
        if hand[c]:
            total += PUB_VALUE[c]
    if mask[_DROP] and should_drop(row, hand, total, prm):
        return _DROP
    t = -1
    for c in range(52):
        if row[_PILE_TOP + c] > 0.5:
            t = c
            break
    if t < 0 or not mask[_DRAW_DISCARD + t]:
        return _DRAW_STOCK
    cheaper = PUB_VALUE[t] <= 3 and _loose(hand, prm, -1) >= PUB_VALUE[t] + 5
    if _makes_spread(hand, t) or _lays_off(row, t) or cheaper or (prm.take_to_build and _builds(hand, t, prm)):
        return _DRAW_DISCARD + t
    return _DRAW_STOCK


@numba.njit(cache=True)
def _play(mask, hand, prm):
    best, at = -np.inf, 0
    for a in range(_N_ACTIONS):
        if not mask[a]:
            continue
        if _DISCARD <= a < _LAY_RUN:
            score = 1_000 + discard_score(hand, a - _DISCARD, prm)
        else:
            score = PRIORITY[a]
        if score > best:
            best, at = score, a
    return at


@numba.njit(cache=True)
def decide(row, mask, prm):
    """The style's action at one decision: ``row`` the observation of the seat to act, ``mask`` its legal actions."""
    legal = 0
    first = -1
    for a in range(_N_ACTIONS):
        if mask[a]:
            legal += 1
            if first < 0:
                first = a
    if legal <= 1:
        return max(first, 0)
    hand = np.empty(52, np.bool_)
    for c in range(52):
        hand[c] = row[_HAND + c] > 0.5
    if mask[_DRAW_STOCK] or mask[_DROP] or mask[_DRAW_DISCARD : _DISCARD].any():
        return _draw(row, mask, hand, prm)
    return _play(mask, hand, prm)


@numba.njit(cache=True)
def decide_rows(obs, mask, prm, out):
    """:func:`decide` for every row."""
    for i in range(obs.shape[0]):
        out[i] = decide(obs[i], mask[i], prm)


@numba.njit(cache=True)
def drop_rows(obs, prm, out):
    """``out[i]``: whether row ``i``'s hand total is low enough to drop (:func:`should_drop`)."""
    hand = np.empty(52, np.bool_)
    for i in range(obs.shape[0]):
        total = 0
        for c in range(52):
            hand[c] = obs[i, _HAND + c] > 0.5
            total += PUB_VALUE[c] * hand[c]
        out[i] = should_drop(obs[i], hand, total, prm)


@numba.njit(cache=True)
def rollout_tables(rec, rules, x, idx, styles, seat_style, seed):
    """Play each table ``idx[i]`` to the end of its episode, seat ``p`` choosing by :func:`decide` with the parameters
    ``styles[seat_style[i, p]]`` on its own observation, or a uniformly random legal action where ``seat_style[i, p]``
    is -1 (numba's random numbers, seeded with ``seed``). Rewards are not reported; the banks say what each seat
    won."""
    np.random.seed(seed)
    row = np.empty((1, V.OBS_SIZE), np.float32)
    viewer = np.empty(1, np.int64)
    for i in range(idx.shape[0]):
        b = idx[i]
        t = rec[b]
        while not (t.terminated or t.truncated):
            p = t.current_player
            style = seat_style[i, p]
            if style < 0:
                a = random_legal(t.legal_action_mask)
            else:
                viewer[0] = p
                V._observe_tables(viewer, row, rec[b : b + 1], rules.n)
                a = decide(row[0], t.legal_action_mask, styles[style])
            play.start_step(t, x, b)
            K.apply(t, rules, x, b, a)
            K.settle_moves(t, rules, x, b)
