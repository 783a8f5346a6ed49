"""Training throughput: MaskablePPO on the batched vector env against MaskablePPO on SB3's ``DummyVecEnv`` of
single-table gymnasium envs over the PettingZoo face (same game, same opponents, same policy, same PPO settings).

    python -m benchmarks.train_throughput --game tripoli --players 4 --tables 256 --steps 8192

Measures learner decisions per second of ``model.learn`` (rollouts and updates: what training costs) and then of
the rollouts alone (the policy acting, no updates); with ``--rllib-runners N …`` also RLlib's PPO (``cardgym train
--engine rllib:N``: the same tables, policy layers and PPO settings) on a local Ray with N env runners each (Ray's
start-up and the algorithm's build timed apart), and writes
``train_throughput_<game>.json`` in ``runs/benchmarks/`` (``--commit``: ``benchmarks/results/``).
:class:`SingleAgentTable` is the baseline: one table of
``envs.<game>_v1.env`` whose other seats are played by the opponent agent one decision at a time, as a
single-agent gymnasium env with ``action_masks()``.
"""

from __future__ import annotations

import importlib
import platform
import time
from typing import Any

import gymnasium as gym
import numpy as np
import torch as th
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import CallbackList
from stable_baselines3.common.vec_env import DummyVecEnv

from agents.ppo import SymlogFeatures
from agents.registry import make_agent
from benchmarks import results_dir, write_result
from benchmarks.arguments import (
    add_commit,
    add_game,
    add_players,
    add_seed,
    benchmark_parser,
    check_agents,
    checked_games,
)
from envs.core.agent import Agent
from envs.registry import env_version, make_game
from training.cli_args import count
from training.config import MAX_ENV_RUNNERS
from training.limits import MAX_STEPS, MAX_TABLES, MAX_THREADS
from training.sb3_vec_env import CardVecEnv


class SingleAgentTable(gym.Env):
    """One PettingZoo table as a single-agent env: the learner's seat is drawn from the reset seed, the other seats
    are played by ``opponent``; the reward is the learner's chip change since its last decision."""

    metadata = {"render_modes": []}

    def __init__(self, game_name: str, players: int, opponent: str, seed: int = 0) -> None:
        self.aec = importlib.import_module(f"envs.{env_version(game_name)}").env(num_players=players)
        self.game = self.aec.unwrapped.game
        self.opponent: Agent = make_agent(opponent, self.game)
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (self.game.observation_size,), np.float32)
        self.action_space = gym.spaces.Discrete(self.game.num_actions)
        self.rng = np.random.default_rng(seed)
        self.next_seed = seed * 1_000_003

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.next_seed, self.rng = seed, np.random.default_rng(seed)
        while True:
            self.aec.reset(seed=self.next_seed)
            self.learner = f"player_{self.next_seed % self.game.num_players}"
            self.next_seed += 1
            self.pending = 0.0
            if self._play_opponents():
                return self._obs(), {}

    def _play_opponents(self) -> bool:
        """Opponents act until the learner's turn (True) or the end of the episode (False)."""
        while True:
            self.pending += self.aec.rewards[self.learner]
            if self.aec.terminations[self.learner] or self.aec.truncations[self.learner]:
                return False
            agent = self.aec.agent_selection
            if agent == self.learner:
                return True
            o = self.aec.observe(agent)
            action = self.opponent.act(o["observation"][None], o["action_mask"][None].astype(bool), self.rng)[0]
            self.aec.step(int(action))

    def _obs(self) -> np.ndarray:
        return self.aec.observe(self.learner)["observation"]

    def action_masks(self) -> np.ndarray:
        return self.aec.observe(self.learner)["action_mask"].astype(bool)

    def step(self, action):
        self.aec.step(int(action))
        live = self._play_opponents()
        reward, self.pending = self.pending, 0.0
        if not live:
            return self._obs(), reward, bool(self.aec.terminations[self.learner]), \
                bool(self.aec.truncations[self.learner]), {}
        return self._obs(), reward, False, False, {}


def make_model(env, seed: int) -> MaskablePPO:
    """MaskablePPO with the policy of cardgym's model files (:class:`agents.ppo.SymlogFeatures`, 256 → 128)."""
    return MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=2048, n_epochs=4, learning_rate=5e-4, gamma=1.0,
                       seed=seed, device="cpu", verbose=0,
                       policy_kwargs={"features_extractor_class": SymlogFeatures,
                                      "features_extractor_kwargs": {"features_dim": 256}, "net_arch": [128]})


