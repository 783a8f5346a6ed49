"""The batched training face: many tables of one game core as a single-agent SB3 ``VecEnv`` (no subprocesses).

``CardVecEnv(game, num_tables, opponents)`` runs ``num_tables`` tables of a :class:`~envs.core.game.BatchedGame` at
once. At each table one seat is the *learner* (drawn from the table's seed); every other seat is played inside the
env by an opponent agent (batched ``act``), so the learner sees only its own turns:

- ``reset()`` / ``step_wait()`` return ``(num_tables, observation_size)`` float32 observations of the learner's
  seat, every table waiting on the learner's decision; ``action_masks()`` returns the whole ``(num_tables,
  num_actions)`` legal mask at once (sb3-contrib ``MaskablePPO``).
- The reward of a step is the learner's chip change since its previous decision: its own move, the opponents' moves
  up to its next turn, the end of the deal, and for the first decision of a deal the chips moved while dealing
  (the ante). An episode's return is therefore exactly the learner's chip change over the game episode.
- Finished tables are dealt again at once with fresh seeds from a counter: the k-th table dealt after ``reset``
  gets the seed ``hash(seed, k)`` (:func:`envs.core.rng.hash_u64`; for each ``k`` a one-to-one map of all 64
  bits of ``seed``, so two env seeds never share a table seed at the same ``k``), as SB3 expects; the last
  observation is in ``infos[i]["terminal_observation"]`` and the episode's chips and decisions in
  ``infos[i]["episode"]`` (``{"r", "l", "t"}``, read by SB3's logger). A deal that ends
  before the learner has a decision teaches nothing: it is dealt again and counted in ``skipped_deals``.
- Opponents come from a pool (``set_opponents(agents, weights)``): each opponent seat of a newly dealt table draws
  one agent of the pool with probability proportional to its weight (from the table's seed), so one table can mix,
  e.g., two heuristics and a frozen snapshot of the learner. With ``whole_table=q`` a newly dealt table instead
  seats one drawn agent at every opponent seat with probability ``q`` (a *field* of copies of one agent, as the
  duplicate evaluation's fields are). A pool change applies to tables dealt afterwards.
- Observations are the core's, unscaled (the PPO policy scales them itself: :class:`agents.ppo.SymlogFeatures`, so
  a saved model carries its scaling). ``reward_scale`` multiplies the rewards handed to the learner
  (``infos[..]["episode"]["r"]`` stays in chips).

Bad arguments (``num_tables`` not a positive int, a seed outside ``0..2**64-1``, opponents without ``act`` or built for
another game or table size, weights that are not finite non-negative numbers with a positive sum, a
``reward_scale`` that is not a finite positive number, actions of the wrong shape or type) raise
:class:`~envs.core.checks.ArgumentError` with one line naming the argument, and change nothing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from agents.base import Agent, check_agent
from envs.core.checks import U64_MAX, ArgumentError, check_int, check_number, int_array, show
from envs.core.game import BatchedGame, BatchState, IllegalActionError
from envs.core.rng import hash_u64, uniform_ints

STREAM_LEARNER_SEAT = 101
"""Random stream (envs.core.rng) of the learner's seat at a table."""
STREAM_OPPONENT = 102
"""Random stream of the pool draw of each opponent seat."""
STREAM_TABLE_SEED = 103
"""Random stream of the table seeds drawn from the env's seed."""
STREAM_WHOLE_TABLE = 104
"""Random stream of the choice between one pool draw per seat and one for the whole table."""
MAX_REDEALS = 1000
"""Deals in a row without a learner decision after which the env gives up (a game where the learner never acts)."""


