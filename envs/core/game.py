"""The batched-game base class every game core derives from (the conventions it keeps: docs/common.md).

A game holds a frozen configuration and works on a *state*: a dataclass of numpy arrays with the batch (table) axis
first. Every state carries the fields of :class:`BatchState`; a game adds its own. ``init`` deals a batch of tables,
``step`` plays one decision on every table at once (resolving forced moves, common.md C8), ``observe`` builds the
seat-relative observation of any seat. Finished tables stay finished: stepping them changes nothing and gives zero
rewards. Illegal actions are refused before anything changes (C9).
"""

from __future__ import annotations

import dataclasses
import re
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Generic, TypeVar

import numba
import numpy as np

from envs.core import forced
from envs.core.cards import card_str
from envs.core.checks import ArgumentError, check_int, int_array, seat_array, show, table_indices
from envs.core.config import ConfigError, make_config
from envs.core.rng import normalize_seeds

_DETAIL = re.compile(r"[0-9♣♦♥♠×#]")


def action_kind(name: str) -> str:
    """The kind of an action named ``name``: its words up to the first that holds a number, a suit or a count
    (``"draw discard 2♣"`` → ``"draw discard"``, ``"drop"`` → ``"drop"``)."""
    words = []
    for word in name.split():
        if _DETAIL.search(word):
            break
        words.append(word)
    return " ".join(words) or name


class IllegalActionError(ArgumentError):
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

    def __setattr__(self, name: str, value: Any) -> None:
        """Assigning a field drops the kernel arguments a compiled core cached on the state
        (:meth:`BatchedGame.kernel_args`): they may hold the array it replaces."""
        self.__dict__.pop(_KERNEL_ARGS, None)
        object.__setattr__(self, name, value)

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
_KERNEL_ARGS = "_kernel_args"
"""The attribute of a state holding ``(game, its kernel arguments for the state)``."""


