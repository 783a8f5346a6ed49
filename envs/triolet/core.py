"""The batched core of Le triolet (docs/triolet.md L1–L17): every table of a batch plays at once.

State: each card is stored by its identity ``c % 52`` (suits never matter and the two decks' copies play alike,
C3). Hands, the pile, the burned cards and the cards each hand is publicly known to hold are multisets in two 52-bit
planes (:mod:`envs.triolet.multiset`); face-up and face-down cards sit in three slots per seat (identity, -1 when
empty); the stock is the rest of the dealt deck, drawn from ``stock_pos`` on. The pile's order matters only through
its top: the top rank and ``run``, the number of cards of that rank lying consecutively on top (four burn, L9).

A step applies the chosen action, then resolves forced moves (C8, e.g. a pick-up): a bounded loop over forced
moves, each round vectorised over the tables that have one, until every table waits on a real decision. The number
of legal actions and a forced action are found from the planes without building the mask; the mask is written only
for tables that wait on a decision.

Stacked decks list card ids in dealing order: a permutation of :func:`~envs.triolet.rules.deck_cards` (the stripped
deck with 3–5 players, ids 0..103 with two decks, C1/C3); :meth:`TrioletGame.stacked_deck` completes one from the
cards dealt first. Dealing: seat ``s`` gets
deck positions ``9s .. 9s+8`` — three face-down cards (slots #1–#3), three face-up cards, three hand cards — and the
rest is the stock, drawn from its front (L3).

Decisions where the rules are silent (also in the final report of issue 3):

* The engine picks which suits leave the hand when ``k`` cards of a rank are played (lowest suit first), and the
  lowest face-up slots when several face-up cards of one rank are played together; suits never matter in play.
* Drawing (L10) follows every play that leaves the hand short, before playing again after a burn (L14).
* A 10 played on an empty pile is legal and burns nothing but itself; the player plays again.
* Cards that publicly enter a hand are remembered (L17): the pile on a pick-up, the face-up card taken in a swap
  (L4), and with ``show_failed_facedown`` the turned face-down card that could not be played (L13; by default only
  its owner sees it). A played card leaves that public record.
* Swaps (L4) name a position in the hand sorted by card id and a face-up slot (9 actions, at most 9 legal).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from envs.core.cards import CARD_BITS, DECK_SIZE, NUM_RANKS
from envs.core.forced import report as report_forced
from envs.core.game import BatchedGame, BatchState
from envs.core.rng import STREAM_DEALER, shuffled_decks, uniform_ints
from envs.triolet import multiset as ms
from envs.triolet import observation, render
from envs.triolet.config import TrioletConfig
from envs.triolet.rules import (
    HAND_SIZE,
    MAX_COPIES,
    NUM_ACTIONS,
    PICK_UP,
    PLAY_ACTIONS,
    PLAY_FACEDOWN,
    PLAY_FACEUP,
    PLAY_FACEUP_SET,
    PLAYABLE,
    READY,
    SWAP,
    TEN,
    action_name,
    deck_cards,
)

SWAP_PHASE, PLAY_PHASE = 0, 1
MAX_SWAPS = 3
"""L4: exchanges a player may make before saying ready."""
_SET_SIZES = np.array([2, 3], dtype=np.int8)
_U0 = np.uint64(0)
#: ``PLAYABLE_CARDS[top + 1]``: the cards that may go on a pile with top rank ``top`` (-1: empty pile).
PLAYABLE_CARDS = np.array([np.bitwise_or.reduce(ms.RANK_MASKS[row]) for row in PLAYABLE], dtype=np.uint64)
#: ``PLAY_HAND_OF_RANK[r]``: the action "play 1×r" from the hand.
PLAY_HAND_OF_RANK = np.arange(NUM_RANKS) * MAX_COPIES
#: ``PLAYABLE_NIBBLES[top + 1]``: nibble ``r`` set (0xF) where rank ``r`` may go on the pile.
PLAYABLE_NIBBLES = (PLAYABLE * (np.uint64(15) << (np.uint64(4) * np.arange(NUM_RANKS, dtype=np.uint64)))).sum(
    axis=1, dtype=np.uint64)
_COPIES = np.arange(MAX_COPIES, dtype=np.uint8)
#: Card bits with an extra entry 0 at index -1 (an empty slot).
_SLOT_BITS = np.append(CARD_BITS, np.uint64(0))


@dataclasses.dataclass
class TrioletState(BatchState):
    """Le triolet tables; ``n`` seats, ``D`` cards in the deck, identities ``c % 52``; multisets as two planes."""

    deck: np.ndarray
    """(B, D) int8 — the dealt deck in dealing order (identities); the stock is ``deck[stock_pos:]``."""
    stock_pos: np.ndarray
    """(B,) int64 — index in ``deck`` of the next card to draw."""
    hand1: np.ndarray
    """(B, n) uint64 — cards in each hand (at least one copy)."""
    hand2: np.ndarray
    """(B, n) uint64 — cards held twice."""
    known1: np.ndarray
    """(B, n) uint64 — cards publicly known to be in each hand (L17), at least once."""
    known2: np.ndarray
    """(B, n) uint64 — … known twice."""
    faceup: np.ndarray
    """(B, n, 3) int8 — face-up card of each slot, -1 when empty."""
    facedown: np.ndarray
    """(B, n, 3) int8 — face-down card of each slot (hidden from everyone, L17), -1 when empty."""
    pile1: np.ndarray
    """(B,) uint64 — cards in the pile (at least once)."""
    pile2: np.ndarray
    """(B,) uint64 — … twice."""
    burned1: np.ndarray
    """(B,) uint64 — cards burned (out of the game, L8, L9), at least once."""
    burned2: np.ndarray
    """(B,) uint64 — … twice."""
    top: np.ndarray
    """(B,) int64 — rank on top of the pile, -1 when the pile is empty."""
    run: np.ndarray
    """(B,) int64 — cards of the top rank lying consecutively on top of the pile."""
    phase: np.ndarray
    """(B,) int64 — 0 swap phase (L4), 1 play."""
    swaps: np.ndarray
    """(B,) int64 — exchanges the current player made in the swap phase."""
    ready: np.ndarray
    """(B,) int64 — players who said ready (the swap phase goes round from the first player to the right)."""
    dealer: np.ndarray
    """(B,) int64 — the dealer seat (C5); the first player is ``dealer - 1`` (L5)."""
    turns: np.ndarray
    """(B,) int64 — turns played (see ``TrioletConfig.max_turns``)."""
    winner: np.ndarray
    """(B,) int64 — the seat that went out first (L15), -1 until then."""
    last_seat: np.ndarray
    """(B,) int64 — seat of the last move, -1 before any (for renders)."""
    last_action: np.ndarray
    """(B,) int64 — the last move's action id, -1 before any."""
    last_card: np.ndarray
    """(B,) int64 — the face-down card turned by the last face-down move (L13: seen by all), -1 before any."""
    last_burn: np.ndarray
    """(B,) bool — the last move burned the pile."""
    last_missed: np.ndarray
    """(B,) bool — the last move turned a face-down card that could not be played (L13: it went into the hand)."""

    # ----- copy counts per card (observations, renders, tests) --------------------------------------------------
    @property
    def hand(self) -> np.ndarray:
        """(B, n, 52) int8 copies of each card in each hand."""
        return ms.counts(self.hand1, self.hand2)

    @property
    def known(self) -> np.ndarray:
        """(B, n, 52) int8 copies of each card publicly known to be in each hand."""
        return ms.counts(self.known1, self.known2)

    @property
    def pile(self) -> np.ndarray:
        """(B, 52) int8 copies of each card in the pile."""
        return ms.counts(self.pile1, self.pile2)

    @property
    def burned(self) -> np.ndarray:
        """(B, 52) int8 copies of each card burned."""
        return ms.counts(self.burned1, self.burned2)


