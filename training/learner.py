"""The PPO learner (in development, not yet ``cardgym train``): ``learn(LearnerConfig(...)) -> dict``.

A CleanRL-style loop over the batched core: collect ``rollout_steps`` decisions at each of ``tables`` tables, where
every learner seat plays the one shared policy (:mod:`training.rollout`); estimate advantages along each seat's own
trajectory (:mod:`training.advantages`); run the clipped PPO update with the magnet's KL term
(:mod:`training.ppo_update`, :mod:`training.magnet`); repeat until ``total_decisions`` learner decisions. The
magnet starts as ``magnet`` (an agent, e.g. the heuristic) and, with ``magnet_every``, is replaced by a frozen
snapshot of the learner every that many decisions (the decisions carried over the change keep the reference
they were made with). The policy is a cardgym model file's network (:mod:`training.actor_critic`), saved as
``out/model.zip`` that ``ppo:`` loads.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from pathlib import Path
from typing import Any

import torch as th

from agents.ppo import save_policy
from agents.registry import make_agent
from envs.registry import make_game
from training.actor_critic import new_policy
from training.advantages import seat_gae
from training.magnet import AgentMagnet, Magnet, PolicyMagnet
from training.ppo_update import PPOSettings, to_batch, update
from training.rollout import Rollout
from training.stopwatch import Stopwatch


@dataclasses.dataclass
class LearnerConfig:
    """One learner run, declared once."""

    game: str = "tripoli"
    """Game to train on (``tripoli``, ``triolet``, ``flipflop``)."""
    players: int = 4
    """Seats at each table."""
    tables: int = 1024
    """Tables stepped at once."""
    rollout_steps: int = 16
    """Decisions per table between updates (a batch is about ``tables * rollout_steps`` decisions)."""
    total_decisions: int = 1_000_000
    """Learner decisions to train on (the budget)."""
    opponents: str = ""
    """Comma-separated agent specs that may take seats (``random``, ``heuristic``, ``ppo:model.zip``); ``""``: none."""
    opponent_share: float = 0.0
    """Chance that a seat of a new table is an opponent's rather than a learner's (0: every seat learns)."""
    magnet: str = "heuristic"
    """Agent spec of the first reference policy of the KL term; ``""``: no magnet."""
    magnet_stay: float = 0.9
    """Probability the reference puts on the magnet agent's action (the rest spread over the other legal ones)."""
    magnet_coef: float = 0.1
    """Weight of KL(policy || reference) in the loss."""
    magnet_every: int = 0
    """Learner decisions between replacing the reference by a snapshot of the learner (0: never)."""
    learning_rate: float = 3e-4
    """Adam's learning rate."""
    epochs: int = 4
    """Passes over each batch."""
    minibatch_size: int = 4096
    """Decisions per gradient step (about)."""
    gamma: float = 1.0
    """Discount per decision of a seat."""
    gae_lambda: float = 0.95
    """GAE's lambda."""
    clip_coef: float = 0.2
    """PPO's ratio clip."""
    ent_coef: float = 0.003
    """Weight of the entropy bonus."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradient norm clip."""
    reward_scale: float = 0.1
    """Rewards are chips times this."""
    sparse_inputs: bool = True
    """Act and train on sparse rows of the observations (:mod:`training.sparse_rows`; the same numbers, fewer
    multiplications)."""
    features_dim: int = 256
    """Width of the shared input layer."""
    net_arch: tuple[int, ...] = (128,)
    """Hidden layers of each head."""
    seed: int = 0
    """Seed of the weights, the tables and the samples."""
    threads: int = 1
    """Torch threads (more than 1 on a busy machine only with ``OMP_WAIT_POLICY=PASSIVE``: waiting threads spin)."""
    out: str = ""
    """Folder for ``model.zip``; ``""``: save nothing."""

    def __post_init__(self) -> None:
        if self.tables < 1 or self.rollout_steps < 1 or self.minibatch_size < 2 or self.epochs < 1:
            raise ValueError("tables, rollout_steps and epochs must be at least 1, minibatch_size at least 2")
        if self.magnet_every and not self.magnet:
            raise ValueError("magnet_every replaces a magnet: give the first one (magnet=...)")


def reference(cfg: LearnerConfig, game: Any) -> Magnet | None:
    """The first magnet of ``cfg``."""
    return AgentMagnet(make_agent(cfg.magnet, game), cfg.magnet_stay) if cfg.magnet else None


def learn(cfg: LearnerConfig) -> dict[str, Any]:
    """Train per ``cfg``; returns the learner decisions made, the time taken (wall and CPU), where it went
    (:class:`~training.stopwatch.Stopwatch` sections), the curve (one point per update) and the model's path."""
    th.set_num_threads(cfg.threads)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    watch = Stopwatch()
    with watch("setup"):
        game = make_game(cfg.game, num_players=cfg.players)
        policy = new_policy(game, cfg.features_dim, tuple(cfg.net_arch), cfg.seed)
        opponents = [make_agent(spec.strip(), game) for spec in cfg.opponents.split(",") if spec.strip()]
        magnet = reference(cfg, game)
        rollout = Rollout(game, cfg.tables, cfg.rollout_steps, policy, opponents=opponents,
                          opponent_share=cfg.opponent_share, magnet=magnet, reward_scale=cfg.reward_scale,
                          sparse=cfg.sparse_inputs, seed=cfg.seed, stopwatch=watch)
    settings = PPOSettings(cfg.learning_rate, cfg.epochs, cfg.minibatch_size, cfg.clip_coef, cfg.ent_coef,
                           cfg.vf_coef, cfg.max_grad_norm, cfg.magnet_coef if magnet else 0.0)
    generator = th.Generator().manual_seed(cfg.seed + 1)
    decisions, next_magnet, curve = 0, cfg.magnet_every, []
    while decisions < cfg.total_decisions:
        rows = rollout.collect()
        with watch("advantages and batch"):
            arrays = rows.arrays()
            adv, resolved = seat_gae(arrays["reward"], arrays["value"], arrays["done"], arrays["next"], cfg.gamma,
                                     cfg.gae_lambda)
            batch = to_batch(arrays, adv, resolved, cfg.sparse_inputs)
        with watch("PPO update"):
            stats = update(policy, batch, settings, generator)
        decisions += rows.size - rollout.carried
        returns = rollout.take_returns()
        curve.append({"decisions": decisions, "batch": len(batch),
                      "chips_per_episode": float(returns.mean()) if returns.size else None,
                      **{k: round(v, 5) for k, v in stats.items()}})
        if cfg.magnet_every and next_magnet <= decisions < cfg.total_decisions:
            snapshot = copy.deepcopy(policy)
            snapshot.set_training_mode(False)
            rollout.magnet = PolicyMagnet(snapshot, f"snapshot@{decisions}")
            next_magnet += cfg.magnet_every
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    results: dict[str, Any] = {
        "config": dataclasses.asdict(cfg), "decisions": decisions, "updates": len(curve),
        "wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
        "decisions_per_second": round(decisions / wall), "decisions_per_cpu_second": round(decisions / cpu),
        "time": watch.table(), "magnet": rollout.magnet.name if rollout.magnet else None, "curve": curve,
    }
    if cfg.out:
        path = save_policy(policy, Path(cfg.out) / "model.zip", game,
                           {"learner": {"config": dataclasses.asdict(cfg), "decisions": decisions,
                                        "updates": len(curve)}})
        results["model"] = str(path)
    return results
