"""Bit operations on 64-bit card masks for compiled kernels (numba ``@njit``; callable from Python too).

A card set is a ``uint64`` with bit ``c`` set for card id ``c`` (C1). Mixing ``uint64`` with signed integers makes
numba compute in ``float64``: keep masks ``np.uint64`` and shift by ``np.uint64`` amounts (:func:`bit`).
"""

from __future__ import annotations

import numba
import numpy as np

_DEBRUIJN = 0x03F79D71B4CB0A89
_DEBRUIJN_INDEX = np.array([
    0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4, 62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24,
    18, 12, 5, 63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11, 46, 26, 40, 15, 34, 20, 31, 10, 25,
    14, 19, 9, 13, 8, 7, 6], dtype=np.int64)


@numba.njit(cache=True, inline="always")
def bit(card):
    """The mask holding card ``card`` alone."""
    return np.uint64(1) << np.uint64(card)


@numba.njit(cache=True)
def popcount(mask):
    """Number of cards in ``mask``."""
    x = np.uint64(mask)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@numba.njit(cache=True)
def lowest(mask):
    """The lowest card id in ``mask`` (-1 for an empty mask)."""
    x = np.uint64(mask)
    if x == np.uint64(0):
        return -1
    low = x & (~x + np.uint64(1))
    return _DEBRUIJN_INDEX[np.int64((low * np.uint64(_DEBRUIJN)) >> np.uint64(58))]