class TrioletGame(BatchedGame[TrioletState]):
    """Le triolet for 3–8 players over a batch of tables (see the module docstring and ``envs/triolet_v1.py``)."""

    name = "triolet"
    min_players = 3
    max_players = 8
    config_class = TrioletConfig
    config: TrioletConfig
    multi_deal = False

    def __init__(self, num_players: int = 4, **options) -> None:
        super().__init__(num_players, **options)
        self.cards = deck_cards(self.num_players)
        """Card ids of the deck (index → id), L1."""

    # ----- sizes -------------------------------------------------------------------------------------------------
    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def observation_size(self) -> int:
        return observation.SIZE

    @property
    def max_episode_decisions(self) -> int:
        """The most decisions (steps) an episode can ask for under this configuration (C13): the swap phase asks
        each player for at most three exchanges and ``ready`` (L4), and every decision of the play phase is a turn,
        of which ``max_turns`` end the episode (L16)."""
        return (MAX_SWAPS + 1) * self.num_players + self.config.max_turns

    def deck_ids(self) -> np.ndarray:
        """L1: the card ids of this table's deck: 40, 44, 48 cards for 3, 4, 5 players; 104 (two decks) for 6–8."""
        return self.cards

    def stacked_deck(self, front: list[int]) -> np.ndarray:
        """A stacked deck for ``init(decks=...)``: the card ids ``front`` first (in dealing order), then the rest of
        the deck in id order. Ids are 0..51 (0..103 with two decks, C3)."""
        ids = {int(c) for c in self.cards}
        missing = [c for c in front if int(c) not in ids]
        if missing or len(set(front)) != len(front):
            raise ValueError(f"triolet: cards {missing or front} are not distinct cards of this table's deck")
        head = [int(c) for c in front]
        return np.array(head + [int(c) for c in self.cards if int(c) not in set(head)], dtype=np.int16)

    # ----- deal --------------------------------------------------------------------------------------------------
    def _init(self, seeds: np.ndarray, decks: np.ndarray | None, dealers: np.ndarray | None) -> TrioletState:
        n, b, size = self.num_players, len(seeds), len(self.cards)
        ids = self.cards[shuffled_decks(seeds, 0, size)] if decks is None else decks[:, 0]
        deck = (ids % DECK_SIZE).astype(np.int8)
        dealer = uniform_ints(seeds, STREAM_DEALER, 0, n) if dealers is None else dealers.astype(np.int64)
        dealt = deck[:, : 3 * HAND_SIZE * n].reshape(b, n, 3, HAND_SIZE)
        hand1, hand2 = np.zeros((b, n), dtype=np.uint64), np.zeros((b, n), dtype=np.uint64)
        for j in range(HAND_SIZE):
            hand1, hand2 = ms.add(hand1, hand2, CARD_BITS[dealt[:, :, 2, j]], _U0)
        zeros_b, zeros_bn = np.zeros(b, dtype=np.uint64), np.zeros((b, n), dtype=np.uint64)
        state = TrioletState(
            seeds=seeds,
            current_player=(dealer - 1) % n,
            legal_action_mask=np.zeros((b, NUM_ACTIONS), dtype=bool),
            rewards=np.zeros((b, n)),
            terminated=np.zeros(b, dtype=bool),
            truncated=np.zeros(b, dtype=bool),
            deck=deck,
            stock_pos=np.full(b, 3 * HAND_SIZE * n, dtype=np.int64),
            hand1=hand1,
            hand2=hand2,
            known1=zeros_bn.copy(),
            known2=zeros_bn.copy(),
            faceup=dealt[:, :, 1].copy(),
            facedown=dealt[:, :, 0].copy(),
            pile1=zeros_b.copy(),
            pile2=zeros_b.copy(),
            burned1=zeros_b.copy(),
            burned2=zeros_b.copy(),
            top=np.full(b, -1, dtype=np.int64),
            run=np.zeros(b, dtype=np.int64),
            phase=np.full(b, SWAP_PHASE, dtype=np.int64),
            swaps=np.zeros(b, dtype=np.int64),
            ready=np.zeros(b, dtype=np.int64),
            dealer=dealer,
            turns=np.zeros(b, dtype=np.int64),
            winner=np.full(b, -1, dtype=np.int64),
            last_seat=np.full(b, -1, dtype=np.int64),
            last_action=np.full(b, -1, dtype=np.int64),
            last_card=np.full(b, -1, dtype=np.int64),
            last_burn=np.zeros(b, dtype=bool),
            last_missed=np.zeros(b, dtype=bool),
        )
        self.settle(state, np.arange(b))
        return state

    # ----- step --------------------------------------------------------------------------------------------------
    def _step(self, state: TrioletState, idx: np.ndarray, actions: np.ndarray) -> None:
        self._apply(state, idx, actions)
        self.settle(state, idx)

    def settle(self, state: TrioletState, idx: np.ndarray | None = None) -> None:
        """Recompute the masks of tables ``idx`` (default: all unfinished) and play their forced moves until each
        waits on a decision (C8). Public for positions set up by editing a state (tests, puzzles)."""
        idx = np.flatnonzero(~state.done) if idx is None else idx
        forced = self._refresh(state, idx)
        while self.config.auto_forced:
            sel = forced >= 0
            if not sel.any():
                return
            idx = idx[sel]
            report_forced(state, idx, state.current_player[idx], forced[sel])
            self._apply(state, idx, forced[sel])
            forced = self._refresh(state, idx)

    def _apply(self, state: TrioletState, idx: np.ndarray, actions: np.ndarray) -> None:
        """Apply legal ``actions`` at tables ``idx`` (one move each, no forced moves)."""
        swap_phase = state.phase[idx] == SWAP_PHASE
        if swap_phase.any():
            self._swap_phase(state, idx[swap_phase], actions[swap_phase])
            idx, actions = idx[~swap_phase], actions[~swap_phase]
        if not idx.size:
            return
        state.last_seat[idx] = state.current_player[idx]
        state.last_action[idx] = actions
        state.last_burn[idx] = False
        state.last_missed[idx] = False
        placed: list[tuple[np.ndarray, ...]] = []  # cards went on the pile: (tables, seats, rank, count, hand empty)
        pick_up: list[np.ndarray] = []  # tables whose player takes the pile
        hand_play = actions < PLAY_FACEUP
        if hand_play.any():
            t, a = idx[hand_play], actions[hand_play]
            placed.append(self._play_from_hand(state, t, a // MAX_COPIES, a % MAX_COPIES + 1))
        if not hand_play.all():
            t, a = idx[~hand_play], actions[~hand_play]
            faceup_play = a < PLAY_FACEDOWN
            if faceup_play.any():
                placed.append(self._play_faceup(state, t[faceup_play], a[faceup_play]))
            facedown = (a >= PLAY_FACEDOWN) & (a < PICK_UP)
            if facedown.any():
                played, missed = self._play_facedown(state, t[facedown], a[facedown] - PLAY_FACEDOWN)
                placed.append(played)
                pick_up.append(missed)
            pick_up.append(t[a == PICK_UP])
            pick_up = [p for p in pick_up if p.size]
        if placed:
            parts = zip(*placed, strict=True)
            self._place(state, *(p[0] if len(placed) == 1 else np.concatenate(p) for p in parts))
        if pick_up:
            self._pick_up(state, pick_up[0] if len(pick_up) == 1 else np.concatenate(pick_up))
        state.turns[idx] += 1
        cut = idx[(state.turns[idx] >= self.config.max_turns) & ~state.terminated[idx]]
        state.truncated[cut] = True
        state.current_player[cut] = -1
        state.legal_action_mask[cut] = False

    def _seats(self, state: TrioletState, t: np.ndarray) -> np.ndarray:
        """Flat index ``table * n + seat`` of the player to act at tables ``t`` (into ``(B * n, …)`` views)."""
        return t * self.num_players + state.current_player[t]

    # ----- swap phase (L4) ---------------------------------------------------------------------------------------

    def _swap_cards(self, state: TrioletState, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(k, 3)`` the distinct hand card identities of the players to act at tables ``t`` in id order (-1: none)
        and ``(k, 3)`` the position of each one's first copy in the hand sorted by card id (L4 swap actions)."""
        f = self._seats(state, t)
        h1, h2 = state.hand1.reshape(-1)[f], state.hand2.reshape(-1)[f]
        rest, cards, places = h1.copy(), [], []
        for _ in range(HAND_SIZE):  # the hand holds three cards in the swap phase
            low = ms.lowest(rest)
            below = low - np.uint64(1)
            cards.append(np.where(low != 0, np.bitwise_count(below).astype(np.int64), -1))
            places.append(np.bitwise_count(h1 & below).astype(np.int64) + np.bitwise_count(h2 & below))
            rest &= ~low
        return np.stack(cards, axis=1), np.stack(places, axis=1)

    def _swap_actions(self, state: TrioletState, t: np.ndarray) -> np.ndarray:
        """``(k, 9)`` the legal swap action ids of tables ``t`` (-1: none): each distinct hand card (by the position of
        its first copy) with each face-up slot holding another card."""
        f = self._seats(state, t)
        cards, places = self._swap_cards(state, t)
        up = state.faceup.reshape(-1, HAND_SIZE)[f].astype(np.int64)[:, None, :]
        h = cards[:, :, None]
        ok = (h >= 0) & (up >= 0) & (h != up) & (state.swaps[t] < MAX_SWAPS)[:, None, None]
        ids = SWAP + HAND_SIZE * places[:, :, None] + np.arange(HAND_SIZE)
        return np.where(ok, ids, -1).reshape(t.size, HAND_SIZE * HAND_SIZE)

    def _swap_phase(self, state: TrioletState, idx: np.ndarray, actions: np.ndarray) -> None:
        old = self._swap_actions(state, idx)
        rows, cols = np.nonzero(old >= 0)
        state.legal_action_mask[idx[rows], old[rows, cols]] = False
        swap = actions >= SWAP
        t, a = idx[swap], actions[swap]
        f = self._seats(state, t)
        place, slot = (a - SWAP) // HAND_SIZE, (a - SWAP) % HAND_SIZE
        cards, places = self._swap_cards(state, t)
        give = cards[np.arange(t.size), np.argmax(places == place[:, None], axis=1)]
        up = state.faceup.reshape(-1, HAND_SIZE)
        take = up[f, slot].astype(np.int64)
        up[f, slot] = give
        g, k = CARD_BITS[give], CARD_BITS[take]
        # the face-up card was seen going into the hand and the hand card coming out (L17)
        for one, two in ((state.hand1, state.hand2), (state.known1, state.known2)):
            one, two = one.reshape(-1), two.reshape(-1)
            x1, x2 = ms.sub(one[f], two[f], g, _U0)
            one[f], two[f] = ms.add(x1, x2, k, _U0)
        state.swaps[t] += 1
        t = idx[~swap]  # ready
        state.swaps[t] = 0
        state.ready[t] += 1
        state.current_player[t] = (state.current_player[t] - 1) % self.num_players
        started = t[state.ready[t] == self.num_players]
        state.phase[started] = PLAY_PHASE
        state.legal_action_mask[started, READY] = False

    # ----- moving cards ------------------------------------------------------------------------------------------
    def _play_from_hand(self, state: TrioletState, t: np.ndarray, rank: np.ndarray, count: np.ndarray) -> tuple:
        """L6: move ``count`` cards of ``rank`` from the current player's hand to the pile (lowest suit first), then
        draw (L10); returns the placement for :meth:`_place`."""
        f = self._seats(state, t)
        hand1, hand2, known1, known2 = (a.reshape(-1) for a in (state.hand1, state.hand2, state.known1, state.known2))
        x1, x2 = ms.take_lowest(hand1[f], hand2[f], rank, count)
        h1, h2 = ms.sub(hand1[f], hand2[f], x1, x2)
        known1[f], known2[f] = ms.sub(known1[f], known2[f], x1, x2)
        state.pile1[t], state.pile2[t] = ms.add(state.pile1[t], state.pile2[t], x1, x2)
        h1, h2 = self._draw(state, t, h1, h2)
        hand1[f], hand2[f] = h1, h2
        return t, f, rank, count, h1 == 0

    def _play_faceup(self, state: TrioletState, t: np.ndarray, a: np.ndarray) -> tuple:
        """L12: move the face-up card named by the action, or ``k`` face-up cards of one rank (lowest slots first),
        to the pile; returns the placement for :meth:`_place`."""
        single = a < PLAY_FACEUP_SET
        rank = np.where(single, (a - PLAY_FACEUP) % NUM_RANKS, (a - PLAY_FACEUP_SET) // 2)
        count = np.where(single, 1, (a - PLAY_FACEUP_SET) % 2 + 2)
        f = self._seats(state, t)
        up = state.faceup.reshape(-1, HAND_SIZE)
        cards = up[f].astype(np.int64)
        match = np.where(single[:, None], cards == (a - PLAY_FACEUP)[:, None], cards % NUM_RANKS == rank[:, None])
        match &= cards >= 0
        go = match & (np.cumsum(match, axis=1) <= count[:, None])
        bits = np.where(go, _SLOT_BITS[cards], _U0)
        x2 = (bits[:, 0] & bits[:, 1]) | (bits[:, 0] & bits[:, 2]) | (bits[:, 1] & bits[:, 2])  # one card twice
        x1 = bits[:, 0] | bits[:, 1] | bits[:, 2]
        state.pile1[t], state.pile2[t] = ms.add(state.pile1[t], state.pile2[t], x1, x2)
        up[f] = np.where(go, -1, cards)
        return t, f, rank, count, np.ones(t.size, dtype=bool)

    def _play_facedown(self, state: TrioletState, t: np.ndarray, slot: np.ndarray) -> tuple[tuple, np.ndarray]:
        """L13: turn over a face-down card: played if it can go on the pile, else taken into the hand (shown to all
        only with ``show_failed_facedown``), whose owner then takes the pile. Returns the placement of the played
        cards for :meth:`_place` and the other tables."""
        f = self._seats(state, t)
        down = state.facedown.reshape(-1, HAND_SIZE)
        card = down[f, slot].astype(np.int64)
        down[f, slot] = -1
        state.last_card[t] = card
        bit = CARD_BITS[card]
        played = (PLAYABLE_CARDS[state.top[t] + 1] & bit) != 0
        state.last_missed[t] = ~played
        p = t[played]
        state.pile1[p], state.pile2[p] = ms.add(state.pile1[p], state.pile2[p], bit[played], _U0)
        fm = f[~played]
        shown = ((state.hand1, state.hand2), (state.known1, state.known2))
        for one, two in shown if self.config.show_failed_facedown else shown[:1]:  # L13: private by default
            one, two = one.reshape(-1), two.reshape(-1)
            one[fm], two[fm] = ms.add(one[fm], two[fm], bit[~played], _U0)
        ones = np.ones(p.size, dtype=np.int64)
        return (p, f[played], card[played] % NUM_RANKS, ones, ones == 1), t[~played]

    def _pick_up(self, state: TrioletState, t: np.ndarray) -> None:
        """L11: the current player takes the whole pile into the hand (public, L17); the turn passes right."""
        f = self._seats(state, t)
        p1, p2 = state.pile1[t], state.pile2[t]
        for one, two in ((state.hand1, state.hand2), (state.known1, state.known2)):
            one, two = one.reshape(-1), two.reshape(-1)
            one[f], two[f] = ms.add(one[f], two[f], p1, p2)
        state.pile1[t] = 0
        state.pile2[t] = 0
        state.top[t] = -1
        state.run[t] = 0
        state.current_player[t] = (state.current_player[t] - 1) % self.num_players

    def _place(self, state: TrioletState, t: np.ndarray, f: np.ndarray, rank: np.ndarray, count: np.ndarray,
               no_hand: np.ndarray) -> None:
        """After ``count`` cards of ``rank`` went on the pile: burn (L8, L9), go out (L15) or pass the turn to the
        right (L5) — a player who burned plays again (L14). ``no_hand``: the player's hand is now empty."""
        run = np.where(state.top[t] == rank, state.run[t] + count, count)
        burn = (rank == TEN) | (run >= 4)
        state.run[t] = np.where(burn, 0, run)
        state.top[t] = np.where(burn, -1, rank)
        if burn.any():
            b = t[burn]
            state.burned1[b], state.burned2[b] = ms.add(state.burned1[b], state.burned2[b], state.pile1[b],
                                                        state.pile2[b])
            state.pile1[b] = 0
            state.pile2[b] = 0
            state.last_burn[b] = True
        out = np.zeros(t.size, dtype=bool)
        e = np.flatnonzero(no_hand)
        if e.size:
            up, down = state.faceup.reshape(-1, HAND_SIZE)[f[e]], state.facedown.reshape(-1, HAND_SIZE)[f[e]]
            out[e] = ((up < 0) & (down < 0)).all(axis=1)
            if out.any():
                self._finish(state, t[out], f[out] - t[out] * self.num_players)
        seat = state.current_player[t]
        state.current_player[t] = np.where(burn | out, seat, (seat - 1) % self.num_players)

    def _draw(self, state: TrioletState, t: np.ndarray, h1: np.ndarray, h2: np.ndarray) -> ms.Planes:
        """L10: draw from the stock until the hand holds three cards or the stock is empty; returns the hands."""
        pos = state.stock_pos[t]
        need = np.minimum(np.maximum(HAND_SIZE - ms.size(h1, h2), 0), state.deck.shape[1] - pos)
        r = np.flatnonzero(need)
        if not r.size:
            return h1, h2
        h1, h2, tr, pr, nr = h1.copy(), h2.copy(), t[r], pos[r], need[r]
        last = state.deck.shape[1] - 1
        for j in range(HAND_SIZE):
            card = state.deck[tr, np.minimum(pr + j, last)]
            h1[r], h2[r] = ms.add(h1[r], h2[r], np.where(nr > j, CARD_BITS[card], _U0), _U0)
        state.stock_pos[tr] = pr + nr
        return h1, h2

    def _finish(self, state: TrioletState, t: np.ndarray, seat: np.ndarray) -> None:
        """L15, L16: the first player out wins +1, every other player pays 1/(n-1)."""
        state.rewards[t] = -1.0 / (self.num_players - 1)
        state.rewards[t, seat] = 1.0
        state.terminated[t] = True
        state.winner[t] = seat
        state.legal_action_mask[t] = False

    # ----- legal actions -----------------------------------------------------------------------------------------
    def _refresh(self, state: TrioletState, idx: np.ndarray) -> np.ndarray:
        """Legal masks of tables ``idx``; returns each table's forced action (C8), -1 where there is a choice or the
        table is finished."""
        forced = np.full(idx.size, -1, dtype=np.int64)
        live = ~state.terminated[idx] & ~state.truncated[idx]
        swap = live & (state.phase[idx] == SWAP_PHASE)
        if swap.any():
            forced[swap] = self._swap_masks(state, idx[swap])
        play = live & ~swap
        if play.any():
            forced[play] = self._play_masks(state, idx[play])
        state.current_player[idx[~live]] = -1
        return forced

    def _swap_masks(self, state: TrioletState, t: np.ndarray) -> np.ndarray:
        """L4: "ready" and the exchanges still allowed; "ready" is forced after three exchanges."""
        swaps = self._swap_actions(state, t)
        rows, cols = np.nonzero(swaps >= 0)
        state.legal_action_mask[t[rows], swaps[rows, cols]] = True
        state.legal_action_mask[t, READY] = True
        return np.where((swaps >= 0).any(axis=1), -1, READY)

    def _play_masks(self, state: TrioletState, t: np.ndarray) -> np.ndarray:
        """L6–L13: plays from the hand, else the face-up cards, else the face-down cards; a pick-up when nothing
        can be played (L11). Counts the legal moves from the card planes and writes the mask only where there is
        a choice (or everywhere with ``auto_forced=False``)."""
        flat = self._seats(state, t)
        h1, h2 = state.hand1.reshape(-1)[flat], state.hand2.reshape(-1)[flat]
        top = state.top[t] + 1
        can = PLAYABLE_CARDS[top]
        hand_can = h1 & can
        legal = ms.size(hand_can, h2 & can)
        empty = np.flatnonzero(h1 == 0)  # L12, L13: on the table cards
        if empty.size:
            up = state.faceup.reshape(-1, HAND_SIZE)[flat[empty]]
            on_up = (up >= 0).any(axis=1)
            down = state.facedown.reshape(-1, HAND_SIZE)[flat[empty]] >= 0
            down &= ~on_up[:, None]
            up_can = _SLOT_BITS[up] & (can[empty] & np.where(on_up, ~_U0, _U0))[:, None]
            up_one = up_can[:, 0] | up_can[:, 1] | up_can[:, 2]  # playable face-up identities
            legal[empty] = np.bitwise_count(up_one) + down.sum(axis=1)
            if self.config.faceup_sets:
                up_ranks = (np.bitwise_count(up_can[:, :, None] & ms.RANK_MASKS) != 0).sum(axis=1, dtype=np.int8)
                legal[empty] += np.maximum(up_ranks - 1, 0).sum(axis=1)
        forced = np.where(legal == 0, PICK_UP, -1)
        one = legal == 1
        if one.any():  # C8: the one legal move
            card = np.bitwise_count(ms.lowest(hand_can[one]) - np.uint64(1)).astype(np.int64)
            forced[one] = PLAY_HAND_OF_RANK[card % NUM_RANKS]
            one_t = np.flatnonzero(one[empty])
            if one_t.size:
                card = np.bitwise_count(ms.lowest(up_one[one_t]) - np.uint64(1)).astype(np.int64)
                is_down = down[one_t].any(axis=1)
                forced[empty[one_t]] = np.where(is_down, PLAY_FACEDOWN + down[one_t].argmax(axis=1), PLAY_FACEUP + card)
        if not self.config.auto_forced:
            ask = np.arange(t.size)
        else:
            ask = np.flatnonzero(legal >= 2)
            if not ask.size:
                return forced
        mask = np.zeros((ask.size, PLAY_ACTIONS), dtype=bool)
        # "play k×r" is legal for k up to the playable cards of rank r: nibble r of the packed rank counts, read as
        # bytes (little-endian: byte i holds ranks 2i and 2i + 1)
        nibbles = (ms.rank_nibbles(h1[ask], h2[ask]) & PLAYABLE_NIBBLES[top[ask]]).view(np.uint8).reshape(-1, 8, 1)
        per_rank = np.concatenate([nibbles & 15, nibbles >> 4], axis=2).reshape(-1, 16)[:, :NUM_RANKS, None]
        mask[:, :PLAY_FACEUP] = (per_rank > _COPIES).reshape(ask.size, PLAY_FACEUP)
        mask[:, PICK_UP] = legal[ask] == 0
        if empty.size:
            rows = np.searchsorted(ask, empty)  # the tables on their table cards, among those asked
            sel = (rows < ask.size) & (ask[np.minimum(rows, ask.size - 1)] == empty)
            rows, e = rows[sel], np.flatnonzero(sel)
            mask[rows, PLAY_FACEUP:PLAY_FACEUP_SET] = ms.counts(up_one[e], _U0) != 0
            if self.config.faceup_sets:
                sets = up_ranks[e, :, None] >= _SET_SIZES
                mask[rows, PLAY_FACEUP_SET:PLAY_FACEDOWN] = sets.reshape(e.size, 2 * NUM_RANKS)
            mask[rows, PLAY_FACEDOWN:PICK_UP] = down[e]
        state.legal_action_mask[t[ask], :PLAY_ACTIONS] = mask
        return forced

    # ----- faces -------------------------------------------------------------------------------------------------
    def _observe(self, state: TrioletState, seats: np.ndarray, out: np.ndarray) -> None:
        observation.observe(state, seats, self.num_players, out)

    def _action_name(self, action: int) -> str:
        return action_name(action)

    def _render_table(self, state: TrioletState, table: int, viewer: int | None, unicode: bool) -> str:
        return render.render_table(state, table, viewer, unicode, self.num_players,
                                   self.config.show_failed_facedown)


