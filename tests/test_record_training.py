"""benchmarks/record_training.py: a finished run's closing table goes into the training record (replacing an entry of
the same name); a missing or damaged results file is refused with one line and the record is left as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.record_training import main, record


def _results(game: str = "tripoli", advantage: float = 0.5) -> dict:
    field = {"field": "heuristic", "advantage": advantage, "ci95": 0.1, "candidate": -1.0, "reference": -1.5,
             "deals": 4000, "seen": "in the training pool", "beats": advantage > 0.1}
    return {"config": {"game": game}, "train_seconds": 60.0, "decisions": 1000, "decisions_per_second": 16.7,
            "pool": [{"name": "heuristic", "weight": 1.0}], "beats_heuristic_in_every_field": advantage > 0.1,
            "fields": [field]}


def _run(tmp_path: Path, name: str, results: dict | str) -> Path:
    run = tmp_path / name
    run.mkdir()
    (run / "results.json").write_text(results if isinstance(results, str) else json.dumps(results))
    return run


def test_a_run_is_recorded_and_a_second_of_the_same_name_replaces_it(tmp_path: Path) -> None:
    out = record("r1", _run(tmp_path, "a", _results()), "make train", "quiet", "0.1, 0.2, 0.3", tmp_path)
    assert out == tmp_path / "train_tripoli.json"
    runs = json.loads(out.read_text())["runs"]
    assert [r["name"] for r in runs] == ["r1"] and runs[0]["fields"]["heuristic"]["advantage"] == 0.5
    assert runs[0]["command"] == "make train" and runs[0]["load_average_at_start_1_5_15"] == "0.1, 0.2, 0.3"
    assert runs[0]["decisions"] == 1000 and runs[0]["final_pool"] == [{"name": "heuristic", "weight": 1.0}]
    record("r2", _run(tmp_path, "b", _results(advantage=0.2)), "c", "n", "", tmp_path)
    record("r1", _run(tmp_path, "c", _results(advantage=-0.5)), "c", "n", "", tmp_path)
    runs = json.loads(out.read_text())["runs"]
    assert [r["name"] for r in runs] == ["r2", "r1"] and runs[1]["fields"]["heuristic"]["beats"] is False
    assert runs[0]["fields"]["heuristic"]["advantage"] == 0.2


@pytest.mark.parametrize("content", ["{not json", json.dumps({"config": {}}), json.dumps([1, 2]), None])
def test_a_missing_or_damaged_results_file_is_refused_and_changes_nothing(tmp_path: Path, content, capsys) -> None:
    record("kept", _run(tmp_path, "good", _results()), "c", "n", "", tmp_path)
    before = (tmp_path / "train_tripoli.json").read_text()
    run = _run(tmp_path, "bad", content) if content is not None else tmp_path / "missing"
    with pytest.raises(ValueError, match="not the results of a finished cardgym train or distill run") as info:
        record("bad", run, "c", "n", "", tmp_path)
    assert "\n" not in str(info.value)
    assert (tmp_path / "train_tripoli.json").read_text() == before
    assert main(["bad", str(run), "--command", "c", "--note", "n"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m benchmarks.record_training: error: ") and err.count("\n") == 1


def test_a_distill_run_is_recorded_with_its_rounds_and_both_columns_of_its_closing_table(tmp_path: Path) -> None:
    row = {"student": {"advantage": -0.4, "ci95": 0.1, "beats": False},
           "distilled": {"advantage": 0.3, "ci95": 0.1, "beats": True}}
    results = {"config": {"game": "tripoli", "rounds": 1}, "student": "runs/tripoli/model.zip",
               "rounds": [{"decisions": 100, "switched": 10, "held_out_switches_learnt": 0.2, "held_out_kept": 0.98,
                           "seconds": 5.0, "fields": []}],
               "closing": {"reference": "heuristic@v1", "deals": 4000, "fields": {"heldout:station": row}}}
    out = record("d1", _run(tmp_path, "d", results), "make train", "quiet", "", tmp_path)
    [run] = json.loads(out.read_text())["runs"]
    assert run["reference"] == "heuristic@v1" and run["beats_reference_in_every_field"] is True
    assert run["fields"]["heldout:station"] == {"advantage": 0.3, "ci95": 0.1, "beats": True, "student_advantage": -0.4,
                                                "student_ci95": 0.1, "student_beats": False, "deals": 4000}
    assert run["distill"]["student"] == "runs/tripoli/model.zip" and run["distill"]["rounds"][0]["switched"] == 10


def test_a_distill_run_without_a_closing_table_is_refused_in_one_line(tmp_path: Path) -> None:
    results = {"config": {"game": "tripoli", "final_deals": 0}, "student": "s.zip", "rounds": []}
    with pytest.raises(ValueError, match="not the results of a finished cardgym train or distill run") as info:
        record("d0", _run(tmp_path, "d", results), "c", "n", "", tmp_path)
    assert "\n" not in str(info.value) and not (tmp_path / "train_tripoli.json").exists()
