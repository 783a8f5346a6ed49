"""The advisor: a hand-written bot whose choice a learning policy takes as an input.

A policy with an advisor sees, besides the observation, the action the advisor would take in the same position, as a
one-hot vector over the actions (:meth:`Advisor.inputs`). The network may follow it, weigh it against what it reads
in the observation, or ignore it: what the heuristic knows (the strength of a poker hand, a safe drop) is one input
away, where a network on the raw observation needs millions of decisions to learn it, and nothing holds the policy
to it (cardgym's first trainer added a fixed bonus to the heuristic's action instead, and its agents could move only
a little away from the heuristic). The advisor reads only the acting seat's observation and legal actions, so the
policy's view stays the seat's. A model file names its advisor; only the game's deterministic zoo bots may advise
(a file never names code to run).
"""

from __future__ import annotations

import numpy as np

from agents.registry import make_agent
from agents.zoo import bot_names
from envs.core.game import BatchedGame


def advisor_names(game: str) -> list[str]:
    """The bots that may advise a policy playing ``game``: its zoo but ``random``."""
    return [name for name in bot_names(game) if name != "random"]


class Advisor:
    """The advisor ``name`` (one of :func:`advisor_names`) of a policy playing ``game``."""

    def __init__(self, game: BatchedGame, name: str) -> None:
        if name not in advisor_names(game.name):
            raise ValueError(f"{game.name} has no advisor {name!r} (its advisors: "
                             f"{', '.join(advisor_names(game.name))})")
        self.name, self.agent, self.num_actions = name, make_agent(name, game), game.num_actions

    def inputs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``(B, D + num_actions) float32``: the observations with the one-hot of the advisor's action appended."""
        chosen = np.asarray(self.agent.act(obs, mask, np.random.default_rng(0)), dtype=np.int64)
        out = np.zeros((len(obs), obs.shape[1] + self.num_actions), np.float32)
        out[:, :obs.shape[1]] = obs
        out[np.arange(len(obs)), obs.shape[1] + chosen] = 1.0
        return out
