"""The magnet: a reference policy the learner is pulled towards by a KL term (magnetic mirror descent, R-NaD).

The PPO loss gains ``coef * KL(policy || reference)`` over the legal actions of each decision (:func:`magnet_kl`):
0 where the policy equals the reference, and its gradient moves the policy towards it. The reference starts as a
fixed agent's play (:class:`AgentMagnet`: the heuristic's action with probability ``stay``, the rest spread over the
other legal actions, so the KL stays finite when the policy leaves the heuristic) and may be replaced by a frozen
snapshot of the learner (:class:`PolicyMagnet`), so the agent starts where the heuristic is and is free to leave it.

An agent magnet's reference needs the acting seat's observation: the rollout records it once per learner decision,
when it is made (:meth:`AgentMagnet.log_probs`). A policy magnet is a snapshot of the learner, so it takes the
learner's own inputs: its reference is computed for a whole batch at once, in the update's thread
(:meth:`PolicyMagnet.log_probs`). Either way a minibatch never recomputes the reference.
"""

from __future__ import annotations

import numpy as np
import torch as th

from envs.core.agent import Agent, call_agent
from training.actor_critic import ILLEGAL, logits_and_values, masked_log_probs
from training.sparse_rows import SparseRows


class AgentMagnet:
    """An agent's play as a distribution: ``stay`` on the action it takes, ``1 - stay`` shared equally by the other
    legal actions (all of it on the one action where only one is legal)."""

    def __init__(self, agent: Agent, stay: float) -> None:
        if not 0.0 < stay < 1.0:
            raise ValueError(f"the magnet's stay must be in (0, 1), got {stay!r}")
        self.agent, self.stay = agent, float(stay)
        self.name = getattr(agent, "name", type(agent).__name__)

    def log_probs(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``(B, num_actions) float32`` log-probabilities in each row (``obs``: the acting seat's observations,
        ``mask``: its legal actions); about :data:`~training.actor_critic.ILLEGAL` off the legal actions."""
        chosen = np.asarray(call_agent(self.agent, obs, mask, rng), dtype=np.int64)
        rows = np.arange(len(chosen))
        others = mask.sum(axis=1) - 1
        spread = np.log((1.0 - self.stay) / np.maximum(others, 1)).astype(np.float32)
        out = np.where(mask, spread[:, None], np.float32(ILLEGAL)).astype(np.float32)
        out[rows, chosen] = np.where(others > 0, np.log(self.stay), 0.0)
        return out


class PolicyMagnet:
    """A frozen copy of the learner's policy (a snapshot): its masked softmax over the learner's own inputs."""

    def __init__(self, policy: th.nn.Module, name: str) -> None:
        self.policy, self.name = policy, name

    def log_probs(self, x: th.Tensor | SparseRows, mask: th.Tensor) -> th.Tensor:
        """``(B, num_actions)`` log-probabilities of the snapshot for the learner's inputs ``x``
        (:func:`~training.actor_critic.inputs` of the observations with the advice: the snapshot has the learner's
        shape and advisor, so they are its inputs too; dense, or the rows of a batch) and legal actions ``mask``."""
        with th.inference_mode():
            logits, _ = logits_and_values(self.policy, x.matrix() if isinstance(x, SparseRows) else x)
            return masked_log_probs(logits, mask)


def magnet_kl(probs: th.Tensor, log_probs: th.Tensor, reference: th.Tensor, mask: th.Tensor) -> th.Tensor:
    """``(B,)`` KL(policy || reference) over the legal actions of each row, from the policy's probabilities and
    log-probabilities ``(B, A)`` (masked: :func:`~training.actor_critic.mask_logits`) and the reference's
    log-probabilities."""
    terms = probs * (log_probs - reference)
    return th.where(mask, terms, th.zeros_like(terms)).sum(dim=1)
