"""FBP (Eq. ``fm``), BP (Eq. ``bipool``), CBP (Tensor Sketch) and the signed square root."""

from __future__ import annotations

import math

import pytest
import torch
from torch_geometric.nn import GCNConv

from gfbgcn.nn import BPConv, CBPConv, FBPConv, SqrtGCNConv
from gfbgcn.nn.bilinear import count_sketch, fbp_vectorize, signed_sqrt, tensor_sketch, vec_upper


@pytest.fixture(autouse=True)
def _single_thread():
    """Tiny tensors: intra-op threads only add latency (pocketfft splits even a 6 x 16 FFT
    over threads, which costs milliseconds per call on a loaded 2-core machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _count(m: torch.nn.Module) -> int:
    return sum(p.numel() for p in m.parameters())


def _randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


# ---- BP ----------------------------------------------------------------------------------


def test_vec_upper_order_and_size() -> None:
    m = torch.arange(9.0).reshape(3, 3)
    assert vec_upper(m).tolist() == [0.0, 1.0, 2.0, 4.0, 5.0, 8.0]
    assert vec_upper(torch.zeros(2, 16, 16)).shape == (2, 136)  # the paper's 16 -> 136


@pytest.mark.parametrize("d", [1, 2, 5, 9])
@pytest.mark.parametrize("eps", [0.0, 1e-3, 0.4])
@pytest.mark.parametrize("chunk_size", [None, 3])
def test_bp_quadratic_form_equals_materialised(d: int, eps: float, chunk_size: int | None) -> None:
    layer = BPConv(d, 4, eps=eps, chunk_size=chunk_size).double()
    x = _randn(11, d, seed=d)
    torch.testing.assert_close(
        layer.node_features(x), layer.materialized_node_features(x), rtol=1e-10, atol=1e-10
    )


def test_bp_upper_matrices_and_eps_term() -> None:
    layer = BPConv(5, 3, eps=0.25).double()
    u = layer.upper_matrices()
    assert u.shape == (3, 5, 5)
    assert torch.equal(torch.tril(u, diagonal=-1), torch.zeros_like(u))
    torch.testing.assert_close(vec_upper(u), layer.weight)
    # at x = 0 only eps * tr(U_c) is left
    zero = torch.zeros(2, 5, dtype=torch.float64)
    expected = 0.25 * torch.diagonal(u, dim1=-2, dim2=-1).sum(-1)
    torch.testing.assert_close(layer.node_features(zero), expected.expand(2, 3))


def test_bp_parameter_count() -> None:
    assert _count(BPConv(16, 4)) == 4 * 136 + 4
    assert _count(BPConv(16, 4, bias=False)) == 4 * 136


# ---- FBP ---------------------------------------------------------------------------------


def test_fbp_vectorize() -> None:
    h = _randn(7, 3)
    vec = fbp_vectorize(h, eps=0.5)
    assert vec.shape == (7, 9)
    m = vec.reshape(7, 3, 3)
    torch.testing.assert_close(m, m.transpose(1, 2))
    torch.testing.assert_close(torch.diagonal(m, dim1=1, dim2=2), h * h + 0.5)
    torch.testing.assert_close(m[:, 0, 2], h[:, 0] * h[:, 2])


def test_fbp_shapes_and_parameter_count() -> None:
    layer = FBPConv(200, 8)
    assert layer.rank == 16 and layer.lin.in_channels == 256
    assert _count(layer) == 200 * 16 + 256 * 8 + 8
    out = layer(torch.randn(5, 200), torch.tensor([[0, 1, 2], [1, 2, 3]]))
    assert out.shape == (5, 8)
    assert repr(layer) == "FBPConv(200, 8, rank=16)"


# ---- CBP ---------------------------------------------------------------------------------


def _draw(d: int, dim: int, gen: torch.Generator) -> tuple[torch.Tensor, ...]:
    h1 = torch.randint(dim, (d,), generator=gen)
    s1 = torch.randint(2, (d,), generator=gen).double() * 2 - 1
    h2 = torch.randint(dim, (d,), generator=gen)
    s2 = torch.randint(2, (d,), generator=gen).double() * 2 - 1
    return h1, s1, h2, s2


def test_count_sketch_definition() -> None:
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0]], dtype=torch.float64)
    index = torch.tensor([0, 2, 0, 1])
    sign = torch.tensor([1.0, -1.0, -1.0, 1.0], dtype=torch.float64)
    assert count_sketch(x, index, sign, 3).tolist() == [[1.0 - 3.0, 4.0, -2.0]]


def test_tensor_sketch_equals_explicit_sketch_of_outer_product() -> None:
    """TS(x) = P vec(x x^T) with P[(h1(i) + h2(j)) mod D, (i, j)] = s1(i) s2(j)."""
    d, dim = 5, 8
    h1, s1, h2, s2 = _draw(d, dim, torch.Generator().manual_seed(3))
    p = torch.zeros(dim, d * d, dtype=torch.float64)
    for i in range(d):
        for j in range(d):
            p[(h1[i] + h2[j]) % dim, i * d + j] += s1[i] * s2[j]
    x = _randn(6, d)
    outer = (x[:, :, None] * x[:, None, :]).reshape(6, -1)
    torch.testing.assert_close(tensor_sketch(x, h1, s1, h2, s2, dim), outer @ p.t())


def test_tensor_sketch_is_unbiased_over_hash_draws() -> None:
    """E_hash <TS(x), TS(y)> = <x, y>^2: the mean of 1000 draws is within 4 standard errors."""
    d, dim, draws = 8, 16, 1000
    x, y = _randn(1, d, seed=1), _randn(1, d, seed=2)
    gen = torch.Generator().manual_seed(5)
    estimates = []
    for _ in range(draws):
        h1, s1, h2, s2 = _draw(d, dim, gen)
        tx = tensor_sketch(x, h1, s1, h2, s2, dim)
        ty = tensor_sketch(y, h1, s1, h2, s2, dim)
        estimates.append((tx * ty).sum())
    est = torch.stack(estimates)
    true = (x * y).sum() ** 2
    stderr = est.std() / math.sqrt(draws)
    assert stderr > 0
    assert (est.mean() - true).abs() < 4 * stderr


def _mean_relative_error(dim: int, seed: int) -> float:
    d = 16
    x = _randn(300, d, seed=10)
    y = x + 0.5 * _randn(300, d, seed=11)  # correlated pairs: <x, y> well away from 0
    layer = CBPConv(d, 1, sketch_dim=dim, seed=seed).double()
    est = (layer.sketch(x) * layer.sketch(y)).sum(-1)
    true = (x * y).sum(-1) ** 2  # = <x x^T, y y^T>
    return ((est - true).abs() / true).mean().item()


def test_tensor_sketch_approximates_squared_inner_product() -> None:
    """d = 16, D = 4096: the mean relative error of <TS(x), TS(y)> vs <x, y>^2 over 300 pairs,
    averaged over hash seeds 0-4, is below 5% (observed 2.7%; per seed 0.7%-8.6%, the spread
    coming from hash collisions); with D = 64 it is far larger (observed 24%: the variance
    decays like 1/D)."""
    large = sum(_mean_relative_error(4096, seed) for seed in range(5)) / 5
    small = sum(_mean_relative_error(64, seed) for seed in range(5)) / 5
    assert large < 0.05
    assert small > 2 * large


def test_cbp_hashes_are_seeded_buffers() -> None:
    a, b, c = CBPConv(10, 3, sketch_dim=32, seed=7), CBPConv(10, 3, sketch_dim=32, seed=7), \
        CBPConv(10, 3, sketch_dim=32, seed=8)
    state = a.state_dict()
    for name in ("hash1", "sign1", "hash2", "sign2"):
        assert name in state
        assert name not in dict(a.named_parameters())
        assert torch.equal(getattr(a, name), getattr(b, name))
    assert not torch.equal(a.hash1, c.hash1) or not torch.equal(a.sign1, c.sign1)
    assert a.hash1.dtype == torch.long and int(a.hash1.max()) < 32
    assert set(a.sign1.unique().tolist()) <= {-1.0, 1.0}
    before = a.hash1.clone()
    a.reset_parameters()
    assert torch.equal(a.hash1, before)
    assert _count(a) == 32 * 3 + 3
    assert repr(a) == "CBPConv(10, 3, sketch_dim=32)"


# ---- Square root -------------------------------------------------------------------------


def test_signed_sqrt_values_and_slope_at_zero() -> None:
    delta = 0.01
    z = torch.tensor([-9.0, -1e-4, 0.0, 1e-4, 4.0], dtype=torch.float64, requires_grad=True)
    out = signed_sqrt(z, delta)
    expected = torch.sign(z) * (torch.sqrt(z.abs() + delta) - math.sqrt(delta))
    torch.testing.assert_close(out, expected.detach())
    out.sum().backward()
    assert z.grad[2].item() == pytest.approx(1 / (2 * math.sqrt(delta)))  # finite, not 0/inf
    big = torch.linspace(-100, 100, 201, dtype=torch.float64)
    assert (signed_sqrt(big, delta) - torch.sign(big) * big.abs().sqrt()).abs().max() <= 0.1
    torch.testing.assert_close(signed_sqrt(-big, delta), -signed_sqrt(big, delta))


def test_sqrt_gcn_parameters_and_validation() -> None:
    assert _count(SqrtGCNConv(20, 4)) == _count(GCNConv(20, 4))
    with pytest.raises(ValueError):
        SqrtGCNConv(20, 4, delta=0.0)
