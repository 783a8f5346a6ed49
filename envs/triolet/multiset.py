"""Multisets of card identities with at most two copies of a card (two decks, C3), as two 52-bit planes:
``one`` holds the cards present at least once, ``two`` those present twice (``two ⊆ one``). Adding, removing and
counting are a few bit operations; the functions are compiled (numba) and take scalars or arrays alike."""

from __future__ import annotations

import numba
import numpy as np

from envs.core.bits import popcount
from envs.core.cards import DECK_SIZE, NUM_RANKS, ONE

_BITS = np.arange(DECK_SIZE, dtype=np.uint64)
#: ``RANK_MASKS[r]``: the four cards of rank ``r``.
RANK_MASKS = np.array([sum(1 << (r + NUM_RANKS * s) for s in range(4)) for r in range(NUM_RANKS)], dtype=np.uint64)


@numba.njit(cache=True)
def add(a1, a2, b1, b2):
    """``a + b`` (no card may end up with more than two copies)."""
    return a1 | b1, a2 | b2 | (a1 & b1)


@numba.njit(cache=True)
def sub(a1, a2, b1, b2):
    """``a - b``, each card's count floored at zero."""
    return (a1 & ~b1) | (a2 & b1 & ~b2), a2 & ~b1


@numba.njit(cache=True)
def size(a1, a2):
    """Number of cards (copies) in one multiset."""
    return popcount(a1) + popcount(a2)


@numba.njit(cache=True)
def rank_count(a1, a2, rank):
    """Copies of rank ``rank`` in one multiset (0–8)."""
    return popcount(a1 & RANK_MASKS[rank]) + popcount(a2 & RANK_MASKS[rank])


@numba.njit(cache=True)
def take_lowest(a1, a2, rank, count):
    """The ``count`` lowest copies of rank ``rank`` in one multiset (lowest suit first; ``count`` ≤ the copies
    held)."""
    pool1, pool2 = a1 & RANK_MASKS[rank], a2 & RANK_MASKS[rank]
    if size(pool1, pool2) <= count:
        return pool1, pool2
    x1, x2, left = np.uint64(0), np.uint64(0), count
    while left > 0:  # card by card; a rank has at most four identities
        low = pool1 & (~pool1 + np.uint64(1))
        x1 |= low
        left -= 1
        if pool2 & low and left >= 1:
            x2 |= low
            left -= 1
        pool1 &= ~low
    return x1, x2


def counts(a1: np.ndarray, a2: np.ndarray) -> np.ndarray:
    """``(…, 52) int8`` copies of each card (for observations, renders and tests)."""
    return (((a1[..., None] >> _BITS) & ONE) + ((a2[..., None] >> _BITS) & ONE)).astype(np.int8)
