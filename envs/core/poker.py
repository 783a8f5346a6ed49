"""Vectorised poker hand values (tripoli.md T16), shared by every game that needs a showdown.

A hand is a ``uint64`` card mask (C1, see :mod:`envs.core.cards`) holding at least five cards; its value is the
value of the best five-card poker hand inside it. Nothing enumerates five-card subsets: each mask is split into
its four 13-bit per-suit rank sets, from which bit operations give the rank sets of multiplicity ≥ 1, 2, 3 and 4,
and small lookup tables indexed by a 13-bit rank set (8,192 entries, built once at import) give the highest rank,
the packed top five ranks and the best straight (found with shifts, the ace also below the two for the wheel).

Value encoding (``int64``): ``category * 13**5 + d1 * 13**4 + d2 * 13**3 + …`` where ``category`` is 0 (high card)
… 8 (straight flush) and ``d1, d2, …`` are the ranks (0 = two … 12 = ace) that decide within the category, most
significant first, unused digits 0:

====================  =====================================
category              deciding ranks ``d1, d2, …``
====================  =====================================
8 straight flush      top card of the straight (5 for A-2-3-4-5)
7 four of a kind      quad rank, kicker
6 full house          trips rank, pair rank
5 flush               the five ranks, highest first
4 straight            top card of the straight (5 for A-2-3-4-5)
3 three of a kind     trips rank, two kickers
2 two pair            high pair, low pair, kicker
1 one pair            pair rank, three kickers
0 high card           the five ranks, highest first
====================  =====================================

Higher is better and equal values tie (suits never rank); the 2,598,960 five-card hands take exactly 7,462 values.
"""

from __future__ import annotations

import numba
import numpy as np

from .cards import ALL_CARDS, NUM_RANKS, NUM_SUITS, RANK_LETTERS, popcount

CATEGORY_NAMES = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
HIGH_CARD, ONE_PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH = range(9)
#: The category of a hand value ``v`` is ``v // CATEGORY_BASE``.
CATEGORY_BASE = NUM_RANKS**5
#: Value of a royal flush, the best hand.
ROYAL_FLUSH_VALUE = STRAIGHT_FLUSH * CATEGORY_BASE + 12 * NUM_RANKS**4

_RANK_SET = (1 << NUM_RANKS) - 1
_D = (1, NUM_RANKS, NUM_RANKS**2, NUM_RANKS**3, NUM_RANKS**4)  # _D[4] is the weight of the first deciding rank d1


def _build_tables() -> tuple[np.ndarray, ...]:
    """Lookup tables indexed by a 13-bit rank set ``s`` (0 … 8191).

    ``high[s]``: highest rank in ``s`` (-1 if empty); ``high_bit[s]``: that rank as a one-bit set (0 if empty);
    ``top_set[k, s]``: the ``k`` highest ranks of ``s`` as a set; ``top_packed[s]``: the five highest ranks packed
    as ``d1 * 13**4 + … + d5`` (missing digits 0); ``straight_high[s]``: top rank of the best straight inside ``s``
    (3 for the wheel A-2-3-4-5, -1 if none); ``straight_set[h + 1]``: the five ranks of the straight topped by
    ``h`` (index 0, for "no straight", is empty).
    """
    sets = np.arange(1 << NUM_RANKS, dtype=np.int64)
    bits = (sets[:, None] >> np.arange(NUM_RANKS)) & 1  # (8192, 13), column r = rank r present
    count = bits.sum(axis=1)
    high = np.where(count > 0, NUM_RANKS - 1 - np.argmax(bits[:, ::-1], axis=1), -1)
    high_bit = np.where(high >= 0, 1 << np.maximum(high, 0), 0)

    top_set = np.zeros((6, sets.size), dtype=np.int64)
    top_packed = np.zeros(sets.size, dtype=np.int64)
    rest = sets.copy()
    for k in range(1, 6):  # peel off the highest rank five times
        h = high[rest]
        top_set[k] = top_set[k - 1] | high_bit[rest]
        top_packed += np.maximum(h, 0) * _D[5 - k]
        rest = rest & ~high_bit[rest]

    # Straights by shifts: bit p of ``ext`` is rank p - 1, bit 0 the ace played low.
    ext = (sets << 1) | ((sets >> (NUM_RANKS - 1)) & 1)
    runs = ext & (ext >> 1) & (ext >> 2) & (ext >> 3) & (ext >> 4)  # bit j: a run over ext bits j … j + 4
    straight_high = np.where(runs > 0, high[runs & _RANK_SET] + 3, -1)  # run from bit j tops at rank j + 3
    straight_set = np.zeros(NUM_RANKS + 1, dtype=np.int64)
    straight_set[1 + 3] = (1 << 12) | 0b1111  # A-2-3-4-5
    for h in range(4, NUM_RANKS):
        straight_set[1 + h] = 0b11111 << (h - 4)
    return high, high_bit, top_set, top_packed, straight_high, straight_set, count


