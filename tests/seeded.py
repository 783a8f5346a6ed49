"""Legal actions drawn from each table's own seed, so that a table plays the same game whatever batch it is in
(used by the C7 reproducibility tests of every game)."""

from __future__ import annotations

import numpy as np

from envs.core.rng import uniform_ints

STREAM_TEST_POLICY = 99
"""Random stream of these test actions (envs.core.rng); the games use streams below 10."""


def seeded_legal_actions(mask: np.ndarray, seeds: np.ndarray, step: int) -> np.ndarray:
    """One legal action per row of ``mask``, uniform among the legal ones, from ``(seed, step)`` alone."""
    count = np.maximum(mask.sum(axis=1), 1)
    k = uniform_ints(seeds, STREAM_TEST_POLICY, step, count)
    return (np.cumsum(mask, axis=1) > k[:, None]).argmax(axis=1)
