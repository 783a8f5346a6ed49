"""The Tripoli reference implementation on its own, then core/reference parity.

Part 1 checks the slow reference (tests/reference/tripoli_ref.py) against the rules' worked checks and invariants
(C10 chips conserved, every game ends). Part 2 plays the batched core and one reference per table side by side on
random and stacked deals over every option, and compares them at every step.
"""

from __future__ import annotations

import random

import pytest

from envs.tripoli.actions import KEEP, PASS, TripoliActions
from envs.tripoli.config import TripoliConfig
from tests.reference.tripoli_ref import KITTY, POT, SEQUENCE_SPACE, TripoliReference

# ==================================================================== helpers ========================================


def hand_sizes(n: int) -> list[int]:
    """T5: sizes of the n + 1 dealt hands (dealing order, the spare last)."""
    return [52 // (n + 1) + (1 if j < 52 % (n + 1) else 0) for j in range(n + 1)]


def deck_from_hands(n: int, fixed: dict[int, list[int]]) -> list[int]:
    """A stacked deck (T5 dealing order) giving dealt hand ``j`` the cards ``fixed[j]``; the other cards fill the
    free places in increasing order, one per hand round the table (so no hand gets neighbouring cards)."""
    sizes = hand_sizes(n)
    hands: list[list[int]] = [list(fixed.get(j, [])) for j in range(n + 1)]
    rest = sorted(set(range(52)) - {c for cards in hands for c in cards})
    j = 0
    for card in rest:
        while len(hands[j]) >= sizes[j]:
            j = (j + 1) % (n + 1)
        hands[j].append(card)
        j = (j + 1) % (n + 1)
    assert [len(h) for h in hands] == sizes
    return [hands[i % (n + 1)][i // (n + 1)] for i in range(52)]


def card(text: str) -> int:
    """``"7c"`` → card id (C1)."""
    return "cdhs".index(text[-1]) * 13 + "23456789TJQKA".index(text[:-1])


def cards(text: str) -> list[int]:
    return [card(t) for t in text.split()]


# Options and values, for random configurations; every value appears (ints: the default, small and edge values).
OPTION_VALUES: dict[str, list] = {
    "spare_hand": ["full", "swap_only", "none"],
    "paycards": ["deal", "play"],
    "poker_select": ["choose", "best"],
    "poker_opener": ["left_of_dealer", "dealer"],
    "michigan_leader": ["poker_winner", "dealer", "left_of_dealer"],
    "first_lead": ["any", "lowest"],
    "lead_colours": ["any", "alternate"],
    "pay_suit": ["hearts", "auction"],
    "sequence_start": [8, 6, 2, 12],
    "num_deals": [1, 2, 3],
    "final_round": [True, False],
    "auto_forced": [True, False],
    "max_bid": [20, 1, 2],
    "bet_limit": [10, 1, 2],
    "max_raises": [3, 0, 1],
}


def covering_options(index: int, salt: int = 0) -> dict:
    """Option set number ``index``: option k takes its values in turn, shifted by k (so consecutive indices cover
    every value of every option) and mixed by ``salt``."""
    return {
        name: values[(index + k * salt) % len(values)]
        for k, (name, values) in enumerate(OPTION_VALUES.items())
    }


def play_reference_randomly(ref: TripoliReference, rng: random.Random, max_steps: int = 5000) -> list[list[float]]:
    """Play random legal actions to the end; check C10 and the C11 reward sums on the way."""
    rewards = [list(ref.init_rewards)]
    assert sum(ref.balances) + sum(ref.layout) == 0
    for _ in range(max_steps):
        if ref.terminated:
            break
        legal = ref.legal_actions()
        assert legal and 0 <= ref.current_player < ref.n
        rewards.append(ref.step(rng.choice(legal)))
        assert sum(ref.balances) + sum(ref.layout) == 0  # C10
        assert min(ref.layout) >= 0
    assert ref.terminated and ref.current_player == -1 and ref.legal_actions() == []
    assert [sum(r[s] for r in rewards) for s in range(ref.n)] == ref.balances  # C11/T29
    return rewards


# ==================================================================== part 1: the reference ==========================


@pytest.mark.parametrize("index", range(24))
def test_c10_t29_reference_random_games_conserve_chips_and_end(index: int) -> None:
    """C10/C13/T29: over random games of every option, chips are conserved at every step, rewards add up to the
    balances, and every game ends."""
    rng = random.Random(index)
    for k in range(10):
        n = 2 + (index + k) % 8
        ref = TripoliReference(n, TripoliConfig(**covering_options(index * 10 + k, salt=1 + index % 5)), seed=index)
        play_reference_randomly(ref, rng)


def test_t4_reference_ante_four_players() -> None:
    """T4 worked check: 4 players, fresh layout: each space holds 4 chips and each balance is -9."""
    ref = TripoliReference(4, TripoliConfig(), seed=3)
    assert ref.layout == [4] * 9
    assert ref.balances == [-9] * 4 and ref.init_rewards == [-9.0] * 4
    assert ref.phase == "spare" and ref.current_player == ref.dealer  # T6: the dealer decides first


def test_t5_reference_dealing_order() -> None:
    """T5: card i goes to hand i mod (n+1), from the dealer's left round to the dealer, the spare last."""
    n, dealer = 5, 3
    deck = list(range(52))
    ref = TripoliReference(n, TripoliConfig(), seed=0, deck=deck, dealer=dealer)
    for j in range(n):
        assert ref.hands[(dealer + 1 + j) % n] == set(deck[j :: n + 1])
    assert ref.spare == set(deck[n :: n + 1])
    assert [len(ref.hands[(dealer + 1 + j) % n]) for j in range(n)] == hand_sizes(n)[:n]


def test_t10_reference_sequence_split_worked_check() -> None:
    """T10 worked check: two players each hold 8-9-10 (clubs, spades), the space holds 9 chips: each takes 4,
    1 stays."""
    n = 9
    # dealt hand 0 is seat 1, hand 1 seat 2 (dealer 0); 10♥ … A♥ in the spare so no pay card is held.
    deck = deck_from_hands(n, {0: cards("8c 9c Tc"), 1: cards("8s 9s Ts"), 9: cards("Th Jh Qh Kh Ah")})
    ref = TripoliReference(n, TripoliConfig(spare_hand="none"), seed=0, deck=deck, dealer=0)
    holders = [p for p in range(n) if ref._holds_sequence(ref.hands[p])]
    assert holders == [1, 2]
    assert ref.layout[SEQUENCE_SPACE] == 1
    assert ref.init_rewards == [-9.0, -5.0, -5.0] + [-9.0] * 6


def test_t16_reference_showdown_worked_check() -> None:
    """T16 worked check: 7♣7♦7♥2♠3♠ beats 8♣8♦4♥4♠2♦; the poker winner (T17) then leads (T19)."""
    n = 9
    deck = deck_from_hands(n, {0: cards("7c 7d 7h 2s 3s 9d"), 2: cards("8c 8d 4h 4s 2d")})
    config = TripoliConfig(spare_hand="none", poker_select="best", auto_forced=False)
    ref = TripoliReference(n, config, seed=0, deck=deck, dealer=0)
    a = TripoliActions(config.max_bid, config.bet_limit)
    assert ref.selected[1] == set(cards("7c 7d 7h 9d 3s")) and ref.selected[3] == ref.hands[3]
    pot = ref.layout[POT]
    assert ref.current_player == 1 and ref.step(a.bet) == [0.0, -1.0] + [0.0] * 7  # seat 1 bets 1
    ref.step(a.fold)  # seat 2
    assert ref.step(a.call)[3] == -1.0  # seat 3
    for seat in [4, 5, 6, 7, 8, 0]:
        assert ref.current_player == seat
        rewards = ref.step(a.fold)
    assert rewards[1] == pot + 2 and ref.layout[POT] == 0
    assert ref.phase == "lead" and ref.current_player == 1


def test_t21_reference_michigan_worked_check() -> None:
    """T21/T22 worked check: the spare holds 9♠, a player leads 6♠ holding 6♠7♠, another holds 8♠: 6♠ 7♠ 8♠ are
    played, 8♠ is the stop and its player leads next in a suit other than spades."""
    n, dealer = 3, 0  # dealt hands: 0 → seat 1, 1 → seat 2, 2 → seat 0 (the dealer), 3 → the spare
    hands = {
        0: cards("8s 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc"),
        1: cards("2s 3s 4s 5s 2d 3d 4d 5d 6d 7d 8d 9d Td"),
        2: cards("6s 7s Ac Jd Qd Kd Ad 2h 3h 4h 5h 6h 7h"),
        3: cards("9s Ts Js Qs Ks As 8h 9h Th Jh Qh Kh Ah"),
    }
    deck = deck_from_hands(n, hands)
    for auto_forced in (False, True):
        config = TripoliConfig(
            spare_hand="none", poker_select="best", michigan_leader="dealer", auto_forced=auto_forced
        )
        a = TripoliActions(config.max_bid, config.bet_limit)
        ref = TripoliReference(n, config, seed=0, deck=deck, dealer=dealer)
        # T10: seats 1 (8-9-10♣) and 2 (8-9-10♦) share the 3 chips of the sequence space; 1 stays.
        assert ref.init_rewards == [-9.0, -8.0, -8.0] and ref.layout[SEQUENCE_SPACE] == 1
        for seat in (1, 2, 0):  # everybody checks: showdown, seat 1's straight flush takes the pot
            assert ref.current_player == seat
            rewards = ref.step(a.check)
        assert rewards == [0.0, 3.0, 0.0]
        assert ref.phase == "lead" and ref.current_player == dealer
        assert ref.legal_actions() == [a.lead + s for s in range(4)]
        rewards = ref.step(a.lead + 3)  # lead spades: 6♠
        if not auto_forced:
            assert (ref.phase, ref.current_player, ref.legal_actions()) == ("run", 0, [a.continue_run])
            ref.step(a.continue_run)  # 7♠, the dealer's own
            assert (ref.phase, ref.current_player) == ("run", 1)
            ref.step(a.continue_run)  # 8♠; 9♠ is in the spare: the stop
            assert ref.played == set(cards("6s 7s 8s"))
            assert ref.phase == "lead" and ref.current_player == 1
            assert ref.legal_actions() == [a.lead + 0]  # seat 1 holds spades no more than clubs: not spades
        else:
            # Seat 1's only lead (clubs) is forced, and its forced run 2♣ … K♣ empties the hand (T23): seat 1 takes
            # the kitty (3) and 1 chip per card left: 11 from the dealer, 13 from seat 2.
            assert ref.terminated and ref.played >= set(cards("6s 7s 8s"))
            assert rewards == [-11.0, 27.0, -13.0]


def test_t7_reference_auction_at_max_bid_is_forced() -> None:
    """T7/C8: facing a bid of max_bid, the other bidders can only pass; with auto_forced the engine passes."""
    config = TripoliConfig(max_bid=3, paycards="play")
    ref = TripoliReference(4, config, seed=5, dealer=0)
    a = TripoliActions(config.max_bid, config.bet_limit)
    ref.step(2)  # the dealer auctions the spare
    assert ref.current_player == 1 and ref.legal_actions() == [PASS, a.bid, a.bid + 1, a.bid + 2]
    old_spare = set(ref.spare)
    rewards = ref.step(a.bid + 2)  # seat 1 bids 3; seats 2 and 3 must pass
    assert rewards == [3.0, -3.0, 0.0, 0.0]
    assert ref.hands[1] == old_spare and ref.spare == set()
    assert ref.current_player == 1 and ref.phase == "select"  # T12 from the left of the dealer
    assert KEEP not in ref.legal_actions()


def test_t22_reference_nobody_can_lead_pays_kitty() -> None:
    """T22/T20: with alternating colours, when nobody holds a card of the required colour, everybody pays 1 chip
    per card into the kitty; the chips stay (T2)."""
    rng = random.Random(7)
    seen = 0
    for seed in range(400):
        config = TripoliConfig(lead_colours="alternate", spare_hand="none", poker_select="best")
        ref = TripoliReference(2, config, seed=seed)
        while not ref.terminated and ref.phase != "lead":
            ref.step(rng.choice(ref.legal_actions()))
        while not ref.terminated:
            kitty = ref.layout[KITTY]
            rewards = ref.step(rng.choice(ref.legal_actions()))
            if ref.terminated and all(ref.hands) and ref.layout[KITTY] > kitty:
                assert ref.layout[KITTY] - kitty == sum(len(h) for h in ref.hands)
                assert rewards == [-float(len(h)) for h in ref.hands]
                seen += 1
    assert seen > 10, seen
