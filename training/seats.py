"""Who takes the seats of a new training table: the ``opponents`` setting read as one weighted list.

``opponents = "learner=25,snapshots=5,zoo=8,styles:8=4"`` gives each seat of a newly dealt table to the *learner* (the
policy in training; every learner seat's decisions train it), to the learner's *snapshots* (together) or to a fixed
agent, with probability proportional to the weights: here half the seats go to the learner, a tenth to its snapshots and
the rest to the zoo and the style family. Until the first snapshot is taken, the snapshots' seats go to the fixed agents
(to the learner when there are none: ``learner=3,snapshots=1`` is self-play against the learner's past selves from the
first snapshot on); every table keeps at least one learner seat (so a list without ``learner`` gives each table one
learner seat and the pool's agents at the others, and an empty list or ``learner`` alone is pure self-play). The
learner's share stays as given; the pool's seats (snapshots and fixed agents) are shared by priors from these weights
that the league reweights as the learner improves (:mod:`training.opponent_pool`). A weight left out is 1.

Kept free of heavy imports (the command line checks a recipe with it before loading torch).
"""

from __future__ import annotations

import dataclasses

LEARNER = "learner"
"""The name of the learner's seats in ``opponents``."""
SNAPSHOTS = "snapshots"
"""The name of the learner's snapshots' seats in ``opponents``."""


class SeatsError(ValueError):
    """An ``opponents`` list a user can fix (one line)."""


@dataclasses.dataclass(frozen=True)
class Seats:
    """The ``opponents`` setting split into the learner's, the snapshots' and the fixed agents' weights."""

    fixed: tuple[tuple[str, float], ...]
    """The fixed agents' specs as given (``zoo`` and family shorthands not expanded) and their weights, in order."""
    learner: float = 0.0
    """The learner's weight."""
    snapshots: float = 0.0
    """The snapshots' weight (together)."""

    @property
    def total(self) -> float:
        """All the weights."""
        return self.learner + self.snapshots + sum(w for _, w in self.fixed)

    @property
    def opponent_share(self) -> float:
        """The chance that a seat of a new table goes to the pool (snapshots and fixed agents), not the learner."""
        return 1.0 - self.learner / self.total if self.total else 0.0

    @property
    def selfplay_share(self) -> float:
        """The snapshots' share of the pool's seats once there are any."""
        pool = self.total - self.learner
        return self.snapshots / pool if pool else 0.0


def parse_seats(spec: str) -> Seats:
    """``"learner=25,snapshots=5,zoo=8,tight"`` → :class:`Seats`. Raises :class:`SeatsError` (one line) on a weight
    that is not a finite non-negative number, an empty name, a name given twice, or a list whose weights are all
    0."""
    if not isinstance(spec, str):
        raise SeatsError(f"opponents must be a string of comma-separated spec=weight, got {spec!r}")
    fixed: list[tuple[str, float]] = []
    own = {LEARNER: 0.0, SNAPSHOTS: 0.0}
    seen: set[str] = set()
    for item in (part.strip() for part in spec.split(",")) if spec.strip() else ():
        name, weight = item, 1.0
        if "=" in item:
            name, _, text = item.rpartition("=")
            name = name.strip()
            try:
                weight = float(text)
            except ValueError:
                raise SeatsError(f"opponent {item!r}: the weight after '=' must be a number") from None
            if not weight >= 0 or weight == float("inf"):
                raise SeatsError(f"opponent {item!r}: the weight must be a finite non-negative number")
        if not name:
            raise SeatsError(f"opponents {spec!r}: an empty name (give spec=weight, comma-separated)")
        if name in seen:
            raise SeatsError(f"opponents {spec!r}: {name!r} is given twice (give it one weight instead)")
        seen.add(name)
        if name in own:
            own[name] = weight
        else:
            fixed.append((name, weight))
    seats = Seats(tuple(fixed), own[LEARNER], own[SNAPSHOTS])
    if spec.strip() and seats.total <= 0:
        raise SeatsError(f"opponents {spec!r}: need at least one positive weight")
    return seats
