"""Command-line options derived from a dataclass: one ``--flag`` per field, its help the field's docstring.

:func:`add_dataclass_options` adds an option for every field of a config dataclass (a nested dataclass's fields get
an argument group of their own, with flat flag names: ``--learning-rate``, not ``--ppo.learning-rate``) and
:func:`dataclass_from_args` builds the config back from the parsed arguments, starting from a given instance (the
recipe's), so that only the options given on the command line change it. Supported field types: ``int``, ``float``,
``str``, ``bool`` (``--flag`` / ``--no-flag``), ``Literal[...]`` of strings (choices) and ``tuple[int, ...]``
(several values). The value checks are the config's own (its ``__post_init__``), so the command line, a recipe and
the Python API refuse the same values with the same message.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import textwrap
import typing
from functools import cache
from typing import Any, Literal


@cache
def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of dataclass ``cls`` (the string literal right after its annotation), on one
    line."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs = {}
    for node, after in zip(body, body[1:], strict=False):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def flag(name: str) -> str:
    """The option of field ``name``: ``learning_rate`` → ``--learning-rate``."""
    return "--" + name.replace("_", "-")


def _options(cls: type) -> list[tuple[str, Any, str]]:
    hints = typing.get_type_hints(cls)
    docs = field_docs(cls)
    return [(f.name, hints[f.name], docs.get(f.name, "")) for f in dataclasses.fields(cls)]


def _kwargs(hint: Any, default: Any, doc: str) -> dict[str, Any]:
    """``add_argument`` keywords of a field (the default shown is the dataclass's; the parsed default is ``None``,
    meaning "not given")."""
    shown = ", ".join(map(str, default)) if isinstance(default, tuple) else default
    help_text = f"{doc} (default: {shown!s})".replace("%", "%%")
    if hint is bool:
        return {"action": argparse.BooleanOptionalAction, "default": None, "help": help_text}
    if typing.get_origin(hint) is Literal:
        return {"choices": list(typing.get_args(hint)), "default": None, "help": help_text}
    if typing.get_origin(hint) is tuple:
        return {"type": int, "nargs": "+", "default": None, "metavar": "N", "help": help_text}
    if hint in (int, float, str):
        return {"type": hint, "default": None, "metavar": hint.__name__.upper(), "help": help_text}
    raise TypeError(f"no command-line option for a field of type {hint!r}")


def add_dataclass_options(parser: argparse.ArgumentParser, cls: type, defaults: Any | None = None) -> None:
    """Add an option per field of dataclass ``cls`` (and a group per nested dataclass field) to ``parser``;
    ``defaults`` (an instance) gives the defaults shown in ``--help``."""
    defaults = defaults if defaults is not None else cls()
    for name, hint, doc in _options(cls):
        value = getattr(defaults, name)
        if dataclasses.is_dataclass(hint):
            group = parser.add_argument_group(f"{name} ({doc.rstrip('.')})")
            for sub, sub_hint, sub_doc in _options(hint):
                group.add_argument(flag(sub), dest=f"{name}.{sub}",
                                   **_kwargs(sub_hint, getattr(value, sub), sub_doc))
        else:
            parser.add_argument(flag(name), dest=name, **_kwargs(hint, value, doc))


def dataclass_from_args(args: argparse.Namespace, base: Any) -> Any:
    """``base`` (a dataclass instance) with every option given in ``args`` (parsed by a parser that
    :func:`add_dataclass_options` set up for its class) replacing its field; the instance is built anew, so its
    ``__post_init__`` checks the values."""
    values = vars(args)
    changes: dict[str, Any] = {}
    for name, hint, _ in _options(type(base)):
        if dataclasses.is_dataclass(hint):
            inner = {sub: values[f"{name}.{sub}"] for sub, _, _ in _options(hint)
                     if values.get(f"{name}.{sub}") is not None}
            if inner:
                changes[name] = dataclasses.replace(getattr(base, name), **_typed(hint, inner))
        elif values.get(name) is not None:
            changes[name] = values[name]
    return dataclasses.replace(base, **_typed(type(base), changes))


def _typed(cls: type, values: dict[str, Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    return {k: tuple(v) if typing.get_origin(hints[k]) is tuple else v for k, v in values.items()}


def add_recipe_command(sub: argparse._SubParsersAction, name: str, help_text: str, description: str, cls: type,
                       run: Any) -> argparse.ArgumentParser:
    """Add sub-command ``name`` whose options are ``--recipe FILE`` (a TOML recipe of ``cls``'s fields to start from)
    and one per field of config dataclass ``cls``; ``run(args)`` runs it."""
    p = sub.add_parser(name, help=help_text, description=description,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--recipe", metavar="FILE", help="a recipe (TOML) to start from (default: the defaults below)")
    add_dataclass_options(p, cls)
    p.set_defaults(func=run)
    return p
