"""A training run's periodic evaluations in a second process, while PPO goes on (``cardgym train --background-eval``).

In a league run the periodic evaluation (the learner against every member of the pool, ``eval_deals`` deals each) takes
about as long as the training between two evaluations: on a 2-core machine, where PPO uses one core, a second process
can play it on the other, and half of the closing table while the training process plays the other half.
:class:`BackgroundEvaluator` sends the learner's weights, the field agents' specs and the weights of the self-play
snapshots among them to one worker process (``forkserver``, else ``spawn``; nothing is
pickled to or from a file) and gets the :class:`~training.evaluate.FieldAdvantage` rows back. A worker builds the
same agents from the same specs and plays the same duplicate deals with the same per-table random streams
(:mod:`training.table_random`), so its rows equal an in-process evaluation's, digit for digit.

What changes is *when* they arrive: the training callback (:mod:`training.train`) sends evaluation k at step k and
collects it at the next evaluation, so the league weights it sets (and the curve point it records) come one
evaluation later than in-process; they still change at fixed step counts, so a seeded run stays reproducible up to
where its time budget cuts it."""

from __future__ import annotations

import dataclasses
import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

import torch as th

from agents.ppo import PPOAgent, build_policy, policy_settings
from envs.core.agent import Agent
from envs.core.game import BatchedGame
from training.evaluate import EvalResult, FieldAdvantage, FieldEvaluator
from training.executors import TableSpec, _build_agent

SNAPSHOT_SOURCE = "<a snapshot sent to the evaluation process>"
"""What a message about a frozen policy names as its source (it comes from no file)."""


@dataclasses.dataclass(frozen=True)
class FrozenPolicy:
    """A policy agent as plain data a process can send to another: its name, its policy's settings (as a model file
    records them, :func:`agents.ppo.policy_settings`) and a copy of its weights."""

    name: str
    settings: dict[str, Any]
    weights: dict[str, th.Tensor]

    @classmethod
    def of(cls, agent: PPOAgent) -> FrozenPolicy:
        policy = agent.policy
        return cls(agent.name, policy_settings(policy), {k: v.detach().clone() for k, v in policy.state_dict().items()})

    def agent(self, game: BatchedGame) -> PPOAgent:
        """The deterministic agent of this policy (as the training's evaluations play it)."""
        policy = build_policy(self.settings, game, SNAPSHOT_SOURCE)
        policy.load_state_dict(self.weights)
        agent = PPOAgent(game, policy=policy, deterministic=True)
        agent.name = self.name
        return agent


@dataclasses.dataclass(frozen=True)
class EvaluationTask:
    """The candidate against each field, compared with the heuristic in the same seats of the same deals."""

    table: TableSpec
    """The game (its ``agents`` are unused)."""
    deals: int
    """Duplicate deals per field."""
    seed: int
    """Seed of the deals."""
    candidate: FrozenPolicy
    """The learner's policy."""
    fields: tuple[tuple[str, str | FrozenPolicy], ...]
    """Each field's name and its agent: a spec, or a frozen policy (a self-play snapshot)."""


_EVALUATORS: dict[tuple[TableSpec, int, int], FieldEvaluator] = {}
"""The worker's evaluators, one per game, deal count and seed (each keeps the heuristic's results per field)."""
_SNAPSHOTS: dict[tuple[TableSpec, str], Agent] = {}
"""The worker's self-play snapshots, by name (a snapshot's weights never change)."""


def evaluate_fields(task: EvaluationTask) -> list[tuple[FieldAdvantage, EvalResult]]:
    """Play ``task`` (in the worker process): the candidate's advantage over the heuristic in every field and its
    tournament there (:meth:`training.evaluate.FieldEvaluator.field`)."""
    game, _ = task.table.build()
    key = (task.table, task.deals, task.seed)
    if key not in _EVALUATORS:
        reference = _build_agent(task.table.game, task.table.num_players, task.table.options, "heuristic")
        _EVALUATORS[key] = FieldEvaluator(game, reference, task.deals, task.seed)
    candidate = task.candidate.agent(game)
    out = []
    for name, source in task.fields:
        if isinstance(source, str):
            agent = _build_agent(task.table.game, task.table.num_players, task.table.options, source)
        else:
            agent = _SNAPSHOTS.setdefault((task.table, name), source.agent(game))
        out.append(_EVALUATORS[key].field(candidate, name, agent, "ppo"))
    return out


class BackgroundEvaluator:
    """Evaluations in one worker process: :meth:`submit` sends one and returns the future of its results."""

    def __init__(self, game: BatchedGame) -> None:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        self.table = TableSpec.of(game, ())
        self._pool = ProcessPoolExecutor(max_workers=1, mp_context=context)

    def submit(self, candidate: PPOAgent, fields: dict[str, str | PPOAgent], deals: int, seed: int) -> Future:
        """Send an evaluation of ``candidate`` in ``fields`` (name → agent spec, or a policy agent for a self-play
        snapshot) on ``deals`` duplicate deals from ``seed``; its future gives the ``(row, tournament)`` pairs of
        :func:`evaluate_fields`, in the order of ``fields``."""
        sent = tuple((name, agent if isinstance(agent, str) else FrozenPolicy.of(agent)) for name, agent in
                     fields.items())
        return self._pool.submit(evaluate_fields, EvaluationTask(self.table, deals, seed, FrozenPolicy.of(candidate),
                                                                 sent))

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
