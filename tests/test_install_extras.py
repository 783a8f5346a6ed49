"""The install without the ``train`` extra (``pip install -e .``): the envs, the bots, ``cardgym agents``, ``eval`` and
``league`` work without torch, Stable-Baselines3, sb3-contrib or tyro, and what needs them (``cardgym train``,
``cardgym exploit``, ``cardgym distill``, a ``ppo:`` agent, ``examples/ppo_selfplay.py``) says so in one line naming
the extra.

Most cases run in a new Python whose import system finds none of the extra's modules, as if they were not installed
(:data:`WITHOUT_TRAIN`, Python's path finder with those names left out); one builds a real virtual environment with
``pip install -e .`` alone, which also shows that the core's own dependency list is complete.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from envs.core.extras import EXTRAS

ROOT = Path(__file__).resolve().parents[1]

WITHOUT_TRAIN = f"""
import sys
from importlib.machinery import PathFinder

class WithoutTrainExtra(PathFinder):
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.partition(".")[0] in {EXTRAS["train"]!r}:
            return None
        return super().find_spec(name, path, target)

sys.meta_path[sys.meta_path.index(PathFinder)] = WithoutTrainExtra
"""
"""Code run first: the train extra's modules cannot be found (``import torch`` fails as it does where it is absent)."""

CARDGYM = WITHOUT_TRAIN + "from training.cli import main; main()"
"""``python -c CARDGYM ARGS`` is ``cardgym ARGS`` without the train extra."""


def run(code: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -c code args`` on this checkout's code, in ``cwd``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300, cwd=cwd,
                          env=env)


def test_the_library_imports_without_the_train_extra(tmp_path) -> None:
    code = WITHOUT_TRAIN + """
import envs, envs.vector, agents.registry, agents.search, training.cli, training.evaluate, training.league
import torch
"""
    done = run(code, cwd=tmp_path)  # the last import shows that torch really is out of reach
    assert done.returncode == 1 and done.stderr.endswith("ModuleNotFoundError: No module named 'torch'\n"), done.stderr


@pytest.mark.parametrize("args, printed", [
    (["agents", "--game", "triolet"], "specials"),
    (["eval", "--game", "triolet", "--players", "3", "--agents", "random", "heuristic", "specials", "--deals", "6",
      "--no-save"], "triolet, 3 players"),
    (["league", "--game", "triolet", "--players", "3", "--agents", "random", "heuristic", "specials", "--deals", "6",
      "--quiet", "--no-plot", "--out", "league"], "league_triolet_3p.json"),
])
def test_commands_without_the_train_extra(args, printed, tmp_path) -> None:
    done = run(CARDGYM, *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert printed in done.stdout


TRAIN_EXTRA = 'needs the train extra: pip install -e ".[train]"'


@pytest.mark.parametrize("code, args, status, message", [
    (CARDGYM, ["train", "--out", "out"], 2, f"cardgym train: error: training {TRAIN_EXTRA}"),
    (CARDGYM, ["exploit", "--agent", "heuristic", "--out", "out"], 2,
     f"cardgym exploit: error: training a best response {TRAIN_EXTRA}"),
    (CARDGYM, ["distill", "--out", "out"], 2, f"cardgym distill: error: expert iteration {TRAIN_EXTRA}"),
    (CARDGYM, ["eval", "--agents", "ppo:model.zip", "random", "random", "random", "--no-save"], 2,
     f"cardgym eval: error: agent 'ppo:model.zip': playing a model file {TRAIN_EXTRA}"),
    (WITHOUT_TRAIN + f"import runpy; runpy.run_path({str(ROOT / 'examples' / 'ppo_selfplay.py')!r}, "
                     "run_name='__main__')", ["--help"], 1, f"examples/ppo_selfplay.py {TRAIN_EXTRA}"),
], ids=["train", "exploit", "distill", "ppo-agent", "example"])
def test_a_missing_train_extra_is_one_line(code, args, status, message, tmp_path) -> None:
    (tmp_path / "model.zip").write_bytes(b"not read")
    done = run(code, *args, cwd=tmp_path)
    assert (done.returncode, done.stderr, done.stdout) == (status, message + "\n", "")
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_a_new_virtual_environment_with_the_core_alone_plays_and_refuses_training_in_one_line(tmp_path) -> None:
    """``python -m venv`` and ``pip install -e .`` (the constraints file's versions, no extra), then, in that
    environment: none of the train extra's modules is importable, ``cardgym eval`` plays a table of bots, and
    ``cardgym train`` says in one line which extra it needs."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    install = subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                              "-c", ROOT / "constraints.txt", "-e", ROOT], capture_output=True, text=True, timeout=1200)
    assert install.returncode == 0, install.stderr[-3000:]

    def in_venv(*args: str) -> subprocess.CompletedProcess:
        env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
        return subprocess.run([*args], capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)

    found = in_venv(str(python), "-c", "import importlib.util as u; "
                    f"print(sorted(m for m in {EXTRAS['train']!r} if u.find_spec(m)))")
    assert (found.returncode, found.stdout) == (0, "[]\n"), found.stderr
    cardgym = str(venv / "bin" / "cardgym")
    played = in_venv(cardgym, "eval", "--game", "triolet", "--players", "3", "--agents", "random", "heuristic",
                     "specials", "--deals", "6", "--no-save")
    assert played.returncode == 0 and "triolet, 3 players" in played.stdout, played.stderr
    refused = in_venv(cardgym, "train", "--out", "out")
    assert (refused.returncode, refused.stderr, refused.stdout) == (
        2, f"cardgym train: error: training {TRAIN_EXTRA}\n", "")
    assert not (tmp_path / "out").exists()
