"""Card ids, printing and 52-bit card masks (common.md C1–C3).

A card is an int ``suit * 13 + rank`` with suits clubs, diamonds, hearts, spades (0–3) and ranks 2 … A (0–12)
(C1). A card of a second deck is ``52 + card`` (C3). A set of cards of one deck is a ``uint64`` whose bit ``c``
is card ``c``: runs, "lowest card of a suit" and counts are then a few bit operations over a whole batch. The
colours (C2) are compiled (numba) for the kernels, and callable from Python too.
"""

from __future__ import annotations

from collections.abc import Iterable

import numba
import numpy as np

NUM_SUITS = 4
NUM_RANKS = 13
DECK_SIZE = 52
SUIT_LETTERS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
RANK_LETTERS = "23456789TJQKA"
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)

ONE = np.uint64(1)
ALL_CARDS = np.uint64((1 << DECK_SIZE) - 1)
#: ``CARD_BITS[c]`` is the mask of card ``c`` alone.
CARD_BITS = np.array([1 << c for c in range(DECK_SIZE)], dtype=np.uint64)


def suit_of(card: int | np.ndarray) -> int | np.ndarray:
    """Suit 0–3 of a card id (either deck)."""
    return (card % DECK_SIZE) // NUM_RANKS


def rank_of(card: int | np.ndarray) -> int | np.ndarray:
    """Rank 0 (two) … 12 (ace) of a card id (either deck)."""
    return card % NUM_RANKS


@numba.njit(cache=True, inline="always")
def is_red(suit):
    """C2: whether suit ``suit`` (0–3) is red: diamonds and hearts are red, clubs and spades black."""
    return suit == DIAMONDS or suit == HEARTS


@numba.njit(cache=True, inline="always")
def partner_suit(suit):
    """C2: the other suit of the same colour as suit ``suit`` (clubs ↔ spades, diamonds ↔ hearts)."""
    return SPADES - suit


def card_str(card: int, unicode: bool = False) -> str:
    """``Td``/``Qh``/``As`` (C1), or ``10♦``/``Q♥``/``A♠`` with ``unicode=True``."""
    card = int(card)
    if not 0 <= card < 2 * DECK_SIZE:
        raise ValueError(f"card id {card} is outside 0..103")
    rank, suit = rank_of(card), suit_of(card)
    if unicode:
        return ("10" if rank == 8 else RANK_LETTERS[rank]) + SUIT_SYMBOLS[suit]
    return RANK_LETTERS[rank] + SUIT_LETTERS[suit]


def cards_str(cards: Iterable[int], unicode: bool = False, sep: str = " ") -> str:
    """Cards printed with :func:`card_str`, joined by ``sep``."""
    return sep.join(card_str(c, unicode) for c in cards)


def parse_card(text: str) -> int:
    """Inverse of :func:`card_str` for one deck: ``"Td"``, ``"10♦"``, ``"qh"`` → card id."""
    t = text.strip()
    if len(t) < 2:
        raise ValueError(f"not a card: {text!r}; write rank then suit, e.g. 'Td', 'Qh', '10♦'")
    rank_txt, suit_txt = t[:-1].upper(), t[-1]
    rank_txt = "T" if rank_txt == "10" else rank_txt
    suit = SUIT_LETTERS.find(suit_txt.lower()) if suit_txt.lower() in SUIT_LETTERS else SUIT_SYMBOLS.find(suit_txt)
    if rank_txt not in RANK_LETTERS or len(rank_txt) != 1 or suit < 0:
        raise ValueError(f"not a card: {text!r}; write rank then suit, e.g. 'Td', 'Qh', '10♦'")
    return suit * NUM_RANKS + RANK_LETTERS.index(rank_txt)


def popcount(masks: np.ndarray) -> np.ndarray:
    """Number of cards in each mask (any shape of ``uint64``)."""
    return np.bitwise_count(masks).astype(np.int64)


def mask_of(cards: Iterable[int]) -> np.uint64:
    """Mask of a collection of card ids of one deck."""
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return np.uint64(m)


def cards_of(mask: int | np.uint64) -> list[int]:
    """Sorted card ids of one mask (not for the hot path)."""
    m = int(mask)
    return [c for c in range(DECK_SIZE) if m >> c & 1]
