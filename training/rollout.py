"""Collecting learner decisions from many tables of a batched core, every learner seat sampled from one policy.

:class:`Rollout` steps ``num_tables`` tables of a :class:`~envs.core.game.BatchedGame` directly (no vector env): at
each step every table's acting seat decides, all at once. Each seat of a newly dealt table is a *learner* seat
(the shared policy samples its decisions) or, with probability ``opponent_share``, a seat of a frozen agent drawn
from ``opponents`` (any :mod:`envs.core.agent` agent) with probability proportional to its weight
(:meth:`Rollout.set_opponents`: the opponent pool hands its members over); every table keeps at least one learner
seat. A seat sees only
its own observation (``game.observe(state, seat)``). A finished table is dealt again at once (its table seed drawn
from the rollout's seed), so every table acts at every step.

Every learner decision becomes one row of :class:`Decisions`: the policy's input (the scaled observation), legal
mask, action, its log-probability
and the value the policy gave, an agent magnet's log-probabilities (:mod:`training.magnet`) if there is one, and its
place in its seat's trajectory: ``reward`` (the seat's own chips, times ``reward_scale``, from this decision to its
next or to the end of the episode; the chips moved before a seat's first decision, such as the ante, go to that
decision), ``next`` and ``done`` (:mod:`training.advantages`). A decision whose successor is not known when a
collection ends stays *open* and is carried to the front of the next collection's rows; so every row reaches a batch,
each exactly once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from agents.ppo import policy_input
from agents.together import act_each, groups_of
from envs.core.agent import Agent, check_agent, wants_seat_view
from envs.core.game import BatchedGame
from envs.core.rng import hash_u64
from training.actor_critic import inputs, logits_and_values, masked_log_probs, sample
from training.magnet import AgentMagnet
from training.sparse_rows import SparseRows
from training.stopwatch import Stopwatch

STREAM_TABLE_SEED = 201
"""Random stream (:mod:`envs.core.rng`) of the table seeds drawn from the rollout's seed."""
MAX_REDEALS = 1000
"""Deals in a row that end before anyone decides after which a table gives up."""


@dataclasses.dataclass
class Decisions:
    """Learner decisions, one row each, in the order they were made (a seat's next decision is a later row)."""

    table: np.ndarray
    """(C,) int64 — the table of the decision."""
    seat: np.ndarray
    """(C,) int64 — the seat that made it."""
    inputs: np.ndarray
    """(C, input_size) float32 — the policy's input for the acting seat's observation
    (:func:`training.actor_critic.inputs`: computed once, when the decision is made)."""
    mask: np.ndarray
    """(C, num_actions) bool — its legal actions."""
    action: np.ndarray
    """(C,) int64 — the action sampled."""
    logprob: np.ndarray
    """(C,) float32 — its log-probability under the policy that sampled it."""
    value: np.ndarray
    """(C,) float32 — the policy's value of the observation."""
    reward: np.ndarray
    """(C,) float64 — the seat's scaled chips from this decision to its next one (or the episode's end)."""
    done: np.ndarray
    """(C,) bool — the episode ended before the seat decided again (``reward`` is final)."""
    next: np.ndarray
    """(C,) int64 — row of the seat's next decision at its table, -1 while unknown."""
    reference: np.ndarray | None
    """(C, num_actions) float32 — the magnet's log-probabilities, or ``None`` without a magnet."""
    size: int = 0
    """Rows in use (the arrays have room for more)."""

    @classmethod
    def empty(cls, capacity: int, input_size: int, num_actions: int, magnet: bool) -> Decisions:
        return cls(np.zeros(capacity, np.int64), np.zeros(capacity, np.int64),
                   np.zeros((capacity, input_size), np.float32), np.zeros((capacity, num_actions), bool),
                   np.zeros(capacity, np.int64), np.zeros(capacity, np.float32), np.zeros(capacity, np.float32),
                   np.zeros(capacity), np.zeros(capacity, bool), np.full(capacity, -1, np.int64),
                   np.zeros((capacity, num_actions), np.float32) if magnet else None)

    def arrays(self) -> dict[str, np.ndarray]:
        """The rows in use of every array, by field name (``reference`` only with a magnet)."""
        fields = [f.name for f in dataclasses.fields(self) if f.name != "size"]
        return {name: getattr(self, name)[:self.size] for name in fields if getattr(self, name) is not None}

    def move(self, rows: np.ndarray) -> None:
        """Keep only ``rows`` (open decisions, whose ``next`` is -1), moved to the front in order."""
        for array in self.arrays().values():
            array[:rows.size] = array[rows]
        self.size = rows.size


