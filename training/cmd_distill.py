"""``cardgym distill``: expert iteration, a trained agent improved by its own search (:mod:`training.distill`).

    cardgym distill --recipe recipes/distill/tripoli-strong.toml     # how Tripoli's trained agent was made
    cardgym distill --recipe recipes/distill/tripoli.toml            # make train's second step
    cardgym distill --student runs/tripoli/model.zip --deals 200 --final-deals 0 --out runs/distill-small

Each round the search player, keeping the student's choice unless a candidate beats it in sampled deals, plays every
field; the student's network is then fitted to its actions. Writes OUT/model.zip (ppo:OUT/model.zip), one model per
round, the decisions, and OUT/results.json with the closing table: the student and the result against the game's
best bot (or ``--reference``) in every field. Every option is a field of
:class:`training.distill_config.DistillConfig`; an option given on the command line replaces the recipe's value.
"""

from __future__ import annotations

import argparse

from envs.core.extras import needs_extra
from training.config import load_recipe
from training.dataclass_cli import add_recipe_command, dataclass_from_args
from training.distill_config import DistillConfig


def config_from_args(args: argparse.Namespace) -> DistillConfig:
    """The run's config: the recipe's (or the defaults), with the options given on the command line."""
    return dataclass_from_args(args, load_recipe(args.recipe, DistillConfig) if args.recipe else DistillConfig())


def run(args: argparse.Namespace) -> None:
    cfg = config_from_args(args)
    with needs_extra("expert iteration"):
        from training.distill import closing_text, distill
    result = distill(cfg, log=lambda line: print(line, flush=True))
    if "closing" in result:
        print()
        print(closing_text(result))
    print(f"model {result['model']} (ppo:{result['model']}); results.json in {cfg.out}")


def add_parser(sub: argparse._SubParsersAction) -> None:
    add_recipe_command(sub, "distill", "expert iteration: improve a trained agent by distilling its own search into it",
                       __doc__, DistillConfig, run)
