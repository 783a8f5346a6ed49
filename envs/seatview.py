"""Seat views: what one seat of one table knows of the deal being played, for agents that search.

An agent sees ``(obs, mask)`` at its own turns; a search player needs what its seat knows *as a whole* — its cards
and every public event of the deal so far — to draw deals consistent with it (``envs/<game>/sampler.py``). A
:class:`SeatView` is that knowledge, built from two things only, both of which the seat has seen:

- the seat's own **observation after every step** of the deal (its observation holds nothing hidden from it, C12),
  starting with its observation when the deal began;
- the **actions** taken at every step, by whom: public actions as they were taken, and ``-1`` for a choice of another
  seat that the others do not see (the game's secret actions, e.g. Tripoli's poker selection, T12; the public view's
  ``secret_actions``). The seat's own actions are all kept;
- the **forced moves** each step made after its action (C8: the engine plays them, and reports them to every face in
  order, seat and action; secret ones of another seat as ``-1``).

It never holds the game state: the places that call agents keep the views (:class:`SeatViews`) and feed them the
observation of the tracked seat after each step — the same observation the seat's agent would get. A new deal of a
multi-deal episode starts a new view history (the deal's number is in the observation).

An agent asks for views by setting ``wants_seat_view = True``; it is then called as ``act(obs, mask, rng,
views=[...])`` with one view per row (:func:`envs.core.agent.call_agent`). Observations are stored as sparse
changes from one step to the next, so a long deal costs little memory; :meth:`SeatView.observations` rebuilds them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from envs.core.game import BatchedGame, BatchState


def secret_actions(game: BatchedGame) -> np.ndarray:
    """``(num_actions,) bool``: the actions other seats do not see (the public view's ``secret_actions``)."""
    from envs.gamelog import public_view

    view = public_view(game.name)
    return np.array([view.is_secret(game.action_name(a)) for a in range(game.num_actions)], bool)


def deal_index(game: BatchedGame) -> int | None:
    """Observation index of the deal number (``None``: one deal per episode)."""
    from envs.gamelog import public_view

    return public_view(game.name).deal_index


@dataclasses.dataclass(eq=False)
class SeatView:
    """What seat ``seat`` has seen of the current deal (module docstring): its first observation of the deal, then
    for every step the acting seat, the action (``-1``: another seat's secret choice) and the seat's observation
    after it."""

    game: str
    """Game name."""
    num_players: int
    seat: int
    """The seat whose view this is."""
    first: np.ndarray
    """(observation_size,) float32 — the seat's observation when the deal began (after the dealing)."""
    actors: list[int] = dataclasses.field(default_factory=list)
    """The seat that acted at each step of the deal."""
    actions: list[int] = dataclasses.field(default_factory=list)
    """The action of each step (``-1``: a secret choice of another seat)."""
    forced: list[tuple[tuple[int, int], ...]] = dataclasses.field(default_factory=list)
    """The forced moves of each step after its action (C8), in order: ``(seat, action)`` (``-1``: secret)."""
    deal: int = 0
    """Number of the deal (0-based), from the observation."""
    cache: dict[str, Any] = dataclasses.field(default_factory=dict)
    """Scratch space for whoever reads the view (a sampler's constraints, a search's kept samples): derived from
    the view only. Cleared when a new deal starts."""
    _changes: list[tuple[np.ndarray, np.ndarray]] = dataclasses.field(default_factory=list, repr=False)
    _last: np.ndarray | None = dataclasses.field(default=None, repr=False)
    _dense: np.ndarray | None = dataclasses.field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.first = np.array(self.first, np.float32)
        self._last = self.first.copy()

    def __len__(self) -> int:
        """Steps recorded in this deal."""
        return len(self.actions)

    @property
    def last(self) -> np.ndarray:
        """The seat's current observation (read-only view)."""
        out = self._last.view()
        out.flags.writeable = False
        return out

    def add(self, actor: int, action: int, obs: np.ndarray, forced: tuple[tuple[int, int], ...] = ()) -> None:
        """One step of the deal: ``actor`` took ``action`` (already ``-1`` if it is secret to this seat), the engine
        then made the ``forced`` moves (seat, action) and the seat now observes ``obs``."""
        obs = np.asarray(obs, np.float32)
        idx = np.flatnonzero(obs != self._last).astype(np.int32)
        self._changes.append((idx, obs[idx].copy()))
        self.actors.append(int(actor))
        self.actions.append(int(action))
        self.forced.append(tuple((int(p), int(a)) for p, a in forced))
        self._last = obs.copy()
        self._dense = None

    def observations(self) -> np.ndarray:
        """``(len(self) + 1, observation_size) float32``: the seat's observation at the deal's start and after each
        step (read-only; rebuilt from the stored changes once per new step)."""
        if self._dense is None or self._dense.shape[0] != len(self) + 1:
            dense = np.empty((len(self) + 1, self.first.shape[0]), np.float32)
            dense[0] = self.first
            for k, (idx, val) in enumerate(self._changes, 1):
                dense[k] = dense[k - 1]
                dense[k, idx] = val
            dense.flags.writeable = False
            self._dense = dense
        return self._dense


class SeatViews:
    """The :class:`SeatView` of chosen seats at a batch of tables, kept by whoever plays the tables (an evaluation,
    a vector env, a terminal game). Tables are named by *keys* (any ints: the caller's table numbers), so the caller
    may reorder or shrink its state; each call says where in the state each key's table is (``pos``).

    :meth:`begin` starts the views of a freshly dealt table; :meth:`record` is called after every step at the
    tables stepped, with the seat that acted and its action; :meth:`views` hands them to the agent. Only the tracked
    seats' observations are computed (one batched ``observe`` per tracked seat of a table)."""

    def __init__(self, game: BatchedGame) -> None:
        self.game = game
        self.secret = secret_actions(game)
        self._deal_at = deal_index(game)
        self._seats: dict[int, list[int]] = {}
        self._views: dict[tuple[int, int], SeatView] = {}

    def _observe(self, state: BatchState, pos: np.ndarray, keys: np.ndarray
                 ) -> list[tuple[int, int, np.ndarray]]:
        """(key, seat, observation) of every tracked seat of the tables at ``pos``."""
        out = []
        layers: dict[int, list[tuple[int, int, int]]] = {}
        for p, k in zip(pos.tolist(), keys.tolist(), strict=True):
            for j, s in enumerate(self._seats.get(k, ())):
                layers.setdefault(j, []).append((p, k, s))
        for items in layers.values():
            rows = np.array([p for p, _, _ in items], np.int64)
            seats = np.zeros(state.batch_size, np.int64)
            seats[rows] = [s for _, _, s in items]
            obs = self.game.observe(state, seats) if rows.size * 2 >= state.batch_size else \
                self.game.observe(state.take(rows), seats[rows])
            picked = obs[rows] if obs.shape[0] == state.batch_size else obs
            out += [(k, s, picked[i]) for i, (_, k, s) in enumerate(items)]
        return out

    def begin(self, state: BatchState, pos: np.ndarray, keys: np.ndarray, seats: list[list[int]]) -> None:
        """Start the views of the tables at ``pos`` (named ``keys``), just dealt: ``seats[i]`` are the seats tracked
        at table ``keys[i]`` (an empty list: none)."""
        pos, keys = np.asarray(pos, np.int64), np.asarray(keys, np.int64)
        for k, ss in zip(keys.tolist(), seats, strict=True):
            for s in self._seats.pop(k, ()):
                self._views.pop((k, s), None)
            if ss:
                self._seats[k] = sorted(set(int(s) for s in ss))
        for k, s, obs in self._observe(state, pos, keys):
            self._views[(k, s)] = self._new(s, obs)

    def _new(self, seat: int, obs: np.ndarray) -> SeatView:
        deal = 0 if self._deal_at is None else int(round(float(obs[self._deal_at])))
        return SeatView(self.game.name, self.game.num_players, seat, obs, deal=deal)

    def record(self, state: BatchState, pos: np.ndarray, keys: np.ndarray, actors: np.ndarray,
               actions: np.ndarray) -> None:
        """After a step at the tables at ``pos`` (named ``keys``), where seat ``actors[i]`` took ``actions[i]``."""
        pos, keys = np.asarray(pos, np.int64), np.asarray(keys, np.int64)
        if not self._seats:
            return
        acted = dict(zip(keys.tolist(), zip(np.asarray(actors).tolist(), np.asarray(actions).tolist(), strict=True),
                         strict=True))
        pos_of = dict(zip(keys.tolist(), pos.tolist(), strict=True))
        for k, s, obs in self._observe(state, pos, keys):
            actor, action = acted[k]
            view = self._views[(k, s)]
            deal = view.deal if self._deal_at is None else int(round(float(obs[self._deal_at])))
            if deal != view.deal:  # the step ended the deal and dealt the next: a new history
                self._views[(k, s)] = self._new(s, obs)
                continue
            shown = -1 if actor != s and self.secret[action] else action
            view.add(actor, shown, obs, self._forced(state, pos_of[k], s))

    def _forced(self, state: BatchState, p: int, seat: int) -> tuple[tuple[int, int], ...]:
        """The forced moves the last step made at the table at ``p`` (C8, public), as ``seat`` sees them."""
        moves = []
        for i in range(int(state.forced_count[p])):
            who, act = int(state.forced_seat[p, i]), int(state.forced_action[p, i])
            moves.append((who, -1 if who != seat and self.secret[act] else act))
        return tuple(moves)

    def views(self, keys: np.ndarray, seats: np.ndarray) -> list[SeatView]:
        """The view of seat ``seats[i]`` at table ``keys[i]``, for each ``i`` (each must be tracked)."""
        return [self._views[(int(k), int(s))] for k, s in zip(np.asarray(keys).tolist(), np.asarray(seats).tolist(),
                                                               strict=True)]

    def drop(self, keys: np.ndarray) -> None:
        """Forget the tables ``keys`` (finished)."""
        for k in np.asarray(keys).tolist():
            for s in self._seats.pop(int(k), ()):
                self._views.pop((int(k), s), None)
