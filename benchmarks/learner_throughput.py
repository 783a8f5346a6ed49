"""Learner throughput: learner decisions per second of the PPO learner (:mod:`training.learner`) in every-seat
self-play with the heuristic as magnet, where its time goes, and the SB3 trainer's anchor in the same run.

    python -m benchmarks.learner_throughput --game tripoli --tables 1024 --updates 4 --threads 1 2

For each way of feeding the input layer in the update (sparse rows, the default, and dense rows) and each thread
count: one short warm-up run (loads the compiled kernels), then ``--updates`` updates of
``tables x rollout_steps`` decisions, timed in wall-clock and in CPU seconds of this process (``time.process_time``:
every thread), with the learner's own sections (setup, observation, policy inference, the magnet's reference, core
step, bookkeeping, advantages and batch, PPO update). Then MaskablePPO on the batched vector env against the
heuristic (``cardgym train``'s engine; the settings of :mod:`benchmarks.train_throughput`), one learner seat per table.
The machine's load average is recorded with the result: on a shared machine the wall-clock numbers fall with it,
and more than one torch thread needs ``OMP_WAIT_POLICY=PASSIVE`` (recorded too): OpenMP's threads otherwise spin
while they wait for one another, and on a busy machine that costs several times the work.
Writes ``learner_throughput_<game>.json`` in ``runs/benchmarks/`` (``--commit``: ``benchmarks/results/``).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import time
from typing import Any

import torch as th

from agents.registry import make_agent
from benchmarks import results_dir, write_result
from benchmarks.train_throughput import make_model
from envs.registry import make_game
from training.learner import LearnerConfig, learn
from training.sb3_vec_env import CardVecEnv


def measure_learner(cfg: LearnerConfig) -> dict[str, Any]:
    """``learn(cfg)`` after a warm-up run of one small update: decisions per second (wall and CPU) of the whole run
    and of its loop (setup excluded), and each section's share of the CPU time."""
    learn(dataclasses.replace(cfg, tables=16, rollout_steps=4, total_decisions=1, minibatch_size=32))
    result = learn(cfg)
    n, sections = result["decisions"], result["time"]
    loop_cpu = result["cpu_seconds"] - sections["setup"]["cpu_seconds"]
    loop_wall = result["wall_seconds"] - sections["setup"]["wall_seconds"]
    accounted = sum(s["cpu_seconds"] for s in sections.values())
    shares = {name: {**s, "cpu_share": round(s["cpu_seconds"] / result["cpu_seconds"], 4),
                     "cpu_us_per_decision": round(1e6 * s["cpu_seconds"] / n, 2)} for name, s in sections.items()}
    shares["other"] = {"cpu_seconds": round(result["cpu_seconds"] - accounted, 3),
                       "cpu_share": round((result["cpu_seconds"] - accounted) / result["cpu_seconds"], 4)}
    return {"decisions": n, "updates": result["updates"], "wall_seconds": result["wall_seconds"],
            "cpu_seconds": result["cpu_seconds"], "decisions_per_second": result["decisions_per_second"],
            "decisions_per_cpu_second": result["decisions_per_cpu_second"],
            "loop_decisions_per_second": round(n / loop_wall), "loop_decisions_per_cpu_second": round(n / loop_cpu),
            "update_alone_decisions_per_cpu_second": round(n / sections["PPO update"]["cpu_seconds"]),
            "sections": shares}


