"""Hint features: numbers a card player works out from what they see, handed to a learning policy as extra inputs.

An MLP reading 52-card bit planes needs many games to learn what a poker hand is worth; the heuristics compute it
in a few numpy calls. A hint function maps a batch of a game's observations to a few such numbers, computed from the
observation alone (no hidden information, exactly what the agent could compute itself), and
:class:`agents.ppo.SymlogFeatures` with ``hints=<name>`` appends them to its input. A model file records the name,
so whoever loads it computes the same hints.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.flipflop_heuristic import drop_hints, table_hints
from agents.tripoli_heuristic import betting_hints

HINTS: dict[str, tuple[Callable[[np.ndarray], np.ndarray], int]] = {
    "tripoli-betting": (betting_hints, 4),
    "flipflop-drop": (drop_hints, 6),
    "flipflop-table": (table_hints, 10),
}
"""Hint name → (function from ``(B, observation_size)`` observations to ``(B, k)`` float32 hints, ``k``). A name
never changes meaning: model files record it (``flipflop-drop`` is kept for the models trained with it)."""
GAME_HINTS: dict[str, str] = {"tripoli": "tripoli-betting", "flipflop": "flipflop-table"}
"""The hints ``cardgym train --hints`` gives the policy in each game that has some."""


def game_hints(game: str) -> str:
    """The name of ``game``'s hint features; ``ValueError`` for a game without any."""
    if game not in GAME_HINTS:
        raise ValueError(f"the game {game} has no hint features (games with some: {', '.join(GAME_HINTS)})")
    return GAME_HINTS[game]
