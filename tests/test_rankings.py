"""Rankings of a payoff matrix (training/rankings.py): Nash averaging and α-Rank on games whose answers are known
(rock-paper-scissors, dominance, a transitive game, duplicated agents, the two-strategy closed form, OpenSpiel's
published examples), Kendall's τ against hand counts, refusals, and a tiny league that reports them all."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linprog

from envs.core.checks import ArgumentError
from training.cli import main
from training.league_stats import league_stats
from training.rankings import (
    ALPHA,
    POPULATION,
    RankingError,
    alpha_rank,
    alpha_rank_log,
    antisymmetric,
    competition_ranks,
    fixation_probabilities,
    kendall_tau,
    league_matrix,
    nash_average,
)

RPS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
TRANSITIVE = np.array([[0.0, -1.0, -1.0], [1.0, 0.0, -1.0], [1.0, 1.0, 0.0]])
"""OpenSpiel's nash_averaging_test: agent 2 beats 1 beats 0."""
DOMINANT = np.array([[0.0, 234.0, 34.0, -270.0], [-234.0, 0.0, -38.0, -464.0], [-34.0, 38.0, 0.0, -270.0],
                     [270.0, 464.0, 270.0, 0.0]])
"""OpenSpiel's nash_averaging_test: agent 3 beats every other."""