_HIGH, _HIGH_BIT, _TOP_SET, _TOP_PACKED, _STRAIGHT_HIGH, _STRAIGHT_SET, _COUNT = _build_tables()


def _check_masks(masks: np.ndarray) -> np.ndarray:
    masks = np.asarray(masks)
    if masks.dtype != np.uint64:
        if not np.issubdtype(masks.dtype, np.integer) or (masks.size and masks.min() < 0):
            raise ValueError(f"card masks must be non-negative integers (uint64), got dtype {masks.dtype}")
        masks = masks.astype(np.uint64)
    if np.any(masks & ~ALL_CARDS):
        raise ValueError("card masks must only use bits 0..51 (one deck)")
    if np.any(popcount(masks) < 5):
        raise ValueError("every hand needs at least 5 cards to rank")
    return masks


@numba.njit(cache=True)
def _pick_first_max(a0, a1, a2, a3):
    """(index, value) of the first largest of four numbers (as ``np.argmax``)."""
    best, at = a0, 0
    if a1 > best:
        best, at = a1, 1
    if a2 > best:
        best, at = a2, 2
    if a3 > best:
        best, at = a3, 3
    return at, best


@numba.njit(cache=True)
def evaluate_one(mask):
    """Kernel: ``(value, five cards)`` of the best five-card hand in one ``uint64`` mask of at least five cards of one
    deck (see :func:`mask_rank`, :func:`best_five`; not checked here)."""
    m = np.uint64(mask)
    full = np.uint64(_RANK_SET)
    s0 = np.int64(m & full)
    s1 = np.int64((m >> np.uint64(13)) & full)
    s2 = np.int64((m >> np.uint64(26)) & full)
    s3 = np.int64((m >> np.uint64(39)) & full)
    any_ = s0 | s1 | s2 | s3  # ranks held at least once, twice, three or four times:
    ge2 = (s0 & s1) | (s0 & s2) | (s0 & s3) | (s1 & s2) | (s1 & s3) | (s2 & s3)
    ge3 = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    four = s0 & s1 & s2 & s3
    # Flush and straight flush: the best over the suits (the first suit among equals, for the cards).
    sf_suit, sf_high = _pick_first_max(_STRAIGHT_HIGH[s0], _STRAIGHT_HIGH[s1], _STRAIGHT_HIGH[s2], _STRAIGHT_HIGH[s3])
    f0 = _TOP_PACKED[s0] if _COUNT[s0] >= 5 else -1
    f1 = _TOP_PACKED[s1] if _COUNT[s1] >= 5 else -1
    f2 = _TOP_PACKED[s2] if _COUNT[s2] >= 5 else -1
    f3 = _TOP_PACKED[s3] if _COUNT[s3] >= 5 else -1
    flush_suit, flush_packed = _pick_first_max(f0, f1, f2, f3)
    straight_high = _STRAIGHT_HIGH[any_]
    a_bit = _HIGH_BIT[ge3]  # trips (also the quad rank when there are quads: ge3 ⊇ four)
    q_bit = _HIGH_BIT[four]
    p1_bit = _HIGH_BIT[ge2]
    fh_pair_bit = _HIGH_BIT[ge2 & ~a_bit]  # the best pair besides the trips (may be a second trips)
    p2_bit = _HIGH_BIT[ge2 & ~p1_bit]
    q_kick = _HIGH_BIT[any_ & ~q_bit]
    t_rest = any_ & ~a_bit
    tp_kick = _HIGH_BIT[any_ & ~(p1_bit | p2_bit)]
    p_rest = any_ & ~p1_bit
    d1, d2, d3, d4 = _D[4], _D[3], _D[2], _D[1]
    need1 = need2 = need3 = need4 = 0
    if sf_high >= 0:
        cat, tie = STRAIGHT_FLUSH, sf_high * d1
    elif four != 0:
        cat, tie = FOUR_OF_A_KIND, _HIGH[q_bit] * d1 + _HIGH[q_kick] * d2
        need1, need2, need3, need4 = q_bit | q_kick, q_bit, q_bit, q_bit
    elif ge3 != 0 and fh_pair_bit != 0:
        cat, tie = FULL_HOUSE, _HIGH[a_bit] * d1 + _HIGH[fh_pair_bit] * d2
        need1, need2, need3 = a_bit | fh_pair_bit, a_bit | fh_pair_bit, a_bit
    elif flush_packed >= 0:
        cat, tie = FLUSH, flush_packed
    elif straight_high >= 0:
        cat, tie = STRAIGHT, straight_high * d1
        need1 = _STRAIGHT_SET[straight_high + 1]
    elif ge3 != 0:
        cat, tie = THREE_OF_A_KIND, _HIGH[a_bit] * d1 + _TOP_PACKED[t_rest] // d2 * d3
        need1, need2, need3 = a_bit | _TOP_SET[2, t_rest], a_bit, a_bit
    elif p2_bit != 0:
        cat, tie = TWO_PAIR, _HIGH[p1_bit] * d1 + _HIGH[p2_bit] * d2 + _HIGH[tp_kick] * d3
        need1, need2 = p1_bit | p2_bit | tp_kick, p1_bit | p2_bit
    elif ge2 != 0:
        cat, tie = ONE_PAIR, _HIGH[p1_bit] * d1 + _TOP_PACKED[p_rest] // d3 * d4
        need1, need2 = p1_bit | _TOP_SET[3, p_rest], p1_bit
    else:
        cat, tie = HIGH_CARD, _TOP_PACKED[any_]
        need1 = _TOP_SET[5, any_]
    value = np.int64(cat) * CATEGORY_BASE + tie
    if cat == FLUSH or cat == STRAIGHT_FLUSH:
        suit = flush_suit if cat == FLUSH else sf_suit
        ranks = s0 if suit == 0 else s1 if suit == 1 else s2 if suit == 2 else s3
        cut = _TOP_SET[5, ranks] if cat == FLUSH else _STRAIGHT_SET[sf_high + 1]
        return value, np.uint64(cut) << np.uint64(NUM_RANKS * suit)
    picked = np.uint64(0)
    for k in range(NUM_SUITS):  # suits in order: the lowest card ids of each needed rank
        sk = s0 if k == 0 else s1 if k == 1 else s2 if k == 2 else s3
        take = need1 & sk
        picked |= np.uint64(take) << np.uint64(NUM_RANKS * k)
        need1, need2, need3, need4 = (need1 & ~take) | (need2 & take), (need2 & ~take) | (need3 & take), (
            need3 & ~take) | (need4 & take), need4 & ~take
    return value, picked


