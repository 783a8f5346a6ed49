"""The recipes (``recipes/*.toml``) and the Makefile targets that run them: every recipe loads into settings the
trainer can run, all share one shape, the defaults are the recommended recipe's, and ``make train``,
``make train-triolet`` and ``make train-flipflop`` each run one."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from envs.registry import make_game
from training.closing import closing_fields
from training.config import TrainConfig, load_recipe
from training.opponent_pool import parse_opponents

ROOT = Path(__file__).resolve().parent.parent
RECIPES = sorted((ROOT / "recipes").glob("*.toml"))


def test_there_is_a_recipe_per_game_and_the_shipped_agents_strong_ones():
    assert {p.stem for p in RECIPES} >= {"tripoli", "triolet", "flipflop", "tripoli-strong", "flipflop-strong"}


@pytest.mark.parametrize("path", RECIPES, ids=lambda p: p.stem)
def test_every_recipe_loads_into_runnable_settings(path: Path):
    cfg = load_recipe(path)
    assert cfg.game == path.stem.split("-")[0] and cfg.out == f"runs/{path.stem}"
    game = make_game(cfg.game, num_players=cfg.players)
    assert parse_opponents(cfg.opponents, game) and closing_fields(game)
    assert cfg.minutes == 0  # a budget in learner decisions: the same agent on any machine


def test_every_recipe_has_the_same_shape():
    shapes = {p.stem: (sorted(k for k in tomllib.loads(p.read_text()) if k != "ppo"),
                       sorted(tomllib.loads(p.read_text()).get("ppo", {}))) for p in RECIPES}
    first = next(iter(shapes.values()))
    assert all(shape == first for shape in shapes.values()), shapes


def test_the_defaults_are_the_recommended_recipe():
    assert load_recipe(ROOT / "recipes" / "tripoli.toml") == TrainConfig(out="runs/tripoli")


@pytest.mark.parametrize(("target", "recipe"), [("train", "tripoli"), ("train-triolet", "triolet"),
                                                ("train-flipflop", "flipflop")])
def test_each_make_target_runs_its_recipe(target: str, recipe: str):
    text = (ROOT / "Makefile").read_text()
    match = re.search(rf"^{re.escape(target)}: install\n\t(.+)$", text, flags=re.M)
    assert match and match.group(1) == f"$(VENV)/bin/cardgym train --recipe recipes/{recipe}.toml"
