"""Observations and the policy's inputs as sparse rows: about 97% of the numbers of every game's observation are 0,
so the input layer, which holds most of the network's multiplications, acts and trains on sparse CSR matrices
(:meth:`agents.ppo.SymlogFeatures.inputs` and :meth:`~agents.ppo.SymlogFeatures.layer` take either) at a fraction of
the dense cost.

:class:`SparseRows` finds the non-zero entries of a batch's inputs once (compiled code), and builds the CSR matrix of
any minibatch of its rows from them (compiled code again), so no minibatch scans its dense rows.
"""

from __future__ import annotations

import warnings

import numba
import numpy as np
import torch as th


class SparseRows:
    """The non-zero entries of a dense ``(R, D)`` float32 array, row by row."""

    def __init__(self, dense: np.ndarray) -> None:
        counts = np.zeros(dense.shape[0], np.int64)
        _count(dense, counts)
        self.offsets = np.zeros(dense.shape[0] + 1, np.int64)
        """Row ``i``'s entries are ``offsets[i]:offsets[i + 1]`` of :attr:`columns` and :attr:`values`."""
        np.cumsum(counts, out=self.offsets[1:])
        self.columns = np.zeros(self.offsets[-1], np.int64)
        self.values = np.zeros(self.offsets[-1], np.float32)
        self.width = dense.shape[1]
        _fill(dense, self.offsets, self.columns, self.values)

    def matrix(self) -> th.Tensor:
        """All the rows as a sparse CSR tensor."""
        return _csr(self.offsets, self.columns, self.values, (self.offsets.size - 1, self.width))

    def take(self, rows: np.ndarray) -> th.Tensor:
        """The rows ``rows`` (in that order) as a ``(len(rows), D)`` sparse CSR tensor."""
        crow = np.zeros(rows.size + 1, np.int64)
        total = int((self.offsets[rows + 1] - self.offsets[rows]).sum())
        columns, values = np.zeros(total, np.int64), np.zeros(total, np.float32)
        _take(self.offsets, self.columns, self.values, rows.astype(np.int64, copy=False), crow, columns, values)
        return _csr(crow, columns, values, (rows.size, self.width))


def _csr(crow: np.ndarray, columns: np.ndarray, values: np.ndarray, size: tuple[int, int]) -> th.Tensor:
    """The sparse CSR tensor of these arrays (shared, not copied)."""
    with warnings.catch_warnings():  # torch's note that its sparse CSR support is in beta
        warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta state")
        return th.sparse_csr_tensor(th.from_numpy(crow), th.from_numpy(columns), th.from_numpy(values), size=size,
                                    check_invariants=False)


@numba.njit(cache=True)
def _count(dense, counts):
    for i in range(dense.shape[0]):
        c = 0
        for j in range(dense.shape[1]):
            if dense[i, j] != 0:
                c += 1
        counts[i] = c


@numba.njit(cache=True)
def _fill(dense, offsets, columns, values):
    for i in range(dense.shape[0]):
        k = offsets[i]
        for j in range(dense.shape[1]):
            if dense[i, j] != 0:
                columns[k] = j
                values[k] = dense[i, j]
                k += 1


@numba.njit(cache=True)
def _take(offsets, columns, values, rows, crow, out_columns, out_values):
    k = 0
    for r in range(rows.shape[0]):
        i = rows[r]
        for p in range(offsets[i], offsets[i + 1]):
            out_columns[k] = columns[p]
            out_values[k] = values[p]
            k += 1
        crow[r + 1] = k
