"""Text picture of one Tripoli table as one seat may see it (used by ``render_mode`` "ansi" and "human")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.core import cards as C
from envs.core.poker import describe, mask_rank
from envs.tripoli.state import PHASE_NAMES, SPACE_NAMES, TripoliState

if TYPE_CHECKING:
    from envs.tripoli.core import TripoliGame


def _cards(mask, unicode: bool) -> str:
    return C.cards_str(C.cards_of(mask), unicode) or "—"


def render(game: TripoliGame, s: TripoliState, t: int, viewer: int | None, unicode: bool = True) -> str:
    """Layout chips, seats (balance, cards, bets, folds), the viewer's hand, public cards and whose turn it is."""
    n = game.num_players
    deal = "final round" if s.final[t] else f"deal {int(s.deal[t]) + 1}/{game.config.num_deals}"
    lines = [f"Tripoli — {deal} — {PHASE_NAMES[int(s.phase[t])]}"]
    pay = C.SUIT_SYMBOLS[int(s.pay_suit[t])] if unicode else C.SUIT_LETTERS[int(s.pay_suit[t])]
    lines.append(
        "layout: "
        + "  ".join(f"{name}{pay if i < 5 else ''}:{int(s.layout[t, i])}" for i, name in enumerate(SPACE_NAMES))
    )
    for seat in range(n):
        tags = []
        if seat == s.dealer[t]:
            tags.append("dealer")
        if s.folded[t, seat]:
            tags.append("folded")
        if s.round_bet[t, seat]:
            tags.append(f"bet {int(s.round_bet[t, seat])}")
        if seat == s.current_player[t]:
            tags.append("◀ to act")
        marker = "*" if seat == viewer else " "
        line = (
            f"{marker} player_{seat}: chips {int(s.balance[t, seat]):+d}, "
            f"{C.popcount(s.hands[t, seat])} cards" + (f" ({', '.join(tags)})" if tags else "")
        )
        if s.shown[t, seat]:
            value = int(mask_rank(s.shown[t, seat]))
            line += f" — showed {_cards(s.shown[t, seat], unicode)} ({describe(value)})"
        lines.append(line)
    if viewer is not None:
        lines.append(f"your hand (player_{viewer}): {_cards(s.hands[t, viewer], unicode)}")
        if s.selected[t, viewer] and not s.final[t]:
            lines.append(f"your poker cards: {_cards(s.selected[t, viewer], unicode)}")
    if s.played[t]:
        lines.append(f"played: {_cards(s.played[t], unicode)}")
        if s.last_card[t] >= 0:
            lines.append(f"last card: {C.card_str(int(s.last_card[t]), unicode)} by player_{int(s.last_player[t])}")
    if s.high_bid[t] > 0 and s.high_bidder[t] >= 0:
        lines.append(f"high bid: {int(s.high_bid[t])} by player_{int(s.high_bidder[t])}")
    if s.terminated[t]:
        lines.append("episode over")
    elif s.current_player[t] >= 0:
        legal = [game.action_name(a) for a in s.legal_action_mask[t].nonzero()[0]]
        if viewer == s.current_player[t]:
            lines.append("legal: " + ", ".join(legal))
    return "\n".join(lines)
