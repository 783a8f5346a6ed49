"""Le triolet's rules as compiled per-table kernels (numba), and the batch loops the game class calls.

Each rule function works on one table ``b`` of the state ``s`` (:data:`Tables`, a named tuple of the state's arrays,
batch axis first) and reads like the rules file (rule ids in comments): the deal (L1, L3), the swap phase (L4) and
the play (L5–L16). The batch entry points (:func:`init_tables`, :func:`redeal_tables`, :func:`step_tables`,
:func:`settle_tables`) loop over the tables inside compiled code, one call from Python per batch.

A chain of forced moves (C8: pick-ups, single plays, forced "ready"s) is bounded only by ``max_turns``: a table whose
forced-move report arrays are full stops with its forced move pending and is flagged; the game widens the arrays
and calls :func:`settle_tables` for it, which goes on.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from envs.core.bits import bit, lowest, popcount
from envs.core.cards import DECK_SIZE, NUM_RANKS
from envs.core.rng import STREAM_DEALER, shuffle_into, uniform_int
from envs.triolet import multiset as ms
from envs.triolet.actions import (
    HAND_SIZE,
    MAX_COPIES,
    PICK_UP,
    PLAY_FACEDOWN,
    PLAY_FACEUP,
    PLAY_FACEUP_SET,
    PLAYABLE,
    READY,
    SWAP,
    TEN,
)
from envs.triolet.state import PLAY_PHASE, SWAP_PHASE

TABLE_FIELDS = (
    "seeds", "current_player", "legal_action_mask", "rewards", "terminated", "truncated", "forced_count",
    "forced_seat", "forced_action", "forced_card", "deck", "stock_pos", "hand1", "hand2", "known1", "known2",
    "faceup", "facedown", "pile1", "pile2", "burned1", "burned2", "top", "run", "phase", "swaps", "ready", "dealer",
    "turns", "winner", "last_seat", "last_action", "last_card", "last_burn", "last_missed",
)
Tables = namedtuple("Tables", TABLE_FIELDS)
"""The state's arrays as the kernels take them (same names as :class:`envs.triolet.state.TrioletState`)."""
Rules = namedtuple("Rules", ("n", "faceup_sets", "max_turns", "show_failed_facedown", "auto_forced"))
"""The configuration as the kernels take it (:class:`envs.triolet.config.TrioletConfig`; ``n`` players)."""

MAX_SWAPS = 3
"""L4: exchanges a player may make before saying ready."""
U0 = np.uint64(0)
#: ``PLAYABLE_CARDS[top + 1]``: the cards that may go on a pile with top rank ``top`` (-1: empty pile).
PLAYABLE_CARDS = np.array([np.bitwise_or.reduce(ms.RANK_MASKS[row]) for row in PLAYABLE], dtype=np.uint64)


@numba.njit(cache=True)
def report(s, b, seat, action):
    """Append one forced move (C8) to table ``b``'s report."""
    k = s.forced_count[b]
    s.forced_seat[b, k] = seat
    s.forced_action[b, k] = action
    s.forced_card[b, k] = -1
    s.forced_count[b] = k + 1


# ================================================================== deal (L1, L3)
@numba.njit(cache=True)
def deal(s, r, b, cards):
    """Deal table ``b`` from ``s.deck[b]`` (identities; a first entry -1 means: shuffle ``cards``, the deck's ids, from
    the seed, C7): seat ``p`` gets deck positions ``9p .. 9p+8``, three face-down cards, three face-up cards and three
    hand cards; the rest is the stock. The first player is right of the dealer (L5)."""
    n, size = r.n, cards.shape[0]
    if s.deck[b, 0] < 0:
        order = np.empty(size, np.int64)
        shuffle_into(s.seeds[b], 0, order)
        for i in range(size):
            s.deck[b, i] = cards[order[i]] % DECK_SIZE
    if s.dealer[b] < 0:
        s.dealer[b] = uniform_int(s.seeds[b], STREAM_DEALER, 0, n)
    for p in range(n):
        h1, h2 = U0, U0
        for j in range(HAND_SIZE):
            s.facedown[b, p, j] = s.deck[b, 9 * p + j]
            s.faceup[b, p, j] = s.deck[b, 9 * p + 3 + j]
            h1, h2 = ms.add(h1, h2, bit(s.deck[b, 9 * p + 6 + j]), U0)
        s.hand1[b, p], s.hand2[b, p] = h1, h2
    s.current_player[b] = (s.dealer[b] - 1) % n
    s.stock_pos[b] = 9 * n


