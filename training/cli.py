"""The ``cardgym`` command line: one sub-command per module of ``training/`` (``cardgym <command> --help``).

Each command module defines ``add_parser(subparsers)``, which adds its parser and sets ``func`` to the function that
runs it with the parsed arguments.
"""

from __future__ import annotations

import argparse
import importlib

COMMANDS = {
    "random": "training.cmd_random",
    "eval": "training.cmd_eval",
    "train": "training.cmd_train",
    "play": "training.cmd_play",
    "replay": "training.cmd_replay",
    "league": "training.cmd_league",
}
"""Sub-command name → module defining ``add_parser``."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardgym", description="cardgym: batched card-game environments")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS.values():
        try:
            importlib.import_module(module).add_parser(sub)
        except ModuleNotFoundError as e:
            if e.name != module:  # a missing dependency inside the module is a real error
                raise
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
