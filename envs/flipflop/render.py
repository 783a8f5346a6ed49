"""The text picture of a Flip Flop table (``render_mode="ansi"``), as one seat may see it."""

from __future__ import annotations

import numpy as np

from envs.core.cards import card_str, popcount
from envs.flipflop import actions as T
from envs.flipflop.state import CUT_OFF, END_NAMES, FlipFlopState


def _cards(mask: int, unicode: bool) -> str:
    bits = [b for b in range(52) if int(mask) >> b & 1]
    return " ".join(card_str(T.pub_card(b), unicode) for b in bits) or "-"


def render(s: FlipFlopState, table: int, viewer: int | None, unicode: bool = True) -> str:
    """A text picture of one table as seat ``viewer`` may see it (``None``: public information only)."""
    b = table
    n = s.hands.shape[1]
    cur = int(s.current_player[b])
    lines = [
        f"Flip Flop, deal {int(s.deal_no[b]) + (0 if s.done[b] and s.end_reason[b] != CUT_OFF else 1)}, "
        f"dealer player_{int(s.dealer[b])}"
        + (" — finished" if s.terminated[b] else " — cut off (F28)" if s.truncated[b]
           else f", turn {int(s.turn_no[b])}, player_{cur} to {('draw', 'play', 'claim 49/50')[int(s.phase[b])]}"),
        f"pots: game {s.pots[b, 0]:g}  flip {s.pots[b, 1]:g}  flop {s.pots[b, 2]:g}   "
        f"flip card {card_str(T.pub_card(int(s.flip_card[b])), unicode)}   stock {52 - int(s.stock_pos[b])} cards",
    ]
    pile = [card_str(T.pub_card(int(c)), unicode) for c in s.pile[b, : int(s.pile_len[b])]]
    lines.append("discard pile (bottom → top): " + (" ".join(pile) or "-"))
    known = int(s.shown[b]) | (1 << int(s.flip_card[b])) | int(np.bitwise_or.reduce(s.taken_by[b]))
    for p in range(n):
        status = "out" if s.out[b, p] else "all in" if s.all_in[b, p] else ""
        hand = int(s.hands[b, p])
        shown = hand if viewer == p else hand & known
        hidden = popcount(np.uint64(hand & ~shown))
        last = int(s.last_action[b, p])
        lines.append(
            f"{'>' if p == cur else ' '}player_{p}{' (dealer)' if p == s.dealer[b] else '         '}"
            f"{' (you)' if p == viewer else '      '} bank {s.bank[b, p]:>7g} "
            f"{status:<6} hand: {_cards(shown, unicode)}{f' +{hidden} hidden' if hidden else ''}"
            f"  spreads: {_cards(int(s.spreads[b, p]), unicode)}"
            + (f"  last: {T.ACTION_NAMES[last]}" if last >= 0 else "")
        )
    if s.end_reason[b]:
        lines.append(f"last deal ended: {END_NAMES[int(s.end_reason[b])]}")
    return "\n".join(lines)
