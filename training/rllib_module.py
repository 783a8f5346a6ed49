"""The RLlib policy of ``cardgym train --engine rllib``: an action-masking RLModule for RLlib's PPO (new API stack)
with exactly the layers of the SB3 policy ``cardgym train`` builds, under the same names, so that a trained module
is saved as an ordinary cardgym model file (:func:`training.rllib_train.export_model`) that ``cardgym eval``,
``play`` and ``league`` load like any other.

Layers (those of :class:`sb3_contrib.common.maskable.policies.MaskableActorCriticPolicy` with
:class:`agents.ppo.SymlogFeatures`): the observation's numbers are scaled to sign(x)·log(1+|x|), one shared linear
layer with ReLU (``features_extractor``), then separate Tanh MLPs for the policy and the value
(``mlp_extractor.policy_net`` / ``value_net``), ``action_net`` (logits) and ``value_net`` (the value). The
observation is the Dict of :class:`envs.vector.CardVectorEnv`; logits of actions outside ``action_mask`` are set to
the most negative float, so they are never sampled.
"""

from __future__ import annotations

from typing import Any

import torch as th
from gymnasium import spaces
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from stable_baselines3.common.torch_layers import MlpExtractor

from agents.ppo import SymlogFeatures

MASKED = th.finfo(th.float32).min
"""The logit of an illegal action."""


class MaskedSymlogModule(TorchRLModule, ValueFunctionAPI):
    """PPO's actor and critic for a cardgym vector env; ``model_config``: ``features_dim`` (int) and ``net_arch``
    (list of hidden widths of the policy and the value MLPs)."""

    def setup(self) -> None:
        obs_space = self.observation_space["observation"] if isinstance(self.observation_space, spaces.Dict) \
            else self.observation_space
        config: dict[str, Any] = dict(self.model_config or {})
        features = int(config.get("features_dim", 256))
        self.features_extractor = SymlogFeatures(obs_space, features)
        self.mlp_extractor = MlpExtractor(features, list(config.get("net_arch", [128])), th.nn.Tanh, "cpu")
        self.action_net = th.nn.Linear(self.mlp_extractor.latent_dim_pi, int(self.action_space.n))
        self.value_net = th.nn.Linear(self.mlp_extractor.latent_dim_vf, 1)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        latent = self.mlp_extractor.forward_actor(self.features_extractor(obs["observation"]))
        logits = self.action_net(latent).masked_fill(obs["action_mask"] == 0, MASKED)
        return {Columns.ACTION_DIST_INPUTS: logits}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> th.Tensor:
        features = self.features_extractor(batch[Columns.OBS]["observation"])
        return self.value_net(self.mlp_extractor.forward_critic(features)).squeeze(-1)
