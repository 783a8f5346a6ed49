"""Agents that play together (agents/together.py): a training pool's members called in groups give each row its own
member's action; only members that differ in parameters alone are grouped."""

from __future__ import annotations

import numpy as np
import pytest

from agents.styles import Careless
from agents.together import act_each, groups_of
from envs.core.agent import call_agent
from envs.core.game import sample_legal
from envs.registry import make_game
from training.opponent_pool import parse_opponents

POOLS = {"tripoli": "zoo=6,styles:8=3,careless-styles:8=3,careless-bots:5=3",
         "triolet": "zoo=6,careless-styles:8=3,careless-bots:5=3",
         "flipflop": "zoo=6,styles:8=3,careless-styles:8=3,careless-bots:5=3"}


def decision_points(game, tables: int, seed: int):
    """Observations and masks of the acting seats at tables played by random moves for a few different lengths."""
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    state = game.init(seed, tables)
    for _ in range(40):
        live = np.flatnonzero(~state.done)
        if not live.size:
            break
        sub = state.take(live)
        obs.append(game.observe(sub, sub.current_player))
        masks.append(sub.legal_action_mask.copy())
        game.step(state, sample_legal(state.legal_action_mask, rng))
    return np.concatenate(obs), np.concatenate(masks)


def without_chance(agent):
    """The agent with no random moves (a careless player's base), so that its actions can be compared row by row."""
    return agent.base if isinstance(agent, Careless) else agent


@pytest.mark.parametrize("name", sorted(POOLS))
def test_every_row_gets_its_own_members_action(name):
    game = make_game(name, num_players=4)
    members = [m.agent for m in parse_opponents(POOLS[name], game) if m.name != "random"]
    careful = [without_chance(a) for a in members]
    obs, mask = decision_points(game, 64, seed=3)
    who = np.random.default_rng(0).integers(len(careful), size=len(obs))
    together = act_each(careful, groups_of(careful), who, obs, mask, np.random.default_rng(1))
    alone = np.zeros(len(obs), np.int64)
    for k in range(len(careful)):
        rows = np.flatnonzero(who == k)
        alone[rows] = call_agent(careful[k], obs[rows], mask[rows], np.random.default_rng(1))
    np.testing.assert_array_equal(together, alone)
    # the careless members (random moves at their own share) and random: legal actions, in groups as well
    played = act_each(members, groups_of(members), who, obs, mask, np.random.default_rng(2))
    assert mask[np.arange(len(obs)), played].all()


def test_the_tripoli_styles_play_in_few_groups_and_only_alike_code_together():
    game = make_game("tripoli", num_players=4)
    pool = parse_opponents(POOLS["tripoli"], game)
    groups = groups_of([m.agent for m in pool])
    assert len(groups) == 7  # heuristic-, longsuit- and lowlead-based, their careless versions, random
    for group in groups:
        leads = {getattr(type(without_chance(pool[k].agent)), "_lead_score", None) for k in group}
        assert len(leads) == 1, [pool[k].name for k in group]


def test_careless_players_in_a_group_make_random_moves_at_their_own_shares():
    game = make_game("tripoli", num_players=4)
    base = parse_opponents("heuristic", game)[0].agent
    players = [Careless(game, base, 0.0, "never"), Careless(game, base, 0.5, "half")]
    obs, mask = decision_points(game, 256, seed=4)
    choices = mask.sum(axis=1) > 1
    obs, mask = obs[choices], mask[choices]
    who = np.arange(len(obs)) % 2
    played = act_each(players, groups_of(players), who, obs, mask, np.random.default_rng(5))
    own = base.act(obs, mask, np.random.default_rng(5))
    assert (played[who == 0] == own[who == 0]).all()
    departed = (played[who == 1] != own[who == 1]).mean()
    assert 0.25 < departed < 0.5  # half of its moves random; a random move is sometimes the heuristic's own


def test_snapshots_of_a_training_run_play_together_each_with_its_own_network():
    from agents.ppo import PPOAgent
    from training.actor_critic import new_policy

    game = make_game("tripoli", num_players=4)
    snapshots = [PPOAgent.snapshot(game, new_policy(game, 32, (16,), seed=k, advisor="heuristic"), deterministic=True)
                 for k in range(3)]
    assert len(groups_of(snapshots)) == 1
    obs, mask = decision_points(game, 64, seed=6)
    who = np.random.default_rng(0).integers(3, size=len(obs))
    together = act_each(snapshots, groups_of(snapshots), who, obs, mask, np.random.default_rng(1))
    for k, agent in enumerate(snapshots):
        rows = who == k
        np.testing.assert_array_equal(together[rows], agent.act(obs[rows], mask[rows], np.random.default_rng(1)))