def measure(env, steps: int, seed: int) -> dict[str, float]:
    """Learner decisions per second of ``learn`` (from the first reset) and of rollouts alone (after it)."""
    model = make_model(env, seed)
    rollout = model.n_steps * env.num_envs
    t0 = time.perf_counter()
    model.learn(steps)
    learn = time.perf_counter() - t0
    cb = CallbackList([])
    cb.init_callback(model)
    t0 = time.perf_counter()
    for _ in range(max(1, steps // rollout)):
        model.collect_rollouts(model.env, cb, model.rollout_buffer, model.n_steps)
    collect = time.perf_counter() - t0
    return {"learn_steps_per_s": steps / learn, "rollout_steps_per_s": max(1, steps // rollout) * rollout / collect,
            "learn_seconds": learn}


def measure_rllib(game_name: str, players: int, opponent: str, tables: int, steps: int, seed: int,
                  runners: int) -> dict[str, float]:
    """Learner decisions per second of RLlib's PPO training iterations (the first one, which warms up, excluded)
    with the settings of ``cardgym train --engine rllib``, on a local Ray with ``runners`` env runners."""
    import ray

    from training.config import PPOConfig, TrainConfig
    from training.rllib_train import rllib_config

    cfg = TrainConfig(game=game_name, players=players, opponents=opponent, seed=seed, engine=f"rllib:{runners}",
                      ppo=PPOConfig(tables=tables, rollout_steps=32, minibatch_size=2048, epochs=4,
                                    learning_rate=5e-4))
    t0 = time.perf_counter()
    ray.init(include_dashboard=False, log_to_driver=False)
    try:
        algo = rllib_config(cfg).build_algo()
        startup = time.perf_counter() - t0
        done = int(algo.train()["env_runners"]["num_env_steps_sampled_lifetime"])
        t1, first = time.perf_counter(), done
        while done - first < steps:
            done = int(algo.train()["env_runners"]["num_env_steps_sampled_lifetime"])
        learn = time.perf_counter() - t1
        algo.stop()
    finally:
        ray.shutdown()
    return {"learn_steps_per_s": (done - first) / learn, "learn_seconds": learn, "startup_seconds": startup,
            "env_runners": runners}


def run(game_name: str, players: int, opponent: str, tables: int, steps: int, seed: int, threads: int,
        rllib_runners: tuple[int, ...] = ()) -> dict:
    th.set_num_threads(threads)
    game = make_game(game_name, num_players=players)
    batched = CardVecEnv(game, tables, make_agent(opponent, game), seed=seed, reward_scale=0.1)
    dummy = DummyVecEnv([lambda i=i: SingleAgentTable(game_name, players, opponent, seed + i) for i in range(tables)])
    result = {
        "benchmark": "train_throughput",
        "game": game_name,
        "players": players,
        "opponent": opponent,
        "tables": tables,
        "steps": steps,
        "torch_threads": threads,
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, python {platform.python_version()}",
        "batched_vector_env": measure(batched, steps, seed),
        "dummy_vec_env_pettingzoo": measure(dummy, steps, seed),
    }
    b, d = result["batched_vector_env"], result["dummy_vec_env_pettingzoo"]
    result["speedup_learn"] = b["learn_steps_per_s"] / d["learn_steps_per_s"]
    result["speedup_rollout"] = b["rollout_steps_per_s"] / d["rollout_steps_per_s"]
    for runners in rllib_runners:
        result[f"rllib_{runners}_runners"] = measure_rllib(game_name, players, opponent, tables, steps, seed, runners)
    return result


def main(argv: list[str] | None = None) -> None:
    p = benchmark_parser("train_throughput", __doc__)
    add_game(p, "tripoli")
    add_players(p)
    p.add_argument("--opponent", default="heuristic", help="the agent at the other seats (default heuristic)")
    p.add_argument("--tables", type=count(MAX_TABLES), default=256,
                   help="tables of the batched env = envs of the DummyVecEnv (default 256)")
    p.add_argument("--steps", type=count(MAX_STEPS), default=8192,
                   help="learner decisions timed (whole rollouts of tables x 32; default 8192)")
    add_seed(p, 0, "seed of the tables and the learners")
    p.add_argument("--threads", type=count(MAX_THREADS), default=1, help="torch threads (as cardgym train; default 1)")
    p.add_argument("--rllib-runners", type=count(MAX_ENV_RUNNERS), nargs="*", default=[], metavar="N",
                   help="also time RLlib's PPO (cardgym train --engine rllib:N) with N env runners, for each N given")
    p.add_argument("--note", default="", help="a note stored with the result (e.g. the machine's load)")
    add_commit(p)
    args = p.parse_args(argv)
    check_agents(p, "--opponent", [args.opponent], checked_games(p, [args.game], args.players).values())
    result = run(args.game, args.players, args.opponent, args.tables, args.steps, args.seed, args.threads,
                 tuple(args.rllib_runners))
    if args.note:
        result["note"] = args.note
    path = write_result(result, results_dir(args.commit) / f"train_throughput_{args.game}.json")
    print(f"{args.game}, {args.players} players, {args.tables} tables, opponents {args.opponent}:")
    rows = (("batched vector env", "batched_vector_env"), ("DummyVecEnv (AEC) ", "dummy_vec_env_pettingzoo"))
    for label, key in rows:
        r = result[key]
        print(f"  {label}: learn {r['learn_steps_per_s']:>8,.0f} steps/s   rollouts {r['rollout_steps_per_s']:>8,.0f}")
    for runners in args.rllib_runners:
        r = result[f"rllib_{runners}_runners"]
        print(f"  RLlib, {runners} env runner(s): learn {r['learn_steps_per_s']:>8,.0f} steps/s   "
              f"(Ray start-up and build {r['startup_seconds']:.0f} s)")
    print(f"  speed-up: learn x{result['speedup_learn']:.1f}, rollouts x{result['speedup_rollout']:.1f}  -> {path}")


if __name__ == "__main__":
    main()
