"""``python -m benchmarks.strength``: every field an agent may meet, the advantage over the game's best bot."""

from __future__ import annotations

import json

import pytest

from agents.heldout import every_field, heldout_specs
from agents.search import ROLLOUT
from agents.zoo import bot_names
from benchmarks import strength
from envs.registry import GAMES


@pytest.mark.parametrize("game", GAMES)
def test_the_fields_are_random_the_zoo_and_the_held_out_styles(game: str) -> None:
    fields = every_field(game)
    assert list(fields)[0] == "random"
    assert set(bot_names(game)) <= set(fields)
    assert set(heldout_specs(game).items()) <= set(fields.items())


def test_a_run_writes_every_field_and_keeps_the_other_games(tmp_path, monkeypatch) -> None:
    """A tiny run of one bot: a row per field, the mean over them, and a game run before keeps its entry."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "runs" / "benchmarks" / "strength.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"games": {"tripoli": {"kept": True}}}))
    strength.main(["--games", "flipflop", "--agents", "dumper", "--deals", "8"])
    written = json.loads(path.read_text())
    assert written["games"]["tripoli"] == {"kept": True}
    entry = written["games"]["flipflop"]["dumper"]
    assert list(entry["fields"]) == list(every_field("flipflop"))
    assert entry["reference"].startswith(ROLLOUT["flipflop"] + "@")
    advantages = [row["advantage"] for row in entry["fields"].values()]
    assert entry["mean_advantage"] == pytest.approx(sum(advantages) / len(advantages), abs=1e-3)
    assert entry["above_zero"] == sum(a > 0 for a in advantages)
    assert entry["deals_per_field"] == 8 and entry["ms_cpu_per_searched_decision"] is None


@pytest.mark.parametrize("argv, words", [
    (["--games", "poker"], "argument --games: 'poker' is not one of the games"),
    (["--agents", "nobody"], "--agents nobody"),
    (["--deals", "0"], "--deals"),
    (["--players", "1"], "--players"),
])
def test_bad_input_is_refused_in_one_line_and_writes_nothing(argv, words, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        strength.main(argv)
    err = capsys.readouterr().err.splitlines()
    assert exc.value.code == 2 and len(err) == 1 and words in err[0], err
    assert not (tmp_path / "runs").exists()
