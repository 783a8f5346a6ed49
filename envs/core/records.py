"""Table records: a compiled core keeps each table's state in one record of a structured numpy array.

A per-table kernel then takes the table's record (``rec[b]``, passed to compiled code as one pointer) instead of a
tuple of dozens of arrays, and reads and writes the table's fields in a few adjacent cache lines. The state object
the API hands out is unchanged: each of its fields is a view of one field of the record array (batch axis first;
booleans are stored as ``uint8``, which numba's records need, and viewed as ``bool``), so reading
``state.hands`` or writing ``state.balance[0] = 5`` reads or writes the records.

A state whose fields are no longer those views (``take``, ``copy``, or a field replaced by hand) gets a new record
array built from its fields the next time a kernel needs it (:func:`records`), and its fields become views again.
"""

from __future__ import annotations

import functools
import operator
import sys
from collections import namedtuple
from collections.abc import Sequence
from typing import Any

import numpy as np

_KERNEL_TUPLE_NAMES: set[str] = set()
"""The class names :func:`kernel_tuple` has given out in this process."""

_BOUND = "_records"
"""The attribute of a state holding ``(record array, the field views)``."""


def _key(fields: dict[str, tuple]) -> tuple[tuple[str, str, tuple[int, ...]], ...]:
    return tuple((name, np.dtype(spec[0]).str, spec[1]) for name, spec in fields.items())


@functools.cache
def _layout(fields: tuple[tuple[str, str, tuple[int, ...]], ...]) -> tuple[np.dtype, frozenset[str]]:
    """(record dtype, names of the boolean fields), built once per layout."""
    booleans = frozenset(name for name, dt, _ in fields if np.dtype(dt) == np.bool_)
    dtype = np.dtype([(name, np.uint8 if name in booleans else dt, shape) for name, dt, shape in fields], align=True)
    return dtype, booleans


def allocate(batch: int, fields: dict[str, tuple]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A zeroed record array of ``batch`` tables and the views that become the state's fields. A field given a third
    entry, the shape the state sees, is stored larger (padded to a game's largest table, so that every table size
    shares one record type and one compiled kernel) and seen through the leading part."""
    dtype, booleans = _layout(_key(fields))
    rec = np.zeros(batch, dtype)
    views = {}
    for name, spec in fields.items():
        view = rec[name]
        if len(spec) > 2 and spec[2] != spec[1]:
            view = view[(slice(None), *(slice(0, k) for k in spec[2]))]
        views[name] = view.view(np.bool_) if name in booleans else view
    return rec, views


def bind(state: Any, rec: np.ndarray, views: dict[str, np.ndarray]) -> None:
    """Make the views of ``rec`` the fields of ``state``."""
    for name, view in views.items():
        setattr(state, name, view)
    object.__setattr__(state, _BOUND, (rec, tuple(views.values()), operator.attrgetter(*views)))


def records(state: Any, fields: dict[str, tuple]) -> np.ndarray:
    """The record array behind ``state``'s fields, rebuilt from the fields (and bound) if they are not its views."""
    bound = getattr(state, _BOUND, None)
    if bound is not None:
        rec, views, current = bound
        if all(map(operator.is_, current(state), views)):  # every field still the view it was bound to
            return rec
    rec, views = allocate(state.batch_size, fields)
    for name, view in views.items():
        view[...] = getattr(state, name)
    bind(state, rec, views)
    return rec


def kernel_tuple(name: str, fields: Sequence[str]) -> type:
    """A namedtuple class for the arguments a game's kernels take beside the records (its rules, its arrays outside
    the records), named ``name``, which must be unique in the process (a second use raises ``ValueError``) and be
    the name the caller's module binds it to: the class belongs to the caller's module, so numba's on-disk cache can
    find it again by module and name (a class it cannot find is a cache miss: every process compiles anew).

    Why unique: numba's dispatcher finds the compiled version of a function from a fingerprint of its arguments,
    and the fingerprint of a namedtuple holds its class *name*, its field names and its values' types, not the class
    itself. Two games with a class ``Extra`` of the same fields and array types share one fingerprint; once one game
    has run, the other's calls take the fingerprint to the first game's type, find no compiled version of it, and
    are typed again in Python (about 1 ms a call): one table of the second game played 20-30 times slower in a
    process that had played the first. Game-prefixed names (``TripoliExtra``) keep every fingerprint apart.
    """
    if name in _KERNEL_TUPLE_NAMES:
        raise ValueError(f"kernel_tuple: the name {name!r} is taken; numba would confuse the two classes")
    _KERNEL_TUPLE_NAMES.add(name)
    return namedtuple(name, fields, module=sys._getframe(1).f_globals["__name__"])
