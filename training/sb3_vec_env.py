"""The Stable-Baselines3 face of the batched training env: :class:`CardVecEnv`, an SB3 ``VecEnv`` (what sb3-contrib's
``MaskablePPO`` and ``cardgym train`` use) over :class:`envs.vector.CardVectorEnv`.

It lives apart from the Gymnasium vector env so that ``envs`` imports neither torch nor Stable-Baselines3.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from envs.core.agent import Agent
from envs.core.checks import U64_MAX, check_int
from envs.core.game import BatchedGame
from envs.vector import CardVectorEnv


class CardVecEnv(VecEnv):
    """The SB3 ``VecEnv`` face of :class:`~envs.vector.CardVectorEnv` (auto-reset within the step, SB3's
    convention): flat observations, ``action_masks()`` for sb3-contrib's ``MaskablePPO``, the last observation of an
    episode in ``infos[i]["terminal_observation"]`` and its chips and decisions in ``infos[i]["episode"]``. ``seed``
    (or :meth:`seed`) is the seed of every :meth:`reset`."""

    render_mode = None

    def __init__(
        self,
        game: BatchedGame,
        num_tables: int,
        opponents: Agent | Sequence[Agent],
        weights: Sequence[float] | None = None,
        seed: int = 0,
        reward_scale: float = 1.0,
        whole_table: float = 0.0,
    ) -> None:
        self.vector = CardVectorEnv(game, num_tables, opponents, weights, reward_scale, whole_table,
                                    autoreset_mode=AutoresetMode.SAME_STEP)
        """The Gymnasium vector env this adapter drives."""
        super().__init__(self.vector.num_envs, self.vector.single_observation_space["observation"],
                         self.vector.single_action_space)
        self.seed(seed)
        self._actions: np.ndarray | None = None

    # what the trainer and tests read of the tables
    game = property(lambda self: self.vector.game)
    reward_scale = property(lambda self: self.vector.reward_scale)
    state = property(lambda self: self.vector.state)
    learner = property(lambda self: self.vector.learner)
    seat_agent = property(lambda self: self.vector.seat_agent)
    seated = property(lambda self: self.vector.seated)
    opponents = property(lambda self: self.vector.opponents)
    weights = property(lambda self: self.vector.weights)
    whole_table = property(lambda self: self.vector.whole_table)
    skipped_deals = property(lambda self: self.vector.skipped_deals)
    episodes = property(lambda self: self.vector.episodes)

    def set_opponents(self, opponents: Agent | Sequence[Agent], weights: Sequence[float] | None = None,
                      whole_table: float = 0.0) -> None:
        """See :meth:`CardVectorEnv.set_opponents`."""
        self.vector.set_opponents(opponents, weights, whole_table)

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Set the seed of the next :meth:`reset` (an int ``0..2**64-1``; ``None``: fresh entropy); the k-th table
        dealt after it gets the table seed ``hash(seed, k)`` (k = 0, 1, ...)."""
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % 2**64)
        self._seed = check_int(seed, "seed", 0, U64_MAX, allowed="None or an integer 0..2**64-1")
        self._seeds = [self._seed] * self.num_envs
        return [self._seed]

    def reset(self) -> VecEnvObs:
        obs, _ = self.vector.reset(seed=self._seed)
        return obs["observation"]

    def step_async(self, actions: np.ndarray) -> None:
        """Take one action id per table: shape ``(num_tables,)``, or a ``(num_tables, 1)`` numpy column."""
        if isinstance(actions, np.ndarray) and actions.shape == (self.num_envs, 1):
            actions = actions[:, 0]
        self._actions = self.vector.check_actions(actions)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("call step_async(actions) before step_wait()")
        actions, self._actions = self._actions, None
        obs, rewards, terminations, truncations, info = self.vector.step(actions)
        dones = terminations | truncations
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for b in np.flatnonzero(dones).tolist():
            episode = info["episode"]
            infos[b] = {
                "terminal_observation": info["final_obs"][b]["observation"],
                "TimeLimit.truncated": bool(truncations[b]),
                "episode": {"r": float(episode["r"][b]), "l": int(episode["l"][b]), "t": float(episode["t"][b])},
            }
        return obs["observation"], rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """``(num_tables, num_actions)`` bool: the learner's legal actions at every table."""
        return self.vector.action_masks()

    def close(self) -> None:
        self.vector.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        indices = list(self._get_indices(indices))
        if method_name == "action_masks":  # per-table rows of the one batched mask (sb3-contrib get_action_masks)
            return list(self.vector.action_masks()[indices])
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in indices]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices: VecEnvIndices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)
