"""Property tests of the Tripoli core (hypothesis): chips and cards conserved (C10), nothing hidden leaks into an
observation (C12), and seeded games are the same at batch size 1 and inside a batch of 1,024 (C7)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs.core import cards as C
from envs.core.game import sample_legal
from envs.tripoli.core import TripoliGame
from tests.seeded import seeded_legal_actions

VARIANTS = [
    {},
    {"paycards": "play"},
    {"spare_hand": "swap_only", "poker_opener": "dealer", "first_lead": "lowest"},
    {"spare_hand": "none", "lead_colours": "alternate", "michigan_leader": "left_of_dealer"},
    {"pay_suit": "auction", "sequence_start": 6, "max_bid": 3},
    {"num_deals": 3, "poker_select": "best", "max_raises": 0, "bet_limit": 2},
    {"num_deals": 2, "final_round": False, "auto_forced": False},
    {"dead_hand": "shown", "paycards": "play", "num_deals": 2, "final_round": "share"},
    {"cosmo": True, "num_deals": 2, "final_round": "pots", "final_pots": 3},
    {"cosmo": True, "auto_forced": False, "dead_hand": "shown"},
]
SETTINGS = settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])


def _places(s) -> np.ndarray:
    """(B, k) masks of every place a card can be: hands, spare, dead hands, played."""
    return np.concatenate([s.hands, s.spare[:, None], s.dead[:, None], s.played[:, None]], axis=1)


@SETTINGS
@given(n=st.integers(2, 9), variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32))
def test_c10_chips_and_cards_conserved_every_step(n, variant, seed):
    """C10: balances + layout sum to zero after every step; T9/T24: each card is in exactly one place."""
    game = TripoliGame(n, **variant)
    s = game.init(seed, batch_size=64)
    rng = np.random.default_rng(seed)
    returns = s.rewards.copy()
    while not s.done.all():
        game.step(s, sample_legal(s.legal_action_mask, rng))
        returns += s.rewards
        assert (s.balance.sum(axis=1) + s.layout.sum(axis=1) == 0).all()
        places = _places(s)
        deal = ~s.final
        assert (np.bitwise_or.reduce(places, axis=1)[deal] == C.ALL_CARDS).all()
        assert (C.popcount(places).sum(axis=1)[deal] == 52).all()
        assert (C.popcount(s.hands[s.final]).sum(axis=1) <= 5 * n).all()
    # C11/T29: the rewards of an episode add up to each seat's final balance.
    assert (returns == s.balance).all()


def _hidden_from(s, t: int, viewer: int) -> list[tuple[str, int, int]]:
    """(place kind, seat, card) of every card at table t that ``viewer`` has not seen."""
    seen = int(s.known[t, viewer]) | int(s.played[t]) | int(np.bitwise_or.reduce(s.shown[t])) | int(s.dead_shown[t])
    out = []
    for seat in range(s.hands.shape[1]):
        if seat != viewer:
            out += [("hand", seat, c) for c in C.cards_of(s.hands[t, seat]) if not seen >> c & 1]
    out += [("spare", -1, c) for c in C.cards_of(s.spare[t]) if not seen >> c & 1]
    out += [("dead", -1, c) for c in C.cards_of(s.dead[t]) if not seen >> c & 1]
    return out


def _move(s, t: int, place: tuple[str, int, int], new_card: int) -> None:
    kind, seat, card = place
    old, new = np.uint64(1 << card), np.uint64(1 << new_card)
    if kind == "hand":
        s.hands[t, seat] = (s.hands[t, seat] & ~old) | new
        if s.selected[t, seat] & old:
            s.selected[t, seat] = (s.selected[t, seat] & ~old) | new
        if s.known[t, seat] & old:
            s.known[t, seat] = (s.known[t, seat] & ~old) | new
    else:
        field = getattr(s, kind)
        field[t] = (field[t] & ~old) | new


@SETTINGS
@given(n=st.integers(2, 9), variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32),
       steps=st.integers(0, 60), pick=st.randoms(use_true_random=False))
def test_c12_hidden_cards_do_not_change_observation(n, variant, seed, steps, pick):
    """C12: swapping two cards between places hidden from a seat leaves that seat's observation unchanged."""
    game = TripoliGame(n, **variant)
    s = game.init(seed, batch_size=1)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if s.done[0]:
            break
        game.step(s, sample_legal(s.legal_action_mask, rng))
    for viewer in range(n):
        hidden = _hidden_from(s, 0, viewer)
        places = {(k, seat) for k, seat, _ in hidden}
        if len(places) < 2:
            continue
        a = pick.choice(hidden)
        b = pick.choice([h for h in hidden if (h[0], h[1]) != (a[0], a[1])])
        before = game.observe(s, np.array([viewer]))
        swapped = s.copy()
        _move(swapped, 0, a, b[2])
        _move(swapped, 0, b, a[2])
        assert (swapped.hands != s.hands).any() or (swapped.spare != s.spare).any() or (swapped.dead != s.dead).any()
        after = game.observe(swapped, np.array([viewer]))
        assert np.array_equal(before, after), f"viewer {viewer} sees the swap of {a} and {b}"


@settings(max_examples=6)
@given(n=st.integers(2, 9), variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**40))
def test_c7_same_seed_same_game_at_batch_1_and_1024(n, variant, seed):
    """C7: table i of a batch of 1,024 seeded s plays exactly like one table seeded s + i."""
    game = TripoliGame(n, **variant)
    big = game.init(seed, batch_size=1024)
    tables = [0, 511, 1023]
    singles = [game.init(seed + t, batch_size=1) for t in tables]
    step = 0
    while not big.done.all():
        for t, single in zip(tables, singles, strict=True):
            assert single.current_player[0] == big.current_player[t]
            assert np.array_equal(single.rewards[0], big.rewards[t])
            assert np.array_equal(single.legal_action_mask[0], big.legal_action_mask[t])
            seat = max(int(single.current_player[0]), 0)
            assert np.array_equal(game.observe(single, seat)[0], game.observe(big, np.full(1024, seat))[t])
        game.step(big, seeded_legal_actions(big.legal_action_mask, big.seeds, step))
        for single in singles:
            game.step(single, seeded_legal_actions(single.legal_action_mask, single.seeds, step))
        step += 1
    assert all(single.terminated[0] for single in singles)
