"""cardgym side by side with the systems a user would pick instead, on this machine, in one run.

    python -m benchmarks.compare [--seconds 3] [--batches 1 64 1024 8192] [--out FILE.json] [--commit]

Random legal play on every cardgym core (4 players) at each batch size and through its PettingZoo face, and on the
anchors of :mod:`benchmarks.anchors` (PettingZoo classic, OpenSpiel, RLCard). Every measurement runs in a fresh
Python process, one after another, so its peak memory (the child's peak resident set, ``VmHWM``, interpreter and
libraries included; see :func:`peak_rss`) is its own. Every time is process CPU time (``time.process_time``), the
clock of :mod:`benchmarks.throughput`, whose ``core_rate`` and ``aec_rate`` measure cardgym: other work on the
machine slows these figures far less than wall-clock ones (though not to nothing: caches and memory bandwidth are
shared), and all sides use the same clock.

What is counted, so that the sides compare:

- A *decision* is one action chosen by a player (cardgym resolves forced moves inside ``step``; chance events of
  the anchors are not decisions). Every decision on both sides also yields the acting player's observation and
  legal actions and includes drawing the random legal action: the cardgym core rows time the whole loop of
  :func:`benchmarks.throughput.core_rate` (observe + ``sample_legal`` + step + re-deal of finished tables);
  ``step only`` is the share of that loop spent in ``step``, a secondary column.
- Resets are timed on every row: the core rows re-deal inside the clock; the PettingZoo rows (cardgym's face and
  the PettingZoo anchors alike) seed their first ``reset`` and reset unseeded afterwards, as a user's loop does
  (a seeded PettingZoo reset builds a new generator: about three times the cost).
- Games per second: anchors count whole games; for cardgym it is the decision rate divided by the mean decisions
  per game under random play (measured here on :data:`SAMPLE_TABLES` tables); the PettingZoo face of cardgym
  counts its games' decisions directly (the ``None`` steps of finished agents are not decisions).

It prints a table of rates, a table of ratios (each cardgym decision rate divided by each anchor's) and a memory
table, and writes the JSON file and a plot (the JSON path with ``.png``).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import importlib.util
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import results_dir, write_result
from benchmarks.anchors import ANCHORS
from benchmarks.arguments import add_batches, add_commit, add_seconds, benchmark_parser
from envs.registry import GAMES as REGISTRY
from training.cli_args import count
from training.limits import MAX_TABLES

ROOT = Path(__file__).parent.parent
GAMES = tuple(REGISTRY)
PLAYERS = 4
SAMPLE_TABLES = 512
"""Tables played to the end to measure the mean number of decisions per game of each cardgym core."""
MEMORY_BUDGET = 4 * 2**30
"""The memory budget of the largest-batch figure: 4 GiB."""
RESULT_TAG = "COMPARE-RESULT "
VERSIONED = ("numpy", "pettingzoo", "open_spiel", "rlcard", "gymnasium")


# ----- one measurement (runs in the child process) -------------------------------------------------------------------
def _measure_here(spec: dict[str, Any], seconds: float) -> dict[str, Any]:
    """Measure ``spec`` in this process: rates and peak memory, or why it could not be measured."""
    if spec["kind"] == "core":
        from benchmarks.throughput import core_rate
        from envs.registry import make_game

        loop, step = core_rate(make_game(spec["game"], num_players=PLAYERS), spec["batch"], seconds)
        out = {"decisions_per_s": loop, "step_per_s": step}
    elif spec["kind"] == "aec":
        from benchmarks.throughput import aec_rate

        decisions, steps = aec_rate(spec["game"], PLAYERS, seconds)
        out = {"decisions_per_s": decisions, "steps_per_s": steps}
    else:
        try:
            decisions, games = ANCHORS[spec["anchor"]].measure(seconds, 0)
        except ModuleNotFoundError as err:  # a library the anchor imports needs a module that is not installed
            return {"status": "not installed", "detail": f"no module {err.name!r}"}
        out = {"decisions_per_s": decisions, "games_per_s": games}
    out["peak_rss_bytes"] = peak_rss()
    out["status"] = "ok"
    return out


def peak_rss() -> int:
    """Peak resident memory of this process in bytes. Linux: ``VmHWM`` of ``/proc/self/status``, which starts afresh
    at ``exec``; ``ru_maxrss`` (the fallback elsewhere) keeps the peak of the forking parent."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    scale = 1 if sys.platform == "darwin" else 1024  # macOS reports bytes, others KiB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def _missing(spec: dict[str, Any]) -> str | None:
    """The first module an anchor needs that is not installed, or ``None``."""
    if spec["kind"] != "anchor":
        return None
    for module in ANCHORS[spec["anchor"]].needs:
        try:
            if importlib.util.find_spec(module) is None:
                return module
        except ModuleNotFoundError:  # the parent package is missing
            return module
    return None


