"""benchmarks/deviations.py: departures from a reference bot, counted by kind and each kind measured alone."""

from __future__ import annotations

import numpy as np
import pytest

from agents.registry import make_agent
from agents.tripoli_heuristic import TripoliHeuristic
from benchmarks import deviations
from benchmarks.deviations import Gated, breakdown
from envs.core.game import action_kind
from envs.registry import make_game

GAME = make_game("tripoli", 4)


@pytest.mark.parametrize(("name", "kind"), [
    ("bet 3", "bet"), ("raise 10", "raise"), ("lead ♣", "lead"), ("select 2♣", "select"), ("continue run",
     "continue run"), ("draw stock", "draw stock"), ("draw discard 2♣", "draw discard"), ("discard K♠", "discard"),
    ("lay off J♠ on the set of Js", "lay off"), ("lay run 5♣6♣7♣", "lay run"), ("claim 49/50", "claim"),
    ("play face-up 8♣", "play face-up"), ("play 3×2", "play"), ("swap hand card #2 ↔ face-up #3", "swap hand card"),
])
def test_an_action_kind_is_its_name_without_cards_and_numbers(name: str, kind: str) -> None:
    assert action_kind(name) == kind


class CallFolder(TripoliHeuristic):
    """The heuristic, except that it folds wherever the heuristic calls a bet."""

    name = "call-folder"

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        actions = super().act(obs, mask, rng)
        return np.where(actions == self.acts.call, self.acts.fold, actions)


def test_one_kind_of_departure_is_found_and_measured_alone() -> None:
    model, reference = CallFolder(GAME), make_agent("heuristic", GAME)
    rows = breakdown(GAME, model, reference, {"heuristic": make_agent("heuristic", GAME)}, deals=400, seed=3, top=2)
    (row,) = rows
    assert [d["departure"] for d in row["departures"]] == ["call -> fold"]  # the only departure it makes
    (only,) = row["departures"]
    assert only["per_1000_decisions"] > 0
    # Gated at its only kind of departure, the agent plays exactly the model: the same advantage, to the last digit.
    assert (only["advantage"], only["ci95"]) == (row["advantage"], row["ci95"]) and row["advantage"] != 0


def test_a_gate_on_another_kind_plays_the_reference() -> None:
    model, reference = CallFolder(GAME), make_agent("heuristic", GAME)
    gated = Gated(GAME, model, reference, {("check", "bet")})
    rng = np.random.default_rng(0)
    state = GAME.init(5, batch_size=256)
    for _ in range(60):
        obs = GAME.observe(state, np.maximum(state.current_player, 0))
        live = ~state.done
        np.testing.assert_array_equal(gated.act(obs[live], state.legal_action_mask[live], rng),
                                      reference.act(obs[live], state.legal_action_mask[live], rng))
        GAME.step(state, reference.act(obs, state.legal_action_mask, rng), tables=live)
    assert set(gated.seen) == {("call", "fold")} and gated.seen[("call", "fold")] > 0


@pytest.mark.parametrize(("argv", "fragment"), [
    (["--model", "runs/none/model.zip"], "agent 'ppo:runs/none/model.zip': model file"),
    (["--model", "nobot"], ""),
    (["--model", "CORRUPT"], "model file"),
    (["--model", "heuristic", "--fields", "heldout:nope"], "no held-out style 'nope' in tripoli"),
    (["--model", "heuristic", "--fields", " , "], "--fields names no field"),
    (["--model", "heuristic", "--fields", "nobot"], ""),
    (["--model", "heuristic", "--label", "../x"], "--label must be"),
])  # bad counts, seeds and table sizes: tests/test_benchmark_arguments.py
def test_bad_input_is_one_line_and_writes_nothing(argv: list[str], fragment: str, capsys, tmp_path, monkeypatch
                                                   ) -> None:
    monkeypatch.setattr(deviations, "RESULTS", tmp_path)
    corrupt = tmp_path.parent / "corrupt.zip"
    corrupt.write_text("not a model")
    assert deviations.main([str(corrupt) if a == "CORRUPT" else a for a in argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("python -m benchmarks.deviations: error: " + fragment) and "\n" not in err
    assert list(tmp_path.iterdir()) == []