class BatchedGame(ABC, Generic[S]):
    """A game rules engine over a batch of tables. Subclasses set the class attributes and implement the
    abstract methods; :meth:`step` and :meth:`init` check their inputs here, once for every game."""

    name: ClassVar[str]
    """Short game name, e.g. ``"tripoli"``."""
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    """The observation is padded to this many seats so one policy fits every table size."""
    config_class: ClassVar[type]
    forced_capacity: ClassVar[int] = forced.INITIAL_CAPACITY
    """The most forced moves (C8) one step can make at one table: the width of the report arrays."""
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

    @property
    def version(self) -> int:
        """Environment version (PettingZoo's ``_vN``, from :data:`envs.registry.VERSIONS`, the one table of them): a
        change of the rules, defaults, observation or action space bumps it; faces, model files and logs record
        it."""
        from envs.registry import VERSIONS  # the registry imports this module

        return VERSIONS[self.name]

    def changed_options(self) -> dict[str, Any]:
        """The rule options whose values differ from the defaults."""
        return {f.name: getattr(self.config, f.name) for f in dataclasses.fields(self.config)
                if getattr(self.config, f.name) != f.default}

    def same_game(self, other: BatchedGame) -> bool:
        """Whether ``other`` plays the same game: same rules, table size and options (its agents fit this one)."""
        return other.name == self.name and other.num_players == self.num_players and other.config == self.config

    def __repr__(self) -> str:
        options = "".join(f", {k}={v!r}" for k, v in self.changed_options().items())
        return f"{type(self).__name__}(num_players={self.num_players}{options})"

    # ----- sizes -------------------------------------------------------------------------------------------------
    @property
    @abstractmethod
    def num_actions(self) -> int:
        """Size of the discrete action space."""

    @property
    @abstractmethod
    def observation_size(self) -> int:
        """Length of the flat observation vector."""

    multi_deal: ClassVar[bool] = True
    """Whether an episode can have several deals (then ``init`` takes one stacked deck per deal)."""

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
        dealers: np.ndarray | int | None = None,
    ) -> S:
        """Deal a batch of tables.

        ``seeds``: one int in ``0..2**64-1`` (table ``i`` gets ``seed + i``), an array of per-table seeds, or
        ``None`` for entropy (:func:`envs.core.rng.normalize_seeds`). ``batch_size``: the number of tables (a
        positive int; by default one per seed of an array, else 1). ``decks``: optional stacked decks, integer card
        ids in the order they are dealt, each id once per deck: ``(B, deck_size)`` for the first deal of the episode,
        or ``(B, K, deck_size)`` for its first ``K`` deals (a multi-deal episode; later deals shuffle from the seed).
        ``dealers``: optional first dealers, one seat or one per table. Bad arguments raise
        :class:`~envs.core.checks.ArgumentError`.
        """
        seeds_arr = normalize_seeds(seeds, batch_size, name="seeds")
        b = seeds_arr.shape[0]
        if decks is not None:
            size = self.deck_size_for()
            ids = f"0..{size - 1}" if (self.deck_ids() == np.arange(size)).all() else "of this table's deck"
            allowed = (f"integer card ids {ids}, each once per deck, in an array of shape ({b}, {size}) or, one deck "
                       f"per deal, ({b}, K, {size})")
            decks = int_array(decks, "decks", allowed)
            if decks.ndim == 1 and b == 1:
                decks = decks[None, :]
            if decks.ndim == 2:
                decks = decks[:, None, :]
            if decks.ndim != 3 or decks.shape[0] != b or decks.shape[2] != size or decks.shape[1] < 1:
                raise ArgumentError(f"decks must be {allowed}, got shape {decks.shape}")
            if decks.shape[1] > 1 and not self.multi_deal:
                raise ArgumentError(f"decks: a {self.name} episode is one deal; give one deck per table, not "
                                    f"{decks.shape[1]}")
            if not (np.sort(decks, axis=2) == self.deck_ids()).all():
                raise ArgumentError(f"decks must be {allowed}; a deck does not hold each card id exactly once")
            decks = decks.astype(np.int16)
        if dealers is not None:
            dealers = seat_array(dealers, "dealers", b, self.num_players).copy()
        state = self._init(seeds_arr, decks, dealers)
        forced.ensure(state, self.forced_capacity)
        return state

    def redeal(self, state: S, tables: np.ndarray, seeds: int | np.ndarray | None = None) -> S:
        """Start a new episode at tables ``tables`` (indices or a boolean mask, as in :meth:`step`), in place, as
        :meth:`init` with ``seeds`` would deal them (``None``: fresh entropy); the other tables are untouched. A
        vector env re-deals its finished tables with it (auto-reset)."""
        idx = table_indices(tables, "tables", state.batch_size)
        if idx.size:
            self._redeal(state, idx, normalize_seeds(seeds, idx.size, name="seeds"))
        return state

    def _redeal(self, state: S, idx: np.ndarray, seeds: np.ndarray) -> None:
        """Re-deal tables ``idx`` with ``seeds`` in place (a compiled core overrides this with one kernel call)."""
        state.put(idx, self.init(seeds))

    def step(self, state: S, actions: np.ndarray | int, tables: np.ndarray | None = None) -> S:
        """Play one decision at every unfinished table (in place) and return the state.

        ``tables``: play only at these tables, given as an integer array of distinct table indices or as a boolean
        mask of shape ``(B,)`` (``tables=~state.done`` plays exactly the unfinished tables); the other tables keep
        waiting and their rewards are left as they were. ``actions``: one action id for every selected table, one
        per selected table (in table order for a mask), or one per table of the batch (only the selected tables'
        are read). ``state.rewards`` then holds each seat's reward for this step, forced moves included. Malformed
        ``tables`` or ``actions`` raise :class:`~envs.core.checks.ArgumentError`; an action outside the mask of an
        unfinished table raises :class:`IllegalActionError` (a subclass). Either way the state is unchanged.
        """
        b = state.batch_size
        idx = np.arange(b) if tables is None else table_indices(tables, "tables", b)
        if type(actions) is np.ndarray and actions.dtype == np.int64 and actions.shape == idx.shape:
            given = actions  # the common case (a policy's or sample_legal's output), without conversions
        else:
            given = self._selected_actions(actions, idx, b)
        if given.dtype.kind == "u":  # a uint64 above 2**63 must not wrap to a legal id: cap it at an illegal one
            acts = np.minimum(given, self.num_actions).astype(np.int64)
        else:
            acts = given.astype(np.int64, copy=False)
        bad = self._play(state, idx, acts)
        if bad >= 0:
            t, act = int(idx[bad]), int(acts[bad])
            allowed_now = ", ".join(f"{a} ({self._names()[a]})" for a in np.flatnonzero(state.legal_action_mask[t]))
            what = f"{act} ({self._names()[act]})" if 0 <= act < self.num_actions else str(int(given[bad]))
            raise IllegalActionError(
                f"{self.name}: action {what} is not legal for seat {int(state.current_player[t])}"
                + (f" at table {t}" if b > 1 else "")
                + f"; legal actions: {allowed_now}"
            )
        return state

    def kernel_args(self, state: S) -> tuple[Any, ...]:
        """What the compiled kernels take for ``state``: its table records (:mod:`envs.core.records`), the rules and
        the arrays outside the records (:meth:`_kernel_args`), built once and kept on the state until one of its
        fields is assigned."""
        cached = state.__dict__.get(_KERNEL_ARGS)
        if cached is not None and cached[0] is self:
            return cached[1]
        args = self._kernel_args(state)
        state.__dict__[_KERNEL_ARGS] = (self, args)
        return args

    def _kernel_args(self, state: S) -> tuple[Any, ...]:
        """The arguments of :meth:`kernel_args`, built afresh (each compiled core defines them)."""
        raise NotImplementedError(f"{type(self).__name__} has no compiled kernels")

    def _selected_actions(self, actions: Any, idx: np.ndarray, b: int) -> np.ndarray:
        """The actions of the selected tables ``idx`` from what :meth:`step` was given (checked)."""
        allowed = f"action ids 0..{self.num_actions - 1}: one int, {idx.size} (one per selected table) or {b}"
        given = int_array(actions, "actions", allowed)
        if given.ndim == 0:
            return np.full(idx.shape, given, dtype=given.dtype)
        if given.shape == (b,) and idx.size != b:
            return given[idx]
        if given.shape != idx.shape:
            raise ArgumentError(f"actions must be {allowed}, got shape {given.shape}")
        return given

    def observe(self, state: S, seats: np.ndarray | int, out: np.ndarray | None = None) -> np.ndarray:
        """``(B, observation_size) float32`` observations of seat ``seats[b]`` at each table (C12: nothing hidden
        from that seat enters it). ``seats``: one seat ``0..num_players-1`` for every table or one per table;
        anything else raises :class:`~envs.core.checks.ArgumentError`. ``out``: a preallocated C-contiguous
        ``(B, observation_size) float32`` array to write into (returned), so a loop allocates nothing."""
        b = state.batch_size
        seats_arr = seat_array(seats, "seats", b, self.num_players)
        shape = (b, self.observation_size)
        if out is None:
            out = np.empty(shape, np.float32)
        elif (not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != np.float32
              or not out.flags.c_contiguous or not out.flags.writeable):
            raise ArgumentError(f"out must be a writeable C-contiguous float32 array of shape {shape}, got "
                                + (f"{out.dtype} {out.shape}" if isinstance(out, np.ndarray) else show(out)))
        self._observe(state, seats_arr, out)
        return out

    def action_name(self, action: int) -> str:
        """Readable name of an action id ``0..num_actions-1``, e.g. ``"bet 3"``."""
        last = self.num_actions - 1
        return self._action_name(check_int(action, "action", 0, last, allowed=f"an action id 0..{last}"))

    def render_table(self, state: S, table: int, viewer: int | None, unicode: bool = True) -> str:
        """Text picture of table ``table`` (``0..B-1``) as seat ``viewer`` may see it (``None``: only public
        information); ``unicode=False`` writes suits as letters."""
        table = check_int(table, "table", 0, state.batch_size - 1)
        if viewer is not None:
            n = self.num_players
            viewer = check_int(viewer, "viewer", 0, n - 1, allowed=f"None (public view) or a seat 0..{n - 1}")
        if not isinstance(unicode, (bool, np.bool_)):
            raise ArgumentError(f"unicode must be True or False, got {show(unicode)}")
        return self._render_table(state, table, viewer, bool(unicode))

    @abstractmethod
    def _init(self, seeds: np.ndarray, decks: np.ndarray | None, dealers: np.ndarray | None) -> S:
        """Deal ``len(seeds)`` tables (inputs already checked; ``decks`` is ``(B, K, deck_size)`` int16)."""

    @abstractmethod
    def _play(self, state: S, idx: np.ndarray, actions: np.ndarray) -> int:
        """The step at tables ``idx`` (distinct) with ``actions`` (``int64``, one per table, not yet checked): the
        position in ``idx`` of the first unfinished table whose action is illegal, with the state unchanged; else
        -1, after every selected table's rewards and forced-move report were cleared and the unfinished ones played
        their action, forced moves included (:mod:`envs.core.play`)."""

    @abstractmethod
    def _observe(self, state: S, seats: np.ndarray, out: np.ndarray) -> None:
        """Write the observations of :meth:`observe` into ``out``; ``seats`` is a checked ``(B,) int64`` array."""

    @abstractmethod
    def _action_name(self, action: int) -> str:
        """The name of :meth:`action_name`; ``action`` is already a checked int in ``0..num_actions-1``."""

    @abstractmethod
    def _render_table(self, state: S, table: int, viewer: int | None, unicode: bool) -> str:
        """The picture of :meth:`render_table` (arguments already checked)."""

    def forced_moves(self, state: S, table: int) -> list[forced.ForcedMove]:
        """The forced moves (C8) the last step (or ``init``) made at ``table``, in order."""
        out = []
        for k in range(int(state.forced_count[table])):
            action, card = int(state.forced_action[table, k]), int(state.forced_card[table, k])
            name = self._names()[action] + (f" ({card_str(card, unicode=True)})" if card >= 0 else "")
            out.append(forced.ForcedMove(int(state.forced_seat[table, k]), action, name))
        return out

    def action_names(self) -> list[str]:
        """Names of every action id, in order."""
        return list(self._names())

    def _names(self) -> tuple[str, ...]:
        """The action names, built once per game object."""
        names = self.__dict__.get("_action_names")
        if names is None:
            names = self.__dict__["_action_names"] = tuple(self._action_name(a) for a in range(self.num_actions))
        return names

    def action_kinds(self) -> list[str]:
        """The kinds of this game's actions (:func:`action_kind` of every name), sorted."""
        return sorted({action_kind(n) for n in self._names()})

    def action_id(self, name: str) -> int:
        """Inverse of :meth:`action_name` (exact name match)."""
        names = self.action_names()
        if name not in names:
            raise ArgumentError(f"{self.name}: no action named {show(name)}")
        return names.index(name)


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a ``(B, A)`` mask (rows with no legal action give 0): one
    uniform number per row from ``rng``, the legal action it falls on picked in compiled code."""
    mask = np.asarray(mask)
    out = np.empty(mask.shape[0], np.int64)
    _pick_legal(mask.view(np.uint8) if mask.dtype == np.bool_ else mask.astype(np.uint8), rng.random(mask.shape[0]),
                out)
    return out


@numba.njit(cache=True)
def _pick_legal(mask, uniform, out):
    for t in range(mask.shape[0]):
        count = 0
        for a in range(mask.shape[1]):
            count += mask[t, a] != 0
        out[t] = 0
        if count:
            k = min(int(uniform[t] * count), count - 1)
            for a in range(mask.shape[1]):
                if mask[t, a] != 0:
                    if k == 0:
                        out[t] = a
                        break
                    k -= 1
