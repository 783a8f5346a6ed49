"""What the tests of the drawn table share: the cards a piece of HTML shows, and the ground truth of a table read
straight from the game's state (not through the observation the drawing reads)."""

from __future__ import annotations

import html
import re
from typing import Any

import numpy as np

from envs.core.cards import card_str, cards_of
from envs.core.game import BatchedGame, BatchState
from envs.flipflop.actions import PUB_OF

CARD = re.compile(r"(?:10|[2-9JQKA])[♣♦♥♠]")
DRAWN_CARD = re.compile(r'data-card="([^"]+)"')
SPACE_NAME = re.compile(r'<span class="name">[^<]*</span>')
"""The name of a space of Tripoli's board ("A♥"): a label, not a card."""


def drawn_cards(fragment: str) -> set[str]:
    """The cards drawn face up in a drawing (``data-card`` of every card face)."""
    return set(DRAWN_CARD.findall(fragment))


def named_cards(fragment: str) -> set[str]:
    """Every card a piece of HTML names anywhere — drawn, in a move's text, in a button — except the names of the
    board's spaces."""
    text = html.unescape(re.sub(r"<[^>]*>", "", SPACE_NAME.sub("", fragment)))
    return set(CARD.findall(text)) | drawn_cards(fragment)


def hand_of(game: BatchedGame, state: BatchState, seat: int) -> list[str]:
    """The cards in ``seat``'s hand at table 0, read from the game's state."""
    if game.name == "tripoli":
        ids = cards_of(state.hands[0, seat])
    elif game.name == "triolet":
        ids = cards_of(state.hand1[0, seat]) + cards_of(state.hand2[0, seat])
    else:
        ids = [int(PUB_OF[c]) for c in cards_of(state.hands[0, seat])]
    return sorted(card_str(c, True) for c in ids)


def line_cards(line: dict[str, Any]) -> set[str]:
    """The cards a log line (not the header) makes public: its events' cards and the cards shown at a deal's end."""
    ids = [c for e in line.get("events", []) for c in e.get("added", []) + e.get("removed", [])]
    ids += [c for cards in line.get("shown", {}).values() for c in cards]
    return {card_str(c, True) for c in ids}


def in_hand_counts(game: BatchedGame, state: BatchState) -> list[int]:
    """Cards in each seat's hand at table 0, from the state."""
    return [len(hand_of(game, state, s)) for s in range(game.num_players)]


def is_red_text(rgb: np.ndarray) -> np.ndarray:
    """Pixels of the red of a heart or diamond."""
    r, g, b = (rgb[..., k].astype(int) for k in range(3))
    return (r > 150) & (g < 90) & (b < 90)
