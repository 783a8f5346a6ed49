"""``cardgym train``: train an agent by PPO, every learner seat one shared policy (:mod:`training.train`).

    cardgym train                                       # the recommended recipe: Tripoli, 9 M learner decisions
    cardgym train --recipe recipes/triolet.toml         # a recipe file (its fields, PPO's under [ppo])
    cardgym train --recipe recipes/tripoli.toml --seed 1 --decisions 2000000 --learning-rate 1e-4
    cardgym train --recipe recipes/tripoli.toml --resume runs/tripoli/checkpoint.zip
    cardgym train --engine rllib:4 --out runs/rllib        # RLlib's PPO, 4 env runners: pip install -e ".[rllib]"

Every option is a field of :class:`training.config.TrainConfig` (PPO's of :class:`training.config.PPOConfig`); an
option given on the command line replaces the recipe's value, and a field the recipe leaves out keeps the default
shown here (the recommended recipe's).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.registry import make_agent
from envs.core.extras import needs_extra
from envs.registry import make_game
from training.cli_args import CommandError, check_output_folder
from training.config import TrainConfig, load_recipe
from training.dataclass_cli import add_recipe_command, dataclass_from_args


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The run's config: the recipe's (or the defaults), with the options given on the command line."""
    return dataclass_from_args(args, load_recipe(args.recipe) if args.recipe else TrainConfig())


def run(args: argparse.Namespace) -> None:
    cfg = config_from_args(args)
    # What can be checked without torch is checked before it is loaded: the opponents and the magnet.
    game = make_game(cfg.game, num_players=cfg.players)
    if cfg.magnet:
        make_agent(cfg.magnet, game)
    if cfg.resume and not Path(cfg.resume).is_file():
        raise CommandError(f"--resume {cfg.resume}: no such file")
    check_output_folder(cfg.folder, "--out")
    if cfg.env_runners:
        run_rllib(cfg)
        return
    with needs_extra("training"):
        from training.train import train
    result = train(cfg, log=lambda line: print(line, flush=True))  # progress shows in a log file as it comes
    print()
    print(result["table"])
    print(f"{result['decisions']:,} learner decisions ({result['decisions_per_second']:,} /s); model "
          f"{result['model']}; results.json, learning_curve.png and checkpoint.zip in {cfg.folder}")


def run_rllib(cfg: TrainConfig) -> None:
    """``--engine rllib``: RLlib's PPO on Ray (:mod:`training.rllib_train`), one learner seat per table against the
    pool."""
    with needs_extra("--engine rllib", "rllib"):
        import ray.rllib  # noqa: F401

        from training.rllib_train import ignored, train_rllib
    if ignored(cfg):
        print(f"--engine rllib runs plain PPO: {', '.join(ignored(cfg))} (the cardgym learner's) not used")
    result = train_rllib(cfg)
    print()
    print(result["table"])
    print(f"{result['decisions']:,} learner decisions in {result['train_seconds']:.0f} s on {cfg.env_runners} env "
          f"runner(s); model {result['model']}; results in {cfg.folder}")


def add_parser(sub: argparse._SubParsersAction) -> None:
    add_recipe_command(sub, "train", "train an agent by PPO (recipes, opponent pool, magnet, checkpoints)", __doc__,
                       TrainConfig, run)
