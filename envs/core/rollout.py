"""Kernels the compiled rollouts of the search share (``envs/<game>/policy.py``)."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def random_legal(mask):
    """A uniformly random legal action of ``mask`` (numba's random state, seeded by the rollout)."""
    count = 0
    for a in range(mask.shape[0]):
        count += mask[a]
    k = np.random.randint(0, count)
    for a in range(mask.shape[0]):
        if mask[a]:
            if k == 0:
                return a
            k -= 1
    return 0
