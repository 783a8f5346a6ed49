"""A hand-written Le triolet player: a preference over the action table, taken as a masked argmax.

Every play-phase action has a priority that depends only on the action (the mask already says what the hand, the
face-up cards and the pile allow); a swap's priority depends on the two cards it names, read from the observation
(:func:`envs.triolet.observation.swap_cards`):

- **Swap phase** (L4): swap the hand card and face-up card with the largest gain in card value (the *good* card goes
  face up, where it will be played last, the weak one comes into the hand to be shed early), as long as the
  hand card is better; then say ``ready``. Card value: the L2 order 3 < 4 < … < A < 2, then the 7 and, best, the 10.
- **Playing** (L6–L13): the lowest legal ordinary rank (L2 order), with all its copies at once (a low card is
  worth nothing later; several copies shed faster and can complete four of a kind); the 2s, 7s and 10s are kept
  for when they are needed — when no ordinary rank can be played — and then the 2 first (nothing ordinary goes on
  it), then the 7, then the 10 (it burns the pile, best kept for a big pile), one card at a time. The same order
  holds for face-up cards (sets of face-up cards with ``faceup_sets``: the larger set first); face-down cards are
  turned over from the first; picking up is done only when forced.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.together import SameClassTogether
from envs.core.agent import AgentBase
from envs.triolet.actions import (
    MAX_COPIES,
    NUM_ACTIONS,
    PICK_UP,
    PLAY_FACEDOWN,
    PLAY_FACEUP,
    PLAY_FACEUP_SET,
    READY,
    SWAP,
)
from envs.triolet.core import TrioletGame
from envs.triolet.observation import swap_cards
from envs.triolet.rollout import rollout_tables
from envs.triolet.state import SWAP_PHASE, TrioletState

_TWO, _SEVEN, _TEN = 0, 5, 8
RANK_VALUE = np.array([10, 0, 1, 2, 3, 11, 4, 5, 12, 6, 7, 8, 9])
"""Card value by rank index (0 = 2 … 12 = A): the L2 order 3 … A, 2, then the 7 (11) and the 10 (12)."""
_SPECIAL_PRIORITY = {_TWO: 3, _SEVEN: 2, _TEN: 1}
READY_PRIORITY = 100
"""Priority of ``ready``: a swap is made when its priority is higher."""


def shed_low_first(rank: int, copies: int) -> float:
    """Priority of playing ``copies`` cards of ``rank`` (hand or face-up): ordinary ranks first, lowest first, all
    copies; then 2, 7, 10 one at a time."""
    if rank in _SPECIAL_PRIORITY:
        return 1_000 + 10 * _SPECIAL_PRIORITY[rank] - copies
    return 2_000 + 10 * (12 - RANK_VALUE[rank]) + copies


def priorities(play_priority: Callable[[int, int], float] = shed_low_first) -> np.ndarray:
    """The priority of every play-phase action id and of ``ready`` (higher is preferred): plays by
    ``play_priority(rank, copies)``; face-down cards from the first; swaps are scored per row (:func:`swap_gains`)."""
    p = np.zeros(NUM_ACTIONS)
    for rank in range(13):
        for k in range(1, MAX_COPIES + 1):
            p[rank * MAX_COPIES + k - 1] = play_priority(rank, k)
        for k in (2, 3):
            p[PLAY_FACEUP_SET + 2 * rank + k - 2] = play_priority(rank, k)
    for card in range(52):
        p[PLAY_FACEUP + card] = play_priority(card % 13, 1)
    for slot in range(PICK_UP - PLAY_FACEDOWN):
        p[PLAY_FACEDOWN + slot] = 500 - slot
    p[PICK_UP] = 0
    p[READY] = READY_PRIORITY
    return p


def swap_gains(obs: np.ndarray, faceup_value: np.ndarray = RANK_VALUE) -> np.ndarray:
    """``(B, 9)`` how much each swap action raises the face-up row's ``faceup_value`` (by rank index): the hand card
    it names goes face up, the face-up card comes into the hand (a large negative number for a swap naming no
    card)."""
    hand, up = swap_cards(obs)
    value = np.asarray(faceup_value)
    return np.where((hand >= 0) & (up >= 0), value[hand % 13] - value[up % 13], -1_000)


class TrioletHeuristic(SameClassTogether, AgentBase):
    """Sheds low cards first and keeps the 2s, 7s and 10s until needed (see the module docstring)."""

    name = "heuristic"
    version = 2
    """v2: swaps name a hand position and a face-up slot (Le triolet v1); the choice is the v1 choice."""
    play_priority = staticmethod(shed_low_first)
    """``(rank, copies) -> priority`` of playing that many cards of that rank from the hand or the face-up row."""
    faceup_value: np.ndarray = RANK_VALUE
    """``(13,)`` how much it wants each rank (index 0 = 2 … 12 = A) face up rather than in its hand."""

    def __init__(self, game: TrioletGame) -> None:
        super().__init__(game)
        self.priority = priorities(self.play_priority).astype(np.float32)

    def swap_priorities(self, obs: np.ndarray) -> np.ndarray:
        """``(B, 9)`` priority of each swap action (a swap is made when it beats ``ready``): the largest gain of
        face-up value first, only gains above zero."""
        gain = swap_gains(obs, self.faceup_value)
        return np.where(gain > 0, READY_PRIORITY + gain, 1.0)

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        mask = np.asarray(mask, dtype=bool)
        scores = np.where(mask, self.priority[None, :], -1.0)
        swapping = np.flatnonzero(mask[:, READY])
        if swapping.size:
            rows = np.asarray(obs)[swapping]
            scores[swapping, SWAP:] = np.where(mask[swapping, SWAP:], self.swap_priorities(rows), -1.0)
        return np.argmax(scores, axis=1)

    def finish(self, state: TrioletState, tables: np.ndarray, styles: tuple[np.ndarray, ...] | None = None,
               seat_style: np.ndarray | None = None, seed: int = 0) -> np.ndarray:
        """Play the tables ``tables`` of ``state`` that are past the swap phase to their end in one compiled call
        (:func:`envs.triolet.rollout.rollout_tables`): every seat playing this bot (the play phase's choice is the
        masked argmax of :attr:`priority` alone), or, with ``styles`` (priority tables of such bots) and
        ``seat_style`` (``(state.batch_size, n)``), seat ``p`` of table ``b`` playing ``styles[seat_style[b, p]]``,
        or random legal moves where it is -1. Returns the tables played (their final rewards are in
        ``state.rewards``); the swap phase's are left to :meth:`act`."""
        tables = np.asarray(tables, np.int64)
        playing = tables[state.phase[tables] != SWAP_PHASE]
        if playing.size:
            if styles is None or seat_style is None:
                styles, seat_style = (self.priority,), np.zeros((state.batch_size, self.game.num_players), np.int64)
            rec, rules, extra = self.game.kernel_args(state)
            rollout_tables(rec, rules, extra, playing, np.stack(styles).astype(np.float32),
                           np.ascontiguousarray(seat_style, np.int64), int(seed) % 2**32)
        return playing
