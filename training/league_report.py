"""A league's printed table and its PNG (matplotlib's Agg canvas for this figure only: no backend is set for the
process)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from training.evaluate import Z95
from training.rankings import ALPHA, POPULATION

if TYPE_CHECKING:
    from training.league import LeagueResult


FAMILIES = ("search", "style", "careless-style", "careless-bot")
"""Registry specs written ``family:K`` (``search:50``, ``style:3``): shown whole, not as a ``module:Class``."""


def short_labels(specs: list[str]) -> list[str]:
    """Display names: ``Class`` for ``module:Class``, ``ppo:<file stem>`` for a model, the spec otherwise (the full
    specs again if that would make two agents look the same)."""
    labels = []
    for spec in specs:
        if spec.startswith("ppo:"):
            labels.append("ppo:" + Path(spec[4:]).stem)
        elif ":" in spec and spec.partition(":")[0] not in FAMILIES:
            labels.append(spec.rpartition(":")[2])
        else:
            labels.append(spec)
    return labels if len(set(labels)) == len(labels) else list(specs)


def _interval(ci: np.ndarray | None, *index: int) -> str:
    if ci is None:
        return "[n/a]"
    return f"[{ci[(0, *index)]:+.3f}, {ci[(1, *index)]:+.3f}]"


def league_table(result: LeagueResult) -> str:
    """The ranking by rating with each agent's mean result, rating and payoff margin, then the payoff matrix."""
    cfg, stats, plan = result.config, result.stats, result.plan
    names = short_labels(result.names)
    opts = ", ".join(f"{k}={v}" for k, v in cfg.options) or "default rules"
    width = max(12, *(len(a) for a in names))
    lines = [
        f"{cfg.game}, {cfg.num_players} players ({opts}): {len(names)} agents in {len(plan.lineups)} lineups, "
        f"{result.deals:,} deals ({plan.groups:,} deal groups x {len(plan.lineups)} lineups x {cfg.num_players} "
        f"rotations), seed {cfg.seed}, {result.seconds:.1f} s",
        f"{'rank':>4}  {'agent':<{width}} {'version':>7}  {'mean ' + result.unit + ' / deal':>14} {'(95% CI)':<20} "
        f"{'rating (± 1.96 sd)':>19}  {'payoff margin':>13} {'(95% CI)':<20} beats",
    ]
    payoff_rank = {a: r + 1 for r, a in enumerate(stats.payoff_order())}
    for rank, a in enumerate(stats.rating_order(), start=1):
        version = result.agent_info[a]["version"]
        beats = ", ".join(names[j] for j in stats.beats(a)) or "-"
        lines.append(
            f"{rank:>4}  {names[a]:<{width}} {'-' if version is None else str(version):>7}  {stats.mean[a]:>+14.3f} "
            f"{_interval(stats.mean_ci, a):<20} {stats.mu[a]:>10.2f} ± {stats.sigma[a] * Z95:<6.2f}  "
            f"{stats.margin[a]:>+10.3f} #{payoff_rank[a]:<1} {_interval(stats.margin_ci, a):<20} {beats}"
        )
    lines.append(f"payoff matrix: the row agent's {result.unit} per deal minus the column agent's, over the deals "
                 "where both sat (± half the 95% interval; . = never met); agents by rank")
    order = stats.rating_order()
    cell = 17
    lines.append(" " * (width + 6) + "".join(f"{f'#{c}':>{cell}}" for c in range(1, len(order) + 1)))
    for rank, i in enumerate(order, start=1):
        cells = []
        for j in order:
            if i == j or np.isnan(stats.payoff[i, j]):
                cells.append(f"{'.':>{cell}}")
            else:
                ci = stats.payoff_ci
                half = "" if ci is None else f" ±{(ci[1, i, j] - ci[0, i, j]) / 2:.3f}"
                cells.append(f"{f'{stats.payoff[i, j]:+.3f}{half}':>{cell}}")
        lines.append(f"#{rank:<3} {names[i]:<{width}} " + "".join(cells))
    lines.append("(intervals: bootstrap over deal groups; rating: OpenSkill Plackett-Luce from each deal's finishing "
                 "order; payoff margin: row mean of the matrix, #rank)")
    lines.extend(rankings_table(result))
    return "\n".join(lines)


def _tau(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.2f}"


