"""The clipped PPO update on a batch of learner decisions (CleanRL's ``ppo.py`` loss), with masked logits and the
magnet's KL term (:mod:`training.magnet`).

For each minibatch: the probability ratio of the taken actions under the current and the sampling policy, the
clipped surrogate on advantages normalised within the minibatch, the value loss against the GAE returns
(unclipped, as stable-baselines3 does by default), an entropy bonus and ``magnet_coef`` times the mean
KL(policy || reference); one Adam step on the policy's own optimiser after clipping the gradient norm.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from training.actor_critic import inputs, logits_and_values, masked_log_probs
from training.magnet import magnet_kl


@dataclasses.dataclass
class Batch:
    """Learner decisions with their advantages, as tensors (row ``i`` of each is one decision)."""

    inputs: th.Tensor
    """The policy's inputs (:func:`training.actor_critic.inputs` of the observations)."""
    mask: th.Tensor
    action: th.Tensor
    logprob: th.Tensor
    """Log-probability of ``action`` under the policy that sampled it."""
    advantage: th.Tensor
    returns: th.Tensor
    """Value targets (advantage plus the value at sampling)."""
    reference: th.Tensor | None
    """The magnet's log-probabilities, or ``None``."""

    def __len__(self) -> int:
        return int(self.action.shape[0])

    def rows(self, idx: th.Tensor) -> Batch:
        return Batch(*(None if t is None else t.index_select(0, idx) for t in dataclasses.astuple(self)))


@dataclasses.dataclass(frozen=True)
class PPOSettings:
    """The update's settings (each a field of :class:`training.learner.LearnerConfig`)."""

    learning_rate: float
    epochs: int
    minibatch_size: int
    clip_coef: float
    ent_coef: float
    vf_coef: float
    max_grad_norm: float
    magnet_coef: float


def losses(policy: MaskableActorCriticPolicy, mb: Batch, settings: PPOSettings) -> dict[str, th.Tensor]:
    """The loss of one minibatch (``loss``) and its parts: policy, value, entropy, magnet KL, and the approximate
    KL from the sampling policy and the share of clipped ratios (diagnostics, without gradient)."""
    logits, values = logits_and_values(policy, mb.inputs)
    log_probs = masked_log_probs(logits, mb.mask)
    new = log_probs.gather(1, mb.action[:, None])[:, 0]
    log_ratio = new - mb.logprob
    ratio = log_ratio.exp()
    adv = mb.advantage
    if len(mb) > 1:
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    policy_loss = th.max(-adv * ratio, -adv * ratio.clamp(1 - settings.clip_coef, 1 + settings.clip_coef)).mean()
    value_loss = 0.5 * ((values - mb.returns) ** 2).mean()
    probs = log_probs.exp()
    entropy = -th.where(mb.mask, probs * log_probs, th.zeros_like(probs)).sum(dim=1).mean()
    kl = magnet_kl(log_probs, mb.reference, mb.mask).mean() if mb.reference is not None else th.zeros(())
    loss = policy_loss + settings.vf_coef * value_loss - settings.ent_coef * entropy + settings.magnet_coef * kl
    with th.no_grad():
        approx_kl = ((ratio - 1) - log_ratio).mean()
        clipped = ((ratio - 1).abs() > settings.clip_coef).float().mean()
    return {"loss": loss, "policy_loss": policy_loss, "value_loss": value_loss, "entropy": entropy,
            "magnet_kl": kl, "approx_kl": approx_kl, "clip_fraction": clipped}


def update(policy: MaskableActorCriticPolicy, batch: Batch, settings: PPOSettings,
           generator: th.Generator) -> dict[str, float]:
    """``settings.epochs`` passes over ``batch`` in shuffled minibatches of about ``settings.minibatch_size`` rows
    (``generator`` shuffles), one optimiser step each. Returns the last epoch's mean of each part of the loss."""
    optimizer = policy.optimizer
    for group in optimizer.param_groups:
        group["lr"] = settings.learning_rate
    parts = max(1, round(len(batch) / settings.minibatch_size))
    for _ in range(settings.epochs):
        sums: dict[str, float] = {}
        for idx in th.randperm(len(batch), generator=generator).tensor_split(parts):
            out = losses(policy, batch.rows(idx), settings)
            optimizer.zero_grad()
            out["loss"].backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), settings.max_grad_norm)
            optimizer.step()
            for key, value in out.items():
                sums[key] = sums.get(key, 0.0) + float(value.detach())
    return {key: value / parts for key, value in sums.items()}


def to_batch(policy: MaskableActorCriticPolicy, arrays: dict[str, np.ndarray], advantages: np.ndarray,
             resolved: np.ndarray) -> Batch:
    """The resolved decisions of a rollout's ``arrays`` (:meth:`training.rollout.Decisions.arrays`) and their
    ``advantages`` (:func:`training.advantages.seat_gae`) as a :class:`Batch` for ``policy`` (copies: the rollout
    reuses its arrays)."""
    rows = np.flatnonzero(resolved)
    adv = advantages[rows]
    reference = arrays.get("reference")
    with th.no_grad():
        x = inputs(policy, th.from_numpy(np.take(arrays["obs"], rows, axis=0)))
    return Batch(x, th.from_numpy(arrays["mask"][rows]), th.from_numpy(arrays["action"][rows]),
                 th.from_numpy(arrays["logprob"][rows]), th.from_numpy(adv),
                 th.from_numpy(adv + arrays["value"][rows]),
                 None if reference is None else th.from_numpy(np.take(reference, rows, axis=0)))
