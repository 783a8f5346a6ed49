"""The Flip Flop PettingZoo face and core API: pettingzoo's api_test and seed_test for 2, 3, 5 and 7 players and a
session, the registry id, action names, stacked-deck resets, renders, illegal actions refused with the state left
unchanged (C9), and bad options refused (C6, C9)."""

from __future__ import annotations

import itertools

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import envs  # noqa: F401  (registers cardgym/flipflop-v1)
from envs import flipflop_v1
from envs.core.config import ConfigError
from envs.core.game import IllegalActionError
from envs.flipflop import FlipFlopGame
from envs.flipflop import actions as T
from tests.reference.flipflop_ref import stack_deck

TABLES = [(2, {}), (3, {}), (5, {}), (7, {}), (4, {"num_deals": 3, "bankroll": 8})]


def seeded_resets(env, first: int = 100):
    """The env with unseeded resets replaced by seeds ``first, first + 1, …``, so that api_test (which resets without
    a seed) is deterministic: a single deal may end during the reset on a 49 or 50 (F7), and api_test expects no
    termination right after a reset; the seeds used here deal none."""
    counter = itertools.count(first)
    reset = env.reset

    def deterministic_reset(seed=None, options=None):
        return reset(seed=next(counter) if seed is None else seed, options=options)

    env.reset = deterministic_reset
    return env


@pytest.mark.parametrize(("n", "options"), TABLES)
def test_c6_pettingzoo_api_test(n, options):
    api_test(seeded_resets(flipflop_v1.env(num_players=n, **options)), num_cycles=300)


@pytest.mark.parametrize(("n", "options"), TABLES)
def test_c7_pettingzoo_seed_test(n, options):
    seed_test(lambda: flipflop_v1.env(num_players=n, **options), num_cycles=300)


def test_c6_registry_id_and_agents():
    env = pettingzoo.make("aec", "cardgym/flipflop-v1", num_players=3)
    env.reset(seed=1)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    obs = env.observe(env.agent_selection)
    assert obs["observation"].shape == (1654,) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (472,) and obs["action_mask"].dtype == np.int8


def test_action_names_are_fixed_and_readable():
    g = FlipFlopGame(4)
    names = g.action_names()
    assert len(names) == len(set(names)) == g.num_actions == 472
    for name in ["drop", "draw stock", "draw discard 7♣", "lay run 3♥4♥5♥", "lay set 9♣9♦9♠", "discard K♠",
                 "lay set 9♣9♦9♥9♠", "lay run 8♠9♠10♠J♠Q♠K♠", "lay off 6♥ on the run ending 5♥",
                 "lay off 2♥ on the run starting 3♥", "lay off 9♥ on the set of 9s", "claim 49/50"]:
        assert g.action_name(g.action_id(name)) == name
    assert names == FlipFlopGame(7, num_deals=3).action_names()
    assert not any("K" in n and "on the run starting" in n.split(" on ")[0] for n in names)


def test_stacked_deck_reset_and_render_modes():
    deck = stack_deck(3, 2, {0: [0, 1, 2, 3, 4], 1: [13, 14, 15, 16, 17], 2: [26, 27, 28, 29, 30]})
    env = flipflop_v1.env(num_players=3, render_mode="ansi")
    env.reset(seed=5, options={"deck": deck, "dealer": 2})
    text = env.render()
    assert "player_0 to draw" in text and "2♣ 3♣ 4♣ 5♣ 6♣" in text and "flip card 6♥" in text
    human = flipflop_v1.env(num_players=3, render_mode="human")
    human.reset(seed=5, options={"deck": deck, "dealer": 2})
    assert human.render() is None


def test_c9_illegal_action_refused_state_unchanged():
    g = FlipFlopGame(3)
    s = g.init(21, batch_size=4)
    live = ~s.terminated
    before = s.copy()
    actions = np.where(live, T.DISCARD, 0)  # no discard before drawing
    with pytest.raises(IllegalActionError, match="discard 2♣.*legal actions: 0 \\(drop\\), 1 \\(draw stock\\)"):
        g.step(s, actions)
    for name in ("hands", "bank", "pots", "current_player", "legal_action_mask", "phase", "deck"):
        np.testing.assert_array_equal(getattr(s, name), getattr(before, name))
    with pytest.raises(IllegalActionError):
        g.step(s, np.full(4, T.NUM_ACTIONS))


def test_c9_illegal_action_through_the_env():
    env = flipflop_v1.env(num_players=3)
    env.reset(seed=2)
    agent = env.agent_selection
    obs_before = env.observe(agent)["observation"].copy()
    with pytest.raises(IllegalActionError):
        env.step(env.unwrapped.game.action_id("lay set 9♣9♦9♠"))
    assert env.agent_selection == agent
    np.testing.assert_array_equal(env.observe(agent)["observation"], obs_before)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"colour": 1}, "unknown option"),
        ({"num_deals": 0}, "num_deals=0"),
        ({"num_deals": 2.5}, "num_deals=2.5"),
        ({"bankroll": 1}, "bankroll=1"),
        ({"until_one_left": "yes"}, "until_one_left='yes'"),
        ({"until_one_left": True, "num_deals": 5}, "cannot be combined"),
        ({"auto_forced": 1}, "auto_forced=1"),
    ],
)
def test_f23_bad_options_refused(options, message):
    with pytest.raises(ConfigError, match=message):
        flipflop_v1.env(num_players=4, **options)


def test_f5_bad_reset_options_refused():
    env = flipflop_v1.env(num_players=3)
    with pytest.raises(ValueError, match="52"):
        env.reset(seed=1, options={"deck": list(range(51))})
    with pytest.raises(ValueError, match="exactly once"):
        env.reset(seed=1, options={"deck": [0] * 52})
    with pytest.raises(ValueError, match="dealer"):
        env.reset(seed=1, options={"deck": list(range(52)), "dealer": 3})
    with pytest.warns(UserWarning, match="ignores unknown option"):
        env.unwrapped.reset(seed=1, options={"hands": []})
