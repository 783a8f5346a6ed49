"""The statistics of a league from its per-deal results ``returns[l, g, r, i]`` (lineup, deal group, rotation, seat in
the lineup) and its lineups (agent indices).

- **Mean result per deal** of each agent, over all its deals, with a 95% percentile bootstrap interval: the deal
  groups (played by every lineup in every rotation) are resampled with replacement, ``resamples`` times, from
  ``default_rng([seed, BOOTSTRAP_STREAM])``.
- **Payoff matrix**: ``M[i, j]``, agent ``i``'s result minus agent ``j``'s per deal, over the deals of the lineups where
  both sat (``None``/NaN where they never met), with the same bootstrap; the ranking it implies orders the agents by
  their mean margin over the agents they met (the row mean), and lists whom each beats (interval above zero).
- **Rating**: OpenSkill's Plackett–Luce model (``openskill.models.PlackettLuce``, default prior ``mu = 25``,
  ``sigma = 25/3``, ``beta = 25/6``) with ``tau = 0`` (a bot does not change during a league), updated with the
  finishing order of every deal (the higher return ranks higher; equal returns, within 1e-9, rank equal), deal group
  by deal group, lineup by lineup, rotation by rotation, so that no lineup comes last everywhere. Its uncertainty is
  the posterior ``sigma``, reported as ``mu ± 1.96 sigma``; that posterior treats the deals as independent, so it is
  narrower than the bootstrap intervals, which respect the duplicate groups.
- **Rankings of the payoff matrix** (:mod:`training.rankings`): with ``0`` on its diagonal the payoff matrix is
  antisymmetric (``M[j, i] = -M[i, j]``), the payoff ``A`` of a symmetric zero-sum meta-game between the agents.
  *Nash averaging* (Balduzzi et al. 2018): the maximum-entropy Nash equilibrium ``p*`` of ``A`` and each agent's
  payoff against it, ``A @ p*`` (0 for the agents it plays, negative for the rest). *α-Rank* (Omidshafiei et al.
  2019): the stationary distribution of the single-population evolutionary chain over the agents
  (:data:`training.rankings.ALPHA` on the payoffs scaled to unit range, population
  :data:`training.rankings.POPULATION`).
- **Stability**: the deal groups are split into the even and the odd ones (``g = 0, 2, 4, …`` and ``1, 3, 5, …``),
  each half's mean results, payoff margins, Nash averages and α-Rank masses computed alone, and the rankings of the
  two halves compared by Kendall's τ-b (``+1``: the same order; ties count as neither agreement nor disagreement;
  ``None`` with fewer than two deal groups or when a half ranks every agent equal).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from training.evaluate import Z95
from training.rankings import (
    ALPHA,
    POPULATION,
    NashAverage,
    alpha_rank_log,
    competition_ranks,
    kendall_tau,
    league_matrix,
    nash_average,
)

BOOTSTRAP_STREAM = 0xB007
"""Second word of the bootstrap's seed (the league's seed is the first)."""

TIE = 1e-9
"""Returns closer than this finish equal."""


def finish_ranks(returns: np.ndarray) -> np.ndarray:
    """Rank of each player of one deal (0 = best): the number of players with a strictly higher return."""
    return (returns[None, :] > returns[:, None] + TIE).sum(axis=1)


@dataclasses.dataclass
class LeagueStats:
    """Per-agent and pairwise statistics (agents in config order)."""

    groups: int
    deals: np.ndarray
    """(A,) deals each agent played."""
    mean: np.ndarray
    """(A,) mean result per deal."""
    mean_ci: np.ndarray | None
    """(2, A) bootstrap 95% interval of :attr:`mean` (``None`` with fewer than two deal groups)."""
    mu: np.ndarray
    """(A,) OpenSkill rating."""
    sigma: np.ndarray
    """(A,) its posterior standard deviation."""
    payoff: np.ndarray
    """(A, A) mean of agent i's result minus agent j's over the deals both played at one table (NaN: never met)."""
    payoff_ci: np.ndarray | None
    """(2, A, A) bootstrap 95% interval of :attr:`payoff`."""
    margin: np.ndarray
    """(A,) mean of each row of :attr:`payoff` over the agents met: the payoff matrix's ranking score."""
    margin_ci: np.ndarray | None
    """(2, A) its bootstrap 95% interval."""
    rating_model: dict[str, Any]
    nash: NashAverage
    """The maximum-entropy Nash equilibrium of :attr:`payoff` (0 on the diagonal) and each agent's payoff against
    it."""
    alpharank_log: np.ndarray
    """(A,) natural log of α-Rank's stationary distribution over the agents for :attr:`payoff` (the log keeps the
    order of masses too small for a float)."""
    stability: Stability | None
    """The rankings of the even and the odd deal groups and their Kendall τ (``None``: one deal group)."""

    def nash_order(self) -> list[int]:
        """Agents by Nash average, best first (ties, e.g. the equilibrium's support at 0, by weight, then config
        order)."""
        return sorted(range(len(self.mu)), key=lambda a: (-self.nash.payoff[a], -self.nash.weights[a], a))

    def nash_ranks(self) -> list[int]:
        """Each agent's rank by Nash average (equal payoffs share a rank)."""
        return competition_ranks(self.nash.payoff)

    @property
    def alpharank(self) -> np.ndarray:
        """(A,) α-Rank's stationary distribution (the mass of each agent; dominated agents' may be 0.0)."""
        return np.exp(self.alpharank_log)

    def alpharank_order(self) -> list[int]:
        """Agents by α-Rank mass, best first."""
        return sorted(range(len(self.mu)), key=lambda a: (-self.alpharank_log[a], a))

    def alpharank_ranks(self) -> list[int]:
        """Each agent's rank by α-Rank mass (masses within a factor 1 + 1e-9 share a rank)."""
        return competition_ranks(self.alpharank_log)

    def mean_ranks(self) -> list[int]:
        """Each agent's rank by mean result per deal."""
        return competition_ranks(self.mean)

    def rating_order(self) -> list[int]:
        """Agents by rating, best first (ties by mean result, then config order)."""
        return sorted(range(len(self.mu)), key=lambda a: (-self.mu[a], -self.mean[a], a))

    def payoff_order(self) -> list[int]:
        """Agents by mean margin in the payoff matrix, best first."""
        return sorted(range(len(self.margin)), key=lambda a: (-self.margin[a], a))

    def beats(self, a: int) -> list[int]:
        """Agents that ``a`` beats head to head: the interval of ``payoff[a, j]`` lies above zero."""
        if self.payoff_ci is None:
            return []
        return [j for j in range(len(self.mu)) if j != a and self.payoff_ci[0, a, j] > 0]

    def to_dict(self, names: list[str]) -> dict[str, Any]:
        """JSON-ready (NaN and missing intervals as ``None``)."""

        def num(x: float) -> float | None:
            return None if np.isnan(x) else float(x)

        def interval(ci: np.ndarray | None, *index: int) -> list[float | None] | None:
            return None if ci is None else [num(ci[(0, *index)]), num(ci[(1, *index)])]

        rating_rank = {a: r + 1 for r, a in enumerate(self.rating_order())}
        payoff_rank = {a: r + 1 for r, a in enumerate(self.payoff_order())}
        nash_rank, alpharank_rank = self.nash_ranks(), self.alpharank_ranks()
        a_range = range(len(names))
        return {
            "deal_groups": self.groups,
            "results": [
                {
                    "agent": names[a],
                    "deals": int(self.deals[a]),
                    "mean": float(self.mean[a]),
                    "ci95": interval(self.mean_ci, a),
                    "rating": {"mu": float(self.mu[a]), "sigma": float(self.sigma[a]),
                               "ci95": [float(self.mu[a] - Z95 * self.sigma[a]),
                                        float(self.mu[a] + Z95 * self.sigma[a])],
                               "ordinal": float(self.mu[a] - 3 * self.sigma[a])},
                    "rating_rank": rating_rank[a],
                    "payoff_rank": payoff_rank[a],
                    "nash": {"weight": float(self.nash.weights[a]), "payoff": float(self.nash.payoff[a])},
                    "nash_rank": nash_rank[a],
                    "alpharank": {"mass": float(self.alpharank[a]), "log_mass": float(self.alpharank_log[a])},
                    "alpharank_rank": alpharank_rank[a],
                }
                for a in a_range
            ],
            "rating_model": self.rating_model,
            "rankings": self._rankings_dict(names),
            "payoff": {
                "definition": "mean[i][j]: agent i's result minus agent j's per deal, over the deals where both sat "
                              "at one table (null: never met)",
                "agents": names,
                "mean": [[num(self.payoff[i, j]) for j in a_range] for i in a_range],
                "ci95_low": None if self.payoff_ci is None else
                [[num(self.payoff_ci[0, i, j]) for j in a_range] for i in a_range],
                "ci95_high": None if self.payoff_ci is None else
                [[num(self.payoff_ci[1, i, j]) for j in a_range] for i in a_range],
                "ranking": [{"agent": names[a], "mean_margin": float(self.margin[a]),
                             "ci95": interval(self.margin_ci, a), "beats": [names[j] for j in self.beats(a)]}
                            for a in self.payoff_order()],
            },
        }

    def _rankings_dict(self, names: list[str]) -> dict[str, Any]:
        nash_rank, alpharank_rank = self.nash_ranks(), self.alpharank_ranks()
        return {
            "matrix": "payoff.mean with 0 on the diagonal: antisymmetric, the payoff of the row agent against the "
                      "column agent in a symmetric zero-sum meta-game",
            "nash_average": {
                "method": "Balduzzi et al. 2018, Re-evaluating evaluation (arXiv:1806.02643): the maximum-entropy "
                          "Nash equilibrium p of the matrix A; payoff = A @ p, each agent's payoff against it (0 on "
                          "the support, negative elsewhere)",
                "support": [names[a] for a in self.nash.support],
                "gap": self.nash.gap,
                "ranking": [{"agent": names[a], "rank": nash_rank[a], "weight": float(self.nash.weights[a]),
                             "payoff": float(self.nash.payoff[a])} for a in self.nash_order()],
            },
            "alpharank": {
                "method": "Omidshafiei et al. 2019, alpha-Rank (arXiv:1903.01373), single population, Fermi "
                          "selection, fitness against the rest of the population; payoffs divided by max - min",
                "alpha": ALPHA,
                "population": POPULATION,
                "ranking": [{"agent": names[a], "rank": alpharank_rank[a], "mass": float(self.alpharank[a]),
                             "log_mass": float(self.alpharank_log[a])} for a in self.alpharank_order()],
            },
            "stability": None if self.stability is None else self.stability.to_dict(names),
        }


