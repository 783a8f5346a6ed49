"""Throughput and learning benchmarks.

By default a run writes its numbers under ``runs/benchmarks/`` (ignored by git), so trying a benchmark never changes
the committed results; ``--commit`` writes them to ``benchmarks/results/``, the files the README and docs quote.
"""

from __future__ import annotations

from pathlib import Path

COMMITTED = Path(__file__).parent / "results"
"""The results the README and docs quote (written only with ``--commit``)."""
LOCAL = Path("runs") / "benchmarks"
"""Where a run writes by default."""


def results_dir(commit: bool) -> Path:
    """The folder a benchmark writes to: the committed results with ``--commit``, else ``runs/benchmarks/``."""
    return COMMITTED if commit else LOCAL
