"""How long the search player takes per decision, at one table and per table at a batch of tables.

    python -m benchmarks.search [--games tripoli,flipflop] [--players 4] [--agent search] [--deals 8] [--batch 64]
                                [--out FILE.json] [--commit]

For each game with a sampler (default: all of them), the search player (``--agent``, a ``search`` spec: ``search``,
``search:500``, ``search:50ms``) sits at seat 0, the game's best hand-written bot at the others (longsuit in Tripoli,
the heuristic elsewhere). **One table**: ``--deals``
episodes played one table at a time (every call of the agent answers one decision). **Batch**: ``--batch`` tables
played at once (each call answers the decisions of every table where seat 0 is to act). Times are measured inside the
agent's ``act`` — wall-clock and CPU (``time.process_time``, this process) — and divided by the decisions it
searched (those with more than one legal action; the others cost nothing). Also reported: playouts and sampled deals
per searched decision and the sampler's acceptance (deals that reproduced the seat's view / deals drawn).
Written to ``search.json`` in ``runs/benchmarks/`` (``--commit``: ``benchmarks/results/``), keeping the entries of
the games and specs not measured this time.
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from agents.registry import make_agent
from agents.search import ROLLOUT, SAMPLERS
from benchmarks import results_dir
from benchmarks.arguments import (
    add_commit,
    add_games,
    add_players,
    add_seed,
    benchmark_parser,
    check_agents,
    checked_games,
)
from training.cli_args import count
from training.evaluate import group_seeds, play_tables
from training.limits import MAX_DEALS, MAX_TABLES


def measure(game, spec: str, tables: int, rounds: int, seed: int) -> dict:
    """Play ``rounds`` batches of ``tables`` tables with the search at seat 0; the agent's per-decision costs."""
    agent = make_agent(spec, game)
    field = make_agent(ROLLOUT[game.name], game)
    n = game.num_players
    seat_agent = np.zeros((tables, n), np.int64)
    seat_agent[:, 1:] = 1
    start = time.perf_counter()
    for r in range(rounds):
        play_tables(game, [agent, field], seat_agent, group_seeds(seed + r, tables), np.random.default_rng(r))
    st = agent.stats
    searched = max(st["searched"], 1)
    return {
        "tables_at_once": tables, "episodes": tables * rounds, "decisions": st["decisions"],
        "searched": st["searched"], "fallbacks": st["fallbacks"],
        "ms_per_decision_wall": round(1e3 * st["seconds"] / searched, 2),
        "ms_per_decision_cpu": round(1e3 * st["cpu_seconds"] / searched, 2),
        "playouts_per_decision": round(st["playouts"] / searched, 1),
        "deals_kept_per_decision": round(st["kept"] / searched, 1),
        "acceptance": round(st["kept"] / max(st["drawn"], 1), 3),
        "seconds": round(time.perf_counter() - start, 1),
    }


def merged(path: Path, rows: list[dict]) -> list[dict]:
    """The rows already in ``path`` (if any) with ``rows`` in place of those of the same game, table size and agent
    spec: measuring one game, or another budget, keeps the others' numbers."""
    key = lambda row: (row["game"], row["num_players"], row["agent"])  # noqa: E731
    new = {key(row) for row in rows}
    old = json.loads(path.read_text())["results"] if path.exists() else []
    return [row for row in old if key(row) not in new] + rows


def main(argv: list[str] | None = None) -> dict:
    ap = benchmark_parser("search", __doc__)
    add_games(ap, list(SAMPLERS), "the games with a sampler")
    add_players(ap)
    ap.add_argument("--agent", default="search", help="the search spec (default search, i.e. search:200)")
    ap.add_argument("--deals", type=count(MAX_DEALS), default=8, help="episodes played one table at a time (default 8)")
    ap.add_argument("--batch", type=count(MAX_TABLES), default=64,
                    help="tables played at once in the batch measurement (default 64)")
    add_seed(ap, 0, "seed of the deals")
    ap.add_argument("--out", type=Path, default=None,
                    help="JSON file (default: search.json in runs/benchmarks/, or with --commit in "
                         "benchmarks/results/)")
    add_commit(ap)
    args = ap.parse_args(argv)
    games = checked_games(ap, args.games, args.players)
    check_agents(ap, "--agent", [args.agent], games.values())
    rows = []
    for name, game in games.items():
        measure(game, args.agent, 1, 1, args.seed + 10_000)  # compile and warm up
        one = measure(game, args.agent, 1, args.deals, args.seed)
        batch = measure(game, args.agent, args.batch, 1, args.seed + 1)
        rows.append({"game": name, "num_players": args.players, "agent": args.agent, "rollout": ROLLOUT[name],
                     "one_table": one, "batch": batch})
        for label, row in (("one table", one), (f"{args.batch} tables at once", batch)):
            print(f"{name} {args.players}p {args.agent}, {label}: {row['ms_per_decision_wall']} ms wall, "
                  f"{row['ms_per_decision_cpu']} ms CPU per searched decision ({row['searched']} decisions, "
                  f"{row['playouts_per_decision']} playouts, {row['deals_kept_per_decision']} deals each, "
                  f"acceptance {row['acceptance']})", flush=True)
    report = {
        "machine": {"cpu_count": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
        "note": "ms per searched decision (more than one legal action), measured inside act",
        "results": rows,
    }
    out = args.out or results_dir(args.commit) / "search.json"
    report["results"] = merged(out, rows)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")
    return report


if __name__ == "__main__":
    main()
