"""Agents by name: ``make_agent("heuristic", game)``.

Specs:

- a bot name of the game's zoo (:data:`agents.zoo.BOTS`; ``cardgym agents --game G`` lists them): ``random``
  (uniform over the legal actions), ``heuristic`` (the game's hand-written heuristic) and the playing styles;
- ``ppo:path/to/model.zip``: a trained model (``agents.ppo.PPOAgent(game, path)``, imported only when asked for);
- ``module:Class``: any importable agent class, constructed as ``Class(game)``.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from agents.base import Agent
from agents.zoo import BOTS, bot_class
from envs.core.game import BatchedGame

SPEC_HELP = "a bot name (random, heuristic, … : cardgym agents --game G), ppo:path/to/model.zip or module:Class"


class AgentSpecError(ValueError):
    """An agent spec that names no agent, or an agent that cannot be built for this game."""


def _import_class(path: str, spec: str) -> type:
    module_name, _, cls_name = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name is not None and module_name.startswith(e.name):
            raise AgentSpecError(f"agent {spec!r}: no module named {module_name!r}") from e
        raise
    if not hasattr(module, cls_name):
        raise AgentSpecError(f"agent {spec!r}: module {module_name!r} has no attribute {cls_name!r}")
    return getattr(module, cls_name)


def make_agent(spec: str, game: BatchedGame) -> Agent:
    """The agent named by ``spec`` (see the module docstring), built for ``game``."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"an agent spec must be a non-empty string ({SPEC_HELP}), got {spec!r}")
    spec = spec.strip()
    bots = BOTS.get(game.name, {})
    if spec in bots:
        return bot_class(game.name, spec)(game)
    if spec.startswith("ppo:"):
        path = spec[len("ppo:"):]
        if not Path(path).is_file():
            raise AgentSpecError(f"agent {spec!r}: model file {path!r} not found")
        try:
            module = importlib.import_module("agents.ppo")
        except ModuleNotFoundError as e:
            if e.name == "agents.ppo":
                raise AgentSpecError(
                    f"agent {spec!r}: PPO agents need agents/ppo.py (PPOAgent), which is not installed"
                ) from e
            raise
        return module.PPOAgent(game, path)
    if ":" in spec:
        cls = _import_class(spec, spec)
        agent = cls(game)
        if not callable(getattr(agent, "act", None)):
            raise AgentSpecError(f"agent {spec!r}: {cls.__name__} has no act(obs, mask, rng) method")
        return agent
    raise AgentSpecError(
        f"unknown agent {spec!r}; known agents: {', '.join(bots)} (the {game.name} zoo), ppo:path/to/model.zip or "
        "module:Class"
    )
