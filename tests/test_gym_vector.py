"""The Gymnasium vector face (envs.vector.CardVectorEnv): spaces, both auto-reset modes, episode returns equal to the
learner's chips, seeding, bad inputs, and a CleanRL-style masked-policy loop with a gradient step."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gymnasium.vector import AutoresetMode

from agents.random_agent import RandomAgent
from agents.registry import make_agent
from envs.core.checks import ArgumentError
from envs.core.game import IllegalActionError, sample_legal
from envs.registry import GAMES, make_game
from envs.vector import CardVectorEnv

TABLES = 16


def _env(name: str = "tripoli", mode: AutoresetMode = AutoresetMode.NEXT_STEP, **kw) -> CardVectorEnv:
    game = make_game(name, num_players=3, **kw)
    return CardVectorEnv(game, TABLES, [RandomAgent(game), make_agent("heuristic", game)], autoreset_mode=mode)


@pytest.mark.parametrize("name", list(GAMES))
def test_spaces_hold_what_reset_and_step_return(name: str) -> None:
    env = _env(name)
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, infos = env.reset(seed=3)
    assert infos == {} and env.observation_space.contains(obs)
    assert obs["observation"].shape == (TABLES, env.game.observation_size)
    assert (obs["action_mask"].astype(bool) == env.action_masks()).all() and obs["action_mask"].any(axis=1).all()
    rng = np.random.default_rng(0)
    for _ in range(30):
        obs, rewards, terms, truncs, infos = env.step(sample_legal(obs["action_mask"], rng))
        assert env.observation_space.contains(obs) and env.action_space.contains(sample_legal(env.action_masks(), rng))
        assert rewards.shape == (TABLES,) and rewards.dtype == np.float32
        assert terms.dtype == truncs.dtype == bool and not (terms & truncs).any()


@pytest.mark.parametrize("name", list(GAMES))
def test_next_step_autoreset_returns_the_last_observation_then_ignores_the_action(name: str) -> None:
    """NEXT_STEP: the ending step returns the table's last observation with its flag; the next step deals it again
    whatever the action (any action allowed), with reward 0, no flag and the new episode's first decision."""
    env = _env(name)
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(5)
    seen_reset = 0
    for _ in range(300):
        obs, rewards, terms, truncs, infos = env.step(sample_legal(obs["action_mask"], rng))
        ended = terms | truncs
        if ended.any():
            assert infos["_episode"].tolist() == ended.tolist() and (infos["episode"]["l"][ended] >= 1).all()
            assert obs["action_mask"][ended].all()  # awaiting the re-deal: every action is allowed (and ignored)
            before = env.state.seeds.copy()
            odd = np.where(ended, env.game.num_actions - 1, sample_legal(obs["action_mask"], rng))
            obs, rewards, terms, truncs, infos = env.step(odd)
            assert (rewards[ended] == 0).all() and not (terms | truncs)[ended].any()
            assert (env.state.seeds[ended] != before[ended]).all() and not env.state.done[ended].any()
            assert (env.state.current_player[ended] == env.learner[ended]).all()
            seen_reset += int(ended.sum())
        if seen_reset >= 5:
            break
    assert seen_reset >= 5


def test_same_step_autoreset_deals_at_once_and_keeps_the_last_observation_in_infos() -> None:
    env = _env("flipflop", AutoresetMode.SAME_STEP)
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(200):
        obs, _, terms, truncs, infos = env.step(sample_legal(obs["action_mask"], rng))
        ended = terms | truncs
        if ended.any():
            assert infos["_final_obs"].tolist() == ended.tolist()
            for t in np.flatnonzero(ended):
                assert infos["final_obs"][t]["observation"].shape == (env.game.observation_size,)
            assert not env.state.done.any() and obs["action_mask"].any(axis=1).all()
            return
    pytest.fail("no episode ended in 200 steps")


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_episode_return_is_the_learners_chip_change(mode: AutoresetMode) -> None:
    """Tripoli balances start at 0 (T3): an episode's rewards (the ante included, handed with the first decision)
    sum to the learner's final balance, which infos["episode"]["r"] reports too."""
    env = _env("tripoli", mode, num_deals=1)
    obs, _ = env.reset(seed=11)
    rng = np.random.default_rng(11)
    running, checked = np.zeros(TABLES), 0
    for _ in range(400):
        waiting = env.needs_reset.copy()  # tables dealt again by this step: their reward belongs to no episode
        obs, rewards, terms, truncs, infos = env.step(sample_legal(obs["action_mask"], rng))
        running[~waiting] += rewards[~waiting]
        for t in np.flatnonzero(terms | truncs):
            assert running[t] == pytest.approx(infos["episode"]["r"][t])
            if mode == AutoresetMode.NEXT_STEP:  # the finished table is still there to read
                assert running[t] == pytest.approx(env.state.balance[t, env.learner[t]])
            running[t] = 0.0
            checked += 1
    assert checked >= 20


