"""How long a user waits before the first decision: import, compile and first use of each game's compiled core.

    python -m benchmarks.compile_time [--players 4] [--out FILE.json] [--commit]

For each game, two fresh Python processes run the same few lines (import the game, ``init`` one table, ``observe``,
``step`` a random legal action, re-deal, and the same at a batch of 64 tables): the first with an empty numba cache
directory (``NUMBA_CACHE_DIR`` pointing at a new temporary directory: a fresh clone, everything compiled), the second
with that directory as the first left it (every later run). Times are wall-clock seconds of each child process from
start to exit, interpreter start and imports included. Results are printed and written to ``compile_time.json`` in
``runs/benchmarks/`` (``--commit``: ``benchmarks/results/``).
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import results_dir, write_result
from benchmarks.arguments import add_commit, add_players, benchmark_parser, checked_games
from envs.registry import GAMES

ROOT = Path(__file__).parent.parent
FIRST_USE = """
import numpy as np
from envs.core.game import sample_legal
from envs.registry import make_game
game = make_game({name!r}, num_players={players})
for batch in (1, 64):
    state = game.init(0, batch_size=batch)
    game.observe(state, np.maximum(state.current_player, 0))
    game.step(state, sample_legal(state.legal_action_mask, np.random.default_rng(0)))
    game.redeal(state, np.arange(batch), np.arange(batch, dtype=np.uint64) + 7)
"""


def first_use_seconds(name: str, players: int, cache_dir: Path) -> float:
    """Wall-clock seconds of a fresh process that imports game ``name`` and uses it once, with ``cache_dir`` as the
    numba cache."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", FIRST_USE.format(name=name, players=players)], cwd=ROOT, env=env,
                   check=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> dict:
    ap = benchmark_parser("compile_time", __doc__)
    add_players(ap)
    ap.add_argument("--out", type=Path, default=None,
                    help="JSON file (default: compile_time.json in runs/benchmarks/, or with --commit in "
                         "benchmarks/results/)")
    add_commit(ap)
    args = ap.parse_args(argv)
    checked_games(ap, GAMES, args.players)
    rows = []
    print(f"{'game':<10}{'cold cache s':>14}{'warm cache s':>14}")
    for name in GAMES:
        with tempfile.TemporaryDirectory(prefix="cardgym-numba-") as cache:
            cold = first_use_seconds(name, args.players, Path(cache))
            warm = first_use_seconds(name, args.players, Path(cache))
        rows.append({"game": name, "cold_s": cold, "warm_s": warm})
        print(f"{name:<10}{cold:>14.1f}{warm:>14.1f}")
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        "load_average": [round(x, 1) for x in os.getloadavg()],
        "clock": "wall-clock seconds of a fresh process: start, imports, compile (cold) or cache load (warm), "
                 "first init/observe/step/redeal at 1 and 64 tables",
        "rows": rows,
    }
    write_result(result, args.out or results_dir(args.commit) / "compile_time.json")
    return result


if __name__ == "__main__":
    main()
