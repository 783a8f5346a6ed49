"""Shared pieces of the bad-input tests (tests/test_inputs_*.py): malformed-value strategies, the one-line refusal
check and bit-for-bit comparison of states."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from envs.registry import GAMES as REGISTRY

GAMES = tuple(REGISTRY)
"""Every game; each test module runs on all of them."""


def refused(call: Callable[[], Any], error: type[BaseException], *words: str) -> str:
    """Run ``call``, which must raise ``error`` with a one-line message containing every one of ``words``."""
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert message.strip() and "\n" not in message, f"not one line: {message!r}"
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    return message


def same_arrays(a: Any, b: Any) -> bool:
    """Whether two dataclasses of numpy arrays (states) hold bit-identical arrays of the same dtypes and shapes."""
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
            return False
    return True


def not_integers() -> st.SearchStrategy:
    """Single values that are not integers: floats (whole ones too), strings, bools, None-like junk."""
    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=5),
        st.booleans(),
        st.just(np.float64(1.0)),
        st.just(np.bool_(True)),
        st.just([[0]]),
        st.just({"seat": 0}),
    )


def out_of_range(low: int, high: int) -> st.SearchStrategy:
    """Integers outside ``low..high``: negatives, just past the end, huge (beyond 64 bits too)."""
    return st.one_of(
        st.integers(max_value=low - 1),
        st.integers(min_value=high + 1),
        st.just(2**64),
        st.just(-(2**63) - 1),
    )


def bad_arrays(length: int) -> st.SearchStrategy:
    """Arrays that are not a ``(length,)`` integer array: float, bool, string dtypes, wrong shapes."""
    return st.one_of(
        hnp.arrays(np.float64, length, elements=st.floats(-5, 5)),
        hnp.arrays(np.float32, length, elements=st.floats(-5, 5, width=32)),
        hnp.arrays("U2", length),
        hnp.arrays(np.int64, st.sampled_from([(length + 1,), (length, 1), (1, length)])),
    )


def cli_refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``cardgym ARGV`` in this process, check it stops with status 2 and one stderr line, and return the line."""
    from training.cli import main

    with pytest.raises(SystemExit) as exc:
        main(argv)
    captured = capsys.readouterr()
    assert exc.value.code == 2, captured
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]
