"""The settings of a training run (:mod:`training.train`), kept free of heavy imports so the CLI starts fast."""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass
class TrainConfig:
    """Everything a training run depends on (``results.json`` records it)."""

    game: str = "tripoli"
    """Game name (envs.registry)."""
    players: int = 4
    """Table size."""
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    """Rule options of the game (its config dataclass)."""
    opponents: str = "heuristic"
    """Opponent pool: comma-separated agent specs, each optionally ``spec=weight`` (``heuristic=3,random=1``)."""
    selfplay: bool = False
    """Add frozen snapshots of the learner to the opponent pool as its evaluation improves."""
    selfplay_share: float = 0.5
    """With self-play: the share of opponent seats given to the snapshots."""
    max_snapshots: int = 5
    """With self-play: snapshots kept (the oldest is dropped)."""
    imitate: int = 1_500_000
    """Teacher decisions to clone before PPO (training.imitation; at most half the time budget; 0: start PPO from
    a random policy)."""
    imitate_teacher: str = "heuristic"
    """The agent cloned by the imitation warm start."""
    imitate_epochs: int = 3
    """Passes over each chunk of demonstrations."""
    imitate_tables: int = 1024
    """Games played at once for each chunk of demonstrations (about 40 decisions each in 4-player Tripoli)."""
    total_steps: int = 50_000_000
    """Learner decisions to train for (the time budget usually stops the run first)."""
    time_budget: float = 600.0
    """Seconds of training, imitation included (the final evaluation comes on top); 0 for no limit."""
    seed: int = 0
    """Seed of the tables, the network initialisation and the evaluations."""
    out: str = "runs/tripoli"
    """Output folder."""
    tables: int = 1024
    """Tables stepped at once (the VecEnv's num_envs)."""
    n_steps: int = 16
    """Learner decisions per table per rollout (rollout size = tables * n_steps)."""
    batch_size: int = 4096
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 1.0
    """No discount: a deal is short and its chips are what counts."""
    gae_lambda: float = 0.95
    ent_coef: float = 0.003
    clip_range: float = 0.2
    reward_scale: float = 0.1
    """Rewards handed to PPO are chips times this."""
    features_dim: int = 256
    """Units of the input layer shared by the policy and the value network (agents.ppo.SymlogFeatures)."""
    net_arch: tuple[int, ...] = (128,)
    """Hidden layers of the policy head and of the value head, after the shared input layer."""
    eval_every: int = 100_000
    """Learner decisions between evaluations against the heuristic."""
    eval_deals: int = 2_000
    """Deals of each periodic evaluation."""
    final_deals: int = 20_000
    """Deals of each final evaluation."""
    checkpoint_every: int = 500_000
    """Learner decisions between checkpoints."""
    resume: str | None = None
    """A checkpoint (or model) to continue from."""
    threads: int = 1
    """torch threads (0: torch's default; one is faster on a busy 2-core machine)."""
    progress: bool = True
    """Show a progress bar."""