STABILITY_METHODS = {"mean": "mean", "payoff_margin": "mean_margin", "nash_average": "nash_payoff",
                     "alpharank": "alpharank_log_mass"}
"""The rankings compared between the halves of the deal groups, and the score each ranks by: the mean result, the
payoff margin (row mean of the matrix), the Nash average (payoff against the equilibrium), the natural log of the
α-Rank mass."""


@dataclasses.dataclass
class Stability:
    """Each ranking score computed on the even and on the odd deal groups alone, and Kendall's τ between them."""

    groups: tuple[int, int]
    """Deal groups in each half."""
    scores: dict[str, tuple[np.ndarray, np.ndarray]]
    """Per method of :data:`STABILITY_METHODS`: the (A,) scores of the two halves (higher is better)."""
    tau: dict[str, float | None]
    """Per method: Kendall's τ-b between the two halves' rankings (``None``: undefined)."""

    def to_dict(self, names: list[str]) -> dict[str, Any]:
        return {
            "split": "even and odd deal groups (g = 0, 2, 4, ... and g = 1, 3, 5, ...), every statistic recomputed "
                     "on each half alone",
            "deal_groups": list(self.groups),
            "kendall_tau": dict(self.tau),
            "halves": [{score: {names[a]: float(self.scores[method][h][a]) for a in range(len(names))}
                        for method, score in STABILITY_METHODS.items()} for h in range(2)],
        }


