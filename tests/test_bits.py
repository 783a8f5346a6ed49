"""The compiled bit helpers (envs/core/bits.py) against plain Python on random masks."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from envs.core import bits

masks = st.integers(0, 2**64 - 1)  # kernels pass np.uint64 masks


@given(masks)
def test_popcount_lowest_highest(mask: int) -> None:
    m = np.uint64(mask)
    assert bits.popcount(m) == bin(mask).count("1")
    assert bits.lowest(m) == ((mask & -mask).bit_length() - 1 if mask else -1)
    assert bits.highest(m) == (mask.bit_length() - 1 if mask else -1)


@given(masks, st.integers(0, 63))
def test_bit_and_has(mask: int, card: int) -> None:
    assert int(bits.bit(card)) == 1 << card
    assert bits.has(np.uint64(mask), card) == bool(mask >> card & 1)
