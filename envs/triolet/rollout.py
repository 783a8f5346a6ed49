"""Le triolet played to the end inside compiled code, every seat choosing by a fixed priority over the action table:
the rollouts of a search (``agents/search.py``), where a Python loop of ``observe``, ``act`` and ``step`` per move
costs more than the moves.

A priority player (:class:`agents.triolet_heuristic.TrioletHeuristic` and the zoo's styles built on it) takes, in the
play phase, the legal action of highest priority (the first one among equals, as ``numpy.argmax``); each seat plays
one such style or random legal moves; the swap phase (L4), whose choices read the cards, is left to the caller.
:func:`rollout_tables` plays the play phase of the tables given to the end with the kernels of
:mod:`envs.triolet.kernels`, the forced moves included (C8; not reported).
"""

from __future__ import annotations

import numba
import numpy as np

from envs.triolet import kernels as K
from envs.triolet.state import SWAP_PHASE


@numba.njit(cache=True)
def rollout_tables(rec, r, x, tables, priorities, seat_style, seed):
    """Play each table ``tables[i]`` (record ``rec[tables[i]]``, in the play phase or finished) to its end, seat
    ``p`` taking the legal action of highest ``priorities[seat_style[tables[i], p]]`` (``(styles, num_actions)``),
    or a uniformly random legal action where ``seat_style`` is -1 (numba's random state, seeded by ``seed``). The
    final rewards stay in the records (a Le triolet episode pays only at its end, L16); the forced-move report is
    left empty."""
    np.random.seed(seed)
    for i in range(tables.shape[0]):
        b = tables[i]
        t = rec[b]
        while not (t.terminated or t.truncated) and t.phase != SWAP_PHASE:
            style = seat_style[b, t.current_player]
            m = t.legal_action_mask
            a = -1
            if style < 0:
                pick = np.random.randint(0, m.sum())
                for j in range(m.shape[0]):
                    if m[j]:
                        if pick == 0:
                            a = j
                            break
                        pick -= 1
            else:
                best = -1e30
                for j in range(m.shape[0]):
                    if m[j] and priorities[style, j] > best:
                        best, a = priorities[style, j], j
            x.forced_count[b] = 0
            K.apply(t, r, a)
            while not K.settle(t, r, x, b):  # the report is only room for the forced moves: empty it and go on
                x.forced_count[b] = 0
        x.forced_count[b] = 0
