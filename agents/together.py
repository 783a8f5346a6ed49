"""Many agents, each on its own rows, in few calls: the pool members that differ only in parameters play as one.

A training pool seats dozens of agents (the zoo, a style family, their careless versions), each at a few seats of a
step's tables. Called one by one, a numpy bot pays its fixed cost per call (a few dozen array operations on a
handful of rows) dozens of times a step. An agent may declare that it can play together with others:

- ``together_key()``: a hashable value; agents with equal keys can be played by one call;
- ``act_together(players, which, obs, mask, rng)``: the action of ``players[which[b]]`` in each row ``b``, for
  ``players`` that all have its key (itself among them).

:func:`act_each` groups the agents by key and calls each group once (an agent without a key, or alone in its group,
is called as usual). The actions are each player's own; only the random numbers a random or careless player draws
come from the shared stream in another order.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from envs.core.agent import Agent, call_agent


def together_key(agent: object) -> Hashable | None:
    """The agent's ``together_key()``, or ``None`` if it declares none (it plays alone)."""
    key = getattr(agent, "together_key", None)
    return key() if callable(key) else None


def groups_of(agents: Sequence[Agent]) -> list[list[int]]:
    """The indices of ``agents`` that can play together, group by group (an agent without a key alone)."""
    groups: dict[Hashable, list[int]] = {}
    for k, agent in enumerate(agents):
        key = together_key(agent)
        groups.setdefault(("alone", k) if key is None else key, []).append(k)
    return list(groups.values())


def act_each(agents: Sequence[Agent], groups: list[list[int]], who: np.ndarray, obs: np.ndarray, mask: np.ndarray,
             rng: np.random.Generator) -> np.ndarray:
    """The action of ``agents[who[b]]`` in each row ``b``, one call per group of :func:`groups_of` ``(agents)``
    that has rows."""
    actions = np.zeros(len(who), np.int64)
    for group in groups:
        rows = np.flatnonzero(np.isin(who, group))
        if not rows.size:
            continue
        present = np.unique(who[rows])
        if present.size == 1:
            actions[rows] = call_agent(agents[int(present[0])], obs[rows], mask[rows], rng)
        else:
            players = [agents[int(k)] for k in present]
            which = np.searchsorted(present, who[rows])
            actions[rows] = players[0].act_together(players, which, obs[rows], mask[rows], rng)
    return actions


class SameClassTogether:
    """Mix-in for a bot whose play is fixed by its class and game (every parameter a class attribute): all its
    instances built for one game play as one."""

    def together_key(self) -> Hashable:
        return "same-class", type(self), id(self.game)

    def act_together(self, players: list[Agent], which: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                     rng: np.random.Generator) -> np.ndarray:
        return self.act(obs, mask, rng)
