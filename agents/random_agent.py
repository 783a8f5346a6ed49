"""The random agent: uniform over the legal actions."""

from __future__ import annotations

import numpy as np

from envs.core.agent import AgentBase
from envs.core.game import sample_legal


class RandomAgent(AgentBase):
    """Plays a uniformly random legal action at every decision."""

    name = "random"
    version = 2
    """v2: one uniform number per decision picks among the legal actions (v1 drew one per action id)."""

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return sample_legal(mask, rng)

    def together_key(self) -> str:
        """Every random player plays alike (:mod:`agents.together`)."""
        return "random"

    def act_together(self, players: list[RandomAgent], which: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                     rng: np.random.Generator) -> np.ndarray:
        return sample_legal(mask, rng)
