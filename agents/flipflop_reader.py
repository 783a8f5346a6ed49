"""A Flip Flop anchor: the heuristic with a drop that reads the table (``cardgym train --anchor reader``).

Not a zoo style (it plays as the heuristic at all but a few drop decisions, so its tables are the heuristic's), but
a hand-written player a learning policy may be anchored to (:mod:`agents.anchor`, :data:`agents.registry.ANCHOR_BOTS`)
and one any evaluation may seat by name (``reader``).
"""

from __future__ import annotations

from agents.flipflop_heuristic import FlipFlopHeuristic


class FlipFlopReader(FlipFlopHeuristic):
    """The heuristic, dropping earlier at tables that discard high cards and later at tables that do not.

    How soon to drop depends on the table (docs/training.md, "Anchoring"): careful players lower
    their totals turn after turn, so waiting for a safer drop lets them catch up, while careless players end deals
    soon whatever one does and are often caught, so waiting costs little there. One deal tells them apart by what
    they throw away: careful players discard their highest loose card, careless ones any card (the deck's mean is
    85/13 ≈ 6.5 points). So the drop's safety margin is 3.0 points per square root of an opponent's unknown cards
    (the heuristic's 3.5) once the cards discarded so far this deal average :attr:`high_discards` (7) points or
    more, and 4.0 before the first discard and below that (until the table has shown how it plays, the safer
    drop); and it drops unconditionally with a total of 2 points or less (the heuristic 3). The rest — draws,
    spreads, discards, the opponent estimates — is the heuristic's. The values come from a sweep of these settings
    against the training pool's fields (10,000 deals each; docs/training.md).
    """

    name = "reader"
    version = 2
    """2: the careful margin 3.0 (v1 3.25), and the careless one until the first discard (v1 the careful one)."""
    drop_margin = 3.0
    """The drop's safety margin at a table whose discards so far average :attr:`high_discards` points or more."""
    loose_margin = 4.0
    """The drop's safety margin before the first discard and at a table whose discards so far average fewer
    points."""
    high_discards = 7.0
    """Mean points of the discards so far from which a table counts as careful."""
    drop_at = 2
