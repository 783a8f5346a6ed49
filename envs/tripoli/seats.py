"""Seat look-ups over a batch: the next seat clockwise with a property, and who holds a card."""

from __future__ import annotations

import numpy as np

from envs.core import cards as C


def first_after(flags: np.ndarray, start: np.ndarray, include_start: bool = False) -> np.ndarray:
    """For each row, the first seat clockwise after ``start`` (or from it) whose flag is set; -1 if none."""
    k, n = flags.shape
    rows = np.arange(k)
    order = (start[:, None] + (0 if include_start else 1) + np.arange(n)) % n
    picked = flags[rows[:, None], order]
    first = picked.argmax(axis=1)
    return np.where(picked[rows, first], order[rows, first], -1)


def holder(hands: np.ndarray, card: np.ndarray) -> np.ndarray:
    """Seat holding ``card`` (a card id per row, 64 or more meaning none) in ``hands`` (k, n); -1 if nobody."""
    bit = np.where(card < 52, C.ONE << np.minimum(card, 63).astype(np.uint64), C.ZERO)
    has = (hands & bit[:, None]) != 0
    return np.where(has.any(axis=1), has.argmax(axis=1), -1)
