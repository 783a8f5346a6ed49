"""Checking a game's configuration: unknown keys, wrong types and out-of-range values are refused at construction.

A game's configuration is a frozen dataclass. Each field has a type (``bool``, ``int``, ``float`` or a ``Literal``
of the allowed values), a default, a docstring, and for numbers ``metadata={"range": (low, high)}`` (floats may say
``metadata={"positive": True}`` instead).
:func:`make_config` builds one from keyword options and :func:`validate` (called by each config's
``__post_init__``) checks every field, so every game refuses bad options the same way, naming what was wrong and
what is allowed.

Numpy scalars are the Python values they hold: ``max_bid=np.int64(5)`` is the option 5 and is stored as the Python
int 5 (likewise ``np.bool_``, ``np.float64`` and ``np.str_``). A bool is not an int (``max_bid=True`` is refused) and
a float is not an int even when whole; an int is a float.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from typing import Any, Literal, TypeVar

import numpy as np

from envs.core.checks import show

C = TypeVar("C")


class ConfigError(ValueError):
    """A game option that does not exist or has a value the option does not allow."""


def _allowed(field: dataclasses.Field, hint: Any) -> str:
    if typing.get_origin(hint) is Literal:
        return " or ".join(repr(a) for a in typing.get_args(hint))
    if hint is bool:
        return "True or False"
    if hint is float and field.metadata.get("positive"):
        return "a positive finite number"
    lo, hi = field.metadata.get("range", (None, None))
    kind = "an integer" if hint is int else "a number"
    return f"{kind} from {lo} to {hi}" if lo is not None else kind


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (``np.int64(5)`` → ``5``); anything else as it is."""
    return value.item() if isinstance(value, np.generic) else value


def validate(config: Any) -> None:
    """Raise :class:`ConfigError` unless every field of ``config`` has an allowed value; numpy scalar values are
    replaced by the Python values they hold."""
    hints = typing.get_type_hints(type(config), include_extras=False)
    game = getattr(config, "game_name", type(config).__name__)
    for f in dataclasses.fields(config):
        value, hint = _plain(getattr(config, f.name)), hints[f.name]
        lo, hi = f.metadata.get("range", (None, None))
        if typing.get_origin(hint) is Literal:
            ok = value in typing.get_args(hint) and type(value) in {type(a) for a in typing.get_args(hint)}
        elif hint is bool:
            ok = isinstance(value, bool)
        elif hint is int:
            ok = type(value) is int and (lo is None or lo <= value <= hi)
        elif hint is float:
            ok = type(value) in (int, float) and math.isfinite(value) and (lo is None or lo <= value <= hi)
            ok = ok and (value > 0 or not f.metadata.get("positive"))
            value = float(value) if ok else value
        else:  # pragma: no cover - a game declared a field type this checker does not know
            raise TypeError(f"config field {f.name} has unsupported type {hint}")
        if not ok:
            raise ConfigError(f"{game}: option {f.name}={show(value)} is not allowed; allowed: {_allowed(f, hint)}")
        object.__setattr__(config, f.name, value)  # frozen dataclass: store the plain value


def make_config(cls: type[C], options: dict[str, Any]) -> C:
    """Build and check a ``cls`` from keyword options; unknown keys are refused with the list of known ones."""
    names = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(set(options) - set(names))
    if unknown:
        game = getattr(cls, "game_name", cls.__name__)
        raise ConfigError(f"{game}: unknown option(s) {', '.join(unknown)}; known options: {', '.join(names)}")
    return cls(**options)
