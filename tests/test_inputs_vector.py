"""Bad input to the SB3 vector env (training/sb3_vec_env.py over envs/vector.py) on every game: table counts, seeds
(all 64 bits used), opponent pools and their weights, reward scales, the learner's actions and use before reset. Each
refusal is one line naming the argument and leaves the env as it was."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.random_agent import RandomAgent
from agents.registry import make_agent
from envs.core.checks import ArgumentError, ResetNeededError
from envs.core.game import IllegalActionError
from envs.registry import make_game
from tests.input_helpers import GAMES, bad_arrays, not_integers, refused, same_arrays
from training.sb3_vec_env import CardVecEnv

SETTINGS = settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
T = 4
"""Tables of the env in most tests."""


def _env(name: str, seed: int = 0, **kwargs: Any) -> CardVecEnv:
    game = make_game(name, num_players=3)
    return CardVecEnv(game, T, RandomAgent(game), seed=seed, **kwargs)


def _snapshot(env: CardVecEnv) -> dict[str, Any]:
    arrays = ("learner", "seat_agent", "pending", "ep_return", "ep_length", "weights")
    tables = env.vector  # the Gymnasium vector env the SB3 face drives
    return {"state": env.state.copy(), "opponents": list(env.opponents), "seated": list(env.seated), "seed": env._seed,
            "counter": tables._counter, **{k: getattr(tables, k).copy() for k in arrays if hasattr(tables, k)}}


def _unchanged(env: CardVecEnv, snap: dict[str, Any]) -> bool:
    now = _snapshot(env)
    return (same_arrays(now.pop("state"), snap["state"]) and now.pop("opponents") == snap["opponents"]
            and now.pop("seated") == snap["seated"] and all(np.array_equal(v, snap[k]) for k, v in now.items()))


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(num_tables=st.one_of(not_integers(), st.integers(max_value=0), st.just(2.5)))
def test_bad_num_tables_refused(name: str, num_tables) -> None:
    game = make_game(name, num_players=3)
    refused(lambda: CardVecEnv(game, num_tables, RandomAgent(game)), ArgumentError,
            "num_tables must be a positive integer")


@pytest.mark.parametrize("name", GAMES)
def test_numpy_integers_are_integers(name: str) -> None:
    game = make_game(name, num_players=3)
    env = CardVecEnv(game, np.int64(T), RandomAgent(game), seed=np.uint64(2**64 - 1))
    assert env.num_envs == T and env.reset().shape == (T, game.observation_size)


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(seed=st.one_of(st.floats(), st.text(max_size=3), st.booleans(), st.integers(max_value=-1),
                      st.integers(min_value=2**64), st.just([1])))
def test_bad_seeds_refused_env_unchanged(name: str, seed) -> None:
    game = make_game(name, num_players=3)
    refused(lambda: CardVecEnv(game, T, RandomAgent(game), seed=seed), ArgumentError,
            "seed must be None or an integer 0..2**64-1")
    env = _env(name, seed=5)
    env.reset()
    snap = _snapshot(env)
    refused(lambda: env.seed(seed), ArgumentError, "seed must be None or an integer 0..2**64-1")
    assert _unchanged(env, snap)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", [0, 12345, 2**31 - 1, 2**63 + 7])
def test_seeds_apart_by_2_to_the_32_do_not_alias(name: str, seed: int) -> None:
    a, b = _env(name, seed=seed), _env(name, seed=(seed + 2**32) % 2**64)
    a.reset()
    b.reset()
    assert not set(a.state.seeds.tolist()) & set(b.state.seeds.tolist())
    again = _env(name, seed=seed)
    again.reset()
    assert same_arrays(again.state, a.state)  # and the same seed is the same run


@pytest.mark.parametrize("name", GAMES)
def test_bad_weights_refused_pool_unchanged(name: str) -> None:
    env = _env(name)
    env.reset()
    snap = _snapshot(env)
    game = env.game
    pool = [RandomAgent(game), make_agent("heuristic", game)]
    for weights, words in [
        ([np.nan, 1], ("weights[0] must be a finite number",)),
        ([1, np.inf], ("weights[1] must be a finite number",)),
        ([-1, 2], ("weights must be 2 finite non-negative numbers",)),
        ([0, 0], ("not all 0",)),
        ([1], ("weights must be 2",)),
        ([1, 1, 1], ("weights must be 2",)),
        (["1", "1"], ("weights[0] must be a finite number",)),
        ([True, 1], ("weights[0] must be a finite number",)),
        ("11", ("weights must be 2",)),
        (np.ones((2, 1)), ("weights[0] must be a finite number",)),
        (1.0, ("weights must be 2",)),
    ]:
        refused(lambda weights=weights: env.set_opponents(pool, weights), ArgumentError, *words)
        assert _unchanged(env, snap)
    env.set_opponents(pool, np.array([1, 3], dtype=np.int8))  # any real numbers will do
    np.testing.assert_allclose(env.weights, [0.25, 0.75])


@pytest.mark.parametrize("name", GAMES)
def test_opponents_built_for_another_game_refused(name: str) -> None:
    env = _env(name)
    env.reset()
    snap = _snapshot(env)
    other_game = make_game("tripoli" if name != "tripoli" else "flipflop", num_players=3)
    other_size = make_game(name, num_players=4)
    other_rules = make_game(name, num_players=3, auto_forced=False)
    for pool, words in [
        (RandomAgent(other_game), ("opponents ('random') was built for", f"not for {env.game!r}")),
        ([RandomAgent(env.game), make_agent("heuristic", other_size)], ("opponents[1] ('heuristic')", "num_players=4")),
        ([RandomAgent(other_rules)], ("opponents[0] ('random')", "auto_forced=False")),
        ([object()], ("opponents[0] must be an agent with an act(obs, mask, rng) method",)),
        ("heuristic", ("opponents must be an agent or a list of agents",)),
        ([], ("opponent pool is empty",)),
    ]:
        refused(lambda pool=pool: env.set_opponents(pool), ArgumentError, *words)
        assert _unchanged(env, snap)
        refused(lambda pool=pool: CardVecEnv(env.game, T, pool), ArgumentError, *words)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("scale", [0, -1.0, np.nan, np.inf, "1", True, None])
def test_bad_reward_scale_refused(name: str, scale) -> None:
    refused(lambda: _env(name, reward_scale=scale), ArgumentError, "reward_scale must be a finite positive number")


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(actions=st.one_of(not_integers(), bad_arrays(T).filter(lambda a: a.shape not in ((T,), (T, 1))
                                                              or a.dtype.kind not in "iu")))
def test_malformed_learner_actions_refused_env_unchanged(name: str, actions) -> None:
    """One action per table: shape ``(T,)``, or a ``(T, 1)`` column; ``(1, T)`` or ``(2, 2)`` are not that."""
    env = _env(name, seed=1)
    env.reset()
    snap = _snapshot(env)
    refused(lambda: env.step_async(actions), ArgumentError, "actions must be", f"{T} integer action ids")
    assert _unchanged(env, snap)


@pytest.mark.parametrize("name", GAMES)
def test_an_illegal_learner_action_leaves_the_tables_unchanged(name: str) -> None:
    env = _env(name, seed=1)
    env.reset()
    snap = _snapshot(env)
    illegal = (~env.action_masks()).argmax(axis=1)
    refused(lambda: env.step(illegal), IllegalActionError, "is not legal")
    assert _unchanged(env, snap)
    env.step(env.action_masks().argmax(axis=1).reshape(T, 1))  # an (n, 1) column of actions is n actions


@pytest.mark.parametrize("shape", [(1, T), (2, 2), (T, 1, 1)])
def test_actions_of_t_ids_in_another_shape_are_refused(shape: tuple[int, ...]) -> None:
    env = _env("tripoli", seed=1)
    env.reset()
    snap = _snapshot(env)
    legal = env.action_masks().argmax(axis=1)
    refused(lambda: env.step_async(legal.reshape(shape)), ArgumentError, "actions must be", "got shape")
    assert _unchanged(env, snap)


@pytest.mark.parametrize("name", GAMES)
def test_every_call_that_needs_the_tables_says_reset_first(name: str) -> None:
    env = _env(name)
    for call, what in [(lambda: env.action_masks(), "action_masks()"),
                       (lambda: env.env_method("action_masks"), "action_masks()"),
                       (lambda: env.step(np.zeros(T, np.int64)), "step()")]:
        refused(call, ResetNeededError, f"call reset() before {what}")
    env.reset()
    assert env.action_masks().shape == (T, env.game.num_actions) and len(env.env_method("action_masks")) == T
