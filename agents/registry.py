"""Agents by name: ``make_agent("heuristic", game)``.

Specs:

- ``random``: :class:`agents.random_agent.RandomAgent`, uniform over the legal actions;
- ``heuristic``: the game's hand-written heuristic (``agents/<game>_heuristic.py``);
- ``ppo:path/to/model.zip``: a trained model (``agents.ppo.PPOAgent(game, path)``, imported only when asked for);
- ``module:Class``: any importable agent class, constructed as ``Class(game)``.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from agents.base import Agent
from envs.core.game import BatchedGame

HEURISTICS = {
    "tripoli": "agents.tripoli_heuristic:TripoliHeuristic",
    "triolet": "agents.triolet_heuristic:TrioletHeuristic",
    "flipflop": "agents.flipflop_heuristic:FlipFlopHeuristic",
}
"""Game name → its heuristic agent class."""

NAMED_AGENTS = ("random", "heuristic")
SPEC_HELP = "random, heuristic, ppo:path/to/model.zip or module:Class"


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
    if spec == "random":
        from agents.random_agent import RandomAgent

        return RandomAgent(game)
    if spec == "heuristic":
        if game.name not in HEURISTICS:
            raise AgentSpecError(f"no heuristic agent for game {game.name!r}")
        return _import_class(HEURISTICS[game.name], spec)(game)
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
    raise AgentSpecError(f"unknown agent {spec!r}; known agents: {SPEC_HELP}")
