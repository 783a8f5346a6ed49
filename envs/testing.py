"""Conformance checks for any cardgym game (in the spirit of Pgx's ``api_test`` and OpenSpiel's random-simulation
tests): a library, so that a new game, a rule variant or a user's own game gets the same checks as the suite's.

Each ``check_*`` function plays random legal games from a seed and raises :class:`AssertionError` with the table
and step where a promise of common.md fails:

- :func:`check_same_seed_any_batch` — C7: table ``i`` of a batch seeded ``s`` plays exactly like one table seeded
  ``s + i`` (state, masks, rewards, observations), and :meth:`~envs.core.game.BatchedGame.redeal` deals exactly
  what ``init`` deals;
- :func:`check_illegal_refused` — C9: an illegal or out-of-range action raises, naming the legal ones, and changes
  nothing;
- :func:`check_conservation` — C10/C11: at every step the seats' rewards and the change of what lies on the table
  sum to zero, and a finished table's rewards are zero;
- :func:`check_hidden_information` — C12: states that differ only in cards hidden from a seat give that seat the
  same observation;
- :func:`check_observe_out` — ``observe(out=)`` writes what ``observe`` returns, for every seat;
- :func:`check_pettingzoo` — PettingZoo's ``api_test`` and ``seed_test`` on the AEC face;
- :func:`check_parity` — the core against a plain reference implementation, table by table, step by step;
- :func:`check_game` runs the core checks together;
- :func:`check_agent_conformance` — an agent's side of the contract (docs/agents.md): legal integer actions, one per
  row, from the observation and the mask alone, reproducible from ``rng``.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from envs.core.game import BatchedGame, BatchState, IllegalActionError, sample_legal


def seeded_actions(state: BatchState, step: int) -> np.ndarray:
    """A random legal action per table that depends only on the table's seed and the step number, so that a table
    gets the same actions whatever batch it is in (C7)."""
    mask = state.legal_action_mask
    actions = np.zeros(state.batch_size, np.int64)
    for t in range(state.batch_size):
        legal = np.flatnonzero(mask[t])
        if legal.size:
            rng = np.random.default_rng([int(state.seeds[t]), step])
            actions[t] = legal[rng.integers(legal.size)]
    return actions


def assert_same_tables(a: BatchState, ta: int, b: BatchState, tb: int, where: str) -> None:
    """Every state field of table ``ta`` of ``a`` equals that of table ``tb`` of ``b``."""
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name)[ta], getattr(b, f.name)[tb]
        if f.name.startswith("forced_") and np.ndim(x):  # report arrays may differ in width: compare what is used
            k = int(a.forced_count[ta])
            x, y = x[:k], y[:k]
        assert np.array_equal(x, y), f"{where}: field {f.name} differs ({x!r} vs {y!r})"


def _acting_seats(state: BatchState) -> np.ndarray:
    return np.maximum(state.current_player, 0)


def check_same_seed_any_batch(game: BatchedGame, seed: int, batch_size: int = 256,
                              tables: Sequence[int] = (0, 1, 127, 255), max_steps: int = 2000) -> None:
    """C7: tables ``tables`` of a batch seeded ``seed`` play exactly like single tables seeded ``seed + t``, step by
    step, with the same actions; and re-dealing those tables of a played batch deals them as ``init`` did."""
    big = game.init(seed, batch_size=batch_size)
    singles = [game.init(seed + t, batch_size=1) for t in tables]
    step = 0
    while not big.done[list(tables)].all() and step < max_steps:
        seats = _acting_seats(big)
        obs = game.observe(big, seats)
        for t, single in zip(tables, singles, strict=True):
            where = f"{game!r} seed {seed}: table {t} at step {step}"
            assert_same_tables(single, 0, big, t, where)
            assert np.array_equal(game.observe(single, int(seats[t]))[0], obs[t]), f"{where}: observation differs"
        game.step(big, seeded_actions(big, step))
        for single in singles:
            game.step(single, seeded_actions(single, step))
        step += 1
    fresh = game.init(seed, batch_size=batch_size)
    game.redeal(big, np.asarray(tables), np.asarray([seed + t for t in tables], dtype=np.uint64))
    for t in range(batch_size):
        if t in tables:
            assert_same_tables(fresh, t, big, t, f"{game!r}: table {t} re-dealt by redeal")


def check_illegal_refused(game: BatchedGame, seed: int, batch_size: int = 16, steps: int = 60) -> None:
    """C9: at every step of random games, an action outside the mask of one unfinished table (and an id outside the
    action space) raises :class:`~envs.core.game.IllegalActionError` naming the legal actions, and no field of the
    state changes."""
    state = game.init(seed, batch_size=batch_size)
    rng = np.random.default_rng(seed)
    for step in range(steps):
        live = np.flatnonzero(~state.done)
        if not live.size:
            break
        t = int(live[rng.integers(live.size)])
        illegal = np.flatnonzero(~state.legal_action_mask[t])
        actions = sample_legal(state.legal_action_mask, rng)
        for bad in ([int(illegal[rng.integers(illegal.size)])] if illegal.size else []) + [game.num_actions]:
            before = state.copy()
            actions_bad = actions.copy()
            actions_bad[t] = bad
            try:
                game.step(state, actions_bad)
            except IllegalActionError as err:
                assert "legal actions" in str(err), f"{game!r}: the error names no legal action: {err}"
            else:
                raise AssertionError(f"{game!r}: step {step}, table {t}: illegal action {bad} was accepted")
            for b in range(batch_size):
                assert_same_tables(before, b, state, b, f"{game!r}: refused action {bad} changed table {b}")
        game.step(state, actions)


def check_conservation(game: BatchedGame, seed: int, table_total: Callable[[BatchState], np.ndarray] | None = None,
                       batch_size: int = 32, max_steps: int = 5000) -> None:
    """C10/C11: at every step, ``rewards.sum(seats) + change of table_total(state) == 0`` at every table (``None``:
    rewards alone sum to zero, as in a game without chips on the table), and finished tables get zero rewards."""
    state = game.init(seed, batch_size=batch_size)
    rng = np.random.default_rng(seed)
    total = table_total(state) if table_total else np.zeros(batch_size)
    for step in range(max_steps):
        if state.done.all():
            return
        was_done = state.done.copy()
        game.step(state, sample_legal(state.legal_action_mask, rng))
        now = table_total(state) if table_total else np.zeros(batch_size)
        balance = state.rewards.sum(axis=1) + (now - total)
        bad = np.flatnonzero(np.abs(balance) > 1e-9)
        assert not bad.size, (f"{game!r} seed {seed}, step {step}, table {bad[0]}: chips not conserved "
                              f"({balance[bad[0]]})")
        assert not state.rewards[was_done].any(), f"{game!r}: a finished table got a reward"
        total = now
    raise AssertionError(f"{game!r} seed {seed}: random games did not end in {max_steps} steps")


def check_hidden_information(game: BatchedGame, seed: int,
                             hide: Callable[[BatchState, int, np.random.Generator], BatchState | None],
                             games: int = 20, max_steps: int = 80) -> None:
    """C12: after random play, ``hide(state, viewer, rng)`` returns a copy of the one-table ``state`` whose cards
    hidden from ``viewer`` were moved among their hidden places (or ``None`` when nothing can move); the viewer's
    observation of both must be equal."""
    rng = np.random.default_rng(seed)
    moved = 0
    for g in range(games):
        state = game.init(seed + g, batch_size=1)
        for _ in range(int(rng.integers(0, max_steps))):
            if state.done[0]:
                break
            game.step(state, sample_legal(state.legal_action_mask, rng))
        for viewer in range(game.num_players):
            other = hide(state, viewer, rng)
            if other is None:
                continue
            moved += 1
            a, b = game.observe(state, viewer), game.observe(other, viewer)
            assert np.array_equal(a, b), (f"{game!r} seed {seed + g}: seat {viewer} sees cards hidden from it "
                                          f"(observation indices {np.flatnonzero(a != b)[:10].tolist()})")
    assert moved, f"{game!r}: no hidden card could be moved in {games} games"


def check_observe_out(game: BatchedGame, seed: int, batch_size: int = 64, steps: int = 30) -> None:
    """``observe(state, seats, out=buffer)`` fills and returns ``buffer`` with what ``observe`` returns, for every
    seat, whatever the buffer held before."""
    state = game.init(seed, batch_size=batch_size)
    rng = np.random.default_rng(seed)
    buffer = np.full((batch_size, game.observation_size), np.nan, np.float32)
    for _ in range(steps):
        for seat in range(game.num_players):
            expected = game.observe(state, seat)
            got = game.observe(state, seat, out=buffer)
            assert got is buffer and np.array_equal(expected, buffer), f"{game!r}: observe(out=) differs, seat {seat}"
            buffer[:] = rng.random(buffer.shape, dtype=np.float32)
        if state.done.all():
            break
        game.step(state, sample_legal(state.legal_action_mask, rng))


def check_game(game: BatchedGame, seed: int = 0, table_total: Callable[[BatchState], np.ndarray] | None = None,
               hide: Callable[[BatchState, int, np.random.Generator], BatchState | None] | None = None) -> None:
    """The core checks (C7, C9, C10/C11, ``observe(out=)`` and, given ``hide``, C12) for one game configuration."""
    check_same_seed_any_batch(game, seed)
    check_illegal_refused(game, seed)
    check_conservation(game, seed, table_total)
    check_observe_out(game, seed)
    if hide is not None:
        check_hidden_information(game, seed, hide)


def check_pettingzoo(env_fn: Callable[[], Any], num_cycles: int = 200) -> None:
    """PettingZoo's ``api_test`` and ``seed_test`` on the AEC face built by ``env_fn``."""
    from pettingzoo.test import api_test, seed_test

    api_test(env_fn(), num_cycles=num_cycles)
    seed_test(env_fn, num_cycles=num_cycles)


