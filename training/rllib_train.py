"""``cardgym train --engine rllib``: RLlib's PPO (new API stack) on the Gymnasium vector face, for training across
machines (install the extra: ``pip install -e ".[rllib]"``).

Each RLlib env runner (``engine = "rllib:N"``: N of them) builds one :class:`envs.vector.CardVectorEnv` of
``tables / N`` tables (RLlib's single-agent runner takes a ready vector env with
``gym_env_vectorize_mode="vector_entry_point"``; its multi-agent runners would step one env per table in Python): one
learner seat per table, the fixed agents of ``opponents`` at the others, drawn by their weights. The policy is
:class:`training.rllib_module.MaskedSymlogModule`, the layers of the learner's network (:mod:`training.actor_critic`);
at the end its weights are written as an ordinary cardgym model file (``out/model.zip``), which ``cardgym eval``,
``play`` and ``league`` load, and the same closing table as the cardgym engine's is printed. Ray runs locally unless
``RAY_ADDRESS`` names a cluster (``ray start --head`` on one machine, ``ray start --address=HEAD:6379`` on the
others); the env runners then spread over the cluster's CPUs. This engine runs plain PPO: the imitation, the magnet,
the snapshots, the league weights and resuming are the cardgym learner's (:func:`ignored` names those a config asks
for).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.ppo import PPOAgent, save_policy
from envs.registry import make_game
from envs.vector import CardVectorEnv
from training.actor_critic import new_policy
from training.closing import closing_fields, closing_table
from training.config import TrainConfig
from training.opponent_pool import parse_opponents

ENV_NAME = "cardgym-vector"
"""The name :func:`make_env` is registered under with RLlib."""


def ignored(cfg: TrainConfig) -> list[str]:
    """The settings of ``cfg`` only the cardgym learner uses, where they ask for something."""
    asked = {"imitate": cfg.imitate, "magnet": cfg.magnet, "eval_every": cfg.eval_every,
             "exploiters": cfg.exploiters, "resume": cfg.resume,
             "the learner's and snapshots' seats in opponents": cfg.seats.learner or cfg.seats.snapshots,
             "advisor": cfg.advisor,
             "ppo.advice_gain": cfg.ppo.advice_gain}
    return [name for name, value in asked.items() if value]


def make_env(ctx: dict[str, Any]) -> CardVectorEnv:
    """RLlib's vector entry point: the vector env of one env runner (``ctx``: the env config plus ``num_envs``)."""
    game = make_game(ctx["game"], num_players=ctx["players"])
    members = parse_opponents(ctx["opponents"], game)
    return CardVectorEnv(game, int(ctx.get("num_envs", 1)), [m.agent for m in members],
                         [m.weight for m in members], reward_scale=ctx["reward_scale"])


