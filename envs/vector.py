"""The batched training face: many tables of one game core, the learner at one seat of each, opponents inside.

:class:`CardVectorEnv` is a ``gymnasium.vector.VectorEnv`` (usable from a CleanRL-style loop and RLlib's
single-agent env runner); :class:`training.sb3_vec_env.CardVecEnv` adapts it to Stable-Baselines3's ``VecEnv``
(sb3-contrib's ``MaskablePPO``). Neither runs subprocesses: one batched core steps every table at once. This module
imports neither torch nor Stable-Baselines3.

``CardVectorEnv(game, num_tables, opponents)`` runs ``num_tables`` tables of a :class:`~envs.core.game.BatchedGame`.
At each table one seat is the *learner* (drawn from the table's seed); every other seat is played inside the env by
an opponent agent (batched ``act``), so the learner sees only its own turns:

- Observations are dicts of batched arrays, the PettingZoo classic convention of the AEC face:
  ``{"observation": (num_tables, observation_size) float32, "action_mask": (num_tables, num_actions) int8}``,
  each table waiting on its learner's decision (the mask is the learner's legal actions; ``action_masks()`` gives it
  as bool). The core's observations are unscaled (the PPO policy scales them: :class:`agents.ppo.SymlogFeatures`).
- The reward of a step is the learner's chip change since its previous decision: its own move, the opponents' moves
  up to its next turn, the end of the deal, and for the first decision of a deal the chips moved while dealing
  (the ante). An episode's return is therefore exactly the learner's chip change over the game episode;
  ``reward_scale`` multiplies the rewards handed out (the ``episode`` statistics stay in chips).
- ``terminations`` and ``truncations`` are apart (C13: a step limit of the rules truncates, e.g. Flip Flop's F28).
- Auto-reset (``metadata["autoreset_mode"]``): ``NEXT_STEP`` by default, Gymnasium's default and what CleanRL-style
  loops and RLlib's env runners expect: the step that ends a table's episode returns its last observation with
  ``terminated``/``truncated`` set; the next step ignores that table's action and deals it again (reward 0, both
  flags false, the new episode's first observation). ``SAME_STEP`` (used by the SB3 adapter) deals again within
  the ending step and puts the last observation in ``infos["final_obs"]`` (an object array, ``None`` for the other
  tables) and the episode statistics in ``infos["final_info"]``. Either way ``infos["episode"]`` holds ``r``
  (chips), ``l`` (learner decisions) and ``t`` (seconds since reset) for the tables whose episode ended, masked by
  ``infos["_episode"]`` (the layout of Gymnasium's ``RecordEpisodeStatistics``).
- Table seeds: the k-th table dealt after ``reset(seed=s)`` gets the seed ``hash(s, k)`` (:func:`envs.core.rng.
  hash_u64`; for each ``k`` a one-to-one map of all 64 bits of ``s``, so two env seeds never share a table seed at
  the same ``k``); ``reset()`` without a seed continues the counter of the last seed (fresh entropy before any).
  A deal that ends before the learner has a decision teaches nothing: it is dealt again and counted in
  ``skipped_deals``.
- Opponents come from a pool (``set_opponents(agents, weights)``): each opponent seat of a newly dealt table draws
  one agent of the pool with probability proportional to its weight (from the table's seed), so one table can mix,
  e.g., two heuristics and a frozen snapshot of the learner. With ``whole_table=q`` a newly dealt table instead
  seats one drawn agent at every opponent seat with probability ``q`` (a *field* of copies of one agent, as the
  duplicate evaluation's fields are). A pool change applies to tables dealt afterwards: a table already dealt plays
  its episode out with the agents it was dealt, whether or not they are still in the pool (``seated`` lists the
  agents ``seat_agent`` points at: the pool, then those of earlier pools still seated).

A CleanRL-style loop::

    env = CardVectorEnv(make_game("tripoli", 4), 256, make_agent("heuristic", game))
    obs, infos = env.reset(seed=0)
    for _ in range(1000):
        logits = policy(obs["observation"])                                   # (256, num_actions)
        logits[obs["action_mask"] == 0] = -np.inf                             # only legal actions
        obs, rewards, terminations, truncations, infos = env.step(sample(logits))

Bad arguments (``num_tables`` not a positive int, a seed outside ``0..2**64-1``, opponents without ``act`` or built for
another game or table size, weights that are not finite non-negative numbers with a positive sum, a
``reward_scale`` that is not a finite positive number, a ``whole_table`` that is not a number in ``[0, 1]``, actions
that are not ``num_tables`` integers of shape ``(num_tables,)``, an illegal action) raise
:class:`~envs.core.checks.ArgumentError` (or :class:`~envs.core.game.IllegalActionError`) with one line naming the
argument, and change nothing; so does using the env before ``reset`` (:class:`~envs.core.checks.ResetNeededError`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envs.core.agent import Agent, call_agent, check_agent, wants_seat_view
from envs.core.checks import (
    U64_MAX,
    ArgumentError,
    ResetNeededError,
    check_int,
    check_number,
    check_probability,
    int_array,
    show,
)
from envs.core.game import BatchedGame, BatchState, IllegalActionError
from envs.core.rng import hash_u64, uniform_ints
from envs.seatview import SeatViews

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


class CardVectorEnv(VectorEnv):
    """``num_tables`` tables of ``game`` with one learner seat each, as a Gymnasium ``VectorEnv``; see the module
    docstring. ``autoreset_mode``: ``AutoresetMode.NEXT_STEP`` (default) or ``AutoresetMode.SAME_STEP``."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        game: BatchedGame,
        num_tables: int,
        opponents: Agent | Sequence[Agent],
        weights: Sequence[float] | None = None,
        reward_scale: float = 1.0,
        whole_table: float = 0.0,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    ) -> None:
        if not isinstance(game, BatchedGame):
            raise ArgumentError(f"game must be a game core (envs.registry.make_game), got {show(game)}")
        modes = {m.value: m for m in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)}
        mode = autoreset_mode.value if isinstance(autoreset_mode, AutoresetMode) else autoreset_mode
        if not isinstance(mode, str) or mode not in modes:
            raise ArgumentError(f"autoreset_mode must be AutoresetMode.NEXT_STEP or AutoresetMode.SAME_STEP, got "
                                f"{show(autoreset_mode)}")
        self.game = game
        self.num_envs = check_int(num_tables, "num_tables", low=1)
        self.reward_scale = check_number(reward_scale, "reward_scale", positive=True)
        self.metadata = {**type(self).metadata, "autoreset_mode": modes[mode]}
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, shape=(game.observation_size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(game.num_actions,), dtype=np.int8),
        })
        self.single_action_space = spaces.Discrete(game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.state: BatchState | None = None
        self.seated: list[Agent] = []
        """The agents ``seat_agent`` points at: the pool first (in its order), then agents of earlier pools that a
        table dealt before the last pool change still seats."""
        self.set_opponents(opponents, weights, whole_table)
        self.skipped_deals = 0
        self.episodes = 0
        self._views: SeatViews | None = None
        """The seat views of the opponent seats whose agent wants them (:mod:`envs.seatview`), else ``None``."""
        self._seed: int | None = None
        self._counter = 0

    # ----- opponents -----------------------------------------------------------------------------------------------
    def set_opponents(self, opponents: Agent | Sequence[Agent], weights: Sequence[float] | None = None,
                      whole_table: float = 0.0) -> None:
        """Replace the opponent pool (applies to tables dealt from now on; tables already dealt keep their agents).

        ``opponents``: one agent or a non-empty sequence of agents built for this env's game; ``weights``: one finite
        non-negative number per agent, not all 0 (default: equal); ``whole_table``: the probability that a new table
        seats one drawn agent at all its opponent seats."""
        if isinstance(opponents, (str, bytes)):
            raise ArgumentError(f"opponents must be an agent or a list of agents (agents.registry.make_agent builds "
                                f"one from a name), got {show(opponents)}")
        whole = check_probability(whole_table, "whole_table")
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
        self.whole_table = whole
        self.weights = w / w.sum()
        self._cum_weights = np.cumsum(self.weights)
        self._seat_pool()

    def _seat_pool(self) -> None:
        """Make ``seated`` the pool followed by the agents of earlier pools still playing at a table (an opponent
        seat of a dealt table whose episode goes on), and renumber ``seat_agent`` to match."""
        if self.state is None:  # no table dealt yet (or the env was closed): reset draws every seat anew
            self.seated = list(self.opponents)
            return
        playing = np.ones(self.seat_agent.shape, bool)
        playing[np.arange(self.num_envs), self.learner] = False
        playing[self.needs_reset | self.state.done] = False
        needed = set(np.unique(self.seat_agent[playing]).tolist())
        seated = list(self.opponents)
        renumber = np.zeros(len(self.seated), np.int64)  # old index -> new (0 for an agent no table needs)
        for old, agent in enumerate(self.seated):
            new = next((i for i, a in enumerate(seated) if a is agent), None)
            if new is None and old in needed:
                new = len(seated)
                seated.append(agent)
            renumber[old] = 0 if new is None else new
        self.seat_agent = renumber[self.seat_agent]
        self.seated = seated

    # ----- Gymnasium VectorEnv interface ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None,
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal every table afresh: ``seed`` (an int ``0..2**64-1``) starts the table-seed counter at ``hash(seed,
        0)``; ``None`` continues the last seed's counter (fresh entropy before any seed). No options are read."""
        if options is not None and not (isinstance(options, Mapping) and not options):
            raise ArgumentError(f"options: this env reads no reset options, got {show(options)}")
        if seed is not None:
            self._seed = check_int(seed, "seed", 0, U64_MAX, allowed="None or an integer 0..2**64-1")
            self._counter = 0
        elif self._seed is None:
            self._seed = int(np.random.SeedSequence().entropy % 2**64)
        b = self.num_envs
        self._rng = np.random.default_rng([self._seed, self._counter])
        self.state = self.game.init(self._next_seeds(b))
        self.learner = np.zeros(b, np.int64)
        self.seat_agent = np.zeros((b, self.game.num_players), np.int64)
        self.pending = np.zeros(b)  # learner's chips not yet handed out as a reward
        self.ep_return = np.zeros(b)
        self.ep_length = np.zeros(b, np.int64)
        self.needs_reset = np.zeros(b, bool)  # NEXT_STEP: tables whose episode ended on the last step
        self.skipped_deals = 0
        self.episodes = 0
        self._t0 = time.perf_counter()
        self._begin(np.arange(b))
        return self._observation(), {}

    def step(self, actions: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray,
                                                 dict[str, Any]]:
        """One learner decision at every table (the tables dealt again under ``NEXT_STEP`` ignore theirs)."""
        self._need_state("step()")
        acts = self.check_actions(actions)
        s, b = self.state, self.num_envs
        playing = np.flatnonzero(~self.needs_reset)
        try:
            self.game.step(s, acts, tables=playing)  # every playing table waits on its learner here
        except IllegalActionError as e:
            raise IllegalActionError(f"actions: {e}") from None
        self._record(playing, self.learner[playing], acts[playing])
        starting = np.flatnonzero(self.needs_reset)
        if starting.size:
            self._deal(starting)
            self.needs_reset[starting] = False
        self.ep_length[playing] += 1
        self.pending[playing] += s.rewards[playing, self.learner[playing]]
        self._play_opponents(playing)
        rewards = np.zeros(b)
        rewards[playing] = self.pending[playing]
        self.ep_return[playing] += rewards[playing]
        self.pending[playing] = 0.0
        ended = playing[s.done[playing]]
        terminations, truncations = np.zeros(b, bool), np.zeros(b, bool)
        terminations[ended] = s.terminated[ended]
        truncations[ended] = s.truncated[ended] & ~s.terminated[ended]
        infos: dict[str, Any] = {}
        if ended.size:
            mask = np.zeros(b, bool)
            mask[ended] = True
            elapsed = round(time.perf_counter() - self._t0, 6)
            infos["episode"] = {"r": np.where(mask, self.ep_return, 0.0), "l": np.where(mask, self.ep_length, 0),
                                "t": np.where(mask, elapsed, 0.0)}
            infos["_episode"] = mask
            self.episodes += ended.size
            if self.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP:
                final = self._observation(ended)
                final_obs = np.full(b, None, dtype=object)
                for j, t in enumerate(ended.tolist()):
                    final_obs[t] = {key: value[j] for key, value in final.items()}
                infos["final_obs"], infos["_final_obs"] = final_obs, mask
                self._deal(ended)
            else:
                self.needs_reset[ended] = True
        return (self._observation(), (rewards * self.reward_scale).astype(np.float32), terminations, truncations,
                infos)

    def check_actions(self, actions: Any) -> np.ndarray:
        """``actions`` as an integer array of shape ``(num_tables,)`` (one action id per table), or
        :class:`~envs.core.checks.ArgumentError`; whether each action is legal is :meth:`step`'s to check."""
        allowed = f"{self.num_envs} integer action ids (one per table: shape ({self.num_envs},))"
        acts = int_array(actions, "actions", allowed)
        if acts.shape != (self.num_envs,):
            raise ArgumentError(f"actions must be {allowed}, got shape {acts.shape}")
        return acts

    def action_masks(self) -> np.ndarray:
        """``(num_tables, num_actions)`` bool: the learner's legal actions at every table (every action at a table
        that ended on the last step and is dealt again on the next: its action is ignored)."""
        self._need_state("action_masks()")
        mask = self.state.legal_action_mask.copy()
        mask[self.needs_reset] = True
        return mask

    def close_extras(self, **kwargs: Any) -> None:
        self.state = None

    # ----- tables --------------------------------------------------------------------------------------------------
    def _need_state(self, what: str) -> None:
        """Refuse ``what`` before the first :meth:`reset` (or after :meth:`close`)."""
        if self.state is None:
            raise ResetNeededError(f"call reset() before {what}")

    def _observation(self, idx: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """The learners' observations and masks at tables ``idx`` (default every table)."""
        if idx is None:
            obs = self.game.observe(self.state, self.learner)
            return {"observation": obs, "action_mask": self.action_masks().astype(np.int8)}
        sub = self.state.take(idx)
        return {"observation": self.game.observe(sub, self.learner[idx]),
                "action_mask": sub.legal_action_mask.astype(np.int8)}

    def _next_seeds(self, k: int) -> np.ndarray:
        counters = np.arange(self._counter, self._counter + k, dtype=np.uint64)
        self._counter += k
        return hash_u64(np.uint64(self._seed), STREAM_TABLE_SEED, counters)

    def _deal(self, idx: np.ndarray) -> None:
        """Deal new tables at ``idx`` and play them to the learner's first decision."""
        self.game.redeal(self.state, idx, self._next_seeds(idx.size))
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
            self._track(idx)
            self._play_opponents(idx)
            idx = idx[s.done[idx]]
            if not idx.size:
                if len(self.seated) > len(self.opponents):  # agents of an earlier pool: drop those no table needs
                    self._seat_pool()
                return
            self.skipped_deals += idx.size
            self.game.redeal(self.state, idx, self._next_seeds(idx.size))
        raise RuntimeError(f"{self.game.name}: {MAX_REDEALS} deals in a row ended before the learner's first decision")

    def _track(self, idx: np.ndarray) -> None:
        """Start the seat views of the freshly dealt tables ``idx`` for the opponent seats whose agent wants them."""
        wanting = [wants_seat_view(a) for a in self.seated]
        if not any(wanting) and self._views is None:
            return
        if self._views is None:
            self._views = SeatViews(self.game)
        n = self.game.num_players
        seats = [[s for s in range(n) if s != self.learner[t] and wanting[self.seat_agent[t, s]]] for t in idx.tolist()]
        self._views.begin(self.state, idx, idx, seats)

    def _record(self, tables: np.ndarray, actors: np.ndarray, actions: np.ndarray) -> None:
        """Add a step to the seat views of ``tables`` (where ``actors`` took ``actions``)."""
        if self._views is not None:
            self._views.record(self.state, tables, tables, actors, actions)

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
                rows = np.flatnonzero(who == k) if len(self.seated) > 1 else np.arange(live.size)
                views = None
                if self._views is not None and wants_seat_view(self.seated[k]):
                    views = self._views.views(live[rows], seats[rows])
                actions[rows] = call_agent(self.seated[k], obs[rows], mask[rows], self._rng, views)
            try:
                self.game.step(s, actions, tables=live)
            except IllegalActionError as e:
                raise IllegalActionError(f"an opponent agent chose an illegal action: {e}") from e
            self._record(live, seats, actions)
            self.pending[live] += s.rewards[live, self.learner[live]]
            idx = live
