"""Counter-based randomness (common.md C7).

Every random number of a table is a hash of (table seed, stream, deal, counter): there is no generator state to
carry, so table ``i`` of a batch draws exactly what one table with the same seed draws, whatever the batch size,
and a deal can be replayed from its seed and index alone. The hash is SplitMix64's finaliser, applied in a chain.
"""

from __future__ import annotations

import numba
import numpy as np

from envs.core.checks import ArgumentError, check_int, int_array

_GOLDEN = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_SALT = 0x632BE59BD9B4E019

#: Stream ids: each use of randomness draws from its own stream so that changing one never shifts another.
STREAM_SHUFFLE = 1
STREAM_DEALER = 2
STREAM_BOARD = 4
STREAM_RESET = 5


@numba.vectorize(["uint64(uint64)"], cache=True)
def seed_key(seed):
    """The hash of a table seed alone, the start of every chain (a ufunc: numpy arrays, or scalars in kernels)."""
    x = seed + np.uint64(_GOLDEN)
    x ^= x >> np.uint64(30)
    x *= np.uint64(_M1)
    x ^= x >> np.uint64(27)
    x *= np.uint64(_M2)
    x ^= x >> np.uint64(31)
    return x


@numba.vectorize(["uint64(uint64, uint64)"], cache=True)
def chain(h, counter):
    """One link of the chain: the hash of ``h`` with one more counter (a ufunc, usable in compiled kernels)."""
    x = h ^ (counter * np.uint64(_GOLDEN) + np.uint64(_SALT))
    x ^= x >> np.uint64(30)
    x *= np.uint64(_M1)
    x ^= x >> np.uint64(27)
    x *= np.uint64(_M2)
    x ^= x >> np.uint64(31)
    return x


def hash_u64(seeds: np.ndarray, *counters: int | np.ndarray) -> np.ndarray:
    """A 64-bit hash of each seed with the given counters (broadcast together)."""
    h = seed_key(np.asarray(seeds, dtype=np.uint64))
    for c in counters:
        h = chain(h, np.asarray(c).astype(np.uint64))
    return h


@numba.njit(cache=True)
def shuffle_into(seed, deal, out):
    """Kernel: ``out[:]`` = a uniformly shuffled deck of card ids ``0..len(out)-1`` for deal number ``deal`` of the
    table seeded ``seed`` (the same deck :func:`shuffled_decks` gives: the card order sorted by hashed keys)."""
    n = out.shape[0]
    base = chain(chain(seed_key(np.uint64(seed)), np.uint64(STREAM_SHUFFLE)), np.uint64(deal))
    keys = np.empty(n, np.uint64)
    for i in range(n):
        keys[i] = chain(base, np.uint64(i))
    stable_order(keys, out)


@numba.njit(cache=True)
def stable_order(keys, out):
    """Kernel: ``out[:]`` = the stable argsort of ``keys`` (``np.argsort(keys, kind="stable")``) for keys that are
    uniform 64-bit hashes: the indices are first placed by the top 7 bits of their key (a counting sort, in index
    order within a bucket), then an insertion sort, which moves only the few keys sharing a bucket and never past an
    equal key, finishes the order."""
    n = keys.shape[0]
    shift = np.uint64(57)
    starts = np.zeros(129, np.int64)
    for i in range(n):
        starts[np.int64(keys[i] >> shift) + 1] += 1
    for b in range(128):
        starts[b + 1] += starts[b]
    for i in range(n):
        b = np.int64(keys[i] >> shift)
        out[starts[b]] = i
        starts[b] += 1
    for j in range(1, n):
        v = out[j]
        key = keys[v]
        k = j - 1
        while k >= 0 and keys[out[k]] > key:
            out[k + 1] = out[k]
            k -= 1
        out[k + 1] = v


