"""``train(TrainConfig(...)) -> dict``: PPO where every learner seat plays one shared policy (``cardgym train``).

The loop, top to bottom (CleanRL's shape, over the batched core):

1. Build the game, the opponent pool (:mod:`training.opponent_pool`: fixed agents with weights, later snapshots of
   the learner) and the policy (:mod:`training.actor_critic`: the network a ``ppo:`` model file holds) — or take them
   from a checkpoint (``resume``), or take the policy from a model file (``resume``: a run's or ``cardgym
   distill``'s ``model.zip``), which becomes the first snapshot and magnet, and with ``exploiters`` the target of a
   first exploiter round at once.
2. A fresh policy first imitates the magnet agent (:mod:`training.imitation`), so PPO starts where the heuristic
   plays.
3. Repeat until ``decisions`` learner decisions: collect ``ppo.rollout_steps`` decisions at each of ``ppo.tables``
   tables, where each seat of a new table is the learner's, a snapshot's or a fixed agent's by the weights of
   ``opponents`` (:mod:`training.seats`, :mod:`training.rollout`); estimate advantages along each seat's own
   trajectory (:mod:`training.advantages`); run the clipped PPO update with the magnet's KL term
   (:mod:`training.ppo_update`, :mod:`training.magnet`). The update of a batch runs in a second thread while the next
   batch is collected, by a copy of the policy that the update refreshes when it ends (so a batch is sampled by the
   policy of one update before the one it trains, which the probability ratio accounts for): the network's work and
   the bots' and the core's use two cores at once, and the run is the same whatever the threads' timing.
   Every ``eval_every`` decisions the learner is measured against each fixed member (:mod:`training.pool_eval`),
   which sets the pool's league weights, a frozen copy of it joins the pool and becomes the magnet (so the agent
   starts at the heuristic and is free to leave it), and a checkpoint is written; every ``exploiters`` decisions a
   best response to the learner joins the pool as a fixed member (:mod:`training.exploiters`).
4. Save ``model.zip``, play the closing table (:mod:`training.closing`) and write ``results.json`` and
   ``learning_curve.png``.

Everything a run writes is in ``out``: ``model.zip`` (plays as ``ppo:``), ``checkpoint.zip`` (the policy, its
optimiser state and the run's progress: resumable), ``snapshots/`` (the pool's snapshots, model files),
``exploiters/`` (each exploiter round's target and best response), ``results.json``, ``learning_curve.png``. A
resumed run goes on with the checkpoint's network, optimiser, curve, league weights, snapshots, exploiters and magnet,
under the config given (its network settings are the file's); its tables are dealt afresh from a seed that depends on
the run's seed and progress. A run resumed from a model file goes on from its network and learner decisions with a
fresh optimiser, curve and league.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import torch as th

from agents.model_file import METADATA_NAME, ModelFileError, field, where
from agents.ppo import PPOAgent, frozen_copy, load_policy, load_trainable, save_policy
from agents.registry import make_agent
from envs.core.game import BatchedGame
from envs.registry import make_game
from training.actor_critic import new_policy
from training.advantages import seat_gae
from training.closing import closing_fields, closing_table, plot_curve
from training.config import TrainConfig
from training.evaluate import UNITS, fields_table
from training.exploiters import exploiter_round, resumed
from training.exploiters import prior as exploiter_prior
from training.imitation import imitate
from training.magnet import AgentMagnet, PolicyMagnet
from training.opponent_pool import OpponentPool, parse_opponents
from training.pool_eval import PoolEvaluator
from training.ppo_update import Batch, to_batch, update
from training.rollout import Rollout
from training.stopwatch import Stopwatch

SNAPSHOT_NAME = re.compile(r"self@\d+")
"""A snapshot's name in the pool and its file name (``snapshots/self@<decisions>.zip``)."""
MAX_SNAPSHOTS = 5
"""Snapshots the pool keeps (the oldest leaves first)."""
PROGRESS_EVERY = 25
"""Updates between progress lines."""


@dataclasses.dataclass
class Progress:
    """Where a run is: what a checkpoint records besides the policy."""

    decisions: int = 0
    """Learner decisions trained on."""
    updates: int = 0
    """PPO updates made."""
    curve: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """One point per update (evaluations add the advantage in each pool field)."""
    ahead: dict[str, float] = dataclasses.field(default_factory=dict)
    """The league's measure of each fixed pool member (:meth:`training.opponent_pool.OpponentPool.set_ahead`)."""
    snapshots: list[str] = dataclasses.field(default_factory=list)
    """The pool's snapshots, oldest first; the last is the magnet once there is one."""
    exploiters: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """The exploiter rounds played, oldest first (:func:`training.exploiters.exploiter_round`'s records)."""
    imitation: dict[str, float] = dataclasses.field(default_factory=dict)
    """The imitation's last accuracy and losses."""


