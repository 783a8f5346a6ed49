"""The batched core of Le triolet (docs/triolet.md L1–L17): every table of a batch plays at once.

State: each card is stored by its identity ``c % 52`` (suits never matter and the two decks' copies play alike,
C3). Hands, the pile, the burned cards and the cards each hand is publicly known to hold are multisets in two 52-bit
planes (:mod:`envs.triolet.multiset`); face-up and face-down cards sit in three slots per seat (identity, -1 when
empty); the stock is the rest of the dealt deck, drawn from ``stock_pos`` on. The pile's order matters only through
its top: the top rank and ``run``, the number of cards of that rank lying consecutively on top (four burn, L9).

A step applies the chosen action, then resolves forced moves (C8, e.g. a pick-up) until every table waits on a real
decision. The rules are compiled per-table kernels (:mod:`envs.triolet.kernels`); every batched entry point is one
call into them, which loops over the tables. The state is :class:`envs.triolet.state.TrioletState`.

Stacked decks list card ids in dealing order: a permutation of :func:`~envs.triolet.actions.deck_cards` (the stripped
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

from collections.abc import Callable

import numpy as np

from envs.core import forced, records
from envs.core.cards import DECK_SIZE
from envs.core.game import BatchedGame
from envs.triolet import kernels as K
from envs.triolet import observation, render
from envs.triolet.actions import NUM_ACTIONS, action_name, deck_cards
from envs.triolet.config import TrioletConfig
from envs.triolet.state import SWAP_PHASE, TrioletState, record_fields

MAX_SWAPS = K.MAX_SWAPS


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
        cfg = self.config
        self._rules = K.TrioletRules(n=self.num_players, deck_size=len(self.cards), faceup_sets=cfg.faceup_sets,
                              max_turns=cfg.max_turns, show_failed_facedown=cfg.show_failed_facedown,
                              auto_forced=cfg.auto_forced)
        self._fields = record_fields(self.num_players, len(self.cards), NUM_ACTIONS)

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

    @property
    def reward_range(self) -> tuple[float, float]:
        """Bounds ``(low, high)`` of one seat's reward for one step (L15: +1 for the first player out, -1/(n-1) for
        each other player, paid once when the episode ends)."""
        return -1.0 / (self.num_players - 1), 1.0

    # ----- kernels -----------------------------------------------------------------------------------------------
    def _kernel_args(self, state: TrioletState) -> tuple[np.ndarray, K.TrioletRules, K.TrioletExtra]:
        """The table records of ``state``, the rules and the arrays outside the records, as the kernels take them."""
        return (records.records(state, self._fields), self._rules,
                K.TrioletExtra(state.forced_count, state.forced_seat, state.forced_action, state.forced_card))

    def _resume(self, state: TrioletState) -> Callable[[np.ndarray, np.ndarray], None]:
        """The kernel that goes on with forced moves at some tables of ``state``, for
        :func:`envs.core.forced.widen_and_resume` (the arguments are read at each call: widening replaces arrays)."""
        return lambda tables, pending: K.resume_tables(*self.kernel_args(state), tables, pending)

    def _init(self, seeds: np.ndarray, decks: np.ndarray | None, dealers: np.ndarray | None) -> TrioletState:
        b = len(seeds)
        rec, views = records.allocate(b, self._fields)
        views["seeds"][:] = seeds
        views["deck"][:] = -1 if decks is None else decks[:, 0] % DECK_SIZE
        views["dealer"][:] = -1 if dealers is None else dealers
        views["phase"][:] = SWAP_PHASE
        for name in ("current_player", "faceup", "facedown", "top", "winner", "last_seat", "last_action",
                     "last_card"):
            views[name][...] = -1
        capacity = forced.INITIAL_CAPACITY
        state = TrioletState(
            **views, forced_count=np.zeros(b, np.int64), forced_seat=np.full((b, capacity), -1, np.int64),
            forced_action=np.full((b, capacity), -1, np.int64), forced_card=np.full((b, capacity), -1, np.int64),
        )
        records.bind(state, rec, views)
        pending = np.zeros(b, bool)
        K.init_tables(*self.kernel_args(state), self.cards, pending)
        forced.widen_and_resume(state, np.arange(b), pending, self._resume(state))
        return state

    def _redeal(self, state: TrioletState, idx: np.ndarray, seeds: np.ndarray) -> None:
        pending = np.zeros(idx.size, bool)
        K.redeal_tables(*self.kernel_args(state), self.cards, idx, seeds, pending)
        forced.widen_and_resume(state, idx, pending, self._resume(state))

    def _play(self, state: TrioletState, idx: np.ndarray, actions: np.ndarray) -> int:
        pending = np.zeros(idx.size, bool)
        bad = K.play_tables(*self.kernel_args(state), idx, actions, pending)
        if bad < 0:
            forced.widen_and_resume(state, idx, pending, self._resume(state))
        return bad

    # ----- faces -------------------------------------------------------------------------------------------------
    def _observe(self, state: TrioletState, seats: np.ndarray, out: np.ndarray) -> None:
        observation.observe(self, state, seats, out)

    def _action_name(self, action: int) -> str:
        return action_name(action)

    def _render_table(self, state: TrioletState, table: int, viewer: int | None, unicode: bool) -> str:
        return render.render_table(state, table, viewer, unicode, self.num_players,
                                   self.config.show_failed_facedown)


