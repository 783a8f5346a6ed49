"""Le triolet (a Palace / Shithead-style shedding game) as a PettingZoo AEC environment — version 1.

Rules: docs/triolet.md (L1–L17). 3–8 players (agents ``player_0`` … ``player_7``, C6); 40/44/48 cards for
3/4/5 players, two decks for 6–8 (L1). Each player has three face-down cards, three face-up cards on them and three
cards in hand; after a swap phase (L4) play goes to the right from the dealer's right (L5); cards of one rank go on
a strictly lower rank (order 3 4 5 6 8 9 J Q K A 2), anything goes on a 7, a 10 or four of a rank burn the pile and
the player plays again; a player who cannot play picks up the pile. The first player with no cards wins
(reward +1, the others -1/(n-1)); after ``max_turns`` turns the episode is truncated with reward 0.

Options (``env(num_players=4, faceup_sets=False, max_turns=1000, show_failed_facedown=False, auto_forced=True)``):
``faceup_sets`` lets a player play several face-up cards of one rank together; ``show_failed_facedown`` shows every
player a turned face-down card that could not be played (by default it goes into the hand privately, L13);
``auto_forced`` resolves moves with one legal action inside the step (C8). ``reset(seed, options={"deck": [...],
"dealer": seat})`` stacks a deal: the deck lists the card ids of the table's deck (``TrioletGame.deck_ids()``: the
stripped deck for 3–5 players, 0…103 with two decks) in dealing order (``game.stacked_deck(first_ids)`` completes
one); seat ``s`` gets positions ``9s..9s+8`` (3 face-down, 3 face-up, 3 hand), the rest is the stock.

Actions (``Discrete(196)``; the mask says which are legal):

=============  ===========================================================================================
id             action
=============  ===========================================================================================
0 … 103        ``8 r + k - 1``: "play k×R" — k = 1…8 cards of rank r (0 = 2 … 12 = A) from the hand (L6)
104 … 155      ``104 + c``: "play face-up Q♠" — the face-up card c (0…51, C1) (L12)
156 … 181      ``156 + 2 r + k - 2``: "play face-up k×R", k = 2, 3 (only with ``faceup_sets``)
182 … 184      "play face-down #1" … "#3" — turn over that face-down card and play it if it can go (L13)
185            "pick up the pile" (L11; always forced, C8)
186            "ready" — end one's swap phase (L4)
187 … 195      ``187 + 3 i + j``: "swap hand card #2 ↔ face-up #3" — exchange hand card i (0–2; the hand sorted
               by card id, C1; of two equal cards only the first is named) with face-up slot j (L4)
=============  ===========================================================================================

Observation (``Box(1226,) float32``, seat-relative, padded to 8 seats; L17 — face-down cards and the stock are
hidden, the viewer's own face-down cards included), derived from ``envs.triolet.observation.SPEC``:

OBSERVATION_TABLE
A turn (for ``max_turns``) is one move on the pile — a play or a pick-up, forced or chosen; playing again after a
burn is a new turn; swap-phase decisions are not turns.

Change log: v1: swaps name a hand position and a face-up slot (9 actions; 196 in all, from 2,891); L13 a turned
face-down card that cannot be played goes into the hand privately (``show_failed_facedown=True`` keeps v0's
behaviour); stacked decks are card ids; the observation gains the viewer's own face-up slots (1,226 values); each
step reports its forced moves (C8). v0: first version.
"""

from __future__ import annotations

from typing import Any

from envs.aec import CardGymEnv, OrderEnforcing
from envs.triolet.core import TrioletGame
from envs.triolet.observation import SPEC

__doc__ = __doc__.replace("OBSERVATION_TABLE\n", SPEC.table() + "\n")


def raw_env(num_players: int = 4, render_mode: str | None = None, **options: Any) -> CardGymEnv:
    """The unwrapped environment: ``num_players`` seats (3–8) and rule ``options`` (see ``TrioletConfig``)."""
    return CardGymEnv(TrioletGame(num_players=num_players, **options), render_mode=render_mode)


def env(num_players: int = 4, render_mode: str | None = None, **options: Any) -> OrderEnforcing:
    """The environment with PettingZoo's order-enforcing wrapper (illegal actions raise, C9)."""
    return OrderEnforcing(raw_env(num_players, render_mode, **options))
