"""Le triolet's rules as compiled per-table kernels (numba), and the batch loops the game class calls.

Each rule function works on one table: its record ``t`` (:mod:`envs.core.records`; ``t.hand1[p]`` is a plane of
seat ``p``'s hand) and, where it reports forced moves, the arrays ``x`` (:data:`TrioletExtra`) and the table's
index ``b``; it reads like the rules file (rule ids in comments): the deal (L1, L3), the swap phase (L4) and
the play (L5–L16). The batch entry points (:func:`init_tables`, :func:`redeal_tables`, :func:`play_tables`,
:func:`resume_tables`) loop over the tables inside compiled code, one call from Python per batch.

A chain of forced moves (C8: pick-ups, single plays, forced "ready"s) is bounded only by ``max_turns``: a table whose
forced-move report arrays are full stops with its forced move pending and is flagged; the game widens the arrays
and calls :func:`resume_tables` for it, which goes on.
"""

from __future__ import annotations

import numba
import numpy as np

from envs.core import play
from envs.core.bits import bit, lowest, popcount
from envs.core.cards import DECK_SIZE, NUM_RANKS
from envs.core.forced import clear_report, report_move
from envs.core.records import kernel_tuple
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

TrioletExtra = kernel_tuple("TrioletExtra", ("forced_count", "forced_seat", "forced_action", "forced_card"))
"""The state's arrays outside the table records (their width varies): the forced-move report
(:mod:`envs.core.forced`), batch axis first."""
TrioletRules = kernel_tuple("TrioletRules", ("n", "deck_size", "faceup_sets", "max_turns", "show_failed_facedown",
                                             "auto_forced"))
"""The configuration as the kernels take it (:class:`envs.triolet.config.TrioletConfig`; ``n`` players, a deck of
``deck_size`` cards)."""

MAX_SWAPS = 3
"""L4: exchanges a player may make before saying ready."""
U0 = np.uint64(0)
#: ``PLAYABLE_CARDS[top + 1]``: the cards that may go on a pile with top rank ``top`` (-1: empty pile).
PLAYABLE_CARDS = np.array([np.bitwise_or.reduce(ms.RANK_MASKS[row]) for row in PLAYABLE], dtype=np.uint64)


# ================================================================== deal (L1, L3)
@numba.njit(cache=True)
def deal(t, r, cards):
    """Deal the table from ``t.deck`` (identities; a first entry -1 means: shuffle ``cards``, the deck's ids, from
    the seed, C7): seat ``p`` gets deck positions ``9p .. 9p+8``, three face-down cards, three face-up cards and three
    hand cards; the rest is the stock. The first player is right of the dealer (L5)."""
    n, size = r.n, cards.shape[0]
    if t.deck[0] < 0:
        order = np.empty(size, np.int64)
        shuffle_into(t.seeds, 0, order)
        for i in range(size):
            t.deck[i] = cards[order[i]] % DECK_SIZE
    if t.dealer < 0:
        t.dealer = uniform_int(t.seeds, STREAM_DEALER, 0, n)
    for p in range(n):
        h1, h2 = U0, U0
        for j in range(HAND_SIZE):
            t.facedown[p, j] = t.deck[9 * p + j]
            t.faceup[p, j] = t.deck[9 * p + 3 + j]
            h1, h2 = ms.add(h1, h2, bit(t.deck[9 * p + 6 + j]), U0)
        t.hand1[p], t.hand2[p] = h1, h2
    t.current_player = (t.dealer - 1) % n
    t.stock_pos = 9 * n


# ================================================================== swap phase (L4)
@numba.njit(cache=True)
def swap_cards(t, p, cards, places):
    """The distinct hand card identities of seat ``p`` in id order (-1: none) and the position of each one's first
    copy in the hand sorted by card id (the hand holds three cards in the swap phase)."""
    h1, h2 = t.hand1[p], t.hand2[p]
    rest = h1
    for j in range(HAND_SIZE):
        low = rest & (~rest + np.uint64(1))
        below = low - np.uint64(1)
        cards[j] = popcount(below) if low != U0 else -1
        places[j] = popcount(h1 & below) + popcount(h2 & below)
        rest &= ~low


