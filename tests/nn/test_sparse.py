"""The CSR product with a cached transpose: values and gradients equal the dense product."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.nn.sparse import (
    CPU_COLUMN_BLOCK,
    column_blocks,
    csr_matmul,
    csr_transpose,
    mark_symmetric,
    spmm,
)


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


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
@pytest.mark.parametrize("width", [1, CPU_COLUMN_BLOCK, CPU_COLUMN_BLOCK + 1, 72, 100, 200])
def test_column_blocks_give_the_same_bits_as_one_product(dtype, index_dtype, width) -> None:
    """On the CPU ``csr_matmul`` multiplies wide ``x`` block by block: every bit must equal
    ``adj @ x`` (training results may not change with it), contiguous ``x`` or not."""
    coo = _random_csr(300, 400, 30_000, 2).to(dtype)
    adj = torch.sparse_csr_tensor(coo.crow_indices().to(index_dtype),
                                  coo.col_indices().to(index_dtype), coo.values(), coo.shape)
    g = torch.Generator().manual_seed(3)
    x = torch.randn(400, width, generator=g, dtype=dtype)
    assert torch.equal(csr_matmul(adj, x), adj @ x)
    x_columns_first = x.t().contiguous().t()
    assert torch.equal(csr_matmul(adj, x_columns_first), adj @ x_columns_first)


def test_blocked_product_gradients() -> None:
    """Forward and backward both take the blocked path for a wide ``x``."""
    adj = _random_csr(9, 8, 40, 4)
    x = torch.randn(8, 2 * CPU_COLUMN_BLOCK + 5, dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(lambda t: spmm(adj, t), (x,))
    torch.testing.assert_close(spmm(adj, x), adj.to_dense() @ x)


def test_wide_products_run_in_column_blocks_on_the_cpu(monkeypatch) -> None:
    """The speed-up itself: forward and backward of a 102-column ``x`` are three products each
    (32 + 32 + 38 columns: the remainder joins the last block); a narrow ``x`` or ``block=0`` is
    one product."""
    widths: list[int] = []
    product = torch.Tensor.__matmul__

    def counting(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        widths.append(b.size(-1))
        return product(a, b)

    monkeypatch.setattr(torch.Tensor, "__matmul__", counting)
    adj = _random_csr(9, 8, 40, 5)
    x = torch.randn(8, 3 * CPU_COLUMN_BLOCK + 6, dtype=torch.float64, requires_grad=True)
    spmm(adj, x).sum().backward()
    assert widths == [CPU_COLUMN_BLOCK, CPU_COLUMN_BLOCK, CPU_COLUMN_BLOCK + 6] * 2
    widths.clear()
    csr_matmul(adj, x.detach(), block=0)
    csr_matmul(adj, x.detach()[:, :CPU_COLUMN_BLOCK])
    assert widths == [3 * CPU_COLUMN_BLOCK + 6, CPU_COLUMN_BLOCK]


def test_column_blocks_cover_every_column_once_with_no_narrow_last_block() -> None:
    assert column_blocks(32, 32) == [(0, 32)]
    assert column_blocks(33, 32) == [(0, 33)]
    assert column_blocks(64, 32) == [(0, 32), (32, 64)]
    assert column_blocks(200, 32) == [(0, 32), (32, 64), (64, 96), (96, 128), (128, 160),
                                      (160, 200)]
    for width in range(1, 300):
        blocks = column_blocks(width, 32)
        assert [c for a, b in blocks for c in range(a, b)] == list(range(width))
        assert all(b - a < 64 for a, b in blocks)
        assert len(blocks) == 1 or all(b - a >= 32 for a, b in blocks)
