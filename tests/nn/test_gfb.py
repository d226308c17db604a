"""GFBMixin: the GFB term ``z + lambda GenVec(z z^T + eps I)`` shared by GFBConv, GFBRGCNConv and
GFBSAGEConv, lambda's creation and reset, and exact dtype conversion of an untouched lambda."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.nn import GFBConv, GFBRGCNConv, GFBSAGEConv, genvec

LAYERS = {
    "GFBConv": lambda **kw: GFBConv(4, 3, **kw),
    "GFBRGCNConv": lambda **kw: GFBRGCNConv(4, 3, 2, **kw),
    "GFBSAGEConv": lambda **kw: GFBSAGEConv(4, 3, **kw),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_double_keeps_an_untouched_lambda_exact(name: str) -> None:
    """0.7 has no exact float32 value: a plain float32 -> float64 cast would give 0.699999988."""
    layer = LAYERS[name](lambda_init=0.7)
    assert layer.lam.dtype == torch.float32
    assert layer.double().lam.item() == 0.7
    assert layer.lam.dtype == torch.float64 and layer.lam.requires_grad
    assert isinstance(layer.lam, torch.nn.Parameter)
    assert any(p is layer.lam for p in layer.parameters())
    # and back: float32 0.7, float64 0.7 again
    assert layer.float().lam.item() == torch.tensor(0.7, dtype=torch.float32).item()
    assert layer.double().lam.item() == 0.7


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_double_converts_a_trained_lambda_normally(name: str) -> None:
    layer = LAYERS[name](lambda_init=0.7)
    with torch.no_grad():
        layer.lam.fill_(0.3)  # changed by training
    float32_value = torch.tensor(0.3, dtype=torch.float32)
    assert layer.double().lam.item() == float32_value.double().item()  # converted, not reset
    assert layer.lam.item() != 0.3 and layer.lam.item() != 0.7


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_gfb_term_and_reset(name: str) -> None:
    layer = LAYERS[name](lambda_init=0.25, summarize="max", eps=0.1).double()
    assert layer.lam.item() == 0.25 and layer.lam.dim() == 0
    z = torch.randn(5, 3, dtype=torch.float64)
    torch.testing.assert_close(layer.gfb(z), z + 0.25 * genvec(z, "max", eps=0.1))
    with torch.no_grad():
        layer.lam.fill_(2.0)
    torch.testing.assert_close(layer.gfb(z), z + 2.0 * genvec(z, "max", eps=0.1))
    layer.reset_parameters()
    assert layer.lam.item() == 0.25
    assert layer.gfb_repr() == "summarize=max"


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_hyper_parameters_are_validated(name: str) -> None:
    layer = LAYERS[name](summarize="TopKVec", k_top=2, exact=False)
    assert (layer.summarize, layer.k_top, layer.exact) == ("topk", 2, False)
    with pytest.raises(ValueError, match="k_top"):
        LAYERS[name](summarize="topk", k_top=4)  # out_channels is 3
    with pytest.raises(ValueError, match="summarizer"):
        LAYERS[name](summarize="median")


def test_state_dict_and_meta_device() -> None:
    layer = GFBConv(4, 3, lambda_init=0.7)
    assert "lam" in layer.state_dict()
    with torch.device("meta"):
        meta = GFBConv(4, 3, lambda_init=0.7)
    assert meta.lam.device.type == "meta"
    meta.to_empty(device="cpu")  # an _apply on a meta lambda must not try to read it
    assert meta.lam.shape == ()
