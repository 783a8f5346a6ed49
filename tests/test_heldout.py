"""The held-out styles of agents/heldout.py: legal in every game, different from the bots they are built from, and
in the closing table's default fields but in no default training pool."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents.heldout import HELD_OUT, MixedZoo, NoisyHeuristic, SloppyHeuristic, heldout_specs
from agents.registry import make_agent
from agents.zoo import bot_names
from envs.core.game import sample_legal
from envs.registry import GAMES, make_game
from training.closing import closing_fields
from training.config import load_recipe
from training.opponent_pool import parse_opponents


def _decisions(name: str, tables: int = 512) -> tuple:
    """Observations and masks of many real decision points of random play."""
    game = make_game(name, 4)
    state, rng = game.init(1, batch_size=tables), np.random.default_rng(1)
    for _ in range(5):
        game.step(state, sample_legal(state.legal_action_mask, rng), tables=~state.done)
    live = ~state.done
    obs = game.observe(state, np.maximum(state.current_player, 0))
    return game, obs[live], state.legal_action_mask[live]


@pytest.mark.parametrize("name", list(GAMES))
def test_held_out_styles_play_legal_actions_unlike_their_sources(name: str) -> None:
    game, obs, mask = _decisions(name)
    choice = mask.sum(axis=1) > 1
    heuristic = make_agent("heuristic", game).act(obs, mask, np.random.default_rng(2))
    for cls in (NoisyHeuristic, SloppyHeuristic, MixedZoo):
        actions = cls(game).act(obs, mask, np.random.default_rng(2))
        assert mask[np.arange(len(actions)), actions].all()
        differs = (actions != heuristic)[choice].mean()
        assert 0.02 < differs < 0.9, (cls.__name__, differs)
    noisy = NoisyHeuristic(game).act(obs, mask, np.random.default_rng(3))
    assert (noisy != heuristic)[choice].mean() < NoisyHeuristic.epsilon  # random moves often agree
    sloppy = SloppyHeuristic(game).act(obs, mask, np.random.default_rng(3))
    assert NoisyHeuristic.epsilon < (sloppy != heuristic)[choice].mean() < SloppyHeuristic.epsilon


@pytest.mark.parametrize("name", list(GAMES))
def test_closing_table_has_held_out_fields_no_pool_names(name: str) -> None:
    game = make_game(name, 4)
    fields = closing_fields(game)
    assert [f"heldout:{k}" for k in heldout_specs(name)] == [f for f in fields if f.startswith("heldout:")]
    recipe = load_recipe(Path(__file__).resolve().parent.parent / "recipes" / f"{name}.toml")
    pool = [m.agent.name for m in parse_opponents(recipe.opponents, game)]
    assert not set(heldout_specs(name).values()) & set(pool)
    assert not set(heldout_specs(name)) & set(bot_names(name))  # never a zoo name a pool may use


@pytest.mark.parametrize("spec", sorted({s for specs in HELD_OUT.values() for s in specs.values()} - {
    "agents.heldout:NoisyHeuristic", "agents.heldout:SloppyHeuristic", "agents.heldout:MixedZoo"}))
def test_game_styles_play_legal_actions_and_change_the_results(spec: str) -> None:
    from training.evaluate import evaluate

    name = next(g for g, specs in HELD_OUT.items() if spec in specs.values())
    game, obs, mask = _decisions(name)
    style = make_agent(spec, game)
    actions = style.act(obs, mask, np.random.default_rng(2))
    assert mask[np.arange(len(actions)), actions].all()
    heuristic = make_agent("heuristic", game)
    base = evaluate(game, [heuristic] * 4, 32, seed=3)
    result = evaluate(game, [style] + [heuristic] * 3, 32, seed=3)
    assert not np.array_equal(result.group_returns, base.group_returns), spec  # a style of its own
