"""The batched core of Le triolet (shared/rules/triolet.md L1–L17): every table of a batch plays at once.

State: each card is stored by its identity ``c % 52`` (suits never matter and the two decks' copies play alike,
C3). Hands, the pile, the burned cards and the cards each hand is publicly known to hold are ``(…, 52) int8``
copy counts; face-up and face-down cards sit in three slots per seat (identity, -1 when empty); the stock is the
rest of the dealt deck, drawn from ``stock_pos`` on. The pile's order matters only through its top: the top rank and
``run``, the number of cards of that rank lying consecutively on top (four or more burn, L9).

A step applies the chosen action, then resolves forced moves (C8, e.g. a pick-up) table by table — a bounded loop
over forced moves, each round vectorised over the tables that have one — until every table waits on a real decision.

Stacked decks list, in dealing order, indices into :func:`~envs.triolet.rules.deck_cards` (with 6–8 players these are
the card ids 0..103 themselves); :meth:`TrioletGame.stacked_deck` builds one from card ids. Dealing: seat ``s`` gets
deck positions ``9s .. 9s+8`` — three face-down cards (slots #1–#3), three face-up cards, three hand cards — and the
rest is the stock, drawn from its front (L3).

Decisions where the rules are silent (also in the final report of issue 3):

* The engine picks which suits leave the hand when ``k`` cards of a rank are played (lowest suit first), and the
  lowest face-up slots when several face-up cards of one rank are played together; suits never matter in play.
* Drawing (L10) follows every play that leaves the hand short, before playing again after a burn (L14).
* A 10 played on an empty pile is legal and burns nothing but itself; the player plays again.
* Cards that publicly enter a hand are remembered (L17): the pile on a pick-up, the face-up card taken in a swap
  (L4), the turned face-down card that could not be played (L13). A played card leaves that public record.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from envs.core.cards import DECK_SIZE, NUM_RANKS
from envs.core.game import BatchedGame, BatchState
from envs.core.rng import STREAM_DEALER, shuffled_decks, uniform_ints
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
_COPIES = np.arange(MAX_COPIES, dtype=np.int8)
_NOT_SAME = ~np.eye(DECK_SIZE, dtype=bool).reshape(-1)


@dataclasses.dataclass
class TrioletState(BatchState):
    """Le triolet tables; ``n`` seats, ``D`` cards in the deck, identities ``c % 52``."""

    deck: np.ndarray
    """(B, D) int8 — the dealt deck in dealing order (identities); the stock is ``deck[stock_pos:]``."""
    stock_pos: np.ndarray
    """(B,) int64 — index in ``deck`` of the next card to draw."""
    hand: np.ndarray
    """(B, n, 52) int8 — copies of each card in each hand."""
    known: np.ndarray
    """(B, n, 52) int8 — copies of each card publicly known to be in each hand (L17)."""
    faceup: np.ndarray
    """(B, n, 3) int8 — face-up card of each slot, -1 when empty."""
    facedown: np.ndarray
    """(B, n, 3) int8 — face-down card of each slot (hidden from everyone, L17), -1 when empty."""
    pile: np.ndarray
    """(B, 52) int8 — copies of each card in the pile."""
    burned: np.ndarray
    """(B, 52) int8 — copies of each card burned (out of the game, L8, L9)."""
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
    """(B,) int64 — the face-down card turned by the last move, -1 if none (L13: seen by all)."""
    last_burn: np.ndarray
    """(B,) bool — the last move burned the pile."""


class TrioletGame(BatchedGame[TrioletState]):
    """Le triolet for 3–8 players over a batch of tables (see the module docstring and ``envs/triolet_v0.py``)."""

    name = "triolet"
    min_players = 3
    max_players = 8
    config_class = TrioletConfig
    config: TrioletConfig

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

    def deck_size_for(self) -> int:
        """L1: 40, 44, 48 cards for 3, 4, 5 players; 104 (two decks) for 6–8."""
        return len(self.cards)

    def stacked_deck(self, front: list[int]) -> np.ndarray:
        """A stacked deck for ``init(decks=...)``: the card ids ``front`` first (in dealing order), then the rest of
        the deck in id order. Ids are 0..51 (0..103 with two decks, C3)."""
        index = {int(c): i for i, c in enumerate(self.cards)}
        missing = [c for c in front if int(c) not in index]
        if missing or len(set(front)) != len(front):
            raise ValueError(f"triolet: cards {missing or front} are not distinct cards of this table's deck")
        head = [index[int(c)] for c in front]
        return np.array(head + [i for i in range(len(self.cards)) if i not in set(head)], dtype=np.int16)

    # ----- deal --------------------------------------------------------------------------------------------------
    def _init(self, seeds: np.ndarray, decks: np.ndarray | None, dealers: np.ndarray | None) -> TrioletState:
        n, b, size = self.num_players, len(seeds), len(self.cards)
        order = shuffled_decks(seeds, 0, size) if decks is None else decks
        deck = (self.cards[order] % DECK_SIZE).astype(np.int8)
        dealer = uniform_ints(seeds, STREAM_DEALER, 0, n) if dealers is None else dealers.astype(np.int64)
        dealt = deck[:, : 3 * HAND_SIZE * n].reshape(b, n, 3, HAND_SIZE)
        hand = (dealt[:, :, 2, :, None] == np.arange(DECK_SIZE, dtype=np.int8)).sum(axis=2, dtype=np.int8)
        first = (dealer - 1) % n
        state = TrioletState(
            seeds=seeds,
            current_player=first,
            legal_action_mask=np.zeros((b, NUM_ACTIONS), dtype=bool),
            rewards=np.zeros((b, n)),
            terminated=np.zeros(b, dtype=bool),
            truncated=np.zeros(b, dtype=bool),
            deck=deck,
            stock_pos=np.full(b, 3 * HAND_SIZE * n, dtype=np.int64),
            hand=hand,
            known=np.zeros((b, n, DECK_SIZE), dtype=np.int8),
            faceup=dealt[:, :, 1].copy(),
            facedown=dealt[:, :, 0].copy(),
            pile=np.zeros((b, DECK_SIZE), dtype=np.int8),
            burned=np.zeros((b, DECK_SIZE), dtype=np.int8),
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
        )
        self.settle(state, np.arange(b))
        return state

    # ----- step --------------------------------------------------------------------------------------------------
    def _step(self, state: TrioletState, idx: np.ndarray, actions: np.ndarray) -> None:
        self._apply(state, idx, actions)
        self.settle(state, idx)

    def settle(self, state: TrioletState, idx: np.ndarray | None = None) -> None:
        """Recompute the masks of tables ``idx`` (default: all) and play their forced moves until each waits on a
        decision (C8). Public for positions set up by editing a state (tests, puzzles)."""
        idx = np.flatnonzero(~state.done) if idx is None else idx
        forced = self._refresh(state, idx)
        while self.config.auto_forced and forced.size:
            sel = forced >= 0
            if not sel.any():
                return
            idx = idx[sel]
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
        state.last_card[idx] = -1
        state.last_burn[idx] = False
        hand_play = actions < PLAY_FACEUP
        faceup_play = (actions >= PLAY_FACEUP) & (actions < PLAY_FACEDOWN)
        facedown = (actions >= PLAY_FACEDOWN) & (actions < PICK_UP)
        pick_up = actions == PICK_UP
        if facedown.any():
            t, turned = self._turn_facedown(state, idx[facedown], actions[facedown] - PLAY_FACEDOWN)
            played = PLAYABLE[state.top[t] + 1, turned % NUM_RANKS]
            state.pile[t[played], turned[played]] += 1
            self._place(state, t[played], turned[played] % NUM_RANKS, np.ones(played.sum(), dtype=np.int64))
            missed = t[~played]
            state.hand[missed, state.current_player[missed], turned[~played]] += 1
            state.known[missed, state.current_player[missed], turned[~played]] += 1
            self._pick_up(state, missed)
        if hand_play.any():
            t, a = idx[hand_play], actions[hand_play]
            rank, count = a // MAX_COPIES, a % MAX_COPIES + 1
            self._play_from_hand(state, t, rank, count)
            self._place(state, t, rank, count)
        if faceup_play.any():
            t, a = idx[faceup_play], actions[faceup_play]
            single = a < PLAY_FACEUP_SET
            rank = np.where(single, (a - PLAY_FACEUP) % NUM_RANKS, (a - PLAY_FACEUP_SET) // 2)
            count = np.where(single, 1, (a - PLAY_FACEUP_SET) % 2 + 2)
            self._play_faceup(state, t, np.where(single, a - PLAY_FACEUP, -1), rank, count)
            self._place(state, t, rank, count)
        if pick_up.any():
            self._pick_up(state, idx[pick_up])
        state.turns[idx] += 1
        cut = idx[(state.turns[idx] >= self.config.max_turns) & ~state.terminated[idx]]
        state.truncated[cut] = True
        state.current_player[cut] = -1

    # ----- swap phase (L4) ---------------------------------------------------------------------------------------
    def _swap_phase(self, state: TrioletState, idx: np.ndarray, actions: np.ndarray) -> None:
        state.legal_action_mask[idx] = False
        swap = actions >= SWAP
        t, a = idx[swap], actions[swap]
        seat = state.current_player[t]
        give, take = (a - SWAP) // DECK_SIZE, (a - SWAP) % DECK_SIZE
        slot = np.argmax(state.faceup[t, seat] == take[:, None], axis=1)
        state.faceup[t, seat, slot] = give
        state.hand[t, seat, give] -= 1
        state.hand[t, seat, take] += 1
        state.known[t, seat, take] += 1  # the face-up card was seen going into the hand (L17)
        state.known[t, seat, give] = np.maximum(state.known[t, seat, give] - 1, 0)
        state.swaps[t] += 1
        t = idx[~swap]  # ready
        state.swaps[t] = 0
        state.ready[t] += 1
        state.current_player[t] = (state.current_player[t] - 1) % self.num_players
        state.phase[t[state.ready[t] == self.num_players]] = PLAY_PHASE

    # ----- moving cards ------------------------------------------------------------------------------------------
    def _play_from_hand(self, state: TrioletState, t: np.ndarray, rank: np.ndarray, count: np.ndarray) -> None:
        """L6: move ``count`` cards of ``rank`` from the current player's hand to the pile, lowest suit first."""
        seat, left = state.current_player[t], count.copy()
        for suit in range(4):
            card = suit * NUM_RANKS + rank
            take = np.minimum(left, state.hand[t, seat, card])
            state.hand[t, seat, card] -= take.astype(np.int8)
            state.pile[t, card] += take.astype(np.int8)
            state.known[t, seat, card] = np.maximum(state.known[t, seat, card] - take, 0)
            left -= take

    def _play_faceup(
        self, state: TrioletState, t: np.ndarray, chosen: np.ndarray, rank: np.ndarray, count: np.ndarray
    ) -> None:
        """L12: move the face-up card ``chosen``, or where it is -1 ``count`` face-up cards of ``rank`` (lowest slots
        first), to the pile."""
        seat, left = state.current_player[t], count.copy()
        for slot in range(HAND_SIZE):
            card = state.faceup[t, seat, slot].astype(np.int64)
            go = (left > 0) & (card >= 0) & np.where(chosen >= 0, card == chosen, card % NUM_RANKS == rank)
            state.pile[t[go], card[go]] += 1
            state.faceup[t[go], seat[go], slot] = -1
            left -= go

    def _turn_facedown(self, state: TrioletState, t: np.ndarray, slot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """L13: turn over a face-down card; returns the tables and the cards turned."""
        seat = state.current_player[t]
        card = state.facedown[t, seat, slot].astype(np.int64)
        state.facedown[t, seat, slot] = -1
        state.last_card[t] = card
        return t, card

    def _pick_up(self, state: TrioletState, t: np.ndarray) -> None:
        """L11: the current player takes the whole pile into the hand (public, L17); the turn passes right."""
        seat = state.current_player[t]
        state.hand[t, seat] += state.pile[t]
        state.known[t, seat] += state.pile[t]
        state.pile[t] = 0
        state.top[t] = -1
        state.run[t] = 0
        state.current_player[t] = (seat - 1) % self.num_players

    def _place(self, state: TrioletState, t: np.ndarray, rank: np.ndarray, count: np.ndarray) -> None:
        """After ``count`` cards of ``rank`` went on the pile: burn (L8, L9), draw (L10), go out (L15) or pass the
        turn to the right (L5) — a player who burned plays again (L14)."""
        if not t.size:
            return
        state.run[t] = np.where(state.top[t] == rank, state.run[t] + count, count)
        state.top[t] = rank
        burn = (rank == TEN) | (state.run[t] >= 4)
        b = t[burn]
        state.burned[b] += state.pile[b]
        state.pile[b] = 0
        state.top[b] = -1
        state.run[b] = 0
        state.last_burn[b] = True
        seat = state.current_player[t]
        self._draw(state, t, seat)
        out = (state.hand[t, seat].sum(axis=1) == 0) & (state.faceup[t, seat] < 0).all(axis=1)
        out &= (state.facedown[t, seat] < 0).all(axis=1)
        self._finish(state, t[out], seat[out])
        nxt = t[~burn & ~out]
        state.current_player[nxt] = (state.current_player[nxt] - 1) % self.num_players

    def _draw(self, state: TrioletState, t: np.ndarray, seat: np.ndarray) -> None:
        """L10: draw from the stock until the hand holds three cards or the stock is empty."""
        size = state.deck.shape[1]
        has_stock = state.stock_pos[t] < size
        t, seat = t[has_stock], seat[has_stock]
        pos = state.stock_pos[t]
        need = np.clip(HAND_SIZE - state.hand[t, seat].sum(axis=1), 0, size - pos)
        for j in range(HAND_SIZE):
            go = need > j
            state.hand[t[go], seat[go], state.deck[t[go], pos[go] + j]] += 1
        state.stock_pos[t] = pos + need

    def _finish(self, state: TrioletState, t: np.ndarray, seat: np.ndarray) -> None:
        """L15, L16: the first player out wins +1, every other player pays 1/(n-1)."""
        state.rewards[t] = -1.0 / (self.num_players - 1)
        state.rewards[t, seat] = 1.0
        state.terminated[t] = True
        state.winner[t] = seat
        state.current_player[t] = -1

    # ----- legal actions -----------------------------------------------------------------------------------------
    def _refresh(self, state: TrioletState, idx: np.ndarray) -> np.ndarray:
        """Legal masks of tables ``idx``; returns each table's forced action (C8), -1 where there is a choice."""
        forced = np.full(idx.size, -1, dtype=np.int64)
        done = state.done[idx]
        state.legal_action_mask[idx[done]] = False
        swap = ~done & (state.phase[idx] == SWAP_PHASE)
        if swap.any():
            forced[swap] = self._swap_masks(state, idx[swap])
        play = ~done & ~swap
        if play.any():
            forced[play] = self._play_masks(state, idx[play])
        return forced

    def _swap_masks(self, state: TrioletState, t: np.ndarray) -> np.ndarray:
        seat = state.current_player[t]
        mask = state.legal_action_mask[t]
        mask[:, READY] = True
        can = state.swaps[t] < MAX_SWAPS
        hand = (state.hand[t, seat] > 0) & can[:, None]
        up = np.zeros((t.size, DECK_SIZE), dtype=bool)
        for slot in range(HAND_SIZE):
            card = state.faceup[t, seat, slot]
            up[np.flatnonzero(card >= 0), card[card >= 0]] = True
        mask[:, SWAP:] = (hand[:, :, None] & up[:, None, :]).reshape(t.size, -1) & _NOT_SAME
        state.legal_action_mask[t] = mask
        return np.where(mask[:, SWAP:].any(axis=1), -1, READY)

    def _play_masks(self, state: TrioletState, t: np.ndarray) -> np.ndarray:
        k, seat = t.size, state.current_player[t]
        rows = np.arange(k)
        hand = state.hand[t, seat].reshape(k, 4, NUM_RANKS).sum(axis=1, dtype=np.int8)
        playable = PLAYABLE[state.top[t] + 1]
        faceup = state.faceup[t, seat].astype(np.int64)
        from_hand = hand.any(axis=1)
        from_up = ~from_hand & (faceup >= 0).any(axis=1)
        from_down = ~from_hand & ~from_up
        mask = np.zeros((k, PLAY_ACTIONS), dtype=bool)
        mask[:, :PLAY_FACEUP] = ((playable & from_hand[:, None])[:, :, None] & (hand[:, :, None] > _COPIES)).reshape(
            k, -1
        )
        up_ranks = np.zeros((k, NUM_RANKS + 1), dtype=np.int8)
        for slot in range(HAND_SIZE):
            card = faceup[:, slot]
            ok = from_up & (card >= 0) & playable[rows, card % NUM_RANKS]
            mask[rows[ok], PLAY_FACEUP + card[ok]] = True
            up_ranks[rows, np.where(ok, card % NUM_RANKS, NUM_RANKS)] += 1
        if self.config.faceup_sets:
            sets = up_ranks[:, :NUM_RANKS, None] >= np.array([2, 3], dtype=np.int8)
            mask[:, PLAY_FACEUP_SET:PLAY_FACEDOWN] = sets.reshape(k, -1)
        mask[:, PLAY_FACEDOWN:PICK_UP] = from_down[:, None] & (state.facedown[t, seat] >= 0)
        legal = np.count_nonzero(mask, axis=1)
        mask[:, PICK_UP] = legal == 0
        state.legal_action_mask[t, :PLAY_ACTIONS] = mask
        forced = np.full(k, -1, dtype=np.int64)
        one = legal <= 1
        forced[one] = mask[one].argmax(axis=1)
        return forced

    # ----- faces -------------------------------------------------------------------------------------------------
    def observe(self, state: TrioletState, seats: np.ndarray | int) -> np.ndarray:
        return observation.observe(state, seats, self.num_players)

    def action_name(self, action: int) -> str:
        return action_name(action)

    def render_table(self, state: TrioletState, table: int, viewer: int | None, unicode: bool = True) -> str:
        return render.render_table(state, table, viewer, unicode, self.num_players)

