"""Several games in one process: each game's compiled functions keep their fast dispatch after the others ran.

numba finds the compiled version of a function from a fingerprint of its arguments; a namedtuple's fingerprint holds
its class name and field names, not the class. When two games passed namedtuples of one name and the same fields
(``Extra``), the game that ran second had every call typed again in Python (``Dispatcher._compile_for_args``, about
1 ms a call: one table ran 20-30 times slower). These tests count those slow-path calls instead of timing anything.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from numba._dispatcher import compute_fingerprint

from envs.core.records import kernel_tuple
from envs.registry import GAMES, make_game

PROBE = """
import json, sys
import numpy as np
from numba.core.dispatcher import Dispatcher
from agents.registry import make_agent
from envs.core.game import sample_legal
from envs.registry import make_game

order = [name for name in sys.argv[1:] if not name.startswith("--")]
slow = []
compile_for_args = Dispatcher._compile_for_args

def counting(self, *args, **kws):
    slow.append(self.py_func.__qualname__)
    return compile_for_args(self, *args, **kws)

def play(name, steps=40):
    game = make_game(name, num_players=4)
    bot = make_agent("heuristic", game)
    rng = np.random.default_rng(0)
    state = game.init(7, batch_size=2)
    obs = np.empty((2, game.observation_size), np.float32)
    for i in range(steps):
        game.observe(state, np.maximum(state.current_player, 0), out=obs)
        mask = state.legal_action_mask
        actions = bot.act(obs, mask, rng) if i % 2 else sample_legal(mask, rng)
        game.step(state, actions)
        if state.done.any():
            game.redeal(state, state.done)

for name in order:  # every kernel compiled or loaded, each game after the others
    play(name)
if "--cache-misses" in sys.argv:
    dispatchers = {d for m in list(sys.modules.values()) if (getattr(m, "__name__", "") or "").startswith("envs.")
                   for d in vars(m).values() if isinstance(d, Dispatcher)}
    print(json.dumps(sorted(d.py_func.__qualname__ for d in dispatchers if d.stats.cache_misses)))
    sys.exit()
Dispatcher._compile_for_args = counting
report = {}
for name in order:
    slow.clear()
    play(name)
    report[name] = sorted(set(slow))
print(json.dumps(report))
"""


@pytest.mark.parametrize("order", [list(GAMES), list(reversed(GAMES))], ids=["forward", "reversed"])
def test_each_game_keeps_fast_dispatch_after_the_others(order: list[str]) -> None:
    """In one fresh process, after every game ran once, playing each game again (core, observation and heuristic)
    calls no compiled function through numba's slow typing path."""
    done = subprocess.run([sys.executable, "-c", PROBE, *order], capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report == {name: [] for name in order}


def test_compiled_kernels_load_from_the_disk_cache() -> None:
    """A second fresh process that plays every game compiles nothing: every kernel loads from numba's on-disk cache
    (a kernel argument whose class numba cannot find again by module and name makes every process compile anew)."""
    probe = [sys.executable, "-c", PROBE, *GAMES, "--cache-misses"]
    for _ in range(2):  # the first process may compile and writes the cache
        done = subprocess.run(probe, capture_output=True, text=True, timeout=900, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_kernel_arguments_of_different_games_never_share_a_fingerprint() -> None:
    """Two arguments of different Python types (across every game's kernel arguments) never have one numba
    fingerprint: the cause of the slowdown, checked directly."""
    seen: dict[bytes, type] = {}
    for name in GAMES:
        game = make_game(name, num_players=4)
        for arg in game.kernel_args(game.init(1)):
            fingerprint = compute_fingerprint(arg)
            assert seen.setdefault(fingerprint, type(arg)) is type(arg), (name, type(arg).__name__)


def test_kernel_tuple_refuses_a_name_taken() -> None:
    kernel_tuple("ProbeOnlyTuple", ("a",))
    with pytest.raises(ValueError, match="ProbeOnlyTuple"):
        kernel_tuple("ProbeOnlyTuple", ("b",))


def test_one_process_benchmark_writes_both_columns(tmp_path, monkeypatch) -> None:
    """``python -m benchmarks.one_process`` at a tiny budget: a row per game and face, both columns measured."""
    from benchmarks import one_process

    monkeypatch.chdir(tmp_path)
    result = one_process.main(["--seconds", "0.05", "--batches", "1", "--repeats", "1"])
    assert [(r["game"], r["row"]) for r in result["rows"]] == [(g, row) for g in GAMES for row in ("core@1", "aec@1")]
    assert all(r["alone_per_s"] > 0 and r["in_sequence_per_s"] > 0 for r in result["rows"])
    written = json.loads((tmp_path / "runs" / "benchmarks" / "one_process.json").read_text())
    assert written["rows"] == result["rows"]
