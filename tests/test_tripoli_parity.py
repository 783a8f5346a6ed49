"""The Tripoli reference implementation on its own, then core/reference parity.

Part 1 checks the slow reference (tests/reference/tripoli_ref.py) against the rules' worked checks and invariants
(C10 chips conserved, every game ends). Part 2 plays the batched core and one reference per table side by side on
random and stacked deals over every option, and compares them at every step.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import numpy as np
import pytest

from envs.core.game import sample_legal
from envs.tripoli.actions import KEEP, PASS, TripoliActions
from envs.tripoli.config import TripoliConfig
from envs.tripoli.core import TripoliGame
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


# Options and values for random configurations (ints: the default, small and edge values).
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
    "final_round": ["poker", "pots", "share", "none"],
    "dead_hand": ["hidden", "shown"],
    "auto_forced": [True, False],
    "max_bid": [20, 1, 2],
    "bet_limit": [10, 1, 2],
    "max_raises": [3, 0, 1],
}


def random_options(seed: int) -> dict:
    """A random option set (every option drawn uniformly from its values in ``OPTION_VALUES``)."""
    rng = random.Random(seed)
    options = {name: rng.choice(values) for name, values in OPTION_VALUES.items()}
    if options["final_round"] == "pots":  # T28: 2 pots by default, up to 9
        options["final_pots"] = rng.choice([2, 3, 9])
    return options


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
        ref = TripoliReference(n, TripoliConfig(**random_options(index * 10 + k)), seed=index)
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


def test_t25_reference_pays_in_play() -> None:
    """T25: playing 10♥ … A♥ takes those spaces at once, Q♥ then K♥ in a row by one player takes K-Q, and 8-9-10
    played in a row by one player takes the sequence space."""
    n, dealer = 2, 0  # dealt hands: 0 → seat 1, 1 → the dealer (seat 0), 2 → the spare
    hands = {
        0: cards("Ah Kc Ac 2d 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad 2h 3h"),
        1: cards("8h 9h Th Jh Qh Kh 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc"),
    }
    config = TripoliConfig(
        paycards="play", spare_hand="none", poker_select="best", michigan_leader="dealer", auto_forced=False
    )
    a = TripoliActions(config.max_bid, config.bet_limit)
    ref = TripoliReference(n, config, seed=0, deck=deck_from_hands(n, hands), dealer=dealer)
    assert ref.init_rewards == [-9.0, -9.0] and ref.layout == [2] * 9  # T11: nothing paid on the deal
    ref.step(a.check)  # seat 1
    assert ref.step(a.check) == [0.0, 2.0]  # seat 1's royal flush takes the pot
    assert ref.current_player == dealer and ref.legal_actions() == [a.lead + 0, a.lead + 2]
    expected = [  # dealer, seat 1 rewards as 8♥ (lead), 9♥, 10♥, J♥, Q♥, K♥, A♥ are played
        [0.0, 0.0],
        [0.0, 0.0],
        [4.0, 0.0],  # 10♥ and the sequence 8-9-10
        [2.0, 0.0],
        [2.0, 0.0],
        [4.0, 0.0],  # K♥ and K-Q
        [0.0, 2.0],  # A♥, by seat 1
    ]
    got = [ref.step(a.lead + 2)] + [ref.step(a.continue_run) for _ in range(6)]
    assert got == expected
    assert ref.layout == [0, 0, 0, 0, 0, 0, 0, 2, 0]
    assert ref.current_player == 1 and ref.legal_actions() == [a.lead + 0, a.lead + 1]  # T22: not hearts


def test_t6_t7_reference_spare_hand_choices() -> None:
    """T6/T7: keep/swap/auction; after a swap keep or auction; after an auction without a bid keep or swap, and
    after swap-then-failed-auction the phase is over. The auction starts left of the dealer, skipping the dealer."""
    config = TripoliConfig(paycards="play", auto_forced=False)
    a = TripoliActions(config.max_bid, config.bet_limit)
    ref = TripoliReference(4, config, seed=11, dealer=2)
    hand, spare = set(ref.hands[2]), set(ref.spare)
    assert ref.legal_actions() == [KEEP, 1, 2]
    ref.step(1)  # swap
    assert ref.hands[2] == spare and ref.spare == hand
    assert (ref.current_player, ref.legal_actions()) == (2, [KEEP, 2])
    ref.step(2)  # auction the old hand
    for seat in (3, 0, 1):
        assert ref.current_player == seat and ref.legal_actions()[:2] == [PASS, a.bid]
        ref.step(PASS)
    assert ref.phase == "select" and ref.spare == hand  # nobody bid: over

    ref = TripoliReference(4, config, seed=11, dealer=2)
    ref.step(2)  # auction at once; nobody bids
    for _ in range(3):
        ref.step(PASS)
    assert (ref.current_player, ref.legal_actions()) == (2, [KEEP, 1])
    ref.step(1)  # swap, then over
    assert ref.phase == "select"


def test_t26_reference_pay_suit_auction() -> None:
    """T26: every seat bids from the dealer; the winner puts the bid on the kitty and names the pay suit."""
    config = TripoliConfig(pay_suit="auction", spare_hand="none", auto_forced=False)
    a = TripoliActions(config.max_bid, config.bet_limit)
    ref = TripoliReference(3, config, seed=4, dealer=1)
    assert ref.phase == "auction" and ref.current_player == 1
    ref.step(a.bid + 1)  # the dealer bids 2
    ref.step(a.bid + 4)  # seat 2 bids 5
    ref.step(PASS)  # seat 0
    assert ref.step(PASS) == [0.0, 0.0, -5.0]  # the dealer passes: seat 2 pays 5 onto the kitty
    assert ref.layout[KITTY] == 3 + 5 and ref.current_player == 2
    assert ref.legal_actions() == [a.name_suit + s for s in range(4)]
    ref.step(a.name_suit + 3)
    assert ref.pay_suit == 3 and ref.phase == "select"


# ==================================================================== part 2: core/reference parity =================

PARITY_GROUPS = 40  # random deals: 40 groups × 50 tables = 2,000 games
PARITY_TABLES = 50
STACKED_GROUPS = 16  # stacked deals: 16 groups × 24 tables
STACKED_TABLES = 24
OPTIONS_SEED = 0


def group_setup(index: int, stacked: bool) -> tuple[int, dict]:
    """Table size and options of parity group ``index``: sizes 2–9 in turn, random options (all values and most
    pairs of values of two options appear, see test_parity_groups_cover_every_option_value)."""
    n = 2 + index % 8
    options = random_options(OPTIONS_SEED + index + (1_000 if stacked else 0))
    return n, options


def stacked_deck(n: int, rng: random.Random) -> list[int]:
    """A deck (T5 dealing order) that makes rare events frequent: the cards are cut into runs of 3 to 13
    neighbouring cards (long Michigan runs, forced run moves, going out early, 8-9-10 and other sequences, K-Q of
    one suit in one hand), the runs shuffled, and the hands filled from them one after the other."""
    order = list(range(52))
    shift = rng.randrange(52)
    order = order[shift:] + order[:shift]
    runs = []
    while order:
        k = rng.choice([3, 3, 4, 6, 13])
        runs.append(order[:k])
        order = order[k:]
    rng.shuffle(runs)
    flat = [c for run in runs for c in run]
    hands, start = [], 0
    for size in hand_sizes(n):
        hands.append(flat[start : start + size])
        start += size
    for hand in hands:
        if rng.random() < 0.3:  # sometimes mix a little so hands are not all runs
            rng.shuffle(hand)
    return [hands[i % (n + 1)][i // (n + 1)] for i in range(52)]


def choose_actions(
    mask: np.ndarray, rng: np.random.Generator, actions: TripoliActions, passive: float | np.ndarray
) -> np.ndarray:
    """Random legal actions; with probability ``passive`` (per table) a table takes ``pass``, ``check`` or ``call``
    when legal instead (more auctions without a bid, more showdowns with many players, hence more ties)."""
    chosen = sample_legal(mask, rng)
    for quiet in (PASS, actions.check, actions.call):
        take = mask[:, quiet] & (rng.random(len(mask)) < passive)
        chosen[take] = quiet
    return chosen


class Mismatch(AssertionError):
    """The core and the reference disagree (the message holds everything needed to replay the game)."""


def run_parity(
    n: int,
    options: dict,
    seeds: np.ndarray,
    policy_seed: int,
    passive: float | Callable[[TripoliReference], float] = 0.0,
    decks: np.ndarray | None = None,
    dealers: np.ndarray | None = None,
    max_steps: int = 20_000,
) -> tuple[int, list[TripoliReference]]:
    """Play the batched core and one reference per table side by side with random legal actions (see
    :func:`choose_actions`) and compare, at every step and for every table, the current player, the legal actions,
    the rewards, termination and the chips (balances, layout; finished tables must stay finished with zero rewards).
    Returns the number of decisions played and the finished references."""
    game = TripoliGame(num_players=n, **options)
    config = TripoliConfig(**options)
    action_ids = TripoliActions(config.max_bid, config.bet_limit)
    batch = len(seeds)
    state = game.init(seeds, decks=decks, dealers=dealers)
    refs = [
        TripoliReference(
            n,
            config,
            int(seeds[b]),
            deck=None if decks is None else decks[b].tolist(),
            dealer=None if dealers is None else int(dealers[b]),
        )
        for b in range(batch)
    ]
    history: list[list[int]] = [[] for _ in range(batch)]

    def fail(b: int, step: int, what: str, core_value: object, ref_value: object) -> None:
        names = [game.action_name(a) for a in history[b]]
        raise Mismatch(
            f"Tripoli core/reference mismatch in {what} at step {step} (0 = after init), table {b}\n"
            f"  seed={int(seeds[b])} num_players={n} options={options}\n"
            + (f"  deck={[int(c) for c in decks[b]]}\n" if decks is not None else "")
            + (f"  dealer={int(dealers[b])}\n" if dealers is not None else "")
            + f"  actions so far ({len(names)}): {names}\n"
            f"  action ids: {history[b]}\n"
            f"  core:      {core_value}\n"
            f"  reference: {ref_value}\n"
            f"  reference phase={refs[b].phase!r} deal={refs[b].deal_number} dealer={refs[b].dealer} "
            f"balances={refs[b].balances} layout={refs[b].layout}"
        )

    def compare(b: int, step: int, ref_rewards: list[float]) -> None:
        ref = refs[b]
        core_rewards = [float(x) for x in state.rewards[b]]
        if core_rewards != ref_rewards:
            fail(b, step, "rewards", core_rewards, ref_rewards)
        if bool(state.terminated[b]) != ref.terminated:
            fail(b, step, "terminated", bool(state.terminated[b]), ref.terminated)
        if int(state.current_player[b]) != ref.current_player:
            fail(b, step, "current_player", int(state.current_player[b]), ref.current_player)
        for what, core_chips, ref_chips in (
            ("balances", state.balance[b], ref.balances),
            ("layout", state.layout[b], ref.layout),
        ):
            if core_chips.tolist() != ref_chips:
                fail(b, step, what, core_chips.tolist(), ref_chips)
        core_forced = [(m.seat, m.action) for m in game.forced_moves(state, b)]
        cards = state.forced_card[b, : len(core_forced)].tolist()
        core_forced = [(seat, action, card) for (seat, action), card in zip(core_forced, cards, strict=True)]
        if core_forced != ref.forced:
            fail(b, step, "forced moves (C8)", core_forced, ref.forced)
        if not ref.terminated:
            core_legal = np.flatnonzero(state.legal_action_mask[b]).tolist()
            ref_legal = ref.legal_actions()
            if core_legal != ref_legal:
                fail(
                    b,
                    step,
                    f"legal actions of seat {ref.current_player}",
                    [game.action_name(a) for a in core_legal],
                    [game.action_name(a) for a in ref_legal],
                )

    assert state.legal_action_mask.shape == (batch, game.num_actions)
    for b in range(batch):
        compare(b, 0, refs[b].init_rewards)
    rng = np.random.default_rng(policy_seed)
    decisions = 0
    for step in range(1, max_steps + 1):
        live = [b for b in range(batch) if not refs[b].terminated]
        if not live:
            return decisions, refs
        quiet = np.array([passive(ref) for ref in refs]) if callable(passive) else passive
        actions = choose_actions(state.legal_action_mask, rng, action_ids, quiet)  # finished tables: no-op
        state = game.step(state, actions)
        for b in range(batch):
            if b in live:
                history[b].append(int(actions[b]))
                compare(b, step, refs[b].step(int(actions[b])))
            else:  # a finished table stays finished, with zero rewards and no forced move
                refs[b].forced = []
                compare(b, step, [0.0] * n)
        decisions += len(live)
    raise AssertionError(f"games did not end within {max_steps} steps: seeds {seeds.tolist()}, options {options}")


@pytest.mark.parametrize("index", range(PARITY_GROUPS))
def test_c7_c8_t29_core_matches_reference_random_deals(index: int) -> None:
    """C7/C8/C11/T1–T29: the batched core and the reference agree at every step of 50 random games per group."""
    n, options = group_setup(index, stacked=False)
    seeds = np.array([1_000 * index + 7 * b + b * b for b in range(PARITY_TABLES)], dtype=np.uint64)
    played, _ = run_parity(n, options, seeds, policy_seed=index, passive=0.6 * (index % 2))
    assert played > PARITY_TABLES


@pytest.mark.parametrize("index", range(STACKED_GROUPS))
def test_t5_t21_t25_core_matches_reference_stacked_deals(index: int) -> None:
    """T5/T10/T21/T23/T25: parity on stacked decks full of runs, sequences and K-Q pairs, with given dealers."""
    n, options = group_setup(index, stacked=True)
    rng = random.Random(index)
    seeds = np.array([90_000 + 100 * index + b for b in range(STACKED_TABLES)], dtype=np.uint64)
    decks = np.array([stacked_deck(n, rng) for _ in range(STACKED_TABLES)], dtype=np.int64)
    dealers = np.array([rng.randrange(n) for _ in range(STACKED_TABLES)], dtype=np.int64)
    played, _ = run_parity(n, options, seeds, 500 + index, passive=0.6 * (index % 2), decks=decks, dealers=dealers)
    assert played > STACKED_TABLES


COSMO_GROUPS = 8  # T30: 8 groups × 24 tables, half of them on stacked decks


@pytest.mark.parametrize("index", range(COSMO_GROUPS))
def test_t30_core_matches_reference_cosmo(index: int) -> None:
    """T30 Cosmo: parity over table sizes 2–9, one to three deals and every way of settling the layout (T28);
    the pay suit and sequence start drawn at each deal must agree too (they decide the pays in play)."""
    n = 2 + index
    rng = random.Random(7_000 + index)
    final_round = ["poker", "pots", "share", "none"][index % 4]
    options = {"cosmo": True, "num_deals": 1 + index % 3, "final_round": final_round, "auto_forced": index % 2 == 0}
    if final_round == "pots":
        options["final_pots"] = rng.choice([2, 3, 9])
    seeds = np.array([70_000 + 100 * index + b for b in range(STACKED_TABLES)], dtype=np.uint64)
    decks = np.array([stacked_deck(n, rng) for _ in range(STACKED_TABLES)], dtype=np.int64)
    half = STACKED_TABLES // 2
    played, refs = run_parity(n, options, seeds[:half], policy_seed=index)
    played += run_parity(n, options, seeds[half:], policy_seed=index, decks=decks[half:])[0]
    assert played > 0  # Cosmo has few decisions: only the leads (and with auto_forced=False the runs)
    assert len({(ref.pay_suit, ref.sequence_start) for ref in refs}) > 1  # the board changes from table to table


def test_t28_c7_core_matches_reference_with_a_stacked_deck_for_every_deal() -> None:
    """A stacked deck per deal of a 3-deal episode (``init(decks=(B, 3, 52))``; the final round shuffled from the seed):
    core and reference deal the same cards at every deal."""
    rng = random.Random(5)
    n, options = 4, {"num_deals": 3, "final_round": "pots", "final_pots": 2}
    seeds = np.arange(600, 600 + STACKED_TABLES, dtype=np.uint64)
    decks = np.array([[stacked_deck(n, rng) for _ in range(3)] for _ in range(STACKED_TABLES)], dtype=np.int64)
    game = TripoliGame(n, **options)
    state = game.init(seeds, decks=decks)
    assert (state.decks == decks).all()
    played, refs = run_parity(n, options, seeds, policy_seed=5, decks=decks)
    assert played > STACKED_TABLES and all(ref.deal_number >= 2 for ref in refs)  # the three deals were played


# Seeds whose final poker round (T28, deal number 2) deals a tie for the best five-card hand at each table size,
# found by scanning seeds 0 … 250,000 (ties are rare: about 1 seed in 10,000); the test checks the tie happens.
FINAL_TIE_SEEDS = {
    2: [2088, 20156, 26529, 29447, 34747, 41751, 69911, 83547, 86224, 94030, 96092, 132712],
    4: [6753, 10971, 22835, 45442, 67930, 83719, 85836, 94007, 96419, 108551, 152447, 156556],
    6: [8329, 20222, 50391, 63895, 80608, 87572, 107258, 125056, 127532, 128595, 148413, 161997],
    9: [68790, 69484, 77017, 129898, 130545, 136578, 152145, 176331, 217626, 233671, 243668, 246051],
}


@pytest.mark.parametrize("n", [2, 4, 6, 9])
def test_t28_core_matches_reference_final_round_ties(n: int) -> None:
    """T28: parity on episodes whose final poker round ends in a tie (there everybody checks, so all show): the
    layout is split, the remainder going one chip at a time clockwise from the dealer's left."""
    options = {**random_options(OPTIONS_SEED + 2_000 + n), "num_deals": 2, "final_round": "poker"}
    options.pop("final_pots", None)
    seeds = np.array(FINAL_TIE_SEEDS[n], dtype=np.uint64)
    _, refs = run_parity(n, options, seeds, policy_seed=n, passive=lambda ref: 1.0 if ref.deal_number == 2 else 0.5)
    assert all(ref.final_round and len(ref.poker_winners) >= 2 for ref in refs)


def test_parity_groups_cover_every_option_value() -> None:
    """The parity groups use every table size 2–9 and every pair of values of any two options."""
    setups = [group_setup(i, False) for i in range(PARITY_GROUPS)] + [
        group_setup(i, True) for i in range(STACKED_GROUPS)
    ]
    assert {n for n, _ in setups} == set(range(2, 10))
    for first, second in itertools.combinations(OPTION_VALUES, 2):
        pairs = {(options[first], options[second]) for _, options in setups}
        assert pairs == set(itertools.product(OPTION_VALUES[first], OPTION_VALUES[second])), (first, second)
