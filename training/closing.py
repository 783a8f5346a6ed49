"""What a training run reports at the end: the closing table and the learning curve.

The closing table is the trained agent's advantage over the heuristic in every field it may meet
(:func:`closing_fields`: random, every bot of the game's zoo, and the held-out styles of :mod:`agents.heldout`, which
no training pool names), ``num_players - 1`` copies of the field's agent at the other seats, on the same duplicate
deals as the heuristic (:class:`training.evaluate.FieldEvaluator`), each with its 95% interval. The learning curve
(:func:`plot_curve`) draws the periodic evaluations' advantage in each field of the pool and the training return.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.heldout import every_field, heldout_specs
from agents.registry import make_agent
from envs.core.agent import Agent
from envs.core.game import BatchedGame
from training.evaluate import FieldAdvantage, FieldEvaluator

CLOSING_SEED_OFFSET = 2
"""The closing table's deals come from the run's seed plus this (apart from training's and the evaluations')."""


def closing_fields(game: BatchedGame) -> dict[str, Agent]:
    """Every field of the closing table, name → agent: ``random``, the zoo, ``heldout:<style>``
    (:func:`agents.heldout.every_field`, the held-out styles marked)."""
    heldout = heldout_specs(game.name)
    return {(f"heldout:{name}" if name in heldout else name): make_agent(spec, game)
            for name, spec in every_field(game.name).items()}


def closing_table(game: BatchedGame, agent: Agent, deals: int, seed: int, pool_names: list[str]
                  ) -> tuple[list[FieldAdvantage], dict[str, str]]:
    """The rows of the closing table of ``agent`` (``deals`` duplicate deals a field) and a note per field: in the
    training pool, or never seen."""
    evaluator = FieldEvaluator(game, make_agent("heuristic", game), deals, seed + CLOSING_SEED_OFFSET)
    rows = evaluator(agent, closing_fields(game), "trained")
    notes = {r.field: "in the training pool" if r.field in pool_names else "never seen" for r in rows}
    return rows, notes


def plot_curve(curve: list[dict[str, Any]], path: Path, title: str, unit: str) -> Path:
    """Learning curve: the advantage over the heuristic in each field of the pool at every periodic evaluation
    (symmetric log scale) beside the learner's return per episode in training, against learner decisions."""
    from matplotlib.figure import Figure  # its own figure: the process's backend is left alone (notebooks)

    evals = [p for p in curve if "fields" in p]
    fig = Figure(figsize=(12, 4))
    left, right = fig.subplots(1, 2)
    x = np.array([p["decisions"] for p in curve], dtype=float) / 1e6
    ret = np.array([np.nan if p.get("return") is None else p["return"] for p in curve])
    left.plot(x, ret, ".", markersize=2, color="tab:orange")
    left.set_xlabel("learner decisions (millions)")
    left.set_ylabel(f"{unit} per episode against the pool (training)")
    left.set_title(title, fontsize=9)
    names = list(dict.fromkeys(name for p in evals for name in p["fields"]))
    xe = np.array([p["decisions"] for p in evals], dtype=float) / 1e6
    for name in names:  # matplotlib leaves out labels that start with "_" (a field such as __main__:Bot)
        right.plot(xe, [p["fields"].get(name, np.nan) for p in evals], ".-",
                   label=name if not name.startswith("_") else "\u2009" + name)
    right.axhline(0, color="black", linewidth=0.8)
    right.set_yscale("symlog", linthresh=1.0 if unit == "chips" else 0.05)
    right.set_xlabel("learner decisions (millions)")
    right.set_ylabel(f"advantage over the heuristic, {unit}/episode")
    right.set_title("advantage in each field of the pool (periodic evaluations)", fontsize=9)
    if names:
        right.legend(fontsize=6, ncol=3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    return path