@numba.njit(cache=True)
def _evaluate_all(masks, values, cards):
    for i in range(masks.shape[0]):
        values[i], cards[i] = evaluate_one(masks[i])


def _evaluate(masks: np.ndarray, want_cards: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """Values of the best five-card hands in ``masks``; with ``want_cards`` also the five cards (see best_five)."""
    flat = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    values, cards = np.empty(flat.shape, np.int64), np.empty(flat.shape, np.uint64)
    _evaluate_all(flat, values, cards)
    shape = np.shape(masks)
    return values.reshape(shape), (cards.reshape(shape) if want_cards else None)


def mask_rank(masks: np.ndarray) -> np.ndarray:
    """Value (``int64``, same shape) of the best five-card poker hand in each ``uint64`` mask of ≥ 5 cards (T16)."""
    return _evaluate(_check_masks(masks), want_cards=False)[0]


def best_five(masks: np.ndarray) -> np.ndarray:
    """The five cards (a ``uint64`` mask, a subset of each input mask) that make :func:`mask_rank`'s value.

    Among equal choices it takes, for each rank used, the cards of the lowest suits (so the lowest card ids),
    and for a flush or straight flush present in several suits, the lowest suit.
    """
    return _evaluate(_check_masks(masks), want_cards=True)[1]


def _rank_name(rank: int) -> str:
    return "10" if rank == 8 else RANK_LETTERS[rank]


def describe(value: int) -> str:
    """Readable hand value, e.g. ``"full house, 7s over 4s"``, ``"straight, 5 high"``, ``"flush, A J 9 6 2"``."""
    value = int(value)
    cat, tie = divmod(value, CATEGORY_BASE)
    if not 0 <= cat <= STRAIGHT_FLUSH:
        raise ValueError(f"{value} is not a poker hand value")
    d = [tie // _D[4 - i] % NUM_RANKS for i in range(5)]
    r = [_rank_name(x) for x in d]
    name = CATEGORY_NAMES[cat]
    if cat in (HIGH_CARD, FLUSH):
        return f"{name}, {' '.join(r)}"
    if cat == ONE_PAIR:
        return f"{name}, {r[0]}s, kickers {' '.join(r[1:4])}"
    if cat == TWO_PAIR:
        return f"{name}, {r[0]}s and {r[1]}s, {r[2]} kicker"
    if cat == THREE_OF_A_KIND:
        return f"{name}, {r[0]}s, kickers {r[1]} {r[2]}"
    if cat in (STRAIGHT, STRAIGHT_FLUSH):
        return "royal flush" if value == ROYAL_FLUSH_VALUE else f"{name}, {r[0]} high"
    if cat == FULL_HOUSE:
        return f"{name}, {r[0]}s over {r[1]}s"
    return f"{name}, {r[0]}s, {r[1]} kicker"
