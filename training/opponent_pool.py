"""The opponent pool of a training run: fixed agents and frozen snapshots of the learner, with their weights.

Each opponent seat of a newly dealt table draws one member of the pool with probability proportional to its weight
(:meth:`envs.vector.CardVectorEnv.set_opponents`). A member's *prior* weight is its share of the pool as given
(``--opponents heuristic=2,random=1,tight``); with self-play the snapshots of the learner together get
``selfplay_share`` of the seats and the fixed agents the rest, in their given proportions.

With the *league* on, the prior is multiplied by how far the learner still is from beating each member: after every
periodic evaluation, member ``i`` gets weight ``prior_i * max((1 - ahead_i) ** power, floor)`` (``power`` 2 and
``floor`` 0.05 unless given), where ``ahead_i`` is the learner's share of the differences between its results
against that member and the heuristic's in the same seats of the same duplicate deals: the sum of the differences in
the learner's favour over the sum of their absolute values
(:class:`training.evaluate.FieldAdvantage`; 0.5 when it plays like the heuristic, below 0.5 exactly when it loses
chips to the heuristic there). Deals the two play alike do not count: an anchored learner plays most deals like the
heuristic, and counting them as half-wins pulled every member to about 0.5 and the weights to about equal. The share
weighs each deal by what was at stake: counting deals won and lost instead rates a learner that wins many small
pots and loses a few large ones as ahead of a member it is losing chips to. ``--league-by deals`` counts them
all the same (the share of those deals it did better in), which Le triolet's recipe uses (docs/training.md). This is
prioritised fictitious self-play (AlphaStar's "hard" weighting ``(1 - p)²``, with ``p`` the learner's chance to
beat the reference rather than the opponent): seats go to the opponents the learner handles worst, and an opponent
it has mastered keeps ``floor`` of its prior so that what was learned against it is not forgotten. The shares
``ahead`` of a pool mostly lie between 0.45 and 0.8: with the square a member the learner ties (0.5) gets four times
the seats of one it is well ahead of (0.75), and the mean chips PPO maximises may still pay for exploiting the many
members it beats at the cost of the few it does not. A larger ``power`` (``--league-power``, 16 times with 4) moves
the seats more sharply to the worst members; it needs a smaller ``floor`` (``--league-floor``), which otherwise caps
the factors of all but the worst (``0.5 ** 4 = 0.0625``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from agents.registry import AgentSpecError, make_agent
from envs.core.agent import Agent
from envs.core.game import BatchedGame
from training.limits import MAX_FAMILY_MEMBERS


@dataclasses.dataclass
class PoolMember:
    """One agent of the opponent pool."""

    name: str
    """Its spec (``"tight"``, ``"ppo:old.zip"``) or, for a snapshot of the learner, ``"self@<steps>"``."""
    agent: Agent
    """The agent playing the seats it draws."""
    weight: float
    """Its weight as given (fixed agents) or 1 (snapshots); :meth:`OpponentPool.priors` normalises them."""
    snapshot: bool = False
    """A frozen copy of the learner (self-play) rather than a fixed agent."""


FAMILY_MEMBERS = {"styles": "style", "careless-styles": "careless-style", "careless-bots": "careless-bot"}
"""``--opponents`` shorthand for a family's first N members → the agent spec of one member (``style:K``)."""


