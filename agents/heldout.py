"""Held-out styles: opponents the training pool never names, for the closing table's "never seen" fields.

A trained agent that beats the heuristic only against the bots it trained with has learned to exploit them, not
to play the game. These styles are built from the zoo's bots but play differently from every one of them, and
``cardgym train`` adds them to its closing table (``--fields zoo,heldout``) without ever putting them in the pool:

- ``noisy``: the heuristic, but one decision in four is a uniformly random legal action (a careless player; inside
  the range of the careless family of :mod:`agents.styles`, but none of its members);
- ``sloppy``: the heuristic with three random moves in five (beyond that range);
- ``mixed``: at each decision a different zoo bot decides, drawn uniformly (no consistent style to read);
- per game, zoo styles pushed beyond the range the zoo spans: in Tripoli a maniac (looser and bigger than
  ``aggressive``), a calling station, a rock (tight but big bets) and aggressive betting with longsuit's leads; in Flip
  Flop a reckless dropper and a hoarder (``builder`` pushed further).
"""

from __future__ import annotations

import numpy as np

from agents.flipflop_heuristic import FlipFlopHeuristic
from agents.registry import make_agent
from agents.styles import Careless
from agents.tripoli_bots import TripoliAggressive, TripoliLongSuit
from agents.tripoli_heuristic import TripoliHeuristic
from agents.zoo import bot_names
from envs.core.agent import AgentBase
from envs.core.game import BatchedGame


class CarelessHeuristic(Careless):
    """The heuristic with the class's share ``epsilon`` of uniformly random legal moves."""

    epsilon = 0.0

    def __init__(self, game: BatchedGame) -> None:
        super().__init__(game, make_agent("heuristic", game), self.epsilon, self.name)


class NoisyHeuristic(CarelessHeuristic):
    """The heuristic, with a uniformly random legal action at a quarter of its decisions."""

    name = "noisy"
    version = 2  # v2: draws a random move for every row and keeps it at the careless ones (per-table streams)
    epsilon = 0.25


class SloppyHeuristic(CarelessHeuristic):
    """The heuristic, with a uniformly random legal action at three decisions in five: more random than careful,
    beyond the careless family's range."""

    name = "sloppy"
    epsilon = 0.6


class MixedZoo(AgentBase):
    """At each decision one of the zoo's non-random bots, drawn uniformly, chooses the action."""

    name = "mixed"

    def __init__(self, game: BatchedGame) -> None:
        super().__init__(game)
        self.bots = [make_agent(name, game) for name in bot_names(game.name) if name != "random"]

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        who = rng.integers(len(self.bots), size=len(obs))
        actions = np.zeros(len(obs), np.int64)
        for k in np.unique(who).tolist():
            rows = np.flatnonzero(who == k)
            actions[rows] = self.bots[k].act(obs[rows], mask[rows], rng)
        return actions


class TripoliManiac(TripoliHeuristic):
    """Held out. Looser and bigger than ``aggressive``: opens above 0.2 equity, raises above 0.5, calls when its
    equity is within 0.1 of the pot odds, bets six times the heuristic's unit, never shows its low cards, and pays
    up to ``12 * (0.55 - p)`` chips for the spare hand (two more than the heuristic for the pay suit)."""

    name = "maniac"
    swap_below = 0.5
    bet_above = 0.2
    raise_above = 0.5
    call_margin = -0.1
    hopeless_below = 0.0
    bet_scale = 6.0
    spare_price = 12.0
    spare_worth = 0.55
    suit_price_extra = 2


class TripoliStation(TripoliHeuristic):
    """Held out. A calling station: almost never bets (only above 0.9 equity) or raises (above 0.99), but calls
    whenever its equity is within 0.25 of the pot odds; the heuristic's auctions and Michigan play."""

    name = "station"
    bet_above = 0.9
    raise_above = 0.99
    call_margin = -0.25
    bet_scale = 1.0


class TripoliRock(TripoliHeuristic):
    """Held out. Tight-aggressive: plays only strong hands (opens above 0.8 equity, calls with 0.4 over the pot
    odds, shows its low cards below 15% equity) but bets and raises them big (raises above 0.9, three times the
    heuristic's bet unit); never buys the spare hand."""

    name = "rock"
    swap_below = 0.3
    bet_above = 0.8
    raise_above = 0.9
    call_margin = 0.4
    hopeless_below = 0.15
    bet_scale = 6.0
    spare_price = 0.0


class TripoliAggroLongSuit(TripoliLongSuit, TripoliAggressive):
    """Held out. Two zoo styles in one player: ``aggressive``'s betting and auctions with ``longsuit``'s Michigan
    leads."""

    name = "aggro-longsuit"


class FlipFlopReckless(FlipFlopHeuristic):
    """Held out. Drops even earlier than ``early``: with a total of 12 points or less, or when its total is merely
    at the lowest estimated opponent total (no safety margin); the heuristic's draws and discards."""

    name = "reckless"
    drop_margin = 0.0
    drop_at = 12


class FlipFlopHoarder(FlipFlopHeuristic):
    """Held out. ``builder`` pushed further: keeps pairs (30 points of keep) and neighbours (15, one gap 8), takes
    discards that start a spread, and drops only with a wide margin (9 points per square root of unknown cards)."""

    name = "hoarder"
    pair_keep = 30
    next_keep = 15
    gap_keep = 8
    take_to_build = True
    drop_margin = 9.0
    drop_at = 1


COMMON = {"noisy": "agents.heldout:NoisyHeuristic", "sloppy": "agents.heldout:SloppyHeuristic",
          "mixed": "agents.heldout:MixedZoo"}
"""Held-out styles every game has: name → the agent spec that builds it."""
HELD_OUT: dict[str, dict[str, str]] = {
    "tripoli": {
        **COMMON,
        "maniac": "agents.heldout:TripoliManiac",
        "station": "agents.heldout:TripoliStation",
        "rock": "agents.heldout:TripoliRock",
        "aggro-longsuit": "agents.heldout:TripoliAggroLongSuit",
    },
    "triolet": dict(COMMON),
    "flipflop": {
        **COMMON,
        "reckless": "agents.heldout:FlipFlopReckless",
        "hoarder": "agents.heldout:FlipFlopHoarder",
    },
}
"""Game name → held-out style name → the agent spec that builds it."""


def heldout_specs(game: str) -> dict[str, str]:
    """The held-out styles of ``game``, name → agent spec (the common ones for a game without styles of its own)."""
    return dict(HELD_OUT.get(game, COMMON))


def every_field(game: str) -> dict[str, str]:
    """Every field an agent of ``game`` may meet, name → agent spec: random first, then the bots of the game's zoo,
    then the held-out styles (what ``benchmarks.strength`` and ``cardgym distill``'s closing table measure)."""
    return {"random": "random", **{name: name for name in bot_names(game)}, **heldout_specs(game)}