CHECKPOINT_KEYS = ("updates", "curve", "ahead", "snapshots", "exploiters")
"""What a checkpoint's ``train`` section records beyond a model file's ``config`` and ``decisions``."""


def is_checkpoint(meta: dict[str, Any]) -> bool:
    """Whether a model file's metadata is a checkpoint's (the run's progress) rather than a finished model's
    (``model.zip`` of ``cardgym train`` or ``cardgym distill``: the config and learner decisions only)."""
    section = meta.get("train")
    return not isinstance(section, dict) or any(key in section for key in CHECKPOINT_KEYS)


def read_progress(meta: dict[str, Any], path: str | Path) -> Progress:
    """The :class:`Progress` a checkpoint's metadata records, checked, or a model file's: its learner decisions
    (raises :class:`ModelFileError`)."""
    section = field(meta, "train", "JSON object", path, "")
    if not is_checkpoint(meta):
        return Progress(field(section, "decisions", "non-negative integer", path, "train"))
    progress = Progress(field(section, "decisions", "non-negative integer", path, "train"),
                        field(section, "updates", "non-negative integer", path, "train"))
    curve, ahead, snapshots = section.get("curve"), section.get("ahead"), section.get("snapshots")
    if not isinstance(curve, list) or not all(isinstance(p, dict) for p in curve):
        raise ModelFileError(f"{where(path)}: {METADATA_NAME} train.curve must be a list of JSON objects")
    if not isinstance(ahead, dict) or not all(isinstance(v, float | int) and 0 <= v <= 1 for v in ahead.values()):
        raise ModelFileError(f"{where(path)}: {METADATA_NAME} train.ahead must map names to numbers in [0, 1]")
    if not isinstance(snapshots, list) or not all(isinstance(s, str) and SNAPSHOT_NAME.fullmatch(s)
                                                  for s in snapshots):
        raise ModelFileError(f"{where(path)}: {METADATA_NAME} train.snapshots must be a list of names self@N")
    exploiters = section.get("exploiters", [])  # a checkpoint of a run without exploiter rounds may not name them
    if not isinstance(exploiters, list):
        raise ModelFileError(f"{where(path)}: {METADATA_NAME} train.exploiters must be a list of records")
    progress.curve, progress.ahead, progress.snapshots = curve, {k: float(v) for k, v in ahead.items()}, snapshots
    progress.exploiters = exploiters
    return progress


