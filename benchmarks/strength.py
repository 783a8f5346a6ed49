"""How strong an agent is: its advantage over the game's best hand-written bot in every field it may meet.

    python -m benchmarks.strength [--games tripoli,triolet,flipflop] [--agents search search:800] [--deals 800]
                                  [--seed 11] [--players 4] [--commit]

For each game and agent spec (default ``search``), the agent sits at one seat of tables whose other seats are
``players - 1`` copies of one *field*, and the game's best hand-written bot (:data:`agents.search.ROLLOUT`: longsuit
in Tripoli, the heuristic elsewhere, by their leagues) plays the same seats of the same duplicate deals
(:class:`training.evaluate.FieldEvaluator`). The fields are every opponent the agent may meet: random, every bot of
the game's zoo, and the held-out styles no agent of the project is built or trained against
(:mod:`agents.heldout`). Each field's advantage comes with its 95% interval, paired over the deal groups; the mean
over the fields with the interval of independent fields. Budgets are in deals and the agent's own budget (playouts,
for ``search``), so the numbers do not depend on the machine's load; the CPU time per searched decision is reported
beside them (a search agent's ``stats``).

Written to ``strength.json`` in ``runs/benchmarks/`` (``--commit``: ``benchmarks/results/``); a game or an agent
already in the file and not run again keeps its entry. docs/agents.md quotes the committed file.
"""

from __future__ import annotations

import json
import math
import platform
import time
from typing import Any

from agents.heldout import every_field
from agents.registry import make_agent
from agents.search import ROLLOUT
from benchmarks import results_dir, write_result
from benchmarks.arguments import (
    add_commit,
    add_games,
    add_players,
    add_seed,
    benchmark_parser,
    check_agents,
    checked_games,
)
from envs.core.agent import agent_label
from envs.registry import GAMES, env_version, make_game
from training.cli_args import count
from training.evaluate import UNITS, FieldEvaluator, fields_table
from training.limits import MAX_DEALS

DEFAULT_DEALS = 800
"""Deals per field and side (rounded up to whole deal groups): 200 groups at 4 players."""
DEFAULT_SEED = 11
"""Seed of the deal groups."""


def measure(game_name: str, spec: str, deals: int, seed: int, players: int) -> dict[str, Any]:
    """The advantage of ``spec`` over the game's best bot in every field of :func:`agents.heldout.every_field`, with
    its costs."""
    game = make_game(game_name, num_players=players)
    reference = ROLLOUT[game_name]
    evaluator = FieldEvaluator(game, make_agent(reference, game), deals, seed, reference_name=reference)
    rows, searched, cpu_seconds, label = [], 0, 0.0, ""
    start = time.perf_counter()
    for field, field_spec in every_field(game_name).items():
        agent = make_agent(spec, game)
        label = agent_label(agent)
        row, _ = evaluator.field(agent, field, make_agent(field_spec, game), spec)
        rows.append(row)
        stats = getattr(agent, "stats", {})
        searched += stats.get("searched", 0)
        cpu_seconds += stats.get("cpu_seconds", 0.0)
        print(f"  {game_name} {spec} vs {reference}, field {field}: {row.advantage:+.3f} ± {row.ci95:.3f}", flush=True)
    mean = sum(r.advantage for r in rows) / len(rows)
    half = math.sqrt(sum(r.ci95 ** 2 for r in rows)) / len(rows)
    print(fields_table(rows, UNITS[game_name], candidate=spec, reference=reference))
    return {
        "agent": label, "reference": agent_label(make_agent(reference, game)), "env": env_version(game_name),
        "unit": UNITS[game_name], "deals_per_field": rows[0].deals, "seed": seed, "players": players,
        "mean_advantage": round(mean, 4), "mean_ci95": round(half, 4),
        "lowest": min(rows, key=lambda r: r.advantage).field,
        "above_zero": sum(r.advantage > 0 for r in rows), "beats": sum(r.beats for r in rows),
        "fields": {r.field: {"advantage": round(r.advantage, 4), "ci95": round(r.ci95, 4), "agent": r.label,
                             "agent_mean": round(r.candidate, 4), "reference_mean": round(r.reference, 4)}
                   for r in rows},
        "ms_cpu_per_searched_decision": round(1e3 * cpu_seconds / searched, 2) if searched else None,
        "seconds": round(time.perf_counter() - start, 1),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = benchmark_parser("strength", __doc__)
    add_games(ap, list(GAMES))
    ap.add_argument("--agents", nargs="+", default=["search"], metavar="SPEC", help="agent specs (default: search)")
    ap.add_argument("--deals", type=count(MAX_DEALS), default=DEFAULT_DEALS,
                    help=f"deals per field and side (default {DEFAULT_DEALS:,})")
    add_seed(ap, DEFAULT_SEED, "deal seed")
    add_players(ap)
    add_commit(ap)
    args = ap.parse_args(argv)
    check_agents(ap, "--agents", args.agents, checked_games(ap, args.games, args.players).values())
    path = results_dir(args.commit) / "strength.json"
    result = json.loads(path.read_text()) if path.is_file() else {}
    result.update({"machine": platform.machine(), "python": platform.python_version()})
    for game_name in args.games:
        result.setdefault("games", {}).setdefault(game_name, {}).update({
            spec: measure(game_name, spec, args.deals, args.seed, args.players) for spec in args.agents})
    write_result(result, path)
    return result


if __name__ == "__main__":
    main()
