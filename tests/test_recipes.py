"""The recipes (``recipes/*.toml``) and the Makefile targets that run them: every recipe loads into settings the
trainer can run, all share one shape, the defaults are the recommended recipe's, ``make train-triolet`` and
``make train-flipflop`` each run one, and ``make train`` runs Tripoli's then distils the model it wrote
(``recipes/distill/tripoli.toml``)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from envs.registry import make_game
from training.closing import closing_fields
from training.config import TrainConfig, load_recipe
from training.distill_config import DistillConfig
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


def make_target(target: str) -> list[str]:
    """The command lines of a Makefile target."""
    match = re.search(rf"^{re.escape(target)}: install\n((?:\t.+\n)+)", (ROOT / "Makefile").read_text(), flags=re.M)
    assert match, target
    return [line.strip() for line in match.group(1).splitlines()]


@pytest.mark.parametrize(("target", "recipe"), [("train-triolet", "triolet"), ("train-flipflop", "flipflop")])
def test_each_make_target_runs_its_recipe(target: str, recipe: str):
    assert make_target(target) == [f"$(VENV)/bin/cardgym train --recipe recipes/{recipe}.toml"]


def test_make_train_trains_by_the_recipe_then_distills_the_model_it_wrote():
    assert make_target("train") == ["$(VENV)/bin/cardgym train --recipe recipes/tripoli.toml --final-deals 0",
                                    "$(VENV)/bin/cardgym distill --recipe recipes/distill/tripoli.toml"]
    trained = load_recipe(ROOT / "recipes" / "tripoli.toml")
    distill = load_recipe(ROOT / "recipes" / "distill" / "tripoli.toml", DistillConfig)
    assert distill.student == f"{trained.out}/model.zip" and distill.out.startswith(f"{trained.out}/")
    assert distill.game == trained.game and distill.seed == trained.seed and distill.reference == "heuristic"
    assert distill.final_deals > 0 and distill.rounds == 1


@pytest.mark.parametrize("path", sorted((ROOT / "recipes" / "distill").glob("*.toml")), ids=lambda p: p.stem)
def test_every_distill_recipe_loads_and_its_fields_build(path: Path):
    """Every field builds but a model file, which can only be the student (a train recipe's model, made first)."""
    cfg = load_recipe(path, DistillConfig)
    game = make_game(cfg.game, num_players=cfg.players)
    models = [spec for spec in cfg.opponents.split(",") if spec.startswith("ppo:")]
    assert all(spec == f"ppo:{cfg.student}" for spec in models)
    assert cfg.student in {f"{load_recipe(r).out}/model.zip" for r in RECIPES}
    bots = ",".join(spec for spec in cfg.opponents.split(",") if spec not in models)
    assert path.stem.split("-")[0] == cfg.game and parse_opponents(bots, game)
