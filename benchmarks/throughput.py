"""Decisions per second of a game core in the loop a user runs, and of its PettingZoo face.

    python -m benchmarks.throughput --game tripoli [--players 4] [--seconds 3] [--batches 1 64 1024 8192]

Core rows time the whole loop of a batched rollout: ``observe`` of the acting seat into a preallocated buffer, a
random legal action per table (``sample_legal``), ``step``, and the re-deal of finished tables (``redeal``, with new
seeds): every decision of the figure also produced the observation and legal actions an agent acts on. A second
column, "step only", is the part of that time spent in ``step`` (the headline of earlier versions). The AEC row
plays whole games through ``env()``: ``reset()`` (seeded once, then unseeded, as a user's loop does), ``last()``
with its observation and mask, a random legal action, ``step``; it counts decisions (not the ``None`` steps of
finished agents). Times are CPU seconds of this process (``time.process_time``): on an idle core they equal
wall-clock seconds, and they stay meaningful while other work shares the machine. Results are printed as a table
and written to ``throughput_<game>.json`` in ``runs/benchmarks/`` (``--commit``: ``benchmarks/results/``).
"""

from __future__ import annotations

import platform
import time
from pathlib import Path

import numpy as np

from benchmarks import results_dir, write_result
from benchmarks.arguments import (
    add_batches,
    add_commit,
    add_game,
    add_players,
    add_seconds,
    benchmark_parser,
    checked_games,
)
from envs.core.game import sample_legal
from envs.registry import env_version


def core_rate(game, batch: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    """(decisions/s of the whole loop, decisions/s of ``step`` alone within it) at one batch size: each iteration
    observes the acting seat of every table, draws a random legal action per table, steps, and re-deals the tables
    that finished, all inside the clock."""
    rng = np.random.default_rng(seed)
    state = game.init(seed, batch_size=batch)
    buffer = np.empty((batch, game.observation_size), np.float32)
    next_seed = seed + batch
    # one whole iteration outside the clock: compiled kernels load (or compile) at their first call
    game.observe(state, np.maximum(state.current_player, 0), out=buffer)
    game.step(state, sample_legal(state.legal_action_mask, rng))
    game.redeal(state, np.arange(batch), np.arange(next_seed, next_seed + batch, dtype=np.uint64))
    next_seed += batch
    decisions, in_step, t0 = 0, 0.0, time.process_time()
    while True:
        for _ in range(8):
            game.observe(state, np.maximum(state.current_player, 0), out=buffer)
            actions = sample_legal(state.legal_action_mask, rng)
            s0 = time.process_time()
            game.step(state, actions)
            in_step += time.process_time() - s0
            decisions += batch
            done = state.done
            if done.any():
                finished = np.flatnonzero(done)
                game.redeal(state, finished, np.arange(next_seed, next_seed + finished.size, dtype=np.uint64))
                next_seed += finished.size
        if (elapsed := time.process_time() - t0) >= seconds:  # after one round at least, however short ``seconds``
            return decisions / elapsed, decisions / in_step


def aec_rate(game_name: str, players: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    """(decisions/s, steps/s) through the PettingZoo face with random legal actions; ``reset`` is seeded once and
    unseeded afterwards, and the ``None`` steps of finished agents count as steps, not decisions."""
    import importlib

    env = importlib.import_module(f"envs.{env_version(game_name)}").env(num_players=players)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    decisions, steps, t0 = 0, 0, time.process_time()
    while True:
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            action = None if term or trunc else int(sample_legal(obs["action_mask"][None], rng)[0])
            env.step(action)
            steps += 1
            decisions += action is not None
        env.reset()
        if (elapsed := time.process_time() - t0) >= seconds:  # after one game at least, however short ``seconds``
            return decisions / elapsed, steps / elapsed


def main(argv: list[str] | None = None) -> dict:
    ap = benchmark_parser("throughput", __doc__)
    add_game(ap)
    add_players(ap)
    add_seconds(ap, 3.0, "row")
    add_batches(ap, [1, 64, 1024, 8192])
    ap.add_argument("--out", type=Path, default=None,
                    help="JSON file (default: throughput_GAME.json in runs/benchmarks/, or with --commit in "
                         "benchmarks/results/)")
    add_commit(ap)
    args = ap.parse_args(argv)
    game = checked_games(ap, [args.game], args.players)[args.game]
    rows = []
    print(f"{args.game}, {args.players} players, one process, CPU time, {platform.machine()}")
    print(f"{'face':<10}{'batch':>8}{'decisions/s':>16}{'step only':>14}")
    for batch in args.batches:
        dps, step_only = core_rate(game, batch, args.seconds)
        rows.append({"face": "core", "batch": batch, "decisions_per_s": dps, "step_only_per_s": step_only})
        print(f"{'core':<10}{batch:>8}{dps:>16,.0f}{step_only:>14,.0f}")
    dps, sps = aec_rate(args.game, args.players, args.seconds)
    rows.append({"face": "aec", "batch": 1, "decisions_per_s": dps, "steps_per_s": sps})
    print(f"{'aec':<10}{1:>8}{dps:>16,.0f}{'-':>14}")
    result = {
        "game": args.game,
        "players": args.players,
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        "numpy": np.__version__,
        "clock": "process CPU time",
        "loop": "core: observe + sample_legal + step + redeal of finished tables; aec: unseeded reset, last, step",
        "rows": rows,
    }
    write_result(result, args.out or results_dir(args.commit) / f"throughput_{args.game}.json")
    return result


if __name__ == "__main__":
    main()
