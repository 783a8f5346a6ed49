"""Expert iteration: a trained policy improved by searching from it, the search distilled back into it
(``distill(DistillConfig(...))``; ``cardgym distill``).

The search player (:mod:`agents.search`) plays far better than any network the trainer makes, but it costs
milliseconds a decision. Each *round* of expert iteration (Anthony et al. 2017, "Thinking fast and slow with deep
learning and tree search") turns some of that strength into the network's:

1. **Search from the student.** The teacher is the search with the student as its
   :attr:`~agents.search.SearchAgent.base`: at each decision it tries the candidate actions in deals sampled from its
   seat's view (never the real deal's hidden cards) and keeps the student's choice unless a candidate beats it. It
   plays one seat of tables of every *field* (each fixed agent of an ``opponents`` list,
   :func:`training.opponent_pool.parse_opponents`, at every other seat), ``deals`` duplicate deals a field; every
   decision of its seat with more than one legal action is kept: the observation, the legal actions and the
   teacher's action. The positions are the teacher's, so they are those an improved student meets. A quarter of the
   switches are answered again by an independent search, and the round reports the share it made again: a switch that
   another search seldom repeats is the sampled deals' luck, a target no network learns (Tripoli's teacher: two in
   three; Le triolet's at 200 playouts: one in four, and its distillation failed).
2. **Distil.** The student's network is fitted to the teacher's actions by cross-entropy (``epochs`` passes, Adam).
   Where the teacher kept the student's choice the target is that choice, so the student changes only where the
   search moved it and it can tell from its observation that it should.

A soft target, the student's policy tilted by the search's measured gains (``π(a) exp(gain(a) / τ)``, as in MPO),
was measured weaker than the teacher's choice (docs/experiments.md, rows distill-*).

The student is a model file (``trained``: the agent that ships for the game); the result keeps its network's shape
and advisor, so it plays wherever the student did (``ppo:OUT/model.zip``). Round ``K`` writes ``OUT/round-K.zip``
(the next round's student) and its decisions to ``OUT/data/round-K/`` (one ``.npz`` a field, plain arrays);
``OUT/model.zip`` is the last round's model, ``OUT/results.json`` the config,
each round's counts and fit, and the closing table: the student and the result against ``reference`` (the game's
best bot, :data:`agents.search.ROLLOUT`, unless another is named) in every field of
:func:`training.closing.closing_fields`, held-out styles included.

Budgets are deals and playouts, not time, so a config gives the same model on any machine; the fields run in
``workers`` processes, each field's deals from its own seed.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch as th

from agents.model_file import read_metadata
from agents.ppo import PPOAgent, load_policy, policy_input, save_policy
from agents.registry import make_agent, trained_model
from agents.search import ROLLOUT, SearchAgent
from envs.core.agent import agent_label
from envs.core.rng import hash_u64
from envs.registry import env_version, make_game
from training.actor_critic import inputs, logits_and_values
from training.closing import closing_fields
from training.distill_config import DistillConfig, DistillError
from training.evaluate import UNITS, FieldEvaluator, evaluate
from training.executors import InProcess, ProcessPool
from training.opponent_pool import parse_opponents

STREAM_COLLECT = 401
"""Random stream (:mod:`envs.core.rng`) of the collection's deal seeds, one per round and field."""
FIELDS_PER_ROUND = 10_000
"""Seed counters of a round: field ``k`` of round ``r`` plays the deals of counter ``r * FIELDS_PER_ROUND + k``."""
CLOSING_SEED = 11
"""Deal seed of the closing table (``benchmarks.strength``'s)."""
BATCH = 1024
"""Decisions per gradient step."""
HELD_OUT_SHARE = 10
"""One decision in this many is held out of the fit to measure it."""
CHECK_SHARE = 0.25
"""The share of the teacher's switches a second search answers again (:class:`RecordingSearch`): about 2,000 in a
round of ``make train``'s (the share made again known to about ±2%) for about 5% more search."""


