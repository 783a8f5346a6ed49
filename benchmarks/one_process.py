"""The three games played one after another in one Python process, beside each game's rates alone.

    python -m benchmarks.one_process [--seconds 2] [--batches 1 8192] [--commit]

A notebook that looks at two games, a script that evaluates several, the test suite: all of them run games one after
another in one process. Each "alone" row runs in a fresh process that plays only that game; the "in sequence" rows
run in one fresh process that plays every game, then every game again in the same order (so that each game's second
measurement comes after all the others ran), and report that second pass. Rows: the core loop of
:func:`benchmarks.throughput.core_rate` at each batch size and the PettingZoo face (:func:`benchmarks.throughput.
aec_rate`). The ratio in sequence / alone should be about 1 (the goal is at least 0.8); a game whose compiled
functions lose their fast dispatch once another game ran falls to a few percent at one table. CPU time of the
process (``time.process_time``); every row is the median of ``--repeats`` rounds, each of which measures both
columns. Written to ``one_process.json`` in ``runs/benchmarks/`` (``--commit``:
``benchmarks/results/``).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import results_dir, write_result
from benchmarks.arguments import add_batches, add_commit, add_seconds, benchmark_parser
from envs.registry import GAMES
from training.cli_args import count

PLAYERS = 4
MAX_REPEATS = 100
"""Rounds of measurements at most (``--repeats``): each runs every game in fresh processes, alone and in sequence."""
RESULT_TAG = "ONE-PROCESS-RESULT "
ROOT = Path(__file__).resolve().parent.parent


def _rates(game_name: str, batches: list[int], seconds: float) -> dict[str, float]:
    """The decisions/s of ``game_name`` in this process: core loop at each batch, then the AEC face."""
    from benchmarks.throughput import aec_rate, core_rate
    from envs.registry import make_game

    game = make_game(game_name, num_players=PLAYERS)
    rates = {f"core@{b}": core_rate(game, b, seconds)[0] for b in batches}
    rates["aec@1"] = aec_rate(game_name, PLAYERS, seconds)[0]
    return rates


def _worker(games: list[str], batches: list[int], seconds: float) -> dict[str, dict[str, float]]:
    """In this process: every game once (its first rates are dropped), then every game again, reported."""
    for name in games if len(games) > 1 else []:
        _rates(name, batches, seconds / 4)
    return {name: _rates(name, batches, seconds) for name in games}


def _in_fresh_process(games: list[str], batches: list[int], seconds: float) -> dict[str, dict[str, float]]:
    cmd = [sys.executable, "-m", "benchmarks.one_process", "--worker", *games, "--batches", *map(str, batches),
           "--seconds", str(seconds)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_TAG):
            return json.loads(line[len(RESULT_TAG):])
    raise RuntimeError(f"one_process worker failed: {(proc.stderr.strip().splitlines() or ['no output'])[-1]}")


def _median_rates(runs: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """Each game's and row's median over ``runs`` (repeated measurements of the same rows)."""
    return {name: {row: float(np.median([r[name][row] for r in runs])) for row in runs[0][name]} for name in runs[0]}


def run(seconds: float, batches: list[int], repeats: int) -> dict[str, Any]:
    """``repeats`` rounds, each measuring every game alone and all of them in sequence (so that a change of the
    machine's load hits both columns alike); the median of each row."""
    games = list(GAMES)
    alone_runs, together_runs = [], []
    for _ in range(repeats):
        alone_runs.append({name: _in_fresh_process([name], batches, seconds)[name] for name in games})
        together_runs.append(_in_fresh_process(games, batches, seconds))
    alone, together = _median_rates(alone_runs), _median_rates(together_runs)
    rows = [{"game": name, "row": row, "alone_per_s": alone[name][row], "in_sequence_per_s": together[name][row],
             "ratio": together[name][row] / alone[name][row]} for name in games for row in alone[name]]
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        "clock": "process CPU time; alone: a fresh process per game; in sequence: one process, second pass; median of "
                 "the repeats",
        "order": games,
        "seconds": seconds,
        "repeats": repeats,
        "rows": rows,
        "worst_ratio": min(r["ratio"] for r in rows),
    }


def report(result: dict[str, Any]) -> str:
    lines = [f"games in one process ({' → '.join(result['order'])}, second pass) beside each alone, decisions/s",
             f"{'game':<10}{'row':<12}{'alone':>14}{'in sequence':>14}{'ratio':>8}"]
    for r in result["rows"]:
        lines.append(f"{r['game']:<10}{r['row']:<12}{r['alone_per_s']:>14,.0f}{r['in_sequence_per_s']:>14,.0f}"
                     f"{r['ratio']:>8.2f}")
    lines.append(f"worst ratio {result['worst_ratio']:.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any] | None:
    ap = benchmark_parser("one_process", __doc__)
    add_seconds(ap, 2.0, "row")
    add_batches(ap, [1, 8192])
    ap.add_argument("--repeats", type=count(MAX_REPEATS), default=3,
                    help="rounds of measurements; each row reports their median (default 3)")
    add_commit(ap)
    ap.add_argument("--worker", nargs="+", choices=sorted(GAMES), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(RESULT_TAG + json.dumps(_worker(args.worker, args.batches, args.seconds)))
        return None
    result = run(args.seconds, args.batches, args.repeats)
    print(report(result))
    write_result(result, results_dir(args.commit) / "one_process.json")
    return result


if __name__ == "__main__":
    main()
