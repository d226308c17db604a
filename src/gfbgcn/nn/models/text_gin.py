"""Text GIN (WAP): featureless GIN on the Text GCN graph, a baseline of Table "Test accuracy"."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.nn import Module, ModuleList, Parameter
from torch_geometric.nn.inits import glorot
from torch_geometric.nn.models import MLP
from torch_geometric.typing import Adj, OptTensor

from gfbgcn.nn.conv.weighted_gin_conv import WeightedGINConv
from gfbgcn.nn.models.text_sgc import require_featureless

__all__ = ["EMBEDDING_INITS", "TextGIN"]

EMBEDDING_INITS: tuple[str, ...] = ("glorot", "normal")


class TextGIN(Module):
    r"""Text GIN (WAP): identity features via an embedding table, then ``num_layers`` GIN layers.

    .. math::
        \mathbf{H}^{(0)} = \mathbf{I}\mathbf{E} = \mathbf{E},\qquad
        \mathbf{H}^{(l)} = \mathrm{ReLU}\big(\mathrm{GIN}_l(\mathrm{dropout}(\mathbf{H}^{(l-1)}),
        \hat{\mathbf{A}})\big)

    ``h^0 = E`` (``[num_nodes, hidden]``, equal to ``I E``: identity features times a first linear
    map), ``h^l = ReLU(WeightedGINConv_l(dropout(h^{l-1})))`` with ``mlp_layers``-layer MLPs
    ``hidden -> hidden -> hidden`` (last layer: ``-> num_classes``, no ReLU: logits).

    Args:
        num_nodes: number of graph nodes.
        hidden: embedding / hidden size (the paper's first-layer size is 200).
        num_classes: number of classes.
        num_layers: number of GIN layers (default 2).
        dropout: dropout before every GIN layer (default 0.5, the paper's rate).
        train_eps: learn GIN's ``eps`` (default True).  On identity input every node has a
            free embedding row, so a learned ``eps`` that grows lets a training document fit
            its label through its own row instead of its neighbours; ``eps=-1`` with
            ``train_eps=False`` keeps the self term at ``Â``'s self-loop, as in Text GCN
            (``docs/results/fidelity.md``, Text GIN rows).
        eps: initial ``eps`` of every layer (default 0, GIN's).  ``-1`` starts with no self
            term, so a node's own free embedding row is not weighted 1 against its normalised
            neighbours (see ``docs/results/text_notes.md``).
        embedding_init: ``"glorot"`` (default, as Text GCN's ``W_1``) or ``"normal"``
            (``N(0, 1)``, as ``torch.nn.Embedding``).
        dropout_input: apply dropout to ``H^(0) = E`` too (default True).  ``False`` drops out
            only the hidden layers, as our Text GCN (whose layer 1 has no dropout):

            .. math::
                \mathbf{H}^{(1)} = \mathrm{ReLU}\big(\mathrm{GIN}_1(\mathbf{E},
                \hat{\mathbf{A}})\big),\quad
                \mathbf{H}^{(l)} = \mathrm{ReLU}\big(\mathrm{GIN}_l(
                \mathrm{dropout}(\mathbf{H}^{(l-1)}), \hat{\mathbf{A}})\big),\ l > 1
        mlp_layers: linear layers of each GIN layer's MLP (default 2, GIN's); with 1 and
            ``eps=-1`` fixed the model is Text GCN with biases and a factorised first weight.
        cached, add_self_loops, normalize: passed to every :class:`WeightedGINConv`.

    Shapes:
        - **input:** ``x=None`` and a graph with ``num_nodes`` nodes
        - **output:** logits ``[num_nodes, num_classes]``
    """

    def __init__(
        self,
        num_nodes: int,
        hidden: int,
        num_classes: int,
        num_layers: int = 2,
        dropout: float = 0.5,
        train_eps: bool = True,
        cached: bool = False,
        add_self_loops: bool | None = None,
        normalize: bool = True,
        eps: float = 0.0,
        embedding_init: str = "glorot",
        dropout_input: bool = True,
        mlp_layers: int = 2,
    ) -> None:
        super().__init__()
        if num_layers < 1:
            raise ValueError(f"num_layers must be >= 1, got {num_layers}")
        if mlp_layers < 1:
            raise ValueError(f"mlp_layers must be >= 1, got {mlp_layers}")
        if embedding_init not in EMBEDDING_INITS:
            raise ValueError(f"embedding_init must be one of {', '.join(EMBEDDING_INITS)}, "
                             f"got {embedding_init!r}")
        self.embedding_init = embedding_init
        self.num_nodes = num_nodes
        self.hidden = hidden
        self.num_classes = num_classes
        self.dropout = dropout
        self.dropout_input = bool(dropout_input)
        self.embedding = Parameter(torch.empty(num_nodes, hidden))  # I E
        self.convs = ModuleList()
        for layer in range(num_layers):
            out = num_classes if layer == num_layers - 1 else hidden
            mlp = MLP([hidden] * mlp_layers + [out], act="relu", norm=None, dropout=0.0)
            self.convs.append(
                WeightedGINConv(
                    mlp,
                    eps=eps,
                    train_eps=train_eps,
                    cached=cached,
                    add_self_loops=add_self_loops,
                    normalize=normalize,
                )
            )
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-initialise the embedding (``embedding_init``) and every GIN layer."""
        if self.embedding_init == "normal":
            torch.nn.init.normal_(self.embedding)
        else:
            glorot(self.embedding)
        for conv in self.convs:
            # a ModuleList yields nn.Module to a type checker; each item is a WeightedGINConv
            conv.reset_parameters()  # type: ignore[operator]

    def forward(
        self, x: Tensor | None, edge_index: Adj, edge_weight: OptTensor = None
    ) -> Tensor:
        """``x`` must be ``None``; returns logits [num_nodes, num_classes]."""
        require_featureless(x, type(self).__name__)
        h: Tensor = self.embedding
        for layer, conv in enumerate(self.convs):
            if layer > 0 or self.dropout_input:
                h = F.dropout(h, p=self.dropout, training=self.training)
            h = conv(h, edge_index, edge_weight)
            if layer < len(self.convs) - 1:
                h = F.relu(h)
        return h

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}({self.num_nodes}, {self.hidden}, {self.num_classes}, "
            f"num_layers={len(self.convs)})"
        )
