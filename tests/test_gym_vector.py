"""The Gymnasium vector face (envs.vector.CardVectorEnv): spaces, both auto-reset modes, episode returns equal to the
learner's chips, seeding, opponent pools changed mid-run, bad inputs, a CleanRL-style masked-policy loop with a
gradient step, and the layering that keeps this face free of torch and Stable-Baselines3."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from gymnasium.vector import AutoresetMode

from agents.random_agent import RandomAgent
from agents.registry import make_agent
from envs.core.agent import AgentBase
from envs.core.checks import ArgumentError, ResetNeededError
from envs.core.game import IllegalActionError, sample_legal
from envs.registry import GAMES, make_game
from envs.vector import CardVectorEnv
from tests.input_helpers import refused, same_arrays

TABLES = 16
ROOT = Path(__file__).resolve().parents[1]


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


FACES = ("envs", "envs.vector", "envs.aec", "envs.tripoli_v1", "envs.triolet_v1", "envs.flipflop_v1")
"""The modules a Gymnasium or PettingZoo user imports (CleanRL, JAX, RLlib): none may need the training stack."""
TRAINING_STACK = ("torch", "stable_baselines3", "sb3_contrib", "agents", "training")
"""Top-level packages the faces above must not import."""


def test_the_gymnasium_and_pettingzoo_faces_import_no_torch_and_no_stable_baselines3() -> None:
    code = (f"import sys\nimport {', '.join(FACES)}\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(TRAINING_STACK)!r}))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]", f"importing {', '.join(FACES)} imported {run.stdout.strip()}"


def _imported_modules(path: Path) -> list[str]:
    """The absolute module names ``path`` imports (``import x.y``, ``from x.y import z``, ``import_module("x.y")``
    with a literal name)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) \
                in ("import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
            names.append(str(node.args[0].value))
    return names


def test_envs_import_nothing_from_agents_or_training() -> None:
    upward = [f"{path.relative_to(ROOT)}: {name}" for path in sorted((ROOT / "envs").rglob("*.py"))
              for name in _imported_modules(path) if name.split(".")[0] in ("agents", "training")]
    assert not upward, f"envs/ imports from agents/ or training/: {upward}"


def _tables(env: CardVectorEnv) -> dict[str, object]:
    """What a refused call must leave as it was."""
    return {"state": env.state.copy(), "seat_agent": env.seat_agent.copy(), "learner": env.learner.copy(),
            "opponents": list(env.opponents), "seated": list(env.seated), "weights": env.weights.copy(),
            "whole_table": env.whole_table, "counter": env._counter}


def _unchanged(env: CardVectorEnv, before: dict[str, object]) -> bool:
    now = _tables(env)
    return same_arrays(now.pop("state"), before["state"]) and all(
        np.array_equal(v, before[k]) if isinstance(v, np.ndarray) else v == before[k] for k, v in now.items())


@pytest.mark.parametrize("whole_table", [True, False, np.bool_(True), 1.5, -0.1, np.nan, np.float32(1.01), "0.5",
                                         None, [0.5], np.array([0.5])])
def test_whole_table_must_be_a_number_from_0_to_1(whole_table) -> None:
    game = make_game("tripoli", num_players=4)
    refused(lambda: CardVectorEnv(game, 4, RandomAgent(game), whole_table=whole_table), ArgumentError,
            "whole_table must be a probability in [0, 1]")
    env = CardVectorEnv(game, 4, RandomAgent(game))
    env.reset(seed=0)
    before = _tables(env)
    refused(lambda: env.set_opponents(RandomAgent(game), whole_table=whole_table), ArgumentError,
            "whole_table must be a probability in [0, 1]")
    assert _unchanged(env, before)


@pytest.mark.parametrize("whole_table", [np.float32(0.5), np.float64(0.25), np.int64(1), np.uint8(0), 1, 0.0])
def test_whole_table_takes_numpy_numbers_as_their_values(whole_table) -> None:
    game = make_game("tripoli", num_players=4)
    env = CardVectorEnv(game, 4, RandomAgent(game), whole_table=whole_table)
    assert env.whole_table == float(whole_table) and type(env.whole_table) is float
    env.set_opponents(RandomAgent(game), whole_table=whole_table)
    assert env.whole_table == float(whole_table)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_every_call_that_needs_the_tables_says_reset_first(mode: AutoresetMode) -> None:
    game = make_game("tripoli", num_players=4)
    env = CardVectorEnv(game, 4, RandomAgent(game), autoreset_mode=mode)
    for _ in range(2):  # before the first reset, and after close()
        refused(lambda: env.action_masks(), ResetNeededError, "call reset() before action_masks()")
        refused(lambda: env.step(np.zeros(4, np.int64)), ResetNeededError, "call reset() before step()")
        env.reset(seed=0)
        env.step(env.action_masks().argmax(axis=1))
        env.close()


@pytest.mark.parametrize("shape", [(2, 2), (1, 4), (4, 1), (4, 1, 1), (), (8,)])
def test_actions_of_any_shape_but_one_per_table_are_refused(shape: tuple[int, ...]) -> None:
    game = make_game("tripoli", num_players=4)
    env = CardVectorEnv(game, 4, RandomAgent(game))
    obs, _ = env.reset(seed=3)
    before = _tables(env)
    legal = obs["action_mask"].argmax(axis=1)
    actions = np.resize(legal, shape) if shape else legal[0]
    refused(lambda: env.step(actions), ArgumentError, "actions must be 4 integer action ids", "shape (4,)")
    assert _unchanged(env, before)
    env.step(legal)


@pytest.mark.parametrize(("argument", "value", "words"), [
    ("autoreset_mode", ["next_step"], "autoreset_mode must be AutoresetMode.NEXT_STEP or AutoresetMode.SAME_STEP"),
    ("autoreset_mode", {"next_step": 1}, "autoreset_mode must be AutoresetMode.NEXT_STEP or AutoresetMode.SAME_STEP"),
    ("autoreset_mode", True, "autoreset_mode must be AutoresetMode.NEXT_STEP or AutoresetMode.SAME_STEP"),
    ("options", np.array([1, 2]), "options: this env reads no reset options"),
    ("options", [1], "options: this env reads no reset options"),
])
def test_unhashable_and_array_arguments_are_refused_by_name(argument: str, value, words: str) -> None:
    game = make_game("tripoli", num_players=4)
    if argument == "autoreset_mode":
        refused(lambda: CardVectorEnv(game, 4, RandomAgent(game), autoreset_mode=value), ArgumentError, words)
        return
    env = CardVectorEnv(game, 4, RandomAgent(game))
    env.reset(seed=0)
    before = _tables(env)
    refused(lambda: env.reset(options=value), ArgumentError, words)
    assert _unchanged(env, before)
    env.reset(seed=0, options={})  # an empty dict reads nothing either


class _Counting(AgentBase):
    """Random legal moves, counting the decisions it was asked for."""

    def __init__(self, game, name: str) -> None:
        super().__init__(game)
        self.name, self.rows = name, 0

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        self.rows += mask.shape[0]
        return sample_legal(mask, rng)


def _dealt(env: CardVectorEnv) -> list[list[object]]:
    """The agent at every opponent seat of every table (None at the learner's seat)."""
    return [[None if s == env.learner[t] else env.seated[env.seat_agent[t, s]] for s in range(env.game.num_players)]
            for t in range(env.num_envs)]


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("change", ["smaller", "larger"])
def test_a_pool_change_leaves_the_tables_already_dealt_with_their_agents(mode: AutoresetMode, change: str) -> None:
    """``set_opponents`` after ``reset`` seats the new pool at tables dealt afterwards; the tables already dealt
    play their episodes out with the agents they were dealt (even ones the new pool drops), after which those agents
    are let go."""
    game = make_game("tripoli", num_players=4, num_deals=1)
    old = [_Counting(game, "a"), _Counting(game, "b")]
    new = [_Counting(game, "c")] if change == "smaller" else [_Counting(game, n) for n in "cde"]
    env = CardVectorEnv(game, 8, old if change == "smaller" else old[:1], autoreset_mode=mode)
    obs, _ = env.reset(seed=9)
    dealt = _dealt(env)
    env.set_opponents(new)
    assert env.seated[:len(new)] == new and _dealt(env) == dealt
    rng = np.random.default_rng(9)
    first_episode = np.ones(8, bool)  # tables still playing the episode dealt before the change
    rows_before = sum(a.rows for a in old)
    for _ in range(2000):
        obs, _, terms, truncs, _ = env.step(sample_legal(obs["action_mask"], rng))
        first_episode &= ~(terms | truncs)
        now = _dealt(env)
        for t in np.flatnonzero(first_episode):
            assert now[t] == dealt[t]
        if not first_episode.any():
            break
    assert not first_episode.any()
    assert sum(a.rows for a in old) > rows_before  # the old agents played on at their tables
    obs, *_ = env.step(sample_legal(obs["action_mask"], rng))  # NEXT_STEP: the last old tables are dealt again
    assert env.seated == new  # no table seats an old agent any more: they are let go
    rows_after = [a.rows for a in old]
    for _ in range(20):
        obs, *_ = env.step(sample_legal(obs["action_mask"], rng))
    assert [a.rows for a in old] == rows_after and sum(a.rows for a in new) > 0
