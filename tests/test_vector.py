"""The batched SB3 vector env (training/sb3_vec_env.py over envs/vector.py): masks, reward attribution against the
core's balances, opponents, auto-reset, determinism, and SB3's / sb3-contrib's own checks where they apply to a
VecEnv."""

from __future__ import annotations

import numpy as np
import pytest
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import VecCheckNan

from agents.random_agent import RandomAgent
from agents.registry import make_agent
from envs.core.agent import AgentBase
from envs.core.game import IllegalActionError, sample_legal
from envs.core.rng import hash_u64
from envs.registry import GAMES, make_game
from envs.vector import STREAM_TABLE_SEED
from training.sb3_vec_env import CardVecEnv


def _random_steps(env: CardVecEnv, steps: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield env.step(sample_legal(env.action_masks(), rng))


@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_every_table_waits_on_its_learner_with_its_mask(game_name):
    game = make_game(game_name, num_players=3)
    env = VecCheckNan(CardVecEnv(game, 32, make_agent("heuristic", game), seed=3), raise_exception=True)
    inner = env.unwrapped
    obs = env.reset()
    assert is_masking_supported(env)
    for _ in range(40):
        s = inner.state
        assert not s.done.any()
        assert (s.current_player == inner.learner).all()
        np.testing.assert_array_equal(obs, game.observe(s, inner.learner))
        masks = get_action_masks(env)
        np.testing.assert_array_equal(masks, s.legal_action_mask)
        assert masks.shape == (32, game.num_actions) and masks.any(axis=1).all()
        assert all(env.observation_space.contains(o) for o in obs[:4])
        obs, rewards, dones, infos = env.step(sample_legal(masks, np.random.default_rng(len(obs))))
        assert rewards.dtype == np.float32 and dones.dtype == bool and len(infos) == 32
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (game.observation_size,)
            assert infos[i]["episode"]["l"] >= 1


@pytest.mark.parametrize("players", [2, 4, 6])
def test_episode_return_is_the_learners_chip_change(players):
    """Sum of the rewards handed to the learner over an episode == its final chip balance in the core (T3: balances
    start at 0 each episode), ante and opponents' moves included; reward_scale scales the rewards only."""
    game = make_game("tripoli", num_players=players)
    env = CardVecEnv(game, 32, [RandomAgent(game), make_agent("heuristic", game)], [1, 3], seed=players,
                     reward_scale=0.5)
    finals: dict[int, list[float]] = {}
    deal = env.vector._deal

    def spy(idx):  # the core's balance of each finished table's learner, read before the table is dealt again
        for b in idx.tolist():
            finals.setdefault(b, []).append(float(env.state.balance[b, env.learner[b]]))
        deal(idx)

    env.vector._deal = spy
    env.reset()
    running = np.zeros(32)
    returns: dict[int, list[float]] = {}
    checked = 0
    for _, rewards, dones, infos in _random_steps(env, 60):
        running += rewards / 0.5
        for b in np.flatnonzero(dones).tolist():
            returns.setdefault(b, []).append(running[b])
            assert infos[b]["episode"]["r"] == pytest.approx(running[b])
            running[b] = 0.0
            checked += 1
    for b, r in returns.items():
        np.testing.assert_allclose(r, finals[b])
    assert checked > 40
    assert any(abs(x) > 0 for r in returns.values() for x in r)


class _Fixed(AgentBase):
    """Always the lowest legal action; counts its calls."""

    name = "fixed"

    def __init__(self, game):
        super().__init__(game)
        self.rows = 0

    def act(self, obs, mask, rng):
        self.rows += len(mask)
        return mask.argmax(axis=1)


def test_opponent_pool_weights_and_mixing():
    game = make_game("tripoli", num_players=4)
    a, b = _Fixed(game), _Fixed(game)
    env = CardVecEnv(game, 64, [a, b], weights=[1, 0], seed=1)
    env.reset()
    list(_random_steps(env, 5))
    assert a.rows > 0 and b.rows == 0
    env.set_opponents([a, b], [1, 1])
    env.reset()
    drawn = env.seat_agent[np.arange(64)[:, None], (env.learner[:, None] + np.arange(1, 4)) % 4]
    assert 0.3 < drawn.mean() < 0.7  # both agents drawn, within tables too
    assert (drawn.min(axis=1) != drawn.max(axis=1)).any()
    with pytest.raises(ValueError, match="weights"):
        env.set_opponents([a, b], [1])
    with pytest.raises(ValueError, match="empty"):
        env.set_opponents([])


def test_illegal_opponent_action_is_refused():
    class Bad(AgentBase):
        name = "bad"

        def act(self, obs, mask, rng):
            return np.where(mask, -1, np.arange(mask.shape[1])).max(axis=1)  # the highest illegal action

    game = make_game("tripoli", num_players=4)
    env = CardVecEnv(game, 8, Bad(game), seed=0)
    with pytest.raises(IllegalActionError, match="opponent"):
        env.reset()


def test_learner_illegal_action_is_refused():
    game = make_game("tripoli", num_players=4)
    env = CardVecEnv(game, 4, RandomAgent(game), seed=0)
    env.reset()
    bad = (~env.action_masks()).argmax(axis=1)
    with pytest.raises(IllegalActionError):
        env.step(bad)


def test_same_seed_same_run_and_seats_from_table_seeds():
    game = make_game("tripoli", num_players=5)
    runs = []
    for _ in range(2):
        env = CardVecEnv(game, 16, make_agent("heuristic", game), seed=11)
        obs = [np.concatenate([env.reset(), np.zeros((16, 2), np.float32)], axis=1)]
        seats = [env.learner.copy()]
        for o, r, d, _ in _random_steps(env, 30, seed=5):
            obs.append(np.concatenate([o, r[:, None], d[:, None]], axis=1))
            seats.append(env.learner.copy())
        runs.append((np.stack(obs), np.stack(seats)))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    assert len(np.unique(runs[0][1])) == 5  # the learner plays every seat
    other = CardVecEnv(game, 16, make_agent("heuristic", game), seed=12)
    assert not np.array_equal(other.reset(), runs[0][0][0, :, :-2])


def test_finished_tables_are_dealt_again_with_new_seeds():
    game = make_game("tripoli", num_players=4)
    env = CardVecEnv(game, 8, RandomAgent(game), seed=2)
    env.reset()
    first = set(env.state.seeds.tolist())
    for _ in _random_steps(env, 60):
        pass
    assert env.episodes > 8
    seen = set(env.state.seeds.tolist())
    assert seen - first and len(seen) == 8
    dealt = 8 + env.episodes + env.skipped_deals  # the k-th table dealt has the seed hash(2, k)
    assert seen <= set(hash_u64(np.uint64(2), STREAM_TABLE_SEED, np.arange(dealt, dtype=np.uint64)).tolist())


def test_bad_sizes_refused():
    game = make_game("tripoli", num_players=4)
    with pytest.raises(ValueError, match="num_tables"):
        CardVecEnv(game, 0, RandomAgent(game))
    env = CardVecEnv(game, 2, RandomAgent(game))
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, int))


