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

from training.actor_critic import logits_and_values, mask_logits
from training.config import PPOConfig
from training.magnet import magnet_kl
from training.sparse_rows import SparseMinibatch, SparseRows


@dataclasses.dataclass
class Batch:
    """Learner decisions with their advantages, and the rows to train on. A batch owns its numbers (copies of a
    rollout's rows, :func:`to_batch`), so the rollout may collect again while an update trains on it."""

    inputs: th.Tensor | SparseRows | SparseMinibatch
    """The policy's inputs (:func:`training.actor_critic.inputs` of the observations): dense rows, or their non-zero
    entries, from which a minibatch's inputs are a sparse matrix and its transpose (:mod:`training.sparse_rows`)."""
    mask: th.Tensor
    action: th.Tensor
    logprob: th.Tensor
    """Log-probability of ``action`` under the policy that sampled it."""
    advantage: th.Tensor
    returns: th.Tensor
    """Value targets (advantage plus the value at sampling)."""
    reference: th.Tensor | None
    """The magnet's log-probabilities, or ``None``."""
    index: th.Tensor
    """The rows to train on (those with an advantage)."""

    def __len__(self) -> int:
        return int(self.index.shape[0])

    def rows(self, idx: th.Tensor) -> Batch:
        """The rows ``idx`` (indices into the tensors, not into ``index``) as a batch of their own."""
        taken = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "index"}
        inputs = taken.pop("inputs")
        return Batch(inputs.take(idx.numpy()) if isinstance(inputs, SparseRows) else inputs.index_select(0, idx),
                     **{name: t if t is None else t.index_select(0, idx) for name, t in taken.items()},
                     index=th.arange(idx.shape[0]))


def losses(policy: MaskableActorCriticPolicy, mb: Batch, settings: PPOConfig) -> dict[str, th.Tensor]:
    """The loss of one minibatch (``loss``) and its parts: policy, value, entropy, magnet KL, and the approximate
    KL from the sampling policy and the share of clipped ratios (diagnostics, without gradient)."""
    logits, values = logits_and_values(policy, mb.inputs)
    masked = mask_logits(logits, mb.mask)
    log_probs, probs = th.log_softmax(masked, dim=1), th.softmax(masked, dim=1)
    new = log_probs.gather(1, mb.action[:, None])[:, 0]
    log_ratio = new - mb.logprob
    ratio = log_ratio.exp()
    adv = mb.advantage
    if len(mb) > 1:
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    policy_loss = th.max(-adv * ratio, -adv * ratio.clamp(1 - settings.clip_coef, 1 + settings.clip_coef)).mean()
    value_loss = 0.5 * ((values - mb.returns) ** 2).mean()
    entropy = -th.where(mb.mask, probs * log_probs, th.zeros_like(probs)).sum(dim=1).mean()
    kl = magnet_kl(probs, log_probs, mb.reference, mb.mask).mean() if mb.reference is not None else th.zeros(())
    loss = policy_loss + settings.vf_coef * value_loss - settings.ent_coef * entropy + settings.magnet_coef * kl
    with th.no_grad():
        approx_kl = ((ratio - 1) - log_ratio).mean()
        clipped = ((ratio - 1).abs() > settings.clip_coef).float().mean()
    return {"loss": loss, "policy_loss": policy_loss, "value_loss": value_loss, "entropy": entropy,
            "magnet_kl": kl, "approx_kl": approx_kl, "clip_fraction": clipped}


def update(policy: MaskableActorCriticPolicy, batch: Batch, settings: PPOConfig,
           generator: th.Generator) -> dict[str, float]:
    """``settings.epochs`` passes over ``batch`` in shuffled minibatches of about ``settings.minibatch_size`` rows
    (``generator`` shuffles), one optimiser step each. Returns the last epoch's mean of each part of the loss."""
    optimizer = policy.optimizer
    for group in optimizer.param_groups:
        group["lr"] = settings.learning_rate
    parts = max(1, round(len(batch) / settings.minibatch_size))
    for _ in range(settings.epochs):
        sums: dict[str, float] = {}
        for idx in batch.index[th.randperm(len(batch), generator=generator)].tensor_split(parts):
            out = losses(policy, batch.rows(idx), settings)
            optimizer.zero_grad()
            out["loss"].backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), settings.max_grad_norm)
            optimizer.step()
            for key, value in out.items():
                sums[key] = sums.get(key, 0.0) + float(value.detach())
    return {key: value / parts for key, value in sums.items()}


def to_batch(arrays: dict[str, np.ndarray], advantages: np.ndarray, resolved: np.ndarray, sparse: bool) -> Batch:
    """A rollout's ``arrays`` (:meth:`training.rollout.Decisions.arrays`) and their ``advantages`` and ``resolved``
    rows (:func:`training.advantages.seat_gae`) as a :class:`Batch` over the resolved rows, holding copies (the
    rollout reuses its arrays); ``sparse``: its minibatches' inputs are sparse matrices
    (:mod:`training.sparse_rows`, itself a compact copy of the inputs)."""
    reference = arrays.get("reference")
    return Batch(SparseRows(arrays["inputs"]) if sparse else th.tensor(arrays["inputs"]),
                 th.tensor(arrays["mask"]), th.tensor(arrays["action"]), th.tensor(arrays["logprob"]),
                 th.from_numpy(advantages), th.from_numpy(advantages + arrays["value"]),
                 None if reference is None else th.tensor(reference), th.from_numpy(np.flatnonzero(resolved)))