class Reference(Protocol):
    """A plain, one-table implementation of the rules played beside the core by :func:`check_parity`."""

    def step(self, action: int) -> Any:
        """Play the action of the seat to act."""


def check_parity(game: BatchedGame, state: BatchState, refs: Sequence[Reference],
                 compare: Callable[[BatchState, int, Reference], None], rng: np.random.Generator,
                 max_steps: int = 100_000) -> int:
    """Play random legal actions on the core ``state`` (already dealt) and on ``refs`` (one reference per table,
    dealt the same cards) side by side; ``compare(state, t, ref)`` asserts that table ``t`` agrees with its
    reference, before the first step and after every step. A finished table is compared once more and no longer
    stepped. Returns the number of steps played."""
    for t, ref in enumerate(refs):
        compare(state, t, ref)
    steps = 0
    while not state.done.all():
        assert steps < max_steps, f"{game!r}: parity games did not end in {max_steps} steps"
        live = np.flatnonzero(~state.done)
        actions = sample_legal(state.legal_action_mask, rng)
        game.step(state, actions)
        for t in live:
            refs[t].step(int(actions[t]))
            compare(state, int(t), refs[t])
        steps += 1
    return steps


class _Watched(np.random.Generator):
    """A generator that notes whether anything of it was used (a draw, a method, an attribute)."""

    def __init__(self, seed: Any) -> None:
        super().__init__(np.random.PCG64(seed))
        self.__dict__["used"] = False

    def __getattribute__(self, name: str) -> Any:
        if not name.startswith("__") and name != "used":
            object.__getattribute__(self, "__dict__")["used"] = True
        return super().__getattribute__(name)


