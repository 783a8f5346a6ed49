"""``cardgym distill`` (expert iteration, :mod:`training.distill`) at a tiny budget: what a run writes, that the
teacher is the search from the student, that the fit learns the teacher's switches and keeps the rest, and bad
input refused with one line before anything is written."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch as th

from agents.model_file import read_metadata
from agents.ppo import PPOAgent, load_policy
from agents.registry import make_agent, trained_model
from agents.search import SearchAgent
from envs.registry import env_version, make_game
from tests.input_helpers import cli_refused
from training import distill
from training.cli import main
from training.closing import closing_fields
from training.config import load_recipe
from training.distill import RecordingSearch, closing_table, fit, load_decisions, reproduced_share
from training.distill_config import DistillConfig, DistillError
from training.evaluate import evaluate

th.set_num_threads(1)

TINY = ["--deals", "8", "--playouts", "16", "--opponents", "heuristic", "--final-deals", "8", "--workers", "1"]
"""Eight deals a round against one field at 16 playouts, and an 8-deal closing table: what a test can afford."""


def test_a_tiny_run_writes_a_model_that_plays_and_its_record(tmp_path, capsys):
    out = tmp_path / "out"
    main(["distill", *TINY, "--rounds", "2", "--out", str(out)])
    printed = capsys.readouterr().out
    assert "closing table" in printed and f"model {out}/model.zip" in printed
    result = json.loads((out / "results.json").read_text())
    assert result["env"] == env_version("tripoli") and result["unit"] == "chips"
    assert len(result["rounds"]) == 2 and {p.name for p in out.iterdir()} >= {"round-1.zip", "round-2.zip",
                                                                              "model.zip", "data"}
    for r in result["rounds"]:
        assert r["decisions"] == r["fields"][0]["decisions"] > 0 and 0 <= r["switched"] <= r["decisions"]
        assert 0 <= r["fields"][0]["reproduced"] <= r["fields"][0]["checked"] <= r["switched"]
        assert r["switches_reproduced"] == reproduced_share(r["fields"])
    closing = result["closing"]
    assert list(closing["fields"])[0] == "random" and "heldout:station" in closing["fields"]
    assert set(closing["fields"]["random"]) == {"student", "distilled"}
    assert closing["reference"].startswith("longsuit@")  # the game's best bot unless another is named
    meta = read_metadata(out / "model.zip")
    assert meta["env_version"] == env_version("tripoli")
    assert meta["distill"][-1]["config"]["rounds"] == 2 and len(meta["distill"][-1]["rounds"]) == 2
    assert meta["train"] == read_metadata(trained_model("tripoli"))["train"]  # the student's training is kept
    game = make_game("tripoli", num_players=4)
    agent = make_agent(f"ppo:{out}/model.zip", game)
    state = game.init(np.arange(8, dtype=np.uint64))
    chosen = agent.act(game.observe(state, state.current_player), state.legal_action_mask, np.random.default_rng(0))
    assert state.legal_action_mask[np.arange(8), chosen].all()


def test_the_closing_table_measures_against_the_named_reference_in_the_training_closing_fields():
    table = closing_table("tripoli", 4, {"student": str(trained_model("tripoli"))}, 8, "heuristic")
    assert table["reference"].startswith("heuristic@")
    assert list(table["fields"]) == list(closing_fields(make_game("tripoli", num_players=4)))
    rows = [r["student"] for r in table["fields"].values()]
    assert table["beats_student"] == sum(r["advantage"] - r["ci95"] > 0 for r in rows)
    assert table["mean_student"] == pytest.approx(np.mean([r["advantage"] for r in rows]), abs=1e-3)


def test_the_teacher_is_the_search_from_the_student_and_keeps_its_decisions_with_a_choice():
    """The recording search plays exactly as the search with the student as its base, and keeps every decision with
    more than one legal action (those are what the student is fitted to)."""
    game = make_game("tripoli", num_players=4)
    student = PPOAgent(game, trained_model("tripoli"))
    field = make_agent("heuristic", game)
    recording = RecordingSearch(game, playouts=16, base=student)
    plain = SearchAgent(game, playouts=16, base=student)
    a = evaluate(game, [recording, field, field, field], deals=8, seed=3)
    b = evaluate(game, [plain, field, field, field], deals=8, seed=3)
    np.testing.assert_array_equal(a.group_returns, b.group_returns)
    kept = recording.decisions()
    assert len(kept["action"]) > 0 and (kept["mask"].sum(axis=1) > 1).all()
    assert kept["mask"][np.arange(len(kept["action"])), kept["action"]].all()
    assert plain.stats["searched"] > 0 and plain.stats["searched"] == recording.stats["searched"]


def test_the_teacher_counts_the_switches_an_independent_search_makes_again(monkeypatch):
    """The teacher's switches (here every one of them) are checked by a second search: a check that always keeps the
    student's choice makes none of them again, and the check does not change the teacher's play. The student is the
    heuristic, which the search leaves often (a strong student's few switches in 8 deals may all go unchecked)."""
    monkeypatch.setattr(distill, "CHECK_SHARE", 1.0)
    game = make_game("tripoli", num_players=4)
    student = make_agent("heuristic", game)
    field = make_agent("heuristic", game)
    teacher = RecordingSearch(game, playouts=16, base=student, check_seed=1)
    a = evaluate(game, [teacher, field, field, field], deals=8, seed=3)
    kept = teacher.decisions()
    moved = kept["action"] != student.act(kept["obs"], kept["mask"], np.random.default_rng(0))
    assert teacher.checked == moved.sum() > 0 and 0 <= teacher.reproduced <= teacher.checked
    stubborn = RecordingSearch(game, playouts=16, base=student, check_seed=1)
    stubborn.check.act = lambda obs, mask, rng, views=None: student.act(obs, mask, rng)
    b = evaluate(game, [stubborn, field, field, field], deals=8, seed=3)
    np.testing.assert_array_equal(a.group_returns, b.group_returns)
    assert stubborn.checked == teacher.checked and stubborn.reproduced == 0


def test_the_share_of_switches_reproduced_is_over_every_field_of_the_round():
    assert reproduced_share([{"checked": 4, "reproduced": 3}, {"checked": 4, "reproduced": 0}]) == 0.375
    assert reproduced_share([{"checked": 0, "reproduced": 0}]) is None


def test_the_fit_learns_the_teachers_switches_and_keeps_the_students_other_choices(tmp_path):
    """Decisions where the 'teacher' moved the student from its choice to another legal action whenever the seat
    sees one given thing: after the fit the student takes the teacher's action on held-out decisions of both kinds."""
    game = make_game("tripoli", num_players=4)
    student = load_policy(trained_model("tripoli"), game)
    state = game.init(np.arange(3000, dtype=np.uint64) + np.uint64(77))
    obs, mask = game.observe(state, state.current_player), state.legal_action_mask
    rows = mask.sum(axis=1) > 1
    obs, mask = obs[rows], mask[rows]
    choice = PPOAgent(game, policy=student).act(obs, mask, np.random.default_rng(0))
    lowest = mask.argmax(axis=1)
    binary = np.flatnonzero(((obs == 0) | (obs == 1)).all(axis=0))
    sign = binary[np.argmin(np.abs(obs[:, binary].mean(axis=0) - 0.5))]  # an entry of the observation, on in half
    moved = (obs[:, sign] > 0) & (lowest != choice)
    assert 0.1 < moved.mean() < 0.9
    action = np.where(moved, lowest, choice)
    np.savez(tmp_path / "000.npz", obs=obs, mask=mask, action=action)
    data = load_decisions([tmp_path / "000.npz"])
    fitted = fit(student, data, epochs=30, learning_rate=1e-3, seed=0, log=lambda _line: None)
    assert fitted["switched"] == int(moved.sum()) and fitted["decisions"] == len(action)
    assert fitted["held_out_switches_learnt"] > 0.9 and fitted["held_out_kept"] > 0.9


def test_the_recipe_of_the_shipped_agent_loads():
    cfg = load_recipe("recipes/distill/tripoli-strong.toml", DistillConfig)
    assert cfg.game == "tripoli" and cfg.student == "runs/tripoli-strong/model.zip" and cfg.final_deals > 0


BAD = [
    (["--players", "1"], "players must be an integer from 2 to 8, got 1"),
    (["--playouts", "0"], "playouts must be an integer from 1 to 100,000, got 0"),
    (["--rounds", "0"], "rounds must be an integer from 1 to 100, got 0"),
    (["--learning-rate", "0"], "learning_rate must be a number between 0 and 1, got 0.0"),
    (["--deals", "-3"], "deals must be an integer from 1 to"),
    (["--student", "nowhere.zip"], "student nowhere.zip: no such model file"),
    (["--opponents", "nobody"], "unknown agent 'nobody'"),
    (["--reference", "nobody"], "unknown agent 'nobody'"),
    (["--game", "poker"], "argument --game: invalid choice: 'poker'"),
    (["--recipe", "missing.toml"], "recipe missing.toml: no such file"),
]


@pytest.mark.parametrize(("extra", "message"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_line_and_writes_nothing(extra, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = cli_refused(["distill", *TINY, "--out", str(tmp_path / "out"), *extra], capsys)
    assert line.startswith("cardgym distill: error: ") and message in line, line
    assert list(tmp_path.iterdir()) == []


def test_a_recipe_with_an_unknown_setting_is_refused_in_one_line(tmp_path, capsys):
    recipe = tmp_path / "r.toml"
    recipe.write_text('game = "tripoli"\ntemperature = 1.0\n')
    line = cli_refused(["distill", "--recipe", str(recipe), "--out", str(tmp_path / "out")], capsys)
    assert f"recipe {recipe}: unknown setting 'temperature'" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.toml"]


def test_a_folder_that_is_not_empty_is_refused_and_left_alone(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    line = cli_refused(["distill", *TINY, "--out", str(out)], capsys)
    assert f"--out {out} is not empty" in line
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_the_api_refuses_bad_settings_with_one_line():
    with pytest.raises(DistillError, match="workers must be an integer from 1 to"):
        DistillConfig(workers=0)
    with pytest.raises(DistillError, match="student must be given"):
        DistillConfig(student=" ")


@pytest.mark.parametrize(("content", "message"), [
    (b"not a zip", "is corrupt or not a model zip"),
    (None, "was trained for 'triolet', not 'tripoli'"),
])
def test_a_corrupt_or_foreign_student_is_refused_in_one_line(content, message, tmp_path, capsys):
    student = tmp_path / "student.zip"
    student.write_bytes(trained_model("triolet").read_bytes() if content is None else content)
    line = cli_refused(["distill", *TINY, "--student", str(student), "--out", str(tmp_path / "out")], capsys)
    assert line.startswith("cardgym distill: error: ") and message in line, line
    assert [p.name for p in tmp_path.iterdir()] == ["student.zip"]