def _half_scores(per_group: np.ndarray, margin_group: np.ndarray, pair_group: np.ndarray) -> dict[str, np.ndarray]:
    a = league_matrix(pair_group.mean(axis=0))
    return {"mean": per_group.mean(axis=0), "payoff_margin": margin_group.mean(axis=0),
            "nash_average": nash_average(a).payoff, "alpharank": alpha_rank_log(a)}


def stability(per_group: np.ndarray, margin_group: np.ndarray, pair_group: np.ndarray) -> Stability | None:
    """The rankings of the even and the odd deal groups (axis 0 of each array) and their Kendall τ."""
    if per_group.shape[0] < 2:
        return None
    halves = [_half_scores(per_group[h::2], margin_group[h::2], pair_group[h::2]) for h in range(2)]
    scores = {m: (halves[0][m], halves[1][m]) for m in STABILITY_METHODS}
    tau = {m: kendall_tau(*scores[m]) for m in STABILITY_METHODS}
    return Stability((len(per_group[0::2]), len(per_group[1::2])), scores, tau)


def _bootstrap(samples: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray | None:
    """(2, ...) percentile 95% interval of the mean over axis 0 of ``samples`` (NaN stays NaN)."""
    groups = samples.shape[0]
    if groups < 2:
        return None
    flat = samples.reshape(groups, -1)
    missing = np.isnan(flat).any(axis=0)
    flat = np.where(np.isnan(flat), 0.0, flat)
    means = np.empty((resamples, flat.shape[1]))
    for start in range(0, resamples, 256):
        k = min(256, resamples - start)
        weights = rng.multinomial(groups, np.full(groups, 1 / groups), size=k)
        means[start:start + k] = weights @ flat / groups
    ci = np.percentile(means, [2.5, 97.5], axis=0)
    ci[:, missing] = np.nan
    return ci.reshape((2, *samples.shape[1:]))


def league_stats(
    returns: np.ndarray, lineups: tuple[tuple[int, ...], ...], num_agents: int, resamples: int, seed: int
) -> LeagueStats:
    """The statistics of a league (see the module docstring)."""
    num_lineups, groups, n, _ = returns.shape
    by_group = returns.mean(axis=2)  # (L, G, n): each seat-in-lineup's mean over the rotations of a group
    agent_sum = np.zeros((groups, num_agents))
    agent_count = np.zeros(num_agents)
    pair_sum = np.zeros((groups, num_agents, num_agents))
    pair_count = np.zeros((num_agents, num_agents))
    for lineup, agents in enumerate(lineups):
        for i, a in enumerate(agents):
            agent_sum[:, a] += by_group[lineup, :, i]
            agent_count[a] += 1
            for j, b in enumerate(agents):
                if a != b:
                    pair_sum[:, a, b] += by_group[lineup, :, i] - by_group[lineup, :, j]
                    pair_count[a, b] += 1
    per_group = agent_sum / agent_count
    with np.errstate(invalid="ignore", divide="ignore"):
        pair_group = np.where(pair_count > 0, pair_sum / pair_count, np.nan)
        met = pair_count > 0
        margin_group = np.where(met, pair_group, 0.0).sum(axis=2) / np.maximum(met.sum(axis=1), 1)
    rng = np.random.default_rng([seed, BOOTSTRAP_STREAM])
    both = np.concatenate([per_group, margin_group, pair_group.reshape(groups, -1)], axis=1)
    ci = _bootstrap(both, resamples, rng)
    mu, sigma, model = _ratings(returns, lineups, num_agents)
    payoff = pair_group.mean(axis=0)
    matrix = league_matrix(payoff)
    return LeagueStats(
        groups=groups,
        deals=agent_count * groups * n,
        mean=per_group.mean(axis=0),
        mean_ci=None if ci is None else ci[:, :num_agents],
        mu=mu,
        sigma=sigma,
        payoff=payoff,
        payoff_ci=None if ci is None else ci[:, 2 * num_agents:].reshape(2, num_agents, num_agents),
        margin=margin_group.mean(axis=0),
        margin_ci=None if ci is None else ci[:, num_agents:2 * num_agents],
        rating_model=model,
        nash=nash_average(matrix),
        alpharank_log=alpha_rank_log(matrix),
        stability=stability(per_group, margin_group, pair_group),
    )


def _ratings(
    returns: np.ndarray, lineups: tuple[tuple[int, ...], ...], num_agents: int
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    ratings = [model.rating() for _ in range(num_agents)]
    _, groups, n, _ = returns.shape
    for g in range(groups):
        for lineup, agents in enumerate(lineups):
            for r in range(n):
                ranks = [float(x) for x in finish_ranks(returns[lineup, g, r])]
                teams = model.rate([[ratings[a]] for a in agents], ranks=ranks)
                for a, team in zip(agents, teams, strict=True):
                    ratings[a] = team[0]
    description = {"model": "openskill.models.PlackettLuce", "mu": model.mu, "sigma": model.sigma,
                   "beta": model.beta, "tau": model.tau,
                   "updates": "one per deal: deal group by deal group, then lineup, then rotation; ranks from the "
                              "deal's returns, equal returns ranked equal"}
    return (np.array([r.mu for r in ratings]), np.array([r.sigma for r in ratings]), description)
