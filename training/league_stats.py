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
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from training.evaluate import Z95

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
                }
                for a in a_range
            ],
            "rating_model": self.rating_model,
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
    return LeagueStats(
        groups=groups,
        deals=agent_count * groups * n,
        mean=per_group.mean(axis=0),
        mean_ci=None if ci is None else ci[:, :num_agents],
        mu=mu,
        sigma=sigma,
        payoff=pair_group.mean(axis=0),
        payoff_ci=None if ci is None else ci[:, 2 * num_agents:].reshape(2, num_agents, num_agents),
        margin=margin_group.mean(axis=0),
        margin_ci=None if ci is None else ci[:, num_agents:2 * num_agents],
        rating_model=model,
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
