"""``python -m benchmarks.table_signal``: the accuracy of telling two fields apart from a sitting's summed ratio, and
the command on a small budget."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import table_signal
from benchmarks.table_signal import SITTINGS, TARGETS, main, sitting_accuracy


def deals(numerators, denominators) -> np.ndarray:
    return np.stack([np.asarray(numerators, float), np.asarray(denominators, float)], axis=1)


def test_fields_whose_every_deal_differs_are_told_apart_after_one_deal():
    rng = np.random.default_rng(0)
    assert sitting_accuracy(deals([2, 3, 2], [1, 1, 1]), deals([9, 8, 10], [1, 1, 1]), 1, rng) == 1.0


def test_the_same_field_is_a_coin_toss():
    same = deals([1, 5, 9, 2], [1, 1, 1, 1])
    assert sitting_accuracy(same, same.copy(), 4, np.random.default_rng(0)) == 0.5


def test_overlapping_fields_are_told_apart_better_as_the_sitting_grows():
    rng = np.random.default_rng(1)
    a = deals(rng.normal(10, 7, 4000), np.ones(4000))
    b = deals(rng.normal(17, 9, 4000), np.ones(4000))
    accuracy = [sitting_accuracy(a, b, k, np.random.default_rng(2)) for k in (1, 4, 16)]
    assert 0.6 < accuracy[0] < accuracy[1] < accuracy[2] and accuracy[2] > 0.9


def test_a_sitting_with_nothing_to_count_counts_half():
    # field b's deals never have a denominator: every sitting of b is a coin toss; a's are all right
    a = deals([1, 1], [1, 1])
    b = deals([0, 0], [0, 0])
    assert sitting_accuracy(a, b, 3, np.random.default_rng(0)) == pytest.approx(0.75)


def test_the_command_measures_every_field_against_each_target(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(table_signal, "results_dir", lambda commit: tmp_path)
    main(["--games", "flipflop", "--deals", "24"])
    written = json.loads((tmp_path / "table_signal.json").read_text())["games"]["flipflop"]
    assert set(written["targets"]) == set(TARGETS["flipflop"])
    for told in written["targets"].values():
        assert set(told["against"]) == set(written["fields"]) - set(TARGETS["flipflop"])
        assert all(set(acc) == {str(k) for k in SITTINGS} and all(0 <= v <= 1 for v in acc.values())
                   for acc in told["against"].values())
        assert told["hardest"] in told["against"]
    assert written["fields"]["patient"]["ratio"] > 1  # turns per deal
    assert "patient told from heuristic after 1 deals" in capsys.readouterr().out


def test_a_game_without_a_signal_is_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--games", "triolet"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        "python -m benchmarks.table_signal: error: argument --games: 'triolet' is not one of the games with a table "
        "signal: tripoli, flipflop (see python -m benchmarks.table_signal --help)"]