class CardVecEnv(VecEnv):
    """``num_tables`` tables of ``game`` with one learner seat each; see the module docstring."""

    render_mode = None

    def __init__(
        self,
        game: BatchedGame,
        num_tables: int,
        opponents: Agent | Sequence[Agent],
        weights: Sequence[float] | None = None,
        seed: int = 0,
        reward_scale: float = 1.0,
        whole_table: float = 0.0,
    ) -> None:
        if not isinstance(game, BatchedGame):
            raise ArgumentError(f"game must be a game core (envs.registry.make_game), got {show(game)}")
        num_tables = check_int(num_tables, "num_tables", low=1)
        reward_scale = check_number(reward_scale, "reward_scale", positive=True)
        self.game = game
        self.reward_scale = reward_scale
        obs_space = spaces.Box(-np.inf, np.inf, shape=(game.observation_size,), dtype=np.float32)
        super().__init__(num_tables, obs_space, spaces.Discrete(game.num_actions))
        self.set_opponents(opponents, weights, whole_table)
        self.seed(seed)
        self.state: BatchState | None = None
        self.skipped_deals = 0
        self.episodes = 0
        self._actions: np.ndarray | None = None

    # ----- opponents -----------------------------------------------------------------------------------------------
    def set_opponents(self, opponents: Agent | Sequence[Agent], weights: Sequence[float] | None = None,
                      whole_table: float = 0.0) -> None:
        """Replace the opponent pool (applies to tables dealt from now on; seats already drawn keep their index).

        ``opponents``: one agent or a non-empty sequence of agents built for this env's game; ``weights``: one finite
        non-negative number per agent, not all 0 (default: equal); ``whole_table``: the probability that a new table
        seats one drawn agent at all its opponent seats."""
        if isinstance(opponents, (str, bytes)):
            raise ArgumentError(f"opponents must be an agent or a list of agents (agents.registry.make_agent builds "
                                f"one from a name), got {show(opponents)}")
        if not (isinstance(whole_table, (int, float)) and 0.0 <= whole_table <= 1.0):
            raise ArgumentError(f"whole_table must be a probability in [0, 1], got {show(whole_table)}")
        agents = [opponents] if not isinstance(opponents, Sequence) else list(opponents)
        if not agents:
            raise ArgumentError("opponents must be an agent or a non-empty list of agents; the opponent pool is empty")
        for i, agent in enumerate(agents):
            check_agent(agent, self.game, "opponents" if agent is opponents else f"opponents[{i}]")
        allowed = f"{len(agents)} finite non-negative numbers (one per opponent), not all 0"
        if weights is None:
            w = np.ones(len(agents))
        elif isinstance(weights, (Sequence, np.ndarray)) and not isinstance(weights, (str, bytes)) \
                and len(weights) == len(agents):
            w = np.array([check_number(x, f"weights[{i}]") for i, x in enumerate(weights)])
        else:
            raise ArgumentError(f"weights must be {allowed}, got {show(weights)}")
        if (w < 0).any() or w.sum() <= 0:
            raise ArgumentError(f"weights must be {allowed}, got {show(weights)}")
        self.opponents = agents
        self.whole_table = float(whole_table)
        self.weights = w / w.sum()
        self._cum_weights = np.cumsum(self.weights)

    # ----- SB3 VecEnv interface ------------------------------------------------------------------------------------
    def seed(self, seed: int | None = None) -> list[int | None]:
        """Set the seed of the next :meth:`reset` (an int ``0..2**64-1``; ``None``: fresh entropy); the k-th table
        dealt after it gets the table seed ``hash(seed, k)`` (k = 0, 1, ...)."""
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % 2**64)
        self._seed = check_int(seed, "seed", 0, U64_MAX, allowed="None or an integer 0..2**64-1")
        self._seeds = [self._seed] * self.num_envs
        return [self._seed]

    def reset(self) -> VecEnvObs:
        b = self.num_envs
        self._counter = 0
        self._rng = np.random.default_rng(self._seed)
        self.state = self.game.init(self._next_seeds(b))
        self.learner = np.zeros(b, np.int64)
        self.seat_agent = np.zeros((b, self.game.num_players), np.int64)
        self.pending = np.zeros(b)  # learner's chips not yet handed out as a reward
        self.ep_return = np.zeros(b)
        self.ep_length = np.zeros(b, np.int64)
        self.skipped_deals = 0
        self.episodes = 0
        self._t0 = time.perf_counter()
        self._begin(np.arange(b))
        return self._observe()

    def step_async(self, actions: np.ndarray) -> None:
        allowed = f"{self.num_envs} integer action ids (one per table)"
        actions = int_array(actions, "actions", allowed)
        if actions.size != self.num_envs or actions.ndim > 2:
            raise ArgumentError(f"actions must be {allowed}, got shape {actions.shape}")
        self._actions = actions.reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        if self.state is None or self._actions is None:
            raise RuntimeError("call reset() before step()")
        s, all_tables = self.state, np.arange(self.num_envs)
        self.game.step(s, self._actions)  # every table waits on its learner here
        self._actions = None
        self.ep_length += 1
        self.pending += s.rewards[all_tables, self.learner]
        self._play_opponents(all_tables)
        rewards = self.pending.copy()
        self.ep_return += rewards
        self.pending[:] = 0.0
        done_idx = np.flatnonzero(s.done)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if done_idx.size:
            final = self.game.observe(s.take(done_idx), self.learner[done_idx])
            elapsed = round(time.perf_counter() - self._t0, 6)
            for j, b in enumerate(done_idx.tolist()):
                infos[b] = {
                    "terminal_observation": final[j],
                    "TimeLimit.truncated": bool(s.truncated[b] and not s.terminated[b]),
                    "episode": {"r": float(self.ep_return[b]), "l": int(self.ep_length[b]), "t": elapsed},
                }
            self.episodes += done_idx.size
            self._deal(done_idx)
        dones = np.zeros(self.num_envs, bool)
        dones[done_idx] = True
        return self._observe(), (rewards * self.reward_scale).astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """``(num_tables, num_actions)`` bool: the learner's legal actions at every table."""
        return self.state.legal_action_mask.copy()

    def close(self) -> None:
        self.state = None

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        indices = list(self._get_indices(indices))
        if method_name == "action_masks":  # per-table rows of the one batched mask (sb3-contrib get_action_masks)
            return list(self.state.legal_action_mask[indices])
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in indices]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices: VecEnvIndices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    # ----- tables --------------------------------------------------------------------------------------------------
    def _next_seeds(self, k: int) -> np.ndarray:
        counters = np.arange(self._counter, self._counter + k, dtype=np.uint64)
        self._counter += k
        return hash_u64(np.uint64(self._seed), STREAM_TABLE_SEED, counters)

    def _deal(self, idx: np.ndarray) -> None:
        """Deal new tables at ``idx`` and play them to the learner's first decision."""
        self.state.put(idx, self.game.init(self._next_seeds(idx.size)))
        self._begin(idx)

    def _begin(self, idx: np.ndarray) -> None:
        """Start the episodes of freshly dealt tables ``idx``: draw seats, collect the deal's rewards, play the
        opponents; deal again where the deal ended before the learner's first decision."""
        for _ in range(MAX_REDEALS):
            s, n = self.state, self.game.num_players
            seeds = s.seeds[idx]
            self.learner[idx] = uniform_ints(seeds, STREAM_LEARNER_SEAT, 0, n)
            u = hash_u64(seeds[:, None], STREAM_OPPONENT, np.arange(n, dtype=np.uint64)[None, :]) >> np.uint64(11)
            draw = u.astype(np.float64) / float(2**53)
            if self.whole_table > 0:
                whole = (hash_u64(seeds, STREAM_WHOLE_TABLE) >> np.uint64(11)).astype(np.float64) / float(2**53)
                draw = np.where((whole < self.whole_table)[:, None], draw[:, :1], draw)
            self.seat_agent[idx] = np.minimum(np.searchsorted(self._cum_weights, draw, side="right"),
                                              len(self.opponents) - 1)
            self.pending[idx] = s.rewards[idx, self.learner[idx]]
            self.ep_return[idx] = 0.0
            self.ep_length[idx] = 0
            self._play_opponents(idx)
            idx = idx[s.done[idx]]
            if not idx.size:
                return
            self.skipped_deals += idx.size
            self.state.put(idx, self.game.init(self._next_seeds(idx.size)))
        raise RuntimeError(f"{self.game.name}: {MAX_REDEALS} deals in a row ended before the learner's first decision")

    def _play_opponents(self, idx: np.ndarray) -> None:
        """Play the opponents at tables ``idx`` until each waits on its learner or is over; their moves' chips for
        the learner go to ``pending``."""
        s = self.state
        while True:
            live = idx[~s.done[idx] & (s.current_player[idx] != self.learner[idx])]
            if not live.size:
                return
            seats = s.current_player[live]
            who = self.seat_agent[live, seats]
            sub = s if live.size == self.num_envs else s.take(live)
            obs = self.game.observe(sub, seats)
            mask = sub.legal_action_mask
            actions = np.zeros(live.size, np.int64)
            for k in np.unique(who).tolist():
                rows = np.flatnonzero(who == k) if len(self.opponents) > 1 else slice(None)
                actions[rows] = self.opponents[k].act(obs[rows], mask[rows], self._rng)
            try:
                self.game.step(s, actions, tables=live)
            except IllegalActionError as e:
                raise IllegalActionError(f"an opponent agent chose an illegal action: {e}") from e
            self.pending[live] += s.rewards[live, self.learner[live]]
            idx = live

    def _observe(self) -> np.ndarray:
        return self.game.observe(self.state, self.learner)
