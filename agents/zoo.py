"""The bot zoo: the one table of hand-written agents of each game, by name (``make_agent("tight", game)``).

Every game has ``random`` (uniform over the legal actions) and ``heuristic`` (its reference hand-written player);
the other names are playing styles (``agents/<game>_bots.py``), each described in its class docstring. A bot's
``version`` (a class attribute, from 1) is bumped whenever its choices change; results label seats ``name@vN``.
``cardgym agents --game G`` prints this table.
"""

from __future__ import annotations

import dataclasses
import importlib

RANDOM = "agents.random_agent:RandomAgent"

BOTS: dict[str, dict[str, str]] = {
    "tripoli": {
        "random": RANDOM,
        "heuristic": "agents.tripoli_heuristic:TripoliHeuristic",
        "tight": "agents.tripoli_bots:TripoliTight",
        "aggressive": "agents.tripoli_bots:TripoliAggressive",
        "longsuit": "agents.tripoli_bots:TripoliLongSuit",
        "lowlead": "agents.tripoli_bots:TripoliLowLead",
    },
    "triolet": {
        "random": RANDOM,
        "heuristic": "agents.triolet_heuristic:TrioletHeuristic",
        "specials": "agents.triolet_bots:TrioletSpecials",
        "pairs": "agents.triolet_bots:TrioletPairs",
        "saver": "agents.triolet_bots:TrioletSaver",
        "blocker": "agents.triolet_bots:TrioletBlocker",
    },
    "flipflop": {
        "random": RANDOM,
        "heuristic": "agents.flipflop_heuristic:FlipFlopHeuristic",
        "early": "agents.flipflop_bots:FlipFlopEarly",
        "patient": "agents.flipflop_bots:FlipFlopPatient",
        "dumper": "agents.flipflop_bots:FlipFlopDumper",
        "builder": "agents.flipflop_bots:FlipFlopBuilder",
    },
}
"""Game name → bot name → ``"module:Class"`` of the agent class (built as ``Class(game)``)."""


@dataclasses.dataclass(frozen=True)
class BotInfo:
    """One entry of the zoo, as ``cardgym agents`` lists it."""

    name: str
    """The name ``make_agent`` takes."""
    version: int
    """The class's behaviour version."""
    summary: str
    """The first line of the class docstring."""
    path: str
    """``"module:Class"`` of the class."""


def bot_names(game: str) -> list[str]:
    """The bot names of ``game`` in table order (empty for a game without bots)."""
    return list(BOTS.get(game, {}))


def class_at(path: str) -> type:
    """The class at ``path`` (``"module:Class"`` of a module of this project)."""
    module_name, _, cls_name = path.partition(":")
    return getattr(importlib.import_module(module_name), cls_name)


def bot_class(game: str, name: str) -> type:
    """The class registered as ``name`` for ``game`` (``KeyError`` if there is none)."""
    return class_at(BOTS[game][name])


def bot_info(name: str, path: str) -> BotInfo:
    """The :class:`BotInfo` of the class at ``path`` (``"module:Class"``) under ``name``."""
    cls = class_at(path)
    lines = (cls.__doc__ or "").strip().splitlines()
    summary = lines[0] if lines else ""
    return BotInfo(name=name, version=int(getattr(cls, "version", 1)), summary=summary, path=path)


def list_bots(game: str) -> list[BotInfo]:
    """Every bot of ``game`` with its version and the first line of its docstring, in table order."""
    if game not in BOTS:
        raise ValueError(f"game must be one of {', '.join(sorted(BOTS))}, got {game!r}")
    return [bot_info(name, path) for name, path in BOTS[game].items()]
