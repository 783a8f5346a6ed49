"""MaskablePPO training on the batched vector env: ``train(TrainConfig(...)) -> dict`` (``cardgym train`` is its CLI).

The learner sits at one seat of each of ``tables`` tables (:mod:`training.sb3_vec_env`); the other seats are played
by an opponent pool: fixed agents (``heuristic``, ``random``, ``ppo:model.zip``, ``module:Class``, mixed with weights)
and, with self-play, frozen snapshots of the learner, one added at the first periodic evaluation after every
``selfplay_every`` learner decisions. Every ``eval_every`` steps the current policy plays a duplicate tournament against
``num_players - 1`` heuristics (:func:`training.evaluate.evaluate`), scored as its *advantage*: its mean chips per deal
minus what a heuristic makes in the same seats of the same deals (a heuristic-only tournament on the same seeds), with a
95% interval over deal groups. The run stops at ``total_steps`` learner decisions or after ``time_budget`` seconds,
whichever comes first, then saves ``model.zip`` (the last policy, or with ``keep="best"`` the evaluated one
:mod:`training.keep` chooses, the last then in ``last.zip``), plays the closing table (:func:`closing_evaluation`),
and writes
``results.json`` and ``learning_curve.png`` in ``out``. TensorBoard logs go to ``out/tb``, checkpoints (resumable with
``resume=``) to ``out/checkpoints``. A checkpoint is a model file (:mod:`agents.ppo`: the policy's settings and weights,
the optimiser state, the PPO hyperparameters and step count) that also records the run's settings and its learning
curve. A resumed run continues with the checkpoint's network, optimiser state, PPO hyperparameters and step count (the
config's network and PPO settings are not used), starts its self-play pool afresh and does not imitate again."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from agents.anchor import AnchoredPolicy
from agents.heldout import heldout_specs
from agents.hints import game_hints
from agents.model_file import METADATA_NAME, ModelFileError, field, where
from agents.ppo import PPOAgent, SymlogFeatures, load_model, read_metadata
from agents.ppo import save_model as save_model_file
from agents.registry import make_agent
from agents.zoo import bot_names
from envs.core.agent import Agent
from envs.core.game import BatchedGame
from envs.registry import make_game
from training.background_eval import BackgroundEvaluator
from training.evaluate import UNITS, FieldEvaluator, fields_table
from training.imitation import imitate
from training.keep import best_point, worst_family
from training.opponent_pool import OpponentPool, parse_opponents
from training.sb3_vec_env import CardVecEnv
from training.train_config import TrainConfig


class TrainingCallback(BaseCallback):
    """Progress bar, time budget, periodic evaluation (league weights, self-play snapshots), checkpoints."""

    def __init__(self, cfg: TrainConfig, game: BatchedGame, env: CardVecEnv, pool: OpponentPool,
                 curve: list[dict[str, Any]], out: Path, started: float) -> None:
        super().__init__()
        self.t0 = started
        self.cfg, self.game, self.env, self.pool, self.curve, self.out = cfg, game, env, pool, curve, out
        self.evaluator = FieldEvaluator(game, make_agent("heuristic", game), cfg.eval_deals, cfg.seed + 1)
        self.heuristic = self.evaluator.reference
        self.history: dict[int, Agent] = {}  # learner decisions -> deterministic snapshot, one per evaluation
        self.evaluated: list[tuple[dict[str, Any], Agent]] = []  # this run's curve points and their policies
        self.next_snapshot = 0  # learner decisions at which the next self-play snapshot joins the pool
        self.returns: list[float] = []
        self.bar = None
        self.background = BackgroundEvaluator(game) if cfg.background_eval else None
        self.pending: tuple[dict[str, Any], Agent, Any] | None = None  # the evaluation the other process is playing

    def _on_training_start(self) -> None:
        self.start_steps = self.num_timesteps
        self.ppo_started = self.elapsed()
        self.next_eval = self.num_timesteps + self.cfg.eval_every
        self.next_ckpt = self.num_timesteps + self.cfg.checkpoint_every
        if self.curve:  # resumed: the curve goes on from the checkpoint's last point
            self.history[int(self.num_timesteps)] = PPOAgent.snapshot(self.game, self.model.policy, deterministic=True)
        else:  # the first point: the policy PPO starts from (imitated or random)
            self.evaluate()
        left = self.cfg.time_budget - self.elapsed() if self.cfg.time_budget else None
        self.bar = phase_bar(self.cfg, "PPO", self.cfg.total_steps - self.num_timesteps, "step", left)

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def done(self) -> float:
        """The share of the PPO phase behind us, in [0, 1]: of its learner decisions or of its time, the larger."""
        steps = (self.num_timesteps - self.start_steps) / max(self.cfg.total_steps - self.start_steps, 1)
        seconds = 0.0
        if self.cfg.time_budget:
            seconds = (self.elapsed() - self.ppo_started) / max(self.cfg.time_budget - self.ppo_started, 1e-9)
        return min(max(steps, seconds, 0.0), 1.0)

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "episode" in info:
                self.returns.append(info["episode"]["r"])
        if self.bar is not None:
            self.bar.steps(self.num_timesteps - self.start_steps)
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
                self.bar.postfix(f"chips/deal {mean:+.2f}, vs heuristic {self.last_advantage()}")
            self.returns.clear()

    def last_advantage(self) -> str:
        return f"{self.curve[-1]['advantage']:+.2f}" if self.curve else "?"

    def eval_fields(self) -> dict[str, Agent]:
        """The fields of a periodic evaluation: the heuristic's, and with the league every member of the pool."""
        fields = {"heuristic": self.heuristic}
        if self.cfg.league:
            fields.update({m.name: m.agent for m in self.pool.members})
        return fields

    def field_sources(self) -> dict[str, Any]:
        """The fields of :meth:`eval_fields` as the evaluation process builds them: a spec (a fixed member's name is
        its spec), or a self-play snapshot's agent (sent as its weights)."""
        fields: dict[str, Any] = {"heuristic": "heuristic"}
        if self.cfg.league:
            fields.update({m.name: m.agent if m.snapshot else m.name for m in self.pool.members})
        return fields

    def take(self) -> tuple[dict[str, Any], Agent]:
        """A deterministic snapshot of the current policy (kept in :attr:`history`) and when it was taken."""
        steps = int(self.num_timesteps)
        agent = PPOAgent.snapshot(self.game, self.model.policy, deterministic=True)
        self.history[steps] = agent
        return {"steps": steps, "seconds": round(self.elapsed(), 1),
                "train_chips_per_deal": float(np.mean(self.returns)) if self.returns else None}, agent

    def evaluate(self) -> None:
        """Score the current policy in each evaluation field, here or (``background_eval``) in the evaluation
        process, whose previous results are collected first; add a self-play snapshot when one is due."""
        taken, agent = self.take()
        steps = taken["steps"]
        if self.background is None:
            self.record(taken, agent, self.evaluator(agent, self.eval_fields(), "ppo"))
        else:
            self.collect()
            self.pending = (taken, agent, self.background.submit(agent, self.field_sources(), self.cfg.eval_deals,
                                                                 self.cfg.seed + 1))
        if self.cfg.selfplay and steps >= self.next_snapshot:
            self.pool.add_snapshot(f"self@{steps}", agent)
            self.logger.record("selfplay/snapshots", len(self.pool.snapshots))
            self.next_snapshot = steps + self.cfg.selfplay_every
        self.env.set_opponents([m.agent for m in self.pool.members], self.pool.weights(self.cfg.league),
                               self.cfg.whole_table)

    def final_evaluation(self) -> None:
        """The last point of the curve, the final policy's: evaluated here while the evaluation process finishes the
        previous one (collected first, so the curve stays in order)."""
        taken, agent = self.take()
        rows = self.evaluator(agent, self.eval_fields(), "ppo")
        self.collect()
        self.record(taken, agent, rows)
        self.env.set_opponents([m.agent for m in self.pool.members], self.pool.weights(self.cfg.league),
                               self.cfg.whole_table)

    def collect(self) -> None:
        """Record the evaluation the evaluation process is playing, if any (waiting for it)."""
        if self.pending is not None:
            taken, agent, future = self.pending
            self.pending = None
            self.record(taken, agent, [row for row, _ in future.result()])

    def record(self, taken: dict[str, Any], agent: Agent, results: list[Any]) -> None:
        """Add an evaluation's point to the curve (``taken``: when its policy was taken) and give the league its rows
        (the env gets the new weights from the caller)."""
        rows = {r.field: r for r in results}
        heuristic = rows["heuristic"]
        score = min(r.advantage for r in rows.values())  # the worst field: the goal is to beat the heuristic in all
        point = {"steps": taken["steps"], "seconds": taken["seconds"], "advantage": heuristic.advantage,
                 "ci95": heuristic.ci95, "score": score, "train_chips_per_deal": taken["train_chips_per_deal"]}
        if self.cfg.league:
            point["fields"] = {k: {"advantage": r.advantage, "ci95": r.ci95, "ahead": r.ahead, "won": r.won}
                               for k, r in rows.items()}
        self.curve.append(point)
        self.evaluated.append((point, agent))
        self.logger.record("eval/advantage_vs_heuristic", heuristic.advantage)
        self.logger.record("eval/advantage_ci95", heuristic.ci95)
        self.logger.record("eval/worst_field_advantage", score)
        if self.cfg.league:
            self.pool.set_ahead({k: r.ahead if self.cfg.league_by == "stakes" else r.won for k, r in rows.items()})
            weights = self.pool.weights(league=True)
            point["weights"] = {m.name: round(w, 4) for m, w in zip(self.pool.members, weights, strict=True)}
            for name, w in point["weights"].items():
                self.logger.record(f"league/{name}", w)

    def checkpoint(self) -> None:
        path = self.out / "checkpoints" / f"step_{self.num_timesteps}.zip"
        save_model(self.model, path, self.game, self.cfg, self.curve)

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close(f"PPO: {self.num_timesteps - self.start_steps:,} learner decisions in "
                           f"{time.perf_counter() - self.bar.t0:.0f} s")


