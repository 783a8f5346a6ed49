"""Helpers shared by the heuristics to read card planes of an observation."""

from __future__ import annotations

import numpy as np


def planes_to_masks(planes: np.ndarray) -> np.ndarray:
    """``(..., 52)`` 0/1 card planes (C1 card order) → ``(...,)`` uint64 card masks (bit ``c`` = card ``c``)."""
    bits = np.asarray(planes) > 0.5
    packed = np.packbits(bits, axis=-1, bitorder="little")  # (..., 7) bytes
    padded = np.zeros(packed.shape[:-1] + (8,), np.uint8)
    padded[..., :7] = packed
    return padded.view("<u8")[..., 0].astype(np.uint64)


def rank_sets(masks: np.ndarray) -> np.ndarray:
    """``(...,)`` uint64 card masks → ``(..., 4)`` int64 13-bit rank sets, one per suit ♣ ♦ ♥ ♠."""
    m = np.asarray(masks, dtype=np.uint64)[..., None]
    shifts = (np.arange(4, dtype=np.uint64) * np.uint64(13))
    return ((m >> shifts) & np.uint64(0x1FFF)).astype(np.int64)
