"""The agent protocol: batched decisions from observations and legal-action masks only (never the state).

An agent is built for one game core (``Agent(game)``: it may read the game's ``num_players``, ``config`` and
documented observation layout) and answers ``act(obs, mask, rng)`` for a batch of tables at once:
``obs`` is ``(B, game.observation_size) float32`` (each row the observation of the seat to act), ``mask`` is
``(B, game.num_actions) bool`` and the result is ``(B,) int64`` legal action ids.

Every agent has a ``name`` and a ``version`` (an int from 1): a change of a named agent's behaviour bumps its
version, and results label each seat ``name@vN`` (:func:`agent_label`) so that numbers from different versions are
never mixed up.

An agent that searches may ask for more: with ``wants_seat_view = True`` it is called as ``act(obs, mask, rng,
views=views)``, where ``views[b]`` is the :class:`envs.seatview.SeatView` of the seat to act at table ``b``: its
observation after every step of the deal and the public actions (never the state). Every place that calls agents
goes through :func:`call_agent`, which passes views only to the agents that want them, so other agents keep the
three-argument ``act``.

The protocol lives with the game cores so that the envs (whose opponents are agents) use it without importing the
``agents`` package; the agents there implement it.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from envs.core.checks import ArgumentError, show
from envs.core.game import BatchedGame


@runtime_checkable
class Agent(Protocol):
    """What every agent provides."""

    name: str
    """Short name for tables and plots, e.g. ``"heuristic"``."""

    version: int
    """Behaviour version of this name, from 1; bumped whenever the agent's choices change."""

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One legal action per row."""
        ...


class AgentBase:
    """Convenience base class: keeps the game and checks nothing else."""

    name = "agent"
    version = 1

    def __init__(self, game: BatchedGame) -> None:
        self.game = game


def wants_seat_view(agent: object) -> bool:
    """Whether ``agent`` asks for seat views (``wants_seat_view = True``)."""
    return bool(getattr(agent, "wants_seat_view", False))


def call_agent(agent: Any, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
               views: list[Any] | None = None) -> np.ndarray:
    """``agent.act(obs, mask, rng)``, or ``agent.act(obs, mask, rng, views=views)`` for an agent that wants seat
    views (then ``views`` must hold one :class:`envs.seatview.SeatView` per row)."""
    if wants_seat_view(agent):
        if views is None or len(views) != len(obs):
            raise ArgumentError(f"agent {getattr(agent, 'name', type(agent).__name__)!r} wants seat views "
                                f"(wants_seat_view = True): pass one per row, got {show(views)}")
        return agent.act(obs, mask, rng, views=views)
    return agent.act(obs, mask, rng)


def agent_label(agent: object) -> str:
    """``"name@vN"``: the agent's name and behaviour version (version 1 for agents that declare none)."""
    name = getattr(agent, "name", None) or type(agent).__name__
    return f"{name}@v{int(getattr(agent, 'version', 1))}"


def check_agent(agent: Any, game: BatchedGame, argument: str) -> None:
    """Raise :class:`~envs.core.checks.ArgumentError` (naming ``argument``) unless ``agent`` has an ``act`` method
    and, if it says which game it was built for (its ``game`` attribute), that is ``game``'s rules, table size and
    options: an agent built for another game reads its observations wrongly and may not fit its action space."""
    if not callable(getattr(agent, "act", None)):
        raise ArgumentError(f"{argument} must be an agent with an act(obs, mask, rng) method, got {show(agent)}")
    built = getattr(agent, "game", None)
    if isinstance(built, BatchedGame) and not built.same_game(game):
        name = getattr(agent, "name", type(agent).__name__)
        raise ArgumentError(f"{argument} ({name!r}) was built for {built!r}, not for {game!r}; build it for this game")
