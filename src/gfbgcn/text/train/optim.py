r"""The optimiser of a training run: Adam (the paper's), or Adam that keeps ``W1`` row-sparse.

``adam`` (default): ``torch.optim.Adam`` over every trained parameter.  In mini-batch training
the featureless first layer's table ``W1`` ``[N, hidden]`` then receives a dense ``[N, hidden]``
gradient every step, and every step updates all ``N x hidden`` moments: per node,
``16 * hidden`` bytes (weight, gradient, two moments) and a full pass over them per step.

``sparse-adam`` (mini-batch only): a step reads ``W1`` only at the columns ``C`` of its sampled
layer-1 rows (an ``nn.Embedding(sparse=True)`` lookup sharing ``W1``), so the gradient of ``W1``
is a row-sparse ``[|C|, hidden]`` tensor, and :class:`LazyAdam` updates the weight and both
moments of those rows only, with exactly the arithmetic of ``torch.optim.Adam`` (same
operations, same order) and the global step count ``t`` in the bias correction:

.. math::
    m_r \leftarrow \beta_1 m_r + (1 - \beta_1) g_r,\quad
    v_r \leftarrow \beta_2 v_r + (1 - \beta_2) g_r^2,\quad
    w_r \leftarrow w_r - \frac{\eta}{1 - \beta_1^t}
    \frac{m_r}{\sqrt{v_r} / \sqrt{1 - \beta_2^t} + \epsilon}\qquad (r \in C)

Rows outside ``C`` keep their weight and moments (dense Adam would decay their moments and
still move the weight by the decayed momentum); a step touching every row equals Adam's step
bit for bit.  (``torch.optim.SparseAdam`` differs: its epsilon is added before the bias
correction, and its update is slower here.)  The other parameters (the second layer, lambda,
the feature projection of ``--features``) stay with ``torch.optim.Adam``.  Per node this holds
``12 * hidden`` bytes (no dense gradient), and a step costs ``|C| x hidden`` instead of
``N x hidden``.  There is no weight decay, and a full-batch step touches every row:
:func:`check_optimizer` refuses both.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

from gfbgcn.core.errors import OptionError
from gfbgcn.text.params import OPTIMIZERS

__all__ = ["OPTIMIZERS", "LazyAdam", "RowSparseAdam", "check_optimizer", "make_optimizer",
           "release_state"]



def check_optimizer(config: Any, whole_models: tuple[str, ...]) -> None:
    """Refuse an optimiser the run cannot use (one line, before any work)."""
    if config.optimizer not in OPTIMIZERS:
        raise OptionError("{0} must be one of {choices}, got {value!r}", "optimizer",
                          choices=", ".join(OPTIMIZERS), value=config.optimizer)
    if config.optimizer != "sparse-adam":
        return
    if config.model in whole_models:
        raise OptionError("{0} sparse-adam needs a two-layer model (its row table W1); "
                          "{model} has none", "optimizer", model=config.model)
    if not config.batch_size:
        raise OptionError("{0} sparse-adam needs {1}: a full-batch step touches every row "
                          "of W1, so there is nothing sparse to exploit", "optimizer",
                          "batch_size")
    if config.weight_decay:
        raise OptionError("{0} sparse-adam has no weight decay (got {1} {decay}); use {0} "
                          "adam", "optimizer", "weight_decay", decay=config.weight_decay)


class LazyAdam(torch.optim.Optimizer):
    """Adam on the rows of a row-sparse gradient only (see the module docstring); parameters
    with a dense gradient get Adam's full step."""

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8) -> None:
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps})

    #: bytes of each temporary of an update (rows updated at a time x a row's bytes): small
    #: enough that the allocator reuses them from its heap instead of mapping fresh pages for
    #: each (a step at 383k documents spent more time in page faults than in arithmetic with
    #: 65,536-row chunks, docs/benchmarks.md), and bounded whatever ``|C|``
    CHUNK_BYTES = 1 << 22

    @torch.no_grad()
    def step(self, closure: Any = None) -> None:  # type: ignore[override]
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    self._update(p, p.grad, group)

    def _update(self, p: torch.Tensor, p_grad: torch.Tensor, group: dict[str, Any]) -> None:
        state = self.state[p]
        if not state:
            state["step"] = 0
            state["exp_avg"] = torch.zeros_like(p)
            state["exp_avg_sq"] = torch.zeros_like(p)
        state["step"] += 1
        rows, grad = _rows_and_values(p_grad)
        if rows is None:
            rows = torch.arange(len(p), device=p.device)
        chunk = max(1, self.CHUNK_BYTES // max(1, p[0].numel() * p.element_size()))
        for a in range(0, len(rows), chunk):
            part = rows[a : a + chunk]
            moments = (state["exp_avg"], state["exp_avg_sq"], p)
            exp_avg, exp_avg_sq, param = (x.index_select(0, part) for x in moments)
            new = _adam_rows(exp_avg, exp_avg_sq, param, grad[a : a + chunk], group,
                             state["step"])
            for full, values in zip(moments, new):
                full.index_copy_(0, part, values)


def _adam_rows(exp_avg: torch.Tensor, exp_avg_sq: torch.Tensor, param: torch.Tensor,
               grad: torch.Tensor, group: dict[str, Any], t: int
               ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One Adam step of some rows (copies), with ``torch.optim.Adam``'s single-tensor
    arithmetic, element by element."""
    beta1, beta2 = group["betas"]
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    denom = (exp_avg_sq.sqrt() / math.sqrt(1 - beta2**t)).add_(group["eps"])
    param.addcdiv_(exp_avg, denom, value=-group["lr"] / (1 - beta1**t))
    return exp_avg, exp_avg_sq, param


def _rows_and_values(grad: torch.Tensor) -> tuple[torch.Tensor | None, torch.Tensor]:
    """``(rows, [len(rows), ...] values)`` of a row-sparse gradient, rows unique and sorted
    (repeated rows, e.g. gathered from several processes, summed); ``(None, grad)`` when dense.
    The lookup of sorted unique columns gives them so already: then no sort is needed."""
    if not grad.is_sparse:
        return None, grad
    if not grad.is_coalesced():
        rows = grad._indices()[0]
        if bool((rows[1:] > rows[:-1]).all()):
            return rows, grad._values()
        grad = grad.coalesce()
    return grad.indices()[0], grad.values()


class RowSparseAdam:
    """:class:`LazyAdam` for ``W1`` and ``torch.optim.Adam`` for the rest, stepped together
    (see the module docstring)."""

    def __init__(self, model: nn.Module, lr: float, weight_decay: float) -> None:
        w1 = model.w1
        rest = [p for p in model.parameters() if p.requires_grad and p is not w1]
        self.parts: list[torch.optim.Optimizer] = [LazyAdam([w1], lr=lr)]
        if rest:
            self.parts.append(torch.optim.Adam(rest, lr=lr, weight_decay=weight_decay))

    def zero_grad(self, set_to_none: bool = True) -> None:
        for part in self.parts:
            part.zero_grad(set_to_none=set_to_none)

    def step(self) -> None:
        for part in self.parts:
            part.step()


def make_optimizer(model: nn.Module, config: Any) -> torch.optim.Optimizer | RowSparseAdam:
    """The run's optimiser over the model's trainable parameters (``config.optimizer``):
    Adam, one group, as the paper trains, or :class:`RowSparseAdam`."""
    if config.optimizer == "sparse-adam":
        return RowSparseAdam(model, config.lr, config.weight_decay)
    return torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=config.lr,
                            weight_decay=config.weight_decay)


def release_state(optimizer: torch.optim.Optimizer | RowSparseAdam, model: nn.Module) -> None:
    """Free the moments and gradients once training is over (before the exact evaluation,
    which needs room for the hidden layer of every node)."""
    model.zero_grad(set_to_none=True)
    for part in getattr(optimizer, "parts", [optimizer]):
        part.state.clear()
