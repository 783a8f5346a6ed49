"""``cardgym agents``: the agents a game can seat, one line each (name, version, what it plays like).

    cardgym agents --game tripoli

Every name works as an agent spec (``cardgym eval --agents tight random …``, ``make_agent("tight", game)``), as do
the spec forms at the end of the list (``style:3`` …; ``--opponents`` takes ``styles:N=W`` etc. for a
family's first N members).
"""

from __future__ import annotations

import argparse

from agents.registry import TRAINED_VERSIONS, trained_model
from agents.styles import CARELESS_RANGE, FAMILIES, LOOSE_FAMILIES
from agents.zoo import BOTS, list_bots

SPEC_FORMS = (
    ("ppo:PATH", "a model trained by `cardgym train` (the .zip it writes), for the same game, table size and rules"),
    ("module:Class", "any importable agent class, built as Class(game)"),
)
"""The agent specs that are not names, with what they mean (every game)."""


def spec_forms(game: str) -> list[tuple[str, str]]:
    """The spec forms of ``game``: :data:`SPEC_FORMS` and the members of its families (:mod:`agents.styles`)."""
    low, high = (round(100 * share) for share in CARELESS_RANGE)
    careless = f"with {low}-{high}% random moves"
    if game in FAMILIES:
        families = [("style:K", "member K of the style family: the heuristic with parameters drawn inside the zoo's "
                                "range"),
                    ("careless-style:K", f"style:K {careless}")]
    else:
        families = [("careless-style:K", f"the heuristic {careless} (no style family in {game})")]
    if game in LOOSE_FAMILIES:
        families.append(("loose-style:K", "member K of the family of callers: calls looser than any zoo bot's, few "
                                          "and small bets"))
    families.append(("careless-bot:K", "zoo bot K mod n (random left out) with careless-style:K's share of random "
                                       "moves"))
    return [*SPEC_FORMS, *families]


def agents_text(game: str) -> str:
    """The listing of ``game``'s agents that ``cardgym agents --game game`` prints: the zoo, the search player and
    the spec forms."""
    bots, forms = list_bots(game), spec_forms(game)
    width = max(len(name) for name in [b.name for b in bots] + [form for form, _ in forms])
    lines = [f"{game} agents:"]
    lines += [f"  {b.name:<{width}}  v{b.version:<3} {b.summary}" for b in bots]
    lines += search_line(game, width) + trained_line(game, width)
    lines += [f"  {form:<{width}}  {'':<4} {meaning}" for form, meaning in forms]
    return "\n".join(lines)


def search_line(game: str, width: int) -> list[str]:
    """The line of the search player, for a game that has a sampler (:mod:`agents.search`)."""
    from agents.search import ROLLOUT, SAMPLERS, SearchAgent

    if game not in SAMPLERS:
        return []
    return [f"  {'search':<{width}}  v{SearchAgent.version:<3} Monte-Carlo search over sampled deals, {ROLLOUT[game]} "
            f"finishing each; search:N for N playouts per decision (default 200), search:Nms for N ms. Not a zoo "
            f"style (slow)."]


def trained_line(game: str, width: int) -> list[str]:
    """The line of the trained agent that ships for ``game``, if one does (its env version and training)."""
    path = trained_model(game)
    if not path.is_file():
        return []
    from agents.model_file import read_metadata

    meta = read_metadata(path)
    decisions = meta.get("train", {}).get("decisions", 0)
    rounds = sum(len(run.get("rounds", ())) for run in meta.get("distill", ()))
    distilled = f", then {rounds} rounds of cardgym distill" if rounds else ""
    version = f"v{TRAINED_VERSIONS[game][0]}"
    return [f"  {'trained':<{width}}  {version:<4} PPO agent that ships with cardgym, for {meta['env_version']} "
            f"({decisions:,} learner decisions of cardgym train{distilled}; docs/training.md). Not a zoo style."]


def run(args: argparse.Namespace) -> None:
    games = [args.game] if args.game else list(BOTS)
    print("\n\n".join(agents_text(game) for game in games))


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("agents", help="list the agents of a game (name, version, style), and the other agent specs",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=sorted(BOTS), help="the game (default: every game)")
    p.set_defaults(func=run)