def measure(spec: dict[str, Any], seconds: float) -> dict[str, Any]:
    """Measure ``spec`` in a fresh Python process; a missing anchor gives status ``"not installed"``."""
    missing = _missing(spec)
    if missing is not None:
        return {"status": "not installed", "detail": f"no module {missing!r}"}
    cmd = [sys.executable, "-m", "benchmarks.compare", "--worker", json.dumps(spec), "--seconds", str(seconds)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=10 * seconds + 300)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_TAG):
            return json.loads(line[len(RESULT_TAG):])
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return {"status": "failed", "detail": f"exit code {proc.returncode}: {tail}"}


# ----- cardgym figures measured in this process ----------------------------------------------------------------------
def decisions_per_game(game_name: str, tables: int = SAMPLE_TABLES, seed: int = 10**6) -> float:
    """Mean decisions per game of random legal play, over ``tables`` games played to the end."""
    import numpy as np

    from envs.core.game import sample_legal
    from envs.registry import make_game

    game = make_game(game_name, num_players=PLAYERS)
    state, rng, decisions = game.init(seed, batch_size=tables), np.random.default_rng(seed), 0
    while not state.done.all():
        decisions += int((~state.done).sum())
        game.step(state, sample_legal(state.legal_action_mask, rng))
    return decisions / tables