@dataclasses.dataclass
class AgentReport:
    """What :func:`check_agent_conformance` checked."""

    agent: str
    game: str
    decisions: int
    """Rows the agent answered (every decision of every table, forced ones included)."""
    choices: int
    """Of those, decisions with more than one legal action."""
    episodes: int
    """Episodes played to the end."""
    calls: int
    """Calls of ``act`` (one per step, on the unfinished tables)."""
    reordered: int
    """Calls that drew nothing from ``rng``, whose rows were also given in another order."""

    def __str__(self) -> str:
        return (f"{self.agent} conforms on {self.game}: {self.decisions:,} decisions ({self.choices:,} with a choice) "
                f"in {self.episodes} episodes, every action legal, obs and mask left as they were, the same actions "
                f"from the same rng in all {self.calls} calls, the same actions for rows in another order in the "
                f"{self.reordered} calls that drew nothing from rng")


def check_agent_conformance(game: BatchedGame, agent: Any, seed: int = 0, tables: int = 32,
                            max_steps: int = 5000) -> AgentReport:
    """An agent's side of the contract (docs/agents.md), on ``tables`` games from ``seed`` where it plays every seat.
    At every step ``act(obs, mask, rng)`` must return one integer action id per row, each legal under the mask; leave
    ``obs`` and ``mask`` as they were; and give the same actions when called again with a generator in the same state
    (its randomness comes from ``rng`` alone, and it keeps no state between calls that changes its answers: the rows
    of two calls are not the same tables). A call that draws nothing from ``rng`` answers from the rows alone, so
    the same rows in another order must get the same actions, reordered (each row is answered from itself: nothing
    is read from another row or kept by row position). Every episode must end within ``max_steps`` steps. An agent
    that wants seat views (``wants_seat_view = True``) gets them, each check call a copy as the real call found it
    (a view's cache is the agent's own scratch space). Raises :class:`AssertionError` naming the step, the table
    and what failed; returns an :class:`AgentReport`."""
    from envs.core.agent import call_agent, check_agent, wants_seat_view
    from envs.seatview import SeatViews

    check_agent(agent, game, "agent")
    name = str(getattr(agent, "name", type(agent).__name__))
    state = game.init(seed, batch_size=tables)
    views = None
    if wants_seat_view(agent):
        views = SeatViews(game)
        everyone = np.arange(tables)
        views.begin(state, everyone, everyone, [list(range(game.num_players))] * tables)
    decisions = choices = calls = reordered = 0

    def call(obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator, seat_views: list | None) -> np.ndarray:
        return np.asarray(call_agent(agent, obs, mask, rng, copy.deepcopy(seat_views)))

    for step in range(max_steps):
        live = np.flatnonzero(~state.done)
        if not live.size:
            break
        where = f"{name} on {game!r}, seed {seed}, step {step}"
        seats = state.current_player[live]
        obs = game.observe(state.take(live), seats)
        mask = state.legal_action_mask[live].copy()
        obs_given, mask_given = obs.copy(), mask.copy()
        seat_views = None if views is None else views.views(live, seats)
        kept = copy.deepcopy(seat_views)
        rng = _Watched([seed, step])
        acts = np.asarray(call_agent(agent, obs_given, mask_given, rng, seat_views))
        calls += 1
        assert np.array_equal(obs_given, obs) and np.array_equal(mask_given, mask), \
            f"{where}: act wrote into its obs or mask arguments"
        assert acts.shape == (live.size,) and acts.dtype.kind in "iu", \
            f"{where}: act must return one integer action id per row ({live.size},), got {acts.dtype} {acts.shape}"
        inside = (acts >= 0) & (acts < game.num_actions)
        legal = inside.copy()
        legal[inside] = mask[np.flatnonzero(inside), acts[inside]]
        if not legal.all():
            b = int(np.flatnonzero(~legal)[0])
            allowed = ", ".join(f"{a} ({game.action_name(int(a))})" for a in np.flatnonzero(mask[b]))
            raise AssertionError(f"{where}, table {int(live[b])}: illegal action {int(acts[b])}; legal: {allowed}")
        again = call(obs.copy(), mask.copy(), np.random.default_rng([seed, step]), kept)
        assert np.array_equal(again, acts), (f"{where}: called again with the same rng state it gave other actions "
                                             "(draw randomness from rng only; keep nothing between calls)")
        if not rng.used:
            order = np.random.default_rng([seed, step, 1]).permutation(live.size)
            moved = call(obs[order], mask[order], np.random.default_rng([seed, step]),
                         None if kept is None else [kept[i] for i in order])
            bad = np.flatnonzero(moved != acts[order])
            assert not bad.size, (f"{where}, table {int(live[order][bad[0]])}: the action of a row changed with the "
                                  "order of the rows (answer each row from that row alone)")
            reordered += 1
        decisions += live.size
        choices += int((mask.sum(axis=1) > 1).sum())
        game.step(state, acts.astype(np.int64), tables=live)
        if views is not None:
            going = ~state.done[live]
            views.record(state, live[going], live[going], seats[going], acts[going].astype(np.int64))
            views.drop(live[~going])
    else:
        raise AssertionError(f"{name} on {game!r}, seed {seed}: episodes still running after {max_steps} steps")
    return AgentReport(agent=name, game=repr(game), decisions=decisions, choices=choices, episodes=tables,
                       calls=calls, reordered=reordered)