def measure_sb3(game_name: str, players: int, tables: int, steps: int, seed: int, threads: int) -> dict[str, Any]:
    """MaskablePPO's ``learn`` on the batched vector env against the heuristic (one learner seat per table):
    learner decisions per second, wall and CPU."""
    th.set_num_threads(threads)
    game = make_game(game_name, num_players=players)
    env = CardVecEnv(game, tables, make_agent("heuristic", game), seed=seed, reward_scale=0.1)
    model = make_model(env, seed)
    wall, cpu = time.perf_counter(), time.process_time()
    model.learn(steps)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"tables": tables, "decisions": int(model.num_timesteps), "wall_seconds": round(wall, 2),
            "cpu_seconds": round(cpu, 2), "decisions_per_second": round(model.num_timesteps / wall),
            "decisions_per_cpu_second": round(model.num_timesteps / cpu)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    load_before = os.getloadavg()
    result: dict[str, Any] = {
        "benchmark": "learner_throughput", "game": args.game, "players": args.players, "tables": args.tables,
        "rollout_steps": args.rollout_steps, "updates": args.updates, "magnet": args.magnet,
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, {os.cpu_count()} cores, "
                   f"python {platform.python_version()}, torch {th.__version__}",
        "load_average_before": [round(x, 2) for x in load_before],
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "(unset: OpenMP's default)"), "learner": {},
    }
    for inputs in args.inputs:
        for threads in args.threads:
            cfg = LearnerConfig(game=args.game, players=args.players, tables=args.tables,
                                rollout_steps=args.rollout_steps, total_decisions=args.updates * args.tables
                                * args.rollout_steps, magnet=args.magnet, threads=threads, seed=args.seed,
                                sparse_inputs=inputs == "sparse")
            result["learner"][f"{inputs}_inputs_{threads}_threads"] = measure_learner(cfg)
    result["sb3_anchor"] = measure_sb3(args.game, args.players, args.sb3_tables, args.sb3_steps, args.seed,
                                       args.threads[0])
    result["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return result


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="tripoli")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--tables", type=int, default=1024)
    p.add_argument("--rollout-steps", type=int, default=16, help="decisions per table per update")
    p.add_argument("--updates", type=int, default=4, help="updates timed (after a warm-up run)")
    p.add_argument("--magnet", default="heuristic", help="the magnet agent ('' for none)")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="torch thread counts to time")
    p.add_argument("--inputs", nargs="+", choices=["sparse", "dense"], default=["sparse", "dense"],
                   help="how the update feeds the input layer (LearnerConfig.sparse_inputs), each timed")
    p.add_argument("--sb3-tables", type=int, default=256, help="tables of the SB3 anchor (train_throughput's)")
    p.add_argument("--sb3-steps", type=int, default=8192, help="learner decisions of the SB3 anchor")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--note", default="", help="a note stored with the result (e.g. what else ran)")
    p.add_argument("--commit", action="store_true", help="write into benchmarks/results/ (the numbers the docs quote)")
    args = p.parse_args(argv)
    result = run(args)
    if args.note:
        result["note"] = args.note
    path = write_result(result, results_dir(args.commit) / f"learner_throughput_{args.game}.json")
    print(f"{args.game}, {args.players} players, {args.tables} tables x {args.rollout_steps} steps, every seat "
          f"learning, magnet {args.magnet or 'none'}; load average {result['load_average_before'][0]:.1f} before, "
          f"{result['load_average_after'][0]:.1f} after ({os.cpu_count()} cores)")
    for label, r in result["learner"].items():
        print(f"  learner, {label.replace('_', ' ')}: {r['loop_decisions_per_second']:>7,} decisions/s wall, "
              f"{r['loop_decisions_per_cpu_second']:>7,} per CPU second (loop; whole run {r['decisions_per_second']:,}"
              f" and {r['decisions_per_cpu_second']:,}); the update alone "
              f"{r['update_alone_decisions_per_cpu_second']:,} per CPU second")
        for name, s in r["sections"].items():
            us = f"{s['cpu_us_per_decision']:7.1f} us/decision" if "cpu_us_per_decision" in s else ""
            print(f"      {name:<22} {100 * s['cpu_share']:5.1f}% of CPU  {us}")
    s = result["sb3_anchor"]
    print(f"  SB3 MaskablePPO vs heuristic, {s['tables']} tables, one learner seat each: {s['decisions_per_second']:,}"
          f" decisions/s wall, {s['decisions_per_cpu_second']:,} per CPU second  -> {path}")


if __name__ == "__main__":
    main()