def policy_shape(cfg: TrainConfig) -> dict[str, Any]:
    """The policy's shape for ``cfg``: :class:`agents.ppo.SymlogFeatures` (with the game's hints if asked for), the
    hidden layers and, for an anchored policy (:class:`agents.anchor.AnchoredPolicy`), its anchor."""
    features: dict[str, Any] = {"features_dim": cfg.features_dim}
    if cfg.hints:
        features["hints"] = game_hints(cfg.game)
    anchored = {"anchor": cfg.anchor, "anchor_weight": cfg.anchor_weight,
                "anchor_kind_weights": dict(cfg.anchor_kind_weights)} if cfg.anchor else {}
    return {**anchored, "features_extractor_class": SymlogFeatures, "features_extractor_kwargs": features,
            "net_arch": list(cfg.net_arch)}


def closing_sources(cfg: TrainConfig, game: BatchedGame, history: dict[int, Agent]) -> dict[str, str | Agent]:
    """The fields of the closing table, name → agent spec, or the agent of a snapshot of the learner: ``cfg.fields``
    (``zoo``: every bot of the game's zoo; ``heldout``: the styles of :mod:`agents.heldout`, which no training pool
    names) and up to ``cfg.snapshot_fields`` earlier snapshots of the learner, ``self@<steps>``: the policy PPO started
    from, then snapshots evenly spaced in steps up to half-way (the closest evaluated ones)."""
    sources: dict[str, str | Agent] = {}
    for item in cfg.fields.split(","):
        item = item.strip()
        if item == "zoo":
            sources.update({name: name for name in bot_names(game.name)})
        elif item == "heldout":
            sources.update({f"heldout:{name}": spec for name, spec in heldout_specs(game.name).items()})
        elif item:
            sources[item] = item
    steps = sorted(history)
    if cfg.snapshot_fields and steps:
        last = steps[-1]
        targets = [steps[0] + (last / 2 - steps[0]) * k / max(cfg.snapshot_fields - 1, 1)
                   for k in range(cfg.snapshot_fields)]
        for t in targets:
            at = min(steps, key=lambda s, t=t: abs(s - t))
            sources.setdefault(f"self@{at}", history[at])
    return sources