def rllib_config(cfg: TrainConfig) -> Any:
    """The ``PPOConfig`` of a run (its ``engine`` is ``rllib`` or ``rllib:N``)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from training.rllib_module import MaskedSymlogModule

    p = cfg.ppo
    runners = cfg.env_runners
    per_runner = max(p.tables // runners, 1)
    batch = per_runner * runners * p.rollout_steps
    register_env(ENV_NAME, make_env)
    return (
        PPOConfig()
        .environment(env=ENV_NAME, env_config={"game": cfg.game, "players": cfg.players,
                                               "opponents": cfg.opponents, "reward_scale": p.reward_scale})
        .env_runners(num_env_runners=runners, num_envs_per_env_runner=per_runner,
                     gym_env_vectorize_mode="vector_entry_point", rollout_fragment_length=p.rollout_steps)
        .training(lr=p.learning_rate, gamma=p.gamma, lambda_=p.gae_lambda, clip_param=p.clip_coef,
                  entropy_coeff=p.ent_coef, vf_loss_coeff=p.vf_coef, grad_clip=p.max_grad_norm,
                  train_batch_size_per_learner=batch, minibatch_size=min(p.minibatch_size, batch),
                  num_epochs=p.epochs)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedSymlogModule, model_config={
            "features_dim": p.features_dim, "net_arch": list(p.net_arch)}))
        .debugging(seed=cfg.seed)
    )


def export_model(module: Any, cfg: TrainConfig, path: Path, extra: dict[str, Any]) -> Path:
    """Write the trained RLlib ``module`` as a cardgym model file: the learner's network of the same layers
    (:func:`training.actor_critic.new_policy`) receives its weights and is saved by :func:`agents.ppo.save_policy`."""
    game = make_game(cfg.game, num_players=cfg.players)
    policy = new_policy(game, cfg.ppo.features_dim, tuple(cfg.ppo.net_arch), cfg.seed)
    for name in ("features_extractor", "mlp_extractor", "action_net", "value_net"):
        getattr(policy, name).load_state_dict(getattr(module, name).state_dict())
    return save_policy(policy, path, game, extra)


def train_rllib(cfg: TrainConfig) -> dict[str, Any]:
    """Train ``cfg`` (its ``engine`` ``rllib`` or ``rllib:N``) with RLlib's PPO; returns (and writes to
    ``out/results.json``) the results."""
    import ray

    from training.evaluate import UNITS, fields_table

    t0 = time.perf_counter()
    game = make_game(cfg.game, num_players=cfg.players)
    pool = [m.name for m in parse_opponents(cfg.opponents, game)]  # refuse a bad pool before starting Ray
    closing_fields(game)
    out = cfg.folder
    address = os.environ.get("RAY_ADDRESS")
    ray.init(address=address or None, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True,
             runtime_env=None if address is None else {"working_dir": str(Path(__file__).parent.parent)})
    try:
        algo = rllib_config(cfg).build_algo()
        startup_seconds = time.perf_counter() - t0
        t0 = time.perf_counter()  # the time budget counts training, not Ray's start-up (reported apart)
        steps, iterations, curve = 0, 0, []
        while iterations == 0 or (steps < cfg.decisions
                                  and (not cfg.minutes or time.perf_counter() - t0 < cfg.minutes * 60)):
            result = algo.train()
            iterations += 1
            steps = int(result.get("num_env_steps_sampled_lifetime", 0)
                        or result.get("env_runners", {}).get("num_env_steps_sampled_lifetime", 0))
            episode_return = result.get("env_runners", {}).get("episode_return_mean")
            curve.append({"steps": steps, "seconds": round(time.perf_counter() - t0, 1),
                          "episode_return_mean": None if episode_return is None or np.isnan(episode_return)
                          else float(episode_return)})
            print(f"rllib iteration {iterations}: {steps:,} learner decisions, {time.perf_counter() - t0:.0f} s, "
                  f"mean episode return {episode_return}", flush=True)
        train_seconds = time.perf_counter() - t0
        module = algo.get_module()
        out.mkdir(parents=True, exist_ok=True)
        model_path = export_model(module, cfg, out / "model.zip",
                                  {"train": {"config": dataclasses.asdict(cfg), "decisions": steps},
                                   "engine": "rllib"})
        algo.stop()
    finally:
        ray.shutdown()
    rows, notes = closing_table(game, PPOAgent(game, model_path), cfg.final_deals, cfg.seed, pool) \
        if cfg.final_deals else ([], {})
    results = {
        "engine": "rllib",
        "env_runners": cfg.env_runners,
        "ray_address": address,
        "config": dataclasses.asdict(cfg),
        "decisions": steps,
        "iterations": iterations,
        "startup_seconds": round(startup_seconds, 1),
        "train_seconds": round(train_seconds, 1),
        "decisions_per_second": round(steps / train_seconds) if train_seconds else None,
        "fields": [{**r.to_dict(), "seen": notes[r.field]} for r in rows],
        "beats_heuristic_in_every_field": bool(rows) and all(r.beats for r in rows),
        "rllib_curve": curve,
        "model": str(model_path),
    }
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    table = fields_table(rows, UNITS.get(game.name, "reward"), "trained", notes=notes) if rows else ""
    return {**results, "table": table}
