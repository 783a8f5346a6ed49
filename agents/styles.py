"""Style families: random playing styles drawn inside the range the zoo spans, for diverse training pools.

A trained agent meets in play players it never trained against. A pool of a handful of fixed bots teaches it to
exploit those bots; a *family* of styles, each a heuristic whose parameters are drawn at random inside the box the
zoo's styles span (between ``tight`` and ``aggressive`` for Tripoli's betting and auctions, with the heuristic's,
``longsuit``'s or ``lowlead``'s Michigan leads; between ``early`` and ``patient`` for Flip Flop's drops, between
``dumper`` and ``builder`` for its keeps), asks for play that holds up against many. ``style:K`` (any integer K ≥ 0)
names member K of the game's family, the same on every machine; in ``cardgym train --opponents``, ``styles:N=W``
puts members 0 … N−1 in the pool, sharing the weight W.

Tripoli's style family calls within the zoo's range: none of its members calls a bet more than 0.05 below what the
pot odds pay for. A family of callers, ``loose-style:K``, covers the loose-passive corner the zoo leaves empty: a
style member's draw whose calls are looser than any zoo bot's (margins in :data:`LOOSE_CALLS`), who opens and raises
only strong hands, with small bets. Against folders a bet on a weak hand pays; against callers it does not, so a pool
with both asks for bets that hold up at either table. ``loose-styles:N=W`` in ``--opponents`` puts members 0 … N−1
in the pool.

A second family adds carelessness: ``careless-style:K`` is ``style:K`` (the heuristic, in a game without a style
family) playing a uniformly random legal action at a share of its decisions drawn in :data:`CARELESS_RANGE` (a
player who misreads a hand, forgets what was played or bets on a whim). Against careful players a bet is a strong
hand and folding to it pays; against careless ones it often is not. A pool of careful styles only teaches an agent
to believe every bet; ``careless-styles:N=W`` in ``--opponents`` puts members 0 … N−1 in the pool.

A third, ``careless-bot:K``, makes the zoo's own bots careless: zoo bot ``K mod n`` of the ``n`` bots other than
``random`` (``cardgym agents`` order: the heuristic first) with the share :func:`careless_share` ``(K)`` of random
moves, the same share as ``careless-style:K``; ``careless-bots:N=W`` puts members 0 … N−1 in the pool. The style
family's members bet by thresholds of their own, so a bet of ``careless-style:K`` says less about its hand than one
of the heuristic's in any case, and an agent trained against them alone still reads a careless heuristic's bets as
the heuristic's (measured: with the careless style family alone in the pool the trained agent ties the held-out
noisy heuristic; with both careless families it beats it; docs/experiments.md).

The held-out styles of :mod:`agents.heldout` lie outside the families (a looser, bigger bettor; a calling station
whose calls are looser and bets rarer than the loose family's; a tight player with big bets; reckless and hoarding
Flip Flop players; a heuristic more random than careful), except ``aggro-longsuit``, which combines two zoo styles
and so is a corner of the Tripoli box, and ``noisy`` (the heuristic with a quarter of random moves), which lies
inside the careless families' range without being one of their members (the careless-bot family's heuristics,
members 0, n, 2n …, play it with other shares); the mixed players are not heuristics of fixed parameters.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from agents.flipflop_heuristic import FlipFlopHeuristic
from agents.together import together_key
from agents.tripoli_bots import TripoliLongSuit, TripoliLowLead
from agents.tripoli_heuristic import TripoliHeuristic
from agents.zoo import bot_class, bot_names
from envs.core.agent import Agent, AgentBase
from envs.core.checks import check_probability
from envs.core.game import BatchedGame, sample_legal

FAMILY_SEED = 20_261_123
"""Seeds every family's draws: ``style:K`` and ``careless-style:K`` are the same players everywhere."""
LOOSE_CALLS = (-0.2, -0.05)
"""The loose family's call margins are drawn uniformly in this range: looser than every zoo bot's (``aggressive``
calls within 0.05 of the pot odds), short of the held-out calling station's (within 0.25)."""
CARELESS_RANGE = (0.05, 0.4)
"""The share of random moves of the careless family's members is drawn uniformly in this range."""


def _uniform(rng: np.random.Generator, low: float, high: float) -> float:
    return round(float(rng.uniform(low, high)), 3)


def _tripoli(rng: np.random.Generator) -> tuple[type, dict]:
    """Betting and auction parameters inside [tight, aggressive]; one of the zoo's three lead styles."""
    bet_above = _uniform(rng, 0.3, 0.7)
    params = {
        "swap_below": _uniform(rng, 0.3, 0.45),
        "bet_above": bet_above,
        "raise_above": _uniform(rng, max(0.6, bet_above + 0.1), 0.9),
        "call_margin": _uniform(rng, -0.05, 0.3),
        "hopeless_below": _uniform(rng, 0.02, 0.1),
        "bet_scale": _uniform(rng, 1.0, 4.0),
        "spare_price": _uniform(rng, 0.0, 10.0),
        "spare_worth": _uniform(rng, 0.42, 0.5),
        "suit_price_extra": int(rng.integers(-1, 2)),
    }
    base = (TripoliHeuristic, TripoliLongSuit, TripoliLowLead)[int(rng.integers(3))]
    return base, params