def closing_fields(cfg: TrainConfig, game: BatchedGame, history: dict[int, Agent]) -> dict[str, Agent]:
    """The fields of :func:`closing_sources`, built (an unknown spec raises ``ValueError``)."""
    return built(closing_sources(cfg, game, history), game)


def built(sources: dict[str, str | Agent], game: BatchedGame) -> dict[str, Agent]:
    """``sources`` with every spec made an agent."""
    return {name: make_agent(source, game) if isinstance(source, str) else source for name, source in sources.items()}


def closing_evaluation(cfg: TrainConfig, game: BatchedGame, agent: Agent, history: dict[int, Agent],
                       pool_names: list[str], imitated: str | None, background: BackgroundEvaluator | None = None
                       ) -> tuple[list[Any], dict[str, Any], dict[str, str]]:
    """The closing table: the trained ``agent``'s advantage over the heuristic in every field of
    :func:`closing_fields` (``cfg.final_deals`` duplicate deals each); returns its rows, each field's full results
    and a note per field (in the training pool, imitated, an earlier snapshot, or never seen). With ``background``
    (:mod:`training.background_eval`), every other field is played in its process meanwhile, with the same results."""
    closing = FieldEvaluator(game, make_agent("heuristic", game), cfg.final_deals, cfg.seed + 2)
    sources = closing_sources(cfg, game, history)
    fields = built(sources, game)
    away = list(fields)[1::2] if background is not None else []
    sent = background.submit(agent, {name: sources[name] for name in away}, cfg.final_deals, cfg.seed + 2) \
        if away else None
    played = {name: closing.field(agent, name, field_agent, "ppo") for name, field_agent in fields.items()
              if name not in away}
    if sent is not None:
        played.update(zip(away, sent.result(), strict=True))
    rows = [played[name][0] for name in fields]
    final = {name: played[name][1] for name in fields}
    seen = dict.fromkeys(pool_names, "in the training pool")
    if imitated:
        seen.setdefault(imitated, "imitated")
    notes = {r.field: "earlier snapshot" if r.field.startswith("self@") else seen.get(r.field, "never seen")
             for r in rows}
    return rows, final, notes


