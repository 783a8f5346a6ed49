"""The opponent pool of a training run: fixed agents and frozen snapshots of the learner, with their weights.

Each opponent seat of a newly dealt table draws one member of the pool with probability proportional to its weight
(:meth:`training.rollout.Rollout.set_opponents`). A member's *prior* weight is its share of the pool as given
(``opponents = "heuristic=2,random=1,tight,snapshots=1"``, :mod:`training.seats`); the snapshots of the learner
together get the ``snapshots`` weight's share of the pool (:attr:`~training.seats.Seats.selfplay_share`) once there
are any, and the fixed agents the rest, in their given proportions.

The league (always on) multiplies the prior by how far the learner still is from beating each fixed member: after
every periodic evaluation (:mod:`training.pool_eval`), member ``i`` gets weight
``prior_i * max((1 - ahead_i) ** LEAGUE_POWER, LEAGUE_FLOOR)``, where ``ahead_i`` is the learner's share of the
differences between its results against that member and the heuristic's in the same seats of the same duplicate
deals (:attr:`training.evaluate.FieldAdvantage.ahead`: 0.5 when it plays like the heuristic, below 0.5 exactly when
it loses chips to the heuristic there; deals the two play alike do not count, and each deal weighs what was at
stake). This is prioritised fictitious self-play (AlphaStar's "hard" weighting ``(1 - p)**2``, with ``p`` the
learner's chance to beat the reference rather than the opponent): seats go to the opponents the learner handles
worst, and an opponent it has mastered keeps :data:`LEAGUE_FLOOR` of its prior so that what was learned against it is
not forgotten. Snapshots are not measured (they count as ``ahead = 0.5``) and share their prior equally.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from agents.registry import AgentSpecError, make_agent
from agents.zoo import bot_names
from envs.core.agent import Agent
from envs.core.game import BatchedGame
from training.limits import MAX_FAMILY_MEMBERS
from training.seats import SeatsError, parse_seats


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


FAMILY_MEMBERS = {"styles": "style", "loose-styles": "loose-style", "careless-styles": "careless-style",
                  "careless-bots": "careless-bot"}
"""``--opponents`` shorthand for a family's first N members → the agent spec of one member (``style:K``)."""


def parse_opponents(spec: str, game: BatchedGame) -> list[PoolMember]:
    """The fixed agents of an ``opponents`` list (:mod:`training.seats`; its ``learner`` and ``snapshots`` are not
    pool members) as pool members, ``"heuristic=3,random=1"`` (weight 1 when not given); ``zoo=W`` stands for every
    bot of the game's zoo (:func:`agents.zoo.bot_names`, random and the heuristic among them) sharing the weight
    ``W``; ``styles:N=W`` stands for the members ``style:0`` … ``style:N-1`` of the game's style family
    (:mod:`agents.styles`) sharing the weight ``W``, and ``loose-styles:N=W``, ``careless-styles:N=W`` and
    ``careless-bots:N=W`` likewise for ``loose-style:0`` …, ``careless-style:0`` … and ``careless-bot:0`` …
    (:mod:`agents.styles`), N from 1 to :data:`~training.limits.MAX_FAMILY_MEMBERS`. Raises
    :class:`~agents.registry.AgentSpecError` (one line) on a bad weight or N, an unknown agent, a name given twice,
    or a list without a fixed agent of positive weight."""
    try:
        seats = parse_seats(spec)
    except SeatsError as e:
        raise AgentSpecError(str(e)) from None
    members: list[PoolMember] = []
    for item, weight in seats.fixed:
        names, each = [item], weight
        family, _, count = item.partition(":")
        if item == "zoo":
            names = bot_names(game.name)
            each = weight / len(names)
        elif family in FAMILY_MEMBERS:
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
        raise AgentSpecError(f"opponents {spec!r}: need at least one fixed agent with a positive weight")
    return members


LEAGUE_POWER = 2.0
"""The power of how far the learner is from beating a member in that member's league factor."""
LEAGUE_FLOOR = 0.05
"""The least league factor: a member the learner has mastered keeps this share of its prior."""


def league_weight(ahead: float) -> float:
    """The league's factor for a member against which the learner is ``ahead`` (see the module docstring)."""
    return max((1.0 - ahead) ** LEAGUE_POWER, LEAGUE_FLOOR)


class OpponentPool:
    """Fixed agents plus up to ``max_snapshots`` snapshots of the learner (the oldest dropped first)."""

    def __init__(self, members: list[PoolMember], selfplay_share: float = 0.5, max_snapshots: int = 5,
                 opponent_share: float = 1.0) -> None:
        if not 0 <= selfplay_share <= 1:
            raise ValueError(f"selfplay_share must be in [0, 1], got {selfplay_share}")
        if not 0 <= opponent_share <= 1:
            raise ValueError(f"opponent_share must be in [0, 1], got {opponent_share}")
        self.opponent_share = opponent_share
        """The chance that a seat of a new table goes to the pool rather than the learner, once a member may take
        it (:attr:`training.seats.Seats.opponent_share`)."""
        if max_snapshots < 1:
            raise ValueError(f"max_snapshots must be at least 1, got {max_snapshots}")
        self.fixed = list(members)
        self.snapshots: list[PoolMember] = []
        self.selfplay_share, self.max_snapshots = selfplay_share, max_snapshots
        self.ahead: dict[str, float] = {}

    @property
    def members(self) -> list[PoolMember]:
        """Fixed agents first, then the snapshots, oldest first."""
        return self.fixed + self.snapshots

    def add_fixed(self, member: PoolMember) -> None:
        """Add a fixed agent (an exploiter of the learner, :mod:`training.exploiters`) after the others."""
        if any(m.name == member.name for m in self.members):
            raise ValueError(f"the pool already has a member {member.name!r}")
        self.fixed.append(member)

    def add_snapshot(self, name: str, agent: Agent) -> None:
        """Add a frozen copy of the learner (dropping the oldest beyond ``max_snapshots``)."""
        self.snapshots = (self.snapshots + [PoolMember(name, agent, 1.0, snapshot=True)])[-self.max_snapshots:]

    def priors(self) -> list[float]:
        """The members' weights before the league, summing to 1 (all 0 when no member may take a seat): the snapshots
        together ``selfplay_share`` once there are any, the fixed agents the rest."""
        total = sum(m.weight for m in self.fixed)
        share = self.selfplay_share if self.snapshots else 0.0
        fixed = [m.weight * (1 - share) / total if total else 0.0 for m in self.fixed]
        return fixed + [share / max(len(self.snapshots), 1)] * len(self.snapshots)

    def seating(self) -> tuple[list[Agent], list[float] | None, float]:
        """What the pool hands the rollout (:meth:`training.rollout.Rollout.set_opponents`) for the tables dealt
        from now on: its members' agents, their seat weights and the chance that a seat goes to the pool; no agent
        and 0 while no member may take a seat (a pool of snapshots alone before the first one)."""
        if not self.opponent_share or not any(self.priors()):
            return [], None, 0.0
        return [m.agent for m in self.members], self.weights(), self.opponent_share

    def set_ahead(self, ahead: Mapping[str, float]) -> None:
        """Record, per member name, how often the learner is ahead of the heuristic against it (league weights)."""
        self.ahead.update(ahead)

    def weights(self) -> list[float]:
        """Seat weights of the members, summing to 1: the priors times the league factors (members not measured
        yet, snapshots among them, count as ``ahead = 0.5``)."""
        w = [p * league_weight(self.ahead.get(m.name, 0.5)) for p, m in zip(self.priors(), self.members, strict=True)]
        total = sum(w)
        return [x / total if total else 0.0 for x in w]
