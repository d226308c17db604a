"""CBP: compact bilinear pooling (Tensor Sketch approximation of Eq. ``bipool``)."""

from __future__ import annotations

import torch
from torch import Tensor
from torch_geometric.nn.dense.linear import Linear
from torch_geometric.nn.inits import zeros

from gfbgcn.nn.conv.gcn_norm_conv import SecondOrderConv
from gfbgcn.nn.sketch import tensor_sketch
from gfbgcn.nn.utils import chunked

__all__ = ["CBPConv"]


class CBPConv(SecondOrderConv):
    r"""Compact bilinear pooling layer (Tensor Sketch approximation of Eq. ``bipool``).

    .. math::
        \mathbf{x}'_v = \mathbf{L} \sum_u \hat a_{vu}\, \mathrm{TS}(\mathbf{x}_u) + \mathbf{b},
        \qquad \mathrm{TS}(\mathbf{x}) = \mathrm{irfft}(\mathrm{rfft}(C_1 \mathbf{x}) \odot
        \mathrm{rfft}(C_2 \mathbf{x}))

    ``C_1, C_2`` are count sketches ``R^d -> R^D`` whose hashes and signs are drawn once from
    ``seed`` and stored as buffers (saved in the state dict, not trained).  ``L`` in
    ``R^{out x D}`` is applied per node before Omega (equal, see
    :class:`~gfbgcn.nn.conv.gcn_norm_conv.SecondOrderConv`).  No power/l2 normalisation is
    added (the paper does not mention one).

    Args:
        in_channels: ``d``.
        out_channels: output size.
        sketch_dim: ``D``.  Default 1024 (about ``d(d+1)/2 / 20`` for ``d = 200``); the feature
            is ``D``-wide per node, so memory is O(N D) during training.
        seed: seed of the hash/sign draw.
        chunk_size: nodes per chunk when sketching (``None``: all at once).
        cached, add_self_loops, normalize, bias: as :class:`GFBConv`.

    Cost: O(N (d + D log D + D out)) time; parameters ``D out`` (+ bias).

    Shapes:
        - **input:** ``[N, d]`` and a graph as :class:`~gfbgcn.nn.conv.GCNNormConv` takes it
        - **output:** ``[N, out_channels]``
    """

    hash1: Tensor
    sign1: Tensor
    hash2: Tensor
    sign2: Tensor

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        sketch_dim: int = 1024,
        seed: int = 0,
        chunk_size: int | None = 8192,
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
        self.sketch_dim = sketch_dim
        self.seed = seed
        self.chunk_size = chunk_size
        gen = torch.Generator().manual_seed(seed)
        for name in ("1", "2"):
            index = torch.randint(sketch_dim, (in_channels,), generator=gen)
            sign = torch.randint(2, (in_channels,), generator=gen).to(torch.get_default_dtype())
            self.register_buffer("hash" + name, index)
            self.register_buffer("sign" + name, 2.0 * sign - 1.0)
        self.lin = Linear(sketch_dim, out_channels, bias=False, weight_initializer="glorot")
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Glorot ``L``, zero bias, clears the cache; the hashes stay fixed."""
        super().reset_parameters()
        self.lin.reset_parameters()
        zeros(self.bias)

    def check_state(self) -> None:
        """Refuse loaded buffers the sketch cannot use (``ValueError``): a hash index outside
        ``[0, sketch_dim)`` would index past the sketch, a sign other than +-1 would scale it."""
        for name in ("1", "2"):
            index, sign = getattr(self, "hash" + name), getattr(self, "sign" + name)
            if bool(((index < 0) | (index >= self.sketch_dim)).any()):
                raise ValueError(f"hash{name} holds indices outside [0, {self.sketch_dim})")
            if not bool((sign.abs() == 1).all()):
                raise ValueError(f"sign{name} holds values other than -1 and 1")

    def sketch(self, x: Tensor) -> Tensor:
        """``TS(x)`` per node.  [N, d] -> [N, D]."""
        return tensor_sketch(
            x, self.hash1, self.sign1.to(x.dtype), self.hash2, self.sign2.to(x.dtype),
            self.sketch_dim,
        )

    def node_features(self, x: Tensor) -> Tensor:
        """``L TS(x_u)``.  [N, d] -> [N, out]."""
        return chunked(lambda part: self.lin(self.sketch(part)), x, self.chunk_size)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, "
            f"sketch_dim={self.sketch_dim})"
        )