class RecordingSearch(SearchAgent):
    """The search, keeping every decision with a choice it answers: the observation, the legal actions and its
    action.

    It also measures how reproducible its switches are: at a random :data:`CHECK_SHARE` of the decisions where it
    leaves the base's choice, a second search of the same budget, on a random stream of its own (seeded by
    ``check_seed``; the play is that of the first search alone), answers the same decision, and :attr:`reproduced`
    counts the switches it makes to the same action. A switch that an independent search seldom repeats is one the
    sampled deals' luck made, a target no network can learn from its observation (docs/experiments.md:
    teacher-consistency)."""

    def __init__(self, *args: Any, check_seed: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.check = SearchAgent(*args, **kwargs)
        """The second search that answers the first one's switches."""
        self.check_rng = np.random.default_rng(check_seed)
        self.checked = 0
        """Decisions where this search left the base's choice and :attr:`check` answered too."""
        self.reproduced = 0
        """Of those, decisions where :attr:`check` left it for the same action."""

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator, views: Any = None) -> np.ndarray:
        out = np.asarray(super().act(obs, mask, rng, views), np.int64)
        mask = np.asarray(mask, bool)
        rows = mask.sum(axis=1) > 1
        self.kept.append((np.asarray(obs, np.float32)[rows], mask[rows], out[rows]))
        moved = np.flatnonzero(out != self.base_choice)
        moved = moved[self.check_rng.random(moved.size) < CHECK_SHARE]
        if moved.size:
            again = self.check.act(np.asarray(obs)[moved], mask[moved], self.check_rng,
                                   [views[r] for r in moved.tolist()])
            self.checked += int(moved.size)
            self.reproduced += int((np.asarray(again) == out[moved]).sum())
        return out

    def decisions(self) -> dict[str, np.ndarray]:
        """The kept decisions: ``obs`` (N, D), ``mask`` (N, A), ``action`` (N,)."""
        return {name: np.concatenate([k[i] for k in self.kept]) for i, name in enumerate(("obs", "mask", "action"))}


@dataclasses.dataclass(frozen=True)
class CollectTask:
    """One field of one round's collection (plain values: it runs in any process)."""

    game: str
    players: int
    student: str
    """The student's model file."""
    playouts: int
    field: str
    """The agent spec at the other seats."""
    deals: int
    seed: int
    """The deals' seed."""
    path: str
    """Where the decisions are written (``.npz``)."""


def collect_field(task: CollectTask) -> dict[str, Any]:
    """Play the teacher (the search from ``task.student``) at one seat of ``task.deals`` duplicate deals against
    copies of ``task.field`` and write its decisions to ``task.path`` (:meth:`RecordingSearch.decisions`). Returns
    what it counted."""
    game = make_game(task.game, num_players=task.players)
    teacher = RecordingSearch(game, playouts=task.playouts, base=PPOAgent(game, task.student), check_seed=task.seed)
    evaluate(game, [teacher] + [make_agent(task.field, game)] * (task.players - 1), deals=task.deals,
             seed=task.seed, batch_size=1024)
    arrays = teacher.decisions()
    partial = Path(task.path).with_suffix(".partial.npz")
    np.savez(partial, **arrays)
    partial.replace(task.path)  # a field's file is there whole or not at all
    return {"field": task.field, "decisions": int(len(arrays["action"])), "searched": teacher.stats["searched"],
            "cpu_seconds_per_searched": round(teacher.stats["cpu_seconds"] / max(teacher.stats["searched"], 1), 4),
            "checked": teacher.checked, "reproduced": teacher.reproduced}


def load_decisions(paths: list[Path]) -> dict[str, np.ndarray]:
    """The decisions of a round's files, concatenated (plain arrays: nothing is unpickled)."""
    parts = []
    for path in paths:
        with np.load(path, allow_pickle=False) as data:
            parts.append({name: data[name] for name in ("obs", "mask", "action")})
    return {name: np.concatenate([p[name] for p in parts]) for name in ("obs", "mask", "action")}


def _choices(policy: Any, x: th.Tensor, mask: th.Tensor) -> th.Tensor:
    """The policy's most likely legal action for each row of inputs ``x``."""
    out = []
    with th.no_grad():
        for i in range(0, len(x), 8192):
            logits, _ = logits_and_values(policy, x[i:i + 8192])
            out.append(logits.masked_fill(~mask[i:i + 8192], -1e8).argmax(1))
    return th.cat(out)


