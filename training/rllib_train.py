"""``cardgym train --engine rllib``: RLlib's PPO (new API stack) on the Gymnasium vector face, for training across
machines (install the extra: ``pip install -e ".[rllib]"``).

Each RLlib env runner builds one :class:`envs.vector.CardVectorEnv` of ``tables / env_runners`` tables (RLlib's
single-agent runner takes a ready vector env with ``gym_env_vectorize_mode="vector_entry_point"``; its multi-agent
runners would step one env per table in Python), with the opponent pool of ``--opponents`` inside. The policy is
:class:`training.rllib_module.MaskedSymlogModule`, the layers of the SB3 policy of ``cardgym train``; at the end its
weights are written as an ordinary cardgym model file (``out/model.zip``), which ``cardgym eval``, ``play`` and
``league`` load, and the same closing table as the SB3 engine's is printed. Ray runs locally unless ``RAY_ADDRESS``
names a cluster (``ray start --head`` on one machine, ``ray start --address=HEAD:6379`` on the others); the env
runners then spread over the cluster's CPUs. Not supported with this engine: imitation, self-play snapshots and the
league re-weighting (options of the SB3 engine).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.ppo import PPOAgent
from agents.ppo import save_model as save_model_file
from envs.registry import make_game
from envs.vector import CardVectorEnv
from training.opponent_pool import parse_opponents
from training.sb3_vec_env import CardVecEnv
from training.train import policy_shape
from training.train_config import TrainConfig

ENV_NAME = "cardgym-vector"
"""The name :func:`make_env` is registered under with RLlib."""
UNSUPPORTED = {"selfplay": False, "league": False, "resume": None, "anneal_lr": 0.0, "keep": "last",
               "background_eval": False}
"""Options of the SB3 engine this engine refuses (imitation is skipped: ``--imitate 0`` is implied)."""


def make_env(ctx: dict[str, Any]) -> CardVectorEnv:
    """RLlib's vector entry point: the vector env of one env runner (``ctx``: the env config plus ``num_envs``)."""
    game = make_game(ctx["game"], num_players=ctx["players"], **ctx["options"])
    members = parse_opponents(ctx["opponents"], game)
    return CardVectorEnv(game, int(ctx.get("num_envs", 1)), [m.agent for m in members],
                         [m.weight for m in members], reward_scale=ctx["reward_scale"],
                         whole_table=ctx["whole_table"])


