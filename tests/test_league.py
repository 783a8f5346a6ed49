"""Leagues: the schedule's balance, statistics against hand-computed values, the same result in-process, in a process
pool and on Ray, resumption after an interruption, and the ``cardgym league`` command's refusals."""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.registry import make_agent
from envs.registry import make_game
from training import league
from training.cli import main
from training.evaluate import evaluate
from training.executors import ExecutorError, InProcess, ProcessPool, RayExecutor, cardgym_version, prepare_ray_auth
from training.league import LeagueConfig, LeagueError, LeagueRun, league_files, run_league
from training.league_schedule import MAX_ALL_LINEUPS, pair_meetings, schedule_lineups
from training.league_stats import finish_ranks, league_stats


class FirstLegal:
    """Test agent: always the legal action with the lowest id (versioned, to check versions are recorded)."""

    name = "first-legal"
    version = "2"

    def __init__(self, game) -> None:
        self.game = game

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return mask.argmax(axis=1)


class LastLegal:
    """Test agent: always the legal action with the highest id."""

    name = "last-legal"

    def __init__(self, game) -> None:
        self.game = game

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return mask.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)


FIELD = ("random", "heuristic", "tests.test_league:FirstLegal", "tests.test_league:LastLegal")
TINY = LeagueConfig("tripoli", 3, FIELD, deals=120, seed=4, shard_groups=4)
"""4 lineups (every 3 of the 4 agents) x 10 deal groups x 3 rotations, in 12 shards of up to 4 groups."""


def league_json(out: Path, config: LeagueConfig = TINY) -> bytes:
    return league_files(out, config)["json"].read_bytes()


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[Path, bytes]:
    """The tiny league played in this process."""
    out = tmp_path_factory.mktemp("reference")
    run_league(TINY, out=out)
    return out, league_json(out)


# ----- the schedule ----------------------------------------------------------------------------------------------
def check_balanced(lineups: list[tuple[int, ...]], num_agents: int, n: int) -> np.ndarray:
    """Asserts the schedule's balance; returns the pair meetings."""
    assert all(len(set(lineup)) == n for lineup in lineups)
    assert len({frozenset(lineup) for lineup in lineups}) == len(lineups)  # no table twice
    # every rotation of every lineup: agent at position i sits at seat (i + r) % n
    seat_count = np.zeros((num_agents, n), dtype=int)
    for lineup in lineups:
        for r, (i, agent) in itertools.product(range(n), enumerate(lineup)):
            seat_count[agent, (i + r) % n] += 1
    assert (seat_count == seat_count[0, 0]).all()  # every agent at every seat equally often
    met = pair_meetings(lineups, num_agents)[np.triu_indices(num_agents, 1)]
    assert met.min() >= 1  # every pair meets
    return met


@pytest.mark.parametrize("num_agents, n", [(4, 4), (5, 4), (6, 4), (8, 4), (7, 3), (11, 2)])
def test_small_fields_play_every_lineup_and_every_pair_equally(num_agents: int, n: int) -> None:
    lineups = schedule_lineups(num_agents, n, seed=0)
    assert len(lineups) == math.comb(num_agents, n) <= MAX_ALL_LINEUPS
    met = check_balanced(lineups, num_agents, n)
    assert (met == math.comb(num_agents - 2, n - 2)).all()


@pytest.mark.parametrize("num_agents, n", [(9, 4), (10, 4), (12, 4), (12, 6), (13, 4)])
def test_large_fields_keep_agents_equal_and_pairs_within_two(num_agents: int, n: int) -> None:
    lineups = schedule_lineups(num_agents, n, seed=3)
    assert math.comb(num_agents, n) > MAX_ALL_LINEUPS
    assert len(lineups) * math.comb(n, 2) >= math.comb(num_agents, 2)
    met = check_balanced(lineups, num_agents, n)
    assert met.max() - met.min() <= 2


