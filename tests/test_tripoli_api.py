"""The Tripoli PettingZoo environment: PettingZoo's API and seed tests for the table sizes and variants, the
registry, the quickstart loop for every table size, the ansi render and the action names."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import envs  # noqa: F401  (registers cardgym/tripoli-v1)
from envs import tripoli_v1
from envs.core.cards import card_str
from envs.tripoli.actions import TripoliActions

VARIANTS = [
    {"spare_hand": "swap_only"},
    {"spare_hand": "none", "paycards": "play"},
    {"poker_select": "best", "poker_opener": "dealer"},
    {"michigan_leader": "dealer", "first_lead": "lowest"},
    {"michigan_leader": "left_of_dealer", "lead_colours": "alternate"},
    {"pay_suit": "auction", "sequence_start": 6},
    {"num_deals": 3},
    {"num_deals": 2, "final_round": False},
    {"auto_forced": False, "max_bid": 3, "bet_limit": 2, "max_raises": 0},
]


@pytest.mark.parametrize("n", [2, 4, 6, 9])
def test_api_and_seed_test_table_sizes(n):
    api_test(tripoli_v1.env(num_players=n), num_cycles=300)
    seed_test(lambda: tripoli_v1.env(num_players=n), num_cycles=200)


@pytest.mark.parametrize("options", VARIANTS, ids=[",".join(f"{k}={v}" for k, v in o.items()) for o in VARIANTS])
def test_api_and_seed_test_variants(options):
    n = 2 + len(options) * 2 % 8  # spread the variants over table sizes
    api_test(tripoli_v1.env(num_players=n, **options), num_cycles=200)
    seed_test(lambda: tripoli_v1.env(num_players=n, **options), num_cycles=100)


def test_registry_make():
    import pettingzoo

    env = pettingzoo.make("aec", "cardgym/tripoli-v1", num_players=5)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{s}" for s in range(5)]
    assert env.unwrapped.game.num_players == 5


@pytest.mark.parametrize("n", range(2, 10))
def test_quickstart_runs_to_the_end(n):
    env = tripoli_v1.env(num_players=n, render_mode="ansi")
    env.reset(seed=42)
    steps = 0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            action = env.action_space(agent).sample(mask)
        env.step(action)
        steps += 1
        assert isinstance(env.render(), str)
    env.close()
    assert env.agents == [] and steps > n


def test_render_ansi_shows_viewer_hand_and_chips():
    env = tripoli_v1.env(num_players=4, render_mode="ansi", spare_hand="none")
    env.reset(seed=3)
    game, state = env.unwrapped.game, env.unwrapped.state_
    seat = int(state.current_player[0])
    hand = [c for c in range(52) if int(state.hands[0, seat]) >> c & 1]
    text = env.render()
    assert f"player_{seat}" in text
    hand_line = next(line for line in text.splitlines() if line.startswith("your hand"))
    assert all(card_str(c, unicode=True) in hand_line for c in hand)
    for s in range(4):  # every seat's chip balance (after the ante and the pay cards)
        line = next(line for line in text.splitlines() if f"player_{s}:" in line)
        assert str(int(state.balance[0, s])) in line
    others = [c for c in range(52) if c not in hand]
    assert not any(card_str(c, unicode=True) in hand_line.split()[3:] for c in others)
    assert game.render_table(state, 0, None).count("your hand") == 0


def test_action_names():
    env = tripoli_v1.raw_env(num_players=4)
    names = [env.action_name(a) for a in range(env.game.num_actions)]
    acts = TripoliActions(max_bid=20, bet_limit=10)
    assert env.game.num_actions == 3 + 1 + 20 + 4 + 52 + 3 + 10 + 10 + 4 + 1 == acts.size
    for name in ("keep", "swap", "auction", "pass", "bid 1", "bid 20", "name ♥", "select Q♥", "select 10♦",
                 "check", "call", "fold", "bet 3", "bet 10", "raise 1", "raise 10", "lead ♠", "lead ♣",
                 "continue run"):
        assert name in names
        assert env.action_name(env.game.action_id(name)) == name
    assert len(set(names)) == len(names)
    small = tripoli_v1.raw_env(num_players=3, max_bid=2, bet_limit=4)
    assert "bid 3" not in small.game.action_names() and "bet 4" in small.game.action_names()
    with pytest.raises(ValueError):
        env.game.action_id("bet 11")


def test_observation_space_and_mask():
    env = tripoli_v1.env(num_players=6)
    env.reset(seed=1)
    agent = env.agent_selection
    obs = env.observe(agent)
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    assert env.observation_space(agent)["observation"].shape == obs["observation"].shape
    assert obs["action_mask"].sum() > 0
    other = next(a for a in env.agents if a != agent)
    assert env.observe(other)["action_mask"].sum() == 0
    # One policy fits every table size: the observation length does not depend on n.
    sizes = {tripoli_v1.raw_env(num_players=n).game.observation_size for n in range(2, 10)}
    assert len(sizes) == 1
