"""The PPO agent: a MaskablePPO policy trained by ``cardgym train`` playing as a batched :class:`~agents.base.Agent`.

A saved model is sb3-contrib's ``MaskablePPO.save`` zip with one more member, ``cardgym.json``, recording what the
policy was trained for: the game, table size, rule options, observation size and action count. Loading checks it:
a file that is not such a zip, or one trained for another game or another observation / action layout, is refused
with a :class:`ModelFileError` naming the difference. A model trained at another table size or with other rule
options that keep the layout is accepted with a warning (the observation is padded to the game's largest table, so
one policy can play every table size).

The policy scales its own input (:class:`SymlogFeatures`), so the agent and the training env both hand it the
core's raw observation.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from agents.base import AgentBase
from envs.core.game import BatchedGame

METADATA_NAME = "cardgym.json"
"""Member of the model zip holding :func:`model_metadata`."""
FORMAT_VERSION = 1


class ModelFileError(ValueError):
    """A model file that cannot be read, or was trained for something else."""


class SymlogFeatures(BaseFeaturesExtractor):
    """The policy's input layer, shared by the actor and the critic: every observation number x is scaled to
    sign(x)·log(1+|x|) (card bits and one-hots stay 0 or 0.69, a chip count of ±50 becomes ±3.9, for every game
    without a per-game scale table), then one linear layer of ``features_dim`` units with ReLU. Sharing this widest
    layer (observation size × ``features_dim`` weights) halves the cost of the network against separate inputs."""

    def __init__(self, observation_space: spaces.Box, features_dim: int = 256) -> None:
        super().__init__(observation_space, features_dim)
        self.linear = th.nn.Linear(int(np.prod(observation_space.shape)), features_dim)

    def forward(self, observations: th.Tensor) -> th.Tensor:
        x = observations.flatten(1)
        return th.relu(self.linear(th.sign(x) * th.log1p(th.abs(x))))


def model_metadata(game: BatchedGame) -> dict[str, Any]:
    """What a model trained on ``game`` records about it."""
    return {
        "format": FORMAT_VERSION,
        "game": game.name,
        "num_players": game.num_players,
        "options": dataclasses.asdict(game.config),
        "observation_size": int(game.observation_size),
        "num_actions": int(game.num_actions),
    }


def write_metadata(path: str | Path, game: BatchedGame, extra: dict[str, Any] | None = None) -> None:
    """Add the metadata of ``game`` (and ``extra`` entries) to the model zip at ``path``."""
    meta = {**model_metadata(game), **(extra or {})}
    with zipfile.ZipFile(path, "a") as z:
        z.writestr(METADATA_NAME, json.dumps(meta, indent=1))


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The metadata of a model file; :class:`ModelFileError` if it is missing, corrupt or not a cardgym model."""
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"model file {str(path)!r} not found")
    try:
        with zipfile.ZipFile(path) as z:
            bad = z.testzip()
            if bad is not None:
                raise ModelFileError(f"model file {str(path)!r} is corrupt (member {bad!r} fails its checksum)")
            if METADATA_NAME not in z.namelist():
                raise ModelFileError(
                    f"model file {str(path)!r} is not a cardgym model: it has no {METADATA_NAME} "
                    "(models are written by `cardgym train`)"
                )
            meta = json.loads(z.read(METADATA_NAME))
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise ModelFileError(f"model file {str(path)!r} is corrupt or not a model zip: {e}") from e
    except json.JSONDecodeError as e:
        raise ModelFileError(f"model file {str(path)!r} has an unreadable {METADATA_NAME}: {e}") from e
    missing = [k for k in ("game", "num_players", "options", "observation_size", "num_actions") if k not in meta]
    if missing:
        raise ModelFileError(f"model file {str(path)!r}: {METADATA_NAME} lacks {', '.join(missing)}")
    return meta


def check_metadata(meta: dict[str, Any], game: BatchedGame, path: str | Path) -> None:
    """Refuse a model trained for another game or layout; warn about another table size or other options."""
    want = model_metadata(game)
    where = f"model file {str(path)!r}"
    if meta["game"] != want["game"]:
        raise ModelFileError(f"{where} was trained for {meta['game']!r}, not {want['game']!r}")
    for key, what in (("observation_size", "observation size"), ("num_actions", "action count")):
        if meta[key] != want[key]:
            raise ModelFileError(
                f"{where} has {what} {meta[key]} but {game.name} with these options has {want[key]} "
                f"(trained with {meta['num_players']} players and options {meta['options']})"
            )
    if meta["num_players"] != want["num_players"]:
        warnings.warn(f"{where} was trained at {meta['num_players']} players, playing at {want['num_players']}",
                      stacklevel=3)
    diff = {k: v for k, v in meta["options"].items() if want["options"].get(k) != v}
    if diff:
        warnings.warn(f"{where} was trained with other rule options: {diff}", stacklevel=3)


def load_model(path: str | Path, game: BatchedGame, env: Any = None, **kwargs: Any):
    """``MaskablePPO.load`` after checking the file's metadata against ``game`` (raises :class:`ModelFileError`)."""
    from sb3_contrib import MaskablePPO

    check_metadata(read_metadata(path), game, path)
    try:
        return MaskablePPO.load(path, env=env, device="cpu", **kwargs)
    except (zipfile.BadZipFile, KeyError, RuntimeError, ValueError, EOFError) as e:
        raise ModelFileError(f"model file {str(path)!r} could not be loaded: {e}") from e


class PPOAgent(AgentBase):
    """Plays a trained policy: ``PPOAgent(game, "model.zip")``. ``deterministic=True`` (default) takes the legal
    action of highest probability; ``False`` samples the masked policy with the ``rng`` given to :meth:`act`."""

    name = "ppo"

    def __init__(self, game: BatchedGame, path: str | Path | None = None, deterministic: bool = True,
                 policy: Any = None) -> None:
        super().__init__(game)
        if (path is None) == (policy is None):
            raise ValueError("PPOAgent needs a model path or a policy (one of them)")
        if path is not None:
            policy = load_model(path, game).policy
            self.name = f"ppo:{Path(path).name}"
        self.policy = policy
        self.policy.set_training_mode(False)
        self.deterministic = deterministic

    @classmethod
    def snapshot(cls, game: BatchedGame, policy: Any, deterministic: bool = False) -> PPOAgent:
        """A frozen copy of a policy in training (self-play opponents, evaluation during training)."""
        frozen = type(policy)(**policy._get_constructor_parameters())  # a fresh policy of the same shape ...
        frozen.load_state_dict(policy.state_dict())  # ... with a copy of the weights
        agent = cls(game, policy=frozen.to("cpu"), deterministic=deterministic)
        agent.name = "ppo-snapshot"
        return agent

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """``(B, num_actions)`` action logits of the policy (before masking)."""
        p = self.policy
        with th.no_grad():
            features = p.extract_features(th.as_tensor(obs, dtype=th.float32), p.pi_features_extractor)
            return p.action_net(p.mlp_extractor.forward_actor(features)).numpy()

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        scores = self.logits(obs)
        if not self.deterministic:
            scores = scores + rng.gumbel(size=scores.shape).astype(np.float32)  # Gumbel-max: a softmax sample
        scores[~mask.astype(bool)] = -np.inf
        return scores.argmax(axis=1).astype(np.int64)
