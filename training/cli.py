"""The ``cardgym`` command line: one sub-command per module of ``training/`` (``cardgym <command> --help``).

Each command module defines ``add_parser(subparsers)``, which adds its parser and sets ``func`` to the function that
runs it with the parsed arguments.

Bad input gets one line on stderr, ``cardgym <command>: error: <what is wrong>``, and exit status 2, never a
traceback: argparse's own errors (printed without the usage block; ``--help`` has it), and the errors the project
raises for input a user can fix, caught here once for every command: the ``ValueError`` subclasses defined in the
project (``ConfigError``, ``IllegalActionError``, ``AgentSpecError``, ``ModelFileError``, ``LogError``,
:class:`~training.cli_args.CommandError`…) and operating-system errors about a named file. A plain ``ValueError``
or any other exception is a bug and keeps its traceback. Ctrl-C stops with one line and status 130; output cut
short by a closed pipe (``cardgym … | head``) ends quietly with status 1.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn

COMMANDS = {
    "random": "training.cmd_random",
    "eval": "training.cmd_eval",
    "train": "training.cmd_train",
    "play": "training.cmd_play",
    "replay": "training.cmd_replay",
    "serve": "training.cmd_serve",
    "agents": "training.cmd_agents",
    "league": "training.cmd_league",
    "watch": "training.cmd_watch",
    "exploit": "training.cmd_exploit",
    "distill": "training.cmd_distill",
}
"""Sub-command name → module defining ``add_parser``."""

PROJECT_PACKAGES = frozenset({"envs", "agents", "training"})
"""Packages whose ``ValueError`` subclasses are raised on purpose for input a user can fix."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (the usage block stays in ``--help``)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="cardgym", description="cardgym: batched card-game environments")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS.values():
        try:
            importlib.import_module(module).add_parser(sub)
        except ModuleNotFoundError as e:
            if e.name != module:  # a missing dependency inside the module is a real error
                raise
    return parser


def user_error(error: BaseException) -> str | None:
    """The one-line message of an error the user can fix, ``None`` for an error that is a bug."""
    if isinstance(error, ValueError) and type(error).__module__.partition(".")[0] in PROJECT_PACKAGES:
        message = str(error)
    elif isinstance(error, OSError) and error.filename is not None:
        message = f"{error.filename}: {error.strerror or error}"
    elif isinstance(error, MemoryError):
        message = f"out of memory ({error or 'try a smaller batch'})"
    else:
        return None
    return " ".join(line.strip() for line in message.splitlines() if line.strip()) or type(error).__name__


def _run(argv: list[str] | None) -> None:
    prog = "cardgym"
    try:
        args = build_parser().parse_args(argv)
        prog = f"cardgym {args.command}"
        args.func(args)
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    except Exception as e:
        message = user_error(e)
        if message is None:
            raise
        print(f"{prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2) from None


def main(argv: list[str] | None = None) -> None:
    """Run ``cardgym ARGV`` (default: the process's arguments)."""
    try:
        try:
            _run(argv)
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        # The reader left (``cardgym … | head``): send what is still buffered nowhere, as Python's documentation of
        # SIGPIPE recommends, so that the flush at exit does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