def entropy(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def duplicate(a: np.ndarray, agents: list[int]) -> np.ndarray:
    return a[np.ix_(agents, agents)]


# ----- Nash averaging ----------------------------------------------------------------------------------------------
def test_rock_paper_scissors_is_uniform_and_nobody_beats_it() -> None:
    nash = nash_average(RPS)
    np.testing.assert_allclose(nash.weights, [1 / 3] * 3, atol=1e-12)
    assert nash.payoff.tolist() == [0.0, 0.0, 0.0] and nash.support == (0, 1, 2) and nash.gap <= 1e-12


def test_transitive_and_dominant_games_put_all_weight_on_the_best() -> None:
    nash = nash_average(TRANSITIVE)
    assert nash.weights.tolist() == [0.0, 0.0, 1.0] and nash.payoff.tolist() == [-1.0, -1.0, 0.0]
    nash = nash_average(DOMINANT)
    assert nash.weights.tolist() == [0.0, 0.0, 0.0, 1.0] and nash.support == (3,)
    assert nash.payoff.tolist() == [-270.0, -464.0, -270.0, 0.0]  # each agent's margin against the best


@pytest.mark.parametrize("agents, expected", [
    ([0, 0, 1, 2], [1 / 6, 1 / 6, 1 / 3, 1 / 3]),  # rock twice: the copies share rock's third
    ([0, 0, 0, 1, 2, 2], [1 / 9, 1 / 9, 1 / 9, 1 / 3, 1 / 6, 1 / 6]),
])
def test_duplicated_agents_share_their_weight_equally(agents: list[int], expected: list[float]) -> None:
    """Every ``(a, 1/3 - a, 1/3, 1/3)`` is an equilibrium of rock-paper-scissors with rock twice: the maximum entropy
    one splits rock's weight equally, and adding copies changes nobody's Nash average (Balduzzi et al.'s
    invariance)."""
    nash = nash_average(duplicate(RPS, agents))
    np.testing.assert_allclose(nash.weights, expected, atol=1e-12)
    assert nash.payoff.tolist() == [0.0] * len(agents)
    for a in np.linspace(0.0, 1 / 3, 7):  # the other equilibria of the first game have less entropy
        if agents == [0, 0, 1, 2] and abs(a - 1 / 6) > 1e-9:
            assert entropy(np.array([a, 1 / 3 - a, 1 / 3, 1 / 3])) < entropy(nash.weights)


def test_copies_of_the_dominant_agent_split_the_weight_and_leave_the_others_payoffs() -> None:
    nash = nash_average(duplicate(DOMINANT, [0, 1, 2, 3, 3]))
    np.testing.assert_allclose(nash.weights, [0, 0, 0, 0.5, 0.5], atol=1e-12)
    assert nash.payoff.tolist() == [-270.0, -464.0, -270.0, 0.0, 0.0]
    zero = nash_average(np.zeros((4, 4)))  # everybody equal: every mixture is an equilibrium; the uniform one
    assert zero.weights.tolist() == [0.25] * 4 and zero.payoff.tolist() == [0.0] * 4


@pytest.mark.parametrize("seed", range(12))
def test_the_maximum_entropy_equilibrium_beats_every_other_equilibrium(seed: int) -> None:
    """Random games, half of them with integer payoffs (many ties: a continuum of equilibria, and inequalities the
    maximum-entropy equilibrium meets exactly): the answer is an equilibrium (``A @ p <= 0``) whose entropy is at
    least that of any mixture of equilibria found by linear programs with random objectives."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 10))
    a = rng.normal(size=(k, k)) * 2
    if seed % 2:
        a = np.round(a)
    a = a - a.T
    nash = nash_average(a)
    assert nash.weights.min() >= 0 and nash.weights.sum() == pytest.approx(1, abs=1e-12)
    assert (a @ nash.weights).max() <= 1e-8 * np.abs(a).max() and nash.gap <= 1e-8 * np.abs(a).max()
    assert (nash.payoff <= 0).all() and (nash.payoff[list(nash.support)] == 0).all()
    others = []
    for _ in range(8):
        lp = linprog(rng.normal(size=k), A_ub=a, b_ub=np.zeros(k), A_eq=np.ones((1, k)), b_eq=[1.0],
                     bounds=(0, None), method="highs")
        others.append(lp.x)
        assert set(np.flatnonzero(lp.x > 1e-7)) <= set(nash.support)
    for _ in range(20):
        mix = rng.dirichlet(np.ones(len(others))) @ np.array(others)
        assert entropy(mix) <= entropy(nash.weights) + 1e-7


def test_antisymmetric_and_league_matrix() -> None:
    payoff = np.array([[1.0, 3.0], [2.0, 0.0]])  # i scores payoff[i, j] against j
    assert antisymmetric(payoff).tolist() == [[0.0, 1.0], [-1.0, 0.0]]
    league = np.array([[np.nan, 2.0], [-2.0, np.nan]])  # the league's matrix: already antisymmetric, NaN diagonal
    assert league_matrix(league).tolist() == [[0.0, 2.0], [-2.0, 0.0]]


# ----- α-Rank ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha, m", [(0.1, 5), (ALPHA, POPULATION), (1000.0, 2)])
def test_alpha_rank_of_rock_paper_scissors_is_uniform(alpha: float, m: int) -> None:
    np.testing.assert_allclose(alpha_rank(RPS, alpha, m), [1 / 3] * 3, atol=1e-12)
    assert competition_ranks(alpha_rank_log(RPS, alpha, m)) == [1, 1, 1]


def test_alpha_rank_gives_a_dominant_agent_all_the_mass_as_alpha_grows() -> None:
    masses = [alpha_rank(DOMINANT, alpha)[3] for alpha in (0.01, 0.1, 1.0, 10.0, 100.0)]
    assert masses == sorted(masses) and masses[0] < 0.5 and masses[-1] == pytest.approx(1, abs=1e-12)
    log_mass = alpha_rank_log(DOMINANT, 1e4)
    assert np.isfinite(log_mass).all() and log_mass[3] == pytest.approx(0, abs=1e-12)  # no underflow in log space


def test_alpha_rank_orders_a_transitive_game() -> None:
    log_mass = alpha_rank_log(TRANSITIVE)
    assert log_mass[2] > log_mass[1] > log_mass[0] and competition_ranks(log_mass) == [3, 2, 1]
    assert alpha_rank(TRANSITIVE)[0] > 0  # α = 10 at unit range, m = 50: the worst still has a mass a float holds


@pytest.mark.parametrize("d, alpha, m", [(1.0, 0.1, 50), (0.3, 0.02, 20), (-2.0, 0.05, 7), (5.0, 1.0, 2)])
def test_two_agents_match_the_moran_closed_form(d: float, alpha: float, m: int) -> None:
    """Two agents, ``A = [[0, d], [-d, 0]]`` (raw payoffs). A mutant's fitness exceeds the residents' by the same
    ``f = m / (m - 1) · A[r, s]`` at every step, so ``ρ(r, s) = (1 - exp(-α f)) / (1 - exp(-m α f))``, and
    the chain's balance ``π[0] ρ(1, 0) = π[1] ρ(0, 1)`` gives ``π[0] = 1 / (1 + exp(-(m - 1) α f))`` with
    ``f = m d / (m - 1)``, i.e. ``π[0] = 1 / (1 + exp(-α m d))``."""
    a = np.array([[0.0, d], [-d, 0.0]])
    rho = fixation_probabilities(a, alpha, m, unit_range=False)
    for r, s in ((0, 1), (1, 0)):
        f = m / (m - 1) * a[r, s]
        assert rho[r, s] == pytest.approx((1 - math.exp(-alpha * f)) / (1 - math.exp(-m * alpha * f)), rel=1e-12)
    pi = alpha_rank(a, alpha, m, unit_range=False)
    assert pi[0] == pytest.approx(1 / (1 + math.exp(-alpha * m * d)), rel=1e-12)
    assert alpha_rank(a, alpha * abs(d) * 2, m).tolist() == pytest.approx(pi.tolist(), rel=1e-12)  # range 2|d|


def test_two_agents_general_sum_follow_the_fixation_ratio() -> None:
    """A general 2x2 symmetric game: ``π[0] / π[1] = ρ(0, 1) / ρ(1, 0) = prod_k exp(α (f_0(k) - f_1(k)))`` over
    ``k = 1 .. m - 1`` mutants, with each fitness the mean payoff against the ``m - 1`` others (a hand loop)."""
    p = np.array([[3.0, 0.0], [5.0, 1.0]])  # prisoner's dilemma: defection (1) dominates
    alpha, m = 0.2, 10
    total = 0.0
    for k in range(1, m):  # k playing 0 among m, the rest playing 1
        f0 = ((k - 1) * p[0, 0] + (m - k) * p[0, 1]) / (m - 1)
        f1 = (k * p[1, 0] + (m - k - 1) * p[1, 1]) / (m - 1)
        total += alpha * (f0 - f1)
    pi = alpha_rank(p, alpha, m, unit_range=False)
    assert pi[0] / pi[1] == pytest.approx(math.exp(total), rel=1e-12)
    rho = fixation_probabilities(p, alpha, m, unit_range=False)
    assert rho[0, 1] / rho[1, 0] == pytest.approx(math.exp(total), rel=1e-12)


def test_alpha_rank_reproduces_openspiel_published_example() -> None:
    """OpenSpiel's alpharank_test.test_stationary_distribution (payoffs from Han et al. 2013; m = 20, α = 0.1,
    ``use_local_selection_model=False``)."""
    r, t, p, s, delta, eps = 1.0, 2.0, 0.0, -1.0, 4.0, 0.25
    payoff = np.array([[r - eps / 2, r - eps, 0, s + delta - eps, r - eps], [r, r, s, s, s], [0, t, p, p, p],
                       [t - delta, t, p, p, p], [r, t, p, p, p]])
    expected = [0.40966787, 0.07959841, 0.20506998, 0.08505983, 0.2206039]
    np.testing.assert_allclose(alpha_rank(payoff, 0.1, 20, unit_range=False), expected, atol=5e-9)


def test_alpha_rank_matches_openspiel_on_random_games() -> None:
    """The stationary distributions and fixation probabilities OpenSpiel computes on 40 random general-sum and
    zero-sum games (tests/golden/alpharank_openspiel.json says how they were made)."""
    reference = json.loads((Path(__file__).parent / "golden" / "alpharank_openspiel.json").read_text())
    for game in reference["games"]:
        payoff, m, alpha = np.array(game["payoff"]), game["m"], game["alpha"]
        np.testing.assert_allclose(alpha_rank(payoff, alpha, m, unit_range=False), game["pi"], atol=1e-10)
        off = ~np.eye(len(payoff), dtype=bool)
        np.testing.assert_allclose(fixation_probabilities(payoff, alpha, m, unit_range=False)[off],
                                   np.array(game["rho"])[off], rtol=1e-9, atol=1e-300)


# ----- Kendall τ and ranks -----------------------------------------------------------------------------------------
def test_kendall_tau_against_hand_counts() -> None:
    assert kendall_tau([4, 3, 2, 1], [4, 3, 2, 1]) == pytest.approx(1)
    assert kendall_tau([4, 3, 2, 1], [1, 2, 3, 4]) == pytest.approx(-1)
    # one swapped neighbour pair: 5 concordant, 1 discordant of 6 pairs
    assert kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)
    # τ-b with a tie in y: 2 concordant, 1 pair tied in y; (C - D) / sqrt((n0 - n1)(n0 - n2)) = 2 / sqrt(3 · 2)
    assert kendall_tau([1, 2, 3], [1, 1, 2]) == pytest.approx(2 / math.sqrt(6))
    # 4 agents, ties in both: x ranks a>b=c>d, y ranks a=b>c>d. Pairs: ab (x +, y tie), ac C, ad C, bc (x tie),
    # bd C, cd C: C = 4, D = 0, n0 = 6, n1 = 1, n2 = 1 -> 4 / 5
    assert kendall_tau([3, 2, 2, 1], [3, 3, 2, 1]) == pytest.approx(4 / 5)
    assert kendall_tau([1, 2, 3], [5, 5, 5]) is None and kendall_tau([1], [1]) is None
    assert kendall_tau([0.0, 1.0], [1.0, 1.0 + 1e-12]) is None  # within the tie tolerance: all tied


def test_competition_ranks_share_ties() -> None:
    assert competition_ranks([5.0, 1.0, 5.0, -2.0]) == [1, 3, 1, 4]
    assert competition_ranks([0.0, -1.0, -1.0 - 1e-12]) == [1, 2, 2]


# ----- refusals ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, matrix, message", [
    (nash_average, np.zeros((2, 3)), "must be a non-empty square matrix, got shape (2, 3)"),
    (nash_average, [[0.0, np.nan], [1.0, 0.0]], "has 1 NaN or infinite entries, the first at [0, 1]"),
    (nash_average, [[0.0, 1.0], [1.0, 0.0]], "must be antisymmetric"),
    (alpha_rank, np.zeros(3), "must be a non-empty square matrix, got shape (3,)"),
    (alpha_rank, [[0.0, np.inf], [1.0, 0.0]], "NaN or infinite"),
    (alpha_rank, "payoffs", "must be a square matrix of numbers, got str"),
    (league_matrix, [[np.nan, np.nan], [np.nan, np.nan]], "NaN or infinite entries, the first at [0, 1]"),
])
def test_bad_matrices_are_refused_in_one_line(call, matrix, message: str) -> None:
    with pytest.raises(RankingError) as error:
        call(matrix)
    assert message in str(error.value) and "\n" not in str(error.value)
    assert isinstance(error.value, ArgumentError) and isinstance(error.value, ValueError)


def test_bad_alpha_rank_parameters_are_refused() -> None:
    with pytest.raises(RankingError, match="population must be an integer >= 2"):
        alpha_rank(RPS, population=1)
    with pytest.raises(RankingError, match="alpha must be a finite number >= 0"):
        alpha_rank(RPS, alpha=float("nan"))


# ----- in a league -------------------------------------------------------------------------------------------------
def test_league_stats_rank_the_halves_and_compare_them_by_hand() -> None:
    """Three agents at two seats, two deal groups (the halves are group 0 and group 1). Agent 0 wins 1 chip from
    everybody; agent 1 beats 2 by 2 chips a deal in group 0 and they tie in group 1."""
    lineups = ((0, 1), (0, 2), (1, 2))
    returns = np.zeros((3, 2, 2, 2))  # [lineup, group, rotation, position]
    returns[0, :, :] = [1, -1]
    returns[1, :, :] = [1, -1]
    returns[2, 0] = [[3, -3], [1, -1]]
    stats = league_stats(returns, lineups, 3, resamples=100, seed=0)
    # the payoff matrix [[., 2, 2], [-2, ., 2], [-2, -2, .]]: agent 0 dominates; 1 and 2 both lose 2 to it
    assert stats.nash.weights.tolist() == [1.0, 0.0, 0.0] and stats.nash.payoff.tolist() == [0.0, -2.0, -2.0]
    assert stats.nash_ranks() == [1, 2, 2] and stats.alpharank_ranks() == [1, 2, 3]
    assert stats.alpharank.sum() == pytest.approx(1) and stats.alpharank[0] > 0.999
    st = stats.stability
    assert st.groups == (1, 1)
    # means: group 0 [1, 0.5, -1.5] (a > b > c), group 1 [1, -0.5, -0.5] (a > b = c): tau-b = 2 / sqrt(3 * 2)
    assert st.tau["mean"] == pytest.approx(2 / math.sqrt(6)) and st.tau["payoff_margin"] == pytest.approx(
        2 / math.sqrt(6))
    assert st.tau["nash_average"] == pytest.approx(1)  # [0, -2, -2] in both halves
    # alpha-rank: group 0 separates 1 above 2, group 1 ties them: 2 / sqrt(3 * 2) again
    assert st.tau["alpharank"] == pytest.approx(2 / math.sqrt(6))
    data = json.loads(json.dumps(stats.to_dict(["a", "b", "c"])))
    assert data["rankings"]["stability"]["kendall_tau"]["mean"] == pytest.approx(2 / math.sqrt(6))
    assert [r["agent"] for r in data["rankings"]["nash_average"]["ranking"]] == ["a", "b", "c"]
    assert [r["nash_rank"] for r in data["results"]] == [1, 2, 2]
    one_group = league_stats(returns[:, :1], lineups, 3, resamples=100, seed=0)
    assert one_group.stability is None and one_group.to_dict(["a", "b", "c"])["rankings"]["stability"] is None


def test_a_tiny_league_reports_the_new_rankings(tmp_path, capsys) -> None:
    main(["league", "--game", "tripoli", "--players", "3", "--agents", "random", "heuristic", "tight", "aggressive",
          "--deals", "48", "--seed", "3", "--shard-groups", "4", "--quiet", "--no-plot", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "rankings of the payoff matrix" in out and "Nash average" in out and "alpha-Rank mass" in out
    stability = next(line for line in out.splitlines() if line.startswith("stability (Kendall tau"))
    assert "2 even and the 2 odd deal groups" in stability and "Nash average" in stability
    data = json.loads((tmp_path / "league_tripoli_3p.json").read_text())
    names = [a["spec"] for a in data["agents"]]
    rankings = data["rankings"]
    weights = {r["agent"]: r["weight"] for r in rankings["nash_average"]["ranking"]}
    assert set(weights) == set(names) and sum(weights.values()) == pytest.approx(1)
    assert sum(r["mass"] for r in rankings["alpharank"]["ranking"]) == pytest.approx(1)
    assert rankings["alpharank"]["alpha"] == ALPHA and rankings["alpharank"]["population"] == POPULATION
    assert set(rankings["stability"]["kendall_tau"]) == {"mean", "payoff_margin", "nash_average", "alpharank"}
    assert rankings["stability"]["deal_groups"] == [2, 2]
    for result in data["results"]:  # the new per-agent fields beside the old ones
        assert {"mean", "rating", "payoff_rank", "nash", "nash_rank", "alpharank", "alpharank_rank"} <= set(result)
    # the same numbers as recomputing from the JSON's own matrix
    matrix = np.array([[np.nan if v is None else v for v in row] for row in data["payoff"]["mean"]])
    nash = nash_average(league_matrix(matrix))
    assert [r["nash"]["weight"] for r in data["results"]] == pytest.approx(nash.weights.tolist(), abs=1e-12)
    assert [r["alpharank"]["mass"] for r in data["results"]] == pytest.approx(
        alpha_rank(league_matrix(matrix)).tolist(), rel=1e-9)
