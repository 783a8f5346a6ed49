"""The PPO agent: a MaskablePPO policy trained by ``cardgym train`` playing as a batched
:class:`~envs.core.agent.Agent`, and its model file.

A model file (:mod:`agents.model_file`) is a zip of data: ``cardgym.json`` records what the policy was trained for
(game, table size, rule options, observation size, action count), how to rebuild it (policy class, layer widths,
activation, input layer, optimiser settings, each by name from the short whitelists below) and the PPO
hyperparameters and step count a resumed training continues from; ``policy.pth`` and ``policy.optimizer.pth`` hold
the weights and the optimiser state. :func:`load_policy` (playing) and :func:`load_model` (resuming) build the policy
from the JSON and read the tensors with torch's weights-only loader: nothing in the file is unpickled, so a model
from anyone can be played safely. A file trained for another game or another observation / action layout, or whose
tensors do not fit the policy its JSON describes, is refused with a one-line :class:`ModelFileError`. A model trained
at another table size or with other rule options that keep the layout is accepted with a warning (the observation
is padded to the game's largest table, so one policy can play every table size).

The policy scales its own input (:class:`SymlogFeatures`), so the agent and the training env both hand it the
core's raw observation.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import sb3_contrib
import stable_baselines3
import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.utils import ConstantSchedule, FloatSchedule

from agents.advice import Advisor, advisor_names
from agents.model_file import (
    KINDS,
    METADATA_NAME,
    OPTIMIZER_MEMBER,
    POLICY_MEMBER,
    ModelFileError,
    check_metadata,
    check_optimizer_state,
    check_state_dict,
    field,
    is_number,
    model_metadata,
    named,
    one_line,
    read_metadata,
    read_tensors,
    short,
    where,
    write_model_file,
)
from envs.core.agent import AgentBase
from envs.core.game import BatchedGame

__all__ = ["ModelFileError", "PPOAgent", "SymlogFeatures", "load_model", "load_policy", "load_trainable",
           "read_metadata", "read_policy", "save_model", "save_policy"]


class SymlogFeatures(BaseFeaturesExtractor):
    """The policy's input layer, shared by the actor and the critic: every observation number x is scaled to
    sign(x)·log(1+|x|) (card bits and one-hots stay 0 or 0.69, a chip count of ±50 becomes ±3.9, for every game
    without a per-game scale table), then one linear layer of ``features_dim`` units with ReLU. Sharing this widest
    layer (observation size × ``features_dim`` weights) halves the cost of the network against separate inputs."""

    def __init__(self, observation_space: spaces.Box, features_dim: int = 256) -> None:
        super().__init__(observation_space, features_dim)
        self.linear = th.nn.Linear(int(np.prod(observation_space.shape)), features_dim)

    def forward(self, observations: th.Tensor) -> th.Tensor:
        return self.layer(self.inputs(observations))

    def inputs(self, observations: th.Tensor) -> th.Tensor:
        """The linear layer's input: the observations symlog-scaled (no weights: a learner may compute it once per
        decision and train on it for several epochs). ``observations``: dense ``(B, D)``, or a sparse CSR matrix of
        them (then the input is one too)."""
        x = observations if observations.layout == th.sparse_csr else observations.flatten(1)
        return th.sign(x) * th.log1p(th.abs(x))  # zero-preserving: a sparse matrix stays sparse

    def layer(self, inputs: th.Tensor | Any) -> th.Tensor:
        """The layer on :meth:`inputs` (dense, a sparse CSR matrix of them, or a learner's minibatch of sparse rows
        (:class:`training.sparse_rows.SparseMinibatch`): the same numbers, fewer multiplications): linear, then
        ReLU."""
        if not isinstance(inputs, th.Tensor):
            return th.relu(inputs.times(self.linear))
        if inputs.layout == th.sparse_csr:
            return th.relu(th.addmm(self.linear.bias, inputs, self.linear.weight.t()))
        return th.relu(self.linear(inputs))


ADVICE_GAIN_START = 1.0
"""The :class:`AdviceGain` of a fresh policy."""


def advised_actions(x: th.Tensor | Any, observation_size: int) -> th.Tensor:
    """``(B,) int64``: the action each row of an advised policy's inputs ``x`` (dense, sparse CSR or a learner's
    :class:`training.sparse_rows.SparseMinibatch`) was advised, read from the one-hot after the first
    ``observation_size`` columns (in a CSR row, the last entry: columns are in order and the one-hot comes last)."""
    if not isinstance(x, th.Tensor):
        x = x.matrix
    if x.layout == th.sparse_csr:
        return x.col_indices()[x.crow_indices()[1:] - 1] - observation_size
    return x[:, observation_size:].argmax(1)


class AdviceGain(th.nn.Module):
    """A learned number added to the logit of the advised action (:mod:`agents.advice`): how far the policy follows
    its advisor, before what the network reads in the observation. The advice is also an input of the network, but
    there a one-hot over hundreds of actions (Flip Flop's 472) has to pass through the 256 units of the input layer
    to reach its own logit, and a clone of a Flip Flop bot matched only 94% of the bot's choices after 300,000
    decisions; this path gives the advice its logit directly. Starts at :data:`ADVICE_GAIN_START`; the network's own
    logits can outweigh it wherever the advice is poor, and the gain itself is trained with everything else."""

    def __init__(self, observation_size: int) -> None:
        super().__init__()
        self.observation_size = observation_size
        self.gain = th.nn.Parameter(th.tensor(ADVICE_GAIN_START))

    def forward(self, logits: th.Tensor, x: th.Tensor | Any) -> th.Tensor:
        """``logits`` ``(B, A)`` with the gain added at each row's advised action (read from the inputs ``x``)."""
        advised = advised_actions(x, self.observation_size).unsqueeze(1)
        return logits.scatter_add(1, advised, self.gain.expand(advised.shape[0], 1))


def action_logits(policy: MaskableActorCriticPolicy, latent_pi: th.Tensor, x: th.Tensor | Any) -> th.Tensor:
    """``(B, num_actions)`` action logits (before masking) of ``policy`` from the actor's latent ``latent_pi`` of its
    inputs ``x``: the action head, plus the :class:`AdviceGain` of a policy that has one."""
    logits = policy.action_net(latent_pi)
    gain = getattr(policy, "advice_gain", None)
    return logits if gain is None else gain(logits, x)


POLICY_CLASSES: dict[str, type[MaskableActorCriticPolicy]] = {"MaskableActorCriticPolicy": MaskableActorCriticPolicy}
"""Policy classes a model file may name."""
RETIRED = {"AnchoredPolicy": "an anchored policy (the heuristic plus a learnt residual)", "hints": "hint inputs"}
"""What model files of cardgym's first trainer may hold that no policy has any more → what it was; such a file is
refused in one line (retrain it with ``cardgym train``)."""
FEATURE_EXTRACTORS: dict[str, type[BaseFeaturesExtractor]] = {"SymlogFeatures": SymlogFeatures}
"""Input layers a model file may name (one with weights: the policy is first built on torch's ``meta`` device, where
stable-baselines3 cannot place a policy whose input layer has none, such as its default ``FlattenExtractor``)."""
ACTIVATIONS: dict[str, type[th.nn.Module]] = {c.__name__: c for c in (th.nn.Tanh, th.nn.ReLU, th.nn.LeakyReLU,
                                                                       th.nn.ELU, th.nn.GELU, th.nn.SiLU)}
"""Activations a model file may name (``Tanh`` is stable-baselines3's default)."""
OPTIMIZERS: dict[str, type[th.optim.Optimizer]] = {"Adam": th.optim.Adam}
"""Optimisers a model file may name."""
PPO_FIELDS: dict[str, tuple[str, bool]] = {
    "learning_rate": ("positive number", False),
    "n_steps": ("positive integer", False),
    "batch_size": ("integer of at least 2", False),  # advantages are normalised over each minibatch
    "n_epochs": ("positive integer", False),
    "gamma": ("number in [0, 1]", False),
    "gae_lambda": ("number in [0, 1]", False),
    "clip_range": ("positive number", False),
    "clip_range_vf": ("positive number", True),
    "normalize_advantage": ("boolean", False),
    "ent_coef": ("finite number", False),
    "vf_coef": ("finite number", False),
    "max_grad_norm": ("positive number", False),
    "target_kl": ("positive number", True),
}
"""The MaskablePPO hyperparameters a model file records (``cardgym.json`` ``ppo``): kind, and whether null is ok."""
PPO_COUNTERS = ("num_timesteps", "n_updates")
"""The training progress a model file records next to them (learner decisions so far, gradient steps so far)."""


def _name_of(table: dict[str, type], cls: type, what: str) -> str:
    for name, known in table.items():
        if known is cls:
            return name
    raise ValueError(f"a cardgym model file cannot record the {what} {cls.__name__} (allowed: {', '.join(table)})")


def _constant(value: Any, what: str) -> float:
    """The value of a constant learning rate or clip range (a number or stable-baselines3's constant schedule)."""
    if isinstance(value, FloatSchedule):
        value = value.value_schedule
    if isinstance(value, ConstantSchedule):
        value = value.val
    if not is_number(value):
        raise ValueError(f"a cardgym model file records a constant {what}, not {value!r}")
    return float(value)


def policy_settings(policy: MaskableActorCriticPolicy) -> dict[str, Any]:
    """What ``cardgym.json`` records to rebuild ``policy`` (``ValueError`` for a class outside the whitelists)."""
    return {
        "class": _name_of(POLICY_CLASSES, type(policy), "policy class"),
        "net_arch": policy.net_arch,
        "activation_fn": _name_of(ACTIVATIONS, policy.activation_fn, "activation"),
        "ortho_init": bool(policy.ortho_init),
        "features_extractor": _name_of(FEATURE_EXTRACTORS, policy.features_extractor_class, "features extractor"),
        "features_extractor_kwargs": dict(policy.features_extractor_kwargs),
        "share_features_extractor": bool(policy.share_features_extractor),
        "normalize_images": bool(policy.normalize_images),
        "optimizer": _name_of(OPTIMIZERS, policy.optimizer_class, "optimizer"),
        "optimizer_kwargs": dict(policy.optimizer_kwargs),
        **({"advisor": policy.advisor.name} if getattr(policy, "advisor", None) is not None else {}),
        **({"advice_gain": True} if getattr(policy, "advice_gain", None) is not None else {}),
    }


def ppo_settings(model: MaskablePPO) -> dict[str, Any]:
    """What ``cardgym.json`` records of ``model``'s hyperparameters (:data:`PPO_FIELDS`) and progress."""
    settings = {key: getattr(model, key) for key in PPO_FIELDS}
    settings["learning_rate"] = _constant(model.learning_rate, "learning rate")
    settings["clip_range"] = _constant(model.clip_range, "clip range")
    if model.clip_range_vf is not None:
        settings["clip_range_vf"] = _constant(model.clip_range_vf, "value clip range")
    return {**settings, "num_timesteps": int(model.num_timesteps), "n_updates": int(model._n_updates)}


def save_policy(policy: MaskableActorCriticPolicy, path: str | Path, game: BatchedGame,
                extra: dict[str, Any] | None = None) -> Path:
    """Write ``policy`` (trained on ``game``) as a model file: ``cardgym.json`` (the game, :func:`policy_settings`,
    library versions and the ``extra`` entries), the policy's weights and the state of its optimiser
    (``policy.optimizer``)."""
    return _write(policy, path, game, {}, extra)


def save_model(model: MaskablePPO, path: str | Path, game: BatchedGame, extra: dict[str, Any] | None = None) -> Path:
    """Write ``model`` (a MaskablePPO trained on ``game``) as :func:`save_policy` does, recording also its PPO
    hyperparameters and progress (:func:`ppo_settings`), from which :func:`load_model` resumes it."""
    return _write(model.policy, path, game, {"ppo": ppo_settings(model)}, extra)


def _write(policy: MaskableActorCriticPolicy, path: str | Path, game: BatchedGame, own: dict[str, Any],
           extra: dict[str, Any] | None) -> Path:
    """The model file of ``policy``: the metadata of :func:`save_policy` with ``own`` entries, then ``extra`` (which
    may replace none of them: ``ValueError``)."""
    meta = {**model_metadata(game), "policy": policy_settings(policy), **own,
            "versions": {"torch": th.__version__, "stable_baselines3": stable_baselines3.__version__,
                         "sb3_contrib": sb3_contrib.__version__}}
    clash = set(meta) & set(extra or {})
    if clash:
        raise ValueError(f"save_model: extra entries {sorted(clash)} would replace the model's own metadata")
    return write_model_file(path, {**meta, **(extra or {})},
                            {POLICY_MEMBER: policy.state_dict(), OPTIMIZER_MEMBER: policy.optimizer.state_dict()})


def _widths(value: Any) -> bool:
    return isinstance(value, list) and all(KINDS["positive integer"](w) for w in value)


def policy_kwargs(meta: dict[str, Any], path: str | Path) -> tuple[type[MaskableActorCriticPolicy], dict[str, Any]]:
    """The policy class and constructor arguments described by ``cardgym.json``, every value checked."""
    section = field(meta, "policy", "JSON object", path, "")
    kwargs = section.get("features_extractor_kwargs")
    for retired, what in RETIRED.items():
        if section.get("class") == retired or (isinstance(kwargs, dict) and retired in kwargs):
            raise ModelFileError(f"{where(path)}: a model of cardgym's first trainer, with {what}, which policies no "
                                 "longer have: train it again with cardgym train")
    cls = POLICY_CLASSES[named(section, "class", POLICY_CLASSES, path, "policy")]
    arch = section.get("net_arch")
    if not (_widths(arch) or (isinstance(arch, dict) and set(arch) == {"pi", "vf"} and _widths(arch["pi"])
                              and _widths(arch["vf"]))):
        raise ModelFileError(f"{where(path)}: {METADATA_NAME} policy.net_arch must be a list of layer widths or "
                             f"{{\"pi\": [...], \"vf\": [...]}}, got {short(arch)}")
    features_kwargs = field(section, "features_extractor_kwargs", "JSON object", path, "policy")
    for key in features_kwargs:
        field(features_kwargs, key, "positive integer", path, "policy.features_extractor_kwargs")
    optimizer_kwargs = field(section, "optimizer_kwargs", "JSON object", path, "policy")
    for key, value in optimizer_kwargs.items():
        if not (is_number(value) or isinstance(value, bool) or (isinstance(value, list) and value
                                                                 and all(is_number(v) for v in value))):
            raise ModelFileError(f"{where(path)}: {METADATA_NAME} policy.optimizer_kwargs.{key} must be a number, "
                                 f"a boolean or a list of numbers, got {short(value)}")
    advisor = section.get("advisor", "")
    if not isinstance(advisor, str):
        raise ModelFileError(f"{where(path)}: {METADATA_NAME} policy.advisor must be a bot name, got {short(advisor)}")
    gain = section.get("advice_gain", False)
    if gain not in (True, False) or (gain and not advisor):
        raise ModelFileError(f"{where(path)}: {METADATA_NAME} policy.advice_gain must be true or false, and true only "
                             f"with an advisor, got {short(gain)}")
    return cls, {
        **({"advisor": advisor} if advisor else {}),
        **({"advice_gain": True} if gain else {}),
        "net_arch": arch,
        "activation_fn": ACTIVATIONS[named(section, "activation_fn", ACTIVATIONS, path, "policy")],
        "ortho_init": field(section, "ortho_init", "boolean", path, "policy"),
        "features_extractor_class": FEATURE_EXTRACTORS[named(section, "features_extractor", FEATURE_EXTRACTORS,
                                                             path, "policy")],
        "features_extractor_kwargs": dict(features_kwargs),
        "share_features_extractor": field(section, "share_features_extractor", "boolean", path, "policy"),
        "normalize_images": field(section, "normalize_images", "boolean", path, "policy"),
        "optimizer_class": OPTIMIZERS[named(section, "optimizer", OPTIMIZERS, path, "policy")],
        "optimizer_kwargs": {k: tuple(v) if isinstance(v, list) else v for k, v in optimizer_kwargs.items()},
    }


def _spaces(game: BatchedGame, advised: bool = False) -> tuple[spaces.Box, spaces.Discrete]:
    """The observation and action spaces a policy for ``game`` sees (those of the SB3 training env,
    :class:`training.sb3_vec_env.CardVecEnv`; with an advisor, the observation has the advice appended)."""
    size = game.observation_size + (game.num_actions if advised else 0)
    return spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32), spaces.Discrete(game.num_actions)


