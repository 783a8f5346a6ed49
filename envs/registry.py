"""Game cores by name, imported lazily: ``make_game("tripoli", num_players=4, paycards="play")``."""

from __future__ import annotations

import importlib
from typing import Any

from envs.core.game import BatchedGame

GAME_CLASSES = {
    "tripoli": "envs.tripoli.core:TripoliGame",
    "triolet": "envs.triolet.core:TrioletGame",
    "flipflop": "envs.flipflop.core:FlipFlopGame",
}


def game_class(name: str) -> type[BatchedGame]:
    """The core class of game ``name``."""
    if name not in GAME_CLASSES:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(GAME_CLASSES)}")
    module, cls = GAME_CLASSES[name].split(":")
    return getattr(importlib.import_module(module), cls)


def make_game(name: str, num_players: int = 4, **options: Any) -> BatchedGame:
    """A batched core of game ``name`` for ``num_players`` seats with rule ``options``."""
    return game_class(name)(num_players=num_players, **options)
