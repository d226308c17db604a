"""Text SGC (WAP): ``logits = \\hat A^K W + b`` on identity features."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.nn import TextSGC
from tests.nn.models.wap import DST, SRC, C, N, dense_ahat, randomize, wap_graph


@pytest.mark.parametrize("k", [1, 2, 3])
def test_text_sgc_equals_dense_power(k: int) -> None:
    edge_index, weight = wap_graph()
    model = randomize(TextSGC(N, C, K=k))
    ahat = dense_ahat(edge_index, weight)
    expected = torch.linalg.matrix_power(ahat, k) @ model.weight + model.bias
    torch.testing.assert_close(model(None, edge_index, weight), expected)
    adj_t = torch.sparse_coo_tensor(edge_index.flip(0), weight, (N, N)).to_sparse_csr()
    torch.testing.assert_close(model(None, adj_t), expected)


def test_text_sgc_propagates_k_times_with_c_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    edge_index, weight = wap_graph()
    model = TextSGC(N, C, K=2).double()
    seen: list[tuple[int, ...]] = []
    inner = model.propagate

    def spy(*args, **kwargs):
        seen.append(tuple(kwargs["x"].shape))
        return inner(*args, **kwargs)

    monkeypatch.setattr(model, "propagate", spy)
    model(None, edge_index, weight)
    assert seen == [(N, C), (N, C)]  # two sparse products with the N x C matrix, no A^2


def test_text_sgc_api() -> None:
    model = TextSGC(N, C)
    assert model.K == 2
    assert sum(p.numel() for p in model.parameters()) == N * C + C
    assert repr(model) == "TextSGC(7, 3, K=2)"
    with pytest.raises(ValueError, match="featureless"):
        model(torch.eye(N), torch.tensor([SRC, DST]))
    with pytest.raises(ValueError):
        TextSGC(N, C, K=0)


def test_text_sgc_gradcheck() -> None:
    edge_index, weight = wap_graph()
    model = TextSGC(N, C).double()
    w = model.weight.detach().clone().requires_grad_()

    def fn(w_: torch.Tensor) -> torch.Tensor:
        return torch.func.functional_call(model, {"weight": w_, "bias": model.bias},
                                          (None, edge_index, weight))

    assert torch.autograd.gradcheck(fn, (w,))
