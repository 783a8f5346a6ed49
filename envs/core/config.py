"""Checking a game's configuration: unknown keys, wrong types and out-of-range values are refused at construction.

A game's configuration is a frozen dataclass. Each field has a type (``bool``, ``int`` or a ``Literal`` of the
allowed values; or ``float``), a default, a docstring, for integers ``metadata={"range": (low, high)}`` and for
floats optionally ``metadata={"positive": True}``. :func:`make_config`
builds one from keyword options and :func:`validate` checks every field, so every game refuses bad options the same
way, naming what was wrong and what is allowed.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from typing import Any, Literal, TypeVar

C = TypeVar("C")


class ConfigError(ValueError):
    """A game option that does not exist or has a value the option does not allow."""


def _allowed(field: dataclasses.Field, hint: Any) -> str:
    if typing.get_origin(hint) is Literal:
        return " or ".join(repr(a) for a in typing.get_args(hint))
    if hint is bool:
        return "True or False"
    if hint is float:
        return "a positive finite number" if field.metadata.get("positive") else "a finite number"
    lo, hi = field.metadata.get("range", (None, None))
    return f"an integer from {lo} to {hi}" if lo is not None else hint.__name__


def validate(config: Any) -> None:
    """Raise :class:`ConfigError` unless every field of ``config`` has an allowed value."""
    hints = typing.get_type_hints(type(config), include_extras=False)
    game = getattr(config, "game_name", type(config).__name__)
    for f in dataclasses.fields(config):
        value, hint = getattr(config, f.name), hints[f.name]
        if typing.get_origin(hint) is Literal:
            ok = value in typing.get_args(hint) and type(value) in {type(a) for a in typing.get_args(hint)}
        elif hint is bool:
            ok = isinstance(value, bool)
        elif hint is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            ok = ok and (value > 0 or not f.metadata.get("positive"))
        elif hint is int:
            lo, hi = f.metadata.get("range", (None, None))
            ok = isinstance(value, int) and not isinstance(value, bool) and (lo is None or lo <= value <= hi)
        else:  # pragma: no cover - a game declared a field type this checker does not know
            raise TypeError(f"config field {f.name} has unsupported type {hint}")
        if not ok:
            raise ConfigError(f"{game}: option {f.name}={value!r} is not allowed; allowed: {_allowed(f, hint)}")


def make_config(cls: type[C], options: dict[str, Any]) -> C:
    """Build and check a ``cls`` from keyword options; unknown keys are refused with the list of known ones."""
    names = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(set(options) - set(names))
    if unknown:
        game = getattr(cls, "game_name", cls.__name__)
        raise ConfigError(f"{game}: unknown option(s) {', '.join(unknown)}; known options: {', '.join(names)}")
    return cls(**options)


def describe(cls: type) -> list[tuple[str, str, Any]]:
    """(name, allowed values, default) of every option, for help texts."""
    hints = typing.get_type_hints(cls)
    return [(f.name, _allowed(f, hints[f.name]), f.default) for f in dataclasses.fields(cls)]
