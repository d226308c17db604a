"""The small weighted graph of the WAP models' tests (Text GIN, Text SGC): its edges, the dense
``Â`` they normalise to, and random float64 parameters."""

from __future__ import annotations

import torch

N, C = 7, 3
SRC = [0, 1, 1, 2, 3, 4, 5, 6, 2, 0]
DST = [1, 0, 2, 1, 4, 3, 6, 5, 6, 0]


def wap_graph() -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    weight = 0.2 + torch.rand(len(SRC), generator=gen, dtype=torch.float64)
    return torch.tensor([SRC, DST]), weight


def dense_ahat(edge_index: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    a = torch.zeros(N, N, dtype=torch.float64)
    a.index_put_((edge_index[1], edge_index[0]), weight, accumulate=True)
    diag = torch.diagonal(a)
    diag[diag == 0] = 1.0
    dis = a.sum(1).pow(-0.5)
    return dis[:, None] * a * dis[None, :]


def randomize(model: torch.nn.Module) -> torch.nn.Module:
    model.double()
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.rand(p.shape, generator=gen, dtype=p.dtype) - 0.5)
    return model
