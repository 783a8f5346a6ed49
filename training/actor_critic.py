"""The learner's network as a plain torch module: the policy of a cardgym model file (:mod:`agents.ppo`:
:class:`~agents.ppo.SymlogFeatures` input layer and sb3-contrib's ``MaskableActorCriticPolicy`` heads), built,
run and sampled without Stable-Baselines3's rollout machinery, so that ``ppo:model.zip`` plays what the learner
saves.

The policy's own layers do the work (:func:`inputs` and :func:`logits_and_values` string them together, the input
layer shared by actor and critic as the learner builds it); legal-action masks are applied
here, by setting the logits of illegal actions to :data:`ILLEGAL` (a finite number, so that a probability of 0
times its log-probability stays 0 in the entropy and the magnet's KL term).
"""

from __future__ import annotations

from typing import Any

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from agents.ppo import action_logits, build_policy
from envs.core.game import BatchedGame

ILLEGAL = -1e9
"""The logit an illegal action gets: its probability is exactly 0 after the softmax."""
SOURCE = "<the learner's settings>"
"""How a message about a policy the learner builds names its source (it comes from no file)."""


def policy_settings(features_dim: int, net_arch: tuple[int, ...], advisor: str = "", advice_gain: bool = False
                    ) -> dict[str, Any]:
    """The settings of a fresh learner policy as a model file records them (:func:`agents.ppo.policy_settings`): a
    ``SymlogFeatures`` input layer of ``features_dim`` units shared by actor and critic, then ``net_arch`` hidden
    layers in each head, Tanh, orthogonal initialisation and Adam with eps 1e-5 (stable-baselines3's defaults, as
    ``cardgym train`` builds its policy) and, if given, the advisor whose advice it takes (:mod:`agents.advice`),
    with an :class:`agents.ppo.AdviceGain` on its logits if ``advice_gain``."""
    return {"class": "MaskableActorCriticPolicy", "net_arch": list(net_arch), "activation_fn": "Tanh",
            "ortho_init": True, "features_extractor": "SymlogFeatures",
            "features_extractor_kwargs": {"features_dim": features_dim}, "share_features_extractor": True,
            "normalize_images": True, "optimizer": "Adam", "optimizer_kwargs": {"eps": 1e-5},
            **({"advisor": advisor} if advisor else {}), **({"advice_gain": True} if advice_gain else {})}


def new_policy(game: BatchedGame, features_dim: int, net_arch: tuple[int, ...], seed: int, advisor: str = "",
               advice_gain: bool = False) -> MaskableActorCriticPolicy:
    """A fresh policy for ``game`` (:func:`policy_settings`), its initial weights drawn from ``seed``, in training
    mode; its optimiser (``policy.optimizer``) starts with learning rate 0 (the learner sets it every update)."""
    th.manual_seed(seed)
    policy = build_policy(policy_settings(features_dim, net_arch, advisor, advice_gain), game, SOURCE)
    policy.set_training_mode(True)
    return policy


def inputs(policy: MaskableActorCriticPolicy, obs: th.Tensor) -> th.Tensor:
    """The input layer's input for raw observations ``obs`` (:meth:`agents.ppo.SymlogFeatures.inputs`: they hold
    no weights, so a batch's are computed once for all its epochs)."""
    return policy.features_extractor.inputs(obs)


def logits_and_values(policy: MaskableActorCriticPolicy, x: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
    """``(B, num_actions)`` action logits (before masking) and ``(B,)`` values of :func:`inputs` ``x``."""
    latent_pi, latent_vf = policy.mlp_extractor(policy.features_extractor.layer(x))
    return action_logits(policy, latent_pi, x), policy.value_net(latent_vf).squeeze(1)


def mask_logits(logits: th.Tensor, mask: th.Tensor) -> th.Tensor:
    """``logits`` with :data:`ILLEGAL` at the actions outside ``mask`` (``(B, A)`` bool): their log-softmax is the
    policy restricted to the legal actions, their softmax its probabilities (computed apart: the exponential of a
    log-probability near :data:`ILLEGAL` takes the CPU's slow path)."""
    return logits.masked_fill(~mask, ILLEGAL)


def masked_log_probs(logits: th.Tensor, mask: th.Tensor) -> th.Tensor:
    """Log-probabilities of the policy restricted to the legal actions (``mask`` ``(B, A)`` bool): a legal action's
    is its log-softmax among the legal ones, an illegal one's about :data:`ILLEGAL`."""
    return th.log_softmax(mask_logits(logits, mask), dim=1)


def sample(log_probs: th.Tensor, generator: th.Generator) -> th.Tensor:
    """One action per row drawn from the distribution ``log_probs`` (Gumbel-max; an action of log-probability
    :data:`ILLEGAL` is never drawn), as ``(B,) int64``."""
    uniform = th.rand(log_probs.shape, generator=generator).clamp_(min=1e-20)
    return (log_probs - th.log(-th.log(uniform))).argmax(dim=1)