def _flipflop(rng: np.random.Generator) -> tuple[type, dict]:
    """Drop parameters inside [early, patient]; keep parameters inside [dumper, builder]."""
    keep = _uniform(rng, 0.0, 1.0)
    return FlipFlopHeuristic, {
        "drop_margin": _uniform(rng, 1.0, 7.0),
        "drop_at": int(rng.integers(1, 9)),
        "pair_keep": round(20 * keep),
        "next_keep": round(10 * keep),
        "gap_keep": round(5 * keep),
        "take_to_build": bool(rng.integers(2)),
    }


def _tripoli_loose(rng: np.random.Generator) -> tuple[type, dict]:
    """A style member's draw, then a caller's betting: calls looser than any zoo bot's (:data:`LOOSE_CALLS`), opens
    and raises only strong hands, small bets."""
    base, params = _tripoli(rng)
    bet_above = _uniform(rng, 0.5, 0.85)
    params.update(bet_above=bet_above, raise_above=_uniform(rng, max(0.7, bet_above + 0.1), 0.95),
                  call_margin=_uniform(rng, *LOOSE_CALLS), bet_scale=_uniform(rng, 1.0, 2.0))
    return base, params


FAMILIES = {"tripoli": _tripoli, "flipflop": _flipflop}
"""Game name → the draw of one member's base class and parameters."""
LOOSE_FAMILIES = {"tripoli": _tripoli_loose}
"""Game name → the draw of one member of its family of callers (games with a betting stage)."""


def style_params(game: str, k: int) -> tuple[type, dict]:
    """Member ``k`` of ``game``'s family: its base class and parameters (``ValueError`` for a game without one)."""
    if game not in FAMILIES:
        raise ValueError(f"the game {game} has no style family (games with one: {', '.join(FAMILIES)})")
    return FAMILIES[game](np.random.default_rng([FAMILY_SEED, k]))


def loose_params(game: str, k: int) -> tuple[type, dict]:
    """Member ``k`` of ``game``'s family of callers (``ValueError`` for a game without one)."""
    if game not in LOOSE_FAMILIES:
        raise ValueError(f"the game {game} has no loose family (games with one: {', '.join(LOOSE_FAMILIES)})")
    return LOOSE_FAMILIES[game](np.random.default_rng([FAMILY_SEED, k, 2]))


def _member(base: type, params: dict, game: BatchedGame, name: str) -> Agent:
    cls = type(f"{base.__name__}{name.title().replace('-', '').replace(':', '')}", (base,), {**params, "name": name})
    return cls(game)


def make_style(game: BatchedGame, k: int) -> Agent:
    """The agent ``style:k`` for ``game``."""
    return _member(*style_params(game.name, k), game, f"style:{k}")


def make_loose(game: BatchedGame, k: int) -> Agent:
    """The agent ``loose-style:k`` for ``game``: member ``k`` of its family of callers."""
    return _member(*loose_params(game.name, k), game, f"loose-style:{k}")


class Careless(AgentBase):
    """``base``'s play, with a uniformly random legal action at a share ``epsilon`` of its decisions (drawn per
    decision from the ``rng`` given to :meth:`act`, after ``base`` has chosen: first whether each row is careless,
    then a random legal action for every row, which the careless rows take; each draw is one number per row, so an
    evaluation's per-table streams (:mod:`training.table_random`) keep them common to tournaments)."""

    def __init__(self, game: BatchedGame, base: Agent, epsilon: float, name: str = "careless") -> None:
        super().__init__(game)
        self.base, self.name = base, name
        self.epsilon = check_probability(epsilon, "epsilon (a careless player's share of random moves)")

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        actions = np.asarray(self.base.act(obs, mask, rng))
        careless = rng.random(len(actions)) < self.epsilon
        return np.where(careless, sample_legal(mask, rng), actions)

    def together_key(self) -> Hashable | None:
        """Careless players whose bases play together play together (:mod:`agents.together`)."""
        base = together_key(self.base)
        return None if base is None else ("careless", type(self).act, base)

    def act_together(self, players: list[Careless], which: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                     rng: np.random.Generator) -> np.ndarray:
        """Each row's player's base's action, replaced by a random legal one at that player's share of rows."""
        bases = [p.base for p in players]
        actions = np.asarray(bases[0].act_together(bases, which, obs, mask, rng))
        careless = rng.random(len(actions)) < np.asarray([p.epsilon for p in players])[which]
        return np.where(careless, sample_legal(mask, rng), actions)


def careless_share(k: int) -> float:
    """The share of random moves of ``careless-style:k`` (the same in every game)."""
    return _uniform(np.random.default_rng([FAMILY_SEED, k, 1]), *CARELESS_RANGE)


def make_careless(game: BatchedGame, k: int) -> Agent:
    """The agent ``careless-style:k`` for ``game``: ``style:k`` (the heuristic for a game without a style family) with
    :func:`careless_share` ``(k)`` of random moves."""
    if game.name in FAMILIES:
        base = make_style(game, k)
    else:
        base = bot_class(game.name, "heuristic")(game)
    return Careless(game, base, careless_share(k), f"careless-style:{k}")


def make_careless_bot(game: BatchedGame, k: int) -> Agent:
    """The agent ``careless-bot:k`` for ``game``: zoo bot ``k mod n`` of its ``n`` bots other than ``random`` with
    :func:`careless_share` ``(k)`` of random moves."""
    bots = [name for name in bot_names(game.name) if name != "random"]
    if not bots:
        raise ValueError(f"the game {game.name} has no zoo bots to make careless")
    base = bot_class(game.name, bots[k % len(bots)])(game)
    return Careless(game, base, careless_share(k), f"careless-bot:{k}")
