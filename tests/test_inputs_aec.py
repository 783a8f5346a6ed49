"""Bad input to the PettingZoo face (envs/aec.py) of every game: constructor arguments, use before ``reset``, malformed
actions, seeds, options and agent names. Each refusal is one line and leaves the env as it was; SB3's 1-element action
arrays are taken as the action they hold."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from envs.aec import CardGymEnv
from envs.core.checks import ArgumentError, ResetNeededError
from envs.core.game import IllegalActionError
from envs.registry import env_version, make_game
from tests.input_helpers import GAMES, not_integers, out_of_range, refused, same_arrays

SETTINGS = settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _raw_env(name: str, render_mode: str | None = None) -> CardGymEnv:
    return importlib.import_module(f"envs.{env_version(name)}").raw_env(num_players=3, render_mode=render_mode)


def _snapshot(env: CardGymEnv) -> tuple[Any, ...]:
    return (env.state_.copy(), env.agent_selection, list(env.agents), dict(env.rewards),
            dict(env._cumulative_rewards), dict(env.terminations), dict(env.truncations))


def _unchanged(env: CardGymEnv, snap: tuple[Any, ...]) -> bool:
    return same_arrays(env.state_, snap[0]) and _snapshot(env)[1:] == snap[1:]


@pytest.mark.parametrize(("kwargs", "words"), [
    (dict(game="tripoli"), "game must be a game core (envs.registry.make_game, e.g. make_game(\"tripoli\")), got"),
    (dict(game=None), "game must be a game core"),
    (dict(render_mode="rgb_array"), "render_mode must be None, 'human', 'ansi' or 'html', got 'rgb_array'"),
    (dict(render_mode=["ansi"]), "render_mode must be None, 'human', 'ansi' or 'html'"),
    (dict(render_mode=np.array(["ansi", "html"])), "render_mode must be None, 'human', 'ansi' or 'html'"),
    (dict(log_path=5), "log_path must be None or a file path"),
    (dict(log_path=True), "log_path must be None or a file path"),
])
def test_bad_constructor_arguments_refused_by_name(kwargs: dict[str, Any], words: str) -> None:
    kwargs = {"game": make_game("tripoli", num_players=3), **kwargs}
    refused(lambda: CardGymEnv(**kwargs), ArgumentError, words)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("render_mode", [None, "ansi", "human", "html"])
def test_everything_before_reset_says_reset(name: str, render_mode: str | None) -> None:
    env = _raw_env(name, render_mode)
    for call, what in [
        (lambda: env.step(0), "step()"),
        (lambda: env.observe("player_0"), "observe()"),
        (lambda: env.last(), "last()"),
        (lambda: env.render(), "render()"),
        (lambda: env.legal_actions(), "legal_actions()"),
    ]:
        refused(call, ResetNeededError, f"{env_version(name)}: call reset() before {what}")
    assert "not reset yet" in env._repr_html_()  # a notebook shows the env before reset without an error
    env.reset(seed=1)
    env.last()  # and after reset all of it works


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("form", [np.array, lambda a: np.array([a]), np.int64, np.uint16,
                                  lambda a: np.array([a], np.int32)])
def test_an_action_in_an_array_of_one_is_that_action(name: str, form) -> None:
    plain, wrapped = _raw_env(name), _raw_env(name)
    plain.reset(seed=4)
    wrapped.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(30):
        if plain.terminations[plain.agent_selection] or plain.truncations[plain.agent_selection]:
            break
        action = int(rng.choice(plain.legal_actions()))
        plain.step(action)
        wrapped.step(form(action))
        assert _unchanged(wrapped, _snapshot(plain))


def _bad_actions() -> st.SearchStrategy:
    return st.one_of(
        not_integers(),
        out_of_range(0, 3000),  # past every game's action space (Le triolet has 2891 actions)
        st.just(np.array([], dtype=np.int64)),
        hnp.arrays(np.int64, st.integers(2, 4), elements=st.integers(0, 3)),
        st.just(np.array([[1]])),  # a (1, 1) array is not SB3's single action
        hnp.arrays(np.float64, 1, elements=st.floats(0, 3)),
        st.just(np.array(["1"])),
        st.just(np.array([True])),
        st.just(None),
    )


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(action=_bad_actions())
def test_malformed_actions_refused_env_unchanged(name: str, action) -> None:
    env = _raw_env(name)
    env.reset(seed=9)
    snap = _snapshot(env)
    refused(lambda: env.step(action), IllegalActionError, "action must be an action id 0..",
            "an int or a 1-element integer array")
    assert _unchanged(env, snap)


@pytest.mark.parametrize("name", GAMES)
def test_an_illegal_action_in_range_is_refused_env_unchanged(name: str) -> None:
    env = _raw_env(name)
    env.reset(seed=9)
    snap = _snapshot(env)
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    refused(lambda: env.step(np.array([illegal])), IllegalActionError, "is not legal", "legal actions:")
    assert _unchanged(env, snap)


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(seed=st.one_of(st.floats(), st.text(max_size=3), st.booleans(), st.integers(max_value=-1),
                      st.integers(min_value=2**64), st.just([1, 2])))
def test_bad_seeds_refused_env_unchanged(name: str, seed) -> None:
    env = _raw_env(name)
    env.reset(seed=3)
    snap = _snapshot(env)
    refused(lambda: env.reset(seed=seed), ArgumentError, "seed must be an integer 0..2**64-1")
    assert _unchanged(env, snap)


@pytest.mark.parametrize("name", GAMES)
def test_bad_reset_options_refused_env_unchanged(name: str) -> None:
    env = _raw_env(name)
    env.reset(seed=3)
    snap = _snapshot(env)
    size = env.game.deck_size_for()
    for options, words in [
        ({"dealer": 1.5}, ("options['dealer'] must be a seat 0..2",)),
        ({"dealer": -1}, ("options['dealer'] must be a seat 0..2",)),
        ({"dealer": "1"}, ("options['dealer'] must be a seat 0..2",)),
        ({"deck": np.arange(size, dtype=float)}, ("decks must be", "card ids")),
        ({"deck": 7}, ("decks must be", "shape")),
        ({"deck": list(range(size - 1))}, ("decks must be", "shape")),
        ("deck", ("options must be None or a dict",)),
    ]:
        refused(lambda options=options: env.reset(seed=5, options=options), ArgumentError, *words)
        assert _unchanged(env, snap)
    env.reset(seed=5, options={"dealer": np.int64(2), "deck": env.unwrapped.game.deck_ids().astype(np.uint8)})
    assert int(env.state_.dealer[0]) == 2


@pytest.mark.parametrize("name", GAMES)
def test_unknown_agent_and_action_name(name: str) -> None:
    env = _raw_env(name)
    env.reset(seed=1)
    for call in (env.observe, env.observation_space, env.action_space):
        for agent in ("player_7", 0, ["player_0"]):
            refused(lambda call=call, agent=agent: call(agent), ArgumentError,
                    "agent must be one of player_0, player_1, player_2")
    refused(lambda: env.action_name(-1), ArgumentError, "action must be an action id 0..")
    refused(lambda: env.action_name(1.0), ArgumentError, "action must be an action id 0..")
    assert env.action_name(np.int64(0)) == env.game.action_name(0)


@pytest.mark.parametrize("name", GAMES)
def test_stepping_after_every_agent_is_done_says_reset(name: str) -> None:
    env = _raw_env(name)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for agent in env.agent_iter(max_iter=100_000):
        done = env.terminations[agent] or env.truncations[agent]
        env.step(None if done else int(rng.choice(env.legal_actions())))
    assert not env.agents
    refused(lambda: env.step(0), ResetNeededError, "the episode is over", "call reset() before step()")
    refused(lambda: env.last(), ResetNeededError, "the episode is over", "call reset() before last()")
    env.reset(seed=3)
    assert env.agents == env.possible_agents


def _deals(env, resets: int) -> list[np.ndarray]:
    """The acting seat's first observation after each of ``resets`` unseeded resets."""
    out = []
    for _ in range(resets):
        env.reset()
        out.append(env.observe(env.agent_selection)["observation"].copy())
    return out


