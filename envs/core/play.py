"""Kernels every compiled core's ``step`` shares: the actions are checked against the masks before anything
changes, then each selected table starts its step with zero rewards and an empty forced-move report.

``BatchedGame.step`` checks its arguments in Python and hands the tables and actions to the core's ``play_tables``
kernel, which calls these two: one crossing into compiled code per step, at one table as at thousands.
"""

from __future__ import annotations

import numba


@numba.njit(cache=True)
def first_illegal(rec, idx, actions):
    """The position in ``idx`` of the first unfinished table whose action is not in its legal mask, or -1 (finished
    tables are skipped whatever their action)."""
    for k in range(idx.shape[0]):
        t = rec[idx[k]]
        if t.terminated or t.truncated:
            continue
        a = actions[k]
        if a < 0 or a >= t.legal_action_mask.shape[0] or not t.legal_action_mask[a]:
            return k
    return -1


@numba.njit(cache=True)
def start_step(t, x, b):
    """Table ``b`` (record ``t``; ``x``: the arrays outside the records) starts a step: zero rewards, no forced move
    reported yet."""
    t.rewards[:] = 0.0
    x.forced_count[b] = 0