def keep_policy(cfg: TrainConfig, model: MaskablePPO, callback: TrainingCallback, out: Path) -> dict[str, Any]:
    """Put the policy ``cfg.keep`` chooses among this run's evaluations (:mod:`training.keep`) into ``model``; with
    ``best``, first save the final policy as ``out/last.zip`` (the file to resume from). Returns what was kept: the
    rule, the evaluation's learner decisions and its worst family's advantage, and whether it is the last policy."""
    points = [point for point, _ in callback.evaluated]
    index = len(points) - 1 if cfg.keep == "last" else best_point(points, callback.start_steps)
    if cfg.keep == "best":
        save_model(model, out / "last.zip", callback.game, cfg, callback.curve)
    if index != len(points) - 1:
        model.policy.load_state_dict(callback.evaluated[index][1].policy.state_dict())
    return {"rule": cfg.keep, "steps": points[index]["steps"], "worst_family": worst_family(points[index]),
            "is_last": index == len(points) - 1}


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


def plot_curve(curve: list[dict[str, Any]], path: Path, title: str, unit: str = "chips",
               kept: int | None = None) -> Path:
    """Learning curve: advantage over the heuristic in its own field (95% band) and the training return, against
    steps; with the league a second panel shows the advantage in every field of the pool (symmetric log scale).
    ``kept``: the learner decisions of the kept policy, if not the last (a dotted line in each panel)."""
    from matplotlib.figure import Figure  # its own figure: the process's backend is left alone (notebooks)

    steps = np.array([p["steps"] for p in curve], dtype=float) / 1e6
    adv = np.array([p["advantage"] for p in curve])
    half = np.array([p["ci95"] for p in curve])
    train = np.array([np.nan if p["train_chips_per_deal"] is None else p["train_chips_per_deal"] for p in curve])
    names = list(dict.fromkeys(k for p in curve for k in p.get("fields", {})))
    fig = Figure(figsize=(12 if names else 7, 4))
    axes = fig.subplots(1, 2 if names else 1, squeeze=False)
    ax = axes[0, 0]
    ax.plot(steps, adv, "o-", color="tab:blue", label=f"eval: {unit}/deal minus the heuristic's in the same seats")
    ax.fill_between(steps, adv - half, adv + half, color="tab:blue", alpha=0.2, label="95% interval")
    ax.plot(steps, train, ".--", color="tab:orange", label=f"training: {unit}/deal against the opponent pool")
    ax.axhline(0, color="black", linewidth=0.8)
    if kept is not None:
        ax.axvline(kept / 1e6, color="gray", linestyle=":", label="the kept policy (--keep best)")
    ax.set_xlabel("learner decisions (millions)")
    ax.set_ylabel(f"{unit} per deal")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    if names:
        ax = axes[0, 1]
        for name in names:
            ax.plot(steps, [p.get("fields", {}).get(name, {}).get("advantage", np.nan) for p in curve], ".-",
                    label=name)
        ax.axhline(0, color="black", linewidth=0.8)
        if kept is not None:
            ax.axvline(kept / 1e6, color="gray", linestyle=":")
        ax.set_yscale("symlog", linthresh=1.0 if unit == "chips" else 0.05)
        ax.set_xlabel("learner decisions (millions)")
        ax.set_ylabel(f"advantage over the heuristic, {unit}/deal")
        ax.set_title("advantage in each field of the pool (league evaluations)", fontsize=9)
        ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    return path


