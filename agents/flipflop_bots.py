"""The Flip Flop bot zoo: drop and discard styles built on :class:`agents.flipflop_heuristic.FlipFlopHeuristic`.

Each style changes the heuristic's parameters (when to drop; how much a card that builds a spread is kept; whether
it takes discards that start a spread) and keeps the rest: laying every spread and lay-off it can, the
opponent-total estimates of the drop. All read only the observation and the mask, numpy over the batch, and never
use the rng.
"""

from __future__ import annotations

from agents.flipflop_heuristic import FlipFlopHeuristic


class FlipFlopEarly(FlipFlopHeuristic):
    """Drops early: as soon as its total is probably the lowest, or 8 points or less; the heuristic's discards.

    It drops when its total is below the lowest estimated opponent total with a safety margin of 1 point per square
    root of the opponent's unknown cards (the heuristic wants 3.5), or with 8 points or less (the heuristic 3): it
    ends deals before the others can improve, at the risk of being caught (F19) more often.
    """

    name = "early"
    drop_margin = 1.0
    drop_at = 8


class FlipFlopPatient(FlipFlopHeuristic):
    """Drops late: only when its total is surely the lowest, or 1 point; plays on to go out otherwise.

    Its drop margin is 7 points per square root of the opponent's unknown cards (the heuristic 3.5), and it drops
    unconditionally only with a total of 1 (an ace). It is rarely caught, but gives the others more turns to
    improve or go out. Draws and discards are the heuristic's.
    """

    name = "patient"
    drop_margin = 7.0
    drop_at = 1


class FlipFlopDumper(FlipFlopHeuristic):
    """Discards its highest card first, spreads or no spreads, to keep its total low; the heuristic's drops.

    A points player: the discard is always the card with the most points (a king before a ten, a ten before a
    nine), even one that pairs or runs with its hand; it still lays every spread that it happens to hold and takes
    from the discard pile by the heuristic's rule (a card that makes a spread, can be laid off, or is a cheap
    exchange).
    """

    name = "dumper"
    pair_keep = 0
    next_keep = 0
    gap_keep = 0


class FlipFlopBuilder(FlipFlopHeuristic):
    """Keeps runs and sets in the making: holds building cards longer and takes discards that start a spread.

    Its discard keeps a card that pairs another of its rank (20 points of keep, the heuristic 12), sits next to a
    card of its suit (10, the heuristic 6) or one gap from one (5, the heuristic 3). From the discard pile it also
    takes a card that starts a spread with its hand when it would then discard a card worth more points. It
    aims to go out (and tunk, F20) rather than to drop low, so its drop margin is 5 points per square root of
    unknown cards (the heuristic 3.5).
    """

    name = "builder"
    pair_keep = 20
    next_keep = 10
    gap_keep = 5
    take_to_build = True
    drop_margin = 5.0