# ================================================================== swap phase (L4)
@numba.njit(cache=True)
def swap_cards(s, b, p, cards, places):
    """The distinct hand card identities of seat ``p`` in id order (-1: none) and the position of each one's first
    copy in the hand sorted by card id (the hand holds three cards in the swap phase)."""
    h1, h2 = s.hand1[b, p], s.hand2[b, p]
    rest = h1
    for j in range(HAND_SIZE):
        low = rest & (~rest + np.uint64(1))
        below = low - np.uint64(1)
        cards[j] = popcount(below) if low != U0 else -1
        places[j] = popcount(h1 & below) + popcount(h2 & below)
        rest &= ~low


@numba.njit(cache=True)
def swap_mask(s, b, m):
    """Write "ready" and the exchanges still allowed into ``m``; returns whether any exchange is allowed."""
    p = s.current_player[b]
    cards = np.empty(HAND_SIZE, np.int64)
    places = np.empty(HAND_SIZE, np.int64)
    swap_cards(s, b, p, cards, places)
    m[READY] = True
    found = False
    if s.swaps[b] < MAX_SWAPS:
        for i in range(HAND_SIZE):
            for slot in range(HAND_SIZE):
                up = s.faceup[b, p, slot]
                if cards[i] >= 0 and up >= 0 and cards[i] != up:
                    m[SWAP + HAND_SIZE * places[i] + slot] = True
                    found = True
    return found


@numba.njit(cache=True)
def apply_swap_phase(s, r, b, a):
    """L4: exchange a hand card with a face-up card (seen by all: both enter the public record, L17), or say ready;
    when everybody is ready the play starts with the first player."""
    p = s.current_player[b]
    if a == READY:
        s.swaps[b] = 0
        s.ready[b] += 1
        s.current_player[b] = (p - 1) % r.n
        if s.ready[b] == r.n:
            s.phase[b] = PLAY_PHASE
        return
    place, slot = (a - SWAP) // HAND_SIZE, (a - SWAP) % HAND_SIZE
    cards = np.empty(HAND_SIZE, np.int64)
    places = np.empty(HAND_SIZE, np.int64)
    swap_cards(s, b, p, cards, places)
    give = cards[0]
    for i in range(HAND_SIZE):
        if places[i] == place:
            give = cards[i]
            break
    take = s.faceup[b, p, slot]
    s.faceup[b, p, slot] = give
    x1, x2 = ms.sub(s.hand1[b, p], s.hand2[b, p], bit(give), U0)
    s.hand1[b, p], s.hand2[b, p] = ms.add(x1, x2, bit(take), U0)
    x1, x2 = ms.sub(s.known1[b, p], s.known2[b, p], bit(give), U0)
    s.known1[b, p], s.known2[b, p] = ms.add(x1, x2, bit(take), U0)
    s.swaps[b] += 1


# ================================================================== play (L5–L16)
@numba.njit(cache=True)
def draw(s, b, p):
    """L10: draw from the stock until the hand holds three cards or the stock is empty."""
    need = min(max(HAND_SIZE - ms.size(s.hand1[b, p], s.hand2[b, p]), 0), s.deck.shape[1] - s.stock_pos[b])
    for j in range(need):
        card = s.deck[b, s.stock_pos[b] + j]
        s.hand1[b, p], s.hand2[b, p] = ms.add(s.hand1[b, p], s.hand2[b, p], bit(card), U0)
    s.stock_pos[b] += need


@numba.njit(cache=True)
def to_pile(s, b, c1, c2):
    s.pile1[b], s.pile2[b] = ms.add(s.pile1[b], s.pile2[b], c1, c2)


@numba.njit(cache=True)
def finish(s, r, b, seat):
    """L15, L16: the first player out wins +1, every other player pays 1/(n-1)."""
    s.rewards[b, :] = -1.0 / (r.n - 1)
    s.rewards[b, seat] = 1.0
    s.terminated[b] = True
    s.winner[b] = seat
    s.legal_action_mask[b, :] = False


@numba.njit(cache=True)
def place(s, r, b, p, rank, count, no_hand):
    """After ``count`` cards of ``rank`` went on the pile: burn (L8, L9), go out (L15) or pass the turn to the right
    (L5) — a player who burned plays again (L14). ``no_hand``: the player's hand is now empty."""
    run = s.run[b] + count if s.top[b] == rank else count
    burn = rank == TEN or run >= 4
    s.run[b] = 0 if burn else run
    s.top[b] = -1 if burn else rank
    if burn:
        s.burned1[b], s.burned2[b] = ms.add(s.burned1[b], s.burned2[b], s.pile1[b], s.pile2[b])
        s.pile1[b] = U0
        s.pile2[b] = U0
        s.last_burn[b] = True
    out = False
    if no_hand:
        out = True
        for j in range(HAND_SIZE):
            if s.faceup[b, p, j] >= 0 or s.facedown[b, p, j] >= 0:
                out = False
        if out:
            finish(s, r, b, p)
    if not (burn or out):
        s.current_player[b] = (p - 1) % r.n