@dataclasses.dataclass
class PolicyFile:
    """What :func:`read_policy` found in a model file, every part checked."""

    meta: dict[str, Any]
    """The parsed ``cardgym.json``."""
    policy_class: type[MaskableActorCriticPolicy]
    """The policy class it names."""
    kwargs: dict[str, Any]
    """The policy's constructor arguments (:func:`policy_kwargs`)."""
    weights: dict[str, th.Tensor]
    """The policy's ``state_dict`` from ``policy.pth``."""
    skeleton: MaskableActorCriticPolicy
    """The policy built on torch's ``meta`` device: its shapes, with no memory behind them."""


def _build(cls: type[MaskableActorCriticPolicy], game: BatchedGame, kwargs: dict[str, Any],
           path: str | Path) -> MaskableActorCriticPolicy:
    kwargs = dict(kwargs)
    advisor, gain = kwargs.pop("advisor", ""), kwargs.pop("advice_gain", False)
    if advisor and advisor not in advisor_names(game.name):
        raise ModelFileError(f"{where(path)}: {METADATA_NAME} policy.advisor must be one of "
                             f"{', '.join(advisor_names(game.name))}, got {short(advisor)}")
    try:
        policy = cls(*_spaces(game, bool(advisor)), FloatSchedule(0.0), **kwargs)
    except Exception as e:  # arguments the class refuses: TypeError, ValueError, RuntimeError, AssertionError, ...
        raise ModelFileError(f"{where(path)}: the policy described in {METADATA_NAME} cannot be built: "
                             f"{one_line(e)}") from None
    _advise(policy, Advisor(game, advisor) if advisor else None, gain)
    return policy


