"""``cardgym agents``: the agents a game can seat, one line each (name, version, what it plays like).

    cardgym agents --game tripoli

Every name works as an agent spec (``cardgym eval --agents tight random …``, ``make_agent("tight", game)``), as do
the two spec forms at the end of the list.
"""

from __future__ import annotations

import argparse

from agents.zoo import BOTS, list_bots

SPEC_FORMS = (
    ("ppo:PATH", "a model trained by `cardgym train` (the .zip it writes), for the same game, table size and rules"),
    ("module:Class", "any importable agent class, built as Class(game)"),
)
"""The agent specs that are not names, with what they mean."""


def agents_text(game: str) -> str:
    """The listing of ``game``'s agents that ``cardgym agents --game game`` prints."""
    bots = list_bots(game)
    width = max(len(name) for name in [b.name for b in bots] + [form for form, _ in SPEC_FORMS])
    lines = [f"{game} agents:"]
    lines += [f"  {b.name:<{width}}  v{b.version:<3} {b.summary}" for b in bots]
    lines += [f"  {form:<{width}}  {'':<4} {meaning}" for form, meaning in SPEC_FORMS]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> None:
    games = [args.game] if args.game else list(BOTS)
    print("\n\n".join(agents_text(game) for game in games))


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("agents", help="list the agents of a game (name, version, style), and the other agent specs",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=sorted(BOTS), help="the game (default: every game)")
    p.set_defaults(func=run)