class PhaseBar:
    """One progress bar for a phase of training, whose total is what will stop it: the steps (``unit``) to make, or,
    when a time budget is set, the seconds the phase may take (then the steps made show beside it)."""

    def __init__(self, name: str, steps: int, unit: str, seconds: float | None) -> None:
        from tqdm import tqdm

        self.t0, self.seconds, self.unit = time.perf_counter(), seconds, unit
        if seconds is None:
            self.bar = tqdm(total=steps, unit=unit, unit_scale=True, dynamic_ncols=True, desc=name)
        else:
            self.bar = tqdm(total=round(seconds), unit="s", dynamic_ncols=True, desc=f"{name} (time budget)",
                            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} s{postfix}")
        self.made, self.note = 0, ""

    def steps(self, made: int) -> None:
        """``made`` steps so far in this phase."""
        self.made = made
        if self.seconds is None:
            self.bar.update(made - self.bar.n)
        else:
            self.bar.update(min(round(time.perf_counter() - self.t0), self.bar.total) - self.bar.n)
            self.bar.set_postfix_str(f"{made:,} {self.unit}s{', ' + self.note if self.note else ''}", refresh=False)

    def chunk(self, done: int, stats: dict[str, float]) -> None:
        """An imitation chunk is done (the ``log`` of :func:`training.imitation.imitate`)."""
        self.steps(done)
        self.postfix(f"accuracy {stats['accuracy']:.3f}")

    def postfix(self, text: str) -> None:
        self.note = text
        self.bar.set_postfix_str(text if self.seconds is None else f"{self.made:,} {self.unit}s, {text}")

    def close(self, line: str) -> None:
        self.bar.close()
        print(line, flush=True)


class AnnealedRate:
    """The learning rate of :attr:`TrainConfig.anneal_lr`: ``rate`` until the last ``share`` of the PPO phase
    (:meth:`TrainingCallback.done`), then falling linearly to 0 at its end; in place of SB3's schedule, which counts
    against ``total_steps`` only and so would not move in a run that its time budget stops."""

    def __init__(self, rate: float, share: float, callback: TrainingCallback) -> None:
        self.rate, self.share, self.callback = rate, share, callback

    def __call__(self, _progress_remaining: float) -> float:
        return self.rate * min(1.0, (1.0 - self.callback.done()) / self.share)


def phase_bar(cfg: TrainConfig, name: str, steps: int, unit: str, seconds: float | None) -> PhaseBar | None:
    """The bar of a phase, or ``None`` without ``cfg.progress``; it says what will end the phase."""
    if not cfg.progress:
        return None
    print(f"{name}: {'at most ' + format(steps, ',') + ' ' + unit + 's' if steps else ''}"
          + (f" within {seconds / 60:.1f} min" if seconds else ""), flush=True)
    return PhaseBar(name, steps, unit, seconds)


