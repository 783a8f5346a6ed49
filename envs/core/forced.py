"""The forced moves a step made (common.md C8), kept in the batched state so that every face can show them.

A decision point with exactly one legal action is resolved by the engine inside ``step`` (or ``init``); each such
move is reported in order, per table, in four arrays of the state: ``forced_count[b]`` moves, the ``k``-th made by
seat ``forced_seat[b, k]`` with action ``forced_action[b, k]``; ``forced_card[b, k]`` is the card the move put on
the table where the action's name does not say it (a Tripoli "continue run" plays the next card of the run), else
-1. The arrays grow (doubling their second axis) when a step makes more moves than they hold.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numba
import numpy as np

if TYPE_CHECKING:
    from envs.core.game import BatchState

INITIAL_CAPACITY = 16
FIELDS = ("forced_seat", "forced_action", "forced_card")


class ForcedMove(NamedTuple):
    """One forced move: who made it, its action id, its readable name (with the card played, where the name of
    the action alone does not say it)."""

    seat: int
    action: int
    name: str


def ensure(state: BatchState, capacity: int = INITIAL_CAPACITY) -> None:
    """Allocate the report arrays of a freshly built state (no forced move reported yet), ``capacity`` moves per
    table (a compiled core gives the most one step can make: its kernels write the arrays and cannot grow them)."""
    b = state.batch_size
    if state.forced_count.shape != (b,):
        state.forced_count = np.zeros(b, np.int64)
        for name in FIELDS:
            setattr(state, name, np.full((b, capacity), -1, np.int64))


def grow(state: BatchState, capacity: int) -> None:
    """Widen the report arrays to hold ``capacity`` moves per table."""
    for name in FIELDS:
        old = getattr(state, name)
        new = np.full((old.shape[0], capacity), -1, np.int64)
        new[:, : old.shape[1]] = old
        setattr(state, name, new)


def widen_and_resume(state: BatchState, idx: np.ndarray, pending: np.ndarray,
                     resume: Callable[[np.ndarray, np.ndarray], None]) -> None:
    """A compiled core's step stops at the tables ``idx[pending]`` when their report arrays are full: widen the
    arrays and call ``resume(tables, pending)`` (the core's kernel going on with those tables' forced moves, flagging
    again the tables that fill the wider arrays) until none is left."""
    while pending.any():
        idx = idx[pending]
        grow(state, 2 * state.forced_seat.shape[1])
        pending = np.zeros(idx.size, bool)
        resume(idx, pending)


@numba.njit(cache=True)
def report_move(x, b, seat, action, card):
    """Kernel: append one forced move to table ``b``'s report; ``x`` holds the state's ``forced_*`` arrays (a
    compiled core's named tuple of the arrays outside its table records)."""
    k = x.forced_count[b]
    x.forced_seat[b, k] = seat
    x.forced_action[b, k] = action
    x.forced_card[b, k] = card
    x.forced_count[b] = k + 1


@numba.njit(cache=True)
def clear_report(x, b):
    """Kernel: table ``b`` starts a new episode: no forced move reported."""
    x.forced_count[b] = 0
    x.forced_seat[b, :] = -1
    x.forced_action[b, :] = -1
    x.forced_card[b, :] = -1
