"""The command-line options the benchmarks share (``python -m benchmarks.NAME``), each declared here once.

Bad input gets the project's standard answer: one line, ``python -m benchmarks.NAME: error: <what is wrong>``, exit
status 2, and nothing written. Counts and seeds are refused while argparse parses (the ``type=`` functions of
:mod:`training.cli_args`, within the bounds of :mod:`training.limits`); a table size is checked against each chosen
game (:func:`checked_games`) and agent specs against each table (:func:`check_agents`) before any work begins.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence

from agents.registry import make_agent
from envs.core.game import BatchedGame
from envs.registry import GAMES, make_game
from training.cli import OneLineParser
from training.cli_args import count, number_upto, positive_int, seed32_int
from training.limits import MAX_TABLES, MAX_TIMED_SECONDS


def benchmark_parser(name: str, description: str) -> OneLineParser:
    """The parser of ``python -m benchmarks.<name>``: its errors are one line with exit status 2, and ``--help``
    shows ``description`` (the module's docstring) as it is laid out."""
    return OneLineParser(prog=f"python -m benchmarks.{name}", description=description,
                         formatter_class=argparse.RawDescriptionHelpFormatter)


def add_commit(ap: argparse.ArgumentParser) -> None:
    """``--commit``: write the result to ``benchmarks/results/`` (:func:`benchmarks.results_dir`) rather than
    ``runs/benchmarks/``."""
    ap.add_argument("--commit", action="store_true", help="write to benchmarks/results/ (the numbers the docs quote)")


def add_seed(ap: argparse.ArgumentParser, default: int, seeds: str = "seed") -> None:
    """``--seed``: an integer from 0 to 2**32 - 1 (it also seeds numpy's and torch's generators); ``seeds`` says
    what it seeds, for the help."""
    ap.add_argument("--seed", type=seed32_int, default=default, help=f"{seeds} (0 to 2**32 - 1; default {default})")


def add_players(ap: argparse.ArgumentParser, default: int = 4) -> None:
    """``--players``: a table size, an integer ≥ 1 here; :func:`checked_games` refuses one a chosen game does not
    allow."""
    ap.add_argument("--players", type=positive_int, default=default, help=f"table size (default {default})")


def add_game(ap: argparse.ArgumentParser, default: str | None = None) -> None:
    """``--game``: one game of the registry; required when there is no ``default``."""
    ap.add_argument("--game", choices=sorted(GAMES), default=default, required=default is None,
                    help="the game" + (f" (default {default})" if default else ""))


def game_names(known: Sequence[str], of: str) -> Callable[[str], list[str]]:
    """The ``type=`` function of a comma-separated list of games, each one of ``known`` (``of`` names that set in
    the refusal, e.g. ``"the games with a sampler"``)."""

    def parse(text: str) -> list[str]:
        names = [name.strip() for name in text.split(",") if name.strip()]
        if not names:
            raise argparse.ArgumentTypeError(f"names no game, got {text!r}")
        for name in names:
            if name not in known:
                raise argparse.ArgumentTypeError(f"{name!r} is not one of {of}: {', '.join(known)}")
        return names

    return parse


def add_games(ap: argparse.ArgumentParser, known: Sequence[str], of: str = "the games") -> None:
    """``--games``: comma-separated games of ``known`` (default: all of them, in their order), parsed to a list."""
    ap.add_argument("--games", type=game_names(known, of), default=",".join(known),
                    help=f"comma-separated games (default: {','.join(known)})")


def add_seconds(ap: argparse.ArgumentParser, default: float, per: str) -> None:
    """``--seconds``: the CPU seconds timed per ``per`` (a row, a measurement), a number > 0 and at most
    :data:`~training.limits.MAX_TIMED_SECONDS`."""
    ap.add_argument("--seconds", type=number_upto(MAX_TIMED_SECONDS, positive=True), default=default,
                    help=f"timed CPU seconds per {per} (default {default:g})")


def add_batches(ap: argparse.ArgumentParser, default: list[int]) -> None:
    """``--batches``: the batch sizes (tables stepped at once) the core loop is timed at, each from 1 to
    :data:`~training.limits.MAX_TABLES`."""
    ap.add_argument("--batches", type=count(MAX_TABLES), nargs="+", default=default,
                    help=f"core batch sizes, tables stepped at once (default {' '.join(map(str, default))})")


def checked_games(ap: argparse.ArgumentParser, names: Iterable[str], players: int) -> dict[str, BatchedGame]:
    """Each game of ``names`` at ``players`` seats, by name; a table size one of them does not allow is refused
    (``ap.error``: one line, exit status 2)."""
    games = {}
    for name in names:
        try:
            games[name] = make_game(name, num_players=players)
        except ValueError as err:
            ap.error(f"--players {players}: {err}")
    return games


def check_agents(ap: argparse.ArgumentParser, flag: str, specs: Sequence[str], games: Iterable[BatchedGame]) -> None:
    """Refuse (``ap.error``) an agent spec of option ``flag`` that one of ``games`` cannot build (an unknown agent, a
    model of another game or table size, a missing file…)."""
    for game in games:
        for spec in specs:
            try:
                make_agent(spec, game)
            except ValueError as err:
                ap.error(f"{flag} {spec} for {game.name}: {err}")


def refused(ap: argparse.ArgumentParser, error: Exception) -> int:
    """Print ``error``, found wrong after parsing, as the one line of a refusal (``<prog>: error: <error>``) and
    return the exit status of bad input, 2."""
    print(f"{ap.prog}: error: {error}", file=sys.stderr)
    return 2
