"""The periodic evaluation of a training run: the learner's advantage over the heuristic against each fixed member of
the opponent pool, which sets the pool's league weights (:mod:`training.opponent_pool`).

The learner plays greedily (its most probable legal action, as ``ppo:`` files play) at one seat against
``num_players - 1`` copies of the member, the heuristic in the same seats of the same duplicate deals
(:class:`training.evaluate.FieldEvaluator`, whose heuristic results are played once per member and kept). Every
evaluation uses the same deals, so successive points differ by the learner only.
"""

from __future__ import annotations

from agents.ppo import PPOAgent, frozen_copy
from agents.registry import make_agent
from envs.core.game import BatchedGame
from training.evaluate import FieldAdvantage, FieldEvaluator
from training.opponent_pool import OpponentPool

EVAL_SEED_OFFSET = 1
"""The evaluations' deals come from the run's seed plus this (apart from training's and the closing table's)."""


class PoolEvaluator:
    """Evaluates the learner against the fixed members of ``pool`` on ``deals`` duplicate deals each."""

    def __init__(self, game: BatchedGame, pool: OpponentPool, deals: int, seed: int) -> None:
        self.game, self.pool = game, pool
        self.fields = FieldEvaluator(game, make_agent("heuristic", game), deals, seed + EVAL_SEED_OFFSET)

    def __call__(self, policy) -> list[FieldAdvantage]:
        """The advantage of a greedy copy of ``policy`` against each fixed member; records each member's
        :attr:`~training.evaluate.FieldAdvantage.ahead` in the pool (its league weights)."""
        agent = PPOAgent(self.game, policy=frozen_copy(policy), deterministic=True)
        rows = self.fields(agent, {m.name: m.agent for m in self.pool.fixed}, "learner")
        self.pool.set_ahead({r.field: r.ahead for r in rows})
        return rows
