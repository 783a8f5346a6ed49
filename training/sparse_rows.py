"""Observations and the policy's inputs as sparse rows: about 97% of the numbers of every game's observation are 0,
so the input layer, which holds most of the network's multiplications, acts and trains on sparse CSR matrices
(:meth:`agents.ppo.SymlogFeatures.inputs` and :meth:`~agents.ppo.SymlogFeatures.layer` take either) at a fraction of
the dense cost.

:class:`SparseRows` finds the non-zero entries of a batch's inputs once (compiled code), and builds the CSR matrix of
any minibatch of its rows from them (compiled code again), so no minibatch scans its dense rows.

A minibatch (:class:`SparseMinibatch`) keeps its rows' CSR matrix and the matrix's transpose, built together in
compiled code, so the input layer's backward pass multiplies the transpose by the gradient directly
(:class:`SparseLinear`) instead of torch converting the matrix on every backward.
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

    def take(self, rows: np.ndarray) -> SparseMinibatch:
        """The rows ``rows`` (in that order) as a :class:`SparseMinibatch`."""
        crow = np.zeros(rows.size + 1, np.int64)
        total = int((self.offsets[rows + 1] - self.offsets[rows]).sum())
        columns, values = np.zeros(total, np.int64), np.zeros(total, np.float32)
        _take(self.offsets, self.columns, self.values, rows.astype(np.int64, copy=False), crow, columns, values)
        t_crow, t_columns, t_values = np.zeros(self.width + 1, np.int64), np.zeros(total, np.int64), \
            np.zeros(total, np.float32)
        _transpose(crow, columns, values, t_crow, t_columns, t_values)
        return SparseMinibatch(_csr(crow, columns, values, (rows.size, self.width)),
                               _csr(t_crow, t_columns, t_values, (self.width, rows.size)))


class SparseMinibatch:
    """A minibatch's inputs as a sparse CSR matrix and its transpose (``matrix``, ``transposed``)."""

    def __init__(self, matrix: th.Tensor, transposed: th.Tensor) -> None:
        self.matrix, self.transposed = matrix, transposed

    def __len__(self) -> int:
        return int(self.matrix.shape[0])

    def times(self, layer: th.nn.Linear) -> th.Tensor:
        """``layer`` applied to the rows (``x @ W.T + b``), differentiable in the layer's weight and bias."""
        return SparseLinear.apply(self.matrix, self.transposed, layer.weight, layer.bias)


class SparseLinear(th.autograd.Function):
    """``x @ W.T + b`` for a sparse CSR ``x`` given with its transpose ``xt``; the backward pass gives the weight's
    gradient as ``(xt @ grad).T`` and the bias's as the gradient's column sums (``x`` takes no gradient)."""

    @staticmethod
    def forward(ctx, x: th.Tensor, xt: th.Tensor, weight: th.Tensor, bias: th.Tensor) -> th.Tensor:
        ctx.save_for_backward(xt)
        return th.addmm(bias, x, weight.t())

    @staticmethod
    def backward(ctx, grad: th.Tensor) -> tuple[None, None, th.Tensor, th.Tensor]:
        (xt,) = ctx.saved_tensors
        return None, None, (xt @ grad).t(), grad.sum(0)


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


@numba.njit(cache=True)
def _transpose(crow, columns, values, t_crow, t_columns, t_values):
    for p in range(columns.shape[0]):
        t_crow[columns[p] + 1] += 1
    for c in range(t_crow.shape[0] - 1):
        t_crow[c + 1] += t_crow[c]
    fill = t_crow[:-1].copy()
    for r in range(crow.shape[0] - 1):
        for p in range(crow[r], crow[r + 1]):
            c = columns[p]
            t_columns[fill[c]] = r
            t_values[fill[c]] = values[p]
            fill[c] += 1