@numba.njit(cache=True)
def pick_up(s, r, b, p):
    """L11: the player takes the whole pile into the hand (public, L17); the turn passes right."""
    s.hand1[b, p], s.hand2[b, p] = ms.add(s.hand1[b, p], s.hand2[b, p], s.pile1[b], s.pile2[b])
    s.known1[b, p], s.known2[b, p] = ms.add(s.known1[b, p], s.known2[b, p], s.pile1[b], s.pile2[b])
    s.pile1[b] = U0
    s.pile2[b] = U0
    s.top[b] = -1
    s.run[b] = 0
    s.current_player[b] = (p - 1) % r.n


@numba.njit(cache=True)
def apply_play(s, r, b, a):
    """One move on the pile (a turn, L16): from the hand (L6), face-up cards (L12), a face-down card (L13) or a
    pick-up (L11)."""
    p = s.current_player[b]
    s.last_seat[b] = p
    s.last_action[b] = a
    s.last_burn[b] = False
    s.last_missed[b] = False
    if a < PLAY_FACEUP:  # k cards of a rank from the hand (lowest suits first), then draw (L10)
        rank, count = a // MAX_COPIES, a % MAX_COPIES + 1
        x1, x2 = ms.take_lowest(s.hand1[b, p], s.hand2[b, p], rank, count)
        s.hand1[b, p], s.hand2[b, p] = ms.sub(s.hand1[b, p], s.hand2[b, p], x1, x2)
        s.known1[b, p], s.known2[b, p] = ms.sub(s.known1[b, p], s.known2[b, p], x1, x2)
        to_pile(s, b, x1, x2)
        draw(s, b, p)
        place(s, r, b, p, rank, count, s.hand1[b, p] == U0)
    elif a < PLAY_FACEDOWN:  # the face-up card named, or k face-up cards of a rank (lowest slots first)
        single = a < PLAY_FACEUP_SET
        rank = (a - PLAY_FACEUP) % NUM_RANKS if single else (a - PLAY_FACEUP_SET) // 2
        count = 1 if single else (a - PLAY_FACEUP_SET) % 2 + 2
        taken = 0
        for j in range(HAND_SIZE):
            c = s.faceup[b, p, j]
            match = c >= 0 and (c == a - PLAY_FACEUP if single else c % NUM_RANKS == rank)
            if match and taken < count:
                to_pile(s, b, bit(c), U0)
                s.faceup[b, p, j] = -1
                taken += 1
        place(s, r, b, p, rank, count, True)
    elif a < PICK_UP:  # L13: turn a face-down card over
        slot = a - PLAY_FACEDOWN
        card = s.facedown[b, p, slot]
        s.facedown[b, p, slot] = -1
        s.last_card[b] = card
        if PLAYABLE_CARDS[s.top[b] + 1] & bit(card):
            to_pile(s, b, bit(card), U0)
            place(s, r, b, p, card % NUM_RANKS, 1, True)
        else:  # into the hand (shown to all only with show_failed_facedown), then the pile too
            s.last_missed[b] = True
            s.hand1[b, p], s.hand2[b, p] = ms.add(s.hand1[b, p], s.hand2[b, p], bit(card), U0)
            if r.show_failed_facedown:
                s.known1[b, p], s.known2[b, p] = ms.add(s.known1[b, p], s.known2[b, p], bit(card), U0)
            pick_up(s, r, b, p)
    else:
        pick_up(s, r, b, p)
    s.turns[b] += 1
    if s.turns[b] >= r.max_turns and not s.terminated[b]:  # L16
        s.truncated[b] = True
        s.current_player[b] = -1
        s.legal_action_mask[b, :] = False


@numba.njit(cache=True)
def apply(s, r, b, a):
    if s.phase[b] == SWAP_PHASE:
        apply_swap_phase(s, r, b, a)
    else:
        apply_play(s, r, b, a)