@settings(max_examples=25)
@given(num_agents=st.integers(2, 12), n=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_schedule_is_balanced_and_a_function_of_its_seed(num_agents: int, n: int, seed: int) -> None:
    if n > num_agents:
        with pytest.raises(ValueError, match=f"at least {n} distinct agents"):
            schedule_lineups(num_agents, n, seed)
        return
    lineups = schedule_lineups(num_agents, n, seed)
    check_balanced(lineups, num_agents, n)
    assert schedule_lineups(num_agents, n, seed) == lineups


def test_the_seed_chooses_among_schedules() -> None:
    assert len({tuple(schedule_lineups(9, 4, seed)) for seed in range(4)}) > 1


# ----- statistics, hand-computed ---------------------------------------------------------------------------------
def test_finish_ranks_rank_ties_equal() -> None:
    assert finish_ranks(np.array([3.0, 1.0, 1.0, -5.0])).tolist() == [0, 1, 1, 3]
    assert finish_ranks(np.array([2.0, 2.0 + 1e-12, 2.0])).tolist() == [0, 0, 0]


def test_means_intervals_and_payoff_matrix_by_hand() -> None:
    """Three agents at two seats; agent 0 wins 1 chip from whoever it meets; agent 1 beats agent 2 by 3 and 1 chips
    in deal group 0 (2 on average) and ties both deals of group 1."""
    lineups = ((0, 1), (0, 2), (1, 2))
    returns = np.zeros((3, 2, 2, 2))  # [lineup, group, rotation, position]
    returns[0, :, :] = [1, -1]
    returns[1, :, :] = [1, -1]
    returns[2, 0] = [[3, -3], [1, -1]]
    stats = league_stats(returns, lineups, 3, resamples=2000, seed=0)
    # per group: agent 0 +1 | +1; agent 1 (-1 + 2) / 2 | (-1 + 0) / 2; agent 2 (-1 - 2) / 2 | (-1 + 0) / 2
    assert stats.mean.tolist() == [1.0, 0.0, -1.0]
    assert stats.deals.tolist() == [8, 8, 8]
    assert stats.mean_ci[:, 0].tolist() == [1.0, 1.0]  # the same in both groups: no spread
    assert stats.mean_ci[:, 1].tolist() == [-0.5, 0.5]  # resamples of two groups: -0.5, 0 or +0.5
    assert stats.mean_ci[:, 2].tolist() == [-1.5, -0.5]
    expected = np.array([[np.nan, 2, 2], [-2, np.nan, 2], [-2, -2, np.nan]])
    np.testing.assert_array_equal(stats.payoff, expected)
    assert stats.payoff_ci[:, 1, 2].tolist() == [0.0, 4.0]  # 4 in group 0, 0 in group 1
    assert stats.margin.tolist() == [2.0, 0.0, -2.0]
    assert stats.payoff_order() == [0, 1, 2] and stats.rating_order() == [0, 1, 2]
    assert [stats.beats(a) for a in range(3)] == [[1, 2], [], []]  # 1 over 2 is not clear: its interval reaches 0
    table = stats.to_dict(["a", "b", "c"])
    assert table["payoff"]["mean"][0] == [None, 2.0, 2.0]
    assert [r["agent"] for r in table["payoff"]["ranking"]] == ["a", "b", "c"]


def plackett_luce_two(winner: tuple[float, float], loser: tuple[float, float]) -> tuple[tuple, tuple]:
    """Weng and Lin's Plackett-Luce update for one game of two players (beta = 25/6, gamma = sigma / c), by hand."""
    beta2 = (25 / 6) ** 2
    c = math.sqrt(winner[1] ** 2 + loser[1] ** 2 + 2 * beta2)
    p_win = math.exp(winner[0] / c) / (math.exp(winner[0] / c) + math.exp(loser[0] / c))

    def update(mu: float, sigma: float, sign: int) -> tuple[float, float]:
        s2 = sigma**2
        return mu + sign * s2 / c * (1 - p_win), math.sqrt(s2 * (1 - s2 / c**2 * (sigma / c) * p_win * (1 - p_win)))

    return update(*winner, +1), update(*loser, -1)


def test_ratings_follow_the_plackett_luce_update_by_hand() -> None:
    """Two agents, one lineup, one deal group: agent 1 wins both rotations."""
    returns = np.array([[[[-2.0, 2.0], [-1.0, 1.0]]]])
    stats = league_stats(returns, ((0, 1),), 2, resamples=100, seed=0)
    one, zero = plackett_luce_two((25.0, 25 / 3), (25.0, 25 / 3))
    s2, c = (25 / 3) ** 2, math.sqrt(2 * ((25 / 3) ** 2 + (25 / 6) ** 2))
    assert one[0] == pytest.approx(25 + s2 / (2 * c)) and zero[0] == pytest.approx(25 - s2 / (2 * c))  # 27.635
    one, zero = plackett_luce_two(one, zero)
    np.testing.assert_allclose(stats.mu, [zero[0], one[0]], rtol=1e-12)
    np.testing.assert_allclose(stats.sigma, [zero[1], one[1]], rtol=1e-12)
    assert stats.mean_ci is None  # one deal group: no bootstrap interval


# ----- executors: the same league everywhere ---------------------------------------------------------------------
def test_league_writes_everything_it_promises(reference) -> None:
    out, _ = reference
    data = json.loads(league_json(out))
    assert data["env_version"] == "tripoli_v1" and data["cardgym_version"] == cardgym_version()
    assert [a["spec"] for a in data["agents"]] == list(FIELD)
    assert [a["version"] for a in data["agents"]] == [2, 1, "2", None]  # the zoo's versions; a class without one
    schedule = data["schedule"]
    assert schedule["deal_groups"] == 10 and schedule["deals"] == 120 and schedule["shards"] == 12
    assert len(schedule["lineups"]) == 4 and len(schedule["deal_seeds"]) == 10
    returns = np.array(data["deal_results"]["returns"])  # [lineup, group, rotation, position]
    assert returns.shape == (4, 10, 3, 3)
    for result in data["results"]:  # each agent's mean is the mean of its deals in the per-deal results
        a = FIELD.index(result["agent"])
        deals = [returns[lineup, :, :, lineup_agents.index(a)]
                 for lineup, lineup_agents in enumerate(schedule["lineups"]) if a in lineup_agents]
        assert result["deals"] == 90
        assert result["mean"] == pytest.approx(np.mean(deals), abs=1e-12)
        assert result["ci95"][0] < result["mean"] < result["ci95"][1]
        assert result["rating"]["sigma"] < 25 / 3
    heuristic, random_agent = data["results"][1], data["results"][0]
    assert heuristic["rating_rank"] == 1 and heuristic["rating"]["mu"] > random_agent["rating"]["mu"]
    assert not league_files(out, TINY)["shards"].exists()  # all in the JSON now


def test_a_process_pool_plays_the_same_league_and_evaluation(tmp_path, reference) -> None:
    _, expected = reference
    pool = ProcessPool(2)
    try:
        run_league(TINY, out=tmp_path, executor=pool)
        game = make_game("flipflop", num_players=3)
        specs = ["heuristic", "random", "tests.test_league:LastLegal"]
        agents = [make_agent(s, game) for s in specs]
        here = evaluate(game, agents, deals=90, seed=2, batch_size=24)
        there = evaluate(game, agents, deals=90, seed=2, batch_size=24, executor=pool, specs=specs)
    finally:
        pool.close()
    assert league_json(tmp_path) == expected
    assert np.array_equal(here.group_returns, there.group_returns) and here.decisions == there.decisions


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray is not installed (pip install 'cardgym[ray]')")
def test_ray_plays_the_same_league_and_evaluation(tmp_path, reference, monkeypatch) -> None:
    _, expected = reference
    monkeypatch.setenv("HOME", str(tmp_path))  # no token of the user's; nothing written there either
    for var in ("RAY_ADDRESS", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
        monkeypatch.delenv(var, raising=False)
    ray_executor = RayExecutor(num_cpus=2)
    try:
        assert "a local Ray" in ray_executor.description
        run_league(TINY, out=tmp_path / "league", executor=ray_executor)
        game = make_game("flipflop", num_players=3)
        specs = ["heuristic", "random", "tests.test_league:LastLegal"]
        agents = [make_agent(s, game) for s in specs]
        here = evaluate(game, agents, deals=90, seed=2, batch_size=24)
        there = evaluate(game, agents, deals=90, seed=2, batch_size=24, executor=ray_executor, specs=specs)
    finally:
        ray_executor.close()
    assert league_json(tmp_path / "league") == expected
    assert np.array_equal(here.group_returns, there.group_returns)
    assert not (tmp_path / ".ray").exists()


def test_local_ray_keeps_token_authentication_without_writing_a_token(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
        monkeypatch.delenv(var, raising=False)
    assert prepare_ray_auth(local=False, set_mode=True) == "no token found"
    assert "RAY_AUTH_MODE" not in os.environ and "RAY_AUTH_TOKEN" not in os.environ
    assert prepare_ray_auth(local=True, set_mode=True) == "a fresh token for this process"
    token = os.environ["RAY_AUTH_TOKEN"]
    assert len(token) == 64 and os.environ["RAY_AUTH_MODE"] == "token" and not (tmp_path / ".ray").exists()
    assert prepare_ray_auth(local=True, set_mode=True) == "RAY_AUTH_MODE=token"  # set once: the same token
    assert os.environ["RAY_AUTH_TOKEN"] == token
    monkeypatch.delenv("RAY_AUTH_MODE")
    monkeypatch.delenv("RAY_AUTH_TOKEN")
    (tmp_path / ".ray").mkdir()
    (tmp_path / ".ray" / "auth_token").write_text("abc")
    assert prepare_ray_auth(local=False, set_mode=True) == str(tmp_path / ".ray" / "auth_token")
    assert os.environ["RAY_AUTH_MODE"] == "token" and "RAY_AUTH_TOKEN" not in os.environ
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # the user's explicit choice stays
    assert prepare_ray_auth(local=True, set_mode=True) == "RAY_AUTH_MODE=disabled"
    assert os.environ["RAY_AUTH_MODE"] == "disabled"


# ----- resumption ------------------------------------------------------------------------------------------------
class StopAfter:
    """An executor that is interrupted (as by Ctrl-C) after ``shards`` shards."""

    description = "test"

    def __init__(self, shards: int) -> None:
        self.shards = shards

    def map_unordered(self, fn, tasks):
        for count, item in enumerate(InProcess().map_unordered(fn, tasks)):
            if count == self.shards:
                raise KeyboardInterrupt
            yield item

    def close(self) -> None:
        pass


def test_an_interrupted_league_resumes_to_the_same_result(tmp_path, reference) -> None:
    _, expected = reference
    with pytest.raises(KeyboardInterrupt):
        run_league(TINY, out=tmp_path, executor=StopAfter(5))
    files = league_files(tmp_path, TINY)
    assert not files["json"].exists() and len(files["shards"].read_text().splitlines()) == 1 + 5
    result = run_league(TINY, out=tmp_path)
    assert result.resumed_shards == 5
    assert league_json(tmp_path) == expected


def test_lost_and_half_written_shards_are_played_again(tmp_path, reference) -> None:
    _, expected = reference
    with pytest.raises(KeyboardInterrupt):
        run_league(TINY, out=tmp_path, executor=StopAfter(9))
    log = league_files(tmp_path, TINY)["shards"]
    lines = log.read_text().splitlines(keepends=True)
    kept = [lines[0], lines[1], lines[4], lines[6], lines[7][: len(lines[7]) // 2]]  # lose 4, cut the last short
    log.write_text("".join(kept))
    result = run_league(TINY, out=tmp_path)
    assert result.resumed_shards == 3
    assert league_json(tmp_path) == expected


def test_a_league_with_other_arguments_or_finished_is_refused_unless_forced(tmp_path, reference) -> None:
    _, expected = reference
    with pytest.raises(KeyboardInterrupt):
        run_league(TINY, out=tmp_path, executor=StopAfter(2))
    log = league_files(tmp_path, TINY)["shards"]
    before = log.read_bytes()
    other = LeagueConfig(**{**TINY.__dict__, "deals": 240})
    with pytest.raises(LeagueError, match="config.deals differs"):
        LeagueRun(other, out=tmp_path)
    assert log.read_bytes() == before  # refused: nothing changed
    run_league(TINY, out=tmp_path)
    with pytest.raises(LeagueError, match="already holds a finished league"):
        LeagueRun(TINY, out=tmp_path)
    result = run_league(TINY, out=tmp_path, force=True)
    assert result.resumed_shards == 0 and league_json(tmp_path) == expected


# ----- the command line ------------------------------------------------------------------------------------------
def cli(*args: str) -> list[str]:
    return ["league", "--game", "tripoli", "--players", "3", "--deals", "120", "--seed", "4", "--shard-groups", "4",
            "--quiet", *args]


def test_cli_league_prints_the_table_and_writes_json_and_plot(tmp_path, capsys, reference) -> None:
    _, expected = reference
    main(cli("--agents", *FIELD, "--out", str(tmp_path)))
    out = capsys.readouterr().out
    assert "mean chips / deal" in out and "payoff matrix" in out and "FirstLegal" in out
    assert league_json(tmp_path) == expected
    assert league_files(tmp_path, TINY)["png"].stat().st_size > 5000


@pytest.mark.parametrize(
    "args, message",
    [(["--agents", "random", "heuristic"], "needs at least 3 different agents, got 2; to play fewer"),
     (["--agents", "random", "heuristic", "random"], "each agent enters a league once; repeated: random"),
     (["--agents", "random", "heuristic", "nobody"], "unknown agent 'nobody'"),
     (["--agents", *FIELD, "--deals", "0"], "argument --deals: must be an integer from 1 to 10,000,000, got '0'"),
     (["--agents", *FIELD, "--shard-groups", "0"], "argument --shard-groups: must be an integer from 1 to 4,096"),
     (["--agents", *FIELD, "--option", "paycards=never"], "paycards"),
     (["--agents", *FIELD, "--workers", "0"], "argument --workers: must be an integer from 1 to 256")],
)
def test_cli_league_refuses_bad_arguments_in_one_line(tmp_path, capsys, args: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as stop:
        main(cli(*args, "--out", str(tmp_path / "out")))
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and message in err and len(err.splitlines()) == 1
    assert err.startswith("cardgym league: error: ")
    assert not (tmp_path / "out").exists()


def test_cli_league_without_ray_says_how_to_install_it(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed
    with pytest.raises(SystemExit) as stop:
        main(cli("--agents", *FIELD, "--out", str(tmp_path), "--ray"))
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and len(err.splitlines()) == 1
    assert "--ray needs Ray, which is not installed: pip install 'cardgym[ray]'" in err
    with pytest.raises(ExecutorError, match="pip install"):
        RayExecutor()


def test_cli_league_refuses_a_finished_league_unless_forced(tmp_path, capsys) -> None:
    main(cli("--agents", *FIELD, "--out", str(tmp_path), "--no-plot"))
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        main(cli("--agents", *FIELD, "--out", str(tmp_path), "--no-plot"))
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and "already holds a finished league" in err and len(err.splitlines()) == 1
    main(cli("--agents", *FIELD, "--out", str(tmp_path), "--no-plot", "--force"))
    assert "payoff matrix" in capsys.readouterr().out


# ----- refusals before any work ----------------------------------------------------------------------------------
def no_shard(task):
    raise AssertionError("a shard was played although the league was refused")


@pytest.mark.parametrize(("change", "message"), [
    ({"seed": 2**64}, "seed must be an integer from 0 to 2**64 - 1, got 18446744073709551616"),
    ({"seed": -1}, "seed must be an integer from 0 to 2**64 - 1, got -1"),
    ({"deals": 10**30}, f"deals must be an integer from 1 to 10,000,000, got {10**30}"),
    ({"shard_groups": 4097}, "shard_groups must be an integer from 1 to 4,096, got 4097"),
    ({"deals": True}, "deals must be an integer from 1 to 10,000,000, got True"),
])
def test_a_config_out_of_bounds_is_one_line_before_any_shard(change, message, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(league, "play_shard", no_shard)
    with pytest.raises(LeagueError) as info:
        run_league(LeagueConfig(**{**TINY.__dict__, **change}), out=tmp_path / "out")
    assert str(info.value) == message
    assert not (tmp_path / "out").exists()


def test_the_largest_seed_plays() -> None:
    result = run_league(LeagueConfig(**{**TINY.__dict__, "seed": 2**64 - 1, "deals": 12, "bootstrap": 10}))
    assert result.deal_seeds.dtype == np.uint64 and result.deals == 12


def test_cli_league_refuses_an_out_that_is_a_file_before_playing(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(league, "play_shard", no_shard)
    out = tmp_path / "results"
    out.write_text("not a folder\n")
    with pytest.raises(SystemExit) as stop:
        main(cli("--agents", *FIELD, "--out", str(out)))
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and err == f"cardgym league: error: --out {out}: {out} is a file, not a folder"
    assert out.read_text() == "not a folder\n"


# ----- a shard log edited by hand ---------------------------------------------------------------------------------
def set_field(key, value):
    def change(record):
        record[key] = value
        return json.dumps(record)
    return change


SHARD_EDITS = {
    "returns all NaN": (lambda r: json.dumps({**r, "returns": np.full((4, 3, 3), np.nan).tolist()}),
                        "'returns' must be 4 × 3 × 3 nested lists of finite numbers"),
    "a return infinite": (lambda r: json.dumps(r).replace(str(r["returns"][0][0][0]), "Infinity", 1),
                          "'returns' must be 4 × 3 × 3 nested lists of finite numbers"),
    "a return a string": (lambda r: json.dumps({**r, "returns": [[["1.5"] * 3] * 3] * 4}),
                          "'returns' must be 4 × 3 × 3 nested lists of finite numbers"),
    "a return a boolean": (lambda r: json.dumps({**r, "returns": [[[True] * 3] * 3] * 4}),
                           "'returns' must be 4 × 3 × 3 nested lists of finite numbers"),
    "returns of another shape": (lambda r: json.dumps({**r, "returns": r["returns"][:3]}),
                                 "'returns' must be 4 × 3 × 3 nested lists"),
    "decisions null": (set_field("decisions", None), "'decisions' must be an integer ≥ 0, got null\n"),
    "decisions a word": (set_field("decisions", "abc"), "'decisions' must be an integer ≥ 0, got a string \"abc\"\n"),
    "decisions a boolean": (set_field("decisions", True), "'decisions' must be an integer ≥ 0, got a boolean true\n"),
    "decisions negative": (set_field("decisions", -1), "'decisions' must be an integer ≥ 0, got an integer -1\n"),
    "decisions NaN": (lambda r: json.dumps({**r, "decisions": float("nan")}),
                      "'decisions' must be an integer ≥ 0, got a number nan\n"),
    "decisions a fraction": (set_field("decisions", 2.5), "'decisions' must be an integer ≥ 0, got a number 2.5\n"),
    "shard a string": (set_field("shard", "1"), "'shard' must be a shard index 0..11, got a string \"1\"\n"),
    "shard a boolean": (set_field("shard", True), "'shard' must be a shard index 0..11, got a boolean true\n"),
    "shard out of the plan": (set_field("shard", 12), "'shard' must be a shard index 0..11, got an integer 12\n"),
    "another lineup": (set_field("lineup", 3), "'lineup' must be 0, the lineup of shard 1"),
    "groups of another shard": (set_field("groups", [0, 4]), "'groups' must be [4, 8], the deal groups of shard 1"),
    "a group a boolean": (lambda r: json.dumps({**r, "shard": 0, "groups": [False, 4]}),
                          "'groups' must be [0, 4], the deal groups of shard 0"),
    "a key missing": (lambda r: json.dumps({k: v for k, v in r.items() if k != "decisions"}), "missing decisions"),
    "a key too many": (set_field("note", "mine"), "unknown note"),
    "not an object": (lambda r: json.dumps([r]), "a shard record is a JSON object"),
    "not JSON": (lambda r: json.dumps(r)[:-1] + ",}", "not JSON"),
    "a shard twice": (lambda r: json.dumps({**r, "shard": 0, "groups": [0, 4]}), "shard 0 again (it is on line 2"),
}


@pytest.mark.parametrize("edit", list(SHARD_EDITS))
def test_a_shard_log_edited_by_hand_is_one_line_naming_its_file_line_and_field(edit, tmp_path, capsys,
                                                                             monkeypatch) -> None:
    with pytest.raises(KeyboardInterrupt):
        run_league(TINY, out=tmp_path, executor=StopAfter(3))
    log = league_files(tmp_path, TINY)["shards"]
    lines = log.read_text().splitlines(keepends=True)
    record = json.loads(lines[2])
    assert record["shard"] == 1  # lineup 0, deal groups 4..8
    change, message = SHARD_EDITS[edit]
    lines[2] = change(record) + "\n"
    log.write_text("".join(lines))
    before = sorted(tmp_path.iterdir()), log.read_bytes()
    monkeypatch.setattr(league, "play_shard", no_shard)
    with pytest.raises(SystemExit) as stop:
        main(cli("--agents", *FIELD, "--out", str(tmp_path)))
    err = capsys.readouterr().err
    assert stop.value.code == 2 and len(err.splitlines()) == 1, err
    assert err.startswith(f"cardgym league: error: {log}, line 3: ") and message in err, err
    assert (sorted(tmp_path.iterdir()), log.read_bytes()) == before  # nothing written, nothing changed


def test_short_labels_keep_registry_families_whole() -> None:
    from training.league_report import short_labels

    assert short_labels(["search:50", "style:3", "mybots:Tight", "ppo:runs/x/model.zip", "heuristic"]) == [
        "search:50", "style:3", "Tight", "ppo:model", "heuristic"]
    assert short_labels(["a:Bot", "b:Bot"]) == ["a:Bot", "b:Bot"]  # the same short name twice: the specs
