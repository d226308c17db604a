"""Text GCN + Square root: GCN aggregation followed by signed square-root normalisation."""

from __future__ import annotations

from torch import Tensor
from torch_geometric.nn.dense.linear import Linear
from torch_geometric.nn.inits import zeros

from gfbgcn.nn.conv.gcn_norm_conv import SecondOrderConv
from gfbgcn.nn.second_norm import signed_sqrt

__all__ = ["SqrtGCNConv"]


class SqrtGCNConv(SecondOrderConv):
    r"""GCN layer followed by signed square-root (power) normalisation ("Text GCN + Square root").

    .. math::
        \mathbf{x}'_v = \mathrm{ssqrt}\Big(\sum_u \hat a_{vu} \mathbf{W} \mathbf{x}_u\Big)
        + \mathbf{b},\qquad
        \mathrm{ssqrt}(z) = \mathrm{sign}(z)\big(\sqrt{|z| + \delta} - \sqrt{\delta}\big)

    The paper names the baseline without defining it; this is the standard power normalisation
    of pooled second-order features applied to the pooled GCN response, element-wise, before
    the bias.  The ``delta`` shift makes it differentiable at 0 (plain ``sqrt`` has infinite
    slope there) and the ``- sqrt(delta)`` keeps it odd and zero at 0; see
    :func:`gfbgcn.nn.second_norm.signed_sqrt`, which computes it.

    Args:
        in_channels, out_channels: as ``GCNConv``.
        delta: smoothing constant (default ``1e-2``: slope at 0 is 5, and the result is within
            0.1 of ``sign(z) sqrt(|z|)`` everywhere).
        cached, add_self_loops, normalize, bias: as :class:`GFBConv`.

    Parameters: exactly those of ``GCNConv``.

    Shapes:
        - **input:** ``[N, d]`` and a graph as :class:`~gfbgcn.nn.conv.GCNNormConv` takes it
        - **output:** ``[N, out_channels]``
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        delta: float = 1e-2,
        cached: bool = False,
        add_self_loops: bool | None = None,
        normalize: bool = True,
        bias: bool = True,
        **kwargs,
    ) -> None:
        super().__init__(
            in_channels, out_channels, cached=cached, add_self_loops=add_self_loops,
            normalize=normalize, bias=bias, **kwargs,
        )
        if delta <= 0:
            raise ValueError(f"delta must be > 0, got {delta}")
        self.delta = float(delta)
        self.lin = Linear(in_channels, out_channels, bias=False, weight_initializer="glorot")
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Glorot ``W``, zero bias; clears the adjacency cache."""
        super().reset_parameters()
        self.lin.reset_parameters()
        zeros(self.bias)

    def node_features(self, x: Tensor) -> Tensor:
        """``W x_u``.  [N, d] -> [N, out]."""
        return self.lin(x)

    def post_aggregate(self, out: Tensor) -> Tensor:
        """Signed square root of the aggregated response."""
        return signed_sqrt(out, self.delta)
