"""Flip Flop (a Tunk rummy variant from Dayton, Ohio) as a PettingZoo AEC environment — version 1.

Rules: docs/flipflop.md (F1–F28). 2–7 players, agents ``player_0 …``; one deal per episode by default, or a
session of ``num_deals`` deals (or ``until_one_left=True``) with bankrolls of ``bankroll`` stakes (F23–F25). Rewards
are the change of each player's money at every step (antes, pots, extra stakes), in stakes times ``stake`` (default
1.0, F26). A dealt 49 or 50 is claimed with the claimant's one action ``claim 49/50`` — before anybody plays with
``declare_49_50="deal"`` (default; every claimant shares, F8) or at the claimant's first turn with ``"first_turn"``
(F7) — and is always asked, so no episode is over at reset. Every episode ends
(C13, F28): a deal still going after ``max_turns`` turns (default 200) is cut off, and so is a session that would go
on after ``max_deals`` deals (default 1000); a cut truncates the episode and settles nothing more (the pots and the
money stay as they are). ``env.unwrapped.game.max_episode_decisions`` bounds the steps of an episode. Decisions
with a single legal action are played by the engine (C8; ``auto_forced=False`` asks for them). ``reset(seed,
options={"deck": [52 card ids in dealing order], "dealer": seat})`` stacks the first deal.

    from envs import flipflop_v1
    env = flipflop_v1.env(num_players=4, num_deals=10)

Actions (472, ``env.unwrapped.action_name(a)``; the same id always has the same name)
-----------------------------------------------------------------------------------

==========  =====  ==========================================================================================
ids         count  action
==========  =====  ==========================================================================================
0           1      ``drop`` — instead of drawing, show your hand and end the deal (F17, F19)
1           1      ``draw stock``
2–53        52     ``draw discard <card>`` — card id order 2♣ … A♠; legal only for the top of the discard pile
54–105      52     ``discard <card>`` — ends the turn (not the card just taken from the discard pile, F13)
106–257     152    ``lay run <cards>`` — per suit ♣♦♥♠, per length 3–6, lowest card A, 2, … (aces low), e.g.
                   ``lay run 3♥4♥5♥``
258–322     65     ``lay set <cards>`` — per rank 2 … A: the sets of three missing ♣, ♦, ♥, ♠ (52), then the sets
                   of four (13), e.g. ``lay set 9♣9♦9♠``
323–370     48     ``lay off <card> on the run starting <next card up>`` (any card but a king)
371–418     48     ``lay off <card> on the run ending <next card down>`` (any card but an ace)
419–470     52     ``lay off <card> on the set of <rank>s``
471         1      ``claim 49/50`` — show a dealt 49 or 50 and win (F7, F8); the claimant's only action
==========  =====  ==========================================================================================

A lay-off names the card of the run it touches; that card lies in exactly one spread on the table, so the target
(whoever laid it) is unique. A turn is: ``drop`` or a draw; then any lays and lay-offs; then a discard (none when
the hand is empty, F16).

Observation (float32, 1,654 values; seat-relative: "rel k" is the k-th player to the viewer's left, rel 0 the
viewer; padded to 7 seats; 52-value card planes in card id order 2♣ … A♠; the table is derived from
``envs.flipflop.observation.SPEC``)
---------------------------------------------------------------------------------------------------------------

OBSERVATION_TABLE

Changes
-------
v1: F7 ``declare_49_50`` (``deal``, ``first_turn``) with the claim as the claimant's always-asked action ``claim
49/50`` (id 471; 472 actions), so no episode is over at reset; F26 ``stake``; F28 ``max_turns`` (200) and
``max_deals`` (1000) truncate; the observation gains the turn number and "phase is a 49/50 claim" (1,654 values);
claimants show their hands; each step reports its forced moves (C8).
v0: first version.
"""

from __future__ import annotations

from typing import Any

from envs.aec import CardGymEnv, OrderEnforcing
from envs.flipflop.core import FlipFlopGame
from envs.flipflop.observation import SPEC

__doc__ = __doc__.replace("OBSERVATION_TABLE\n", SPEC.table() + "\n")


def raw_env(num_players: int = 4, render_mode: str | None = None, **options: Any) -> CardGymEnv:
    """The unwrapped environment: ``num_players`` seats (2–7) and rule ``options`` (see ``FlipFlopConfig``)."""
    return CardGymEnv(FlipFlopGame(num_players=num_players, **options), render_mode=render_mode)


def env(num_players: int = 4, render_mode: str | None = None, **options: Any) -> OrderEnforcing:
    """The environment with PettingZoo's order-enforcing wrapper (illegal actions raise, C9)."""
    return OrderEnforcing(raw_env(num_players, render_mode, **options))
