"""The golden playthroughs of tests/golden.py: each committed log replays against today's core, and playing the same
games again writes the same file, byte for byte."""

from __future__ import annotations

import pytest

from envs.gamelog import read_log, verify
from envs.registry import GAMES
from tests.golden import CASES, GOLDEN, play


@pytest.mark.parametrize("name", list(GAMES))
def test_golden_log_replays(name: str) -> None:
    logs = read_log(GOLDEN / f"{name}.jsonl")
    assert [(g.header["num_players"], g.header["seed"]) for g in logs] == [(n, s) for n, _, s in CASES[name]]
    for log in logs:
        verify(log)


@pytest.mark.parametrize("name", list(GAMES))
def test_same_games_write_the_same_log(name: str, tmp_path) -> None:
    path = tmp_path / f"{name}.jsonl"
    play(name, path)
    assert path.read_bytes() == (GOLDEN / f"{name}.jsonl").read_bytes(), (
        f"{name}: the golden games now play differently; if the rules changed on purpose, bump the env version "
        "and run `python -m tests.golden`")
