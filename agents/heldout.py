"""Held-out styles: opponents the training pool never names, for the closing table's "never seen" fields.

A trained agent that beats the heuristic only against the bots it trained with has learned to exploit them, not
to play the game. These styles are built from the zoo's bots but play differently from every one of them, and
``cardgym train`` adds them to its closing table (``--fields zoo,heldout``) without ever putting them in the pool:

- ``noisy``: the heuristic, but one decision in four is a uniformly random legal action (a careless player);
- ``mixed``: at each decision a different zoo bot decides, drawn uniformly (no consistent style to read).
"""

from __future__ import annotations

import numpy as np

from agents.base import AgentBase
from agents.registry import make_agent
from agents.zoo import bot_names
from envs.core.game import BatchedGame, sample_legal


class NoisyHeuristic(AgentBase):
    """The heuristic, with a uniformly random legal action at a quarter of its decisions."""

    name = "noisy"
    epsilon = 0.25

    def __init__(self, game: BatchedGame) -> None:
        super().__init__(game)
        self.base = make_agent("heuristic", game)

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        actions = np.asarray(self.base.act(obs, mask, rng)).copy()
        careless = rng.random(len(actions)) < self.epsilon
        actions[careless] = sample_legal(mask[careless], rng)
        return actions


class MixedZoo(AgentBase):
    """At each decision one of the zoo's non-random bots, drawn uniformly, chooses the action."""

    name = "mixed"

    def __init__(self, game: BatchedGame) -> None:
        super().__init__(game)
        self.bots = [make_agent(name, game) for name in bot_names(game.name) if name != "random"]

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        who = rng.integers(len(self.bots), size=len(obs))
        actions = np.zeros(len(obs), np.int64)
        for k in np.unique(who).tolist():
            rows = np.flatnonzero(who == k)
            actions[rows] = self.bots[k].act(obs[rows], mask[rows], rng)
        return actions


HELD_OUT = {"noisy": "agents.heldout:NoisyHeuristic", "mixed": "agents.heldout:MixedZoo"}
"""Held-out field name → the agent spec that builds it."""