def parse_opponents(spec: str, game: BatchedGame) -> list[PoolMember]:
    """``"heuristic=3,random=1"`` → pool members (weight 1 when not given); ``styles:N=W`` stands for the members
    ``style:0`` … ``style:N-1`` of the game's style family (:mod:`agents.styles`) sharing the weight ``W``, and
    ``careless-styles:N=W`` and ``careless-bots:N=W`` likewise for ``careless-style:0`` … and ``careless-bot:0`` …
    (:mod:`agents.styles`), N from 1 to :data:`~training.limits.MAX_FAMILY_MEMBERS`. Raises
    :class:`~agents.registry.AgentSpecError` (one line) on a bad weight or N, an unknown
    agent, a name given twice, or a pool without a positive weight."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"opponents must be comma-separated agent specs, e.g. heuristic=3,random=1; got {spec!r}")
    members: list[PoolMember] = []
    for item in spec.split(","):
        item = item.strip()
        name, weight = item, 1.0
        if "=" in item:
            name, _, w = item.rpartition("=")
            name = name.strip()
            try:
                weight = float(w)
            except ValueError:
                raise AgentSpecError(f"opponent {item!r}: the weight after '=' must be a number") from None
            if not weight >= 0 or weight == float("inf"):
                raise AgentSpecError(f"opponent {item!r}: the weight must be a finite non-negative number")
        names, each = [name], weight
        family, _, count = name.partition(":")
        if family in FAMILY_MEMBERS:
            size = int(count) if count.isascii() and count.isdigit() and len(count) < 10 else 0
            if not 1 <= size <= MAX_FAMILY_MEMBERS:
                raise AgentSpecError(f"opponent {item!r}: {family}:N needs a number of players N from 1 to "
                                     f"{MAX_FAMILY_MEMBERS}, e.g. {family}:8")
            names, each = [f"{FAMILY_MEMBERS[family]}:{k}" for k in range(size)], weight / size
        for one in names:
            if any(m.name == one for m in members):
                raise AgentSpecError(f"opponents {spec!r}: {one!r} is given twice (give it one weight instead)")
            members.append(PoolMember(one, make_agent(one, game), each))
    if sum(m.weight for m in members) <= 0:
        raise AgentSpecError(f"opponents {spec!r}: need at least one agent with a positive weight")
    return members


def league_weight(ahead: float, floor: float, power: float = 2.0) -> float:
    """The league's factor for a member against which the learner is ``ahead`` (see the module docstring)."""
    return max((1.0 - ahead) ** power, floor)


class OpponentPool:
    """Fixed agents plus up to ``max_snapshots`` snapshots of the learner (the oldest dropped first)."""

    def __init__(self, members: list[PoolMember], selfplay_share: float = 0.5, max_snapshots: int = 5,
                 league_floor: float = 0.05, league_power: float = 2.0) -> None:
        if not 0 <= selfplay_share < 1:
            raise ValueError(f"selfplay_share must be in [0, 1), got {selfplay_share}")
        if max_snapshots < 1:
            raise ValueError(f"max_snapshots must be at least 1, got {max_snapshots}")
        if not 0 < league_floor <= 1:
            raise ValueError(f"league_floor must be in (0, 1], got {league_floor}")
        if not 0 < league_power < float("inf"):
            raise ValueError(f"league_power must be a positive finite number, got {league_power}")
        self.fixed = list(members)
        self.snapshots: list[PoolMember] = []
        self.selfplay_share, self.max_snapshots = selfplay_share, max_snapshots
        self.league_floor, self.league_power = league_floor, league_power
        self.ahead: dict[str, float] = {}

    @property
    def members(self) -> list[PoolMember]:
        """Fixed agents first, then the snapshots, oldest first."""
        return self.fixed + self.snapshots

    def add_snapshot(self, name: str, agent: Agent) -> None:
        """Add a frozen copy of the learner (dropping the oldest beyond ``max_snapshots``)."""
        self.snapshots = (self.snapshots + [PoolMember(name, agent, 1.0, snapshot=True)])[-self.max_snapshots:]

    def priors(self) -> list[float]:
        """The members' weights before the league, summing to 1."""
        total = sum(m.weight for m in self.fixed)
        share = self.selfplay_share if self.snapshots else 0.0
        fixed = [m.weight * (1 - share) / total for m in self.fixed]
        return fixed + [share / max(len(self.snapshots), 1)] * len(self.snapshots)

    def set_ahead(self, ahead: Mapping[str, float]) -> None:
        """Record, per member name, how often the learner is ahead of the heuristic against it (league weights)."""
        self.ahead.update(ahead)

    def weights(self, league: bool) -> list[float]:
        """Seat weights of the members, summing to 1: the priors, times the league factor when ``league``
        (members not measured yet count as ``ahead = 0.5``)."""
        w = self.priors()
        if league:
            factors = [league_weight(self.ahead.get(m.name, 0.5), self.league_floor, self.league_power)
                       for m in self.members]
            w = [p * f for p, f in zip(w, factors, strict=True)]
        total = sum(w)
        return [x / total for x in w]
