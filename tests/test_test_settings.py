"""The suite's own settings: no test's outcome depends on how busy the machine is."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import settings


def test_hypothesis_has_no_deadline_by_default() -> None:
    assert settings.default.deadline is None


def test_no_test_sets_a_deadline() -> None:
    """No ``settings(deadline=…)`` other than ``None`` anywhere in tests/ (a deadline times the first example, which
    may compile kernels)."""
    timed = []
    for path in sorted(Path(__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.keyword) and node.arg == "deadline":
                if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                    timed.append(f"{path.name}:{node.value.lineno}")
    assert timed == []
