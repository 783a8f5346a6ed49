"""Common random numbers (training/table_random.py): a table's draws depend on its table, step and draw only, so a
change at one table of a tournament leaves the random moves of the others as they were; the draws are uniform."""

from __future__ import annotations

import numpy as np
import pytest

from agents.registry import make_agent
from envs.core.checks import ArgumentError
from envs.registry import GAMES, make_game
from training.evaluate import play_tables
from training.table_random import TableRandom


def _draws(rng: TableRandom, tables: np.ndarray, step: int) -> list[np.ndarray]:
    rng.bind(tables, step)
    return [rng.random(len(tables)), rng.integers(7, size=len(tables)), rng.gumbel(size=(len(tables), 5)),
            rng.integers(-3, 3, size=(len(tables), 2), endpoint=True)]


def test_a_rows_draws_depend_on_its_table_step_and_draw_only() -> None:
    tables = np.array([4, 9, 2, 7, 0])
    full = _draws(TableRandom(11), tables, step=3)
    part = _draws(TableRandom(11), tables[[1, 3]], step=3)  # fewer rows, another order of rows
    for a, b in zip(full, part, strict=True):
        assert np.array_equal(a[[1, 3]], b)
    assert not np.array_equal(_draws(TableRandom(11), tables, step=4)[0], full[0])  # another step
    assert not np.array_equal(_draws(TableRandom(12), tables, step=3)[0], full[0])  # another seed
    assert not np.array_equal(full[0], _draws(TableRandom(11), tables[::-1], 3)[0])  # rows follow their tables
    rng = TableRandom(11)
    rng.bind(tables, 3)
    assert not np.array_equal(rng.random(5), rng.random(5))  # the second draw of a call is a new one


def test_the_draws_are_uniform() -> None:
    rng = TableRandom(5)
    rng.bind(np.arange(200_000), 17)
    u = rng.random(200_000)
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.003 and abs(u.var() - 1 / 12) < 0.001
    counts = np.bincount(rng.integers(2, 9, size=200_000), minlength=9)
    assert counts[:2].sum() == 0 and np.abs(counts[2:] / 200_000 - 1 / 7).max() < 0.004
    g = rng.gumbel(size=(200_000, 1))
    assert abs(g.mean() - np.euler_gamma) < 0.01 and abs(g.var() - np.pi**2 / 6) < 0.03
    pairs = rng.random((200_000, 2))
    assert abs(np.corrcoef(pairs[:, 0], pairs[:, 1])[0, 1]) < 0.01  # the columns are independent


def test_other_draws_come_from_the_generators_own_stream() -> None:
    rng = TableRandom(3)
    rng.bind(np.arange(4), 0)
    assert rng.random(3).shape == (3,) and 0 <= rng.random() < 1  # not one number per row: plain draws
    assert rng.integers(5, size=(2, 4)).shape == (2, 4) and rng.normal(size=4).shape == (4,)
    with pytest.raises(ValueError):
        rng.integers(5, 5, size=4)  # numpy's own refusal of an empty range


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("spec", ["random", "agents.heldout:NoisyHeuristic", "agents.heldout:MixedZoo"])
def test_a_different_deal_at_one_table_leaves_the_others_as_they_were(name: str, spec: str) -> None:
    """Random players at 16 tables, then the same with another deal at table 0: tables 1–15 play exactly the same
    games (before common random numbers, the other length of table 0's game shifted every later draw)."""
    game = make_game(name, 4)
    agents = [make_agent(spec, game)]
    seat_agent = np.zeros((16, 4), np.int64)
    seeds = np.arange(100, 116)
    first, _ = play_tables(game, agents, seat_agent, seeds, np.random.default_rng(8))
    other = seeds.copy()
    other[0] = 999
    second, _ = play_tables(game, agents, seat_agent, other, np.random.default_rng(8))
    assert np.array_equal(first[1:], second[1:])


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, "3", None, True])
def test_a_bad_seed_is_refused_with_one_line(seed) -> None:
    with pytest.raises(ArgumentError, match="seed must be an integer from 0 to 2\\*\\*64-1") as info:
        TableRandom(seed)
    assert "\n" not in str(info.value)
