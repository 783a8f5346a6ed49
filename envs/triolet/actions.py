"""Cards and action ids of Le triolet (triolet.md L1, L2, L6–L8): rank order, the decks by table size, which rank
may go on which, and the action table. Pure constants and small helpers, no game state.

Suits never matter in Le triolet; a card of the second deck (id ``52 + c``, C3) plays exactly like ``c``, so the
core stores every card as its identity ``c % 52`` and counts copies.
"""

from __future__ import annotations

import numpy as np

from envs.core.cards import DECK_SIZE, NUM_RANKS, card_str

TWO, SEVEN, TEN = 0, 5, 8
"""Rank indices (C1: 2 is 0 … A is 12) of the special ranks."""
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

#: L2: strength of each rank, low to high 3 4 5 6 8 9 J Q K A 2; the 7 and the 10 are special (-1).
STRENGTH = np.array([10, 0, 1, 2, 3, -1, 4, 5, -1, 6, 7, 8, 9], dtype=np.int8)

#: ``PLAYABLE[top + 1, r]``: rank ``r`` may go on a pile whose top rank is ``top`` (``top = -1``: empty pile). L6–L8.
PLAYABLE = np.array(
    [[True] * NUM_RANKS]
    + [
        [top == SEVEN or r in (SEVEN, TEN) or STRENGTH[r] > STRENGTH[top] for r in range(NUM_RANKS)]
        for top in range(NUM_RANKS)
    ],
    dtype=bool,
)

STRIPPED_RANKS = {3: (2, 3, 4), 4: (2, 3), 5: (2,)}
"""L1: ranks taken out of one deck by table size (the 4s, 5s and 6s with 3 players …); 6–8 players use two decks."""
HAND_SIZE = 3
"""L3/L10: cards in each of the face-down, face-up and hand rows at the deal, and the hand to draw back to."""


def deck_cards(num_players: int) -> np.ndarray:
    """L1: the card ids of a table's deck, ascending (40/44/48 one-deck ids, or 0..103 for two decks, C3). A stacked
    deck (``init(decks=...)``) is a permutation of these ids, in dealing order."""
    if num_players >= 6:
        return np.arange(2 * DECK_SIZE, dtype=np.int16)
    out = STRIPPED_RANKS[num_players]
    return np.array([c for c in range(DECK_SIZE) if c % NUM_RANKS not in out], dtype=np.int16)


# ----- action table ----------------------------------------------------------------------------------------------
MAX_COPIES = 8
"""With two decks a hand may hold eight cards of one rank."""
PLAY_HAND = 0
"""``PLAY_HAND + 8 * r + (k - 1)``: play ``k`` cards of rank ``r`` from the hand (L6), k = 1..8."""
PLAY_FACEUP = PLAY_HAND + NUM_RANKS * MAX_COPIES  # 104
"""``PLAY_FACEUP + c``: play the face-up card ``c`` (identity 0..51, L12)."""
PLAY_FACEUP_SET = PLAY_FACEUP + DECK_SIZE  # 156
"""``PLAY_FACEUP_SET + 2 * r + (k - 2)``: play ``k`` = 2 or 3 face-up cards of rank ``r`` (``faceup_sets``, L12)."""
PLAY_FACEDOWN = PLAY_FACEUP_SET + 2 * NUM_RANKS  # 182
"""``PLAY_FACEDOWN + j``: turn over the face-down card in slot ``j`` = 0..2 (named #1..#3) and play it (L13)."""
PICK_UP = PLAY_FACEDOWN + HAND_SIZE  # 185
"""Take the pile into the hand (L11, L12; always a forced move)."""
READY = PICK_UP + 1  # 186
"""End one's swap phase (L4)."""
SWAP = READY + 1  # 187
"""``SWAP + 3 * i + j``: exchange hand card ``i`` (0–2, the hand sorted by card id, C1) with the face-up card in
slot ``j`` (0–2) (L4). Of two equal hand cards (two decks) only the first may be named."""
NUM_ACTIONS = SWAP + HAND_SIZE * HAND_SIZE  # 196


def action_name(action: int) -> str:
    """Readable name of an action id: ``"play 3×9"``, ``"play face-up Q♠"``, ``"play face-down #2"``, …"""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"triolet: action id {a} is outside 0..{NUM_ACTIONS - 1}")
    if a < PLAY_FACEUP:
        return f"play {a % MAX_COPIES + 1}×{RANK_NAMES[a // MAX_COPIES]}"
    if a < PLAY_FACEUP_SET:
        return f"play face-up {card_str(a - PLAY_FACEUP, unicode=True)}"
    if a < PLAY_FACEDOWN:
        r, k = divmod(a - PLAY_FACEUP_SET, 2)
        return f"play face-up {k + 2}×{RANK_NAMES[r]}"
    if a < PICK_UP:
        return f"play face-down #{a - PLAY_FACEDOWN + 1}"
    if a == PICK_UP:
        return "pick up the pile"
    if a == READY:
        return "ready"
    i, j = divmod(a - SWAP, HAND_SIZE)
    return f"swap hand card #{i + 1} ↔ face-up #{j + 1}"
