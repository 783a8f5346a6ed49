"""Learner throughput: learner decisions per second of ``cardgym train`` (:mod:`training.train`) on a recipe, where
its time goes, and SB3's MaskablePPO on the batched vector env in the same run.

    python -m benchmarks.learner_throughput --recipe recipes/tripoli.toml

For each torch thread count (``--threads``, default 1: the update already runs in a thread of its own beside the
collection, so one torch thread keeps two cores busy): a warm-up run of five small updates, each followed by an
evaluation of one deal group and so by a snapshot (it loads the compiled kernels and leaves the pool holding five
snapshots of the learner, the last the magnet, as in most of a real run), then the recipe's training resumed from its
checkpoint for ``--updates`` updates of ``tables x rollout_steps`` decisions, with no imitation, periodic evaluation
or closing table (their time is not the learner's; without evaluations, no new snapshots either). It is timed in
wall-clock and in CPU seconds of this process (``time.process_time``: every thread), with the trainer's own sections
(observation, the pool's inference at its seats, policy inference, the magnet's reference, core step, bookkeeping,
advantages and batch, PPO update), each in CPU seconds of the thread that runs it (so the update's, beside the
collection's, shows what bounds the wall clock: the larger of the two). Then MaskablePPO on the batched vector env
against the heuristic, one learner seat per table (the anchor: SB3's own loop). The machine's load average is
recorded with the result: on a shared machine the wall-clock numbers fall with it, and more than one torch thread
needs ``OMP_WAIT_POLICY=PASSIVE`` (recorded too): OpenMP's threads otherwise spin while they wait for one another,
and on a busy machine that costs several times the work.
Writes ``learner_throughput_<game>.json`` in ``runs/benchmarks/`` (``--commit``: ``benchmarks/results/``).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import time
from pathlib import Path
from typing import Any

import torch as th

from agents.registry import make_agent
from benchmarks import results_dir, write_result
from benchmarks.arguments import add_commit, add_seed, benchmark_parser
from benchmarks.train_throughput import make_model
from envs.registry import make_game
from training.cli_args import count
from training.config import RecipeError, TrainConfig, load_recipe
from training.limits import MAX_STEPS, MAX_TABLES, MAX_THREADS
from training.sb3_vec_env import CardVecEnv
from training.train import MAX_SNAPSHOTS, train

QUIET = {"imitate": 0, "eval_every": 0, "final_deals": 0}
"""What the timed runs leave out of the recipe: imitation, periodic evaluation, closing table (not the learner's)."""
WARM_UP = {"tables": 16, "rollout_steps": 4, "minibatch_size": 32}
"""The warm-up run's PPO settings: updates of 64 decisions."""
UPDATE_THREAD = ("PPO update", "snapshot magnet")
"""The trainer's sections that run in the update's thread, beside the collection (:mod:`training.train`)."""


def measure_learner(cfg: TrainConfig, snapshots: bool) -> dict[str, Any]:
    """``train(cfg)`` resumed from a warm-up run of small updates (with ``snapshots``, one snapshot after each of
    :data:`~training.train.MAX_SNAPSHOTS` updates; else one update): decisions per second (wall and CPU) of the loop
    (the trainer's ``train_seconds``: setup, the last evaluation and saving excluded) and each section's share of the
    CPU time of the timed sections."""
    quiet = lambda _line: None  # noqa: E731
    batch = WARM_UP["tables"] * WARM_UP["rollout_steps"]
    warm = dataclasses.replace(cfg, decisions=MAX_SNAPSHOTS * batch if snapshots else 1,
                               eval_every=batch if snapshots else 0, eval_deals=1, out=cfg.out + "-warmup",
                               ppo=dataclasses.replace(cfg.ppo, **WARM_UP))
    before = train(warm, log=quiet)
    result = train(dataclasses.replace(cfg, decisions=before["decisions"] + cfg.decisions,
                                       resume=str(Path(warm.out) / "checkpoint.zip")), log=quiet)
    n, sections = result["decisions"] - before["decisions"], result["time"]
    loop = {name: s for name, s in sections.items() if name not in ("evaluation", "checkpoint")}
    cpu = sum(s["cpu_seconds"] for s in loop.values())
    beside = sum(loop[name]["cpu_seconds"] for name in UPDATE_THREAD if name in loop)
    shares = {name: {**s, "cpu_share": round(s["cpu_seconds"] / cpu, 4),
                     "cpu_us_per_decision": round(1e6 * s["cpu_seconds"] / n, 2)} for name, s in loop.items()}
    return {"decisions": n, "updates": result["updates"] - before["updates"], "wall_seconds": result["train_seconds"],
            "cpu_seconds": result["train_cpu_seconds"], "decisions_per_second": round(n / result["train_seconds"]),
            "decisions_per_cpu_second": round(n / result["train_cpu_seconds"]),
            "update_alone_decisions_per_cpu_second": round(n / sections["PPO update"]["cpu_seconds"]),
            "collection_cpu_us_per_decision": round(1e6 * (cpu - beside) / n, 2),
            "update_cpu_us_per_decision": round(1e6 * beside / n, 2),
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


def timed_config(recipe: TrainConfig, updates: int, threads: int, seed: int) -> TrainConfig:
    """The recipe's training as timed at ``threads`` torch threads: ``updates`` updates and nothing else
    (:data:`QUIET`), in a folder of ``runs/benchmarks/``. Raises :class:`~training.config.RecipeError` for a budget
    past :data:`~training.limits.MAX_STEPS` decisions."""
    return dataclasses.replace(recipe, **QUIET, decisions=updates * recipe.ppo.tables * recipe.ppo.rollout_steps,
                               out=str(results_dir(False) / "learner_throughput_run"), seed=seed,
                               ppo=dataclasses.replace(recipe.ppo, threads=threads))


def run(args: argparse.Namespace, recipe: TrainConfig, timed: list[TrainConfig]) -> dict[str, Any]:
    """Time the learner on each of the ``timed`` configs of ``recipe`` (one per thread count), then the SB3 anchor."""
    load_before = os.getloadavg()
    result: dict[str, Any] = {
        "benchmark": "learner_throughput", "recipe": args.recipe, "game": recipe.game, "players": recipe.players,
        "tables": recipe.ppo.tables, "rollout_steps": recipe.ppo.rollout_steps, "updates": args.updates,
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, {os.cpu_count()} cores, "
                   f"python {platform.python_version()}, torch {th.__version__}",
        "load_average_before": [round(x, 2) for x in load_before],
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "(unset: OpenMP's default)"), "learner": {},
    }
    for cfg in timed:
        result["learner"][f"{cfg.ppo.threads}_threads"] = measure_learner(cfg, snapshots=bool(recipe.eval_every))
    result["sb3_anchor"] = measure_sb3(recipe.game, recipe.players, args.sb3_tables, args.sb3_steps, args.seed,
                                       args.threads[0])
    result["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return result


def main(argv: list[str] | None = None) -> None:
    p = benchmark_parser("learner_throughput", __doc__)
    p.add_argument("--recipe", default="recipes/tripoli.toml", help="the recipe timed (default recipes/tripoli.toml)")
    p.add_argument("--updates", type=count(MAX_STEPS), default=10,
                   help="updates timed (after a warm-up run; default 10)")
    p.add_argument("--threads", type=count(MAX_THREADS), nargs="+", default=[1],
                   help="torch thread counts to time (default 1)")
    p.add_argument("--sb3-tables", type=count(MAX_TABLES), default=256,
                   help="tables of the SB3 anchor (train_throughput's; default 256)")
    p.add_argument("--sb3-steps", type=count(MAX_STEPS), default=8192,
                   help="learner decisions of the SB3 anchor (default 8192)")
    add_seed(p, 0, "seed of the runs")
    p.add_argument("--note", default="", help="a note stored with the result (e.g. what else ran)")
    add_commit(p)
    args = p.parse_args(argv)
    try:
        recipe = load_recipe(args.recipe)
    except RecipeError as err:
        p.error(f"--recipe: {err}")
    try:
        timed = [timed_config(recipe, args.updates, threads, args.seed) for threads in args.threads]
    except RecipeError as err:
        p.error(f"--updates {args.updates} at {recipe.ppo.tables * recipe.ppo.rollout_steps:,} decisions each: {err}")
    result = run(args, recipe, timed)
    if args.note:
        result["note"] = args.note
    path = write_result(result, results_dir(args.commit) / f"learner_throughput_{result['game']}.json")
    print(f"{args.recipe}: {result['game']}, {result['players']} players, {result['tables']} tables x "
          f"{result['rollout_steps']} steps; load average {result['load_average_before'][0]:.1f} before, "
          f"{result['load_average_after'][0]:.1f} after ({os.cpu_count()} cores)")
    for label, r in result["learner"].items():
        print(f"  cardgym train, {label.replace('_', ' ')}: {r['decisions_per_second']:>7,} learner decisions/s "
              f"wall, {r['decisions_per_cpu_second']:>7,} per CPU second; the update alone "
              f"{r['update_alone_decisions_per_cpu_second']:,} per CPU second; side by side: collection "
              f"{r['collection_cpu_us_per_decision']:.0f} us/decision, update {r['update_cpu_us_per_decision']:.0f}")
        for name, s in r["sections"].items():
            us = f"{s['cpu_us_per_decision']:7.1f} us/decision" if "cpu_us_per_decision" in s else ""
            print(f"      {name:<22} {100 * s['cpu_share']:5.1f}% of CPU  {us}")
    s = result["sb3_anchor"]
    print(f"  SB3 MaskablePPO vs heuristic, {s['tables']} tables, one learner seat each: {s['decisions_per_second']:,}"
          f" decisions/s wall, {s['decisions_per_cpu_second']:,} per CPU second  -> {path}")


if __name__ == "__main__":
    main()
