"""Flip Flop properties over random games (hypothesis): money (C10, F3) and cards conserved at every step, nothing
hidden leaks into an observation (C12, F27), and the same seed plays the same game at batch 1 and inside a batch
of 1,024 (C7)."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.core.rng import uniform_ints
from envs.flipflop import FlipFlopGame
from envs.flipflop import actions as T
from tests.seeded import seeded_legal_actions

ALL = (1 << 52) - 1
LOW_BITS = np.uint64(1) << np.arange(52, dtype=np.uint64)
"""``LOW_BITS[b]``: the mask of ace-low bit ``b`` (the engine's card sets are ace-low masks)."""
OPTIONS = st.sampled_from([{}, {"num_deals": 4, "bankroll": 6}, {"until_one_left": True, "bankroll": 3}])


def policy(s, step: int) -> np.ndarray:
    """A random legal action per table that depends only on the table's seed and the step (so a table plays the same
    whatever batch it is in); drops are rare so that deals last."""
    mask = s.legal_action_mask.copy()
    mask[:, T.DROP] &= uniform_ints(s.seeds, 98, step, 10) == 0
    mask[~mask.any(axis=1)] = s.legal_action_mask[~mask.any(axis=1)]
    return seeded_legal_actions(mask, s.seeds, step)


def stock_masks(s) -> np.ndarray:
    live = np.arange(52) >= s.stock_pos[:, None]
    return np.where(live, LOW_BITS[s.deck], np.uint64(0)).sum(axis=1, dtype=np.uint64)


@settings(max_examples=15)
@given(n=st.integers(2, 7), seed=st.integers(0, 2**32), options=OPTIONS)
def test_c10_f3_money_and_cards_conserved_every_step(n, seed, options):
    g = FlipFlopGame(n, **options)
    s = g.init(seed, batch_size=16)
    money = s.bank.sum(axis=1) + s.pots.sum(axis=1)
    np.testing.assert_allclose(s.rewards.sum(axis=1) + s.pots.sum(axis=1), 0, atol=1e-9)  # the antes
    step = 0
    while not s.done.all():
        pots_before = s.pots.sum(axis=1)
        g.step(s, policy(s, step))
        step += 1
        np.testing.assert_allclose(s.bank.sum(axis=1) + s.pots.sum(axis=1), money, atol=1e-9)
        # C10: sum of balance changes + change of money on the table = 0.
        np.testing.assert_allclose(s.rewards.sum(axis=1) + s.pots.sum(axis=1) - pots_before, 0, atol=1e-9)
        pile = np.where(np.arange(52) < s.pile_len[:, None], LOW_BITS[s.pile], np.uint64(0))
        places = np.concatenate([s.hands, s.spreads, pile, stock_masks(s)[:, None]], axis=1)
        assert (np.bitwise_count(places).sum(axis=1) == 52).all()
        assert (np.bitwise_or.reduce(places, axis=1) == ALL).all()


@settings(max_examples=25)
@given(n=st.integers(2, 7), seed=st.integers(0, 2**32), steps=st.integers(0, 40), data=st.data())
def test_c12_f27_swapping_hidden_cards_leaves_observation_unchanged(n, seed, steps, data):
    g = FlipFlopGame(n, num_deals=3, bankroll=10)
    s = g.init(seed, batch_size=1)
    for step in range(steps):
        if s.done[0]:
            break
        g.step(s, policy(s, step))
    viewer = data.draw(st.integers(0, n - 1))
    known = int(s.shown[0]) | (1 << int(s.flip_card[0])) | int(np.bitwise_or.reduce(s.taken_by[0]))
    places = [("stock", int(stock_masks(s)[0]))] + [
        (p, int(s.hands[0, p]) & ~known) for p in range(n) if p != viewer
    ]
    cards = [(where, b) for where, m in places for b in range(52) if m >> b & 1]
    w1, c1 = data.draw(st.sampled_from(cards))
    elsewhere = [(w, c) for w, c in cards if w != w1]
    if not elsewhere:
        return
    w2, c2 = data.draw(st.sampled_from(elsewhere))
    other = s.copy()
    for where, old, new in ((w1, c1, c2), (w2, c2, c1)):
        if where == "stock":
            other.deck[0, other.deck[0] == old] = -1 - new  # mark, then settle below
        else:
            other.hands[0, where] = np.uint64((int(other.hands[0, where]) & ~(1 << old)) | (1 << new))
    other.deck[0] = np.where(other.deck[0] < 0, -1 - other.deck[0], other.deck[0])
    np.testing.assert_array_equal(g.observe(s, viewer), g.observe(other, viewer))
    assert g.render_table(s, 0, viewer) == g.render_table(other, 0, viewer)


@settings(max_examples=4)
@given(n=st.sampled_from([2, 4, 7]), seed=st.integers(0, 2**32), options=st.sampled_from([{}, {"num_deals": 3}]))
def test_c7_same_seed_same_game_at_batch_1_and_1024(n, seed, options):
    g = FlipFlopGame(n, **options)
    big = g.init(seed, batch_size=1024)
    picks = [0, 333, 1023]
    smalls = [g.init(seed + i, batch_size=1) for i in picks]
    step = 0
    while not big.done.all():
        g.step(big, policy(big, step))
        for small in smalls:
            g.step(small, policy(small, step))
        step += 1
        if step % 7 == 0 or big.done.all():
            for i, small in zip(picks, smalls, strict=True):
                for f in dataclasses.fields(small):
                    np.testing.assert_array_equal(getattr(big, f.name)[i], getattr(small, f.name)[0], err_msg=f.name)
