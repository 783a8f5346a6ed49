"""What the ``cardgym`` commands share about their arguments: ``type=`` functions that refuse a bad number while
argparse parses (before anything is imported or started; counts and durations within the bounds of
:mod:`training.limits`), the ``--option KEY=VALUE`` parser, :class:`CommandError` for input a command finds wrong
later, and the checks that an output can be written before the work that fills it begins."""

from __future__ import annotations

import argparse
import math
import os
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from envs.core.checks import U64_MAX
from envs.core.config import ConfigError
from envs.registry import game_class

MAX_SEED = U64_MAX
"""Table seeds are unsigned 64-bit integers (envs.core.rng)."""


class CommandError(ValueError):
    """Command-line input that parses but does not fit (a seat the table lacks, an output file that exists…);
    ``cardgym`` prints it as one line and exits with status 2."""


def integer(text: str) -> int:
    """An integer (the command checks its range, e.g. a game its table sizes)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None


def positive_int(text: str) -> int:
    """An integer ≥ 1."""
    value = integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def count(high: int, low: int = 1) -> Callable[[str], int]:
    """The ``type=`` function of a count: an integer from ``low`` to ``high`` (a bound of :mod:`training.limits`);
    the refusal names both."""

    def parse(text: str) -> int:
        value = integer(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer from {low:,} to {high:,}, got {text!r}")
        return value

    parse.__name__ = f"count_{low}_to_{high}"
    return parse


def seed_int(text: str) -> int:
    """A table seed: an integer from 0 to 2**64 - 1."""
    value = integer(text)
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be an integer from 0 to 2**64 - 1, got {text!r}")
    return value


def seed32_int(text: str) -> int:
    """A seed of the whole training run (numpy's and torch's global generators take 32 bits): 0 to 2**32 - 1."""
    value = integer(text)
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"must be an integer from 0 to 2**32 - 1, got {text!r}")
    return value


def non_negative_float(text: str) -> float:
    """A finite number ≥ 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number ≥ 0, got {text!r}")
    return value


def number_upto(high: float, positive: bool = False) -> Callable[[str], float]:
    """The ``type=`` function of a duration: a finite number from 0 (above 0 with ``positive``, a time budget to
    measure in) to ``high`` (a bound of :mod:`training.limits`); the refusal names both."""
    low = "> 0 and at most" if positive else "from 0 to"

    def parse(text: str) -> float:
        value = positive_float(text) if positive else non_negative_float(text)
        if value > high:
            raise argparse.ArgumentTypeError(f"must be a number {low} {high:,g}, got {text!r}")
        return value

    parse.__name__ = f"number_upto_{high:g}" + ("_positive" if positive else "")
    return parse


def positive_float(text: str) -> float:
    """A finite number > 0."""
    value = non_negative_float(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
    return value


def kind_weight(text: str) -> tuple[str, float]:
    """``KIND=W``: an action kind (``draw stock``) and a finite number > 0."""
    kind, sep, weight = text.rpartition("=")
    if not sep or not kind.strip():
        raise argparse.ArgumentTypeError(f"must be KIND=W (an action kind and a number > 0), got {text!r}")
    return kind.strip(), positive_float(weight)


def check_output_folder(folder: str | Path, flag: str) -> None:
    """Raise :class:`CommandError` unless ``folder`` is a folder that can be written or created: the nearest part
    of the path that exists must be a writable folder."""
    existing = Path(folder).absolute()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise CommandError(f"{flag} {folder}: {existing} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise CommandError(f"{flag} {folder}: cannot write in {existing} (permission denied)")


def check_output_file(path: str | Path, flag: str, force: bool) -> None:
    """Raise :class:`CommandError` unless ``path`` can be written: its folder can be written or created, it is not
    a folder, and it does not exist yet unless ``force`` (``--force``) allows overwriting it."""
    path = Path(path)
    if path.is_dir():
        raise CommandError(f"{flag} {path} is a folder; give a file name")
    check_output_folder(path.parent, flag)
    if path.exists():
        if not force:
            raise CommandError(f"{flag} {path} already exists; choose another name or add --force to overwrite it")
        if not os.access(path, os.W_OK):
            raise CommandError(f"{flag} {path}: cannot overwrite it (permission denied)")


def parse_options(game: str, items: list[str]) -> dict[str, Any]:
    """``["key=value", ...]`` (``--option``) → rule options typed as the game's config fields (bool, int or text);
    :class:`ConfigError` for an item that is not ``key=value`` or a value of the wrong type (``make_game`` checks
    the names and the allowed values)."""
    hints = typing.get_type_hints(game_class(game).config_class)
    options: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if not sep or not key:
            raise ConfigError(f"an option is written key=value, got {item!r}")
        hint = hints.get(key)
        if hint is bool:
            if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ConfigError(f"{game}: option {key} takes true or false, got {text!r}")
            options[key] = text.lower() in ("true", "1", "yes")
        elif hint is int:
            try:
                options[key] = int(text)
            except ValueError:
                raise ConfigError(f"{game}: option {key} takes an integer, got {text!r}") from None
        elif typing.get_origin(hint) is Literal and all(isinstance(a, int) for a in typing.get_args(hint)):
            digits = text.removeprefix("-")
            options[key] = int(text) if digits.isascii() and digits.isdigit() else text
        else:  # text choices, or an unknown key that make_game will refuse with the list of known options
            options[key] = text
    return options
