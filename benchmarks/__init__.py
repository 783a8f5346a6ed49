"""Throughput and learning benchmarks.

By default a run writes its numbers under ``runs/benchmarks/`` (ignored by git), so trying a benchmark never changes
the committed results; ``--commit`` writes them to ``benchmarks/results/``, the files the README and docs quote.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

COMMITTED = Path(__file__).parent / "results"
"""The results the README and docs quote (written only with ``--commit``)."""
LOCAL = Path("runs") / "benchmarks"
"""Where a run writes by default."""


def results_dir(commit: bool) -> Path:
    """The folder a benchmark writes to: the committed results with ``--commit``, else ``runs/benchmarks/``."""
    return COMMITTED if commit else LOCAL


def write_result(result: dict[str, Any], path: Path) -> Path:
    """Write a benchmark's ``result`` as JSON to ``path`` (its folder made if needed) and say so; returns ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(f"written to {path}")
    return path
