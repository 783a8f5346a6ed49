"""The compiled Flip Flop core's metadata: the reward range bounds every step's rewards, forced moves fit the
report arrays (C8), and a re-deal deals exactly what ``init`` with the same seed deals."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from envs.core.game import sample_legal
from envs.flipflop import FlipFlopGame


@pytest.mark.parametrize(("num_players", "options"), [
    (2, {}), (5, {"stake": 2.5}), (7, {"declare_49_50": "first_turn"}),
    (3, {"until_one_left": True, "bankroll": 5}), (4, {"num_deals": 6, "bankroll": 8, "stake": 0.5}),
])
def test_rewards_within_reward_range_and_forced_moves_within_capacity(num_players, options):
    game = FlipFlopGame(num_players, **options)
    low, high = game.reward_range
    assert low < 0 < high
    state = game.init(7, 64)
    rng = np.random.default_rng(num_players)
    seen_low, seen_high = 0.0, 0.0
    for _ in range(400):
        if state.done.all():
            break
        game.step(state, sample_legal(state.legal_action_mask, rng), tables=~state.done)
        assert (state.forced_count <= FlipFlopGame.forced_capacity).all()
        assert (state.rewards >= low - 1e-9).all() and (state.rewards <= high + 1e-9).all()
        seen_low, seen_high = min(seen_low, state.rewards.min()), max(seen_high, state.rewards.max())
    assert seen_low < 0 < seen_high  # the loop did settle deals


def test_redeal_deals_what_init_deals():
    game = FlipFlopGame(4, num_deals=3)
    state = game.init(0, 8)
    rng = np.random.default_rng(1)
    for _ in range(30):
        game.step(state, sample_legal(state.legal_action_mask, rng), tables=~state.done)
    game.redeal(state, [2, 5], seeds=np.array([11, 12], np.uint64))
    fresh = game.init(np.array([11, 12], np.uint64))
    for field in dataclasses.fields(state):
        got = getattr(state, field.name)[[2, 5]]
        assert np.array_equal(got, getattr(fresh, field.name)), field.name
