"""The suite's games by name: their cores, imported lazily (``make_game("tripoli", num_players=4, paycards="play")``),
and their environment versions."""

from __future__ import annotations

import importlib
from typing import Any

from envs.core.game import BatchedGame

GAMES = {
    "tripoli": "envs.tripoli.core:TripoliGame",
    "triolet": "envs.triolet.core:TrioletGame",
    "flipflop": "envs.flipflop.core:FlipFlopGame",
}
"""The one list of the suite's games: name → its core class."""

VERSIONS = {"tripoli": 1, "triolet": 1, "flipflop": 1}
"""Environment version of each game (PettingZoo's ``_vN``): a change of a game's rules, defaults, observation or
action space bumps it; ``envs.<game>_v<N>`` is the public module, ``cardgym/<game>-v<N>`` the registry id, and
model files and results record it."""


def env_version(name: str) -> str:
    """``"tripoli_v1"``: the versioned environment name of game ``name``."""
    game_class(name)  # refuses an unknown name
    return f"{name}_v{VERSIONS[name]}"


def game_class(name: str) -> type[BatchedGame]:
    """The core class of game ``name``."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
    module, cls = GAMES[name].split(":")
    return getattr(importlib.import_module(module), cls)


def make_game(name: str, num_players: int = 4, **options: Any) -> BatchedGame:
    """A batched core of game ``name`` for ``num_players`` seats with rule ``options``."""
    return game_class(name)(num_players=num_players, **options)
