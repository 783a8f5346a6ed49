"""The example agent of docs/agents.md: random legal moves at Tripoli, but it folds rather than call more than 2."""

import numpy as np

from envs.core.game import sample_legal
from envs.tripoli.observation import OFFSETS, SCALARS

TO_CALL = OFFSETS["scalars"][0] + SCALARS.index("to_call")  # "chips I must add to call" (envs/tripoli_v1.py)


class CautiousAgent:
    name = "cautious"

    def __init__(self, game):
        if game.name != "tripoli":
            raise ValueError(f"CautiousAgent plays tripoli, not {game.name}")
        self.fold = game.action_id("fold")

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        actions = sample_legal(mask, rng)  # one random legal action per row (table)
        expensive = mask[:, self.fold] & (obs[:, TO_CALL] > 2)
        actions[expensive] = self.fold
        return actions