def test_seeding_reproduces_and_reset_without_seed_continues() -> None:
    def run(env: CardVectorEnv, seed: int | None) -> list[np.ndarray]:
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = [obs["observation"]]
        for _ in range(20):
            obs, rewards, *_ = env.step(sample_legal(obs["action_mask"], rng))
            out += [obs["observation"], rewards]
        return out

    a, b = _env(), _env()
    first = run(a, 7)
    assert all(np.array_equal(x, y) for x, y in zip(first, run(b, 7), strict=True))
    later = run(a, None)
    assert not np.array_equal(first[0], later[0])  # new tables: the counter went on


def test_bad_inputs_refused_with_one_line() -> None:
    game = make_game("triolet", 3)
    with pytest.raises(ArgumentError, match="autoreset_mode must be"):
        CardVectorEnv(game, 4, RandomAgent(game), autoreset_mode=AutoresetMode.DISABLED)
    with pytest.raises(ArgumentError, match="num_tables must be a positive integer"):
        CardVectorEnv(game, 0, RandomAgent(game))
    env = CardVectorEnv(game, 4, RandomAgent(game))
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(4, np.int64))
    with pytest.raises(ArgumentError, match="seed must be"):
        env.reset(seed=-1)
    with pytest.raises(ArgumentError, match="reads no reset options"):
        env.reset(options={"deck": [1, 2]})
    obs, _ = env.reset(seed=1)
    snapshot = env.state.copy()
    with pytest.raises(ArgumentError, match="actions must be 4 integer action ids"):
        env.step(np.zeros(3, np.int64))
    with pytest.raises(IllegalActionError, match="actions: triolet: action .* is not legal"):
        env.step((~env.action_masks()).argmax(axis=1))
    assert all(np.array_equal(getattr(env.state, f), getattr(snapshot, f)) for f in ("seeds", "current_player"))


def test_a_cleanrl_style_loop_trains_a_masked_policy() -> None:
    """The loop of CleanRL's PPO scripts, reduced: a torch policy over obs["observation"], logits masked with
    obs["action_mask"], actions sampled and stepped, returns collected, one policy-gradient step. The update
    changes the policy and every sampled action was legal."""
    env = _env("tripoli")
    game = env.game
    torch.manual_seed(0)
    policy = torch.nn.Sequential(torch.nn.Linear(game.observation_size, 32), torch.nn.Tanh(),
                                 torch.nn.Linear(32, game.num_actions))
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    obs, _ = env.reset(seed=0)
    log_probs, rewards = [], []
    for _ in range(64):
        x = torch.as_tensor(np.sign(obs["observation"]) * np.log1p(np.abs(obs["observation"])))
        logits = policy(x).masked_fill(torch.as_tensor(obs["action_mask"] == 0), -1e9)
        dist = torch.distributions.Categorical(logits=logits)
        action = dist.sample()
        assert obs["action_mask"][np.arange(TABLES), action.numpy()].all()
        log_probs.append(dist.log_prob(action))
        obs, reward, terms, truncs, _ = env.step(action.numpy())
        rewards.append(torch.as_tensor(reward))
    returns = torch.flip(torch.cumsum(torch.flip(torch.stack(rewards), [0]), 0), [0])
    loss = -(torch.stack(log_probs) * (returns - returns.mean())).mean()
    before = [p.detach().clone() for p in policy.parameters()]
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    assert any(not torch.equal(a, b) for a, b in zip(before, policy.parameters(), strict=True))