def state_memory(game_name: str, tables: int = 1024) -> dict[str, Any]:
    """Bytes per table of a real state (every array of it, legal mask included) and of one float32 observation, and
    the largest batch whose state and observation buffer fit in :data:`MEMORY_BUDGET`."""
    from envs.registry import make_game

    game = make_game(game_name, num_players=PLAYERS)
    state = game.init(0, batch_size=tables)
    state_bytes = sum(getattr(state, f.name).nbytes for f in dataclasses.fields(state)) / tables
    obs_bytes = game.observation_size * 4
    return {
        "game": game_name,
        "state_bytes": state_bytes,
        "legal_mask_bytes": state.legal_action_mask.nbytes / tables,
        "observation_bytes": obs_bytes,
        "max_batch_4gib": int(MEMORY_BUDGET // (state_bytes + obs_bytes)),
    }


def measured_memory(rows: list[dict[str, Any]], game_name: str) -> dict[str, Any] | None:
    """Peak memory per table from the core rows of the smallest and largest batch (temporaries of ``step`` and
    ``observe`` included), and the largest batch that fits in :data:`MEMORY_BUDGET` by that measure."""
    core = [r for r in rows if r["kind"] == "core" and r["game"] == game_name and r["status"] == "ok"]
    if len(core) < 2:
        return None
    small, large = min(core, key=lambda r: r["batch"]), max(core, key=lambda r: r["batch"])
    per_table = (large["peak_rss_bytes"] - small["peak_rss_bytes"]) / (large["batch"] - small["batch"])
    if per_table <= 0:
        return None
    base = small["peak_rss_bytes"] - per_table * small["batch"]
    return {"peak_bytes_per_table": per_table, "max_batch_4gib_measured": int((MEMORY_BUDGET - base) // per_table)}


# ----- the run -------------------------------------------------------------------------------------------------------
def plan(batches: list[int]) -> list[dict[str, Any]]:
    """Every measurement of a run, in order."""
    specs: list[dict[str, Any]] = []
    for game in GAMES:
        specs += [{"kind": "core", "system": "cardgym core", "game": game, "batch": b} for b in batches]
        specs.append({"kind": "aec", "system": "cardgym AEC", "game": game, "batch": 1})
    for key, anchor in ANCHORS.items():
        specs.append({"kind": "anchor", "anchor": key, "system": anchor.system, "game": anchor.game, "batch": 1})
    return specs


def _finish_cardgym(row: dict[str, Any], per_game: float) -> None:
    """Fill in games/s of a cardgym row from its decision rate."""
    row["games_per_s"] = row["decisions_per_s"] / per_game


def ratios(rows: list[dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    """Decision rate of each cardgym row divided by each anchor's (``None`` where an anchor has no figure)."""
    anchors = {r["anchor"]: r.get("decisions_per_s") for r in rows if r["kind"] == "anchor"}
    out = {}
    for row in rows:
        if row["kind"] != "anchor" and row["status"] == "ok":
            out[f"{row['game']} {row['kind']} {row['batch']}"] = {
                key: (row["decisions_per_s"] / rate if rate else None) for key, rate in anchors.items()
            }
    return out


def machine() -> dict[str, Any]:
    """Date, processor, Python and library versions of this run."""
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [ln.split(":", 1)[1].strip() for ln in cpuinfo.read_text().splitlines() if ln.startswith("model name")]
        cpu = f"{names[0]} ({len(names)} logical cores)" if names else cpu
    versions = {}
    for dist in ("cardgym", *VERSIONED):
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[dist] = None
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpu": cpu,
        "system": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "versions": versions,
        "clock": "process CPU time (time.process_time), one fresh process per measurement",
        "load_average": [round(x, 1) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
    }


def _fmt(value: float | None, spec: str = ",.0f") -> str:
    return "-" if value is None else format(value, spec)


def _ratio(value: float | None) -> str:
    """A ratio with two or more significant digits, e.g. ``"0.0031x"``, ``"4.2x"``, ``"1,250x"``."""
    if value is None:
        return "n/a"
    return format(value, ",.0f" if value >= 9.95 else ".1f" if value >= 0.995 else ".2g") + "x"


def report(result: dict[str, Any]) -> str:
    """The printed tables."""
    m = result["machine"]
    lines = [
        f"cardgym vs anchors, random legal play, {m['date']}, {m['cpu']}, {m['python']}",
        "versions: " + ", ".join(f"{k} {v or 'not installed'}" for k, v in m["versions"].items()),
        f"clock: {m['clock']}; {result['seconds']} s per measurement; cardgym at {result['players']} players; "
        f"load average at the end {m['load_average']}",
        "",
        f"{'system':<13} {'game':<16} {'batch':>6} {'decisions/s':>12} {'step only':>12} {'games/s':>11}"
        f" {'peak MiB':>9}",
    ]
    for row in result["rows"]:
        system, game = row["system"], row["game"]
        if row["status"] != "ok":
            lines.append(f"{system:<13} {game:<16} {row['batch']:>6}   {row['status']} ({row['detail']})")
            continue
        lines.append(
            f"{system:<13} {game:<16} {row['batch']:>6} {_fmt(row['decisions_per_s']):>12} "
            f"{_fmt(row.get('step_per_s')):>12} {_fmt(row['games_per_s'], ',.1f'):>11} "
            f"{row['peak_rss_bytes'] / 2**20:>9.0f}"
        )
    keys = [r["anchor"] for r in result["rows"] if r["kind"] == "anchor"]
    lines += ["", "ratio of decisions/s, cardgym / anchor (observation, random legal action, step, resets: both sides)",
              f"{'cardgym':<22}" + "".join(f"{k:>11}" for k in keys)]
    for name, row in result["ratios"].items():
        lines.append(f"{name:<22}" + "".join(f"{_ratio(row[k]):>11}" for k in keys))
    lines += ["", "memory per table: state arrays (legal mask included) + one float32 observation; "
              "measured = peak RSS growth per table from the smallest to the largest batch",
              f"{'game':<10} {'state B':>9} {'of which mask':>14} {'obs B':>7} {'max batch in 4 GiB':>19}"
              f" {'measured B':>11} {'measured max batch':>19}"]
    for mem in result["memory"]:
        lines.append(
            f"{mem['game']:<10} {mem['state_bytes']:>9,.0f} {mem['legal_mask_bytes']:>14,.0f} "
            f"{mem['observation_bytes']:>7,} {mem['max_batch_4gib']:>19,} "
            f"{_fmt(mem.get('peak_bytes_per_table')):>11} {_fmt(mem.get('max_batch_4gib_measured')):>19}"
        )
    return "\n".join(lines)


def plot(result: dict[str, Any], path: Path) -> None:
    """Decisions/s against batch size on log axes: one line per cardgym core (step + observation, and thin: step
    only; its PettingZoo face as a square at batch 1), each anchor as a horizontal line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5.5))
    rows = [r for r in result["rows"] if r["status"] == "ok"]
    for i, game in enumerate(GAMES):
        core = sorted((r for r in rows if r["kind"] == "core" and r["game"] == game), key=lambda r: r["batch"])
        colour = f"C{i}"
        batch = [r["batch"] for r in core]
        ax.plot(batch, [r["decisions_per_s"] for r in core], "o-", color=colour, label=f"cardgym {game} (core)")
        ax.plot(batch, [r["step_per_s"] for r in core], ".:", color=colour, alpha=0.6, lw=1,
                label=f"cardgym {game} (core, step only)")
        for r in rows:
            if r["kind"] == "aec" and r["game"] == game:
                ax.plot([1], [r["decisions_per_s"]], "s", color=colour, mfc="none", ms=9,
                        label=f"cardgym {game} (PettingZoo face)")
    styles = ["--", ":", "-."]
    for j, r in enumerate(r for r in rows if r["kind"] == "anchor"):
        ax.axhline(r["decisions_per_s"], color=f"C{3 + j}", ls=styles[j % 3], lw=1.2,
                   label=f"{r['system']} {r['game']}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("batch size (tables stepped at once; anchors play one table)")
    ax.set_ylabel("decisions per second (step + observation, CPU time)")
    ax.set_title(f"Random legal play, one process, {result['machine']['date']}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run(seconds: float, batches: list[int], out: Path, sample_tables: int = SAMPLE_TABLES) -> dict[str, Any]:
    """Measure everything, print the tables, write ``out`` (JSON) and ``out`` with ``.png`` (plot)."""
    per_game = {game: decisions_per_game(game, sample_tables) for game in GAMES}
    rows = []
    for spec in plan(batches):
        row = {**spec, **measure(spec, seconds)}
        if row["kind"] != "anchor" and row["status"] == "ok":
            _finish_cardgym(row, per_game[row["game"]])
        rows.append(row)
        print(f"  measured {row['system']} {row['game']} batch {row['batch']}: {row['status']}", file=sys.stderr,
              flush=True)
    memory = [{**state_memory(game), **(measured_memory(rows, game) or {})} for game in GAMES]
    result = {
        "machine": machine(),
        "seconds": seconds,
        "players": PLAYERS,
        "sample_tables": sample_tables,
        "decisions_per_game": per_game,
        "rows": rows,
        "ratios": ratios(rows),
        "memory": memory,
    }
    print(report(result), flush=True)
    write_result(result, out)
    plot(result, out.with_suffix(".png"))
    print(f"written to {out.with_suffix('.png')}")
    return result


def main(argv: list[str] | None = None) -> dict[str, Any] | None:
    ap = benchmark_parser("compare", __doc__)
    add_seconds(ap, 3.0, "measurement")
    add_batches(ap, [1, 64, 1024, 8192])
    ap.add_argument("--out", type=Path, default=None,
                    help="JSON file; the plot gets .png (default: compare.json in runs/benchmarks/, or with "
                         "--commit in benchmarks/results/)")
    add_commit(ap)
    ap.add_argument("--sample-tables", type=count(MAX_TABLES), default=SAMPLE_TABLES,
                    help="games played to the end to measure cardgym's mean decisions per game "
                         f"(default {SAMPLE_TABLES})")
    ap.add_argument("--worker", help=argparse.SUPPRESS)  # one measurement, run by `measure` in a child process
    args = ap.parse_args(argv)
    if args.worker:
        print(RESULT_TAG + json.dumps(_measure_here(json.loads(args.worker), args.seconds)), flush=True)
        return None
    out = args.out or results_dir(args.commit) / "compare.json"
    return run(args.seconds, sorted(set(args.batches)), out, args.sample_tables)


if __name__ == "__main__":
    main()
