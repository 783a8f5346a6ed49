"""Where a trained agent's edge comes from: its departures from a reference bot, by kind, and what each kind is worth.

    python -m benchmarks.deviations --game tripoli --model runs/tripoli/model.zip --fields heuristic,heldout:noisy

An agent trained from the heuristic (``cardgym train``: imitated, advised and pulled towards it) plays like the
heuristic except where its network says otherwise, so its advantage over the heuristic is the sum of what those
departures earn. For each field (``players - 1`` copies of
one agent) this counts the departures by kind — the reference's action kind and the model's, e.g. ``call -> fold``
(a kind is an action's name without its cards and numbers: ``bet 3`` is ``bet``, ``discard 8♣`` is ``discard``) —
and measures, on the same duplicate deals as the whole model, a *gated* agent that plays the reference everywhere
except at the departures of one kind, where it plays the model. Each gated agent's advantage over the reference is
what that kind of departure is worth in that field; the kinds need not add up exactly to the whole (a departure
changes the positions that follow). Numbers go to ``benchmarks/results/deviations_<game>_<label>.json``.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from agents.heldout import heldout_specs
from agents.registry import make_agent
from benchmarks.arguments import add_game, add_players, add_seed, benchmark_parser, checked_games, refused
from envs.core.agent import AgentBase
from envs.core.game import BatchedGame, action_kind
from training.cli_args import count
from training.evaluate import FieldEvaluator
from training.limits import MAX_DEALS

RESULTS = Path(__file__).parent / "results"
MAX_TOP = 100
"""Departure kinds measured per field at most (``--top``): each is a measurement of ``--deals`` deals."""


class Gated(AgentBase):
    """Plays ``reference`` except where ``model`` departs from it by one of ``pairs`` (reference kind, model kind),
    where it plays ``model``; counts every departure it sees by kind in :attr:`seen`."""

    name = "gated"

    def __init__(self, game: BatchedGame, model: Any, reference: Any, pairs: set[tuple[str, str]] | None) -> None:
        super().__init__(game)
        self.model, self.reference, self.pairs = model, reference, pairs
        names = game.action_names() if callable(game.action_names) else game.action_names
        kinds = sorted({action_kind(n) for n in names})
        self.kind_names = kinds
        self.kind_of = np.array([kinds.index(action_kind(n)) for n in names], np.int64)
        self.seen: Counter[tuple[str, str]] = Counter()
        self.decisions = 0

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        mine = np.asarray(self.model.act(obs, mask, rng), np.int64)  # first: its random draws are the model's own
        ref = np.asarray(self.reference.act(obs, mask, rng), np.int64)
        differ = mine != ref
        self.decisions += len(mine)
        pairs = list(zip(self.kind_of[ref[differ]].tolist(), self.kind_of[mine[differ]].tolist(), strict=True))
        self.seen.update((self.kind_names[a], self.kind_names[b]) for a, b in pairs)
        if self.pairs is None:
            return mine
        use = np.zeros(len(mine), bool)
        use[np.flatnonzero(differ)] = [(self.kind_names[a], self.kind_names[b]) in self.pairs for a, b in pairs]
        return np.where(use, mine, ref)


def field_spec(game: str, field: str) -> str:
    """The agent spec of a field: ``heldout:NAME`` names a held-out style (:mod:`agents.heldout`), anything else is
    an agent spec."""
    if field.startswith("heldout:"):
        styles = heldout_specs(game)
        name = field[len("heldout:"):]
        if name not in styles:
            raise ValueError(f"no held-out style {name!r} in {game} (known: {', '.join(styles)})")
        return styles[name]
    return field


def breakdown(game: BatchedGame, model_agent: Any, ref_agent: Any, fields: dict[str, Any], deals: int, seed: int,
              top: int) -> list[dict[str, Any]]:
    """For each field (name → the agent in its ``players - 1`` seats), the model's departures from the reference by
    kind (per 1,000 of its decisions) and the advantage over the reference of the whole model and of the ``top``
    most frequent kinds alone, on ``deals`` duplicate deals from ``seed``."""
    evaluator = FieldEvaluator(game, ref_agent, deals=deals, seed=seed)
    rows = []
    for field, opponent in fields.items():
        whole = Gated(game, model_agent, ref_agent, None)
        adv, _ = evaluator.field(whole, field, opponent, name="model")
        kinds = [{"departure": f"{a} -> {b}", "per_1000_decisions": round(1000 * n / max(whole.decisions, 1), 2)}
                 for (a, b), n in whole.seen.most_common()]
        for kind in kinds[:top]:
            a, b = kind["departure"].split(" -> ")
            part, _ = evaluator.field(Gated(game, model_agent, ref_agent, {(a, b)}), field, opponent, name="gated")
            kind.update(advantage=round(part.advantage, 4), ci95=round(part.ci95, 4))
        rows.append({"field": field, "advantage": round(adv.advantage, 4), "ci95": round(adv.ci95, 4),
                     "model_decisions": whole.decisions, "departures": kinds})
    return rows


def report(rows: list[dict[str, Any]], reference: str) -> str:
    """The printed table of :func:`breakdown`'s rows."""
    lines = []
    for row in rows:
        lines.append(f"{row['field']}: the model {row['advantage']:+.4f} ± {row['ci95']:.4f} over the {reference}")
        for kind in row["departures"]:
            worth = f"{kind['advantage']:+.4f} ± {kind['ci95']:.4f}" if "advantage" in kind else "(not measured)"
            lines.append(f"  {kind['departure']:<28} {kind['per_1000_decisions']:>8.2f} per 1,000   {worth}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = benchmark_parser("deviations", __doc__.split("\n")[0])
    add_game(p, "tripoli")
    add_players(p)
    p.add_argument("--model", required=True,
                   help="the agent examined: a model file's path, or any agent spec (ppo:path/to/model.zip, a bot)")
    p.add_argument("--reference", default="heuristic", help="the bot it is compared with (default heuristic)")
    p.add_argument("--fields", default="heuristic,heldout:noisy",
                   help="comma-separated fields: agent specs, or heldout:NAME for a held-out style")
    p.add_argument("--deals", type=count(MAX_DEALS), default=10_000,
                   help="duplicate deals per measurement (default 10,000)")
    add_seed(p, 12345, "seed of the deals")
    p.add_argument("--top", type=count(MAX_TOP, low=0), default=8,
                   help="departure kinds measured in each field (default 8)")
    p.add_argument("--label", default="", help="name of the results file (default: the model file's folder)")
    args = p.parse_args(argv)
    game = checked_games(p, [args.game], args.players)[args.game]
    model = f"ppo:{args.model}" if args.model.endswith(".zip") and ":" not in args.model else args.model
    label = args.label or (Path(model[len("ppo:"):]).parent.name if model.startswith("ppo:") else "") or "model"
    try:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", label):
            raise ValueError(f"--label must be letters, digits, '_', '.' or '-', got {label!r}")
        names = [f.strip() for f in args.fields.split(",") if f.strip()]
        if not names:
            raise ValueError("--fields names no field")
        fields = {name: make_agent(field_spec(args.game, name), game) for name in names}
        model_agent, ref_agent = make_agent(model, game), make_agent(args.reference, game)
        rows = breakdown(game, model_agent, ref_agent, fields, args.deals, args.seed, args.top)
    except ValueError as e:  # a label, a field, an agent spec or a model file it cannot use
        return refused(p, e)
    print(report(rows, args.reference))
    out = RESULTS / f"deviations_{args.game}_{label}.json"
    out.write_text(json.dumps({"game": args.game, "players": args.players, "model": model,
                               "reference": args.reference, "deals": args.deals, "seed": args.seed,
                               "fields": rows}, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
