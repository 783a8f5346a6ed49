"""``--background-eval`` (:mod:`training.background_eval`): evaluations played in a second process give the rows an
evaluation in this process gives, digit for digit; a training run with it records the same curve points and closes
on the same table."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch as th

from agents.ppo import PPOAgent
from agents.registry import make_agent
from envs.core.game import sample_legal
from envs.registry import make_game
from training.background_eval import BackgroundEvaluator, FrozenPolicy
from training.evaluate import FieldEvaluator
from training.train import closing_evaluation, train
from training.train_config import TrainConfig

th.set_num_threads(1)

TINY = dict(tables=8, n_steps=8, batch_size=32, n_epochs=1, features_dim=32, net_arch=(16,), time_budget=0,
            eval_every=64, eval_deals=8, final_deals=8, checkpoint_every=1000, imitate=0, progress=False)
LEAGUE = dict(opponents="heuristic=2,random=1,styles:2=1", league=True, selfplay=True, selfplay_every=128,
              total_steps=256, fields="random,tight", snapshot_fields=2, anchor="heuristic", hints=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The same tiny league run, evaluating here and in the background."""
    out = tmp_path_factory.mktemp("background")
    return {background: train(TrainConfig(**TINY, **LEAGUE, out=str(out / str(background)),
                                           background_eval=background))
            for background in (False, True)}


def _same_rows(here, there):
    assert [r.field for r in here] == [r.field for r in there]
    for a, b in zip(here, there, strict=True):
        assert dataclasses.asdict(a) == dataclasses.asdict(b)


def test_a_frozen_policy_plays_as_the_policy_it_was_taken_from(runs):
    game = make_game("tripoli")
    agent = PPOAgent(game, runs[False]["model"])
    thawed = FrozenPolicy.of(agent).agent(game)
    state, rng = game.init(3, batch_size=32), np.random.default_rng(3)
    for _ in range(10):  # into the deal: betting and play decisions
        game.step(state, sample_legal(state.legal_action_mask, rng), tables=~state.done)
    live = state.take(np.flatnonzero(~state.done))
    obs, mask = game.observe(live, live.current_player), live.legal_action_mask
    np.testing.assert_array_equal(thawed.logits(obs, mask), agent.logits(obs, mask))  # an anchored policy with hints
    assert thawed.name == agent.name and thawed.deterministic


def test_the_evaluation_process_gives_the_rows_of_an_evaluation_here(runs):
    game = make_game("tripoli")
    candidate = PPOAgent(game, runs[False]["model"])
    snapshot = PPOAgent(game, runs[True]["model"])  # another policy, as a self-play snapshot field
    snapshot.name = "ppo-snapshot"
    sources = {"heuristic": "heuristic", "style:1": "style:1", "careless-bot:2": "careless-bot:2", "self@64": snapshot}
    here = FieldEvaluator(game, make_agent("heuristic", game), 40, 7)
    expected = [here.field(candidate, name, make_agent(s, game) if isinstance(s, str) else s, "ppo")
                for name, s in sources.items()]
    background = BackgroundEvaluator(game)
    try:
        for _ in range(2):  # the second time from the worker's caches (its heuristic results and snapshots)
            got = background.submit(candidate, sources, 40, 7).result()
            _same_rows([row for row, _ in expected], [row for row, _ in got])
            for (_, a), (_, b) in zip(expected, got, strict=True):
                np.testing.assert_array_equal(a.group_returns, b.group_returns)
                assert a.labels == b.labels and a.agents == b.agents
    finally:
        background.close()


def test_a_run_with_background_evaluations_records_every_point_in_order(runs):
    here, there = runs[False]["curve"], runs[True]["curve"]
    assert [p["steps"] for p in here] == [p["steps"] for p in there] == [0, 64, 128, 192, 256, 256]
    # the policy PPO starts from is the same in both runs: so are its results in every field
    assert here[0]["fields"] == there[0]["fields"]
    # the league weights follow each run's own evaluations
    for point in there:
        assert set(point["weights"]) >= {"heuristic", "random", "style:0", "style:1"}
    assert runs[True]["opponent_weights"] == pytest.approx(list(there[-1]["weights"].values()), abs=1e-4)
    assert [f["field"] for f in runs[True]["fields"]] == ["random", "tight", "self@0", "self@128"]


def test_the_closing_table_split_between_two_processes_is_the_same_table(runs):
    game = make_game("tripoli")
    cfg = TrainConfig(**{**TINY, **LEAGUE, "fields": "zoo", "final_deals": 24})
    agent = PPOAgent(game, runs[True]["model"])
    history = {0: PPOAgent(game, runs[False]["model"]), 128: agent}
    for snapshot in history.values():
        snapshot.name = "ppo-snapshot"
    here = closing_evaluation(cfg, game, agent, history, ["heuristic", "random"], None)
    background = BackgroundEvaluator(game)
    try:
        split = closing_evaluation(cfg, game, agent, history, ["heuristic", "random"], None, background)
    finally:
        background.close()
    _same_rows(here[0], split[0])
    assert list(here[1]) == list(split[1]) and here[2] == split[2]
    for name in here[1]:
        np.testing.assert_array_equal(here[1][name].group_returns, split[1][name].group_returns)
