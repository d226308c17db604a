"""Text GIN (WAP): identity features through an embedding table, then WeightedGINConv layers."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.nn import TextGIN
from tests.nn.models.wap import DST, SRC, C, N, dense_ahat, randomize, wap_graph


def test_text_gin_shapes_and_structure() -> None:
    model = TextGIN(N, 5, C, num_layers=3)
    assert len(model.convs) == 3
    assert model.embedding.shape == (N, 5)
    out = model(None, torch.tensor([SRC, DST]))
    assert out.shape == (N, C)
    assert repr(model) == "TextGIN(7, 5, 3, num_layers=3)"
    with pytest.raises(ValueError, match="featureless"):
        model(torch.eye(N), torch.tensor([SRC, DST]))


def test_text_gin_first_layer_is_gin_on_identity_features() -> None:
    """h^0 = E equals identity features pushed through a linear map with weight E."""
    edge_index, weight = wap_graph()
    model = randomize(TextGIN(N, 4, C, num_layers=1, dropout=0.0)).eval()
    conv = model.convs[0]
    ahat = dense_ahat(edge_index, weight)
    eye = torch.eye(N, dtype=torch.float64)
    h0 = eye @ model.embedding  # identity features times the first linear map
    expected = conv.nn((1 + conv.eps) * h0 + ahat @ h0)
    torch.testing.assert_close(model(None, edge_index, weight), expected)


def test_text_gin_permutation_equivariance_and_gradcheck() -> None:
    edge_index, weight = wap_graph()
    model = randomize(TextGIN(N, 3, C, dropout=0.5)).eval()
    out = model(None, edge_index, weight)
    perm = torch.tensor([4, 6, 0, 2, 1, 5, 3])
    inv = torch.empty_like(perm)
    inv[perm] = torch.arange(N)
    permuted = randomize(TextGIN(N, 3, C)).eval()
    permuted.load_state_dict(model.state_dict())
    with torch.no_grad():
        permuted.embedding.copy_(model.embedding[perm])
    torch.testing.assert_close(permuted(None, inv[edge_index], weight), out[perm])

    names = [n for n, _ in model.named_parameters()]
    params = tuple(p.detach().clone().requires_grad_() for _, p in model.named_parameters())

    def fn(*ps: torch.Tensor) -> torch.Tensor:
        return torch.func.functional_call(model, dict(zip(names, ps)),
                                          (None, edge_index, weight))

    assert torch.autograd.gradcheck(fn, params)


def test_text_gin_dropout_only_in_training() -> None:
    edge_index, weight = wap_graph()
    model = randomize(TextGIN(N, 8, C, dropout=0.5))
    model.eval()
    torch.testing.assert_close(model(None, edge_index, weight), model(None, edge_index, weight))
    model.train()
    torch.manual_seed(0)
    a = model(None, edge_index, weight)
    b = model(None, edge_index, weight)
    assert not torch.allclose(a, b)


def test_text_gin_initialisation_options():
    from gfbgcn.text.train.models import build_text_model

    torch.manual_seed(0)
    default = TextGIN(2000, 50, 3)
    assert all(float(conv.eps) == 0.0 for conv in default.convs)
    assert default.embedding.std() < 0.05  # Glorot over [2000, 50]
    model = TextGIN(2000, 50, 3, eps=-1.0, embedding_init="normal")
    assert all(float(conv.eps) == -1.0 for conv in model.convs)
    assert abs(float(model.embedding.std()) - 1.0) < 0.02
    with torch.no_grad():
        model.embedding.zero_()
        model.convs[0].eps.fill_(3.0)
    model.reset_parameters()  # restores both the options' values
    assert float(model.convs[0].eps) == -1.0 and abs(float(model.embedding.std()) - 1.0) < 0.02
    built = build_text_model("gin", 2000, 3, hidden=50, eps=-1.0, embedding_init="normal")
    assert float(built.module.convs[1].eps) == -1.0
    with pytest.raises(ValueError, match="embedding_init"):
        TextGIN(10, 4, 2, embedding_init="xavier")


def test_text_gin_two_layers_equal_the_dense_formula() -> None:
    """h1 = ReLU(MLP_1((1 + eps_1) E + Â E)), logits = MLP_2((1 + eps_2) h1 + Â h1) in eval mode."""
    edge_index, weight = wap_graph()
    model = randomize(TextGIN(N, 4, C, num_layers=2, dropout=0.5)).eval()
    ahat = dense_ahat(edge_index, weight)
    first, second = model.convs
    h1 = torch.relu(first.nn((1 + first.eps) * model.embedding + ahat @ model.embedding))
    expected = second.nn((1 + second.eps) * h1 + ahat @ h1)
    torch.testing.assert_close(model(None, edge_index, weight), expected)
    adj_t = torch.sparse_coo_tensor(edge_index.flip(0), weight, (N, N)).to_sparse_csr()
    torch.testing.assert_close(model(None, adj_t), expected)
    with pytest.raises(ValueError, match="num_layers"):
        TextGIN(N, 4, C, num_layers=0)


def test_text_gin_without_input_dropout_drops_only_hidden_layers() -> None:
    """dropout_input=False: H1 = ReLU(GIN_1(E)) without dropout, then dropout(H1) into GIN_2.
    With one layer the model is deterministic in training mode; the default is not."""
    edge_index, weight = wap_graph()
    one = randomize(TextGIN(N, 4, C, num_layers=1, dropout=0.5, dropout_input=False)).train()
    torch.testing.assert_close(one(None, edge_index, weight), one(None, edge_index, weight))
    ahat = dense_ahat(edge_index, weight)
    conv = one.convs[0]
    torch.testing.assert_close(
        one(None, edge_index, weight),
        conv.nn((1 + conv.eps) * one.embedding + ahat @ one.embedding))
    two = randomize(TextGIN(N, 4, C, num_layers=2, dropout=0.5, dropout_input=False)).train()
    torch.manual_seed(0)
    first, second = two.convs
    h1 = torch.relu(first.nn((1 + first.eps) * two.embedding + ahat @ two.embedding))
    torch.manual_seed(5)
    got = two(None, edge_index, weight)
    torch.manual_seed(5)
    h1d = torch.nn.functional.dropout(h1, 0.5, training=True)
    torch.testing.assert_close(got, second.nn((1 + second.eps) * h1d + ahat @ h1d))
    default = randomize(TextGIN(N, 4, C, num_layers=1, dropout=0.5)).train()
    torch.manual_seed(0)
    assert not torch.allclose(default(None, edge_index, weight), default(None, edge_index, weight))


def test_text_gin_one_layer_mlp_with_fixed_eps_is_text_gcn_with_biases() -> None:
    """mlp_layers=1, eps = -1 fixed: h1 = ReLU(Â E W_1 + b_1), logits = Â h1 W_2 + b_2."""
    edge_index, weight = wap_graph()
    model = randomize(TextGIN(N, 4, C, dropout=0.5, eps=-1.0, train_eps=False,
                               mlp_layers=1)).eval()
    assert all(len(conv.nn.lins) == 1 for conv in model.convs)
    assert not any(name.endswith("eps") for name, _ in model.named_parameters())
    ahat = dense_ahat(edge_index, weight)
    lin1, lin2 = (conv.nn.lins[0] for conv in model.convs)
    h1 = torch.relu(ahat @ model.embedding @ lin1.weight.T + lin1.bias)
    expected = ahat @ h1 @ lin2.weight.T + lin2.bias
    torch.testing.assert_close(model(None, edge_index, weight), expected)
    with pytest.raises(ValueError, match="mlp_layers"):
        TextGIN(N, 4, C, mlp_layers=0)
