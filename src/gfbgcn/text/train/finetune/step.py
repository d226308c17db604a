r"""One fine-tuning step, the memory bank's refreshes and the evaluation of the mixture.

The model (BertGCN, Lin et al. 2021, on top of the graph models here): a document's
embedding :math:`e_d` (the encoder's, :mod:`.batches`) feeds two classifiers,

- the graph model :class:`~gfbgcn.nn.models.FeatureTextGCN` over the whole graph, whose
  document rows of ``F`` are the bank :math:`B` (every document's latest embedding) times the
  feature scale :math:`s`, word rows zero: layer 1 is
  :math:`\mathbf{H} = \mathrm{ReLU}(\hat{\mathbf{A}} (\mathbf{W}_1 + s \mathbf{F} \mathbf{W}_2))`,
  layer 2 the chosen second layer, giving logits :math:`g_d`;
- the head, a linear classifier on the embedding, :math:`h_d = \mathbf{W}_h e_d + b_h`;

and the prediction interpolates their probabilities with the graph's weight :math:`w`:

.. math::
    p_d = w \, \mathrm{softmax}(g_d) + (1 - w) \, \mathrm{softmax}(h_d),
    \qquad \mathcal{L} = -\frac{1}{|\mathcal{B}|} \sum_{d \in \mathcal{B}} \log p_d[y_d].

A step runs a batch :math:`\mathcal{B}` of training documents through the encoder with
gradients; their embeddings replace their rows of the bank *for this step only* (the other
rows are stored values, constants), so the encoder's gradient comes through the batch alone,
by both the head and the graph (a batch document reaches the graph's output through its
words).  After the optimiser's step the batch's embeddings, detached, are written into the
bank.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from gfbgcn.nn.sparse import csr_rows, spmm
from gfbgcn.text.train.finetune.batches import encode
from gfbgcn.text.train.finetune.setup import FinetuneRun

__all__ = ["evaluate_rows", "finetune_step", "graph_logits", "mixture_log_prob",
           "refresh_bank", "validate"]


def mixture_log_prob(graph_logits: torch.Tensor, head_logits: torch.Tensor, weight: float
                     ) -> torch.Tensor:
    r"""``log p`` ``[B, C]`` of the mixture :math:`p = w\,\mathrm{softmax}(g) + (1 - w)\,
    \mathrm{softmax}(h)`, computed in the log domain,

    .. math::
        \log p = \mathrm{logsumexp}\big(\log w + \log\mathrm{softmax}(g),\;
        \log(1 - w) + \log\mathrm{softmax}(h)\big),

    so that it stays finite where both probabilities underflow, and ``w = 1`` (``0``) gives
    the graph's (the head's) log-probabilities exactly, with no gradient to the other part
    (its term is :math:`-\infty`)."""
    log_w = torch.tensor([weight, 1.0 - weight], dtype=graph_logits.dtype,
                         device=graph_logits.device).log()  # log 0 = -inf: that part is out
    parts = torch.stack([graph_logits.log_softmax(dim=1), head_logits.log_softmax(dim=1)])
    return torch.logsumexp(parts + log_w.view(2, 1, 1), dim=0)


def graph_logits(run: FinetuneRun, rows: torch.Tensor, batch: torch.Tensor | None = None,
                 fresh: torch.Tensor | None = None) -> torch.Tensor:
    r"""The graph model's logits ``[len(rows), C]`` of the documents ``rows``, the whole graph
    run (in the model's present mode) on the bank with the rows ``batch`` replaced by
    ``fresh`` ``[B, dim]`` when given:

    .. math::
        \mathbf{X}\mathbf{W} = \mathbf{W}_1 + s \begin{bmatrix} B' \\ 0 \end{bmatrix}
        \mathbf{W}_2, \qquad B' = B \text{ with } B'_{\mathcal{B}} = e_{\mathcal{B}}.

    Layer 2 runs on ``rows``' rows of ``Â`` alone (:class:`~gfbgcn.nn.models.TwoLayerTextGCN`'s
    ``head``: the same values as the rows of the whole output, as full-batch training uses).
    """
    feats = run.bank if batch is None or fresh is None else run.bank.index_copy(0, batch, fresh)
    gcn, d = run.gcn, run.num_docs
    docs = torch.addmm(gcn.w1[:d], feats * run.scale, gcn.w2)  # word rows of F: zero
    h = F.relu(spmm(run.adj, torch.cat([docs, gcn.w1[d:]])))
    return gcn.head(h, csr_rows(run.adj, rows))


def _train_mode(run: FinetuneRun, training: bool) -> None:
    for module in run.modules().values():
        module.train(training)


def finetune_step(run: FinetuneRun, batch: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """One optimiser step on the training documents ``batch`` ``[B]`` (ids); returns ``(loss
    summed over the batch, correct predictions)`` as tensors on the device (read once an
    epoch).  Dropout is on in the encoder and the graph model, as they have it."""
    _train_mode(run, True)
    ids, mask = run.tokens.padded(batch)
    fresh = encode(run.encoder, run.encoder.model, ids, mask)  # [B, dim], with gradients
    index = torch.from_numpy(batch).to(run.device)
    log_p = mixture_log_prob(graph_logits(run, index, index, fresh), run.head(fresh),
                             run.weight)
    target = run.targets[index]
    loss = F.nll_loss(log_p, target, reduction="sum")
    run.optimizer.zero_grad(set_to_none=True)
    (loss / len(batch)).backward()
    run.optimizer.step()
    with torch.no_grad():
        run.bank[index] = fresh.detach()
        correct = (log_p.argmax(dim=1) == target).sum()
    return loss.detach(), correct


def refresh_bank(run: FinetuneRun, docs: torch.Tensor | None = None, *,
                 progress: bool = False) -> None:
    """Embed the documents ``docs`` (all when None) with the encoder in evaluation mode (no
    dropout, no gradients: :meth:`SentenceEncoder.embed`, as new documents are embedded) and
    write them into the bank; ``progress``: a bar over the documents."""
    run.encoder.model.eval()
    idx = np.arange(run.num_docs) if docs is None else docs.cpu().numpy()
    if not len(idx):
        return
    vectors = run.encoder.embed([run.texts[i] for i in idx], batch_size=run.inference_batch,
                                progress=progress)
    run.bank[torch.from_numpy(idx).to(run.device)] = torch.from_numpy(vectors).to(run.device)


def evaluate_rows(run: FinetuneRun, rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(graph logits, head logits)`` ``[len(rows), C]`` of the documents ``rows`` from the
    bank as it is, in evaluation mode, without gradients."""
    _train_mode(run, False)
    with torch.no_grad():
        return graph_logits(run, rows), run.head(run.bank[rows])


def validate(run: FinetuneRun) -> tuple[float, float]:
    """``(validation loss, validation accuracy)`` of the mixture, from the bank as it is (the
    caller refreshes the validation rows first)."""
    g, h = evaluate_rows(run, run.val_idx)
    log_p = mixture_log_prob(g, h, run.weight)
    y = run.targets[run.val_idx]
    values = torch.stack([F.nll_loss(log_p, y), (log_p.argmax(dim=1) == y).float().mean()])
    loss, accuracy = values.to(torch.float64).tolist()
    return loss, accuracy