def train(cfg: TrainConfig) -> dict[str, Any]:
    """Run the training of ``cfg``; returns (and writes to ``out/results.json``) the results."""
    if cfg.threads:
        th.set_num_threads(cfg.threads)
    t0 = time.perf_counter()
    game = make_game(cfg.game, num_players=cfg.players, **cfg.options)
    pool = OpponentPool(parse_opponents(cfg.opponents, game), cfg.selfplay_share, cfg.max_snapshots,
                        cfg.league_floor, cfg.league_power)
    closing_fields(cfg, game, {})  # refuse an unknown field now, not after the training
    env = CardVecEnv(game, cfg.tables, [m.agent for m in pool.members], pool.priors(), seed=cfg.seed,
                     reward_scale=cfg.reward_scale, whole_table=cfg.whole_table)
    out = Path(cfg.out)  # created once the settings and a resumed model are known to be good (below)
    curve: list[dict[str, Any]] = []
    if cfg.resume:
        model = load_model(cfg.resume, game, env, seed=cfg.seed, tensorboard_log=str(out / "tb"))
        curve = read_curve(cfg.resume)
    else:
        model = MaskablePPO(
            AnchoredPolicy if cfg.anchor else "MlpPolicy", env, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
            batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda,
            ent_coef=cfg.ent_coef, clip_range=cfg.clip_range, seed=cfg.seed, device="cpu",
            tensorboard_log=str(out / "tb"), policy_kwargs=policy_shape(cfg),
        )
        if cfg.anchor:
            model.policy.attach(game)
    out.mkdir(parents=True, exist_ok=True)  # after the resumed model is read: a bad file leaves nothing behind
    imitation = {}
    if cfg.imitate and not cfg.resume:
        deadline = t0 + cfg.time_budget / 2 if cfg.time_budget else None  # at most half the budget
        bar = phase_bar(cfg, "imitation", cfg.imitate, "decision", None if deadline is None else deadline - t0)
        imitation = imitate(model.policy, game, make_agent(cfg.imitate_teacher, game), cfg.imitate, cfg.seed,
                            cfg.reward_scale, tables=cfg.imitate_tables, epochs=cfg.imitate_epochs, deadline=deadline,
                            log=None if bar is None else bar.chunk)
        if bar is not None:
            bar.close(f"imitation: {imitation['decisions']:,} teacher decisions in {time.perf_counter() - t0:.0f} s, "
                      f"{imitation['accuracy']:.1%} of its actions matched")
    callback = TrainingCallback(cfg, game, env, pool, curve, out, t0)
    if cfg.anneal_lr:
        model.lr_schedule = AnnealedRate(cfg.learning_rate, cfg.anneal_lr, callback)
    model.learn(total_timesteps=cfg.total_steps, callback=callback, reset_num_timesteps=not cfg.resume,
                tb_log_name="ppo")
    train_seconds = time.perf_counter() - t0
    callback.final_evaluation()  # the last point of the curve: the final policy
    kept = keep_policy(cfg, model, callback, out)
    model_path = save_model(model, out / "model.zip", game, cfg, curve)
    agent = PPOAgent(game, model_path)
    n = game.num_players
    t1 = time.perf_counter()
    if cfg.progress:
        print(f"closing evaluation: the advantage over the heuristic in every field, {cfg.final_deals:,} duplicate "
              "deals each …", flush=True)
    try:
        rows, final, notes = closing_evaluation(cfg, game, agent, callback.history, [m.name for m in pool.fixed],
                                                cfg.imitate_teacher if imitation else None, callback.background)
    finally:
        if callback.background is not None:
            callback.background.close()
    heuristic = next((r for r in rows if r.field == "heuristic"), None)
    results = {
        "config": dataclasses.asdict(cfg),
        "steps": int(model.num_timesteps),
        "train_seconds": round(train_seconds, 1),
        "steps_per_second": round((model.num_timesteps - callback.start_steps) / train_seconds),
        "imitation": imitation,
        "skipped_deals": env.skipped_deals,
        "opponent_pool": [m.name for m in pool.members],
        "opponent_weights": [round(w, 4) for w in env.weights.tolist()],
        "fields": [{**r.to_dict(), "seen": notes[r.field]} for r in rows],
        "beats_heuristic_in_every_field": all(r.beats for r in rows),
        "closing_seconds": round(time.perf_counter() - t1, 1),
        "final": {k: v.to_dict() for k, v in final.items()},
        "curve": curve,
        "model": str(model_path),
        "kept": kept,
    }
    if heuristic is not None:
        results["advantage_vs_heuristic"] = {"mean": heuristic.advantage, "ci95": heuristic.ci95,
                                             "deals": heuristic.deals, "beats_heuristic": heuristic.beats}
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    plot_curve(curve, out / "learning_curve.png",
               f"{cfg.game}, {n} players: MaskablePPO against {cfg.opponents}" + (" + self-play" if cfg.selfplay
                                                                                 else "")
               + (" (league)" if cfg.league else "")
               + (f", after cloning the {cfg.imitate_teacher}" if imitation else ""), UNITS.get(game.name, "reward"),
               kept=None if kept["is_last"] else kept["steps"])
    env.close()
    table = fields_table(rows, UNITS.get(game.name, "reward"), "ppo", notes=notes)
    return {**results, "final_results": final, "table": table}