def train(cfg: TrainConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Train per ``cfg`` (module docstring); returns what ``out/results.json`` holds plus the printed closing
    ``table``. ``log`` receives a line per evaluation and phase."""
    p = cfg.ppo
    th.set_num_threads(p.threads)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    watch = Stopwatch()
    out = cfg.folder

    # 1. the game, the pool, the policy
    game = make_game(cfg.game, num_players=cfg.players)
    seats = cfg.seats
    fixed = parse_opponents(cfg.opponents, game) if any(w for _, w in seats.fixed) else []
    pool = OpponentPool(fixed, seats.selfplay_share, MAX_SNAPSHOTS, seats.opponent_share)
    closing_fields(game)  # an agent the closing table cannot build fails now, not after the training
    if cfg.resume:
        policy, meta = load_trainable(cfg.resume, game)
        progress = read_progress(meta, cfg.resume)
        from_model = not is_checkpoint(meta)
        folder = out / "snapshots" if from_model else Path(cfg.resume).parent / "snapshots"
        if from_model:  # the model is the first snapshot (and the magnet, below)
            progress.snapshots = [f"self@{progress.decisions}"]
            folder.mkdir(parents=True, exist_ok=True)
            save_policy(policy, folder / f"{progress.snapshots[0]}.zip", game, {"snapshot_of": str(out)})
        for name in progress.snapshots:
            pool.add_snapshot(name, PPOAgent.snapshot(game, load_policy(folder / f"{name}.zip", game)))
        for member in resumed(Path(cfg.resume).parent, out, progress.exploiters, game, Path(cfg.resume),
                              exploiter_prior(cfg)):
            pool.add_fixed(member)
        if folder.resolve() != (out / "snapshots").resolve():  # its own checkpoints name them in ``out``
            (out / "snapshots").mkdir(parents=True, exist_ok=True)
            for name in progress.snapshots:
                shutil.copyfile(folder / f"{name}.zip", out / "snapshots" / f"{name}.zip")
    else:
        policy = new_policy(game, p.features_dim, tuple(p.net_arch), cfg.seed, cfg.advisor, p.advice_gain)
        progress, from_model = Progress(), False
    resumed_rounds = list(progress.exploiters)
    pool.set_ahead(progress.ahead)
    out.mkdir(parents=True, exist_ok=True)

    # 2. imitation of the magnet agent
    magnet: AgentMagnet | PolicyMagnet | None = None
    if cfg.magnet and p.magnet_coef > 0:
        magnet = AgentMagnet(make_agent(cfg.magnet, game), p.magnet_stay)
        if pool.snapshots:
            magnet = PolicyMagnet(pool.snapshots[-1].agent.policy, pool.snapshots[-1].name)
    if cfg.imitate and not cfg.resume:
        with watch("imitation"):
            progress.imitation = imitate(policy, game, make_agent(cfg.magnet, game), cfg.imitate, cfg.seed,
                                         p.reward_scale)
        policy.set_training_mode(True)
        log(f"imitation: {cfg.imitate:,} decisions of the {cfg.magnet}, "
            f"{progress.imitation['accuracy']:.1%} of its actions matched")

    if from_model and cfg.exploiters:  # the model's own best response joins the pool before the first table
        member, record = exploiter_round(cfg, game, policy, progress.decisions, log)
        pool.add_fixed(member)
        progress.exploiters.append(record)

    # 3. PPO: the rollout plays a copy of the policy (``acting``), so the update of one batch runs in a second
    # thread while the next batch is collected (each batch is sampled by the policy of one update before)
    acting = frozen_copy(policy)
    agents, weights, share = pool.seating()
    rollout = Rollout(game, p.tables, p.rollout_steps, acting, opponents=agents, weights=weights, opponent_share=share,
                      magnet=magnet if isinstance(magnet, AgentMagnet) else None, reward_scale=p.reward_scale,
                      sparse=True, seed=cfg.seed + (progress.updates << 32), stopwatch=watch)
    settings = p if magnet else dataclasses.replace(p, magnet_coef=0.0)
    evaluator = PoolEvaluator(game, pool, cfg.eval_deals, cfg.seed) if pool.fixed else None
    generator = th.Generator().manual_seed(cfg.seed + 1 + progress.updates)
    start, deadline = progress.decisions, wall0 + cfg.minutes * 60 if cfg.minutes else None
    loop0 = time.perf_counter()  # progress lines give the rate of the PPO phase (imitation excluded)
    loop_rounds = len(progress.exploiters)  # the rounds played since loop0 are not the PPO phase's time
    next_eval = _next(progress.decisions, cfg.eval_every)
    next_exploiter = _next(progress.decisions, cfg.exploiters)
    unit = UNITS.get(game.name, "reward")

    def timed_update(batch: Batch, magnet: AgentMagnet | PolicyMagnet | None) -> dict[str, float]:
        if isinstance(magnet, PolicyMagnet):
            with watch("snapshot magnet"):
                batch.reference = magnet.log_probs(batch.inputs, batch.mask)
        with watch("PPO update"):
            return update(policy, batch, settings, generator)

    collected, running = progress.decisions, None
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ppo-update") as updater:
        while True:
            more = collected < cfg.decisions and (deadline is None or time.perf_counter() < deadline)
            if more:
                rows = rollout.collect()
                with watch("advantages and batch"):
                    arrays = rows.arrays()
                    adv, resolved = seat_gae(arrays["reward"], arrays["value"], arrays["done"], arrays["next"],
                                             p.gamma, p.gae_lambda)
                    batch = to_batch(arrays, adv, resolved, True)
                size, returns = rows.size - rollout.carried, rollout.take_returns()
            if running is not None:  # the update in flight ends: what follows an update
                stats, (done_size, done_returns) = running[0].result(), running[1]
                running = None
                progress.decisions += done_size
                progress.updates += 1
                progress.curve.append({"decisions": progress.decisions,
                                       "return": round(float(done_returns.mean()), 4) if done_returns.size else None,
                                       **{k: round(v, 5) for k, v in stats.items()}})
                if progress.updates % PROGRESS_EVERY == 0:
                    rounds = sum(r["seconds"] for r in progress.exploiters[loop_rounds:])
                    rate = (progress.decisions - start) / (time.perf_counter() - loop0 - rounds)
                    log(f"{progress.decisions:>12,} decisions: {rate:,.0f}/s, {progress.curve[-1]['return']} "
                        f"{unit}/episode against the pool")
                evaluation = bool(next_eval) and progress.decisions >= next_eval
                if evaluation:  # its snapshot first; its measurement below (an exploiter round's, or after the loop)
                    next_eval = _next(progress.decisions, cfg.eval_every)
                    name = f"self@{progress.decisions}"
                    save_policy(policy, out / "snapshots" / f"{name}.zip", game, {"snapshot_of": str(out)})
                    pool.add_snapshot(name, PPOAgent.snapshot(game, policy))
                    progress.snapshots = [m.name for m in pool.snapshots]
                    if magnet is not None:
                        magnet = PolicyMagnet(pool.snapshots[-1].agent.policy, name)
                        rollout.drop_magnet()
                    rollout.set_opponents(*pool.seating())
                if next_exploiter and progress.decisions >= next_exploiter and progress.decisions < cfg.decisions:
                    next_exploiter = _next(progress.decisions, cfg.exploiters)
                    member, record = exploiter_round(cfg, game, policy, progress.decisions, log)
                    pool.add_fixed(member)
                    progress.exploiters.append(record)
                    evaluator = evaluator or PoolEvaluator(game, pool, cfg.eval_deals, cfg.seed)
                    evaluate_and_save(cfg, game, policy, pool, evaluator, rollout, progress, watch, log, unit)
                elif evaluation and progress.decisions < cfg.decisions:  # at the end, the one after the loop
                    evaluate_and_save(cfg, game, policy, pool, evaluator, rollout, progress, watch, log, unit)
                acting.load_state_dict(policy.state_dict())
            if not more:
                break
            running = updater.submit(timed_update, batch, magnet), (size, returns)
            collected += size
    this_run = progress.exploiters[len(resumed_rounds):]  # the learner's own time: without this run's rounds
    train_wall = time.perf_counter() - wall0 - sum(r["seconds"] for r in this_run)
    train_cpu = time.process_time() - cpu0 - sum(r["cpu_seconds"] for r in this_run)
    evaluate_and_save(cfg, game, policy, pool, evaluator, rollout, progress, watch, log, unit)

    # 4. the model, the closing table, the results
    model = save_policy(policy, out / "model.zip", game,
                        {"train": {"config": dataclasses.asdict(cfg), "decisions": progress.decisions}})
    rows, notes = [], {}
    if cfg.final_deals:
        log(f"closing table: the advantage over the heuristic in every field, {cfg.final_deals:,} duplicate deals "
            "each …")
        with watch("closing table"):
            rows, notes = closing_table(game, PPOAgent(game, model), cfg.final_deals, cfg.seed,
                                        [m.name for m in pool.fixed])
    trained = progress.decisions - start
    results: dict[str, Any] = {
        "config": dataclasses.asdict(cfg), "decisions": progress.decisions, "updates": progress.updates,
        "train_seconds": round(train_wall, 1), "train_cpu_seconds": round(train_cpu, 1),
        "decisions_per_second": round(trained / train_wall) if train_wall else None,
        "imitation": progress.imitation, "exploiters": progress.exploiters, "time": watch.table(),
        "pool": [{"name": m.name, "weight": round(w, 4)} for m, w in zip(pool.members, pool.weights(), strict=True)],
        "fields": [{**r.to_dict(), "seen": notes[r.field]} for r in rows],
        "beats_heuristic_in_every_field": bool(rows) and all(r.beats for r in rows),
        "model": str(model), "curve": progress.curve,
    }
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    plot_curve(progress.curve, out / "learning_curve.png",
               f"{cfg.game}, {cfg.players} players: every learner seat one policy, pool {seats.opponent_share:.0%} "
               f"of the seats", unit)
    table = fields_table(rows, unit, "trained", notes=notes) if rows else "(no closing table: final_deals = 0)"
    return {**results, "table": table}


def _next(done: int, every: int) -> int:
    """The next multiple of ``every`` after ``done`` (0 when ``every`` is 0: never)."""
    return (done // every + 1) * every if every else 0


def evaluate_and_save(cfg: TrainConfig, game: BatchedGame, policy, pool: OpponentPool,
                      evaluator: PoolEvaluator | None, rollout: Rollout, progress: Progress, watch: Stopwatch,
                      log: Callable[[str], None], unit: str) -> None:
    """Measure the learner against the pool (its league weights follow), add the point to the curve, hand the new
    weights to the rollout and write ``checkpoint.zip``."""
    if evaluator is not None:
        with watch("evaluation"):
            rows = evaluator(policy)
        progress.ahead = dict(pool.ahead)
        progress.curve[-1]["fields"] = {r.field: round(r.advantage, 4) for r in rows} if progress.curve else {}
        rollout.set_opponents(*pool.seating())
        worst = min(rows, key=lambda r: r.advantage)
        mean = sum(r.advantage for r in rows) / len(rows)
        log(f"{progress.decisions:>12,} decisions: advantage over the heuristic against the pool, mean "
            f"{mean:+.3f} {unit}/episode, worst {worst.field} {worst.advantage:+.3f} ± {worst.ci95:.3f}")
    policy.set_training_mode(True)
    with watch("checkpoint"):
        save_policy(policy, cfg.folder / "checkpoint.zip", game,
                    {"train": {**dataclasses.asdict(progress), "config": dataclasses.asdict(cfg)}})