def rllib_config(cfg: TrainConfig, env_runners: int) -> Any:
    """The ``PPOConfig`` of a run."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from training.rllib_module import MaskedSymlogModule

    runners = max(env_runners, 1)
    per_runner = max(cfg.tables // runners, 1)
    batch = per_runner * runners * cfg.n_steps
    register_env(ENV_NAME, make_env)
    return (
        PPOConfig()
        .environment(env=ENV_NAME, env_config={
            "game": cfg.game, "players": cfg.players, "options": dict(cfg.options), "opponents": cfg.opponents,
            "reward_scale": cfg.reward_scale, "whole_table": cfg.whole_table})
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=per_runner,
                     gym_env_vectorize_mode="vector_entry_point", rollout_fragment_length=cfg.n_steps)
        .training(lr=cfg.learning_rate, gamma=cfg.gamma, lambda_=cfg.gae_lambda, clip_param=cfg.clip_range,
                  entropy_coeff=cfg.ent_coef, train_batch_size_per_learner=batch,
                  minibatch_size=min(cfg.batch_size, batch), num_epochs=cfg.n_epochs)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedSymlogModule, model_config={
            **policy_shape(cfg)["features_extractor_kwargs"], "net_arch": list(cfg.net_arch)}))
        .debugging(seed=cfg.seed)
    )


def export_model(module: Any, cfg: TrainConfig, path: Path, steps: int, extra: dict[str, Any]) -> Path:
    """Write the trained RLlib ``module`` as a cardgym model file: an SB3 MaskablePPO of the same layers and
    settings receives its weights and is saved by :func:`agents.ppo.save_model`."""
    from sb3_contrib import MaskablePPO

    game = make_game(cfg.game, num_players=cfg.players, **cfg.options)
    env = CardVecEnv(game, 1, [m.agent for m in parse_opponents("random", game)])
    model = MaskablePPO("MlpPolicy", env, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
                        batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda,
                        ent_coef=cfg.ent_coef, clip_range=cfg.clip_range, seed=cfg.seed, device="cpu",
                        policy_kwargs=policy_shape(cfg))
    policy = model.policy
    for name in ("features_extractor", "mlp_extractor", "action_net", "value_net"):
        getattr(policy, name).load_state_dict(getattr(module, name).state_dict())
    model.num_timesteps = steps
    return save_model_file(model, path, game, extra)


def train_rllib(cfg: TrainConfig, env_runners: int | None = None) -> dict[str, Any]:
    """Train ``cfg`` with RLlib's PPO; returns (and writes to ``out/results.json``) the results."""
    if cfg.anchor:
        raise ValueError("an anchored policy (anchor=...) trains with engine sb3 only")
    import ray

    from training.evaluate import UNITS, fields_table
    from training.train import closing_evaluation, closing_fields

    env_runners = cfg.env_runners if env_runners is None else env_runners
    for key, default in UNSUPPORTED.items():
        if getattr(cfg, key) != default:
            raise ValueError(f"--engine rllib does not support --{key.replace('_', '-')} (use the sb3 engine)")
    t0 = time.perf_counter()
    game = make_game(cfg.game, num_players=cfg.players, **cfg.options)
    parse_opponents(cfg.opponents, game)  # refuse a bad pool before starting Ray
    closing_fields(cfg, game, {})
    out = Path(cfg.out)
    address = os.environ.get("RAY_ADDRESS")
    ray.init(address=address or None, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True,
             runtime_env=None if address is None else {"working_dir": str(Path(__file__).parent.parent)})
    try:
        algo = rllib_config(cfg, env_runners).build_algo()
        startup_seconds = time.perf_counter() - t0
        t0 = time.perf_counter()  # the time budget counts training, not Ray's start-up (reported apart)
        steps, iterations, curve = 0, 0, []
        while iterations == 0 or (steps < cfg.total_steps
                                  and (not cfg.time_budget or time.perf_counter() - t0 < cfg.time_budget)):
            result = algo.train()
            iterations += 1
            steps = int(result.get("num_env_steps_sampled_lifetime", 0)
                        or result.get("env_runners", {}).get("num_env_steps_sampled_lifetime", 0))
            episode_return = result.get("env_runners", {}).get("episode_return_mean")
            curve.append({"steps": steps, "seconds": round(time.perf_counter() - t0, 1),
                          "episode_return_mean": None if episode_return is None or np.isnan(episode_return)
                          else float(episode_return)})
            if cfg.progress:
                print(f"rllib iteration {iterations}: {steps:,} learner decisions, "
                      f"{time.perf_counter() - t0:.0f} s, mean episode return {episode_return}", flush=True)
        train_seconds = time.perf_counter() - t0
        module = algo.get_module()
        out.mkdir(parents=True, exist_ok=True)
        model_path = export_model(module, cfg, out / "model.zip", steps,
                                  {"train_config": dataclasses.asdict(cfg), "engine": "rllib", "curve": []})
        algo.stop()
    finally:
        ray.shutdown()
    agent = PPOAgent(game, model_path)
    rows, final, notes = closing_evaluation(cfg, game, agent, {}, [m.name for m in parse_opponents(cfg.opponents,
                                                                                                     game)], None)
    results = {
        "engine": "rllib",
        "env_runners": env_runners,
        "ray_address": address,
        "config": dataclasses.asdict(cfg),
        "steps": steps,
        "iterations": iterations,
        "startup_seconds": round(startup_seconds, 1),
        "train_seconds": round(train_seconds, 1),
        "steps_per_second": round(steps / train_seconds) if train_seconds else None,
        "fields": [{**r.to_dict(), "seen": notes[r.field]} for r in rows],
        "beats_heuristic_in_every_field": all(r.beats for r in rows),
        "final": {k: v.to_dict() for k, v in final.items()},
        "rllib_curve": curve,
        "model": str(model_path),
    }
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    table = fields_table(rows, UNITS.get(game.name, "reward"), "ppo", notes=notes)
    return {**results, "final_results": final, "table": table}
