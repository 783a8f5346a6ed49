"""Decisions per second of a game core with random legal actions, and steps per second of its AEC face.

    python -m benchmarks.throughput --game tripoli [--players 4] [--seconds 3] [--batches 1 64 1024 8192]

Core rows time ``step`` alone (legal masks are part of every step) with finished tables re-dealt outside the timed
region; a separate column times ``observe`` for every table. The AEC row plays whole games through ``env()``
(``last()`` with its observation, then ``step``). Times are CPU seconds of this process (``time.process_time``):
on an idle core they equal wall-clock seconds, and they stay meaningful while other work shares the machine.
Results are printed as a table and written to ``throughput_<game>.json`` in ``runs/benchmarks/`` (``--commit``:
``benchmarks/results/``).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from benchmarks import results_dir
from envs.core.game import sample_legal
from envs.registry import GAMES, env_version, make_game


def core_rate(game, batch: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    """(decisions/s of ``step``, observations/s of ``observe``) at one batch size."""
    rng = np.random.default_rng(seed)
    state = game.init(seed, batch_size=batch)
    decisions, busy, next_seed = 0, 0.0, seed + batch
    while busy < seconds:
        done = state.done
        if done.any():
            idx = np.flatnonzero(done)
            state.put(idx, game.init(np.arange(next_seed, next_seed + idx.size, dtype=np.uint64)))
            next_seed += idx.size
        actions = sample_legal(state.legal_action_mask, rng)
        t0 = time.process_time()
        game.step(state, actions)
        busy += time.process_time() - t0
        decisions += batch
    seats = np.maximum(state.current_player, 0)
    t0, obs_count = time.process_time(), 0
    while time.process_time() - t0 < seconds / 3:
        game.observe(state, seats)
        obs_count += batch
    return decisions / busy, obs_count / (time.process_time() - t0)


def aec_rate(game_name: str, players: int, seconds: float, seed: int = 0) -> float:
    """Steps per second through the PettingZoo face with random legal actions."""
    import importlib

    env = importlib.import_module(f"envs.{env_version(game_name)}").env(num_players=players)
    rng = np.random.default_rng(seed)
    steps, t0 = 0, time.process_time()
    while time.process_time() - t0 < seconds:
        env.reset(seed=seed + steps)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            action = None if term or trunc else int(sample_legal(obs["action_mask"][None], rng)[0])
            env.step(action)
            steps += 1
    return steps / (time.process_time() - t0)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", choices=sorted(GAMES), required=True)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=3.0, help="timed seconds per row")
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024, 8192])
    ap.add_argument("--out", type=Path, default=None,
                    help="JSON file (default: throughput_GAME.json in runs/benchmarks/, or with --commit in "
                         "benchmarks/results/)")
    ap.add_argument("--commit", action="store_true", help="write into benchmarks/results/ (the numbers the docs quote)")
    args = ap.parse_args(argv)
    game = make_game(args.game, num_players=args.players)
    rows = []
    print(f"{args.game}, {args.players} players, one process, CPU time, {platform.machine()}")
    print(f"{'face':<10}{'batch':>8}{'decisions/s':>16}{'observations/s':>18}")
    for batch in args.batches:
        dps, ops = core_rate(game, batch, args.seconds)
        rows.append({"face": "core", "batch": batch, "decisions_per_s": dps, "observations_per_s": ops})
        print(f"{'core':<10}{batch:>8}{dps:>16,.0f}{ops:>18,.0f}")
    sps = aec_rate(args.game, args.players, args.seconds)
    rows.append({"face": "aec", "batch": 1, "decisions_per_s": sps, "observations_per_s": None})
    print(f"{'aec':<10}{1:>8}{sps:>16,.0f}{'(included)':>18}")
    result = {
        "game": args.game,
        "players": args.players,
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        "numpy": np.__version__,
        "clock": "process CPU time",
        "rows": rows,
    }
    out = args.out or results_dir(args.commit) / f"throughput_{args.game}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {out}")
    return result


if __name__ == "__main__":
    main()
