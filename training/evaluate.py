"""Duplicate-deal tournaments on the batched core: ``evaluate(game, agents, deals, seed) -> EvalResult``.

One agent per seat (``len(agents) == game.num_players``; the same spec may appear several times). Each *deal
group* is one table seed — so one shuffled deck and one dealer, and for multi-deal episodes every later deck too
(C7) — played ``n`` times with the agents rotated round the seats: in rotation ``r`` agent ``i`` sits at seat
``(i + r) % n``. Every agent thus plays every seat of every deal group and the luck of the cards cancels out within
a group. The group seeds are hashes of ``(seed, group)``, so the dealers are spread over the seats too. The agents'
random moves are common random numbers too: each table draws from its own stream (:mod:`training.table_random`),
so two tournaments that differ at one table draw the same random moves at all the others.

Results are per agent and per episode (one deal by default): the mean return (chips in Tripoli, stakes in Flip Flop,
the ±1 reward of Le triolet) and the *win share* (1 to the single player with the highest return, ``1/k`` each to
``k`` tied for it, 0 to everybody when all returns are equal, e.g. a truncated Le triolet game; ``1/n`` on average
for equal players). The 95% confidence intervals are ``1.96 · sd / sqrt(G)`` over the ``G`` deal groups (the ``n``
rotations of one seed are correlated, so the group mean is the independent sample).

Many tables run at once (``batch_size`` tables per chunk, a multiple of ``n``); at each step every agent acts in one
batched call on the tables where its seat is to act; finished tables are dropped from the batch as it empties.
The result is a pure function of ``(game, agents, deals, seed, batch_size)``.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any, Protocol

import numpy as np

from agents.random_agent import RandomAgent
from envs.core.agent import Agent, agent_label, call_agent, check_agent, wants_seat_view
from envs.core.checks import U64_MAX, ArgumentError, check_int, int_array, show
from envs.core.game import BatchedGame, BatchState, IllegalActionError
from envs.core.rng import hash_u64
from envs.seatview import SeatViews
from training.executors import Executor, InProcess, TableSpec
from training.table_random import TableRandom

Z95 = 1.959963984540054
"""Two-sided 95% normal quantile."""

UNITS = {"tripoli": "chips", "flipflop": "stakes", "triolet": "reward"}
"""What a game's returns count (C11)."""


