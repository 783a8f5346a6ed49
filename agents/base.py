"""The agent protocol: batched decisions from observations and legal-action masks only (never the state).

An agent is built for one game core (``Agent(game)``: it may read the game's ``num_players``, ``config`` and
documented observation layout) and answers ``act(obs, mask, rng)`` for a batch of tables at once:
``obs`` is ``(B, game.observation_size) float32`` (each row the observation of the seat to act), ``mask`` is
``(B, game.num_actions) bool`` and the result is ``(B,) int64`` legal action ids.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from envs.core.game import BatchedGame


@runtime_checkable
class Agent(Protocol):
    """What every agent provides."""

    name: str
    """Short name for tables and plots, e.g. ``"heuristic"``."""

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One legal action per row."""
        ...


class AgentBase:
    """Convenience base class: keeps the game and checks nothing else."""

    name = "agent"

    def __init__(self, game: BatchedGame) -> None:
        self.game = game