def fit(policy: Any, data: dict[str, np.ndarray], epochs: int, learning_rate: float, seed: int,
        log: Callable[[str], None] = print) -> dict[str, Any]:
    """Fit ``policy`` to the teacher's actions in ``data`` (module docstring), holding one decision in
    :data:`HELD_OUT_SHARE` out; returns the counts and, on the held-out decisions, how often the fitted policy takes
    the teacher's action where the teacher left the student's choice (``switches``) and where it kept it."""
    th.manual_seed(seed)
    mask = th.as_tensor(data["mask"])
    action = th.as_tensor(data["action"])
    x = inputs(policy, th.as_tensor(policy_input(policy, data["obs"], data["mask"])))
    switched = _choices(policy, x, mask) != action
    order = th.as_tensor(np.random.default_rng(seed).permutation(len(action)))
    held, train = order[: len(order) // HELD_OUT_SHARE], order[len(order) // HELD_OUT_SHARE:]

    def agreement(rows: th.Tensor) -> tuple[float | None, float | None]:
        same = _choices(policy, x[rows], mask[rows]) == action[rows]
        moved = switched[rows]
        return tuple(float(same[part].float().mean()) if part.any() else None for part in (moved, ~moved))

    optimizer = th.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    for epoch in range(epochs):
        shuffled = train[th.randperm(len(train))]
        for i in range(0, len(shuffled), BATCH):
            rows = shuffled[i:i + BATCH]
            logits, _ = logits_and_values(policy, x[rows])
            loss = th.nn.functional.cross_entropy(logits.masked_fill(~mask[rows], -1e8), action[rows])
            optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
        on_switches, on_kept = agreement(held)
        log(f"  epoch {epoch + 1}: on held-out decisions the fitted policy takes the teacher's action where it "
            f"switched {_share(on_switches)}, where it kept the student's {_share(on_kept)}")
    policy.set_training_mode(False)
    return {"decisions": int(len(action)), "switched": int(switched.sum()), "held_out": int(len(held)),
            "held_out_switches_learnt": on_switches, "held_out_kept": on_kept}


def reproduced_share(counts: list[dict[str, Any]]) -> float | None:
    """The share of a round's checked switches that the teacher's check search made too (:class:`RecordingSearch`;
    ``None`` without one)."""
    checked = sum(c["checked"] for c in counts)
    return round(sum(c["reproduced"] for c in counts) / checked, 4) if checked else None


def _share(value: float | None) -> str:
    return "(none held out)" if value is None else f"{value:.3f}"


def reference_spec(cfg: DistillConfig) -> str:
    """The agent spec the closing table measures against (``best``: the game's best bot)."""
    return ROLLOUT[cfg.game] if cfg.reference == "best" else cfg.reference


def closing_table(game_name: str, players: int, models: dict[str, str], deals: int, reference: str
                  ) -> dict[str, Any]:
    """Each model's advantage over ``reference`` in every field of the training closing table
    (:func:`training.closing.closing_fields`; same seats, same duplicate deals)."""
    game = make_game(game_name, num_players=players)
    evaluator = FieldEvaluator(game, make_agent(reference, game), deals, CLOSING_SEED, reference_name=reference)
    table: dict[str, Any] = {"reference": agent_label(make_agent(reference, game)), "deals": deals, "fields": {}}
    for field, agent in closing_fields(game).items():
        rows = {}
        for name, model in models.items():
            row, _ = evaluator.field(PPOAgent(game, model), field, agent, name)
            rows[name] = {"advantage": round(row.advantage, 4), "ci95": round(row.ci95, 4), "beats": row.beats}
        table["fields"][field] = rows
    for name in models:
        rows = list(table["fields"].values())
        table[f"mean_{name}"] = round(sum(r[name]["advantage"] for r in rows) / len(rows), 4)
        table[f"beats_{name}"] = sum(r[name]["beats"] for r in rows)
    return table


def student_path(cfg: DistillConfig) -> Path:
    """The student's model file (``trained``: the one that ships for the game)."""
    path = trained_model(cfg.game) if cfg.student == "trained" else Path(cfg.student)
    if not path.is_file():
        raise DistillError(f"student {cfg.student}: no such model file" if cfg.student != "trained"
                           else f"student trained: no trained agent ships for {cfg.game}")
    return path


def check(cfg: DistillConfig) -> list[str]:
    """Everything that can be checked before any work: the student loads for the game, the fields build, the output
    folder is new or empty. Returns the fields' specs."""
    from training.exploit import check_new_folder

    game = make_game(cfg.game, num_players=cfg.players)
    load_policy(student_path(cfg), game)
    fields = [m.name for m in parse_opponents(cfg.opponents, game)]
    make_agent(reference_spec(cfg), game)
    check_new_folder(cfg.out, "--out")
    return fields


def distill(cfg: DistillConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run ``cfg``'s rounds (module docstring); returns what ``OUT/results.json`` holds."""
    fields = check(cfg)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    game = make_game(cfg.game, num_players=cfg.players)
    first = student_path(cfg)
    student, rounds = first, []
    meta = read_metadata(first)
    executor = InProcess() if cfg.workers == 1 else ProcessPool(cfg.workers)
    try:
        for r in range(1, cfg.rounds + 1):
            start = time.perf_counter()
            folder = out / "data" / f"round-{r}"
            folder.mkdir(parents=True, exist_ok=True)
            seeds = hash_u64(np.uint64(cfg.seed), STREAM_COLLECT,
                             np.arange(len(fields), dtype=np.uint64) + np.uint64(r * FIELDS_PER_ROUND))
            tasks = [CollectTask(cfg.game, cfg.players, str(student), cfg.playouts, spec, cfg.deals, int(seed),
                                 str(folder / f"{k:03d}.npz"))
                     for k, (spec, seed) in enumerate(zip(fields, seeds.tolist(), strict=True))]
            log(f"round {r}: the search from {student} plays {len(fields)} fields, {cfg.deals:,} deals each")
            counts = []
            for _, found in executor.map_unordered(collect_field, tasks):
                counts.append(found)
                log(f"  {found['field']}: {found['decisions']:,} decisions, {found['searched']:,} searched")
            policy = load_policy(student, game)
            data = load_decisions([Path(t.path) for t in tasks])
            fitted = fit(policy, data, cfg.epochs, cfg.learning_rate, cfg.seed + r, log)
            del data
            student = out / f"round-{r}.zip"
            save_policy(policy, student, game, extra=_metadata(cfg, meta, rounds + [fitted]))
            reproduced = reproduced_share(counts)
            rounds.append({**fitted, "switches_reproduced": reproduced,
                           "fields": sorted(counts, key=lambda c: fields.index(c["field"])),
                           "seconds": round(time.perf_counter() - start, 1)})
            log(f"  round {r}: {fitted['switched']:,} of {fitted['decisions']:,} decisions switched by the search, "
                f"{_share(reproduced)} of those checked made again by an independent search; wrote {student}")
    finally:
        executor.close()
    shutil.copyfile(student, out / "model.zip")
    result: dict[str, Any] = {"config": dataclasses.asdict(cfg), "env": env_version(cfg.game),
                              "unit": UNITS[cfg.game], "student": str(first), "rounds": rounds,
                              "model": str(out / "model.zip")}
    if cfg.final_deals:
        log(f"closing table: the student and the result against {reference_spec(cfg)}, {cfg.final_deals:,} deals a "
            "field")
        result["closing"] = closing_table(cfg.game, cfg.players, {"student": str(first),
                                                                  "distilled": str(out / "model.zip")},
                                          cfg.final_deals, reference_spec(cfg))
    (out / "results.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def _metadata(cfg: DistillConfig, student_meta: dict[str, Any], rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """What a distilled model file records beyond the policy: the student's training (``train``) and distillations,
    then this run's config and rounds."""
    runs = list(student_meta.get("distill", [])) + [{"config": dataclasses.asdict(cfg), "rounds": rounds}]
    return {"distill": runs, **({"train": student_meta["train"]} if "train" in student_meta else {})}


def closing_text(result: dict[str, Any]) -> str:
    """The closing table as printed lines."""
    table = result["closing"]
    lines = [f"advantage over {table['reference']} in the same seats of the same duplicate deals ({result['unit']} "
             f"per deal, {table['deals']:,} deals a field)", f"{'field':<22} {'student':>16} {'distilled':>16}"]
    for field, row in table["fields"].items():
        lines.append((f"{field:<22} " + " ".join(f"{row[k]['advantage']:>+8.3f} ± {row[k]['ci95']:<6.3f}"
                                                 for k in ("student", "distilled"))).rstrip())
    lines.append(f"{'mean':<22} {table['mean_student']:>+8.3f}{'':8} {table['mean_distilled']:>+8.3f}")
    won = [f"{table[f'beats_{k}']} of {len(table['fields'])}" for k in ("student", "distilled")]
    lines.append(f"{'fields beaten':<22} {won[0]:>8}{'':8} {won[1]:>8}   (the 95% interval above 0)")
    return "\n".join(lines)
