"""The CSR product with a cached transpose: values and gradients equal the dense product."""

from __future__ import annotations

import torch

from gfbgcn.nn.sparse import csr_transpose, mark_symmetric, spmm


def _random_csr(n: int, m: int, nnz: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    idx = torch.stack([torch.randint(0, n, (nnz,), generator=g),
                       torch.randint(0, m, (nnz,), generator=g)])
    vals = torch.randn(nnz, generator=g, dtype=torch.float64)
    return torch.sparse_coo_tensor(idx, vals, (n, m)).coalesce().to_sparse_csr()


def test_transpose_and_gradient_of_rectangular_matrix():
    adj = _random_csr(7, 5, 20, 0)
    torch.testing.assert_close(csr_transpose(adj).to_dense(), adj.to_dense().T)
    assert csr_transpose(adj) is csr_transpose(adj), "computed once per matrix"
    x = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(lambda t: spmm(adj, t), (x,))
    torch.testing.assert_close(spmm(adj, x), adj.to_dense() @ x)


def test_symmetric_matrix_is_its_own_transpose():
    dense = _random_csr(6, 6, 14, 1).to_dense()
    adj = mark_symmetric((dense + dense.T).to_sparse_csr())
    assert csr_transpose(adj) is adj
    x = torch.randn(6, 2, dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(lambda t: spmm(adj, t), (x,))


def test_csr_rows_selects_rows_in_order() -> None:
    from gfbgcn.nn.sparse import csr_rows

    dense = torch.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0], [0.0, 0.0, 0.0], [4.0, 5.0, 6.0]])
    adj = dense.to_sparse_csr()
    rows = torch.tensor([3, 0, 2, 3])
    sub = csr_rows(adj, rows)
    assert sub.layout == torch.sparse_csr and sub.shape == (4, 3)
    torch.testing.assert_close(sub.to_dense(), dense[rows])
    x = torch.randn(3, 2, requires_grad=True)
    (grad,) = torch.autograd.grad(spmm(sub, x).sum(), x)
    torch.testing.assert_close(grad, dense[rows].t() @ torch.ones(4, 2))