def test_single_table_baseline_of_the_benchmark_passes_sb3_check_env():
    """The DummyVecEnv baseline of benchmarks/train_throughput.py: SB3's env checker, and its episode return is the
    learner's chip change as in the batched env."""
    from stable_baselines3.common.env_checker import check_env

    from benchmarks.train_throughput import SingleAgentTable

    env = SingleAgentTable("tripoli", 4, "random", seed=3)
    rng = np.random.default_rng(0)
    # check_env steps with action_space.sample(); a masked env takes legal actions only, so sample from the mask
    env.action_space.sample = lambda mask=None: int(sample_legal(env.action_masks()[None], rng)[0])
    check_env(env, warn=True)
    for _ in range(5):
        env.reset()
        total, done = 0.0, False
        while not done:
            _, r, term, trunc, _ = env.step(int(sample_legal(env.action_masks()[None], rng)[0]))
            total, done = total + r, term or trunc
        seat = env.aec.unwrapped.agent_name_mapping[env.learner]
        assert total == env.aec.unwrapped.state_.balance[0, seat]


def test_deals_over_before_the_learner_acts_are_dealt_again():
    from envs.tripoli.core import TripoliGame

    class HalfOverAtOnce(TripoliGame):
        """Tripoli where every table with an even seed is over as soon as it is dealt (chips already moved)."""

        def _init(self, seeds, decks, dealers):
            s = super()._init(seeds, decks, dealers)
            self._over_if_even(s, np.arange(len(seeds)))
            return s

        def _redeal(self, state, idx, seeds):
            super()._redeal(state, idx, seeds)
            self._over_if_even(state, idx)

        @staticmethod
        def _over_if_even(s, idx):
            over = idx[s.seeds[idx] % 2 == 0]
            s.terminated[over] = True
            s.current_player[over] = -1

    game = HalfOverAtOnce(num_players=4)
    env = CardVecEnv(game, 16, RandomAgent(game), seed=0)
    env.reset()
    assert env.skipped_deals >= 8 and (env.state.seeds % 2 == 1).all()
    for _, _, dones, infos in _random_steps(env, 40):
        assert not env.state.done.any() and (env.state.seeds % 2 == 1).all()
        assert all(infos[i]["episode"]["l"] >= 1 for i in np.flatnonzero(dones))
    assert env.episodes > 0
