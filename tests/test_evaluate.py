"""Duplicate-deal evaluation: rotations, intervals, reproducibility, and the ``cardgym eval`` command end to end."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from agents.registry import make_agent
from envs.registry import make_game
from training.cli import main
from training.evaluate import EvalResult, advantage, evaluate, group_seeds, play_tables

ROOT = Path(__file__).resolve().parents[1]


def agents_for(game, *specs):
    return [make_agent(s, game) for s in specs]


def test_two_copies_of_the_same_agent_differ_by_zero_within_the_interval() -> None:
    """Copies of the random agent: their difference is noise (within twice the 95% half-width, about 4 standard
    errors, so that the test does not fail by chance once in ten seeds; a bias of a seat or a stream would show)."""
    game = make_game("tripoli", num_players=4)
    result = evaluate(game, agents_for(game, "random", "random", "random", "random"), deals=2000, seed=5)
    for i, j in ((0, 1), (2, 3)):
        diff, half = result.difference(i, j)
        assert 0 < half < 5 and abs(diff) < 2 * half


def test_duplicate_rotation_gives_identical_deterministic_agents_identical_results() -> None:
    """Every agent plays every seat of every deal: copies of a deterministic agent get exactly the same result."""
    game = make_game("flipflop", num_players=3)
    result = evaluate(game, agents_for(game, "heuristic", "heuristic", "heuristic"), deals=300, seed=1)
    assert np.array_equal(result.group_returns[:, 0], result.group_returns[:, 1])
    assert np.array_equal(result.group_returns[:, 0], result.group_returns[:, 2])
    assert result.difference(0, 2) == (0.0, 0.0)


def test_evaluation_is_reproducible_for_a_seed() -> None:
    game = make_game("triolet", num_players=3)
    run = [evaluate(game, agents_for(game, "heuristic", "random", "random"), deals=90, seed=s, batch_size=30)
           for s in (7, 7, 8)]
    assert np.array_equal(run[0].group_returns, run[1].group_returns)
    assert np.array_equal(run[0].group_wins, run[1].group_wins)
    assert not np.array_equal(run[0].group_returns, run[2].group_returns)


def test_deals_round_up_to_whole_groups_and_seeds_are_prefix_stable() -> None:
    game = make_game("tripoli", num_players=3)
    result = evaluate(game, agents_for(game, "random", "random", "random"), deals=10, seed=0)
    assert result.groups == 4 and result.episodes == 12
    assert np.array_equal(group_seeds(3, 5)[:2], group_seeds(3, 2))


def test_returns_count_the_ante_left_by_init() -> None:
    """Tripoli: chips only go from the players to the layout overall (T29), so each table's returns sum to minus
    the chips left on the layout — never more than zero, and below zero when the antes are counted (T4)."""
    game = make_game("tripoli", num_players=4)
    seat_agent = np.zeros((64, 4), dtype=np.int64)
    returns, _ = play_tables(game, agents_for(game, "random"), seat_agent, np.arange(64), np.random.default_rng(0))
    assert (returns.sum(axis=1) <= 0).all() and (returns.sum(axis=1) < 0).mean() > 0.5


def test_triolet_win_share_is_the_winner() -> None:
    game = make_game("triolet", num_players=4)
    result = evaluate(game, agents_for(game, "random", "random", "random", "random"), deals=200, seed=2)
    assert result.win_rate.sum() == pytest.approx(1.0, abs=0.02)  # one winner per game (truncations give none)
    assert result.mean.sum() == pytest.approx(0.0, abs=1e-9)  # L16: zero-sum


@pytest.mark.parametrize(
    "game, n, specs, min_margin",
    [("tripoli", 4, ["heuristic", "random", "random", "random"], 5.0),
     ("triolet", 4, ["heuristic", "random", "random", "random"], 0.2),
     ("flipflop", 4, ["heuristic", "random", "random", "random"], 0.3)],
)
def test_heuristics_clearly_beat_random(game: str, n: int, specs: list[str], min_margin: float) -> None:
    g = make_game(game, num_players=n)
    result = evaluate(g, agents_for(g, *specs), deals=400, seed=11)
    for j in range(1, n):
        diff, half = result.difference(0, j)
        assert diff - half > min_margin
    assert result.win_rate[0] - result.win_ci95[0] > 1 / n


@pytest.mark.parametrize(
    "kwargs, message",
    [({"deals": 0}, "deals must be a positive integer"), ({"seed": -1}, "seed must be"),
     ({"batch_size": 2}, "batch_size must be an integer at least")],
)
def test_evaluate_refuses_bad_arguments(kwargs: dict, message: str) -> None:
    game = make_game("tripoli", num_players=4)
    with pytest.raises(ValueError, match=message):
        evaluate(game, agents_for(game, *["random"] * 4), **kwargs)
    with pytest.raises(ValueError, match="needs 4 agents"):
        evaluate(game, agents_for(game, "random"))


def tournament(group_returns: list[list[float]], seed: int = 0) -> EvalResult:
    returns = np.asarray(group_returns, dtype=float)
    return EvalResult(game="tripoli", num_players=returns.shape[1], options={}, agents=["a", "b"], seed=seed,
                      batch_size=8, group_returns=returns, group_wins=np.zeros_like(returns), decisions=0, seconds=0.0)


def test_advantage_is_the_paired_difference_over_deal_groups() -> None:
    # The first agent makes 3, 5, 7 in three deal groups where the baseline made 2, 3, 4: differences 1, 2, 3, mean 2,
    # sample sd 1, half-width 1.96 / sqrt(3). Apart, the two intervals would be 1.96 * 2 / sqrt(3) and 1.96 / sqrt(3).
    result, baseline = tournament([[3, 0], [5, 1], [7, 2]]), tournament([[2, 0], [3, 1], [4, 2]])
    mean, half = advantage(result, baseline)
    assert mean == pytest.approx(2.0) and half == pytest.approx(1.959963984540054 / np.sqrt(3))
    assert advantage(result, baseline, agent=1) == (0.0, 0.0)
    assert advantage(tournament([[1, 0]]), tournament([[0, 0]]))[1] == np.inf  # one group: no interval
    with pytest.raises(ValueError, match="same game, rules, seed and deals"):
        advantage(result, tournament([[2, 0], [3, 1], [4, 2]], seed=1))
    with pytest.raises(ValueError, match="same game, rules, seed and deals"):
        advantage(result, tournament([[2, 0], [3, 1]]))


# ----- the command line ------------------------------------------------------------------------------------------
def test_cli_eval_writes_table_json_and_plot(tmp_path, capsys) -> None:
    main(["eval", "--game", "tripoli", "--players", "3", "--agents", "heuristic", "random", "random",
          "--deals", "60", "--seed", "4", "--out", str(tmp_path), "--option", "paycards=play",
          "--option", "max_raises=1"])
    out = capsys.readouterr().out
    assert "heuristic" in out and "mean chips / episode" in out and "paycards=play" in out
    stem = "eval_tripoli_3p_heuristic-random-random_paycards-play_max_raises-1"
    data = json.loads((tmp_path / f"{stem}.json").read_text())
    assert data["episodes"] == 60 and data["options"] == {"paycards": "play", "max_raises": 1}
    assert [a["agent"] for a in data["agents"]] == ["heuristic", "random", "random"]
    assert (tmp_path / f"{stem}.png").stat().st_size > 1000


def fake_model(path: Path, game: str) -> Path:
    """A model zip carrying only the metadata member a PPO model file records (agents/ppo.py)."""
    meta = {"game": game, "env_version": f"{game}_v1", "num_players": 4, "options": {}, "observation_size": 1,
            "num_actions": 1}
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("cardgym.json", json.dumps(meta))
    return path


@pytest.mark.parametrize(
    "args, message",
    [
        (["--agents", "heuristic", "smart", "random"], "unknown agent 'smart'; known agents: random, heuristic"),
        (["--agents", "heuristic", "random"], "needs 3 agents (one per seat), got 2"),
        (["--agents", "random", "random", "random", "--option", "paycards=sometimes"],
         "option paycards='sometimes' is not allowed"),
        (["--agents", "random", "random", "random", "--option", "colour=red"], "unknown option(s) colour"),
        (["--agents", "random", "random", "random", "--option", "max_raises=many"], "takes an integer"),
        (["--agents", "random", "random", "random", "--option", "oops"], "key=value"),
        (["--agents", "random", "random", "random", "--deals", "0"], "--deals: must be an integer from 1 to 10,0"),
        (["--players", "12", "--agents", "random"], "num_players=12 is not allowed"),
        (["--agents", "ppo:{flipflop_model}", "random", "random"], "trained for 'flipflop', not 'tripoli'"),
    ],
)
def test_cli_eval_refuses_bad_input_clearly(args: list[str], message: str, tmp_path, capsys) -> None:
    model = fake_model(tmp_path / "ff.zip", "flipflop")
    args = [a.replace("{flipflop_model}", str(model)) for a in args]
    base = ["eval", "--game", "tripoli", "--players", "3", "--deals", "6", "--out", str(tmp_path / "o")]
    with pytest.raises(SystemExit) as exc:
        main(base + args)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_cardgym_eval_command_end_to_end(tmp_path) -> None:
    exe = Path(sys.executable).parent / "cardgym"
    cmd = [str(exe if exe.exists() else ROOT / ".venv/bin/cardgym"), "eval", "--game", "triolet", "--players", "3",
           "--agents", "heuristic", "random", "random", "--deals", "30", "--seed", "1", "--out", str(tmp_path)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "win share" in done.stdout
    data = json.loads((tmp_path / "eval_triolet_3p_heuristic-random-random.json").read_text())
    assert data["episodes"] == 30 and data["unit"] == "reward"
    bad = subprocess.run(cmd[:6] + ["--agents", "random"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "needs 3 agents" in bad.stderr


def test_episodes_that_never_end_are_reported() -> None:
    game = make_game("tripoli", num_players=4)
    with pytest.raises(RuntimeError, match="episodes still running after 3 steps"):
        play_tables(game, agents_for(game, "random"), np.zeros((8, 4), np.int64), np.arange(8),
                    np.random.default_rng(0), max_steps=3)


def test_an_illegal_agent_is_named() -> None:
    class Stubborn:
        name = "stubborn"

        def act(self, obs, mask, rng):
            return np.zeros(len(mask), dtype=np.int64)  # "keep", legal only for a dealer at the spare hand

    game = make_game("tripoli", num_players=3)
    with pytest.raises(ValueError, match="agent 'stubborn' chose the illegal action"):
        evaluate(game, [Stubborn()] * 3, deals=3)


def test_cli_eval_baseline_prints_and_saves_the_advantage(tmp_path, capsys) -> None:
    common = ["eval", "--game", "flipflop", "--players", "3", "--deals", "90", "--seed", "3", "--no-plot",
              "--out", str(tmp_path)]
    main(common + ["--agents", "heuristic", "random", "random", "--baseline", "random"])
    out = capsys.readouterr().out
    data = json.loads((tmp_path / "eval_flipflop_3p_heuristic-random-random.json").read_text())
    # The same numbers from the library: the tournament, and the one with the baseline in the first agent's place.
    game = make_game("flipflop", num_players=3)
    result = evaluate(game, agents_for(game, "heuristic", "random", "random"), deals=90, seed=3)
    base = evaluate(game, agents_for(game, "random", "random", "random"), deals=90, seed=3)
    mean, half = advantage(result, base)
    saved = data["baseline"]
    assert saved["advantage"] == pytest.approx(mean) and saved["advantage_ci95"] == pytest.approx(half)
    assert saved["mean"] == pytest.approx(base.mean[0]) and saved["agent"] == "random"
    assert (f"advantage of heuristic over random in the same seats of the same deals: {mean:+.3f} ± {half:.3f} "
            "stakes / episode") in out
    assert f"baseline: random in the place of heuristic makes {base.mean[0]:+.3f} ± {base.ci95[0]:.3f} stakes" in out
    # A deterministic agent against itself as the baseline: the same deals played the same way, exactly 0 ± 0.
    main(common + ["--agents", "heuristic", "heuristic", "heuristic", "--baseline", "heuristic"])
    assert "over heuristic in the same seats of the same deals: +0.000 ± 0.000" in capsys.readouterr().out


def test_cli_eval_log_records_the_first_deal_group_exactly(tmp_path, capsys) -> None:
    """``--log`` records the first deal group, one game per seat rotation; with deterministic bots these are the
    evaluated games: each agent's mean return over the logged games is its result in deal group 0."""
    from envs.gamelog import read_log, verify
    from envs.registry import make_game
    from training.cli import main as cli_main
    from training.evaluate import evaluate

    log = tmp_path / "eval.jsonl"
    specs = ["heuristic", "tight", "longsuit", "lowlead"]
    cli_main(["eval", "--game", "tripoli", "--agents", *specs, "--deals", "40", "--seed", "3", "--no-save",
              "--log", str(log)])
    assert "first deal group (4 games" in capsys.readouterr().out
    games = read_log(log)
    assert len(games) == 4
    for g in games:
        verify(g)
    game = make_game("tripoli", num_players=4)
    result = evaluate(game, [make_agent(s, game) for s in specs], deals=40, seed=3)
    returns = [[g.result["returns"][(i + r) % 4] for i in range(4)] for r, g in enumerate(games)]
    assert np.allclose(np.mean(returns, axis=0), result.group_returns[0])
