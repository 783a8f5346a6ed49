"""Text picture of one Le triolet table as one seat may see it (hands of others and face-down cards hidden)."""

from __future__ import annotations

import numpy as np

from envs.core.cards import DECK_SIZE, card_str
from envs.triolet.actions import PICK_UP, PLAY_FACEDOWN, RANK_NAMES, action_name


def _cards(counts: np.ndarray, unicode: bool) -> str:
    """Cards of a (52,) copy-count vector, by rank then suit."""
    ids = [c for c in sorted(range(DECK_SIZE), key=lambda c: (c % 13, c // 13)) for _ in range(int(counts[c]))]
    return " ".join(card_str(c, unicode) for c in ids) or "-"


def _slots(cards: np.ndarray, unicode: bool, hidden: bool) -> str:
    return " ".join("--" if c < 0 else ("##" if hidden else card_str(int(c), unicode)) for c in cards)


def render_table(state, table: int, viewer: int | None, unicode: bool, num_players: int, show_failed: bool) -> str:
    """Multi-line picture: the pile, the burned count, every seat's rows, whose turn it is and the last move.
    ``show_failed``: a turned face-down card that could not be played is shown to all (L13)."""
    t, n = table, num_players
    phase = "swap phase" if state.phase[t] == 0 else "play"
    stock = state.deck.shape[1] - int(state.stock_pos[t])
    lines = [f"Le triolet, {n} players, dealer player_{int(state.dealer[t])}; {phase}, turn {int(state.turns[t])}; "
             f"stock {stock} cards; burned {int(state.burned[t].sum())} cards"]
    top = int(state.top[t])
    pile = f"top {int(state.run[t])}×{RANK_NAMES[top]}" if top >= 0 else "empty"
    lines.append(f"Pile ({int(state.pile[t].sum())} cards, {pile}): {_cards(state.pile[t], unicode)}")
    for seat in range(n):
        mark = ">" if seat == state.current_player[t] else " "
        who = f"player_{seat}" + (" (you)" if seat == viewer else "")
        hand = state.hand[t, seat]
        if seat == viewer and state.phase[t] == 0:  # the swap actions name hand cards #1–#3 in card id order (L4)
            ids = np.repeat(np.arange(DECK_SIZE), hand)
            held = " ".join(f"#{i + 1} {card_str(int(c), unicode)}" for i, c in enumerate(ids))
        elif seat == viewer:
            held = _cards(hand, unicode)
        else:
            known = state.known[t, seat]
            held = f"{int(hand.sum())} cards" + (f", known {_cards(known, unicode)}" if known.any() else "")
        up = _slots(state.faceup[t, seat], unicode, False)
        if seat == viewer and state.phase[t] == 0:  # the swap actions name face-up slots #1–#3
            up = " ".join(f"#{j + 1} {c}" for j, c in enumerate(up.split()))
        lines.append(f"{mark} {who:<14} face-down {_slots(state.facedown[t, seat], unicode, True)} | face-up "
                     f"{up} | hand {held}")
    if state.last_seat[t] >= 0:
        event = f"Last move: player_{int(state.last_seat[t])}: {action_name(int(state.last_action[t]))}"
        if PLAY_FACEDOWN <= state.last_action[t] < PICK_UP and (
            show_failed or state.last_seat[t] == viewer or not state.last_missed[t]
        ):  # L13: a card that could not be played is seen by its owner only (unless show_failed_facedown)
            event += f" (turned {card_str(int(state.last_card[t]), unicode)})"
        lines.append(event + (", burning the pile" if state.last_burn[t] else ""))
    if state.terminated[t]:
        lines.append(f"player_{int(state.winner[t])} went out first and wins.")
    elif state.truncated[t]:
        lines.append("Cut off at the turn limit (truncated).")
    else:
        lines.append(f"player_{int(state.current_player[t])} to act.")
    return "\n".join(lines)
