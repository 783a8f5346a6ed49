"""The moves of a Le triolet seat view, replayed on what is public: for each move of each step (its action, then the
forced moves the step made, C8) the top of the pile before it, the mover's hand size and what it drew (L10).

A step's moves are public (the action and the forced moves, in order) and so are their effects on the pile, the hand
sizes and the stock, except a face-down card's (L13: whether it could be played depends on the card). :func:`moves`
follows every step from the seat's observation before it; a move after a face-down card of the same step is marked
``lost`` (nothing is inferred from it), and a step whose replayed pile, hand sizes or stock do not end as the next
observation shows has all its moves marked ``lost`` and its draws unattributed.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from envs.core.cards import NUM_RANKS
from envs.seatview import SeatView
from envs.triolet import observation as V
from envs.triolet.actions import HAND_SIZE, MAX_COPIES, PICK_UP, PLAY_FACEDOWN, PLAY_FACEUP, PLAY_FACEUP_SET, TEN


@dataclasses.dataclass(frozen=True)
class Move:
    """One move of a step, with the public position before it."""

    step: int
    """The step (1-based: the observation after it is row ``step`` of the view's observations)."""
    seat: int
    action: int
    forced: bool
    """A forced move (the mover had exactly this one legal action)."""
    top: int
    """The rank on top of the pile before the move (-1: empty)."""
    hand: int
    """The mover's hand size before the move."""
    drew: int
    """Cards the mover drew from the stock after the move (L10)."""
    lost: bool
    """The public replay does not know the position of this move (after a face-down card, or a step that does not
    add up): nothing is to be inferred from it."""


def _row_state(row: np.ndarray, n: int, me: int) -> tuple[int, int, int, list[int], int]:
    """``(top, run, pile size, hand sizes by absolute seat, stock)`` read from an observation row of seat ``me``."""
    tops = np.flatnonzero(row[V.TOP : V.TOP + NUM_RANKS] > 0.5)
    top = int(tops[0]) if tops.size else -1
    hands = [0] * n
    for j in range(n):
        hands[(me + j) % n] = int(round(float(row[V.SEATS + V.SEAT_SIZE * j + V.HAND_COUNT])))
    return (top, int(round(float(row[V.RUN]))), int(round(float(row[V.PILE_COUNT]))), hands,
            int(round(float(row[V.STOCK]))))


def _placed(top: int, run: int, pile: int, rank: int, count: int) -> tuple[int, int, int]:
    """``(top, run, pile size)`` after ``count`` cards of ``rank`` went on the pile (L8, L9: a 10 or four of a rank
    burn it)."""
    run = run + count if top == rank else count
    if rank == TEN or run >= 4:
        return -1, 0, 0
    return rank, run, pile + count


def step_moves(view: SeatView, hist: np.ndarray, k: int) -> tuple[list[Move], bool]:
    """The moves of step ``k`` (1-based) and whether the public replay added up (the step's draws are then the
    moves' ``drew``)."""
    n, me = view.num_players, view.seat
    top, run, pile, hands, stock = _row_state(hist[k - 1], n, me)
    plays = [(view.actors[k - 1], view.actions[k - 1], False)]
    plays += [(p, a, True) for p, a in (view.forced[k - 1] if k - 1 < len(view.forced) else ())]
    out: list[Move] = []
    lost = False
    for p, a, forced in plays:
        drew = 0
        before_top, before_hand = top, hands[p]
        if lost or a < 0:
            lost = True
        elif a < PLAY_FACEUP:
            rank, count = divmod(a, MAX_COPIES)
            count += 1
            hands[p] -= count
            drew = min(max(HAND_SIZE - hands[p], 0), stock)
            hands[p] += drew
            stock -= drew
            top, run, pile = _placed(top, run, pile, rank, count)
        elif a < PLAY_FACEUP_SET:
            top, run, pile = _placed(top, run, pile, (a - PLAY_FACEUP) % NUM_RANKS, 1)
        elif a < PLAY_FACEDOWN:
            rank, extra = divmod(a - PLAY_FACEUP_SET, 2)
            top, run, pile = _placed(top, run, pile, rank, extra + 2)
        elif a < PICK_UP:
            lost = True
        elif a == PICK_UP:
            hands[p] += pile
            top, run, pile = -1, 0, 0
        out.append(Move(k, p, a, forced, before_top, before_hand, drew, lost))
    if lost:
        return out, False
    if (top, run, pile, hands, stock) != _row_state(hist[k], n, me):
        return [dataclasses.replace(m, lost=True, drew=0) for m in out], False
    return out, True
