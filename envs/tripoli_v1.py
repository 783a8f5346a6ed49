"""Tripoli (Michigan Rummy / Rummoli / Poch) as a PettingZoo AEC environment — version 1.

    from envs import tripoli_v1
    env = tripoli_v1.env(num_players=5, render_mode="ansi", paycards="play", max_raises=3)

Rules: ``docs/tripoli.md`` (T1–T30) with the engine decisions in :mod:`envs.tripoli.core`; options are the
fields of :class:`envs.tripoli.config.TripoliConfig`. Agents ``player_0 … player_{n-1}`` (2–9 seats).
Rewards (C11, T29): each seat's chip-balance change at every step, forced moves included; the first ante arrives
with the first step's rewards. ``reset(seed, options={"deck": [52 card ids in dealing order], "dealer": seat})``
stacks the first deal.

Observation ``obs["observation"]``: float32, 1,375 numbers, relative to the observing seat ("rel. seat" ``j`` is
seat ``(me + j) % n``: 0 is me, then clockwise), per-seat blocks padded to 9 seats with zeros; the table is
derived from ``envs.tripoli.observation.SPEC``.

OBSERVATION_TABLE

``obs["action_mask"]``: int8, 1 for the legal actions of the seat to act (all zeros for the others).

Actions (``env.unwrapped.action_name(a)``; 108 ids with the default ``max_bid=20, bet_limit=10``):

==========================  =====================  ====================================================
ids                         names                  meaning
==========================  =====================  ====================================================
0, 1, 2                     keep, swap, auction    the dealer's spare-hand choice (T6, T8)
3                           pass                   pass in an auction (T7, T26)
4 … 3+max_bid               bid 1 … bid max_bid    a bid in an auction
next 4                      name ♣ … name ♠        the pay-suit auction's winner names the suit (T26)
next 52                     select 2♣ … select A♠  put a card into my five-card poker hand (T12)
next 3                      check, call, fold      betting (T14)
next bet_limit              bet 1 … bet k          open the betting
next bet_limit              raise 1 … raise k      call and add k
next 4                      lead ♣ … lead ♠        lead my lowest card of the suit (T20, T22)
last                        continue run           play the next card of a run (asked only with
                                                   ``auto_forced=False``, C8)
==========================  =====================  ====================================================

Changelog: v1 — T30 ``cosmo``; T28 ``final_round`` ``poker``/``pots``/``share``/``none`` (the booleans still mean
``poker``/``none``) and ``final_pots``; T7 ``dead_hand`` ``hidden``/``shown``; the auction fields describe the deal's
last auction and are cleared each deal; the observation gains the shown dead cards, the final-round pot, the pots
left and the sequence start (1,375 values); each step reports its forced moves (C8). v0 — first version.
"""

from __future__ import annotations

from typing import Any

from envs.aec import CardGymEnv, OrderEnforcing
from envs.tripoli.core import TripoliGame
from envs.tripoli.observation import SPEC

__doc__ = __doc__.replace("OBSERVATION_TABLE\n", SPEC.table() + "\n")


def raw_env(num_players: int = 4, render_mode: str | None = None, **options: Any) -> CardGymEnv:
    """The unwrapped environment: ``num_players`` seats (2–9) and rule ``options`` (see ``TripoliConfig``)."""
    return CardGymEnv(TripoliGame(num_players=num_players, **options), render_mode=render_mode)


def env(num_players: int = 4, render_mode: str | None = None, **options: Any) -> OrderEnforcing:
    """The environment with PettingZoo's order-enforcing wrapper (illegal actions raise, C9)."""
    return OrderEnforcing(raw_env(num_players, render_mode, **options))
