"""Checks of the arguments of every public entry point, written once.

Each check turns a value a user passed into what the code works on (a Python ``int``, an ``int64`` index array, …)
or raises :class:`ArgumentError` — a ``ValueError`` whose message is one line naming the argument, what it may be
and what it was. The checks run before anything is changed, so a refused call leaves every object as it was.

Numpy scalars count as the Python values they hold (``np.int64(5)`` is the integer 5); booleans are not integers
(``True`` is not seat 1) and floats are not integers even when whole (``2.0`` is refused: a float where an index
belongs is almost always a bug upstream).

An env used before its ``reset()`` raises :class:`ResetNeededError`, also one line and also changing nothing.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

U64_MAX = 2**64 - 1
"""The largest seed (seeds are unsigned 64-bit integers, C7)."""


class ArgumentError(ValueError):
    """An argument of a public entry point that it does not accept; nothing was changed."""


class ResetNeededError(RuntimeError):
    """An env was used before its ``reset()`` (or, in the AEC face, after its episode was over and every agent
    removed); nothing was changed."""


def show(value: Any, limit: int = 60) -> str:
    """A short one-line picture of ``value`` for an error message."""
    if isinstance(value, np.ndarray):
        if value.ndim > 1 or value.size > 8:
            return f"an array of shape {value.shape} and dtype {value.dtype}"
        return f"array({value.tolist()!r}, dtype={value.dtype})"
    text = " ".join(repr(value.item() if isinstance(value, np.generic) else value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_int(value: Any) -> bool:
    """Whether ``value`` is a Python or numpy integer (not a bool)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_int(
    value: Any, name: str, low: int | None = None, high: int | None = None, allowed: str | None = None
) -> int:
    """``value`` as a Python int, if it is an integer in ``low..high`` (either bound may be open); ``allowed``
    words what may be passed in the error message (default: from the bounds)."""
    if is_int(value) and (low is None or value >= low) and (high is None or value <= high):
        return int(value)
    if allowed is None:
        if low is not None and high is not None:
            allowed = f"an integer from {low} to {high}"
        elif low is not None:
            allowed = {0: "a non-negative integer", 1: "a positive integer"}.get(low, f"an integer >= {low}")
        else:
            allowed = "an integer"
    raise ArgumentError(f"{name} must be {allowed}, got {show(value)}")


def is_number(value: Any) -> bool:
    """Whether ``value`` is a Python or numpy real number (an integer or a float, not a bool)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def check_number(value: Any, name: str, positive: bool = False) -> float:
    """``value`` as a Python float, if it is a finite real number (and above 0 when ``positive``)."""
    if is_number(value) and math.isfinite(value) and (not positive or value > 0):
        return float(value)
    raise ArgumentError(f"{name} must be a finite{' positive' if positive else ''} number, got {show(value)}")


def check_probability(value: Any, name: str) -> float:
    """``value`` as a Python float, if it is a real number from 0 to 1."""
    if is_number(value) and 0 <= value <= 1:
        return float(value)
    raise ArgumentError(f"{name} must be a probability in [0, 1], got {show(value)}")


def int_array(value: Any, name: str, allowed: str) -> np.ndarray:
    """``value`` as an integer-dtype array (numpy, one int, or a list of ints; an empty list is an empty ``int64``
    array).

    Floats, bools, strings and objects are refused with ``"{name} must be {allowed}"``."""
    if isinstance(value, (list, tuple)) and value and all(is_int(v) for v in value):
        ints = [int(v) for v in value]  # numpy would make floats of ints beyond int64 next to small ones
        lo, hi = min(ints), max(ints)
        if not (-(2**63) <= lo and hi <= U64_MAX and (lo >= 0 or hi < 2**63)):
            raise ArgumentError(f"{name} must be {allowed}, got {show(value)} (beyond 64-bit integers)")
        return np.array(ints, dtype=np.int64 if hi < 2**63 else np.uint64)
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError):
        raise ArgumentError(f"{name} must be {allowed}, got {show(value)}") from None
    if arr.size == 0 and arr.dtype.kind == "f":
        arr = arr.astype(np.int64)  # ``[]``: numpy calls an empty list float64
    if arr.dtype.kind not in "iu":
        raise ArgumentError(f"{name} must be {allowed}, got {show(value)}")
    return arr


@numba.njit(cache=True)
def _all_within(values, high):
    """Whether every value is in ``0..high-1``."""
    for v in values:
        if v < 0 or v >= high:
            return False
    return True


@numba.njit(cache=True)
def _increasing_within(values, high):
    """Whether the values rise strictly and lie in ``0..high-1`` (distinct table indices, as ``flatnonzero`` gives)."""
    last = -1
    for v in values:
        if v <= last or v >= high:
            return False
        last = v
    return True


def seat_array(value: Any, name: str, batch_size: int, num_players: int) -> np.ndarray:
    """``(batch_size,) int64`` seats from one seat (broadcast to every table) or one seat per table."""
    if type(value) is np.ndarray and value.dtype == np.int64 and value.shape == (batch_size,) \
            and _all_within(value, num_players):  # the common array of seats, checked in one compiled pass
        return value
    allowed = f"a seat 0..{num_players - 1} (one int, or one per table: shape ({batch_size},))"
    if is_int(value):  # the common single seat, without building an array first
        return np.full(batch_size, check_int(value, name, 0, num_players - 1, allowed=allowed), dtype=np.int64)
    arr = int_array(value, name, allowed)
    if arr.ndim > 1 or (arr.ndim == 1 and arr.shape != (batch_size,)):
        raise ArgumentError(f"{name} must be {allowed}, got shape {arr.shape}")
    outside = (arr < 0) | (arr >= num_players)
    if outside.any():
        raise ArgumentError(f"{name} must be {allowed}, got {int(arr[outside].flat[0])}")
    return np.full(batch_size, arr, dtype=np.int64) if arr.ndim == 0 else arr.astype(np.int64, copy=False)


def table_indices(value: Any, name: str, batch_size: int) -> np.ndarray:
    """Table indices ``int64`` from an index array (each table at most once) or a ``(batch_size,)`` bool mask."""
    if type(value) is np.ndarray and value.dtype == np.int64 and value.ndim == 1 \
            and _increasing_within(value, batch_size):  # the common sorted indices, checked in one compiled pass
        return value
    allowed = f"a 1-D array of distinct table indices 0..{batch_size - 1} or a boolean mask of shape ({batch_size},)"
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError):
        raise ArgumentError(f"{name} must be {allowed}, got {show(value)}") from None
    if arr.ndim != 1:
        raise ArgumentError(f"{name} must be {allowed}, got shape {arr.shape}")
    if arr.dtype == bool:
        if arr.shape != (batch_size,):
            raise ArgumentError(f"{name} must be {allowed}, got a boolean mask of shape {arr.shape}")
        return np.flatnonzero(arr)
    arr = int_array(value, name, allowed)
    if arr.size and (arr.min() < 0 or arr.max() >= batch_size):
        bad = arr[(arr < 0) | (arr >= batch_size)].flat[0]
        raise ArgumentError(f"{name} must be {allowed}, got table {int(bad)}")
    arr = arr.astype(np.int64, copy=False)
    if arr.size > 1 and np.bincount(arr, minlength=batch_size).max() > 1:
        twice = int(np.flatnonzero(np.bincount(arr, minlength=batch_size) > 1)[0])
        raise ArgumentError(f"{name} must be {allowed}, got table {twice} more than once")
    return arr