# ================================================================== legal actions
@numba.njit(cache=True)
def play_mask(s, r, b, m):
    """L6–L13: plays from the hand, else the face-up cards, else the face-down cards; a pick-up when nothing can be
    played (L11). Writes them into ``m``; returns the forced action (C8) or -1 where there is a choice."""
    p = s.current_player[b]
    h1, h2 = s.hand1[b, p], s.hand2[b, p]
    can = PLAYABLE_CARDS[s.top[b] + 1]
    hand_can1, hand_can2 = h1 & can, h2 & can
    legal = popcount(hand_can1) + popcount(hand_can2)
    for rank in range(NUM_RANKS):
        for k in range(ms.rank_count(hand_can1, hand_can2, rank)):
            m[MAX_COPIES * rank + k] = True
    forced = -1
    if h1 == U0:  # L12, L13: on the table cards: face-up ones first
        on_up = False
        for j in range(HAND_SIZE):
            on_up |= s.faceup[b, p, j] >= 0
        up_one = U0
        up_ranks = np.zeros(NUM_RANKS, np.int64)
        down_first = -1
        for j in range(HAND_SIZE):
            c = s.faceup[b, p, j]
            if on_up and c >= 0 and can & bit(c):
                up_one |= bit(c)
                up_ranks[c % NUM_RANKS] += 1
            if not on_up and s.facedown[b, p, j] >= 0:
                m[PLAY_FACEDOWN + j] = True
                legal += 1
                if down_first < 0:
                    down_first = j
        legal += popcount(up_one)
        rest = up_one
        while rest:
            c = lowest(rest)
            m[PLAY_FACEUP + c] = True
            rest &= ~bit(c)
        if r.faceup_sets:
            for rank in range(NUM_RANKS):
                legal += max(up_ranks[rank] - 1, 0)
                m[PLAY_FACEUP_SET + 2 * rank] = up_ranks[rank] >= 2
                m[PLAY_FACEUP_SET + 2 * rank + 1] = up_ranks[rank] >= 3
        if legal == 1:
            forced = PLAY_FACEDOWN + down_first if down_first >= 0 else PLAY_FACEUP + lowest(up_one)
    elif legal == 1:
        forced = MAX_COPIES * (lowest(hand_can1) % NUM_RANKS)
    if legal == 0:
        m[PICK_UP] = True
        forced = PICK_UP
    return forced


@numba.njit(cache=True)
def refresh(s, r, b):
    """The legal mask of table ``b``; returns its forced action (C8), -1 where there is a choice or the table is
    finished."""
    m = s.legal_action_mask[b]
    m[:] = False
    if s.terminated[b] or s.truncated[b]:
        s.current_player[b] = -1
        return -1
    if s.phase[b] == SWAP_PHASE:
        return -1 if swap_mask(s, b, m) else READY  # "ready" is forced after three exchanges
    return play_mask(s, r, b, m)


@numba.njit(cache=True)
def settle(s, r, b):
    """Compute the legal mask; with ``auto_forced`` play forced moves until the table waits on a decision (C8).
    Returns False when the report arrays are full with a forced move pending."""
    while True:
        a = refresh(s, r, b)
        if not r.auto_forced or a < 0:
            return True
        if s.forced_count[b] >= s.forced_seat.shape[1]:
            return False
        report(s, b, s.current_player[b], a)
        apply(s, r, b, a)


# ================================================================== batch entry points
@numba.njit(cache=True)
def init_tables(s, r, cards, pending):
    """Deal every table of a fresh state; ``pending[b]`` is set where forced moves wait on wider report arrays."""
    for b in range(s.seeds.shape[0]):
        deal(s, r, b, cards)
        pending[b] = not settle(s, r, b)


@numba.njit(cache=True)
def redeal_tables(s, r, cards, idx, seeds, pending):
    """Start a new episode at tables ``idx`` with ``seeds`` (as :func:`init_tables` deals them, no stacked deck)."""
    for i in range(idx.shape[0]):
        b = idx[i]
        s.seeds[b] = seeds[i]
        s.rewards[b, :] = 0.0
        s.terminated[b] = False
        s.truncated[b] = False
        s.forced_count[b] = 0
        s.deck[b, 0] = -1
        s.dealer[b] = -1
        s.known1[b, :] = U0
        s.known2[b, :] = U0
        s.pile1[b] = U0
        s.pile2[b] = U0
        s.burned1[b] = U0
        s.burned2[b] = U0
        s.top[b] = -1
        s.run[b] = 0
        s.phase[b] = SWAP_PHASE
        s.swaps[b] = 0
        s.ready[b] = 0
        s.turns[b] = 0
        s.winner[b] = -1
        s.last_seat[b] = -1
        s.last_action[b] = -1
        s.last_card[b] = -1
        s.last_burn[b] = False
        s.last_missed[b] = False
        deal(s, r, b, cards)
        pending[i] = not settle(s, r, b)


@numba.njit(cache=True)
def step_tables(s, r, idx, actions, pending):
    """Play ``actions[i]`` (legal) at table ``idx[i]``, then its forced moves."""
    for i in range(idx.shape[0]):
        b = idx[i]
        apply(s, r, b, actions[i])
        pending[i] = not settle(s, r, b)


@numba.njit(cache=True)
def settle_tables(s, r, idx, pending):
    """Recompute the masks of tables ``idx`` and go on with their forced moves (after the report arrays were
    widened, or after a position was set up by hand)."""
    for i in range(idx.shape[0]):
        pending[i] = not settle(s, r, idx[i])