@pytest.mark.parametrize("name", GAMES)
def test_c7_unseeded_resets_after_a_seeded_one_draw_from_its_seed(name: str) -> None:
    """As in Gymnasium: reset(seed=s) then reset() … deals the same tables in two envs, different from each other
    and from another seed's; the first reset of an env without any seed takes the system's entropy."""
    a, b, c = _raw_env(name), _raw_env(name), _raw_env(name)
    a.reset(seed=11)
    b.reset(seed=11)
    c.reset(seed=12)
    deals_a, deals_b, deals_c = _deals(a, 4), _deals(b, 4), _deals(c, 4)
    for x, y in zip(deals_a, deals_b, strict=True):
        np.testing.assert_array_equal(x, y)
    assert not any(np.array_equal(deals_a[i], deals_a[j]) for i in range(4) for j in range(i))
    assert not any(np.array_equal(x, y) for x, y in zip(deals_a, deals_c, strict=True))
    fresh_1, fresh_2 = _raw_env(name), _raw_env(name)
    assert not np.array_equal(_deals(fresh_1, 1)[0], _deals(fresh_2, 1)[0])


@pytest.mark.parametrize("name", GAMES)
def test_a_refused_reset_does_not_advance_the_seeded_deals(name: str) -> None:
    a, b = _raw_env(name), _raw_env(name)
    a.reset(seed=21)
    b.reset(seed=21)
    refused(lambda: a.reset(options={"dealer": -1}), ArgumentError, "options['dealer'] must be a seat")
    refused(lambda: a.reset(options={"deck": 7}), ArgumentError, "decks must be")
    for x, y in zip(_deals(a, 2), _deals(b, 2), strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("name", GAMES)
def test_the_wrapped_env_refuses_its_state_before_reset_as_pettingzoo_does(name: str) -> None:
    env = importlib.import_module(f"envs.{env_version(name)}").env(num_players=3)
    for attribute in ("agents", "agent_selection"):
        with pytest.raises(AttributeError, match=f"{attribute} cannot be accessed before reset"):
            getattr(env, attribute)
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        env.last()
    env.reset(seed=2)
    size = env.unwrapped.game.observation_size
    assert env.agents == env.unwrapped.agents and env.last()[0]["observation"].shape == (size,)