def _advise(policy: MaskableActorCriticPolicy, advisor: Advisor | None, gain: bool) -> None:
    """Give ``policy`` its ``advisor`` and, if ``gain``, an :class:`AdviceGain` (and an optimiser that trains it,
    built as stable-baselines3 builds the policy's own)."""
    policy.advisor = advisor
    if gain:
        policy.advice_gain = AdviceGain(policy.observation_space.shape[0] - advisor.num_actions)
        policy.optimizer = policy.optimizer_class(policy.parameters(), lr=0.0, **policy.optimizer_kwargs)


def policy_input(policy: MaskableActorCriticPolicy, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """What ``policy`` takes for the acting seats' observations ``obs`` and legal actions ``mask``: the
    observations, with its advisor's advice appended if it has one (:mod:`agents.advice`)."""
    advisor = getattr(policy, "advisor", None)
    return obs if advisor is None else advisor.inputs(obs, mask)


def frozen_copy(policy: MaskableActorCriticPolicy) -> MaskableActorCriticPolicy:
    """A copy of ``policy`` (same shape, advisor and weights) in evaluation mode: it does not change as ``policy``
    trains."""
    frozen = type(policy)(**policy._get_constructor_parameters())
    _advise(frozen, getattr(policy, "advisor", None), getattr(policy, "advice_gain", None) is not None)
    frozen.load_state_dict(policy.state_dict())
    frozen.set_training_mode(False)
    return frozen


def build_policy(settings: dict[str, Any], game: BatchedGame, source: str | Path) -> MaskableActorCriticPolicy:
    """A fresh policy (untrained weights) of the ``settings`` a model file records (:func:`policy_settings`), checked
    as a file's are (raises :class:`ModelFileError` naming ``source``)."""
    policy_class, kwargs = policy_kwargs({"policy": settings}, source)
    return _build(policy_class, game, kwargs, source)


def tensor_file_limit(skeleton: MaskableActorCriticPolicy) -> int:
    """The most bytes ``policy.pth`` or ``policy.optimizer.pth`` of this policy may unpack to: four float32 copies of
    its parameters (weights; Adam's two or three moment averages) and 1 MiB for names and layout."""
    return 4 * 4 * sum(p.numel() for p in skeleton.parameters()) + 2**20


def read_policy(path: str | Path, game: BatchedGame) -> PolicyFile:
    """Read and check the metadata and the weights of the model file at ``path`` for ``game``. The described policy
    is first built on the ``meta`` device and the weights compared with it, so a file cannot make us allocate more
    than the tensors it holds."""
    meta = read_metadata(path)
    check_metadata(meta, game, path)
    cls, kwargs = policy_kwargs(meta, path)
    with th.device("meta"):
        skeleton = _build(cls, game, kwargs, path)
    weights = read_tensors(path, POLICY_MEMBER, "the policy weights", tensor_file_limit(skeleton))
    check_state_dict(weights, skeleton.state_dict(), path)
    return PolicyFile(meta, cls, kwargs, weights, skeleton)


def load_policy(path: str | Path, game: BatchedGame) -> MaskableActorCriticPolicy:
    """The policy of the model file at ``path``, checked against ``game`` and built from its data only (raises
    :class:`ModelFileError`), in evaluation mode on the CPU."""
    found = read_policy(path, game)
    policy = _build(found.policy_class, game, found.kwargs, path)
    policy.load_state_dict(found.weights)
    policy.set_training_mode(False)
    return policy


def _adam_state_keys(group: dict[str, Any]) -> set[str]:
    return {"step", "exp_avg", "exp_avg_sq"} | ({"max_exp_avg_sq"} if group.get("amsgrad") else set())


def load_trainable(path: str | Path, game: BatchedGame) -> tuple[MaskableActorCriticPolicy, dict[str, Any]]:
    """The policy of the model file at ``path`` with its optimiser's state, in training mode, and the file's
    metadata: what ``cardgym train --resume`` goes on from (raises :class:`ModelFileError`)."""
    found = read_policy(path, game)
    groups = found.skeleton.optimizer.param_groups
    optimizer_state = check_optimizer_state(
        read_tensors(path, OPTIMIZER_MEMBER, "the optimiser state", tensor_file_limit(found.skeleton)),
        [[tuple(p.shape) for p in g["params"]] for g in groups], lambda g: _adam_state_keys(groups[g]), path)
    policy = _build(found.policy_class, game, found.kwargs, path)
    policy.load_state_dict(found.weights)
    optimizer = policy.optimizer
    optimizer.load_state_dict({"state": optimizer_state, "param_groups": optimizer.state_dict()["param_groups"]})
    policy.set_training_mode(True)
    return policy, found.meta


def load_model(path: str | Path, game: BatchedGame, env: Any, seed: int | None = None,
               tensorboard_log: str | None = None) -> MaskablePPO:
    """A MaskablePPO on ``env`` continuing the model file at ``path``: its policy, weights, optimiser state,
    hyperparameters and step count, all from the file's data (raises :class:`ModelFileError`). ``seed`` and
    ``tensorboard_log`` are the new run's."""
    found = read_policy(path, game)
    if "advisor" in found.kwargs:
        raise ModelFileError(f"{where(path)}: a policy with an advisor goes on training with cardgym train --resume, "
                             "not with Stable-Baselines3")
    section = field(found.meta, "ppo", "JSON object", path, "")
    hyper = {key: field(section, key, kind, path, "ppo", optional) for key, (kind, optional) in PPO_FIELDS.items()}
    counters = {key: field(section, key, "non-negative integer", path, "ppo") for key in PPO_COUNTERS}
    groups = found.skeleton.optimizer.param_groups
    optimizer_state = check_optimizer_state(
        read_tensors(path, OPTIMIZER_MEMBER, "the optimiser state", tensor_file_limit(found.skeleton)),
        [[tuple(p.shape) for p in g["params"]] for g in groups], lambda g: _adam_state_keys(groups[g]), path)
    try:
        model = MaskablePPO(found.policy_class, env, policy_kwargs=found.kwargs, device="cpu", seed=seed,
                            tensorboard_log=tensorboard_log, **hyper)
    except (AssertionError, ValueError, MemoryError) as e:  # SB3 refuses some values; a huge n_steps cannot allocate
        raise ModelFileError(f"{where(path)}: the PPO settings in {METADATA_NAME} cannot be used on this env: "
                             f"{one_line(e)}") from None
    model.policy.load_state_dict(found.weights)
    optimizer = model.policy.optimizer
    optimizer.load_state_dict({"state": optimizer_state, "param_groups": optimizer.state_dict()["param_groups"]})
    model.num_timesteps, model._n_updates = counters["num_timesteps"], counters["n_updates"]
    return model


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
            policy = load_policy(path, game)
            self.name = f"ppo:{Path(path).name}"
        self.policy = policy
        self.policy.set_training_mode(False)
        self.deterministic = deterministic

    @classmethod
    def snapshot(cls, game: BatchedGame, policy: Any, deterministic: bool = False) -> PPOAgent:
        """A frozen copy of a policy in training (self-play opponents, evaluation during training)."""
        agent = cls(game, policy=frozen_copy(policy), deterministic=deterministic)
        agent.name = "ppo-snapshot"
        return agent

    def logits(self, obs: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """``(B, num_actions)`` action logits of the policy before masking (``mask``: the legal actions, which a
        policy with an advisor needs)."""
        if getattr(self.policy, "advisor", None) is not None:
            if mask is None:
                raise ValueError("a policy with an advisor needs the legal actions (mask) to choose")
            obs = policy_input(self.policy, np.asarray(obs, np.float32), np.asarray(mask, bool))
        return self._logits_of(obs)

    def _logits_of(self, x: np.ndarray) -> np.ndarray:
        """The logits for the policy's inputs ``x`` (:func:`policy_input`)."""
        p = self.policy
        with th.no_grad():
            inputs = th.as_tensor(x, dtype=th.float32)
            features = p.extract_features(inputs, p.pi_features_extractor)
            return action_logits(p, p.mlp_extractor.forward_actor(features), inputs).numpy()

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self._choose(self.logits(obs, mask), mask, rng)

    def _choose(self, scores: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if not self.deterministic:
            scores = scores + rng.gumbel(size=scores.shape).astype(np.float32)  # Gumbel-max: a softmax sample
        scores[~mask.astype(bool)] = -np.inf
        return scores.argmax(axis=1).astype(np.int64)

    def together_key(self) -> tuple:
        """PPO players with the same advisor (a zoo bot, named in the model file) and the same way of choosing play
        together (:mod:`agents.together`): the advice is asked once for all their rows."""
        advisor = getattr(self.policy, "advisor", None)
        return "ppo", id(self.game), advisor and advisor.name, self.deterministic

    def act_together(self, players: list[PPOAgent], which: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                     rng: np.random.Generator) -> np.ndarray:
        """Each row's player's action: the advice for every row at once, then each player's network on its rows."""
        x = policy_input(self.policy, np.asarray(obs, np.float32), np.asarray(mask, bool))
        scores = np.empty((len(obs), self.game.num_actions), np.float32)
        for k, player in enumerate(players):
            rows = which == k
            scores[rows] = player._logits_of(x[rows])
        return self._choose(scores, mask, rng)
