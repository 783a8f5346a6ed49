"""Helpers for the Tripoli rule tests: stacked decks built from chosen hands and a scripted one-table driver.

A stacked deck lists card ids in dealing order (T5): deck card ``i`` goes to hand ``i % (n + 1)``, where hand
``j < n`` is seat ``(dealer + 1 + j) % n`` and hand ``n`` is the spare. :func:`stacked_deck` takes each seat's
cards (and the spare's) and writes them into the right positions. The :class:`Table` driver plays actions by name
on one table of the batched core and keeps each seat's balance from the rewards (C11), checking at every step that
chips are conserved (C10).
"""

from __future__ import annotations

import numpy as np

from envs.core.cards import card_str, parse_card
from envs.tripoli.core import TripoliGame

FAST = {"spare_hand": "none", "poker_select": "best"}
"""Options that skip the spare hand and the card-by-card selection, for tests about later stages."""

DECK = 52


def cards(text: str) -> list[int]:
    """Card ids of a space-separated list such as ``"6s 7s Tc"`` (C1 printing)."""
    return [parse_card(t) for t in text.split()]


def hand_sizes(n: int) -> list[int]:
    """Number of cards dealt to hands 0..n (hand n is the spare), T5."""
    return [len(range(j, DECK, n + 1)) for j in range(n + 1)]


def hand_index(seat: int, dealer: int, n: int) -> int:
    """Position of ``seat`` in the dealing order (0 = the player left of the dealer)."""
    return (seat - dealer - 1) % n


def stacked_deck(n: int, dealer: int, hands: dict[int, str], spare: str = "") -> list[int]:
    """A 52-card deck in dealing order giving each listed seat exactly the listed cards first and the spare hand
    the listed spare cards first. Hands listed only in part (or not at all) are filled with the remaining cards in
    increasing id order, hand by hand in dealing order."""
    sizes = hand_sizes(n)
    wanted: list[list[int]] = [[] for _ in range(n + 1)]
    for seat, text in hands.items():
        wanted[hand_index(seat, dealer, n)] = cards(text)
    wanted[n] = cards(spare)
    used = [c for w in wanted for c in w]
    assert len(used) == len(set(used)), "a card is listed twice"
    for j, w in enumerate(wanted):
        assert len(w) <= sizes[j], f"hand {j} gets {sizes[j]} cards, {len(w)} listed"
    rest = iter(sorted(set(range(DECK)) - set(used)))
    deck = [-1] * DECK
    for j, w in enumerate(wanted):
        full = w + [next(rest) for _ in range(sizes[j] - len(w))]
        for k, c in enumerate(full):
            deck[k * (n + 1) + j] = c
    return deck


