"""The batched-game base class every game core derives from (design.md, "The batched core").

A game holds a frozen configuration and works on a *state*: a dataclass of numpy arrays with the batch (table) axis
first. Every state carries the fields of :class:`BatchState`; a game adds its own. ``init`` deals a batch of tables,
``step`` plays one decision on every table at once (resolving forced moves, common.md C8), ``observe`` builds the
seat-relative observation of any seat. Finished tables stay finished: stepping them changes nothing and gives zero
rewards. Illegal actions are refused before anything changes (C9).
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from envs.core import forced
from envs.core.cards import card_str
from envs.core.config import ConfigError, make_config
from envs.core.rng import normalize_seeds


class IllegalActionError(ValueError):
    """An action outside the acting player's legal-action mask (common.md C9); the state was not changed."""


@dataclasses.dataclass
class BatchState:
    """Fields common to every game's state; all arrays have the batch axis first."""

    seeds: np.ndarray
    """(B,) uint64 — each table's seed; every random draw of the table is a hash of it (C7)."""
    current_player: np.ndarray
    """(B,) int64 — the seat that must act, -1 on a finished table."""
    legal_action_mask: np.ndarray
    """(B, A) bool — the actions the current player may take."""
    rewards: np.ndarray
    """(B, n) float64 — each seat's reward for the last step (C11)."""
    terminated: np.ndarray
    """(B,) bool — the rules ended the episode (C13)."""
    truncated: np.ndarray
    """(B,) bool — a step limit cut the episode off (C13)."""
    forced_count: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, np.int64), kw_only=True)
    """(B,) int64 — forced moves made by the last step (or by ``init``) at each table (C8, :mod:`envs.core.forced`)."""
    forced_seat: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 0), np.int64), kw_only=True)
    """(B, K) int64 — seat of each forced move, in order (``K`` grows as needed)."""
    forced_action: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 0), np.int64), kw_only=True)
    """(B, K) int64 — action id of each forced move."""
    forced_card: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 0), np.int64), kw_only=True)
    """(B, K) int64 — the card a forced move played where its action's name does not say it, else -1."""

    @property
    def batch_size(self) -> int:
        return int(self.current_player.shape[0])

    @property
    def done(self) -> np.ndarray:
        """(B,) bool — terminated or truncated."""
        return self.terminated | self.truncated

    def copy(self) -> BatchState:
        """A deep copy (arrays copied)."""
        return dataclasses.replace(self, **{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)})

    def take(self, idx: np.ndarray) -> BatchState:
        """The tables ``idx`` as a new, independent state."""
        fields = dataclasses.fields(self)
        return dataclasses.replace(self, **{f.name: getattr(self, f.name)[idx].copy() for f in fields})

    def put(self, idx: np.ndarray, other: BatchState) -> None:
        """Overwrite tables ``idx`` of this state with the tables of ``other`` (in order)."""
        width = max(self.forced_seat.shape[1], other.forced_seat.shape[1])
        for state in (self, other):
            if state.forced_seat.shape[1] < width:
                forced.grow(state, width)
        for f in dataclasses.fields(self):
            getattr(self, f.name)[idx] = getattr(other, f.name)


S = TypeVar("S", bound=BatchState)


