"""Append a finished training run to the record of training runs that the README and docs/experiments.md quote.

    python -m benchmarks.record_training NAME RUN_DIR --command "make train" --note "quiet" [--load "0.5, 0.4, 0.3"]

Reads ``RUN_DIR/results.json`` (what ``cardgym train`` writes at the end of a run: its settings, its speed and the
closing table of its advantage over the heuristic in every field) and puts one entry named ``NAME`` into
``benchmarks/results/train_<game>.json`` (an entry of the same name is replaced): the command as a user would type
it, a note on how the machine was loaded, the run's speed, opponent pool and final weights and every field of its
closing table. A ``cardgym distill`` run (``make train``'s second step) is recorded the same way: its rounds and its
closing table, the result and its student in every field. A missing or damaged results file is refused with one
line and the record is left as it was.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from benchmarks.arguments import benchmark_parser, refused

RESULTS = Path(__file__).parent / "results"


def entry(name: str, results: dict[str, Any], command: str, note: str, load: str) -> dict[str, Any]:
    """The record's entry for one run's ``results`` (the parsed ``results.json``)."""
    fields = {f["field"]: {"advantage": round(f["advantage"], 4), "ci95": round(f["ci95"], 4),
                           "model": round(f["candidate"], 4), "heuristic": round(f["reference"], 4),
                           "deals": f["deals"], "seen": f["seen"], "beats": f["beats"]}
              for f in results["fields"]}
    return {"name": name, "command": command, "load_average_at_start_1_5_15": load, "note": note,
            "train_seconds": results["train_seconds"], "imitation": results.get("imitation"),
            "decisions": results["decisions"], "decisions_per_second": results["decisions_per_second"],
            "final_pool": results.get("pool"),
            "beats_heuristic_in_every_field": results["beats_heuristic_in_every_field"], "fields": fields}


def distill_entry(name: str, results: dict[str, Any], command: str, note: str, load: str) -> dict[str, Any]:
    """The record's entry for a ``cardgym distill`` run's ``results``: its rounds and its closing table (the result,
    and the student it started from, against the table's reference)."""
    closing = results["closing"]
    fields = {field: {"advantage": row["distilled"]["advantage"], "ci95": row["distilled"]["ci95"],
                      "beats": row["distilled"]["beats"], "student_advantage": row["student"]["advantage"],
                      "student_ci95": row["student"]["ci95"], "student_beats": row["student"]["beats"],
                      "deals": closing["deals"]}
              for field, row in closing["fields"].items()}
    rounds = [{k: r[k] for k in ("decisions", "switched", "held_out_switches_learnt", "held_out_kept", "seconds")}
              for r in results["rounds"]]
    return {"name": name, "command": command, "load_average_at_start_1_5_15": load, "note": note,
            "distill": {"student": results["student"], "config": results["config"], "rounds": rounds},
            "reference": closing["reference"],
            "beats_reference_in_every_field": all(f["beats"] for f in fields.values()), "fields": fields}


def record(name: str, run_dir: Path, command: str, note: str, load: str = "", results_dir: Path = RESULTS) -> Path:
    """Put run ``name`` of ``run_dir`` into ``results_dir/train_<game>.json``; returns that path. Raises
    ``ValueError`` (one line) for a missing or damaged ``results.json``, before anything is written."""
    path = Path(run_dir) / "results.json"
    try:
        results = json.loads(path.read_text())
        game = results["config"]["game"]
        new = (distill_entry if "rounds" in results else entry)(name, results, command, note, load)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path}: not the results of a finished cardgym train or distill run "
                         f"({type(e).__name__}: {e})") from e
    out = Path(results_dir) / f"train_{game}.json"
    record = json.loads(out.read_text()) if out.exists() else {"game": game, "runs": []}
    record["runs"] = [r for r in record["runs"] if r["name"] != name] + [new]
    out.write_text(json.dumps(record, indent=1) + "\n")
    return out


def main(argv: list[str] | None = None) -> int:
    p = benchmark_parser("record_training", __doc__.split("\n")[0])
    p.add_argument("name", help="the run's name in the record (docs/experiments.md lists the names so far)")
    p.add_argument("run_dir", type=Path, help="the run's output directory (holding results.json)")
    p.add_argument("--command", required=True, help="the command that made the run, as a user would type it")
    p.add_argument("--note", required=True, help="what else the machine did meanwhile, and anything worth knowing")
    p.add_argument("--load", default="", help="the load averages (1, 5, 15 min) when the run started")
    args = p.parse_args(argv)
    try:
        out = record(args.name, args.run_dir, args.command, args.note, args.load)
    except ValueError as e:
        return refused(p, e)
    runs = json.loads(out.read_text())["runs"]
    fields = runs[-1]["fields"].values()
    reference = runs[-1].get("reference", "the heuristic")
    print(f"{out}: {args.name}, beats {reference} in {sum(f['beats'] for f in fields)} of {len(fields)} fields")
    return 0


if __name__ == "__main__":
    sys.exit(main())