@numba.njit(cache=True)
def swap_mask(t, m):
    """Write "ready" and the exchanges still allowed into ``m``; returns whether any exchange is allowed."""
    p = t.current_player
    cards = np.empty(HAND_SIZE, np.int64)
    places = np.empty(HAND_SIZE, np.int64)
    swap_cards(t, p, cards, places)
    m[READY] = True
    found = False
    if t.swaps < MAX_SWAPS:
        for i in range(HAND_SIZE):
            for slot in range(HAND_SIZE):
                up = t.faceup[p, slot]
                if cards[i] >= 0 and up >= 0 and cards[i] != up:
                    m[SWAP + HAND_SIZE * places[i] + slot] = True
                    found = True
    return found


@numba.njit(cache=True)
def apply_swap_phase(t, r, a):
    """L4: exchange a hand card with a face-up card (seen by all: both enter the public record, L17), or say ready;
    when everybody is ready the play starts with the first player."""
    p = t.current_player
    if a == READY:
        t.swaps = 0
        t.ready += 1
        t.current_player = (p - 1) % r.n
        if t.ready == r.n:
            t.phase = PLAY_PHASE
        return
    place, slot = (a - SWAP) // HAND_SIZE, (a - SWAP) % HAND_SIZE
    cards = np.empty(HAND_SIZE, np.int64)
    places = np.empty(HAND_SIZE, np.int64)
    swap_cards(t, p, cards, places)
    give = cards[0]
    for i in range(HAND_SIZE):
        if places[i] == place:
            give = cards[i]
            break
    take = t.faceup[p, slot]
    t.faceup[p, slot] = give
    x1, x2 = ms.sub(t.hand1[p], t.hand2[p], bit(give), U0)
    t.hand1[p], t.hand2[p] = ms.add(x1, x2, bit(take), U0)
    x1, x2 = ms.sub(t.known1[p], t.known2[p], bit(give), U0)
    t.known1[p], t.known2[p] = ms.add(x1, x2, bit(take), U0)
    t.swaps += 1


# ================================================================== play (L5–L16)
@numba.njit(cache=True)
def draw(t, r, p):
    """L10: draw from the stock until the hand holds three cards or the stock is empty."""
    need = min(max(HAND_SIZE - ms.size(t.hand1[p], t.hand2[p]), 0), r.deck_size - t.stock_pos)
    for j in range(need):
        card = t.deck[t.stock_pos + j]
        t.hand1[p], t.hand2[p] = ms.add(t.hand1[p], t.hand2[p], bit(card), U0)
    t.stock_pos += need


@numba.njit(cache=True)
def to_pile(t, c1, c2):
    t.pile1, t.pile2 = ms.add(t.pile1, t.pile2, c1, c2)


@numba.njit(cache=True)
def finish(t, r, seat):
    """L15, L16: the first player out wins +1, every other player pays 1/(n-1)."""
    t.rewards[:] = -1.0 / (r.n - 1)
    t.rewards[seat] = 1.0
    t.terminated = True
    t.winner = seat
    t.legal_action_mask[:] = False


@numba.njit(cache=True)
def place(t, r, p, rank, count, no_hand):
    """After ``count`` cards of ``rank`` went on the pile: burn (L8, L9), go out (L15) or pass the turn to the right
    (L5) — a player who burned plays again (L14). ``no_hand``: the player's hand is now empty."""
    run = t.run + count if t.top == rank else count
    burn = rank == TEN or run >= 4
    t.run = 0 if burn else run
    t.top = -1 if burn else rank
    if burn:
        t.burned1, t.burned2 = ms.add(t.burned1, t.burned2, t.pile1, t.pile2)
        t.pile1 = U0
        t.pile2 = U0
        t.last_burn = True
    out = False
    if no_hand:
        out = True
        for j in range(HAND_SIZE):
            if t.faceup[p, j] >= 0 or t.facedown[p, j] >= 0:
                out = False
        if out:
            finish(t, r, p)
    if not (burn or out):
        t.current_player = (p - 1) % r.n


