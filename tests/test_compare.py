"""The comparison benchmark (issue 7) on a tiny budget: every measurement is made or reported, files are written.

Anchors that are not installed must come out as "not installed" (by name), never as a crash; a made-up anchor whose
module does not exist checks that path whatever is installed here.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from benchmarks import compare
from benchmarks.anchors import ANCHORS, Anchor
from envs.registry import make_game

FAKE = "fake-anchor"


def _installed(modules: tuple[str, ...]) -> bool:
    try:
        return all(importlib.util.find_spec(m) is not None for m in modules)
    except ModuleNotFoundError:
        return False


def _never_called(seconds: float, seed: int = 0) -> tuple[float, float]:
    raise AssertionError("a missing anchor must not be run")


def test_tiny_comparison_measures_or_reports_everything_and_writes_json_and_plot(tmp_path, monkeypatch):
    # One run for all the checks below (a module fixture would run once per xdist worker).
    out = tmp_path / "compare.json"
    monkeypatch.setitem(ANCHORS, FAKE, Anchor("Nowhere", "no_game", ("no_such_module_for_cardgym",), _never_called))
    result = compare.main(["--seconds", "0.05", "--batches", "1", "--sample-tables", "16", "--out", str(out)])
    _check_files(result, out)
    _check_cardgym_rows(result)
    _check_anchor_rows(result)
    _check_ratios(result)
    _check_memory(result)
    text = compare.report(result)
    assert "Nowhere" in text and "not installed" in text
    assert all(f"{g} core 1" in text for g in compare.GAMES)


def _check_files(result: dict, out) -> None:
    assert json.loads(out.read_text()) == json.loads(json.dumps(result))
    png = out.with_suffix(".png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000


def _check_cardgym_rows(result: dict) -> None:
    rows = [r for r in result["rows"] if r["kind"] != "anchor"]
    assert {(r["game"], r["kind"], r["batch"]) for r in rows} == {
        (g, kind, 1) for g in compare.GAMES for kind in ("core", "aec")
    }
    for row in rows:
        assert row["status"] == "ok", row
        assert row["decisions_per_s"] > 0 and row["peak_rss_bytes"] > 2**20
        per_game = result["decisions_per_game"][row["game"]]
        assert row["games_per_s"] == pytest.approx(row["decisions_per_s"] / per_game)
        if row["kind"] == "core":  # the whole loop is slower than its step
            assert row["decisions_per_s"] < row["step_per_s"]
        else:  # the face's steps include the None steps of finished agents, which are not decisions
            assert row["decisions_per_s"] < row["steps_per_s"]


def _check_anchor_rows(result: dict) -> None:
    anchors = {r["anchor"]: r for r in result["rows"] if r["kind"] == "anchor"}
    assert set(anchors) == set(ANCHORS)  # the made-up anchor included
    assert anchors[FAKE]["status"] == "not installed" and "no_such_module_for_cardgym" in anchors[FAKE]["detail"]
    for key, anchor in ANCHORS.items():
        if key == FAKE:
            continue
        row = anchors[key]
        if _installed(anchor.needs):
            assert row["status"] == "ok", row
            assert row["decisions_per_s"] > 0 and row["games_per_s"] > 0
        else:
            assert row["status"] == "not installed", row


def _check_ratios(result: dict) -> None:
    anchors = {r["anchor"]: r for r in result["rows"] if r["kind"] == "anchor"}
    for row in result["rows"]:
        if row["kind"] == "anchor":
            continue
        ratios = result["ratios"][f"{row['game']} {row['kind']} {row['batch']}"]
        for key, anchor in anchors.items():
            if anchor["status"] == "ok":
                assert ratios[key] == pytest.approx(row["decisions_per_s"] / anchor["decisions_per_s"])
            else:
                assert ratios[key] is None


def _check_memory(result: dict) -> None:
    for mem in result["memory"]:
        game = make_game(mem["game"], num_players=compare.PLAYERS)
        assert mem["legal_mask_bytes"] == game.num_actions  # one bool per action, part of the state
        assert mem["observation_bytes"] == 4 * game.observation_size
        assert mem["legal_mask_bytes"] < mem["state_bytes"]
        per_table = mem["state_bytes"] + mem["observation_bytes"]
        assert mem["max_batch_4gib"] * per_table <= 4 * 2**30 < (mem["max_batch_4gib"] + 1) * per_table


def test_measured_memory_is_the_peak_growth_per_table():
    rows = [
        {"kind": "core", "game": "tripoli", "status": "ok", "batch": 1, "peak_rss_bytes": 50 * 2**20 + 8_000},
        {"kind": "core", "game": "tripoli", "status": "ok", "batch": 1025, "peak_rss_bytes": 50 * 2**20 + 8_200_000},
    ]
    mem = compare.measured_memory(rows, "tripoli")
    assert mem["peak_bytes_per_table"] == 8_000
    assert mem["max_batch_4gib_measured"] == (4 * 2**30 - 50 * 2**20) // 8_000
    assert compare.measured_memory(rows[:1], "tripoli") is None


def test_anchor_whose_library_lacks_a_module_is_not_installed(monkeypatch):
    def needs_more(seconds: float, seed: int = 0) -> tuple[float, float]:
        raise ModuleNotFoundError("No module named 'a_dependency'", name="a_dependency")

    monkeypatch.setitem(ANCHORS, FAKE, Anchor("Nowhere", "no_game", ("json",), needs_more))
    row = compare._measure_here({"kind": "anchor", "anchor": FAKE, "batch": 1}, 0.01)
    assert row == {"status": "not installed", "detail": "no module 'a_dependency'"}
