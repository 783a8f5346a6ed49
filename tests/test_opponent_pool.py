"""The opponent pool of training (training/opponent_pool.py), whole-table pool draws of the vector env, and the
field-by-field advantage of training/evaluate.py: hand-computed weights and results, tiny and deterministic."""

from __future__ import annotations

import numpy as np
import pytest

from agents.heldout import heldout_specs
from agents.registry import make_agent
from envs.core.agent import AgentBase
from envs.registry import make_game
from training.closing import closing_fields
from training.evaluate import EvalResult, FieldEvaluator, fields_table, paired_advantage
from training.opponent_pool import OpponentPool, PoolMember, league_weight, parse_opponents
from training.sb3_vec_env import CardVecEnv


class _Tagged(AgentBase):
    """The first legal action; tells its instances apart by ``tag``."""

    def __init__(self, game, tag: str) -> None:
        super().__init__(game)
        self.name = tag

    def act(self, obs, mask, rng):
        return mask.argmax(axis=1)


def _members(game, **weights):
    return [PoolMember(name, _Tagged(game, name), w) for name, w in weights.items()]


def test_parse_opponents_names_weights_and_refusals():
    game = make_game("tripoli")
    members = parse_opponents("heuristic=3, random, tight=0.5", game)
    assert [(m.name, m.agent.name, m.weight) for m in members] == [
        ("heuristic", "heuristic", 3.0), ("random", "random", 1.0), ("tight", "tight", 0.5)]
    mixed = parse_opponents("learner=4, heuristic=3, snapshots=2, random", game)  # the learner's seats are no member
    assert [(m.name, m.weight) for m in mixed] == [("heuristic", 3.0), ("random", 1.0)]
    for spec, message in (("heuristic=x", "must be a number"), ("heuristic=-1", "non-negative"),
                          ("heuristic=inf", "finite"), ("nobody", "unknown agent"),
                          ("heuristic,heuristic=2", "given twice"), ("heuristic=0", "positive weight"),
                          ("", "fixed agent with a positive weight"),
                          ("learner=2,snapshots=1", "fixed agent with a positive weight")):
        with pytest.raises(ValueError, match=message):
            parse_opponents(spec, game)


def test_priors_give_the_snapshots_their_share_and_drop_the_oldest():
    game = make_game("tripoli")
    pool = OpponentPool(_members(game, heuristic=3, random=1), selfplay_share=0.5, max_snapshots=2)
    assert pool.priors() == [0.75, 0.25]  # no snapshot yet: the fixed agents share every seat
    for k in range(3):
        pool.add_snapshot(f"self@{k}", _Tagged(game, f"s{k}"))
    assert [m.name for m in pool.members] == ["heuristic", "random", "self@1", "self@2"]
    assert pool.priors() == [0.375, 0.125, 0.25, 0.25]
    assert pool.weights() == pytest.approx([p * 0.25 / 0.25 for p in pool.priors()])  # all unmeasured: 0.25 each


def test_league_weights_favour_the_fields_the_learner_handles_worst():
    game = make_game("tripoli")
    pool = OpponentPool(_members(game, heuristic=3, random=1))
    assert pool.weights() == pytest.approx([0.75, 0.25])  # unmeasured members count as ahead = 0.5
    pool.set_ahead({"heuristic": 0.5, "random": 0.9})
    # factors (1 - 0.5)^2 = 0.25 and max((1 - 0.9)^2, 0.05) = 0.05: 0.75 * 0.25 = 0.1875 and 0.25 * 0.05 = 0.0125
    assert pool.weights() == pytest.approx([0.1875 / 0.2, 0.0125 / 0.2])
    pool.set_ahead({"random": 0.2})  # now behind against random: (0.8)^2 = 0.64 -> 0.16 against 0.1875
    assert pool.weights() == pytest.approx([0.1875 / 0.3475, 0.16 / 0.3475])
    assert league_weight(1.0) == 0.05 and league_weight(0.0) == 1.0
    with pytest.raises(ValueError, match="selfplay_share"):
        OpponentPool(_members(game, heuristic=1), selfplay_share=1.5)


def test_snapshots_share_their_seats_equally_and_count_as_unmeasured():
    game = make_game("tripoli")
    pool = OpponentPool(_members(game, heuristic=1, random=1), selfplay_share=0.2)
    pool.set_ahead({"heuristic": 0.75, "random": 0.45})
    pool.add_snapshot("self@10", _Tagged(game, "s"))
    # priors 0.4, 0.4, 0.2; factors 0.0625, 0.3025, 0.25
    w = [0.4 * 0.0625, 0.4 * 0.3025, 0.2 * 0.25]
    assert pool.weights() == pytest.approx([x / sum(w) for x in w])


