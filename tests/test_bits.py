"""The compiled bit helpers (envs/core/bits.py) against plain Python on random masks, and the deck shuffle's sort
(envs/core/rng.py) against numpy's stable argsort."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.core import bits, rng

masks = st.integers(0, 2**64 - 1)  # kernels pass np.uint64 masks


@given(masks)
def test_popcount_lowest(mask: int) -> None:
    m = np.uint64(mask)
    assert bits.popcount(m) == bin(mask).count("1")
    assert bits.lowest(m) == ((mask & -mask).bit_length() - 1 if mask else -1)


@given(st.integers(0, 63))
def test_bit(card: int) -> None:
    assert int(bits.bit(card)) == 1 << card


# ----- the deck shuffle's sort (envs/core/rng.py) --------------------------------------------------------------------
@settings(max_examples=300)
@given(keys=st.lists(st.one_of(st.integers(0, 2**64 - 1), st.integers(0, 3), st.integers(2**63, 2**63 + 2),
                               st.sampled_from([0, 2**57 - 1, 2**57, 2**64 - 1])), min_size=1, max_size=120))
def test_stable_order_is_numpys_stable_argsort(keys: list[int]) -> None:
    """Hashes, ties, and keys crowding one bucket of the top bits all come out as np.argsort(kind="stable")."""
    arr = np.array(keys, dtype=np.uint64)
    out = np.empty(arr.size, np.int64)
    rng.stable_order(arr, out)
    np.testing.assert_array_equal(out, np.argsort(arr, kind="stable"))


@pytest.mark.parametrize("deck_size", [36, 52, 104])
def test_the_kernel_shuffle_deals_the_decks_of_shuffled_decks(deck_size: int) -> None:
    seeds = np.arange(2_000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    expected = rng.shuffled_decks(seeds, 3, deck_size)
    got = np.empty((seeds.size, deck_size), np.int16)
    for i, seed in enumerate(seeds):
        rng.shuffle_into(seed, 3, got[i])
    np.testing.assert_array_equal(got, expected)
