"""An anchored policy: a fixed agent's play plus what PPO learns on top of it (residual policy learning).

A policy trained from scratch, or cloned from the heuristic and then trained with PPO, drifts wherever its opponent
pool rewards it, and loses what the heuristic does well against the fields it sees least (measured:
docs/experiments.md). :class:`AnchoredPolicy` keeps the heuristic inside the policy: its action logits are the
network's plus ``anchor_weight`` on the action the anchor agent (``heuristic``, or one of
:data:`agents.registry.ANCHOR_BOTS` such as Flip Flop's ``reader``) would take in the same observation with the same
legal actions. With a network that outputs zeros the policy plays the anchor's action with probability
``e^w / (e^w + k - 1)`` among ``k`` legal actions (0.95 for ``w = 4`` and ``k = 4``) and, deterministically, exactly the
anchor's action; PPO trains the network (the residual), which must outweigh ``w`` before the deterministic policy
leaves the anchor's choice. ``anchor_kind_weights`` may give some kinds of the anchor's action another bonus (for
example ``{"draw stock": 1.5}``: where the anchor would draw from the stock, the network needs to outweigh only 1.5
to drop instead), so that PPO explores and moves those decisions more easily than the others. The anchor is
deterministic (the same action for the same observation and mask), so the
logits PPO computes while training are those it acted on.

The model file records the anchor's name, weights and behaviour version (``policy.anchor``, ``policy.anchor_weight``,
``policy.anchor_kind_weights``, ``policy.anchor_version``); whoever loads it builds the anchor for the game the model
plays (:meth:`AnchoredPolicy.attach`) and refuses a file whose anchor has changed since.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.distributions import MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from agents.registry import ANCHORS, check_anchor_kinds, check_anchor_name, check_anchor_weights, make_agent
from envs.core.game import BatchedGame, action_kind


def check_anchor(anchor: Any, weight: Any, kind_weights: Any = None) -> None:
    """``ValueError`` (one line) unless ``anchor`` names an anchor of :data:`ANCHORS`, ``weight`` is a positive
    finite number and ``kind_weights`` (if given) maps action kinds (strings) to positive finite numbers."""
    if anchor not in ANCHORS:
        raise ValueError(f"unknown anchor {anchor!r} (known: {', '.join(ANCHORS)})")
    check_anchor_weights(weight, {} if kind_weights is None else kind_weights)


class AnchoredPolicy(MaskableActorCriticPolicy):
    """A MaskablePPO policy whose action logits are the network's plus ``anchor_weight`` on the anchor agent's
    action (module docstring). Every call that builds the action distribution needs the legal-action masks (the
    anchor chooses among legal actions), and the policy must be :meth:`attach`-ed to a game before it acts."""

    def __init__(self, *args: Any, anchor: str = "heuristic", anchor_weight: float = 4.0,
                 anchor_kind_weights: dict[str, float] | None = None, anchor_version: int | None = None,
                 **kwargs: Any) -> None:
        check_anchor(anchor, anchor_weight, anchor_kind_weights)
        self.anchor, self.anchor_weight = anchor, float(anchor_weight)
        self.anchor_kind_weights = {k: float(w) for k, w in (anchor_kind_weights or {}).items()}
        self.anchor_version = anchor_version
        """The behaviour version of the anchor this policy was trained with (``None`` until :meth:`attach` sets it
        for a new policy; model files from before it was recorded have none and are not checked)."""
        super().__init__(*args, **kwargs)
        self.anchor_agent: Any = None
        self._weight_of_action: th.Tensor | None = None
        self._bonus: th.Tensor | None = None

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "anchor": self.anchor, "anchor_weight": self.anchor_weight,
                "anchor_kind_weights": dict(self.anchor_kind_weights), "anchor_version": self.anchor_version}

    def attach(self, game: BatchedGame) -> AnchoredPolicy:
        """Build the anchor agent for ``game`` (the game this policy plays) and the bonus of each of its actions;
        returns the policy. ``ValueError`` for an anchor or an action kind ``game`` does not have, or an anchor whose
        behaviour version is not :attr:`anchor_version` (the residual was learnt on another anchor's play)."""
        check_anchor_name(game.name, self.anchor)
        check_anchor_kinds(game, self.anchor_kind_weights)
        weights = [self.anchor_kind_weights.get(action_kind(n), self.anchor_weight) for n in game.action_names()]
        agent = make_agent(self.anchor, game)
        if self.anchor_version is None:
            self.anchor_version = agent.version
        elif self.anchor_version != agent.version:
            raise ValueError(f"the policy was trained on anchor {self.anchor} v{self.anchor_version}, and this "
                             f"cardgym's {self.anchor} is v{agent.version}")
        self._weight_of_action = th.tensor(weights, dtype=th.float32)
        self.anchor_agent = agent
        return self

    def bonus(self, obs: th.Tensor, action_masks: Any) -> th.Tensor:
        """``(B, num_actions)``: ``anchor_weight`` on the anchor's action in each row, 0 elsewhere."""
        if self.anchor_agent is None:
            raise RuntimeError("an anchored policy must be attached to its game (policy.attach(game)) before it acts")
        if action_masks is None:
            raise ValueError("an anchored policy needs the legal-action masks to know its anchor's action")
        masks = action_masks.detach().cpu().numpy() if isinstance(action_masks, th.Tensor) else action_masks
        masks = np.asarray(masks).reshape(len(obs), int(self.action_space.n)).astype(bool)
        rows = obs.detach().flatten(1).cpu().numpy()
        chosen = np.asarray(self.anchor_agent.act(rows, masks, np.random.default_rng(0)), dtype=np.int64)
        chosen_t = th.as_tensor(chosen, device=obs.device)
        out = th.zeros(masks.shape, dtype=th.float32, device=obs.device)
        out[th.arange(len(chosen)), chosen_t] = self._weight_of_action.to(obs.device)[chosen_t]
        return out

    def _get_action_dist_from_latent(self, latent_pi: th.Tensor) -> MaskableDistribution:
        logits = self.action_net(latent_pi)
        if self._bonus is not None:
            logits = logits + self._bonus
        return self.action_dist.proba_distribution(action_logits=logits)

    def _with_bonus(self, call: Any, obs: th.Tensor, action_masks: Any) -> Any:
        self._bonus = self.bonus(obs, action_masks)
        try:
            return call(obs)
        finally:
            self._bonus = None

    def forward(self, obs: th.Tensor, deterministic: bool = False,
                action_masks: np.ndarray | None = None) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        return self._with_bonus(lambda o: super(AnchoredPolicy, self).forward(o, deterministic, action_masks),
                                obs, action_masks)

    def evaluate_actions(self, obs: th.Tensor, actions: th.Tensor,
                         action_masks: th.Tensor | None = None) -> tuple[th.Tensor, th.Tensor, th.Tensor | None]:
        return self._with_bonus(lambda o: super(AnchoredPolicy, self).evaluate_actions(o, actions, action_masks),
                                obs, action_masks)

    def get_distribution(self, obs: th.Tensor, action_masks: np.ndarray | None = None) -> MaskableDistribution:
        return self._with_bonus(lambda o: super(AnchoredPolicy, self).get_distribution(o, action_masks),
                                obs, action_masks)


def anchor_bonus(policy: MaskableActorCriticPolicy, obs: th.Tensor, action_masks: Any) -> th.Tensor | float:
    """What ``policy`` adds to its network's logits: the anchor's bonus for an :class:`AnchoredPolicy`, else 0."""
    return policy.bonus(obs, action_masks) if isinstance(policy, AnchoredPolicy) else 0.0