class BatchedGame(ABC, Generic[S]):
    """A game rules engine over a batch of tables. Subclasses set the class attributes and implement the
    abstract methods; :meth:`step` and :meth:`init` check their inputs here, once for every game."""

    name: ClassVar[str]
    """Short game name, e.g. ``"tripoli"``."""
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    """The observation is padded to this many seats so one policy fits every table size."""
    config_class: ClassVar[type]
    deck_size: ClassVar[int] = 52
    """Cards in the deck for a stacked ``init(decks=...)`` (a game whose deck depends on the table size overrides
    :meth:`deck_size_for`)."""

    def __init__(self, num_players: int = 4, **options: Any) -> None:
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
            raise ConfigError(f"{self.name}: num_players must be an integer, got {num_players!r}")
        if not self.min_players <= num_players <= self.max_players:
            raise ConfigError(
                f"{self.name}: num_players={num_players} is not allowed; "
                f"allowed: {self.min_players} to {self.max_players} players"
            )
        self.num_players = int(num_players)
        self.config = make_config(self.config_class, options)

    # ----- sizes -------------------------------------------------------------------------------------------------
    @property
    @abstractmethod
    def num_actions(self) -> int:
        """Size of the discrete action space."""

    @property
    @abstractmethod
    def observation_size(self) -> int:
        """Length of the flat observation vector."""

    def deck_size_for(self) -> int:
        """Cards in this table's deck."""
        return len(self.deck_ids())

    def deck_ids(self) -> np.ndarray:
        """The card ids of this table's deck, ascending (C1, C3); a stacked deck is a permutation of them."""
        return np.arange(self.deck_size)

    # ----- the game ----------------------------------------------------------------------------------------------
    def init(
        self,
        seeds: int | np.ndarray | None,
        batch_size: int | None = None,
        decks: np.ndarray | None = None,
        dealers: np.ndarray | None = None,
    ) -> S:
        """Deal a batch of tables.

        ``seeds``: one int (table ``i`` gets ``seed + i``), an array of per-table seeds, or ``None`` for entropy.
        ``decks``: optional ``(B, deck_size)`` stacked decks, card ids in the order they are dealt (the first deal of
        the episode uses them; later deals shuffle from the seed). ``dealers``: optional ``(B,)`` first dealers.
        """
        if batch_size is None:
            batch_size = 1 if seeds is None or np.ndim(seeds) == 0 else len(seeds)
        seeds_arr = normalize_seeds(seeds, batch_size)
        if decks is not None:
            decks = np.asarray(decks)
            size = self.deck_size_for()
            if decks.ndim == 1:
                decks = decks[None, :]
            if decks.shape != (batch_size, size):
                raise ValueError(
                    f"{self.name}: a stacked deck must have shape ({batch_size}, {size}), got {decks.shape}"
                )
            ids = self.deck_ids()
            if not (np.sort(decks, axis=1) == ids).all():
                what = f"0..{size - 1}" if (ids == np.arange(size)).all() else f"of this table's {size}-card deck"
                raise ValueError(f"{self.name}: a stacked deck must hold each card id {what} exactly once")
            decks = decks.astype(np.int16)
        if dealers is not None:
            dealers = np.broadcast_to(np.asarray(dealers), (batch_size,)).astype(np.int64)
            if ((dealers < 0) | (dealers >= self.num_players)).any():
                raise ValueError(
                    f"{self.name}: dealer must be a seat 0..{self.num_players - 1}, got {dealers.tolist()}"
                )
        state = self._init(seeds_arr, decks, dealers)
        forced.ensure(state)
        return state

    def step(self, state: S, actions: np.ndarray | int, tables: np.ndarray | None = None) -> S:
        """Play one decision at every unfinished table (in place) and return the state.

        ``tables``: play only at these table indices (``actions`` then has one entry per listed table); the other
        tables keep waiting and their rewards are left as they were. ``state.rewards`` then holds each seat's reward
        for this step, forced moves included. An action outside the mask of an unfinished table raises
        :class:`IllegalActionError` and leaves the state unchanged.
        """
        idx = np.arange(state.batch_size) if tables is None else np.asarray(tables, dtype=np.int64)
        actions = np.asarray(actions)
        if actions.dtype.kind not in "iu":
            raise IllegalActionError(f"{self.name}: actions must be integers, got dtype {actions.dtype}")
        if actions.shape != idx.shape:
            actions = np.broadcast_to(actions, idx.shape)
        actions = actions.astype(np.int64, copy=False)
        live = ~(state.terminated[idx] | state.truncated[idx])
        in_range = (actions >= 0) & (actions < self.num_actions)
        legal = state.legal_action_mask[idx, np.where(in_range, actions, 0)] & in_range
        bad = np.flatnonzero(live & ~legal)
        if bad.size:
            k = int(bad[0])
            b = int(idx[k])
            allowed = ", ".join(f"{a} ({self.action_name(a)})" for a in np.flatnonzero(state.legal_action_mask[b]))
            what = f"{int(actions[k])} ({self.action_name(int(actions[k]))})" if in_range[k] else str(int(actions[k]))
            raise IllegalActionError(
                f"{self.name}: action {what} is not legal for seat {int(state.current_player[b])}"
                + (f" at table {b}" if state.batch_size > 1 else "")
                + f"; legal actions: {allowed}"
            )
        state.rewards[idx] = 0.0
        forced.clear(state, idx)
        if not live.all():
            idx, actions = idx[live], actions[live]
        if idx.size:
            self._step(state, idx, actions)
        return state

    @abstractmethod
    def _init(self, seeds: np.ndarray, decks: np.ndarray | None, dealers: np.ndarray | None) -> S:
        """Deal ``len(seeds)`` tables (inputs already checked)."""

    @abstractmethod
    def _step(self, state: S, idx: np.ndarray, actions: np.ndarray) -> None:
        """Apply the legal ``actions`` at tables ``idx`` in place, forced moves included."""

    @abstractmethod
    def observe(self, state: S, seats: np.ndarray | int) -> np.ndarray:
        """``(B, observation_size) float32`` observations of seat ``seats[b]`` at each table (C12: nothing hidden
        from that seat enters it)."""

    @abstractmethod
    def action_name(self, action: int) -> str:
        """Readable name of an action id, e.g. ``"bet 3"``."""

    @abstractmethod
    def render_table(self, state: S, table: int, viewer: int | None, unicode: bool = True) -> str:
        """Text picture of one table as seat ``viewer`` may see it (``None``: only public information)."""

    def forced_moves(self, state: S, table: int) -> list[forced.ForcedMove]:
        """The forced moves (C8) the last step (or ``init``) made at ``table``, in order."""
        out = []
        for k in range(int(state.forced_count[table])):
            action, card = int(state.forced_action[table, k]), int(state.forced_card[table, k])
            name = self.action_name(action) + (f" ({card_str(card, unicode=True)})" if card >= 0 else "")
            out.append(forced.ForcedMove(int(state.forced_seat[table, k]), action, name))
        return out

    def action_names(self) -> list[str]:
        """Names of every action id, in order."""
        return [self.action_name(a) for a in range(self.num_actions)]

    def action_id(self, name: str) -> int:
        """Inverse of :meth:`action_name` (exact name match)."""
        names = self.action_names()
        if name not in names:
            raise ValueError(f"{self.name}: no action named {name!r}")
        return names.index(name)


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a ``(B, A)`` mask (rows with no legal action give 0)."""
    scores = rng.random(mask.shape, dtype=np.float32)
    scores[~mask.astype(bool)] = -1.0
    return scores.argmax(axis=1)