def rankings_table(result: LeagueResult) -> list[str]:
    """The rankings of the payoff matrix beside the mean result, one row per agent (by rating rank, as above), and
    the stability of each ranking between the even and the odd deal groups (:mod:`training.rankings`)."""
    stats, names = result.stats, short_labels(result.names)
    width = max(12, *(len(a) for a in names))
    mean_rank, nash_rank, alpha_rank = stats.mean_ranks(), stats.nash_ranks(), stats.alpharank_ranks()
    mass = stats.alpharank
    lines = [
        "rankings of the payoff matrix, a zero-sum game between the agents (0 on the diagonal): Nash average = "
        f"{result.unit} per deal against the maximum-entropy Nash equilibrium",
        "(Balduzzi et al. 2018), 0 for the agents it plays; alpha-Rank = stationary mass (Omidshafiei et al. 2019; "
        f"alpha {ALPHA:g} on payoffs scaled to unit range, population {POPULATION}); #rank, = ties; agents by rank",
        f"{'rank':>4}  {'agent':<{width}} {'mean':>5}  {'Nash weight':>11} {'Nash average':>12} {'#':<4} "
        f"{'alpha-Rank mass':>15} #",
    ]
    for rank, a in enumerate(stats.rating_order(), start=1):
        lines.append(
            f"{rank:>4}  {names[a]:<{width}} {_rank(mean_rank, a):>5}  {stats.nash.weights[a]:>11.3f} "
            f"{stats.nash.payoff[a]:>+12.3f} {_rank(nash_rank, a):<4} {_mass(mass[a]):>15} {_rank(alpha_rank, a)}"
        )
    st = stats.stability
    if st is None:
        lines.append("stability: n/a (one deal group: no halves to compare)")
    else:
        taus = ", ".join(f"{label} {_tau(st.tau[key])}" for key, label in
                         (("mean", "mean"), ("payoff_margin", "payoff margin"), ("nash_average", "Nash average"),
                          ("alpharank", "alpha-Rank")))
        lines.append(f"stability (Kendall tau between the rankings of the {st.groups[0]} even and the {st.groups[1]} "
                     f"odd deal groups; +1 = the same order): {taus}")
    return lines


def _rank(ranks: list[int], a: int) -> str:
    """``#3``, or ``=#3`` when another agent shares the rank."""
    return f"{'=' if ranks.count(ranks[a]) > 1 else ''}#{ranks[a]}"


def _mass(value: float) -> str:
    return f"{value:.3f}" if value >= 0.001 or value == 0 else f"{value:.1e}"


def plot_league(result: LeagueResult, path: str | Path) -> Path:
    """Each agent's mean result and rating with their intervals, and the payoff heatmap, as a PNG at ``path``."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    path = Path(path)
    stats, names = result.stats, short_labels(result.names)
    order = stats.rating_order()
    labels = [f"{names[a]} #{rank}" for rank, a in enumerate(order, start=1)]
    y = np.arange(len(order))[::-1]
    size = len(order)
    fig = Figure(figsize=(14, 0.5 * size + 2.4), layout="constrained")
    FigureCanvasAgg(fig)
    ax_mean, ax_rating, ax_heat = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1, 1.2]})
    if stats.mean_ci is not None:
        err = np.abs(stats.mean_ci[:, order] - stats.mean[order])
    else:
        err = None
    ax_mean.errorbar(stats.mean[order], y, xerr=err, fmt="o", color="tab:blue", capsize=3)
    ax_mean.axvline(0, color="black", linewidth=0.8)
    ax_mean.set_yticks(y, labels)
    ax_mean.set_xlabel(f"mean {result.unit} per deal (95% bootstrap CI)")
    ax_rating.errorbar(stats.mu[order], y, xerr=Z95 * stats.sigma[order], fmt="o", color="tab:green", capsize=3)
    ax_rating.set_yticks(y, [])
    ax_rating.set_xlabel("OpenSkill rating (mu ± 1.96 sigma)")
    matrix = stats.payoff[np.ix_(order, order)]
    bound = float(np.nanmax(np.abs(matrix))) if np.isfinite(matrix).any() else 1.0
    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="lightgrey")
    image = ax_heat.imshow(np.ma.masked_invalid(matrix), cmap=cmap, vmin=-bound, vmax=bound)
    ax_heat.set_xticks(range(size), [f"#{rank}" for rank in range(1, size + 1)])
    ax_heat.set_yticks(range(size), [f"#{rank}" for rank in range(1, size + 1)])
    if size <= 10:
        for i in range(size):
            for j in range(size):
                if np.isfinite(matrix[i, j]):
                    ax_heat.text(j, i, f"{matrix[i, j]:+.2g}", ha="center", va="center", fontsize=7)
    fig.colorbar(image, ax=ax_heat, label=f"{result.unit} per deal")
    ax_heat.set_title("payoff: row agent minus column agent (by rank)", fontsize=9)
    cfg = result.config
    fig.suptitle(f"{cfg.game}, {cfg.num_players} players: league of {size} agents, {result.deals:,} deals "
                 f"({result.plan.groups:,} duplicate deal groups), seed {cfg.seed}", fontsize=10)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=80)
    return path
