"""GraphSAGE with generalized factorized bilinear (GFB) neighbour aggregation.

PyG's :class:`~torch_geometric.nn.conv.SAGEConv` computes

    x'_v = W_l * mean_{u in N(v)} x_u + b_l + W_r x_v .

The GFB version (paper Eq. ``cfm`` with Omega = mean over the neighbourhood) aggregates the
first-order message plus lambda times the compact second-order statistic of the same message:

    z_u  = W_l x_u                                        [k]
    M_u  = z_u z_u^T + eps I                              [k, k]   (never formed)
    x'_v = mean_{u in N(v)} ( z_u + lambda * GenVec(M_u) ) + b_l + W_r x_v

with one learnable scalar ``lambda`` per layer (``GenVec`` = DiagVec by default, as the
paper's graph-classification experiments use).  With ``lambda = 0`` the layer is exactly
``SAGEConv`` (``W_l`` commutes with the mean).

``in_channels=-1`` (or ``(-1, -1)``) defers the input widths to the first forward pass, as
``SAGEConv`` does, so that ``torch_geometric.nn.to_hetero`` can copy the layer to edge types
whose node types have different widths (initialise with one pass under ``torch.no_grad()``).
"""

from __future__ import annotations

from torch import Tensor
from torch.nn import functional as F
from torch_geometric.nn.aggr import MultiAggregation
from torch_geometric.nn.conv import SAGEConv
from torch_geometric.nn.dense.linear import is_uninitialized_parameter
from torch_geometric.typing import Adj, OptPairTensor, Size

from gfbgcn.nn.gfb import GFBMixin
from gfbgcn.nn.sparse import fused_sparse_ok
from gfbgcn.nn.sparse import spmm as sparse_spmm

__all__ = ["GFBSAGEConv"]


class GFBSAGEConv(GFBMixin, SAGEConv):
    r"""``SAGEConv`` whose neighbour messages carry ``lambda * GenVec(W_l x_u x_u^T W_l^T)``.

    .. math::
        \mathbf{x}'_v = \mathrm{mean}_{u \in N(v)} \big[\mathbf{W}_l \mathbf{x}_u
        + \lambda\, \mathrm{GenVec}(\mathbf{W}_l \mathbf{x}_u \mathbf{x}_u^\top
        \mathbf{W}_l^\top + \epsilon \mathbf{I})\big] + \mathbf{b}_l
        + \mathbf{W}_r \mathbf{x}_v

    Args:
        in_channels: input feature size ``d`` (or a ``(d_src, d_dst)`` pair); ``-1``: taken
            from the first input (lazy initialisation, as PyG's ``Linear``).
        out_channels: output feature size ``k``.
        summarize: GenVec operator, ``"diag"`` (DiagVec, default), ``"max"``, ``"mean"``,
            ``"topk"`` or ``"upper"``.
        eps: the ``eps`` of ``M = z z^T + eps I`` (default 1e-3, as ``GFBConv``).
        exact: exact GenVec (True) or the paper's fast form (False), see ``gfbgcn.nn.genvec``.
        k_top: ``k'`` of TopKVec.
        lambda_init: initial value of the learnable ``lambda`` (default 1.0, as ``GFBConv``;
            0.0 starts exactly at ``SAGEConv``).
        aggr: neighbourhood aggregation Omega (``"mean"`` as in GraphSAGE; ``"sum"``/``"max"``
            also work).  Multi-aggregations and ``"lstm"`` are not supported.
        normalize, root_weight, bias: as in ``SAGEConv``.  ``project=True`` is not supported.

    Shapes:
        - **input:** node features ``[N, d]`` (or a pair ``([N_src, d_src], [N_dst, d_dst])``),
          ``edge_index`` ``[2, E]`` or a sparse adjacency (transposed)
        - **output:** ``[N_dst, k]``
    """

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        summarize: str = "diag",
        *,
        eps: float = 1e-3,
        exact: bool = True,
        k_top: int = 3,
        lambda_init: float = 1.0,
        aggr: str = "mean",
        normalize: bool = False,
        root_weight: bool = True,
        bias: bool = True,
        **kwargs: object,
    ) -> None:
        if kwargs.get("project", False):
            raise ValueError("GFBSAGEConv does not support project=True")
        if not isinstance(aggr, str) or aggr == "lstm":
            raise ValueError(f"GFBSAGEConv needs a simple aggregation, got {aggr!r}")
        super().__init__(
            in_channels,
            out_channels,
            aggr=aggr,
            normalize=normalize,
            root_weight=root_weight,
            project=False,
            bias=bias,
            **kwargs,
        )
        if isinstance(self.aggr_module, MultiAggregation):
            raise ValueError("GFBSAGEConv does not support multi-aggregations")
        self.init_gfb(out_channels, summarize, eps, exact, k_top, lambda_init)

    def reset_parameters(self) -> None:
        """Reset ``W_l``, ``W_r``, ``b_l`` (as ``SAGEConv``) and ``lambda`` to ``lambda_init``."""
        super().reset_parameters()
        self.reset_lambda()

    def forward(
        self,
        x: Tensor | OptPairTensor,
        edge_index: Adj,
        size: Size = None,
    ) -> Tensor:
        """x: [N, d] or pair -> [N_dst, out_channels]."""
        if isinstance(x, Tensor):
            x = (x, x)
        x_src, x_dst = x
        # z_u = W_l x_u (bias added after aggregation, exactly as SAGEConv does)   [N_src, k]
        z = self._project(x_src)
        # first- plus second-order message: z_u + lambda * GenVec(z_u z_u^T + eps I)   (Eq. cfm)
        msg = self.gfb(z)
        # Omega over u in N(v): a mean for GraphSAGE                                 [N_dst, k]
        if fused_sparse_ok(self, edge_index):  # skips PyG's per-call to_edge_index
            out = self.message_and_aggregate(edge_index, (msg, x_dst))
        else:
            out = self.propagate(edge_index, x=(msg, x_dst), size=size)
        if self.lin_l.bias is not None:
            out = out + self.lin_l.bias
        if self.root_weight and x_dst is not None:
            out = out + self.lin_r(x_dst)
        if self.normalize:
            out = F.normalize(out, p=2.0, dim=-1)
        return out

    def _project(self, x_src: Tensor) -> Tensor:
        """``W_l x_u`` without the bias.  ``F.linear`` on ``lin_l.weight`` skips ``lin_l``'s
        forward and so the hook that materialises a lazy weight: a lazy ``W_l`` takes its
        width from ``x_src`` here, as ``lin_l(x_src)`` would (``W_r`` is called as a module)."""
        if is_uninitialized_parameter(self.lin_l.weight):
            self.lin_l.initialize_parameters(self.lin_l, (x_src,))
        return F.linear(x_src, self.lin_l.weight)

    def message_and_aggregate(self, adj_t: Adj, x: OptPairTensor) -> Tensor:
        """Fused mean (or sum) of ``x[0]`` over each target's row of ``adj_t``."""
        return sparse_spmm(adj_t, x[0], reduce=self.aggr)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, "
            f"aggr={self.aggr}, {self.gfb_repr()})"
        )