class Table:
    """One table of the batched core, driven by action names.

    ``Table(n, hands={seat: "cards"}, spare="cards", dealer=d, **options)`` deals a stacked deck (hands given in part
    are filled as :func:`stacked_deck` says), ``Table(n, deck=[...])`` a deck given in dealing order; otherwise the
    deck comes from the seed. ``dealer=None`` lets the seed draw the dealer.
    """

    def __init__(self, n: int, hands: dict[int, str] | None = None, spare: str = "", dealer: int | None = 0,
                 seed: int = 0, deck: list[int] | None = None, **options) -> None:
        self.n = n
        self.game = TripoliGame(num_players=n, **options)
        if hands is not None:
            deck = stacked_deck(n, dealer, hands, spare)
        deck = None if deck is None else np.array([deck])
        self.state = self.game.init(seed, decks=deck, dealers=None if dealer is None else np.array([dealer]))
        self.init_rewards = self.rewards
        self.balances = list(self.init_rewards)
        self.history: list[str] = []
        self._check_conservation()

    # ----- what the table shows ----------------------------------------------------------------------------------
    @property
    def player(self) -> int:
        return int(self.state.current_player[0])

    @property
    def done(self) -> bool:
        return bool(self.state.terminated[0])

    @property
    def rewards(self) -> list[int]:
        """Rewards of the last step (or of the dealing right after init), as ints."""
        r = self.state.rewards[0]
        assert np.all(r == np.round(r)), r
        return [int(x) for x in r]

    def legal(self) -> set[str]:
        """Names of the legal actions of the player to act."""
        return {self.game.action_name(a) for a in np.flatnonzero(self.state.legal_action_mask[0])}

    def layout(self) -> list[int]:
        """Chips on the nine spaces: A, K, Q, J, 10, K-Q, sequence, kitty, pot (spec's space order)."""
        return [int(x) for x in self.state.layout[0]]

    def selectable(self) -> set[int]:
        """Cards the player to act may select for the poker hand (their hand minus cards already selected)."""
        return {parse_card(name.split()[1]) for name in self.legal() if name.startswith("select ")}

    # ----- playing -------------------------------------------------------------------------------------------------
    def play(self, *names: str) -> list[int]:
        """Play the named actions in order; return the rewards of the last step."""
        for name in names:
            assert name in self.legal(), f"{name!r} not legal for seat {self.player}: {sorted(self.legal())}"
            self.game.step(self.state, self.game.action_id(name))
            self.history.append(name)
            self.balances = [b + r for b, r in zip(self.balances, self.rewards, strict=True)]
            self._check_conservation()
        return self.rewards

    def play_lowest(self) -> list[int]:
        """Play the legal action with the lowest id; return the step's rewards."""
        return self.play(self.game.action_name(int(np.flatnonzero(self.state.legal_action_mask[0])[0])))

    def select(self, text: str) -> None:
        """The player to act selects these cards for the poker hand."""
        self.play(*(f"select {card_str(c, unicode=True)}" for c in cards(text)))

    def select_lowest(self, count: int = 5) -> None:
        """The player to act selects their ``count`` lowest selectable cards."""
        for _ in range(count):
            self.play(f"select {card_str(min(self.selectable()), unicode=True)}")

    def _check_conservation(self) -> None:
        """C10: every chip is in a balance or on the layout (balances start at 0, the layout empty)."""
        assert sum(self.balances) + sum(self.layout()) == 0, (self.balances, self.layout(), self.history)
        assert self.balances == [int(b) for b in self.state.balance[0]], (self.balances, self.state.balance[0])


# ----- decks used by several tests --------------------------------------------------------------------------------
# Deck M (3 players, dealer 2: seat j gets hand j, 13 cards each): the Michigan worked check of tripoli.md.
M_HANDS = {
    0: "6s 7s 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc",
    1: "8s 2h 2d 3d 4d 5d 6d 7d 8d 9d Td Jd Qd",
    2: "3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah Kd",
}
M_SPARE = "Kc Ac Ad 2s 3s 4s 5s 9s Ts Js Qs Ks As"

# Deck H (3 players, dealer 2): three royal flushes; seat 0's hearts end with A♥.
H_HANDS = {0: "2s 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah", 1: "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac",
           2: "2d 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad"}
H_SPARE = "2h 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As"

# Deck P (3 players, dealer 2): seat 0 ends up with clubs only and the lead passes on.
P_HANDS = {0: "2d 3d 3c 4c 5c 6c 7c 8c 9c Jc Qc Kc Ac", 1: "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah",
           2: "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As"}
P_SPARE = "2c Tc 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad"

# Deck K (2 players, dealer 0: seat 1 gets 18 cards, seat 0 17, the spare 17): the deal ends with nobody able to
# lead and both players pay the kitty.
K_HANDS = {1: "2c 4c 6c 8c Tc Qc Ac 2d 4d 6d 8d Td Qd Ad 8h 9h Th Kh",
           0: "3c 5c 7c 9c Jc Kc 3d 5d 7d 9d Jd Kd 2h 3h 4h 5h 6h"}
K_SPARE = "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As 7h Jh Qh Ah"

# Deck T10 (9 players, dealer 8: seat j gets hand j; seats 0 and 1 six cards, the others and the spare five).
T10_HANDS = {0: "8c 9c Tc 2c 3c 4c", 1: "8s 9s Ts 5c 6c 7c", 2: "Ah Jc Qc Kc Ac", 3: "Kh Qh 2d 3d 4d",
             4: "Th 5d 6d 7d 8d", 5: "9d Td Jd Qd Kd", 6: "Ad 2h 3h 4h 5h", 7: "6h 7h 8h 9h 2s",
             8: "3s 4s 5s 6s 7s"}
T10_SPARE = "Jh Js Qs Ks As"