@numba.njit(cache=True)
def pick_up(t, r, p):
    """L11: the player takes the whole pile into the hand (public, L17); the turn passes right."""
    t.hand1[p], t.hand2[p] = ms.add(t.hand1[p], t.hand2[p], t.pile1, t.pile2)
    t.known1[p], t.known2[p] = ms.add(t.known1[p], t.known2[p], t.pile1, t.pile2)
    t.pile1 = U0
    t.pile2 = U0
    t.top = -1
    t.run = 0
    t.current_player = (p - 1) % r.n


@numba.njit(cache=True)
def apply_play(t, r, a):
    """One move on the pile (a turn, L16): from the hand (L6), face-up cards (L12), a face-down card (L13) or a
    pick-up (L11)."""
    p = t.current_player
    t.last_seat = p
    t.last_action = a
    t.last_burn = False
    t.last_missed = False
    if a < PLAY_FACEUP:  # k cards of a rank from the hand (lowest suits first), then draw (L10)
        rank, count = a // MAX_COPIES, a % MAX_COPIES + 1
        x1, x2 = ms.take_lowest(t.hand1[p], t.hand2[p], rank, count)
        t.hand1[p], t.hand2[p] = ms.sub(t.hand1[p], t.hand2[p], x1, x2)
        t.known1[p], t.known2[p] = ms.sub(t.known1[p], t.known2[p], x1, x2)
        to_pile(t, x1, x2)
        draw(t, r, p)
        place(t, r, p, rank, count, t.hand1[p] == U0)
    elif a < PLAY_FACEDOWN:  # the face-up card named, or k face-up cards of a rank (lowest slots first)
        single = a < PLAY_FACEUP_SET
        rank = (a - PLAY_FACEUP) % NUM_RANKS if single else (a - PLAY_FACEUP_SET) // 2
        count = 1 if single else (a - PLAY_FACEUP_SET) % 2 + 2
        taken = 0
        for j in range(HAND_SIZE):
            c = t.faceup[p, j]
            match = c >= 0 and (c == a - PLAY_FACEUP if single else c % NUM_RANKS == rank)
            if match and taken < count:
                to_pile(t, bit(c), U0)
                t.faceup[p, j] = -1
                taken += 1
        place(t, r, p, rank, count, True)
    elif a < PICK_UP:  # L13: turn a face-down card over
        slot = a - PLAY_FACEDOWN
        card = t.facedown[p, slot]
        t.facedown[p, slot] = -1
        t.last_card = card
        if PLAYABLE_CARDS[t.top + 1] & bit(card):
            to_pile(t, bit(card), U0)
            place(t, r, p, card % NUM_RANKS, 1, True)
        else:  # into the hand (shown to all only with show_failed_facedown), then the pile too
            t.last_missed = True
            t.hand1[p], t.hand2[p] = ms.add(t.hand1[p], t.hand2[p], bit(card), U0)
            if r.show_failed_facedown:
                t.known1[p], t.known2[p] = ms.add(t.known1[p], t.known2[p], bit(card), U0)
            pick_up(t, r, p)
    else:
        pick_up(t, r, p)
    t.turns += 1
    if t.turns >= r.max_turns and not t.terminated:  # L16
        t.truncated = True
        t.current_player = -1
        t.legal_action_mask[:] = False


@numba.njit(cache=True)
def apply(t, r, a):
    if t.phase == SWAP_PHASE:
        apply_swap_phase(t, r, a)
    else:
        apply_play(t, r, a)


