"""The Le triolet bot zoo: swap and shedding styles built on :class:`agents.triolet_heuristic.TrioletHeuristic`.

The heuristic is a fixed priority over the action table taken as a masked argmax; each style changes the
priorities of one part of the game (which card goes face up in the swap phase, which play comes first), and the
styles that look at the table (``pairs`` in the swap phase, ``blocker`` in play) change them row by row from the
observation. All are numpy over the batch, read only the observation and the mask, and never use the rng.
"""

from __future__ import annotations

import numpy as np

from agents.triolet_heuristic import RANK_VALUE, READY_PRIORITY, TrioletHeuristic, priorities, shed_low_first
from envs.triolet import observation as O
from envs.triolet.actions import SEVEN, TEN, TWO
from envs.triolet.core import TrioletGame

_SPECIALS_FIRST = {TEN: 3, SEVEN: 2, TWO: 1}
_SAVER_VALUE = RANK_VALUE.copy()
_SAVER_VALUE[[TEN, SEVEN, TWO]] = (-3, -2, -1)
"""Face-up value of the saver: the ordinary ranks in the L2 order, the specials below them (the 10 lowest)."""


def _specials_first(rank: int, copies: int) -> float:
    """The 10, then the 7, then the 2, one card at a time, before any ordinary rank (lowest first, all copies)."""
    if rank in _SPECIALS_FIRST:
        return 3_000 + 10 * _SPECIALS_FIRST[rank] - copies
    return shed_low_first(rank, copies)


def _most_copies_first(rank: int, copies: int) -> float:
    """Ordinary ranks by the number of cards played (the most first), then lowest first; the specials as the
    heuristic (2, then 7, then 10, one at a time, after every ordinary rank)."""
    if rank in _SPECIALS_FIRST:
        return shed_low_first(rank, copies)
    return 2_000 + 20 * copies + (12 - RANK_VALUE[rank])


def _highest_first(rank: int, copies: int) -> float:
    """The strongest rank of the L2 order first (2, A, K, …, 3) with all its copies, then the 10, then the 7."""
    if rank == TEN:
        return 1_500 - copies
    if rank == SEVEN:
        return 1_000 - copies
    return 2_000 + 10 * RANK_VALUE[rank] + copies


class TrioletSpecials(TrioletHeuristic):
    """Plays its specials early: a 10, 7 or 2 goes down as soon as it can, before any ordinary card.

    The beginner's style the heuristic avoids: the 10 first (it burns the pile and the player plays again), then
    the 7 (anything may follow it), then the 2 (the highest card), one card at a time; then, with no special in
    hand, the lowest ordinary rank with all its copies, as the heuristic. Face-up cards follow the same order;
    the swap phase is the heuristic's (the best cards face up).
    """

    name = "specials"
    version = 1
    play_priority = staticmethod(_specials_first)


class TrioletSaver(TrioletHeuristic):
    """Saves its 2s, 7s and 10s in hand: the swap phase brings them in from the face-up row; the heuristic's play.

    The heuristic puts its best cards face up, specials included, to play them last. This style wants the
    specials in its hand, where they get it out of trouble during the whole game rather than only at the end: in
    the swap phase a face-up 10, 7 or 2 (in that order of want) comes into the hand in exchange for its strongest
    ordinary hand card, which goes face up; with no special face up, a stronger ordinary hand card goes face up in
    exchange for a weaker face-up one, as the heuristic does. Play is the heuristic's: lowest ordinary rank first
    with all copies, then 2, 7, 10 when nothing else can go.
    """

    name = "saver"
    version = 1
    faceup_value = _SAVER_VALUE


class TrioletPairs(TrioletHeuristic):
    """Dumps pairs: plays the rank it holds most copies of first, and swaps to hold pairs in hand.

    - **Playing**: the ordinary rank (not 2, 7 or 10) of which it can play the most cards at once, lowest rank
      between equal counts: several cards in one play shed faster, and three or four of a rank can complete four of
      a kind on the pile and burn it (L9). The 2s, 7s and 10s are kept for when nothing else can go, as the
      heuristic does.
    - **Swap phase** (reads its hand in the observation): the exchange that most raises ``20 × (ordinary hand
      cards beyond the first of their rank) + the face-up row's value`` (the heuristic's value, so with no pair
      to make it swaps as the heuristic), and ``ready`` when no exchange raises it. Every exchange raises that
      score, so the phase cannot cycle.
    """

    name = "pairs"
    version = 1
    play_priority = staticmethod(_most_copies_first)
    pair_weight = 20
    """Swap-phase worth of one more paired ordinary card in hand, in card-value steps (the face-up values span 12)."""

    def swap_priorities(self, obs: np.ndarray) -> np.ndarray:
        """``(B, 9)``: the swap that most raises the pairs score (see the class docstring), only when it does."""
        hand_cards, up_cards = O.swap_cards(obs)
        named = (hand_cards >= 0) & (up_cards >= 0)
        rh, rf = hand_cards % 13, up_cards % 13  # rank of the hand card given, of the face-up card taken
        counts = obs[:, O.OWN_HAND : O.OWN_HAND + 52].reshape(-1, 4, 13).sum(axis=1)  # (B, 13) cards per rank
        held = np.take_along_axis(counts, rh, axis=1)
        wanted = np.take_along_axis(counts, rf, axis=1) - (rh == rf)
        ordinary = ~np.isin(np.arange(13), list(_SPECIALS_FIRST))
        loses_pair = (held >= 2) & ordinary[rh] & (rh != rf)
        makes_pair = (wanted >= 1) & ordinary[rf] & (rh != rf)
        change = self.pair_weight * (makes_pair.astype(np.int64) - loses_pair) + RANK_VALUE[rh] - RANK_VALUE[rf]
        return np.where(named & (change > 0), READY_PRIORITY + change, 1.0)


class TrioletBlocker(TrioletHeuristic):
    """Blocks the next player when they are close to going out: then plays its strongest cards; else the heuristic.

    The next player to act (play goes to the right, L5) must beat the card it plays. When that player has at most
    ``threat_at`` cards left in all (hand, face-up and face-down, read from the observation) it plays the
    strongest rank it can in the L2 order (2, A, K, …) with all its copies, then a 10, and a 7 (on which anything
    goes) last, from the hand or the face-up row, to make them pick up the pile. Otherwise, and in the swap phase,
    it plays as the heuristic.
    """

    name = "blocker"
    version = 1
    threat_at = 3
    """Block when the next player holds at most this many cards in all."""
    finish = None
    """Its choice reads more than the priorities: no compiled finish (:meth:`TrioletHeuristic.finish`)."""

    def __init__(self, game: TrioletGame) -> None:
        super().__init__(game)
        self.block_priority = priorities(_highest_first).astype(np.float32)

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        mask = np.asarray(mask, dtype=bool)
        actions = super().act(obs, mask, rng)
        nxt = O.SEATS + (self.game.num_players - 1) * O.SEAT_SIZE  # seat block of the player to the right
        obs = np.asarray(obs)
        left = (
            obs[:, nxt + O.HAND_COUNT]
            + obs[:, nxt + O.FACEDOWN : nxt + O.FACEDOWN + 3].sum(axis=1)
            + obs[:, nxt + O.FACEUP : nxt + O.FACEUP + 52].sum(axis=1)
        )
        rows = np.flatnonzero((left <= self.threat_at) & (obs[:, O.SWAP_PHASE] < 0.5))
        if rows.size:
            actions[rows] = np.argmax(np.where(mask[rows], self.block_priority, -1.0), axis=1)
        return actions
