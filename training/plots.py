"""Small result plots, drawn on their own figure (``matplotlib.figure.Figure``, no pyplot): writing a file never
switches the process's matplotlib backend, so ``plt.show()`` in a notebook keeps working."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from training.evaluate import EvalResult


def plot_eval(result: EvalResult, path: str | Path) -> Path:
    """Bar chart of each agent's mean return and win share with their 95% intervals, saved as a PNG at ``path``."""
    path = Path(path)
    labels = [f"{i}: {name}" for i, name in enumerate(result.agents)]
    y = list(range(len(labels)))[::-1]
    fig = Figure(figsize=(8, 0.5 * len(labels) + 1.6))
    ax1, ax2 = fig.subplots(1, 2, sharey=True)
    ax1.barh(y, result.mean, xerr=result.ci95, color="tab:blue", capsize=3)
    ax1.axvline(0, color="black", linewidth=0.8)
    ax1.set_xlabel(f"mean {result.unit} per episode")
    ax1.set_yticks(y, labels)
    ax2.barh(y, result.win_rate, xerr=result.win_ci95, color="tab:green", capsize=3)
    ax2.axvline(1 / result.num_players, color="black", linewidth=0.8, linestyle="--")
    ax2.set_xlabel("win share (dashed: 1/n)")
    fig.suptitle(f"{result.game}, {result.num_players} players, {result.episodes:,} episodes (duplicate, 95% CI)",
                 fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=80)
    return path