class Rollout:
    """``num_tables`` tables of ``game`` with learner seats sampled from ``policy`` (module docstring), ``steps``
    decisions per table in each :meth:`collect`. ``magnet``: the agent magnet whose log-probabilities each decision
    records (``None``: none; :meth:`drop_magnet` stops it between collections). ``sparse``: the policy acts on
    sparse rows of the observations (:mod:`training.sparse_rows`). ``seed`` draws the tables' seeds, the seating and
    the policy's samples."""

    def __init__(self, game: BatchedGame, num_tables: int, steps: int, policy: MaskableActorCriticPolicy, *,
                 opponents: Sequence[Agent] = (), weights: Sequence[float] | None = None,
                 opponent_share: float = 0.0, magnet: AgentMagnet | None = None,
                 reward_scale: float = 1.0, sparse: bool = False, seed: int = 0,
                 stopwatch: Stopwatch | None = None) -> None:
        self.game, self.num_tables, self.policy, self.magnet = game, num_tables, policy, magnet
        self.opponent_share, self.reward_scale = 0.0, reward_scale
        self.set_opponents(opponents, weights, opponent_share)
        self.sparse = sparse
        self.watch = stopwatch or Stopwatch()
        self.rng = np.random.default_rng(seed)
        self.generator = th.Generator().manual_seed(seed)
        self.seed, self.dealt = seed, 0
        n = game.num_players
        self.learner = np.ones((num_tables, n), bool)
        """Whether each seat of each table is a learner seat."""
        self.agent_of = np.zeros((num_tables, n), np.int64)
        """The opponent (index into ``opponents``) at each non-learner seat."""
        self.last = np.full((num_tables, n), -1, np.int64)
        """Row of each seat's latest decision in this episode, -1 before its first."""
        self.pending = np.zeros((num_tables, n))
        """Each seat's scaled chips before its first decision of the episode."""
        self.chips = np.zeros((num_tables, n))
        """Each seat's chips so far in this episode."""
        self.finished: list[np.ndarray] = []
        """Chips per episode of the learner seats whose episodes ended since :meth:`take_returns`."""
        self.steps = steps
        """Decisions each table makes per :meth:`collect`."""
        self.rows = Decisions.empty(num_tables * (n + steps), policy.features_extractor.linear.in_features,
                                    game.num_actions, magnet is not None)
        """The decisions of the last collection (room for one open decision per seat and ``steps`` per table)."""
        self.obs = np.zeros((num_tables, game.observation_size), np.float32)
        """The observations of the acting seats at the current step."""
        self.carried = 0
        """Open decisions of the collection before that the last one carried over (its first rows)."""
        self.state = game.init(self._table_seeds(num_tables))
        self._start(np.arange(num_tables))

    def set_opponents(self, opponents: Sequence[Agent], weights: Sequence[float] | None = None,
                      share: float | None = None) -> None:
        """Who takes the opponent seats of tables dealt from now on: ``opponents[k]`` with probability
        ``weights[k] / sum(weights)`` (equal weights when ``None``), each seat with probability ``share`` (``None``:
        as before). Tables already dealt keep their seats: an agent seated there that is not among ``opponents``
        stays in :attr:`opponents` with weight 0 until they end."""
        share = self.opponent_share if share is None else share
        if not 0.0 <= share <= 1.0 or (share > 0 and not opponents):
            raise ValueError(f"opponent_share must be in [0, 1] (above 0 only with opponents), got {share}")
        for i, agent in enumerate(opponents):
            check_agent(agent, self.game, f"opponents[{i}]")
            if wants_seat_view(agent):
                raise ValueError(f"opponents[{i}] ({agent.name!r}) wants seat views, which the learner's tables do "
                                 "not keep")
        w = np.ones(len(opponents)) if weights is None else np.asarray(weights, np.float64)
        if w.shape != (len(opponents),) or not np.isfinite(w).all() or (w < 0).any() or (len(w) and w.sum() <= 0):
            raise ValueError(f"weights must be one finite non-negative number per opponent, not all 0; got {weights}")
        agents, w = list(opponents), list(w)
        if hasattr(self, "agent_of"):  # re-index the seated agents in the new list
            seated = ~self.learner
            where = np.zeros(len(self.opponents), np.int64)
            for k in np.unique(self.agent_of[seated]).tolist():
                found = next((j for j, a in enumerate(agents) if a is self.opponents[k]), None)
                if found is None:
                    found = len(agents)
                    agents.append(self.opponents[k])
                    w.append(0.0)
                where[k] = found
            self.agent_of[seated] = where[self.agent_of[seated]]
        self.opponents, self.opponent_share = agents, share
        self.groups = groups_of(agents)
        """The opponents that play together (:mod:`agents.together`): one call per group at each step."""
        self.weights = np.asarray(w) / sum(w) if w else np.zeros(0)

    def drop_magnet(self) -> None:
        """Record no magnet's log-probabilities from now on (the learner's magnet has become a policy, whose
        reference is computed for each batch from the learner's inputs: :class:`training.magnet.PolicyMagnet`)."""
        self.magnet = self.rows.reference = None

    # ----- tables ------------------------------------------------------------------------------------------------
    def _table_seeds(self, k: int) -> np.ndarray:
        counters = np.arange(self.dealt, self.dealt + k, dtype=np.uint64)
        self.dealt += k
        return hash_u64(np.uint64(self.seed), STREAM_TABLE_SEED, counters)

    def _start(self, idx: np.ndarray) -> None:
        """Seat freshly dealt tables ``idx`` and count the chips of the deal; deal again where it already ended."""
        for _ in range(MAX_REDEALS):
            n = self.game.num_players
            learner = self.rng.random((idx.size, n)) >= self.opponent_share
            nobody = np.flatnonzero(~learner.any(axis=1))
            learner[nobody, self.rng.integers(n, size=nobody.size)] = True
            self.learner[idx] = learner
            if self.opponents:
                self.agent_of[idx] = self.rng.choice(len(self.opponents), size=(idx.size, n), p=self.weights)
            self.last[idx] = -1
            self.chips[idx] = self.state.rewards[idx]
            self.pending[idx] = self.state.rewards[idx] * self.reward_scale
            idx = idx[self.state.done[idx]]
            if not idx.size:
                return
            self.game.redeal(self.state, idx, self._table_seeds(idx.size))
        raise RuntimeError(f"{self.game.name}: {MAX_REDEALS} deals in a row ended before anyone decided")

    # ----- collection --------------------------------------------------------------------------------------------
    def collect(self) -> Decisions:
        """Play ``steps`` decisions at every table. Returns the decisions still open at the end of the last
        collection (first) and those made now; the caller reads them before the next call, which reuses the
        arrays."""
        seated = self.last >= 0
        kept = np.sort(self.last[seated])
        self.rows.move(kept)
        self.carried = kept.size
        self.last[seated] = np.searchsorted(kept, self.last[seated])
        for _ in range(self.steps):
            self._step()
        return self.rows

    def _step(self) -> None:
        """One decision at every table."""
        game, state, rows, watch = self.game, self.state, self.rows, self.watch
        tables = np.arange(self.num_tables)
        seats = state.current_player.copy()
        start = rows.size
        with watch("observe"):
            obs = game.observe(state, seats, out=self.obs)
            mask = state.legal_action_mask
        learning = self.learner[tables, seats]
        mine = np.flatnonzero(learning)
        actions = np.zeros(self.num_tables, np.int64)
        if mine.size < self.num_tables:
            with watch("opponent inference"):
                theirs = np.flatnonzero(~learning)
                who = self.agent_of[theirs, seats[theirs]]
                actions[theirs] = act_each(self.opponents, self.groups, who, obs[theirs], mask[theirs], self.rng)
                obs = obs[mine]
        end = start + mine.size
        if mine.size:
            rows.mask[start:end] = mask[mine]
            actions[mine] = self._decide(obs, rows, start, end)
        with watch("bookkeeping"):
            new = np.arange(start, end)
            at = (mine, seats[mine])
            before = self.last[at]
            rows.next[before[before >= 0]] = new[before >= 0]
            rows.table[new], rows.seat[new] = at
            rows.next[new], rows.done[new] = -1, False
            rows.reward[new] = self.pending[at]
            self.pending[at] = 0.0
            self.last[at] = new
            rows.size = end
        with watch("core step"):
            game.step(state, actions)
        with watch("bookkeeping"):
            chips = state.rewards
            self.chips += chips
            deciding = self.last >= 0
            rows.reward[self.last[deciding]] += chips[deciding] * self.reward_scale
            self.pending[~deciding] += chips[~deciding] * self.reward_scale
            ended = np.flatnonzero(state.done)
            if ended.size:
                last = self.last[ended]
                rows.done[last[last >= 0]] = True
                self.finished.append(self.chips[ended][self.learner[ended]])
        if ended.size:
            with watch("core step"):
                game.redeal(state, ended, self._table_seeds(ended.size))
            with watch("bookkeeping"):
                self._start(ended)

    def _decide(self, obs: np.ndarray, rows: Decisions, start: int, end: int) -> np.ndarray:
        """Sample the learner decisions of rows ``start..end-1`` from their observations ``obs`` (the masks are
        written) and record the policy's inputs, log-probabilities and values and the magnet's reference; returns
        the actions."""
        if self.magnet is not None:
            with self.watch("magnet"):
                rows.reference[start:end] = self.magnet.log_probs(obs, rows.mask[start:end], self.rng)
        with self.watch("advice"):
            obs = policy_input(self.policy, obs, rows.mask[start:end])
        with self.watch("policy inference"), th.inference_mode():
            if self.sparse:
                x = inputs(self.policy, SparseRows(obs).matrix())
                rows.inputs[start:end] = x.to_dense().numpy()
            else:
                x = inputs(self.policy, th.from_numpy(obs))
                rows.inputs[start:end] = x.numpy()
            logits, values = logits_and_values(self.policy, x)
            log_probs = masked_log_probs(logits, th.from_numpy(rows.mask[start:end]))
            chosen = sample(log_probs, self.generator)
            rows.logprob[start:end] = log_probs.gather(1, chosen[:, None])[:, 0].numpy()
            rows.value[start:end] = values.numpy()
            rows.action[start:end] = chosen.numpy()
        return rows.action[start:end]

    def take_returns(self) -> np.ndarray:
        """Chips per episode of each learner seat whose episode ended since the last call."""
        out = np.concatenate(self.finished) if self.finished else np.zeros(0)
        self.finished = []
        return out
