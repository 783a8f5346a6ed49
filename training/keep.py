"""Which policy a training run keeps (:attr:`training.train_config.TrainConfig.keep`): the last one, or the best of
its periodic evaluations.

A time-budgeted run stops wherever its budget ends on the user's machine, and PPO's policy moves between
evaluations: two runs of the same seed follow the same trajectory and can stop on either side of an update that
re-learns an exploit of one opponent (measured: two fresh-clone runs of one seed stopped 0.1 M decisions apart, one
beating every field and one tying two; docs/experiments.md). ``best`` keeps the
evaluated policy whose worst opponent *family* is best, so the cut point matters less:

* the candidates are the evaluations of the second half of the PPO phase (in learner decisions) whose advantage over
  the heuristic in its own field is above its 95% interval (a policy that still plays like the heuristic ties every
  field at 0 and would otherwise win over a policy that beats all but one field narrowly);
* a candidate's score is the lowest mean advantage over the families of its evaluation's fields
  (:func:`family_of`: ``style:0`` … ``style:7`` form one family, ``self@…`` snapshots another, a named bot is its own),
  since the mean over a family's members is steadier than any one member's 2,000-deal result;
* the highest score wins, the later evaluation on a tie; with no candidate, the last policy is kept.

A run that ends on its step count evaluates twice at the same count: before its last update and, as its final
policy, after it; the two are told apart by their place in the curve.

The evaluations that choose are the periodic ones (their own deals, ``seed + 1``); the closing table plays other deals
(``seed + 2``), so its numbers carry no bias from the choice."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

KEEP_RULES = ("last", "best")
"""The values of :attr:`TrainConfig.keep`."""


def family_of(field: str) -> str:
    """The family of an evaluation field: ``self`` for the learner's snapshots (``self@<steps>``), the family name of a
    member (``careless-style:3`` → ``careless-style``), else the field itself (``heuristic``, ``tight``)."""
    if field.startswith("self@"):
        return "self"
    family, sep, member = field.rpartition(":")
    return family if sep and member.isdigit() else field


def worst_family(point: dict[str, Any]) -> float:
    """The lowest mean advantage over the families of a learning-curve point's fields (its heuristic advantage if it
    records no fields, as without the league)."""
    fields = point.get("fields")
    if not fields:
        return float(point["advantage"])
    members: dict[str, list[float]] = defaultdict(list)
    for name, row in fields.items():
        members[family_of(name)].append(float(row["advantage"]))
    return min(sum(values) / len(values) for values in members.values())


def best_point(curve: list[dict[str, Any]], start: int) -> int:
    """The index in ``curve`` (the periodic evaluations of a run, the last one the final policy's) of the point whose
    policy ``keep="best"`` keeps; ``start`` is the learner decisions at which the PPO phase began."""
    half = start + (curve[-1]["steps"] - start) / 2
    candidates = [i for i, p in enumerate(curve) if p["steps"] >= half and p["advantage"] - p["ci95"] > 0]
    if not candidates:
        return len(curve) - 1
    return max(candidates, key=lambda i: (worst_family(curve[i]), i))
