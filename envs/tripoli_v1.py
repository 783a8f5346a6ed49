"""Tripoli (Michigan Rummy / Rummoli / Poch) as a PettingZoo AEC environment — version 1.

    from envs import tripoli_v1
    env = tripoli_v1.env(num_players=5, render_mode="ansi", paycards="play", max_raises=3)

Rules: ``docs/tripoli.md`` (T1–T30) with the engine decisions in :mod:`envs.tripoli.core`; options are the
fields of :class:`envs.tripoli.config.TripoliConfig`. Agents ``player_0 … player_{n-1}`` (2–9 seats).
Rewards (C11, T29): each seat's chip-balance change at every step, forced moves included; the first ante arrives
with the first step's rewards. ``reset(seed, options={"deck": [52 card ids in dealing order], "dealer": seat})``
stacks the first deal.

Observation ``obs["observation"]``: float32, 1,375 numbers, relative to the observing seat ("rel. seat" ``j`` is
seat ``(me + j) % n``: 0 is me, then clockwise), per-seat blocks padded to 9 seats with zeros.

===========  =====  ==================================================================================
index        size   content
===========  =====  ==================================================================================
0–51         52     my hand (card id c = suit*13 + rank, C1)
52–103       52     my poker selection so far (T12)
104–155      52     cards I held this deal that went out of my hand unseen (my old hand after a swap or
                    an auction, T7), not yet played
156–207      52     cards played in the Michigan stage (T24)
208–259      52     one-hot of the last card played
260–311      52     dead cards discarded face up (T7 ``dead_hand="shown"``)
312–779      9×52   cards shown at the showdown, by rel. seat (T16)
780–1247     9×52   cards played in the Michigan stage, by rel. seat
1248–1256    9      chips on the layout: A, K, Q, J, 10 of the pay suit, K-Q, sequence, kitty, pot (T2)
1257–1265    9      chip balance by rel. seat
1266–1274    9      chips bet this poker round by rel. seat
1275–1283    9      folded, by rel. seat
1284–1292    9      cards in hand, by rel. seat
1293–1301    9      seat present (1 for the n seats of the table)
1302–1310    9      out of the deal's last auction (running or over), by rel. seat; cleared each deal
1311–1319    9      one-hot rel. seat of the dealer
1320–1328    9      one-hot rel. seat of the player to act (all zero when the episode is over)
1329–1337    9      one-hot rel. seat of the high bidder of the deal's last auction
1338–1346    9      one-hot rel. seat of this deal's poker winner (T17)
1347–1350    4      one-hot pay suit ♣ ♦ ♥ ♠ (T26; drawn each deal in Cosmo, T30)
1351–1354    4      one-hot suit of the current or last Michigan run
1355–1363    9      one-hot phase: spare hand, auction, pay-suit auction, name pay suit, poker selection,
                    betting, Michigan lead, Michigan run, over
1364–1374    11     high bid of the deal's last auction, highest total bet, raises made, chips I must add
                    to call, deal number (0-based), deals in the episode, the dealer swapped (0/1), final
                    round (0/1), chips of the final round being played (T28), final pots still to play,
                    sequence start (face value, T27; drawn each deal in Cosmo, T30)
===========  =====  ==================================================================================

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

from pettingzoo.utils import wrappers

from envs.aec import CardGymEnv
from envs.tripoli.core import TripoliGame


def raw_env(num_players: int = 4, render_mode: str | None = None, **options: Any) -> CardGymEnv:
    """The unwrapped environment: ``num_players`` seats (2–9) and rule ``options`` (see ``TripoliConfig``)."""
    return CardGymEnv(TripoliGame(num_players=num_players, **options), render_mode=render_mode)


def env(num_players: int = 4, render_mode: str | None = None, **options: Any) -> wrappers.OrderEnforcingWrapper:
    """The environment with PettingZoo's order-enforcing wrapper (illegal actions raise, C9)."""
    return wrappers.OrderEnforcingWrapper(raw_env(num_players, render_mode, **options))
