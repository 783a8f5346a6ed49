"""MaskablePPO training on the batched vector env: ``train(TrainConfig(...)) -> dict`` (``cardgym train`` is its CLI).

The learner sits at one seat of each of ``tables`` tables (:class:`envs.vector.CardVecEnv`); the other seats are
played by an opponent pool: fixed agents (``heuristic``, ``random``, ``ppo:model.zip``, ``module:Class``, mixed with
weights) and, with self-play, frozen snapshots of the learner, one added each time the periodic evaluation beats the
best score so far. Every ``eval_every`` steps the current policy plays a duplicate tournament against
``num_players - 1`` heuristics (:func:`training.evaluate.evaluate`), scored as its *advantage*: its mean chips per
deal minus what a heuristic makes in the same seats of the same deals (a heuristic-only tournament on the same
seeds), with a 95% interval over deal groups. The run stops at ``total_steps`` learner decisions or after
``time_budget`` seconds, whichever comes first, then saves ``model.zip``, evaluates against random and heuristic
opponents, and writes ``results.json`` and ``learning_curve.png`` in ``out``. TensorBoard logs go to ``out/tb``,
checkpoints (resumable with ``resume=``) to ``out/checkpoints``. A checkpoint is a model file (:mod:`agents.ppo`:
the policy's settings and weights, the optimiser state, the PPO hyperparameters and step count) that also records the
run's settings and its learning curve. A resumed run continues with the checkpoint's network, optimiser state, PPO
hyperparameters and step count (the config's network and PPO settings are not used), starts its self-play pool afresh
and does not imitate again.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from agents.base import Agent
from agents.model_file import METADATA_NAME, ModelFileError, field, where
from agents.ppo import PPOAgent, SymlogFeatures, load_model, read_metadata
from agents.ppo import save_model as save_model_file
from agents.registry import AgentSpecError, make_agent
from envs.core.game import BatchedGame
from envs.registry import make_game
from envs.vector import CardVecEnv
from training.evaluate import EvalResult, advantage, evaluate
from training.imitation import imitate
from training.train_config import TrainConfig


def parse_opponents(spec: str, game: BatchedGame) -> tuple[list[Agent], list[float]]:
    """``"heuristic=3,random=1"`` → agents and weights (weight 1 when not given)."""
    agents, weights = [], []
    for item in spec.split(","):
        item = item.strip()
        name, weight = item, 1.0
        if "=" in item:
            name, _, w = item.rpartition("=")
            try:
                weight = float(w)
            except ValueError:
                raise AgentSpecError(f"opponent {item!r}: the weight after '=' must be a number") from None
            if not weight >= 0:
                raise AgentSpecError(f"opponent {item!r}: the weight must be non-negative")
        agents.append(make_agent(name, game))
        weights.append(weight)
    if not agents or sum(weights) <= 0:
        raise AgentSpecError(f"opponents {spec!r}: need at least one agent with a positive weight")
    return agents, weights


class Advantage:
    """Paired comparison of a candidate with the heuristic in the same seats of the same duplicate deals."""

    def __init__(self, game: BatchedGame, deals: int, seed: int) -> None:
        self.game, self.deals, self.seed = game, deals, seed
        self.heuristic = make_agent("heuristic", game)
        self.baseline = evaluate(game, [self.heuristic] * game.num_players, deals=deals, seed=seed)

    def __call__(self, agent: Agent, name: str = "ppo") -> tuple[EvalResult, float, float]:
        """The tournament of ``agent`` against heuristics and its advantage (mean, 95% half-width) in chips/deal."""
        n = self.game.num_players
        result = evaluate(self.game, [agent] + [self.heuristic] * (n - 1), deals=self.deals, seed=self.seed,
                          names=[name] + ["heuristic"] * (n - 1))
        return result, *advantage(result, self.baseline)


class TrainingCallback(BaseCallback):
    """Progress bar, time budget, periodic evaluation (and self-play snapshots), checkpoints."""

    def __init__(self, cfg: TrainConfig, game: BatchedGame, env: CardVecEnv, base: tuple[list[Agent], list[float]],
                 curve: list[dict[str, Any]], out: Path, started: float) -> None:
        super().__init__()
        self.t0 = started
        self.cfg, self.game, self.env, self.base, self.curve, self.out = cfg, game, env, base, curve, out
        self.advantage = Advantage(game, cfg.eval_deals, cfg.seed + 1)
        self.snapshots: list[Agent] = []
        self.best = max((p["advantage"] for p in curve), default=-math.inf)
        self.returns: list[float] = []
        self.bar = None

    def _on_training_start(self) -> None:
        self.start_steps = self.num_timesteps
        self.next_eval = self.num_timesteps + self.cfg.eval_every
        self.next_ckpt = self.num_timesteps + self.cfg.checkpoint_every
        if not self.curve:  # the first point: the untrained policy
            self.evaluate()
        if self.cfg.progress:
            from tqdm import tqdm

            self.bar = tqdm(total=self.cfg.total_steps, initial=self.num_timesteps, unit="step", unit_scale=True,
                            dynamic_ncols=True, desc="train")

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "episode" in info:
                self.returns.append(info["episode"]["r"])
        if self.bar is not None:
            self.bar.update(self.num_timesteps - self.bar.n)
        if self.num_timesteps >= self.next_eval:
            self.evaluate()
            self.next_eval += self.cfg.eval_every
        if self.num_timesteps >= self.next_ckpt:
            self.checkpoint()
            self.next_ckpt += self.cfg.checkpoint_every
        return not (self.cfg.time_budget and self.elapsed() >= self.cfg.time_budget)

    def _on_rollout_end(self) -> None:
        if self.returns:
            mean = float(np.mean(self.returns))
            self.logger.record("train/chips_per_deal", mean)
            if self.bar is not None:
                budget = f"/{self.cfg.time_budget / 60:.0f}" if self.cfg.time_budget else ""
                self.bar.set_postfix_str(f"{self.elapsed() / 60:.1f}{budget} min, chips/deal {mean:+.2f}, "
                                         f"vs heuristic {self.last_advantage()}")
            self.returns.clear()

    def last_advantage(self) -> str:
        return f"{self.curve[-1]['advantage']:+.2f}" if self.curve else "?"

    def evaluate(self) -> None:
        agent = PPOAgent.snapshot(self.game, self.model.policy, deterministic=True)
        _, adv, half = self.advantage(agent)
        point = {"steps": int(self.num_timesteps), "seconds": round(self.elapsed(), 1), "advantage": adv,
                 "ci95": half, "train_chips_per_deal": float(np.mean(self.returns)) if self.returns else None}
        self.curve.append(point)
        self.logger.record("eval/advantage_vs_heuristic", adv)
        self.logger.record("eval/advantage_ci95", half)
        if self.cfg.selfplay and adv > self.best:
            self.snapshots = (self.snapshots + [PPOAgent.snapshot(self.game, self.model.policy)])[
                -self.cfg.max_snapshots:]
            agents, weights = self.base
            share = self.cfg.selfplay_share
            w = [x * (1 - share) / sum(weights) for x in weights] + [share / len(self.snapshots)] * len(self.snapshots)
            self.env.set_opponents(agents + self.snapshots, w)
            self.logger.record("selfplay/snapshots", len(self.snapshots))
        self.best = max(self.best, adv)

    def checkpoint(self) -> None:
        path = self.out / "checkpoints" / f"step_{self.num_timesteps}.zip"
        save_model(self.model, path, self.game, self.cfg, self.curve)

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


def save_model(model: MaskablePPO, path: Path, game: BatchedGame, cfg: TrainConfig, curve: list) -> Path:
    """Save ``model`` as a model file (:func:`agents.ppo.save_model`) that also records the run's settings and its
    learning curve so far."""
    return save_model_file(model, path, game, {"train_config": dataclasses.asdict(cfg), "curve": curve})


CURVE_FIELDS = {"steps": ("non-negative integer", False), "seconds": ("non-negative number", False),
                "advantage": ("finite number", False), "ci95": ("non-negative number or Infinity", False),
                "train_chips_per_deal": ("finite number", True)}
"""The entries of a learning-curve point (kind, and whether null is allowed)."""


def read_curve(path: str | Path) -> list[dict[str, Any]]:
    """The learning curve a checkpoint records, checked point by point (raises :class:`ModelFileError`)."""
    curve = read_metadata(path).get("curve", [])
    if not isinstance(curve, list):
        raise ModelFileError(f"{where(path)}: {METADATA_NAME} curve must be a list of points")
    for i, point in enumerate(curve):
        if not isinstance(point, dict):
            raise ModelFileError(f"{where(path)}: {METADATA_NAME} curve[{i}] must be a JSON object")
        for key, (kind, optional) in CURVE_FIELDS.items():
            field(point, key, kind, path, f"curve[{i}]", optional)
    return curve


def plot_curve(curve: list[dict[str, Any]], path: Path, title: str) -> Path:
    """Learning curve: advantage over the heuristic (95% band) and training chips per deal, against steps."""
    from matplotlib.figure import Figure  # its own figure: the process's backend is left alone (notebooks)

    steps = np.array([p["steps"] for p in curve], dtype=float) / 1e6
    adv = np.array([p["advantage"] for p in curve])
    half = np.array([p["ci95"] for p in curve])
    train = np.array([np.nan if p["train_chips_per_deal"] is None else p["train_chips_per_deal"] for p in curve])
    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    ax.plot(steps, adv, "o-", color="tab:blue", label="eval: chips/deal minus heuristic's in the same seats")
    ax.fill_between(steps, adv - half, adv + half, color="tab:blue", alpha=0.2, label="95% interval")
    ax.plot(steps, train, ".--", color="tab:orange", label="training: chips/deal against the opponent pool")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("learner decisions (millions)")
    ax.set_ylabel("chips per deal")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    return path


def train(cfg: TrainConfig) -> dict[str, Any]:
    """Run the training of ``cfg``; returns (and writes to ``out/results.json``) the results."""
    if cfg.threads:
        th.set_num_threads(cfg.threads)
    t0 = time.perf_counter()
    game = make_game(cfg.game, num_players=cfg.players, **cfg.options)
    base = parse_opponents(cfg.opponents, game)
    out = Path(cfg.out)  # created once the settings and a resumed model are known to be good (below)
    env = CardVecEnv(game, cfg.tables, base[0], base[1], seed=cfg.seed, reward_scale=cfg.reward_scale)
    curve: list[dict[str, Any]] = []
    if cfg.resume:
        model = load_model(cfg.resume, game, env, seed=cfg.seed, tensorboard_log=str(out / "tb"))
        curve = read_curve(cfg.resume)
    else:
        model = MaskablePPO(
            "MlpPolicy", env, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps, batch_size=cfg.batch_size,
            n_epochs=cfg.n_epochs, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, ent_coef=cfg.ent_coef,
            clip_range=cfg.clip_range, seed=cfg.seed, device="cpu", tensorboard_log=str(out / "tb"),
            policy_kwargs={"features_extractor_class": SymlogFeatures,
                           "features_extractor_kwargs": {"features_dim": cfg.features_dim},
                           "net_arch": list(cfg.net_arch)},
        )
    out.mkdir(parents=True, exist_ok=True)  # after the resumed model is read: a bad file leaves nothing behind
    imitation = {}
    if cfg.imitate and not cfg.resume:
        deadline = t0 + cfg.time_budget / 2 if cfg.time_budget else None  # at most half the budget
        imitation = imitate(model.policy, game, make_agent(cfg.imitate_teacher, game), cfg.imitate, cfg.seed,
                            cfg.reward_scale, tables=cfg.imitate_tables, epochs=cfg.imitate_epochs, deadline=deadline,
                            log=print if cfg.progress else None)
    callback = TrainingCallback(cfg, game, env, base, curve, out, t0)
    model.learn(total_timesteps=cfg.total_steps, callback=callback, reset_num_timesteps=not cfg.resume,
                tb_log_name="ppo")
    train_seconds = time.perf_counter() - t0
    callback.evaluate()  # the last point of the curve: the final policy
    model_path = save_model(model, out / "model.zip", game, cfg, curve)
    agent = PPOAgent(game, model_path)
    n = game.num_players
    final = {}
    final["heuristic"], adv, half = Advantage(game, cfg.final_deals, cfg.seed + 2)(agent)
    final["random"] = evaluate(game, [agent] + [make_agent("random", game)] * (n - 1), deals=cfg.final_deals,
                               seed=cfg.seed + 2, names=["ppo"] + ["random"] * (n - 1))
    results = {
        "config": dataclasses.asdict(cfg),
        "steps": int(model.num_timesteps),
        "train_seconds": round(train_seconds, 1),
        "steps_per_second": round((model.num_timesteps - callback.start_steps) / train_seconds),
        "imitation": imitation,
        "skipped_deals": env.skipped_deals,
        "opponent_pool": [getattr(a, "name", type(a).__name__) for a in env.opponents],
        "advantage_vs_heuristic": {"mean": adv, "ci95": half, "deals": cfg.final_deals,
                                   "beats_heuristic": bool(adv - half > 0)},
        "final": {k: v.to_dict() for k, v in final.items()},
        "curve": curve,
        "model": str(model_path),
    }
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    plot_curve(curve, out / "learning_curve.png",
               f"{cfg.game}, {n} players: MaskablePPO against {cfg.opponents}" + (" + self-play" if cfg.selfplay
                                                                                 else "")
               + (f", after cloning the {cfg.imitate_teacher}" if imitation else ""))
    env.close()
    return {**results, "final_results": final}