# ================================================================== legal actions
@numba.njit(cache=True)
def play_mask(t, r, m):
    """L6–L13: plays from the hand, else the face-up cards, else the face-down cards; a pick-up when nothing can be
    played (L11). Writes them into ``m``; returns the forced action (C8) or -1 where there is a choice."""
    p = t.current_player
    h1, h2 = t.hand1[p], t.hand2[p]
    can = PLAYABLE_CARDS[t.top + 1]
    hand_can1, hand_can2 = h1 & can, h2 & can
    legal = popcount(hand_can1) + popcount(hand_can2)
    for rank in range(NUM_RANKS):
        for k in range(ms.rank_count(hand_can1, hand_can2, rank)):
            m[MAX_COPIES * rank + k] = True
    forced = -1
    if h1 == U0:  # L12, L13: on the table cards: face-up ones first
        on_up = False
        for j in range(HAND_SIZE):
            on_up |= t.faceup[p, j] >= 0
        up_one = U0
        up_ranks = np.zeros(NUM_RANKS, np.int64)
        down_first = -1
        for j in range(HAND_SIZE):
            c = t.faceup[p, j]
            if on_up and c >= 0 and can & bit(c):
                up_one |= bit(c)
                up_ranks[c % NUM_RANKS] += 1
            if not on_up and t.facedown[p, j] >= 0:
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
def refresh(t, r):
    """The legal mask of table ``b``; returns its forced action (C8), -1 where there is a choice or the table is
    finished."""
    m = t.legal_action_mask
    m[:] = False
    if t.terminated or t.truncated:
        t.current_player = -1
        return -1
    if t.phase == SWAP_PHASE:
        return -1 if swap_mask(t, m) else READY  # "ready" is forced after three exchanges
    return play_mask(t, r, m)


@numba.njit(cache=True)
def settle(t, r, x, b):
    """Compute the legal mask; with ``auto_forced`` play forced moves until the table waits on a decision (C8).
    Returns False when the report arrays are full with a forced move pending."""
    while True:
        a = refresh(t, r)
        if not r.auto_forced or a < 0:
            return True
        if x.forced_count[b] >= x.forced_seat.shape[1]:
            return False
        report_move(x, b, t.current_player, a, -1)
        apply(t, r, a)


# ================================================================== batch entry points
@numba.njit(cache=True)
def init_tables(rec, r, x, cards, pending):
    """Deal every table of a fresh state; ``pending[b]`` is set where forced moves wait on wider report arrays."""
    for b in range(rec.shape[0]):
        deal(rec[b], r, cards)
        pending[b] = not settle(rec[b], r, x, b)


@numba.njit(cache=True)
def redeal_tables(rec, r, x, cards, idx, seeds, pending):
    """Start a new episode at tables ``idx`` with ``seeds`` (as :func:`init_tables` deals them, no stacked deck)."""
    for i in range(idx.shape[0]):
        b = idx[i]
        t = rec[b]
        t.seeds = seeds[i]
        t.rewards[:] = 0.0
        t.terminated = False
        t.truncated = False
        clear_report(x, b)
        t.deck[0] = -1
        t.dealer = -1
        t.known1[:] = U0
        t.known2[:] = U0
        t.pile1 = U0
        t.pile2 = U0
        t.burned1 = U0
        t.burned2 = U0
        t.top = -1
        t.run = 0
        t.phase = SWAP_PHASE
        t.swaps = 0
        t.ready = 0
        t.turns = 0
        t.winner = -1
        t.last_seat = -1
        t.last_action = -1
        t.last_card = -1
        t.last_burn = False
        t.last_missed = False
        deal(t, r, cards)
        pending[i] = not settle(t, r, x, b)


@numba.njit(cache=True)
def play_tables(rec, r, x, idx, actions, pending):
    """``step`` at tables ``idx``: -1 after playing ``actions[i]`` at each unfinished table ``idx[i]``, then its
    forced moves, or the position of the first illegal action with nothing changed."""
    bad = play.first_illegal(rec, idx, actions)
    if bad >= 0:
        return bad
    for i in range(idx.shape[0]):
        b = idx[i]
        t = rec[b]
        play.start_step(t, x, b)
        pending[i] = False
        if t.terminated or t.truncated:
            continue
        apply(t, r, actions[i])
        pending[i] = not settle(t, r, x, b)
    return -1


@numba.njit(cache=True)
def resume_tables(rec, r, x, idx, pending):
    """Recompute the masks of tables ``idx`` and go on with their forced moves (after the report arrays were
    widened, or after a position was set up by hand)."""
    for i in range(idx.shape[0]):
        pending[i] = not settle(rec[idx[i]], r, x, idx[i])
