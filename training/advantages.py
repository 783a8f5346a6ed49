"""Generalised advantage estimation along each seat's own trajectory.

In a turn-based game a seat's trajectory is its own decisions at its table, in order; between two of them the other
seats act. The rollout (:mod:`training.rollout`) records every learner decision with ``next``: the index of the same
seat's next decision at the same table (``-1`` while it is not made yet), ``done``: the episode ended before that
seat decided again, and ``reward``: the seat's own chips (scaled) from this decision up to its next one or the end of
the episode. GAE runs along these links only, so one seat's rewards and values never enter another's advantages.

A decision whose successor is not known yet (neither ``done`` nor linked) is *open*: it gets no advantage now (the
rollout keeps it for the next batch, when its successor is known), and a decision linked to an open one bootstraps
from the open one's value, as GAE does at the end of any rollout.
"""

from __future__ import annotations

import numba
import numpy as np


def seat_gae(reward: np.ndarray, value: np.ndarray, done: np.ndarray, next_: np.ndarray, gamma: float,
             lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and which decisions have one, for decisions ``0..N-1`` whose successors (``next_``) come later in
    the arrays. ``reward``, ``value``: ``(N,)``; ``done``: ``(N,)`` bool; ``next_``: ``(N,)`` int64, -1 for none.
    Returns ``(advantages (N,) float32, resolved (N,) bool)``; an open decision's advantage is 0. The return (the
    value target) of a resolved decision is its advantage plus its value."""
    advantages = np.zeros(reward.shape[0], np.float32)
    resolved = np.zeros(reward.shape[0], np.bool_)
    _gae(reward.astype(np.float64, copy=False), value.astype(np.float64, copy=False), done, next_, float(gamma),
         float(lam), advantages, resolved)
    return advantages, resolved


@numba.njit(cache=True)
def _gae(reward, value, done, next_, gamma, lam, advantages, resolved):
    for i in range(reward.shape[0] - 1, -1, -1):
        if done[i]:
            advantages[i] = reward[i] - value[i]
            resolved[i] = True
        elif next_[i] >= 0:
            j = next_[i]
            delta = reward[i] + gamma * value[j] - value[i]
            advantages[i] = delta + gamma * lam * advantages[j]  # 0 where j is open: the trajectory is cut there
            resolved[i] = True