def test_whole_table_draws_seat_one_agent_at_every_opponent_seat():
    game = make_game("tripoli", num_players=4)
    agents = [_Tagged(game, "a"), _Tagged(game, "b"), _Tagged(game, "c")]

    def opponents(whole_table: float) -> np.ndarray:
        env = CardVecEnv(game, 256, agents, seed=4, whole_table=whole_table)
        env.reset()
        return env.seat_agent[np.arange(256)[:, None], (env.learner[:, None] + np.arange(1, 4)) % 4]

    seat_by_seat, whole, half = opponents(0.0), opponents(1.0), opponents(0.5)
    def uniform(drawn: np.ndarray) -> np.ndarray:
        return drawn.min(axis=1) == drawn.max(axis=1)

    assert uniform(whole).all() and set(np.unique(whole)) == {0, 1, 2}
    assert uniform(seat_by_seat).mean() < 0.25  # (1/3)^2 = 11% of tables by chance
    assert 0.35 < uniform(half).mean() < 0.75  # half the tables, plus the chance ones
    np.testing.assert_array_equal(half, opponents(0.5))  # drawn from the table seeds: the same run again
    env = CardVecEnv(game, 4, agents, seed=0)
    with pytest.raises(ValueError, match="whole_table"):
        env.set_opponents(agents, whole_table=1.5)


def _result(returns: list[list[float]], seed: int = 0) -> EvalResult:
    r = np.array(returns, dtype=float)
    return EvalResult(game="tripoli", num_players=2, options={}, agents=["x", "y"], seed=seed, batch_size=2,
                      group_returns=r, group_wins=np.zeros_like(r), decisions=0, seconds=0.0)


def test_paired_advantage_by_hand():
    candidate = _result([[3.0, 0], [1.0, 0], [2.0, 0], [0.0, 0]])
    reference = _result([[1.0, 0], [1.0, 0], [3.0, 0], [-2.0, 0]])
    mean, half, ahead, won = paired_advantage(candidate, reference)
    diff = np.array([2.0, 0.0, -1.0, 2.0])  # mean 0.75, sd sqrt(2.25) = 1.5
    assert mean == pytest.approx(0.75) and half == pytest.approx(1.959963984540054 * 1.5 / 2)
    assert ahead == pytest.approx(4 / 5) and diff.mean() == mean  # +2 +2 of the differences 2 + 1 + 2
    assert won == pytest.approx(2 / 3)  # better in 2 of the 3 groups that differ
    # many small wins and one large loss: ahead of the reference in deals, behind it in chips
    mean, _, ahead, won = paired_advantage(_result([[1.0, 0]] * 3 + [[-5.0, 0]]), _result([[0.0, 0]] * 4))
    assert mean < 0 and ahead == pytest.approx(3 / 8) and won == pytest.approx(3 / 4)
    with pytest.raises(ValueError, match="same deals"):
        paired_advantage(candidate, _result([[0.0, 0]] * 4, seed=1))


def test_the_reference_has_no_advantage_over_itself_in_any_field():
    game = make_game("triolet", num_players=3)
    heuristic = make_agent("heuristic", game)
    evaluator = FieldEvaluator(game, heuristic, deals=60, seed=3)
    fields = {name: make_agent(name, game) for name in ("random", "heuristic", "saver")}
    rows = evaluator(make_agent("heuristic", game), fields, "copy")
    assert [r.field for r in rows] == ["random", "heuristic", "saver"]
    for r in rows:
        assert r.advantage == 0 and r.ci95 == 0 and r.ahead == r.won == 0.5 and not r.beats and r.deals == 60
        assert r.candidate == r.reference and r.label == f"{r.field}@v{fields[r.field].version}"
    assert evaluator.baseline("random", fields["random"]) is evaluator.baseline("random", make_agent("random", game))
    rows = evaluator(make_agent("random", game), {"heuristic": heuristic}, "random")
    assert rows[0].advantage + rows[0].ci95 < 0 and rows[0].ahead < 0.5  # random is worse than the heuristic
    text = fields_table(rows, "reward", "random", notes={"heuristic": "imitated"})
    assert "loses" in text and "imitated" in text and "beats the heuristic in 0 of 1 fields" in text


def test_closing_fields_are_random_the_zoo_and_the_held_out_styles():
    game = make_game("tripoli")
    fields = closing_fields(game)
    assert list(fields)[:6] == ["random", "heuristic", "tight", "aggressive", "longsuit", "lowlead"]
    assert [name for name in fields if name.startswith("heldout:")] == [f"heldout:{name}" for name in
                                                                        heldout_specs("tripoli")]
    assert len(fields) == 6 + len(heldout_specs("tripoli"))


def test_the_pool_hands_the_rollout_its_agents_weights_and_share_once_a_member_may_take_a_seat():
    game = make_game("tripoli")
    assert OpponentPool([], 0.0, opponent_share=0.0).seating() == ([], None, 0.0)  # pure self-play
    alone = OpponentPool([], 1.0, max_snapshots=2, opponent_share=0.25)  # learner=3,snapshots=1
    assert alone.seating() == ([], None, 0.0)  # no snapshot yet: every seat the learner's
    alone.add_snapshot("self@1", _Tagged(game, "s1"))
    alone.add_snapshot("self@2", _Tagged(game, "s2"))
    agents, weights, share = alone.seating()
    assert [a.name for a in agents] == ["s1", "s2"] and weights == [0.5, 0.5] and share == 0.25
    mixed = OpponentPool(_members(game, heuristic=3, random=1), 0.2, opponent_share=0.5)
    agents, weights, share = mixed.seating()
    assert [a.name for a in agents] == ["heuristic", "random"] and weights == [0.75, 0.25] and share == 0.5