@numba.njit(cache=True)
def uniform_int(seed, stream, counter, high):
    """Kernel: one integer in ``0..high-1`` from ``stream`` at ``counter`` (as :func:`uniform_ints` draws it)."""
    h = chain(chain(seed_key(np.uint64(seed)), np.uint64(stream)), np.uint64(counter))
    return np.int64(h % np.uint64(high))


def episode_seeds(seeds: np.ndarray, episode: int) -> np.ndarray:
    """The table seeds of the ``episode``-th reset without a seed (1, 2, …) after a reset seeded ``seeds``: as in
    Gymnasium, an env seeded once keeps drawing its deals from that seed (C7)."""
    return hash_u64(seeds, STREAM_RESET, episode)


def seeds_from_entropy(n: int) -> np.ndarray:
    """Fresh table seeds from the operating system (used when ``reset`` gets no seed)."""
    return np.random.SeedSequence().generate_state(2 * n, dtype=np.uint32).view(np.uint64)[:n].copy()


def normalize_seeds(seed: int | np.ndarray | None, batch_size: int | None = None, name: str = "seed") -> np.ndarray:
    """Table seeds ``(B,) uint64`` from what ``init``/``reset`` was given.

    ``None`` draws fresh entropy; an int ``s`` in ``0..2**64-1`` gives tables ``s, s+1, …`` (wrapping round past
    ``2**64-1``), so table ``i`` of a batch seeded ``s`` plays exactly like one table seeded ``s + i``; an array (or
    list) of ints in ``0..2**64-1`` gives one seed per table as it is. ``batch_size`` (a positive int) defaults to
    the number of seeds of an array, else 1. Anything else (floats, strings, bools, negative or larger numbers, the
    wrong number of seeds) is refused with :class:`ArgumentError` naming the argument ``name``.
    """
    if type(seed) is np.ndarray and seed.dtype == np.uint64 and seed.ndim == 1 and seed.size \
            and (batch_size is None or (type(batch_size) is int and seed.shape[0] == batch_size)):  # the common case
        return seed
    if batch_size is not None:
        batch_size = check_int(batch_size, "batch_size", low=1)
    if seed is None:
        return seeds_from_entropy(1 if batch_size is None else batch_size)
    shape = "(B,)" if batch_size is None else f"({batch_size},)"
    allowed = f"an integer 0..2**64-1, or one such integer per table (shape {shape})"
    arr = int_array(seed, name, allowed)
    if arr.size and arr.dtype.kind == "i" and arr.min() < 0:
        raise ArgumentError(f"{name} must be {allowed}, got {int(arr.min())}")
    if arr.ndim == 0:
        with np.errstate(over="ignore"):
            return arr.astype(np.uint64) + np.arange(1 if batch_size is None else batch_size, dtype=np.uint64)
    if arr.ndim != 1 or arr.size == 0 or (batch_size is not None and arr.shape != (batch_size,)):
        raise ArgumentError(f"{name} must be {allowed}, got shape {arr.shape}")
    return arr.astype(np.uint64)


def shuffled_decks(seeds: np.ndarray, deal: np.ndarray | int, deck_size: int) -> np.ndarray:
    """One uniformly shuffled deck ``(B, deck_size)`` of card ids per table for deal number ``deal``."""
    seeds = np.asarray(seeds, dtype=np.uint64)
    deal = np.broadcast_to(np.asarray(deal, dtype=np.uint64), seeds.shape)
    keys = hash_u64(seeds[:, None], STREAM_SHUFFLE, deal[:, None], np.arange(deck_size, dtype=np.uint64)[None, :])
    return np.argsort(keys, axis=1, kind="stable").astype(np.int16)


def uniform_ints(seeds: np.ndarray, stream: int, counter: np.ndarray | int, high: int | np.ndarray) -> np.ndarray:
    """One integer in ``0..high-1`` per table, from ``stream`` at ``counter``."""
    h = hash_u64(np.asarray(seeds, dtype=np.uint64), stream, counter)
    return (h % np.asarray(high, dtype=np.uint64)).astype(np.int64)
