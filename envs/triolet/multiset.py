"""Multisets of card identities with at most two copies of a card (two decks, C3), as two 52-bit planes:
``one`` holds the cards present at least once, ``two`` those present twice (``two ⊆ one``). Adding, removing and
counting are then a few bit operations over a whole batch."""

from __future__ import annotations

import numpy as np

from envs.core.cards import DECK_SIZE, NUM_RANKS, ONE

Planes = tuple[np.ndarray, np.ndarray]
_BITS = np.arange(DECK_SIZE, dtype=np.uint64)
#: ``RANK_MASKS[r]``: the four cards of rank ``r``.
RANK_MASKS = np.array([sum(1 << (r + NUM_RANKS * s) for s in range(4)) for r in range(NUM_RANKS)], dtype=np.uint64)


def add(a1: np.ndarray, a2: np.ndarray, b1: np.ndarray, b2: np.ndarray) -> Planes:
    """``a + b`` (no card may end up with more than two copies)."""
    return a1 | b1, a2 | b2 | (a1 & b1)


def sub(a1: np.ndarray, a2: np.ndarray, b1: np.ndarray, b2: np.ndarray) -> Planes:
    """``a - b``, each card's count floored at zero."""
    return (a1 & ~b1) | (a2 & b1 & ~b2), a2 & ~b1


def size(a1: np.ndarray, a2: np.ndarray) -> np.ndarray:
    """Number of cards (copies) in each multiset."""
    return np.bitwise_count(a1).astype(np.int64) + np.bitwise_count(a2)


#: ``SPREAD[x]``: the 13-bit suit row ``x`` with bit ``r`` moved to bit ``4 r`` (one nibble per rank).
SPREAD = np.array([sum(((x >> r) & 1) << (4 * r) for r in range(NUM_RANKS)) for x in range(1 << NUM_RANKS)],
                  dtype=np.uint64)
_SUIT_ROW = np.uint64((1 << NUM_RANKS) - 1)
_SUIT_SHIFTS = [np.uint64(NUM_RANKS * s) for s in range(4)]


def rank_nibbles(a1: np.ndarray, a2: np.ndarray) -> np.ndarray:
    """Copies of each rank packed in nibbles: rank ``r`` (0–8 copies) in bits ``4r .. 4r+3`` of a ``uint64``."""
    total = np.zeros(a1.shape, dtype=np.uint64)
    for plane in (a1, a2):
        for shift in _SUIT_SHIFTS:
            total += SPREAD[(plane >> shift) & _SUIT_ROW]
    return total


def counts(a1: np.ndarray, a2: np.ndarray) -> np.ndarray:
    """``(…, 52) int8`` copies of each card (for observations and tests)."""
    return (((a1[..., None] >> _BITS) & ONE) + ((a2[..., None] >> _BITS) & ONE)).astype(np.int8)


def lowest(mask: np.ndarray) -> np.ndarray:
    """The lowest card of each non-empty mask, as a one-bit mask (0 for an empty mask)."""
    return mask & (~mask + ONE)


def take_lowest(a1: np.ndarray, a2: np.ndarray, rank: np.ndarray, count: np.ndarray) -> Planes:
    """The ``count`` lowest copies of rank ``rank`` in ``a`` (lowest suit first; ``count`` ≤ the copies held)."""
    pool1, pool2 = a1 & RANK_MASKS[rank], a2 & RANK_MASKS[rank]
    partial = np.flatnonzero(size(pool1, pool2) > count)
    if partial.size:  # take card by card; a rank has at most four identities
        cand, dup, left = pool1[partial], pool2[partial], count[partial].copy()
        x1, x2 = np.zeros_like(cand), np.zeros_like(cand)
        for _ in range(4):
            low = np.where(left > 0, lowest(cand), 0).astype(np.uint64)
            both = ((dup & low) != 0) & (left >= 2)
            x1 |= low
            x2 |= np.where(both, low, 0).astype(np.uint64)
            left -= (low != 0).astype(np.int64) + both
            cand &= ~low
        pool1[partial], pool2[partial] = x1, x2
    return pool1, pool2
