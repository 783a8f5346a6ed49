"""Tripoli (Michigan Rummy / Rummoli / Poch) as a PettingZoo AEC environment — version 0.

(Observation and action tables: see envs/tripoli/core.py docstring; filled in with the core.)
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers

from envs.aec import CardGymEnv
from envs.tripoli.core import TripoliGame


def raw_env(num_players: int = 4, render_mode: str | None = None, **options: Any) -> CardGymEnv:
    """The unwrapped environment: ``num_players`` seats (2–9) and rule ``options`` (see ``TripoliConfig``)."""
    return CardGymEnv(TripoliGame(num_players=num_players, **options), render_mode=render_mode)


def env(num_players: int = 4, render_mode: str | None = None, **options: Any) -> wrappers.OrderEnforcingWrapper:
    """The environment with PettingZoo's order-enforcing wrapper (illegal actions raise, C9)."""
    return wrappers.OrderEnforcingWrapper(raw_env(num_players, render_mode, **options))
