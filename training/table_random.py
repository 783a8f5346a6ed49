"""Common random numbers for duplicate evaluation: every table draws from its own random stream.

A duplicate tournament compares two agents on the same deals; the comparison is only as sharp as the two
tournaments are alike. When the other seats draw random moves (``random``, a careless player, a bot drawn per
decision, a sampling policy) from one generator shared by the whole batch, the first table where the two agents
play differently shifts every later draw at every table: from then on the opponents' luck differs everywhere, and
its noise swamps the difference between the agents. :class:`TableRandom` is the generator the evaluation hands to
the agents instead: an agent's ``k``-th draw of a call, for the row of table ``t`` at step ``s`` of the tournament,
is a hash of ``(seed, t, s, k)`` and the column, so a table whose play has been the same so far gets the same random
moves in both tournaments whatever happens at the others (every live table takes one decision per step, so ``s`` is
the table's decision count).

The draws made per row — ``random``, ``integers`` and ``gumbel`` whose first size is the number of rows, which is
how the zoo's agents, :func:`envs.core.game.sample_legal` and the sampling :class:`agents.ppo.PPOAgent` draw — are
such hashes; any other draw comes from the generator's own stream (still random, not common to the tournaments).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.checks import U64_MAX, check_int
from envs.core.rng import hash_u64

_TO_UNIT = 1.0 / 2.0**53
"""The top 53 bits of a hash, times this, are a uniform float in ``[0, 1)``."""


class TableRandom(np.random.Generator):
    """A numpy ``Generator`` whose per-row draws depend only on the table of the row, the step and the draw's place
    in the call (module docstring). :meth:`bind` before each agent call names the rows' tables and the step."""

    def __init__(self, seed: int) -> None:
        seed = check_int(seed, "seed", 0, U64_MAX, allowed="an integer from 0 to 2**64-1")
        super().__init__(np.random.PCG64(seed))
        self.seed = seed
        self._tables = np.zeros(0, np.int64)
        self._step = 0
        self._draw = 0

    def bind(self, tables: np.ndarray, step: int) -> None:
        """The next agent call acts for ``tables`` (one table index per row, in row order) at ``step``."""
        self._tables, self._step, self._draw = np.asarray(tables, np.int64), int(step), 0

    def _per_row(self, size: Any) -> tuple[int, ...] | None:
        """``size`` as a shape if its first dimension is the bound rows, else ``None``."""
        shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size) if size is not None else None
        if not shape or shape[0] != len(self._tables) or len(self._tables) == 0:
            return None
        return tuple(int(d) for d in shape)

    def _uniforms(self, shape: tuple[int, ...]) -> np.ndarray:
        """Uniform floats in ``[0, 1)`` of ``shape``, each a hash of (seed, table, step, draw, column)."""
        columns = int(np.prod(shape[1:], dtype=np.int64))
        keys = hash_u64(np.full(len(self._tables), self.seed, np.uint64), self._tables, self._step, self._draw)
        self._draw += 1
        bits = hash_u64(keys[:, None], np.arange(columns)) if columns != 1 else keys[:, None]
        return ((bits >> np.uint64(11)).astype(np.float64) * _TO_UNIT).reshape(shape)

    def random(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:  # noqa: D102
        shape = self._per_row(size)
        if shape is None or out is not None:
            return super().random(size, dtype, out)
        return self._uniforms(shape).astype(dtype, copy=False)

    def integers(self, low: Any, high: Any = None, size: Any = None, dtype: Any = np.int64,  # noqa: D102
                 endpoint: bool = False) -> Any:
        shape = self._per_row(size)
        if shape is None or not np.isscalar(low) or (high is not None and not np.isscalar(high)):
            return super().integers(low, high, size, dtype, endpoint)
        lo, hi = (0, low) if high is None else (low, high)
        span = int(hi) - int(lo) + (1 if endpoint else 0)
        if span <= 0:
            return super().integers(low, high, size, dtype, endpoint)  # numpy's own refusal
        return (int(lo) + np.floor(self._uniforms(shape) * span)).astype(dtype)

    def gumbel(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:  # noqa: D102
        shape = self._per_row(size)
        if shape is None:
            return super().gumbel(loc, scale, size)
        u = self._uniforms(shape)
        return loc - scale * np.log(-np.log(np.maximum(u, _TO_UNIT)))
