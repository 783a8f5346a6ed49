"""The PettingZoo face of Le triolet (envs/triolet_v1.py): PettingZoo's api_test and seed_test for 3, 4, 5, 6 and
8 players, the registry id, stacked-deck resets, renders and refused input."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import envs  # noqa: F401  (registers cardgym/triolet-v1)
from envs import triolet_v1
from envs.core.cards import parse_card
from envs.core.config import ConfigError
from envs.core.game import IllegalActionError
from envs.triolet import observation as ob


@pytest.mark.parametrize("num_players", [3, 4, 5, 6, 8])
def test_api_and_seed_test(num_players):
    api_test(triolet_v1.env(num_players=num_players), num_cycles=60)
    seed_test(lambda: triolet_v1.env(num_players=num_players, faceup_sets=True), num_cycles=60)


def test_registry_make():
    env = pettingzoo.make("aec", "cardgym/triolet-v1", num_players=5)
    env.reset(seed=3)
    assert env.possible_agents == [f"player_{s}" for s in range(5)]  # C6
    assert env.observation_space("player_0")["observation"].shape == (ob.SIZE,)


def test_stacked_deck_reset_and_render():
    env = triolet_v1.env(num_players=6, render_mode="ansi")
    game = env.unwrapped.game
    ids = [parse_card(c) for c in "2c 3c 4c 5c 6c 7c Kd Qd Jd".split()]
    deck = game.stacked_deck(ids)  # seat 0: face-down 2 3 4, face-up 5 6 7, hand K Q J
    env.reset(seed=1, options={"deck": deck.tolist(), "dealer": 1})
    assert env.agent_selection == "player_0"  # L5: the dealer's right (seat 0) swaps and plays first
    obs = env.observe("player_0")
    assert [c for c in range(52) if obs["observation"][c]] == sorted(ids[6:])  # own hand
    assert obs["observation"][ob.SEATS + ob.FACEUP + ids[3]] == 1
    assert not any(obs["observation"][ob.SEATS + ob.FACEUP + c] for c in ids[:3])  # own face-down hidden
    text = env.render()
    assert "player_0 (you)" in text and "K♦" in text and "#1 5♣ #2 6♣ #3 7♣" in text and "## ## ##" in text
    names = {env.unwrapped.action_name(a) for a in env.unwrapped.legal_actions()}
    assert "ready" in names and "swap hand card #3 ↔ face-up #1" in names  # hand J♦ Q♦ K♦; face-up 5♣ 6♣ 7♣
    env.step(env.unwrapped.game.action_id("swap hand card #3 ↔ face-up #1"))
    assert "#1 K♦ #2 6♣ #3 7♣" in env.render()


def test_observation_padded_to_eight_seats():
    game = triolet_v1.raw_env(num_players=3).game
    state = game.init(4, batch_size=5)
    obs = game.observe(state, np.array([0, 1, 2, 0, 1]))
    assert obs.shape == (5, ob.SIZE) and obs.dtype == np.float32
    blocks = obs[:, ob.SEATS : ob.PILE].reshape(5, 8, ob.SEAT_SIZE)
    assert (blocks[:, :3, ob.PRESENT] == 1).all() and not blocks[:, 3:].any()  # absent seats are zero
    assert (blocks[:, :, ob.HAND_COUNT].sum(axis=1) == 9).all() and (obs[:, ob.STOCK] == 40 - 27).all()


def test_bad_input_refused():
    with pytest.raises(ConfigError):
        triolet_v1.env(num_players=2)
    with pytest.raises(ConfigError):
        triolet_v1.env(num_players=4, faceup_sets="yes")
    env = triolet_v1.env(num_players=4)
    with pytest.warns(UserWarning, match="shuffle"):  # named, not an error (PettingZoo passes option dicts on)
        env.reset(seed=0, options={"shuffle": True})
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"deck": list(range(52))})  # 44 cards with 4 players
    env.reset(seed=0)
    legal = env.unwrapped.legal_actions()
    illegal = next(a for a in range(env.unwrapped.game.num_actions) if a not in legal)
    before = env.unwrapped.state_.copy()
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert (env.unwrapped.state_.hand == before.hand).all() and env.unwrapped.legal_actions() == legal
    assert np.array_equal(env.unwrapped.state_.legal_action_mask, before.legal_action_mask)