@dataclasses.dataclass
class EvalResult:
    """Outcome of one duplicate tournament; ``group_returns[g, i]`` is agent ``i``'s mean return over the ``n``
    rotations of deal group ``g`` (``group_wins`` likewise for the win share); ``labels[i]`` is agent ``i``'s
    ``name@vN`` (:func:`envs.core.agent.agent_label`: the behaviour version its results belong to)."""

    game: str
    num_players: int
    options: dict[str, Any]
    agents: list[str]
    seed: int
    batch_size: int
    group_returns: np.ndarray
    group_wins: np.ndarray
    decisions: int
    seconds: float
    labels: list[str] = dataclasses.field(default_factory=list)

    @property
    def unit(self) -> str:
        return UNITS.get(self.game, "reward")

    @property
    def groups(self) -> int:
        """Independent deal groups (seeds)."""
        return int(self.group_returns.shape[0])

    @property
    def episodes(self) -> int:
        """Episodes played (``groups * num_players``)."""
        return self.groups * self.num_players

    @staticmethod
    def _interval(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mean = samples.mean(axis=0)
        if samples.shape[0] < 2:
            return mean, np.full(mean.shape, math.inf)
        return mean, Z95 * samples.std(axis=0, ddof=1) / math.sqrt(samples.shape[0])

    @property
    def mean(self) -> np.ndarray:
        """(n,) mean return per episode of each agent."""
        return self.group_returns.mean(axis=0)

    @property
    def ci95(self) -> np.ndarray:
        """(n,) half-width of the 95% interval of :attr:`mean`."""
        return self._interval(self.group_returns)[1]

    @property
    def win_rate(self) -> np.ndarray:
        """(n,) mean win share of each agent."""
        return self.group_wins.mean(axis=0)

    @property
    def win_ci95(self) -> np.ndarray:
        """(n,) half-width of the 95% interval of :attr:`win_rate`."""
        return self._interval(self.group_wins)[1]

    def difference(self, i: int, j: int) -> tuple[float, float]:
        """Mean return of agent ``i`` minus agent ``j`` and the 95% half-width (paired over deal groups)."""
        mean, half = self._interval(self.group_returns[:, i] - self.group_returns[:, j])
        return float(mean), float(half)

    def to_dict(self) -> dict[str, Any]:
        """Everything but the per-group samples, JSON-ready."""
        return {
            "game": self.game,
            "num_players": self.num_players,
            "options": self.options,
            "seed": self.seed,
            "batch_size": self.batch_size,
            "deal_groups": self.groups,
            "episodes": self.episodes,
            "unit": self.unit,
            "decisions": self.decisions,
            "seconds": round(self.seconds, 3),
            "agents": [
                {
                    "agent": name,
                    "label": label,
                    "mean": float(m),
                    "ci95": float(c),
                    "win_rate": float(w),
                    "win_ci95": float(wc),
                }
                for name, label, m, c, w, wc in zip(
                    self.agents, self.labels or self.agents, self.mean, self.ci95, self.win_rate, self.win_ci95,
                    strict=True,
                )
            ],
        }

    def table(self) -> str:
        """The printed results table."""
        opts = ", ".join(f"{k}={v}" for k, v in self.options.items()) or "default rules"
        lines = [
            f"{self.game}, {self.num_players} players ({opts}): {self.episodes:,} episodes in {self.groups:,} "
            f"duplicate deal groups, seed {self.seed}, {self.seconds:.1f} s",
            f"{'seat':>4}  {'agent':<24} {'mean ' + self.unit + ' / episode':>26}  {'win share':>18}",
        ]
        for i, name in enumerate(self.agents):
            lines.append(
                f"{i:>4}  {name:<24} {self.mean[i]:>+15.3f} ± {self.ci95[i]:<8.3f}  "
                f"{self.win_rate[i]:>9.3f} ± {self.win_ci95[i]:.3f}"
            )
        lines.append(f"(95% intervals over deal groups; equal players would have win share {1 / self.num_players:.3f})")
        return "\n".join(lines)


def advantage(result: EvalResult, baseline: EvalResult, agent: int = 0) -> tuple[float, float]:
    """Agent ``agent``'s mean return in ``result`` minus the mean return of the agent that took its place in
    ``baseline`` (the same tournament with one agent swapped: same game, seed and deals, so it sat in the same seats
    of the same duplicate deals), and the 95% half-width of this paired difference over the deal groups."""
    same = ("game", "num_players", "options", "seed")
    if any(getattr(result, k) != getattr(baseline, k) for k in same) or result.groups != baseline.groups:
        raise ValueError("advantage pairs two tournaments of the same game, rules, seed and deals")
    mean, half = EvalResult._interval(result.group_returns[:, agent] - baseline.group_returns[:, agent])
    return float(mean), float(half)


class StepWatch(Protocol):
    """Sees the tables :func:`play_tables` plays: ``rows[i]`` is the table (its index in ``seeds``) of row ``i`` of
    ``state`` (finished tables leave the state as it empties, so the rows change; the tables do not)."""

    def begin(self, state: BatchState, rows: np.ndarray) -> None:
        """After ``init``: every table, as dealt (``state.rewards`` holds what dealing moved, e.g. antes)."""

    def before(self, state: BatchState, rows: np.ndarray, actions: np.ndarray) -> None:
        """Just before a step: the state and the action each unfinished row is about to play (a finished table still
        in the batch, ``state.done``, holds action 0, which the step ignores: read only unfinished rows' actions)."""

    def after(self, state: BatchState, rows: np.ndarray) -> None:
        """Just after that step (the same rows; ``state.rewards`` holds the step's rewards)."""


def group_seeds(seed: int, groups: int) -> np.ndarray:
    """The table seed of each deal group: a hash of ``(seed, group)``."""
    return hash_u64(np.full(groups, seed, dtype=np.uint64), np.arange(groups, dtype=np.uint64))


def _uses_observation(agent: Agent) -> bool:
    """Whether ``agent`` reads its observation (the random agent does not: evaluation then skips building it)."""
    return getattr(agent, "uses_observation", not isinstance(agent, RandomAgent))


def _agent_label(agent: Agent, i: int) -> str:
    return str(getattr(agent, "name", type(agent).__name__)) or f"agent {i}"


def _check_agents(game: BatchedGame, agents: list[Agent]) -> None:
    """Refuse anything but a game core and a list of agents built for it, on one line."""
    if not isinstance(game, BatchedGame):
        raise ArgumentError(f"game must be a game core (envs.registry.make_game), got {show(game)}")
    if isinstance(agents, (str, bytes)) or not isinstance(agents, (list, tuple)):
        raise ArgumentError(f"agents must be a list of agents (agents.registry.make_agent), got {show(agents)}")
    for i, agent in enumerate(agents):
        check_agent(agent, game, f"agents[{i}]")


def play_tables(
    game: BatchedGame,
    agents: list[Agent],
    seat_agent: np.ndarray,
    seeds: np.ndarray,
    rng: np.random.Generator,
    max_steps: int = 200_000,
    watch: StepWatch | None = None,
) -> tuple[np.ndarray, int]:
    """Play one episode per table to the end; ``seat_agent[t, s]`` is the index of the agent at seat ``s`` of table
    ``t``. Returns the ``(B, n)`` episode return of each seat (the rewards left by ``init`` included) and the number
    of decisions the agents took. Raises ``RuntimeError`` if some episode is not over after ``max_steps`` steps,
    :class:`~envs.core.checks.ArgumentError` for bad arguments. ``watch`` (a :class:`StepWatch`) sees the state
    after ``init`` and around every step (what :mod:`training.game_stats` measures games with)."""
    _check_agents(game, agents)
    max_steps = check_int(max_steps, "max_steps", low=1)
    if not isinstance(rng, np.random.Generator):
        raise ArgumentError(f"rng must be a numpy Generator (np.random.default_rng), got {show(rng)}")
    state = game.init(seeds)
    allowed = f"agent indices 0..{len(agents) - 1} in an array of shape ({state.batch_size}, {game.num_players})"
    seat_agent = int_array(seat_agent, "seat_agent", allowed)
    if seat_agent.shape != (state.batch_size, game.num_players) or seat_agent.min() < 0 \
            or seat_agent.max() >= len(agents):
        raise ArgumentError(f"seat_agent must be {allowed}, got {show(seat_agent)}")
    returns = state.rewards.astype(np.float64, copy=True)
    rows = np.arange(len(seeds))  # the table each row of ``state`` plays
    needs_obs = [_uses_observation(a) for a in agents]
    if watch is not None:
        watch.begin(state, rows)
    streams = TableRandom(int(rng.integers(2**63)))  # one random stream per table (common random numbers)
    decisions = 0
    viewers = [i for i, a in enumerate(agents) if wants_seat_view(a)]
    views = None
    if viewers:  # the seats of agents that search: their seat views, from their own observations (envs/seatview.py)
        views = SeatViews(game)
        tracked = np.isin(seat_agent, viewers)
        views.begin(state, rows, rows, [np.flatnonzero(t).tolist() for t in tracked])
    for step in range(max_steps):
        live = ~state.done
        n_live = int(live.sum())
        if n_live == 0:
            break
        if n_live <= live.size // 2:  # drop finished tables: later steps only work on live ones
            keep = np.flatnonzero(live)
            state, rows = state.take(keep), rows[keep]
        seat = np.maximum(state.current_player, 0)
        who = np.where(state.done, -1, seat_agent[rows, seat])
        actions = np.zeros(state.batch_size, dtype=np.int64)
        for i, agent in enumerate(agents):
            sel = np.flatnonzero(who == i)
            if sel.size == 0:
                continue
            mask = state.legal_action_mask[sel]
            if not needs_obs[i]:
                obs = np.zeros((sel.size, 0), dtype=np.float32)
            elif sel.size == state.batch_size:
                obs = game.observe(state, seat)
            else:
                obs = game.observe(state.take(sel), seat[sel])
            streams.bind(rows[sel], step)
            seat_views = None if views is None or i not in viewers else views.views(rows[sel], seat[sel])
            acts = np.asarray(call_agent(agent, obs, mask, streams, seat_views))
            if acts.dtype.kind not in "iu" or acts.size != sel.size:
                raise ValueError(f"agent {_agent_label(agent, i)!r} returned {show(acts)} for {sel.size} tables; "
                                 f"an agent returns one integer action id per table")
            acts = acts.astype(np.int64).reshape(-1)
            ok = (acts >= 0) & (acts < game.num_actions)
            ok[ok] = mask[np.flatnonzero(ok), acts[ok]]
            if not ok.all():
                b = int(np.flatnonzero(~ok)[0])
                raise IllegalActionError(
                    f"agent {_agent_label(agent, i)!r} chose the illegal action {int(acts[b])} at a {game.name} "
                    f"table; legal: {', '.join(game.action_name(int(a)) for a in np.flatnonzero(mask[b]))}"
                )
            actions[sel] = acts
            decisions += sel.size
        if watch is not None:
            watch.before(state, rows, actions)
        game.step(state, actions)
        returns[rows] += state.rewards
        if watch is not None:
            watch.after(state, rows)
        if views is not None:
            stepped = np.flatnonzero((who >= 0) & ~state.done)
            views.record(state, stepped, rows[stepped], seat[stepped], actions[stepped])
            views.drop(rows[state.done])
    if not state.done.all():
        raise RuntimeError(
            f"{game.name}: {int((~state.done).sum())} episodes still running after {max_steps:,} steps; "
            "are the agents passing the same moves back and forth?"
        )
    return returns, decisions


def duplicate_seats(n: int, groups: int) -> np.ndarray:
    """The ``(groups * n, n)`` seat-to-agent table of :func:`play_duplicate`: table ``g * n + r`` is rotation ``r``
    of deal group ``g``, whose seat ``s`` holds agent ``(s - r) % n`` (agent ``i`` sits at seat ``(i + r) % n``)."""
    rot = np.arange(n)
    return np.tile((rot[None, :] - rot[:, None]) % n, (groups, 1))


def play_duplicate(
    game: BatchedGame, agents: list[Agent], seeds: np.ndarray, rng: np.random.Generator,
    watch: StepWatch | None = None,
) -> tuple[np.ndarray, int]:
    """Play each deal group of ``seeds`` in all ``n`` rotations (in rotation ``r`` agent ``i`` sits at seat
    ``(i + r) % n``; the tables in the order of :func:`duplicate_seats`). Returns ``returns[g, r, i]``, agent ``i``'s
    return in rotation ``r`` of group ``g``, and the number of decisions taken; ``watch`` as in :func:`play_tables`."""
    n, k = game.num_players, len(seeds)
    rot = np.arange(n)
    seat_agent = duplicate_seats(n, k)
    returns, decisions = play_tables(game, agents, seat_agent, np.repeat(seeds, n), rng, watch=watch)
    agent_seat = (rot[None, :] + rot[:, None]) % n  # [r, i]: the seat of agent i in rotation r
    return np.take_along_axis(returns.reshape(k, n, n), np.broadcast_to(agent_seat, (k, n, n)), axis=2), decisions


def win_shares(returns: np.ndarray) -> np.ndarray:
    """The win share of each player (last axis) of each episode: 1 to the single highest return, ``1/k`` each to
    ``k`` tied for it, 0 to everybody when all returns are equal."""
    top = returns.max(axis=-1, keepdims=True)
    winners = (returns >= top - 1e-9) & (returns.min(axis=-1, keepdims=True) < top - 1e-9)
    return winners / np.maximum(winners.sum(axis=-1, keepdims=True), 1)


def play_chunk(
    game: BatchedGame, agents: list[Agent], seeds: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, int]:
    """One chunk of an evaluation: each agent's mean return and win share per deal group, and the decisions."""
    returns, decisions = play_duplicate(game, agents, seeds, rng)
    return returns.mean(axis=1), win_shares(returns).mean(axis=1), decisions


@dataclasses.dataclass(frozen=True)
class EvalChunk:
    """One chunk of an evaluation as a task for an executor (plain values only)."""

    table: TableSpec
    """The game and the agents' specs, one per seat."""
    seeds: np.ndarray
    """The deal groups of the chunk."""
    seed: int
    """The evaluation's seed."""
    chunk: int
    """Index of the chunk: the agents' random stream is ``default_rng([seed, chunk])``."""


def eval_chunk(task: EvalChunk) -> tuple[np.ndarray, np.ndarray, int]:
    """:func:`play_chunk` of a task, in whatever process runs it."""
    game, agents = task.table.build()
    return play_chunk(game, agents, task.seeds, np.random.default_rng([task.seed, task.chunk]))


def evaluate(
    game: BatchedGame,
    agents: list[Agent],
    deals: int = 20_000,
    seed: int = 0,
    batch_size: int = 8192,
    names: list[str] | None = None,
    executor: Executor | None = None,
    specs: list[str] | None = None,
) -> EvalResult:
    """Duplicate tournament of ``agents`` (one per seat) over at least ``deals`` episodes (rounded up to whole deal
    groups of ``num_players`` rotations). ``names`` label the agents in the result (default: their ``name``).

    With an ``executor`` (:mod:`training.executors`: a process pool or Ray) each chunk of ``batch_size`` tables is a
    task whose worker builds the game and the agents from ``specs`` (their registry specs); the result is the same
    as in this process."""
    _check_agents(game, agents)
    n = game.num_players
    if len(agents) != n:
        raise ArgumentError(f"agents: {game.name} with {n} players needs {n} agents (one per seat), got {len(agents)}")
    if names is not None and (isinstance(names, str) or len(names) != n or not all(isinstance(x, str) for x in names)):
        raise ArgumentError(f"names must be None or {n} agent names (strings), got {show(names)}")
    deals = check_int(deals, "deals", low=1)
    seed = check_int(seed, "seed", 0, U64_MAX, allowed="an integer from 0 to 2**64-1")
    batch_size = check_int(batch_size, "batch_size", low=n, allowed=f"an integer at least the number of players ({n})")
    groups = -(-deals // n)
    per_chunk = batch_size // n
    seeds = group_seeds(int(seed), groups)
    starts = range(0, groups, per_chunk)
    t0 = time.perf_counter()
    if executor is None or isinstance(executor, InProcess):  # the agents at hand
        chunks = (play_chunk(game, agents, seeds[start:start + per_chunk], np.random.default_rng([seed, chunk]))
                  for chunk, start in enumerate(starts))
    else:
        if specs is None or len(specs) != n:
            raise ValueError(f"an executor builds the agents from their specs: pass {n} agent specs")
        table = TableSpec.of(game, specs)
        tasks = [EvalChunk(table, seeds[start:start + per_chunk], int(seed), chunk)
                 for chunk, start in enumerate(starts)]
        chunks = (result for _, result in sorted(executor.map_unordered(eval_chunk, tasks), key=lambda r: r[0]))
    group_returns = np.empty((groups, n))
    group_wins = np.empty((groups, n))
    decisions = 0
    for start, (returns, wins, d) in zip(starts, chunks, strict=True):
        group_returns[start:start + len(returns)] = returns
        group_wins[start:start + len(returns)] = wins
        decisions += d
    return EvalResult(
        game=game.name,
        num_players=n,
        options=game.changed_options(),
        agents=list(names) if names is not None else [_agent_label(a, i) for i, a in enumerate(agents)],
        seed=seed,
        batch_size=per_chunk * n,
        group_returns=group_returns,
        group_wins=group_wins,
        decisions=decisions,
        seconds=time.perf_counter() - t0,
        labels=[agent_label(a) for a in agents],
    )


# ----- advantage over a reference agent, field by field ---------------------------------------------------------------
@dataclasses.dataclass
class FieldAdvantage:
    """A candidate against ``n - 1`` copies of one agent (a *field*), compared with a reference agent (the
    heuristic) in the same seats of the same duplicate deals: ``advantage = candidate - reference``, paired over deal
    groups."""

    field: str
    """Name of the field (its agent spec, e.g. ``"tight"``, or ``"self@1.2M"`` for a snapshot of the learner)."""
    label: str
    """The field agent's ``name@vN``."""
    candidate: float
    """The candidate's mean return per episode in this field."""
    reference: float
    """The reference's mean return per episode in the same seats of the same deals."""
    advantage: float
    """``candidate - reference``."""
    ci95: float
    """Half-width of the 95% interval of :attr:`advantage` (over deal groups)."""
    ahead: float
    """The candidate's share of what the two results differ by, over the deal groups: the sum of the differences
    where the candidate did better divided by the sum of all absolute differences (0.5 when none differs, e.g. for a
    candidate that plays like the reference). Above 0.5 exactly when :attr:`advantage` is above 0; scale-free, so
    comparable between games, and not diluted by the many deals a candidate plays like the reference."""
    won: float
    """Of the deal groups where the two results differ, the share where the candidate did better (0.5 when none
    differs): :attr:`ahead` counting each such deal once, whatever was at stake."""
    deals: int
    """Episodes each side played."""

    @property
    def beats(self) -> bool:
        """Whether the whole 95% interval of the advantage is above 0."""
        return self.advantage - self.ci95 > 0

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "beats": self.beats}


def paired_advantage(result: EvalResult, baseline: EvalResult, agent: int = 0
                     ) -> tuple[float, float, float, float]:
    """Agent ``agent`` of ``result`` minus agent ``agent`` of ``baseline``, two tournaments on the same deal seeds:
    mean, 95% half-width, ``result``'s share of the differences (:attr:`FieldAdvantage.ahead`: the sum of the
    differences in its favour over the sum of their absolute values) and its share of the deal groups that differ
    (:attr:`FieldAdvantage.won`); both shares are 0.5 when none differs."""
    if result.seed != baseline.seed or result.group_returns.shape != baseline.group_returns.shape:
        raise ValueError("a paired advantage needs two tournaments on the same deals (same seed and size)")
    diff = result.group_returns[:, agent] - baseline.group_returns[:, agent]
    mean, half = EvalResult._interval(diff)
    diff = np.round(diff, 9)
    stake = float(np.abs(diff).sum())
    ahead = float(diff[diff > 0].sum() / stake) if stake else 0.5
    differ = int(np.count_nonzero(diff))
    won = float(np.count_nonzero(diff > 0) / differ) if differ else 0.5
    return float(mean), float(half), ahead, won


class FieldEvaluator:
    """The advantage of candidates over ``reference`` in fields of ``num_players - 1`` copies of one agent, on
    ``deals`` duplicate deals from ``seed``. The reference's tournament in each field does not depend on the
    candidate: it is played once per field name and kept."""

    def __init__(self, game: BatchedGame, reference: Agent, deals: int, seed: int, reference_name: str = "heuristic"):
        self.game, self.reference, self.deals, self.seed = game, reference, deals, seed
        self.reference_name = reference_name
        self._baselines: dict[str, EvalResult] = {}

    def baseline(self, field: str, agent: Agent) -> EvalResult:
        """The reference's tournament against ``n - 1`` copies of ``agent`` (cached under ``field``)."""
        if field not in self._baselines:
            n = self.game.num_players
            self._baselines[field] = evaluate(self.game, [self.reference] + [agent] * (n - 1), deals=self.deals,
                                              seed=self.seed, names=[self.reference_name] + [field] * (n - 1))
        return self._baselines[field]

    def field(self, candidate: Agent, field: str, agent: Agent, name: str = "candidate"
              ) -> tuple[FieldAdvantage, EvalResult]:
        """The advantage of ``candidate`` in the field of ``agent`` and the candidate's tournament there."""
        n = self.game.num_players
        result = evaluate(self.game, [candidate] + [agent] * (n - 1), deals=self.deals, seed=self.seed,
                          names=[name] + [field] * (n - 1))
        base = self.baseline(field, agent)
        adv, half, ahead, won = paired_advantage(result, base)
        row = FieldAdvantage(field=field, label=agent_label(agent), candidate=float(result.mean[0]),
                             reference=float(base.mean[0]), advantage=adv, ci95=half, ahead=ahead, won=won,
                             deals=result.episodes)
        return row, result

    def __call__(self, candidate: Agent, fields: dict[str, Agent], name: str = "candidate") -> list[FieldAdvantage]:
        """The advantage of ``candidate`` in every field (name → agent), in order."""
        return [self.field(candidate, field, agent, name)[0] for field, agent in fields.items()]


def fields_table(rows: list[FieldAdvantage], unit: str, candidate: str = "model", reference: str = "heuristic",
                 notes: dict[str, str] | None = None) -> str:
    """The printed table of :class:`FieldAdvantage` rows (``notes[field]`` is printed after the row)."""
    notes = notes or {}
    head = f"{'field (other seats)':<22} {candidate:>9} {reference:>10} {'advantage ± 95%':>18}  {'ahead':>5}"
    lines = [f"advantage over the {reference} in the same seats of the same duplicate deals ({unit} per episode)",
             head]
    for r in rows:
        verdict = "beats" if r.beats else ("loses" if r.advantage + r.ci95 < 0 else "tie")
        lines.append(f"{r.field:<22} {r.candidate:>+9.3f} {r.reference:>+10.3f} {r.advantage:>+9.3f} ± "
                     f"{r.ci95:<6.3f}  {r.ahead:>5.3f}  {verdict:<5} {notes.get(r.field, '')}".rstrip())
    won = sum(r.beats for r in rows)
    lines.append(f"the {candidate} beats the {reference} in {won} of {len(rows)} fields "
                 f"({rows[0].deals if rows else 0:,} deals each; ahead: the {candidate}'s share of the differences "
                 f"between the two, summed over the deal groups)")
    return "\n".join(lines)
